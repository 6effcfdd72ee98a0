"""Errors a user can act on: each message says what happened and what to do."""


class FindsessionError(Exception):
    """Base of every error findsession raises on purpose; the CLI prints it without a traceback."""


class DatabaseError(FindsessionError):
    """The index database cannot be opened or used as it is."""


class SessionNotFound(FindsessionError):
    """No indexed session matches the id (or id prefix) that was asked for."""
