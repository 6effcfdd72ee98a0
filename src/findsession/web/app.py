"""The page's routes: the page and its files, and the JSON it reads.

Every answer is the CLI's `--json` object for the same question (built by
`findsession.jsonout`), with what only a page needs beside it (the reader's relatives
and the resume command as one shell line). The index is used under the caller's lock:
the service's searches and the page's take turns on one connection.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from findsession import jsonout, render
from findsession.api import Findsession
from findsession.errors import FindsessionError, SessionNotFound
from findsession.web.export import export_document
from findsession.web.family import family_json
from findsession.web.queries import search_options, whole
from findsession.web.reading import read_payload

#: Opens the index for one request: a context that holds the caller's lock.
Index = Callable[[], AbstractContextManager[Findsession]]

STATIC = Path(__file__).resolve().parent / "static"
#: Sessions the timeline asks for at most in one request.
MAX_LISTED = 2000


def build_app(index: Index) -> Starlette:
    """The routes over `index`; wrap the result in `guard.Guard` before serving it."""

    def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    def search(request: Request) -> Response:
        params = request.query_params
        query = params.get("q", "")
        with index() as fs:
            options = search_options(params, fs.settings.hybrid_weight)
            started = time.perf_counter()
            response = fs.search(query, options)
            elapsed = (time.perf_counter() - started) * 1000
        data = jsonout.search_json(response)
        for result, hit in zip(data["results"], response.hits, strict=True):
            result["why"] = render.explain_line(hit)  # the words `--explain` prints
        return _json({**data, "elapsed_ms": round(elapsed, 1)})

    def session(request: Request) -> Response:
        ref = request.path_params["ref"]
        with index() as fs:
            view = fs.read(ref, tools=True)
            data = read_payload(view)
            data.update(family_json(fs, view.session.id, data))
            data["resume"] = _resume(fs, view.session)
        return _json(data)

    def export(request: Request) -> Response:
        """The session as the file `findsession export` writes, to download: the index's
        (redacted) text only; a raw export is the command line's, behind its confirmation."""
        fmt = request.query_params.get("format", "md")
        if fmt not in ("md", "html"):
            return _json({"error": f"format must be md or html, not {fmt!r}"}, 400)
        with index() as fs:
            doc = export_document(fs, request.path_params["ref"])
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
        params = request.query_params
        limit = whole(params, "limit", 500, MAX_LISTED)
        with index() as fs:
            listed = fs.sessions(
                project=params.get("project") or None,
                after=params.get("after") or None,
                before=params.get("before") or None,
                limit=limit,
            )
            data = jsonout.sessions_json((s, fs.first_prompt(s.id)) for s in listed)
            given = fs.titles_given()
        for row in data["sessions"]:
            # The titles `titles --write` gave, so the timeline can show them apart.
            row["title_given"] = given.get(row["id"])
        return _json(data)

    def sources(request: Request) -> Response:
        with index() as fs:
            return _json(jsonout.sources_json(fs.sources()))

    def status(request: Request) -> Response:
        with index() as fs:
            return _json(jsonout.status_json(fs.status()))

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


def _resume(fs: Findsession, session: Any) -> dict[str, Any] | None:
    """The resume object `--json` gives, with the line `open --print` prints; for a
    session whose transcript is gone, `findsession open ID`, which writes it back from
    the archive before resuming (none when the archive holds no copy)."""
    from findsession.cli.open_session import shell_line, shell_word

    plan = fs.resume(session)
    data = jsonout.resume_json(plan)
    if data is not None:
        data["shell"] = shell_line(plan) if plan.available else None
        if plan.available and plan.restore is not None:
            held = plan.restore.held
            data["shell"] = f"findsession open {shell_word(session.id)}" if held else None
    return data


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
