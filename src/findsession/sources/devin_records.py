"""A Devin CLI session's message nodes as format-free records: the chain the person saw.

A session's messages are a tree (`devin_db`); what the person saw is the chain from the
root to the node `main_chain_id` names. A reply retried (a sibling of the one kept, made
for the same request), a branch left when the person edited a message, and the
summarizer's own conversation are nodes off that chain, and are not read. A compaction
puts a summary on the chain in place of the messages it summarised (its node's
`summarized_from` names the last of them): those are read first, from where the two
chains part, then the summary, as the person saw them in that order; the messages a
compaction copied onto the new chain (`compact/prior_node_ids`) are read once.

With no `main_chain_id` (or one naming no node) the chain is the one that ends at the
node written last; a session whose nodes name no parent at all is every node in the
order written.

A `user` message is a prompt when the CLI marks it typed (`metadata.is_user_input:
true`); one it marks otherwise (`null`: the summarizer's instructions, a cache
keep-alive's "continue") is harness, and one with no such mark at all (a store older
than the mark) is taken as typed. A `system` message is harness, or the summary of a
compaction. An `assistant` message's `thinking` is thinking, its `content` the reply,
each of its `tool_calls` a call; a `tool` message is the result of the call whose id its
`tool_call_id` names (or begins with: the id may carry a `#` suffix), failed when the
call's state says `failed` or its command exited non-zero.

Each record is a line of its own, `foreign_db.line_of(session's rank, position)`; the
session's title sits on line 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources import devin_db, foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.foreign_db import Lines
from findsession.sources.jsonl import clean_text, text_of, text_or_none
from findsession.sources.tool_args import args_text, files, parsed

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: Compactions nested deeper than this are read as the chain holds them.
_DEPTH = 32
States = dict[str, tuple[str | None, str | None]]


def session_records(
    session: devin_db.SessionRow,
    nodes: list[devin_db.Node],
    states: dict[str, tuple[str | None, str | None]],
    problems: list[Problem],
    heads: dict[str, int] | None = None,
) -> list[Record]:
    """Every record of one session: the main chain's messages, its title, then each
    subagent's chain under a key of its own, linked to the session (`_subagents`)."""
    lines = Lines(session.rank, session.id)
    by_id = {n.node_id: n for n in nodes}
    if session.head in by_id:
        chain = _expanded(session.head, by_id, problems, lines, 0)
    elif any(n.parent is not None for n in nodes):
        chain = _expanded(nodes[-1].node_id, by_id, problems, lines, 0)  # the last written
    else:
        chain = nodes  # no tree recorded at all: every node, in the order written
    failed = _failed(states)
    records = _chain_records(chain, by_id, session, lines, states, failed, problems, task=False)
    title = clean_text(re.sub(r"\s+", " ", session.title or "")).strip()
    if title:
        head_line = foreign_db.line_of(session.rank, 0)
        records.append(MetaEvent(MetaKind.AI_TITLE, title, head_line, session_key=session.id))
    on_main = {n.node_id for n in chain}
    for agent, head in _subagents(nodes, heads or {}).items():
        own = Lines(session.rank, f"{session.id}/{agent}")
        own.position = lines.position
        if head not in by_id:
            line = foreign_db.line_of(session.rank, 0)
            why = f"subagent {agent} of session {session.id} ends at node {head}, not in the store"
            problems.append(Problem(line, "a subagent's chain is missing", why))
            continue
        sub = [n for n in _expanded(head, by_id, problems, own, 0) if n.node_id not in on_main]
        said = _chain_records(sub, by_id, session, own, states, failed, problems, task=True)
        if said:
            own.position += 1  # the link on a line of its own: one metadata record a line
            link = foreign_db.line_of(session.rank, own.position)
            said.append(MetaEvent(MetaKind.PARENT, session.id, link, session_key=own.key))
        records += said
        lines.position = own.position
    return records


