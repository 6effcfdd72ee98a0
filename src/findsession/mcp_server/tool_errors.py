"""How a tool refuses: findsession's own errors become tool errors carrying their line."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from findsession.errors import FindsessionError

Tool = TypeVar("Tool", bound=Callable[..., Any])


def tool_errors(tool: Tool) -> Tool:
    """Turn the errors findsession raises on purpose into tool errors carrying their
    message: any other exception reaches the agent only as "Error executing tool".

    Messages that reach an agent name the tools' parameters or neutral terms, never a
    CLI flag, and stay on one line.
    """

    @functools.wraps(tool)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except FindsessionError as exc:
            raise ToolError(" ".join(str(exc).split())) from exc

    return run  # type: ignore[return-value]
