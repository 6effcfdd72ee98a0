"""Handoff briefs: what a person or another agent needs to carry a session on.

`brief` extracts it from the index (offline: the agent's own words, the files its tool
calls wrote, the commands it ran and how each last ended); `summary` lets the model
`[titles] provider` names write a paragraph on top; `outcomes` reads how a command's
run ended, `sentences` what a reply concluded or left open.
"""

from findsession.handoff.brief import build_brief
from findsession.handoff.summary import add_model_summary

__all__ = ["add_model_summary", "build_brief"]