def _chain_records(
    chain: list[devin_db.Node],
    by_id: dict[int, devin_db.Node],
    session: devin_db.SessionRow,
    lines: Lines,
    states: States,
    failed: set[str],
    problems: list[Problem],
    *,
    task: bool,
) -> list[Record]:
    """The messages of one chain, numbered by `lines`; with `task`, a subagent's, whose
    first `user` message is its prompt (the task its parent gave it) however it is marked."""
    calls: dict[str, str] = {}
    records: list[Record] = []
    for node in _once(chain, by_id):
        message = lines.json_object(node.message, problems, f"chat_message of node {node.node_id}")
        if message is None:
            continue
        base = {
            "timestamp": epoch_iso(node.created_at),
            "message_id": text_or_none(message.get("message_id")) or str(node.node_id),
            "cwd": session.cwd,
        }
        given = task and message.get("role") == "user"
        records.extend(_records(message, node, lines, base, calls, states, failed, given))
        task = task and not given
    return [r for r in records if r is not None]


def _subagents(nodes: list[devin_db.Node], heads: dict[str, int]) -> dict[str, int]:
    """The last node of each subagent's chain, by the subagent's id: as a `run_subagent`
    result (or a later notice of a background subagent's end) names it in its
    `metadata.extensions` (`subagent/agent_id`, `subagent/chain_node_id`), the one
    written last winning, and as `subagent_heads` keeps it, which wins over both."""
    found: dict[str, int] = {}
    for node in nodes:
        if node.message is None or "subagent/chain_node_id" not in node.message:
            continue
        data = parsed(node.message)
        meta = data.get("metadata") if isinstance(data, dict) else None
        ext = meta.get("extensions") if isinstance(meta, dict) else None
        agent = text_or_none(ext.get("subagent/agent_id")) if isinstance(ext, dict) else None
        head = ext.get("subagent/chain_node_id") if isinstance(ext, dict) else None
        if agent and isinstance(head, int) and not isinstance(head, bool):
            found[agent] = head
    for agent, head in heads.items():
        found[agent] = head
    return found


def _chain(
    head: int, by_id: dict[int, devin_db.Node], problems: list[Problem], lines: Lines
) -> list[devin_db.Node]:
    """The nodes from the root to `head`, following each node's parent."""
    out: list[devin_db.Node] = []
    seen: set[int] = set()
    at: int | None = head
    while at is not None and at not in seen:
        node = by_id.get(at)
        if node is None:
            line = foreign_db.line_of(lines.rank, 0)
            why = f"node {at} of session {lines.key} is not in the store"
            problems.append(Problem(line, "a message's parent is missing", why))
            break
        seen.add(at)
        out.append(node)
        at = node.parent
    out.reverse()
    return out


def _expanded(
    head: int,
    by_id: dict[int, devin_db.Node],
    problems: list[Problem],
    lines: Lines,
    depth: int,
) -> list[devin_db.Node]:
    """The chain to `head` with, before each compaction's summary on it, the messages
    the summary replaced (from where their chain and this one part)."""
    out: list[devin_db.Node] = []
    for node in _chain(head, by_id, problems, lines):
        summarised = _placement(node).get("summarized_from")
        if (
            isinstance(summarised, int)
            and not isinstance(summarised, bool)
            and summarised in by_id
            and depth < _DEPTH
        ):
            before = _expanded(summarised, by_id, problems, lines, depth + 1)
            shared = 0
            while (
                shared < min(len(before), len(out))
                and before[shared].node_id == out[shared].node_id
            ):
                shared += 1
            out.extend(before[shared:])
        out.append(node)
    return out


def _once(chain: list[devin_db.Node], by_id: dict[int, devin_db.Node]) -> Iterator[devin_db.Node]:
    """The chain's nodes, each once, a compaction's copy of a message already read
    (`compact/prior_node_ids`) left out."""
    done: set[int] = set()
    for node in chain:
        if node.node_id in done:
            continue
        extensions = _placement(node).get("extensions")
        prior = extensions.get("compact/prior_node_ids") if isinstance(extensions, dict) else None
        copies = [p for p in prior if isinstance(p, int)] if isinstance(prior, list) else []
        if copies and all(p in done for p in copies):
            continue
        done.add(node.node_id)
        yield node


