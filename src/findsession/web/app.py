"""The page's routes: the page and its files, and the JSON it reads.

Every answer is the CLI's `--json` object for the same question, asked as the same
typed request (`protocol.requests`), with what only a page needs beside it (the
reader's relatives and the resume command as one shell line, each result's `--explain`
line). The page is a client like the CLI: inside the service its questions go to the
warm index, in the `ui` process to that process's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from findsession import render
from findsession.api import ListOptions
from findsession.errors import FindsessionError, SessionNotFound
from findsession.protocol import requests as rq
from findsession.protocol.requests import Answer
from findsession.web.queries import search_options, whole

#: Asks the index one question: the service's warm index, or this process's.
Ask = Callable[[Request], Answer]

STATIC = Path(__file__).resolve().parent / "static"
#: Sessions the timeline asks for at most in one request.
MAX_LISTED = 2000


def build_app(ask: Ask) -> Starlette:
    """The routes over `ask`; wrap the result in `guard.Guard` before serving it."""

    def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    def search(request: Request) -> Response:
        params = request.query_params
        answered = ask(rq.Search(params.get("q", ""), search_options(params)))
        data = answered.result
        for result in data["results"]:
            result["why"] = render.explain_line(result)  # the words `--explain` prints
        return _json({**data, "elapsed_ms": round(answered.ms, 1)})

    def session(request: Request) -> Response:
        return _json(ask(rq.Reader(request.path_params["ref"])).result)

    def export(request: Request) -> Response:
        """The session as the file `findsession export` writes, to download: the index's
        (redacted) text only; a raw export is the command line's, behind its confirmation."""
        fmt = request.query_params.get("format", "md")
        if fmt not in ("md", "html"):
            return _json({"error": f"format must be md or html, not {fmt!r}"}, 400)
        doc = ask(rq.Export(request.path_params["ref"])).result
        text = render.export_html(doc) if fmt == "html" else render.export_markdown(doc)
        name = f"session-{_safe_name(doc['session']['id'])}.{fmt}"
        return Response(
            text,
            media_type="text/html" if fmt == "html" else "text/markdown",
            headers={
                "cache-control": "no-store",
                "content-disposition": f'attachment; filename="{name}"',
            },
        )

    def sessions(request: Request) -> Response:
        """The titles `titles --write` gave, each as `title_given`, so the timeline can
        show them apart."""
        params = request.query_params
        options = ListOptions(
            project=params.get("project") or None,
            after=params.get("after") or None,
            before=params.get("before") or None,
            limit=whole(params, "limit", 500, MAX_LISTED),
        )
        return _json(ask(rq.Sessions(options, titles_given=True)).result)

    def sources(request: Request) -> Response:
        return _json(ask(rq.Sources()).result)

    def status(request: Request) -> Response:
        return _json(ask(rq.Status()).result)

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/search", search),
            Route("/api/session/{ref:str}", session),
            Route("/api/session/{ref:str}/export", export),
            Route("/api/sessions", sessions),
            Route("/api/sources", sources),
            Route("/api/status", status),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={FindsessionError: _error},  # type: ignore[dict-item]
    )


def _safe_name(session_id: str) -> str:
    """A session id as a file name a browser keeps as it is: a pushed session's id holds
    `@` and `.`, an agent's may hold anything, so only `[A-Za-z0-9._-]` stays."""
    kept = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "._-") else "-" for ch in session_id
    )
    return kept.strip(".-")[:80] or "session"


def _json(data: dict[str, Any], status: int = 200) -> Response:
    return Response(
        json.dumps(data, ensure_ascii=False),
        status_code=status,
        media_type="application/json",
        headers={"cache-control": "no-store"},
    )


async def _error(request: Request, exc: Exception) -> Response:
    """A `FindsessionError` is the person's to read: its message, never a traceback."""
    status = 404 if isinstance(exc, SessionNotFound) else 400
    return _json({"error": str(exc)}, status)
