"""A handoff brief as Markdown (`findsession handoff`, the MCP tool `handoff`): short
sections a person or an agent reads top to bottom, each fact with the turn it came from
so it can be read in full (`findsession read SESSION --turn N`)."""

from __future__ import annotations

from findsession.domain import Brief
from findsession.render.export_parts import when
from findsession.render.text import code_span, printable

#: How each outcome reads in the list of commands.
_OUTCOME = {"passed": "passed", "failed": "FAILED", "ok": "ok", "error": "ERROR",
            "unknown": "outcome not kept"}  # fmt: skip


def handoff_markdown(brief: Brief, resume_line: str | None) -> str:
    """The brief; `resume_line` is the shell line that resumes the session (the
    interface's `open --print`), None when there is none."""
    s = brief.session
    title = _one(s.title or (brief.asked[0][1] if brief.asked else s.id), 120)
    span = " – ".join(dict.fromkeys(x for x in (when(s.first_ts), when(s.last_ts)) if x))
    out = [f"# Handoff: {title}", ""]
    # A path or a branch may hold a line feed: as a code span on one line, no text of it
    # starts a heading or a list of the brief's own.
    facts = [("session", f"{code_span(s.id)} ({_one(s.source, 40)})"),
             ("project", s.cwd and code_span(s.cwd)), ("time", span), ("turns", str(s.n_turns)),
             ("branch", s.git_branch and code_span(s.git_branch))]  # fmt: skip
    out += [f"- **{k}:** {v}" for k, v in facts if v]
    out.append("")
    if brief.summary:
        out += ["## Summary", "", printable(brief.summary), "", f"*(written by {brief.summary_by};"
                " everything below is extracted from the session)*", ""]  # fmt: skip
    out += ["## What was asked", ""]
    for n, (turn, text) in enumerate(brief.asked):
        if n == 0:
            out += [f"Turn {turn}:", "", *_quoted(text), ""]
        else:
            out.append(f"- turn {turn}: {_one(text, 300)}")
    out += ["", "## What was decided", ""]
    decided = [f"- turn {turn}: {_one(text, 300)}" for turn, text in brief.decided]
    out += decided or ["- (nothing said)"]
    out += ["", "## Files changed", ""]
    out += [
        f"- {code_span(f.path)}: {', '.join(f.ops)}" + (f" ×{f.writes}" if f.writes > 1 else "")
        + _turns(f.turns)
        for f in brief.files
    ] or ["- none recorded"]
    out += ["", "## Commands run (last outcome)", ""]
    out += [
        f"- {code_span(c.command)}: {_OUTCOME.get(c.outcome, c.outcome)}"
        + (f" ({_one(c.detail, 200)})" if c.detail else "")
        + (f" · turn {c.turn}" if c.turn else " · by a subagent")
        + (f" · {c.runs} runs" if c.runs > 1 else "")
        for c in brief.commands
    ] or ["- none"]
    out += ["", "## Left open", ""]
    out += [f"- {_one(item, 400)}" for item in brief.left_open] or ["- nothing the agent said"]
    if brief.last_prompt:
        turn, text = brief.last_prompt
        out += ["", f"The last prompt (turn {turn}):", "", *_quoted(_one(text, 600))]
    if brief.last_reply:
        out += ["", "The agent's last words:", "", *_quoted(printable(brief.last_reply))]
    out += ["", "## Resume the session", ""]
    if resume_line:
        out += ["```sh", printable(resume_line), "```"]
        if brief.resume.note:
            out.append(f"({_one(brief.resume.note, 400)})")
    else:
        out.append(f"It cannot be resumed: {_one(brief.resume.reason or 'no command', 400)}.")
    out += ["", f"Read it in full: {code_span(f'findsession read {s.id} --tools')}"]
    return "\n".join(out) + "\n"


def _one(text: str, limit: int) -> str:
    flat = " ".join(printable(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _quoted(text: str) -> list[str]:
    return [f"> {line}".rstrip() for line in printable(text).strip().splitlines()]


def _turns(turns: tuple[int, ...]) -> str:
    own = [str(t) for t in turns if t]
    shown = f" (turn{'s' if len(own) > 1 else ''} {', '.join(own)})" if own else ""
    return shown + (" (by a subagent)" if 0 in turns else "")
