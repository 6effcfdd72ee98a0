"""The resident service: one process per index that keeps search warm and the index fresh."""
