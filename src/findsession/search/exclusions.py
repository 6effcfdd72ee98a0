"""How many candidates each filter kept out of a search, for the audit of agents' searches.

Filters run inside each retrieval, so a filtered list never shows what it left out. For
the audit each list that ran (keyword, vector) is read once more with no filter, to
`DEPTH` units, and a filter's count is how many of those candidates it rejects on its
own, checked by the same SQL the retrievals filter with. `speaker` is not about which
units but about what in them may match (only the prompts, only the replies), so for it
the lists are read again with that filter alone: its count is the candidates those
lists no longer hold in their top `DEPTH`.

The work (one unfiltered retrieval per list, one lookup per filter) is done only when
`SearchOptions.count_excluded` asks: the MCP server's audited path, never the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from findsession.domain import Exclusions
from findsession.query import Query
from findsession.storage.base import Filters, KeywordQueryError
from findsession.storage.views import SearchStore

if TYPE_CHECKING:  # numpy only where vectors are computed: `--help` must not load it
    import numpy as np

#: How deep each unfiltered list is read: the candidates a filter can be said to exclude.
DEPTH = 100
#: A filter's name as the tools and options call it (`Filters.sources` is `source`).
_NAMES = {"sources": "source"}

ListOf = Callable[[Filters], list[int]]


def count_excluded(
    store: SearchStore, query: Query, filters: Filters, vector: np.ndarray | None, keyword: bool
) -> Exclusions:
    """Per active filter and list, the unfiltered top-`DEPTH` units the filter keeps out.

    `keyword`: the keyword list ran; `vector`: the query's vector, when the vector list ran.
    """
    lists: dict[str, ListOf] = {}
    if keyword:
        lists["keyword"] = lambda f: [m.unit_id for m in store.keyword_search(query, f, DEPTH)]
    if vector is not None:
        lists["vector"] = lambda f: [m.unit_id for m in store.vector_search(vector, f, DEPTH)]
    found: dict[str, set[int]] = {}
    for name, run in lists.items():
        try:
            found[name] = set(run(Filters()))
        except KeywordQueryError:  # a raw query the index rejects: nothing to count
            continue
    excluded = Exclusions(DEPTH, {name: len(ids) for name, ids in found.items()})
    everything = sorted(set().union(*found.values()))
    for name, alone in _each_filter(filters).items():
        if name == "speaker":
            lacking = {n: ids - set(lists[n](alone)) for n, ids in found.items()}
        else:
            kept = store.units_kept(everything, alone)
            lacking = {n: ids - kept for n, ids in found.items()}
        excluded.by_filter[name] = {n: len(ids) for n, ids in lacking.items()}
    return excluded


def _each_filter(filters: Filters) -> dict[str, Filters]:
    """Each active filter on its own, by the name the tools give it."""
    alone = {}
    for f in fields(Filters):
        value = getattr(filters, f.name)
        if not value or (f.name == "project" and not filters.project_path):
            continue  # unset, or `/`: every project
        alone[_NAMES.get(f.name, f.name)] = replace(Filters(), **{f.name: value})
    return alone
