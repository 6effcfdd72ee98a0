"""A request's query string into the options the CLI's `search` builds from its flags.

The same names as the command line (`project`, `source`, `after`, `before`, `speaker`,
`kind`, `top`, `mode`), checked by the same `SearchOptions.validated`, so a filter means
the same on the page as in a terminal and a bad value is refused with the same words.
"""

from __future__ import annotations

from collections.abc import Mapping

from findsession.api import MAX_TOP, BadOption, SearchOptions
from findsession.paths import expand

#: Results a page asks for unless it says otherwise: a screenful and a bit.
DEFAULT_TOP = 20


def search_options(params: Mapping[str, str]) -> SearchOptions:
    """The options a search request names; empty values mean "not given" (the fusion
    weight is always the config's)."""

    def given(name: str) -> str | None:
        value = (params.get(name) or "").strip()
        return value or None

    top = given("top")
    try:
        count = DEFAULT_TOP if top is None else int(top)
    except ValueError:
        raise BadOption(f"top must be a whole number from 1 to {MAX_TOP}, not {top!r}") from None
    project = given("project")
    return SearchOptions(
        top=count,
        mode=given("mode") or "hybrid",
        project=str(expand(project)) if project else None,
        session=given("session"),
        speaker=given("speaker"),
        after=given("after"),
        before=given("before"),
        kind=given("kind"),
        source=given("source"),
    )


def whole(params: Mapping[str, str], name: str, default: int, high: int) -> int:
    """A whole-number parameter in [1, high], else `default`."""
    try:
        value = int(params.get(name) or default)
    except ValueError:
        raise BadOption(f"{name} must be a whole number, not {params.get(name)!r}") from None
    return max(1, min(high, value))
