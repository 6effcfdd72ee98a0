"""Output for people: search results, a session read back, status and index summaries.

Quiet and pipe-friendly: colour only on a terminal (rich decides), results on stdout,
what ran and how long it took on stderr. Every piece of text shown passes `printable`.

One module per command family, every public name re-exported here so the interfaces
write `render.print_search(...)`: `text` (`printable`, `home`, `day`: shared by all),
`search` (results and the confidence footer), `sessions` (`read`), `status` (index and
embedding runs, `status`, `sources`), `audit`, `titles` (`titles` and its undo),
`export_md` and `export_html` (a session as one file; their shared parts in
`export_parts`), `handoff` (a handoff brief), `blame` (a file's writers), `shell` (a
command as a line to paste into a shell).

Each name is imported when first used (PEP 562): `printable` alone (the command line's
own errors, before any command runs) must not import rich and every renderer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.lazy import exports

if TYPE_CHECKING:
    from findsession.render.audit import print_audit
    from findsession.render.blame import print_blame
    from findsession.render.export_html import export_html
    from findsession.render.export_md import export_markdown
    from findsession.render.handoff import handoff_markdown
    from findsession.render.search import (
        NEAREST_SHOWN,
        confidence_words,
        explain_line,
        print_search,
        print_search_footer,
        shown_hits,
    )
    from findsession.render.sessions import print_read
    from findsession.render.shell import shell_line, shell_word, start_line
    from findsession.render.status import (
        print_embed_report,
        print_index_report,
        print_sources,
        print_status,
    )
    from findsession.render.text import day, home, printable, printable_spans
    from findsession.render.titles import print_titles, print_undo

#: Each public name and the module of this package that defines it.
_HOMES = {
    "print_audit": "audit",
    "print_blame": "blame",
    "export_html": "export_html",
    "export_markdown": "export_md",
    "handoff_markdown": "handoff",
    "NEAREST_SHOWN": "search",
    "confidence_words": "search",
    "explain_line": "search",
    "print_search": "search",
    "print_search_footer": "search",
    "shown_hits": "search",
    "print_read": "sessions",
    "shell_line": "shell",
    "shell_word": "shell",
    "start_line": "shell",
    "print_embed_report": "status",
    "print_index_report": "status",
    "print_sources": "status",
    "print_status": "status",
    "day": "text",
    "home": "text",
    "printable": "text",
    "printable_spans": "text",
    "print_titles": "titles",
    "print_undo": "titles",
}

__all__ = [
    "NEAREST_SHOWN",
    "confidence_words",
    "day",
    "explain_line",
    "export_html",
    "export_markdown",
    "handoff_markdown",
    "home",
    "print_audit",
    "print_blame",
    "print_embed_report",
    "print_index_report",
    "print_read",
    "print_search",
    "print_search_footer",
    "print_sources",
    "print_status",
    "print_titles",
    "print_undo",
    "printable",
    "printable_spans",
    "shell_line",
    "shell_word",
    "shown_hits",
    "start_line",
]


__getattr__, __dir__ = exports(__name__, _HOMES)
