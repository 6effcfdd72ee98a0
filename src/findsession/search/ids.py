"""A query that is a session's id: pasted from a list, a resume command or an agent.

People copy an id (`7c1e4a52`, a whole UUID, a Codex or Gemini session id) and ask for
it; ranked by its words, the id matched nothing and some other session came first. So a
one-word query is looked up among the sessions' ids before it is searched:

- the whole id of a session always matches;
- a prefix matches when it has at least `MIN_PREFIX` characters and holds a digit: an
  ordinary word (`added`, `cafe`, `deadbeef`) is searched as a word even when some id
  happens to begin with it, while a shown id (eight characters) nearly always holds a
  digit (an 8-character hex prefix lacks one in 1 of 2,500 ids; its whole id still
  matches);
- a subagent named after its parent (`<parent id>:<its own>`) shares every prefix of
  the parent's id, so it does not make the prefix ambiguous: the parent is meant.

The session-level filters still apply (project, source): an id outside them is not an
answer. Inside one session (`--session`) nothing is looked up.
"""

from __future__ import annotations

import re

from findsession.domain import Confidence, IdMatch, Level, SearchResponse, Session
from findsession.search.filters import SearchOptions
from findsession.search.hits import with_id_match
from findsession.storage.base import Storage

#: Characters of the shortest prefix looked up (git shows seven; lists here show eight).
MIN_PREFIX = 6
#: Sessions named in an ambiguous answer: enough to pick from, few enough to read.
LISTED = 10
#: What a pasted id is made of: every source's ids (UUIDs, `T-…`, `ses_…`, timestamps,
#: `aider-…:…`) and nothing a sentence holds.
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
#: Quotes and brackets a pasted id often comes wrapped in.
_WRAPPING = "\"'`<>()[]{},;"


def id_token(text: str) -> str | None:
    """The query as an id to look up: one token of id characters, unwrapped; else None."""
    token = text.strip().strip(_WRAPPING)
    if not token or any(c.isspace() for c in token) or not _ID.match(token):
        return None
    return token


def may_be_prefix(token: str) -> bool:
    """Whether a token that is no whole id is looked up as the start of one."""
    return len(token) >= MIN_PREFIX and any(c.isdigit() for c in token)


def lookup(store: Storage, text: str, opts: SearchOptions) -> IdMatch | None:
    """The session(s) the query names by id, within the filters; None when it names none."""
    if opts.session or opts.raw:
        return None
    token = id_token(text)
    if token is None:
        return None
    for exact in dict.fromkeys((token, token.lower())):
        session = store.get_session(exact)
        if session is not None:
            kept = store.sessions_kept([session.id], opts.filters)
            return IdMatch("exact", [session]) if kept else None
    if not may_be_prefix(token):
        return None
    found = store.sessions_with_prefix(token, limit=LISTED * 4)
    kept = store.sessions_kept([s.id for s in found], opts.filters)
    found = [s for s in found if s.id in kept]
    found = family_heads(found)
    if not found:
        return None
    if len(found) == 1:
        return IdMatch("prefix", found)
    return IdMatch("ambiguous", found[:LISTED])


def family_heads(sessions: list[Session]) -> list[Session]:
    """Those of `sessions` not named after another of them: a subagent whose id is
    `<parent id>:<its own>` shares every prefix of its parent's, and the parent is meant."""
    return [s for s in sessions if not any(s.id.startswith(f"{o.id}:") for o in sessions)]


def answer_by_id(
    store: Storage, response: SearchResponse, text: str, opts: SearchOptions
) -> SearchResponse:
    """A query that is a session's id (or the start of one) answers with that session
    first, sure of it; the start of several ids lists them and ranks none first."""
    match = lookup(store, text, opts)
    if match is None:
        return response
    response.id_match = match
    if match.unique:
        response.hits = with_id_match(store, response.hits, match, opts.top)
        response.confidence = Confidence(Level.STRONG, 1.0)
    else:
        response.notes.append(
            f"{text.strip()!r} begins the ids of {len(match.sessions)} sessions:"
            " give more of the id to read one"
        )
    return response
