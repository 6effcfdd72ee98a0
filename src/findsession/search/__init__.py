"""Search: keyword retrieval (and, later, vectors), fusion and the engine that runs them."""
