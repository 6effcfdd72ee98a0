"""Errors a user can act on: each message says what happened and what to do."""


class FindsessionError(Exception):
    """Base of every error findsession raises on purpose; the CLI prints it without a traceback.

    The message says what to do in words any interface can use (an agent over MCP cannot
    pass a command-line flag); `cli_hint`, when set, is the command-line way to do it,
    which the CLI prints after the message.
    """

    def __init__(self, message: str, *, cli_hint: str | None = None) -> None:
        super().__init__(message)
        self.cli_hint = cli_hint


class DatabaseError(FindsessionError):
    """The index database cannot be opened or used as it is."""


class SessionNotFound(FindsessionError):
    """No indexed session matches the id (or id prefix) that was asked for."""


class OutOfScope(FindsessionError):
    """A call reached past the project its interface was started for (the MCP server's
    `--directory`): every session outside it is out of reach, as if not indexed."""


class IndexBusy(DatabaseError):
    """Another findsession process held the index's write lock longer than we wait."""


class IndexFull(DatabaseError):
    """The disk (or SQLite's page limit) is full: what was committed stays searchable."""
