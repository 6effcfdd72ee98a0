"""Handing a session off: its brief, and the command that starts another agent with it.

What `Findsession` gives an interface (`findsession handoff`, the MCP tool `handoff`)
to carry a session on elsewhere.
"""

from __future__ import annotations

from findsession.core.base import Core
from findsession.core.options import HandoffOptions
from findsession.domain import Brief, Resume, Session
from findsession.reader import resolve_session
from findsession.resume import resume_of


class HandingOffMixin(Core):
    """`Findsession`'s handoff: the brief, and starting an agent with it."""

    def handoff(self, ref: str, options: HandoffOptions | None = None) -> Brief:
        """The brief of the session `ref` names (an id or a unique prefix), extracted
        from the index; with `model` and a `[titles] provider` set, the model writes a
        summary on top (the extracted parts stay). Under a boundary (`options.within`: see
        `projects.bounded`) only a session of that project."""
        # The brief's builders (and the HTTP client a model summary needs) are
        # imported here: every other command starts without them.
        from findsession.handoff import add_model_summary, build_brief

        o = options or HandoffOptions()
        session = resolve_session(self.store, ref, o.within)
        plan = resume_of(self.store, session, self.settings.machine)
        brief = build_brief(self.store, session, plan)
        if o.model and self.settings.titles.provider != "offline":
            add_model_summary(brief, self.settings.titles)
        return brief

    def start_with(self, session: Session, agent: str, prompt: str) -> Resume:
        """The command that starts `agent` in the session's directory with `prompt` as
        its first message (not run: an interface runs it after `open`'s checks)."""
        from findsession.sources.starting import start_command

        return start_command(agent, prompt, session.cwd)
