"""What Gemini CLI's chat messages mean: each message mapped to format-free records.

A `user` message is a typed prompt, unless the harness wrote it (the automatic
"Please continue.", `<session_context>`, a tool's response, the `<state_snapshot>` that
compression puts in place of older turns, a subagent's last-chance nudge); IDE context
that Gemini Code Assist appends to what was typed is cut off, and a hint typed while the
agent worked is kept without the CLI's wrapper, also when it rides in the message that
carries the tools' responses. A `gemini` message gives its reply,
its thoughts and its tool calls with their results; `info`, `error` and `warning`
messages are harness text. The session's `summary` is its title.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind
from findsession.sources.gemini_log import Conversation
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import args_text
from findsession.sources.tool_args import files as arg_files

# The same caps as Claude Code's records: search needs the start of a huge output, not
# all of it.
PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000

#: Text the CLI sends as the user: the retry after a broken stream (older builds said
#: "System: Please continue."), the next-speaker check's nudge, injected context.
_HARNESS_EXACT = ("System: Please continue.", "Please continue.")
_HARNESS_PREFIXES = (
    "<session_context>",
    "<hook_context>",
    "Background execution update:",  # a backgrounded command's output, handed back
)
#: A subagent's last-chance nudge when it ran out of turns or time, or stopped calling
#: tools ("You have exceeded the maximum number of turns. You have one final chance…").
_SUBAGENT_NUDGE = re.compile(r"^You have [^.\n]{1,80}\. You have one final chance to complete")
#: The model's part of a compressed history, written by the CLI after the snapshot.
_COMPRESSION_ACK = "Got it. Thanks for the additional context!"
#: A hint typed while the agent works, wrapped by the CLI before it is sent: the main
#: session's one hint, or a subagent's list of them (one `- hint` a line).
_STEERING = re.compile(
    r"^User (?:steering update|hints):\s*<user_input>\s*(.*?)\s*</user_input>", re.S
)
_HINT_BULLET = re.compile(r"^- ", re.M)
#: Where context the tool added begins: files referenced with @, and what the VS Code
#: extension (Gemini Code Assist) appends to each typed message.
_ADDED_CONTEXT = re.compile(
    r"--- Content from referenced files ---|\n\s*Current File Path:\s*\n"
    r"|\n\s*User Selected Files:\s*\n|\s*PRIOR CHAT HISTORY:"
)
_PRIOR_HISTORY = re.compile(r"\s*PRIOR CHAT HISTORY:.*", re.S)
#: What Qwen Code's first layout (a fork of this one) put before each typed message: a
#: reminder of the subagents at hand, for the model.
_REMINDER = re.compile(r"^\s*(?:<system-reminder>.*?</system-reminder>\s*)+", re.S)
_FILE_KEYS = ("file_path", "absolute_path", "path", "notebook_path")


def conversation_records(conv: Conversation, cwd: str | None) -> list[Message | MetaEvent]:
    """Every record of the conversation, in order; the title last."""
    answered = _answered_calls(conv)
    common = {"cwd": cwd, "record_session_id": conv.session_id}
    records: list[Message | MetaEvent] = []
    for number, msg in conv.messages:
        records.extend(message_records(msg, number, answered, common))
    if conv.summary:
        records.append(
            MetaEvent(MetaKind.AI_TITLE, clean_text(conv.summary.strip()), conv.summary_line)
        )
    return records


def message_records(
    msg: dict[str, Any], number: int, answered: set[str], common: dict[str, Any]
) -> Iterator[Message]:
    """The records of one message; unknown types give none."""
    mid = _str(msg.get("id"))
    base = {
        "line": number,
        "uuid": mid,
        "message_id": mid,
        "timestamp": _str(msg.get("timestamp")),
        **common,
    }
    kind = msg.get("type")
    if kind == "user":
        yield from _user(msg, base, answered)
    elif kind in ("gemini", "qwen"):  # `qwen`: Qwen Code's first layout, a fork of this
        yield from _gemini(msg, base)
    elif kind in ("info", "error", "warning"):
        text = _text(_parts(msg.get("content"))).strip()
        if text:
            yield Message(MessageKind.HARNESS, cap(text, TOOL_OUTPUT_CAP), **base)


def _user(msg: dict[str, Any], base: dict[str, Any], answered: set[str]) -> Iterator[Message]:
    parts = _parts(msg.get("content"))
    responses = [
        p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)
    ]
    if responses:
        # Newer builds record a tool's response as a user message; the calling message
        # usually holds the same result, which is then kept there.
        for resp in responses:
            call_id = _str(resp.get("id"))
            if call_id in answered:
                continue
            if call_id:
                answered.add(call_id)  # a response the file records twice counts once
            yield Message(
                MessageKind.TOOL_OUTPUT,
                cap(_response_text(resp), TOOL_OUTPUT_CAP),
                tool_name=_str(resp.get("name")),
                tool_id=call_id,
                **base,
            )
        # What the person typed while the tools ran rides in the same message, as a
        # text part before the responses ("User steering update: <user_input>…"). It
        # comes after the outputs here: they answer the calls before it, and the
        # prompt opens the turn the next reply belongs to. Only text parts: an image a
        # tool read comes back as `inlineData` beside its response.
        text = _text([p for p in parts if isinstance(p.get("text"), str)]).strip()
        if text:
            kind, text = classify_user_text(text)
            yield Message(kind, cap(text, PROMPT_CAP), **base)
        return
    sent = _text(parts).strip()
    if sent and classify_user_text(sent)[0] is MessageKind.HARNESS:
        # The CLI's own words, whatever it shows: a retry after a broken stream sends
        # "System: Please continue." and shows the request it repeats.
        yield Message(MessageKind.HARNESS, cap(sent, PROMPT_CAP), **base)
        return
    shown = msg.get("displayContent")
    text = _text(_parts(shown)).strip() if shown else sent
    if not text:
        return
    kind, text = classify_user_text(text)
    yield Message(kind, cap(text, PROMPT_CAP), **base)


def classify_user_text(text: str) -> tuple[MessageKind, str]:
    """A user message's kind and the text to index: harness text as it is, a typed
    prompt without the context the tool added to it."""
    reminder = _REMINDER.match(text)
    if reminder:
        if reminder.end() == len(text):
            return MessageKind.HARNESS, text
        text = text[reminder.end() :]
    if text in _HARNESS_EXACT or text.startswith(_HARNESS_PREFIXES):
        return MessageKind.HARNESS, text
    if _SUBAGENT_NUDGE.match(text):
        return MessageKind.HARNESS, text
    if "<state_snapshot>" in text and "</state_snapshot>" in text:
        return MessageKind.COMPACT_SUMMARY, text  # what compression left of older turns
    steering = _STEERING.match(text)
    if steering and steering.group(1).strip():
        typed = steering.group(1).strip()
        if text.startswith("User hints:"):
            typed = _HINT_BULLET.sub("", typed)
        return MessageKind.PROMPT, typed
    added = _ADDED_CONTEXT.search(text)
    if added is None:
        return MessageKind.PROMPT, text
    typed = text[: added.start()].strip()
    if not typed:
        # Nothing typed before the context: keep the context, but never another
        # session's pasted history.
        typed = _PRIOR_HISTORY.sub("", text).strip()
    return (MessageKind.PROMPT, typed) if typed else (MessageKind.HARNESS, text)


def _gemini(msg: dict[str, Any], base: dict[str, Any]) -> Iterator[Message]:
    parts = _parts(msg.get("content"))
    thoughts = _dicts(msg.get("thoughts"))
    for thought in thoughts:
        text = ": ".join(
            s.strip()
            for s in (thought.get("subject"), thought.get("description"))
            if isinstance(s, str) and s.strip()
        )
        if text:
            ts = _str(thought.get("timestamp")) or base["timestamp"]
            yield Message(
                MessageKind.THINKING, cap(text, THINKING_CAP), **{**base, "timestamp": ts}
            )
    if not thoughts:
        # Newer builds keep thoughts as parts of the content instead.
        for part in parts:
            if (
                part.get("thought") is True
                and isinstance(part.get("text"), str)
                and part["text"].strip()
            ):
                yield Message(MessageKind.THINKING, cap(part["text"].strip(), THINKING_CAP), **base)
    reply = _text(parts).strip()
    if reply:
        kind = MessageKind.HARNESS if reply == _COMPRESSION_ACK else MessageKind.REPLY
        yield Message(kind, cap(reply, PROMPT_CAP), **base)
    calls = _dicts(msg.get("toolCalls"))
    recorded = [c.get("id") for c in calls]  # a list: an id may be any JSON value
    for call in calls:
        yield from _tool_call(call, base)
    for part in parts:
        fc = part.get("functionCall")
        if isinstance(fc, dict) and fc.get("id") not in recorded:
            yield _call_message(fc.get("name"), fc.get("args"), _str(fc.get("id")), base)


def _tool_call(call: dict[str, Any], base: dict[str, Any]) -> Iterator[Message]:
    ts = _str(call.get("timestamp")) or base["timestamp"]
    at = {**base, "timestamp": ts}
    call_id = _str(call.get("id"))
    yield _call_message(call.get("name"), call.get("args"), call_id, at)
    output = _result_text(call.get("result"), call_id)
    if not output.strip() and isinstance(call.get("resultDisplay"), str):
        output = call["resultDisplay"]
    if output.strip():
        yield Message(
            MessageKind.TOOL_OUTPUT,
            cap(output, TOOL_OUTPUT_CAP),
            tool_name=_str(call.get("name")),
            tool_id=call_id,
            is_error=call.get("status") == "error",
            **at,
        )


def _call_message(name: Any, args: Any, call_id: str | None, base: dict[str, Any]) -> Message:
    return Message(
        MessageKind.TOOL_CALL,
        cap(args_text(args, TOOL_INPUT_CAP), TOOL_INPUT_CAP),
        tool_name=_str(name) or "tool",
        tool_id=call_id,
        files=arg_files(args, _FILE_KEYS),
        **base,
    )


def _answered_calls(conv: Conversation) -> set[str]:
    """Ids of tool calls whose result the calling message holds."""
    return {
        call["id"]
        for _, msg in conv.messages
        for call in _dicts(msg.get("toolCalls"))
        if isinstance(call.get("id"), str) and call.get("result")
    }


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a list (a field that should hold one may hold anything)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _parts(content: Any) -> list[dict[str, Any]]:
    """Content as a list of parts (`PartListUnion`: a string, a part, or a list of both)."""
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [
            {"text": p} if isinstance(p, str) else p for p in content if isinstance(p, str | dict)
        ]
    return []


def _text(parts: list[dict[str, Any]]) -> str:
    """The visible text of parts: thoughts, calls and responses are not part of it."""
    out = []
    for part in parts:
        if part.get("thought") is True:
            continue
        if isinstance(part.get("text"), str):
            out.append(part["text"])
        elif isinstance(part.get("inlineData"), dict):
            out.append(f"[{part['inlineData'].get('mimeType') or 'inline data'}]")
        elif isinstance(part.get("fileData"), dict):
            out.append(f"[{part['fileData'].get('fileUri') or 'file'}]")
    return clean_text("".join(out))


def _result_text(result: Any, call_id: str | None = None) -> str:
    """A call's result. When the CLI rebuilds a message from the model's history
    (`updateMessagesFromHistory`, on a resume or a rollback), each call of a batch gets
    the whole turn of responses as its result: only the call's own response is its
    output, when one names it."""
    if isinstance(result, str):
        return clean_text(result)
    parts = _parts(result)
    own = [
        p
        for p in parts
        if isinstance(p.get("functionResponse"), dict)
        and call_id is not None
        and p["functionResponse"].get("id") == call_id
    ]
    out = []
    for part in own or parts:
        if isinstance(part.get("functionResponse"), dict):
            out.append(_response_text(part["functionResponse"]))
        else:
            out.append(_text([part]))
    return "\n".join(t for t in out if t)


def _response_text(resp: dict[str, Any]) -> str:
    body = resp.get("response")
    if isinstance(body, dict):
        for key in ("output", "error", "content"):
            if isinstance(body.get(key), str):
                return clean_text(body[key])
        return clean_text(json.dumps(body, ensure_ascii=False))
    return clean_text(body) if isinstance(body, str) else ""


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