def _placement(node: devin_db.Node) -> dict[str, Any]:
    data = parsed(node.placement) if node.placement else None
    return data if isinstance(data, dict) else {}


def _records(
    message: dict[str, Any],
    node: devin_db.Node,
    lines: Lines,
    base: dict[str, Any],
    calls: dict[str, str],
    states: dict[str, tuple[str | None, str | None]],
    failed: set[str],
    given: bool = False,
) -> Iterator[Message | None]:
    role = message.get("role")
    text = text_of(message.get("content"))
    meta = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    if role == "user":
        typed = given or meta.get("is_user_input") is True or "is_user_input" not in meta
        kind = MessageKind.PROMPT if typed else MessageKind.HARNESS
        yield lines.message(kind, text, PROMPT_CAP, **base)
    elif role == "system":
        summary = _placement(node).get("summarized_from") is not None
        kind = MessageKind.COMPACT_SUMMARY if summary else MessageKind.HARNESS
        yield lines.message(kind, text, PROMPT_CAP, **base)
    elif role == "assistant":
        thinking = message.get("thinking")
        if isinstance(thinking, dict):
            thinking = thinking.get("thinking")
        if isinstance(thinking, str):
            yield lines.message(MessageKind.THINKING, thinking, THINKING_CAP, **base)
        yield lines.message(MessageKind.REPLY, text, PROMPT_CAP, **base)
        tool_calls = message.get("tool_calls")
        for call in tool_calls if isinstance(tool_calls, list) else ():
            yield _call(call, lines, base, calls)
    elif role == "tool":
        given = text_or_none(message.get("tool_call_id"))
        call_id = _call_id(given, calls)
        name = calls.get(call_id or "") or _state_name(states, given) or "tool"
        yield lines.message(
            MessageKind.TOOL_OUTPUT, text, TOOL_OUTPUT_CAP, tool_name=name,
            tool_id=call_id, is_error=bool({given, call_id} & failed), **base,
        )  # fmt: skip


def _call(
    call: Any, lines: Lines, base: dict[str, Any], calls: dict[str, str]
) -> Message | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = text_or_none(call.get("name")) or text_or_none(function.get("name")) or "tool"
    args = parsed(call.get("arguments", function.get("arguments")))
    call_id = text_or_none(call.get("id"))
    if call_id:
        calls[call_id] = name
    return lines.message(
        MessageKind.TOOL_CALL, args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP,
        tool_name=name, tool_id=call_id, files=files(args), **base,
    )  # fmt: skip


def _call_id(given: str | None, calls: dict[str, str]) -> str | None:
    """The id of the call a result answers: its own, or the call's whose id it begins
    with followed by `#` (a result's id may carry a suffix the call's lacks)."""
    if given is None or given in calls:
        return given
    for known in calls:
        if given.startswith(known + "#"):
            return known
    return given


def _state_name(states: States, call_id: str | None) -> str | None:
    for doc in states.get(call_id or "", (None, None)):
        data = parsed(doc) if doc else None
        meta = data.get("_meta") if isinstance(data, dict) else None
        name = (
            text_or_none(meta.get("cognition.ai/inferenceToolName"))
            if isinstance(meta, dict)
            else None
        )
        if name:
            return name
    return None


def _failed(states: dict[str, tuple[str | None, str | None]]) -> set[str]:
    """The calls whose last state says they failed: `status: failed`, or a command that
    exited non-zero (`_meta.terminal_exit.exit_code`)."""
    out = set()
    for call_id, (_, update) in states.items():
        data = parsed(update) if update else None
        if not isinstance(data, dict):
            continue
        meta = data.get("_meta") if isinstance(data.get("_meta"), dict) else {}
        exit_ = meta.get("terminal_exit") if isinstance(meta.get("terminal_exit"), dict) else {}
        code = exit_.get("exit_code")
        nonzero = isinstance(code, int) and not isinstance(code, bool) and code != 0
        if data.get("status") == "failed" or nonzero:
            out.add(call_id)
    return out
