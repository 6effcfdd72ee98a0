"""Handing a session off: its brief, and the command that starts another agent with it.

What `Findsession` gives an interface (`findsession handoff`, the MCP tool `handoff`)
to carry a session on elsewhere.
"""

from __future__ import annotations

from findsession.core.base import Core
from findsession.domain import Brief, Resume, Session
from findsession.handoff import add_model_summary, build_brief
from findsession.reader import resolve_session
from findsession.resume import resume_of
from findsession.sources.starting import start_command


class HandingOffMixin(Core):
    """`Findsession`'s handoff: the brief, and starting an agent with it."""

    def handoff(self, ref: str, *, model: bool = True, within: str | None = None) -> Brief:
        """The brief of the session `ref` names (an id or a unique prefix), extracted
        from the index; with `model` and a `[titles] provider` set, the model writes a
        summary on top (the extracted parts stay). Under a boundary (`within`: see
        `projects.bounded`) only a session of that project."""
        session = resolve_session(self.store, ref, within)
        plan = resume_of(self.store, session, self.settings.machine)
        brief = build_brief(self.store, session, plan)
        if model and self.settings.titles.provider != "offline":
            add_model_summary(brief, self.settings.titles)
        return brief

    def start_with(self, session: Session, agent: str, prompt: str) -> Resume:
        """The command that starts `agent` in the session's directory with `prompt` as
        its first message (not run: an interface runs it after `open`'s checks)."""
        return start_command(agent, prompt, session.cwd)
