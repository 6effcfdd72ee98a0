"""The summary part of a handoff brief, written by the model `[titles] provider` names.

Optional and on top: the extracted brief stays whole beneath it. The model reads only
what the brief already holds (the index's redacted text); an answer the redactor finds a
secret in is dropped, as a title would be, and a model that cannot be reached leaves the
brief as it is, with a note saying so.
"""

from __future__ import annotations

import re

from findsession.domain import Brief
from findsession.redact import redact
from findsession.titles.model import ModelTitler, TitleModelError
from findsession.titles.settings import TitleSettings

#: Characters of the brief the model reads.
BUDGET = 6000
SUMMARY_CHARS = 1200
SYSTEM = (
    "You write the summary at the top of a handoff note for a coding-agent session, so"
    " that a colleague or another agent can carry the work on. Use only the material"
    " given. Answer with one paragraph of 3 to 6 plain sentences: what was asked, what was"
    " done and decided, and what is left to do. No lists, no headings, no preamble."
)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def add_model_summary(brief: Brief, settings: TitleSettings) -> None:
    """Ask the configured model for the summary; on failure, a note in `brief.notes`."""
    model = ModelTitler(settings)
    try:
        answer = model.chat(SYSTEM, material(brief), max_tokens=400)
    except TitleModelError as exc:
        brief.notes.append(f"the summary model failed ({exc}); the brief is extracted only")
        return
    text = " ".join(_CONTROL.sub(" ", _THINK.sub("", answer)).split())
    if len(text) > SUMMARY_CHARS:
        text = text[: SUMMARY_CHARS - 1].rstrip() + "…"
    if not text:
        brief.notes.append(f"{model.identity} gave no summary; the brief is extracted only")
    elif redact(text)[1]:
        brief.notes.append("the model's summary held what looks like a secret: left out")
    else:
        brief.summary, brief.summary_by = text, model.identity


def material(brief: Brief) -> str:
    """What the model reads: the brief's own lines, within BUDGET characters."""
    parts = [f"Project folder: {brief.session.cwd or 'unknown'}", "Asked:"]
    parts += [f"- (turn {n}) {p}" for n, p in brief.asked]
    parts += ["Concluded:"] + [f"- (turn {n}) {s}" for n, s in brief.decided]
    if brief.files:
        parts.append("Files changed: " + ", ".join(f.path for f in brief.files[:30]))
    parts += ["Commands (last outcome):"]
    parts += [f"- {c.command}: {c.outcome} {c.detail}".rstrip() for c in brief.commands]
    parts += ["Left open:"] + [f"- {item}" for item in brief.left_open]
    if brief.last_reply:
        parts.append(f"The agent's last words: {brief.last_reply}")
    text = "\n".join(parts)
    return text if len(text) <= BUDGET else text[:BUDGET]
