"""A session exported as one HTML file (`findsession export --format html`).

Self-contained and inert: one file with its style inline, no script, no external
resource (no font, image or stylesheet is fetched), and every piece of transcript text
escaped, so a transcript full of markup shows as text. A Content-Security-Policy in the
file says the same to the browser (`default-src 'none'`): even markup that slipped
through could run nothing and fetch nothing. Tool calls, their output, thinking and
subagents are `<details>` with their size; the page reads on a phone (one column, long
lines wrapped) and prints (no backgrounds, turns kept whole where they fit).
"""

from __future__ import annotations

from html import escape
from typing import Any

from findsession.render.export_parts import (
    COLLAPSED,
    RAW_NOTE,
    REDACTED_NOTE,
    child_label,
    facts,
    placed,
    summary_line,
    title,
    turn_items,
    when,
)
from findsession.render.text import printable

#: Nothing may load or run: the page is text and its own inline style.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"

_STYLE = """
:root { color-scheme: light dark; --line: #8884; --soft: #8881; --accent: #2563eb; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 52rem; padding: 1rem; line-height: 1.5;
       font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.4rem; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 0 0 .5rem; color: #888; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem;
           margin: 0 0 1rem; font-size: .9rem; }
dl.facts dt { color: #888; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.note { border-left: 3px solid var(--line); padding: .3rem .7rem; font-size: .9rem; }
.note.raw { border-color: #dc2626; color: #dc2626; font-weight: 600; }
section.turn { border-top: 1px solid var(--line); padding: .8rem 0; }
.prompt { background: var(--soft); border-left: 3px solid var(--accent);
          padding: .5rem .8rem; margin: .3rem 0 .6rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85rem; margin: .3rem 0;
      padding: .5rem; background: var(--soft); border-radius: 4px; }
details { margin: .3rem 0; border: 1px solid var(--line); border-radius: 4px;
          padding: .2rem .6rem; }
summary { cursor: pointer; color: #888; font-size: .85rem; overflow-wrap: anywhere; }
details.failed > summary { color: #dc2626; }
details.subagent { border-left: 3px solid var(--accent); }
details.subagent > .child { padding-left: .4rem; }
@media (max-width: 40rem) { body { padding: .6rem; font-size: 15px; }
  dl.facts { font-size: .8rem; } }
@media print { :root { color-scheme: light; } body { max-width: none; }
  .prompt, pre { background: none; } section.turn { break-inside: avoid-page; }
  summary { color: #444; } }
"""


def export_html(doc: dict[str, Any]) -> str:
    """The whole page, as one string."""
    heading = title(doc)
    rows = "".join(
        f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in facts(doc)
    )
    note = (
        f'<p class="note raw">{escape(RAW_NOTE)}</p>'
        if doc["raw"]
        else f'<p class="note">{escape(REDACTED_NOTE)}</p>'
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(heading)}</title>\n<style>{_STYLE}</style></head>\n<body>\n"
        f'<header><h1>{escape(heading)}</h1><dl class="facts">{rows}</dl>{note}</header>\n'
        f"<main>{_turns(doc, top=True)}</main>\n</body></html>\n"
    )


def _turns(doc: dict[str, Any], top: bool = False) -> str:
    """The turns, each a section; only the session's own carry an id (`#turn-3`)."""
    parts = []
    for turn in doc["turns"]:
        stamp = when(turn["timestamp"])
        head = f"Turn {turn['turn']}" + (f" · {stamp}" if stamp else "")
        items = []
        for message, child in turn_items(doc, turn):
            items.append(_message(message))
            if child is not None:
                items.append(_child(child))
        anchor = f' id="turn-{turn["turn"]}"' if top else ""
        parts.append(
            f'<section class="turn"{anchor}><h2>{escape(head)}</h2>'
            + "".join(items)
            + "</section>"
        )
    _, loose = placed(doc)
    if loose:
        parts.append(
            '<section class="turn"><h2>Subagents</h2>'
            + "".join(_child(c) for c in loose)
            + "</section>"
        )
    return "\n".join(parts)


def _message(message: dict[str, Any]) -> str:
    text = escape(printable(message["text"]).rstrip())
    kind = message["kind"]
    if kind in COLLAPSED:
        failed = ' class="failed"' if message.get("is_error") else ""
        return (
            f"<details{failed}><summary>{escape(summary_line(message))}</summary>"
            f"<pre>{text}</pre></details>"
        )
    if kind == "prompt":
        return f'<div class="prompt"><div class="text">{text}</div></div>'
    heading = message.get("heading")
    if kind == "section" and heading:
        return f"<h3>{escape(printable(heading))}</h3><div class=\"text\">{text}</div>"
    return f'<div class="text">{text}</div>'


def _child(child: dict[str, Any]) -> str:
    document = child.get("document")
    if document is None:
        first = escape(printable(child.get("first_prompt") or "").strip())
        inner = (
            f'<p class="note">session {escape(child["id"])}; its turns are not in this file</p>'
            + (f'<div class="prompt"><div class="text">{first}</div></div>' if first else "")
        )
    else:
        inner = f'<p class="note">session {escape(document["session"]["id"])}</p>'
        inner += _turns(document)
    return (
        f'<details class="subagent"><summary>{escape(child_label(child))}</summary>'
        f'<div class="child">{inner}</div></details>'
    )
