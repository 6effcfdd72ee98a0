"""Where the index lives: the storage protocols and their backends (today SQLite)."""
