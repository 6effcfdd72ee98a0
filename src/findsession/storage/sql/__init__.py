"""The statements both backends run, written once (the query layer).

SQLite and PostgreSQL agree on most of what the index asks: the same tables, the same
columns, the same SQL for a file's cursor or a session's row. That SQL lives here, in
one mixin per concern over `SqlConnection` (`connection.py`); a backend package is its
connection (the driver, transactions, `?` marks turned into its own) and the small
parts where the dialects disagree, each a method `dialect.py` names: a list of values
in a statement, a table's unique key, a prefix match, what a server adds to a
session's row. Keyword and vector search (FTS5 against `tsvector`, a numpy scan against
pgvector) and each backend's schema steps stay in the backend's package.

Nothing here imports a driver or a backend; `tests/test_layering.py` holds it.
"""
