"""findsession without a terminal: the resident search service, its client, and the units
that start it."""
