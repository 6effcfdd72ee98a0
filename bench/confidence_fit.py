"""Fit the confidence on one half of a query set and report it on the other half.

    python bench/known_item.py --data ../shared/benchmarks/known-item-large \\
        --corpus OUT_DIR --work DIR --dump outcomes.jsonl
    python bench/confidence_fit.py outcomes.jsonl [--split parity|person|rotate]

The confidence says how likely the first session is the one the query means. Its signals
(findsession.search.confidence) are read from each query's outcome as `known_item.py
--dump` wrote it; a logistic model over them is fitted on half A and scored on half B,
which it never saw: `parity` splits by the query's number (every person in both halves),
`person` by whose history it is (the other half's people and languages are new to it),
`rotate` each person's index scored by a model fitted on the other people's rows alone
(their queries and their indexes), in turn; `all` fits the shipped weights on every row.
"Nothing close" is set below the score of the lowest 5% of half A's answerable queries,
"strong" where 98% of half A's firsts at or above it were right.

Prints the weights and thresholds (to put in `search/confidence.py`), then on half B:
the ROC AUC of the score between answerable and `none` queries and between a right and a
wrong first session, the shares answered "nothing close", and a reliability table, per
language and overall.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

SIGNALS = ("coverage", "lift", "agreement", "margin", "standout")
#: `none`: a near miss the person never did; `foreign`: another person's query.
UNANSWERABLE = ("none", "foreign")
#: A missing signal (a keyword-only search has no lift) takes a typical value.
TYPICAL = {"coverage": 0.0, "lift": 0.17, "agreement": 0.5, "margin": 0.0, "standout": 0.0}
#: "Strong" from where this share of the fitting rows' firsts at or above it were right:
#: above the 95% a person is promised, since a threshold fitted on some people reads
#: lower on others (fitted at 90%, "strong" was right 81% of the time on a new person).
STRONG_PRECISION = 0.98
#: Margins above this are no surer: one outlier must not set the slope.
MARGIN_CAP = 1.5


def signals(row: dict) -> list[float]:
    """The model's inputs, as `search/confidence.py` computes them: the margin counts in
    proportion to how far the first stands above the query's background by meaning."""
    values = {name: TYPICAL[name] if row.get(name) is None else row[name] for name in TYPICAL}
    standing = max(0.0, values["lift"]) / TYPICAL["lift"]
    values["margin"] = min(values["margin"], MARGIN_CAP) * standing
    values["standout"] = min(values["standout"], MARGIN_CAP)
    return [values[name] for name in SIGNALS]


def fit(rows: list[dict], l2: float = 0.01, steps: int = 4000) -> list[float]:
    """Logistic regression (plain gradient descent; a few hundred rows) of 'first right'.

    The unanswerable rows are weighted to count as much as the answerable ones together,
    whatever their number (there are three foreign queries to each answerable one): the
    score then reads as if half of all searches had an answer.
    """
    w = [0.0] * (len(SIGNALS) + 1)
    xs = [[*signals(r), 1.0] for r in rows]
    ys = [1.0 if r["rank"] == 1 else 0.0 for r in rows]
    missing = sum(r["kind"] in UNANSWERABLE for r in rows)
    answerable = len(rows) - missing
    ws = [answerable / missing if r["kind"] in UNANSWERABLE and missing else 1.0 for r in rows]
    total = sum(ws)
    for _ in range(steps):
        grad = [0.0] * len(w)
        for x, y, weight in zip(xs, ys, ws, strict=True):
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            for i, xi in enumerate(x):
                grad[i] += weight * (p - y) * xi / total
        w = [wi - 0.5 * (g + (l2 * wi if i < len(SIGNALS) else 0)) for i, (wi, g) in
             enumerate(zip(w, grad, strict=True))]
    return w


def score(w: list[float], row: dict) -> float:
    z = sum(a * b for a, b in zip(w, [*signals(row), 1.0], strict=True))
    return 1 / (1 + math.exp(-z))


def auc(pos: list[float], neg: list[float]) -> float | None:
    if not pos or not neg:
        return None
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def thresholds(w: list[float], rows: list[dict]) -> tuple[float, float]:
    answerable = sorted(score(w, r) for r in rows if r["kind"] not in UNANSWERABLE)
    nothing = answerable[max(0, int(0.05 * len(answerable)) - 1)] if answerable else 0.2
    scored = sorted(((score(w, r), r["rank"] == 1) for r in rows), reverse=True)
    strong, right = 1.0, 0
    for n, (s, ok) in enumerate(scored, 1):
        right += ok
        if right / n >= STRONG_PRECISION:
            strong = s
    return nothing, strong


def report(w: list[float] | None, nothing: float, strong: float, rows: list[dict]) -> None:
    """Half B's table; with `w` None, each row carries the score and thresholds of the
    model that never saw its person (`--split rotate`) as `_score`, `_nothing`, `_strong`."""
    if w is None:
        said_nothing = lambda r: r["_score"] < r["_nothing"]  # noqa: E731
        said_strong = lambda r: r["_score"] >= r["_strong"]  # noqa: E731
        sc = lambda r: r["_score"]  # noqa: E731
    else:
        said_nothing = lambda r: score(w, r) < nothing  # noqa: E731
        said_strong = lambda r: score(w, r) >= strong  # noqa: E731
        sc = lambda r: score(w, r)  # noqa: E731
    _table(rows, sc, said_nothing, said_strong)


def _table(rows: list[dict], sc, said_nothing, said_strong) -> None:  # noqa: ANN001
    print("| half B | answerable | AUC answerable/none | AUC answerable/foreign |"
          " AUC right/wrong first | 'nothing close' for none | for foreign | for answerable |"
          " strong: first right |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    groups = sorted({r["lang"] for r in rows}) + ["all"]
    fmt = lambda x: "–" if x is None else f"{x:.2f}"  # noqa: E731
    for lang in groups:
        part = [r for r in rows if lang in ("all", r["lang"])]
        ans = [sc(r) for r in part if r["kind"] not in UNANSWERABLE]
        nones = [sc(r) for r in part if r["kind"] == "none"]
        foreign = [sc(r) for r in part if r["kind"] == "foreign"]
        right = [sc(r) for r in part if r["rank"] == 1]
        wrong = [sc(r) for r in part if r["rank"] != 1]

        def said(kind: str | None, part: list[dict] = part) -> str:
            """'nothing close' among `kind`'s rows (None: the answerable ones)."""
            these = [
                r for r in part
                if r["kind"] == kind or (kind is None and r["kind"] not in UNANSWERABLE)
            ]
            return f"{sum(said_nothing(r) for r in these)}/{len(these)}"

        strong_rows = [r for r in part if said_strong(r)]
        strong_right = sum(r["rank"] == 1 for r in strong_rows)
        print(f"| {lang} | {len(ans)} | {fmt(auc(ans, nones))} | {fmt(auc(ans, foreign))} |"
              f" {fmt(auc(right, wrong))} | {said('none')} | {said('foreign')} |"
              f" {said(None)} |"
              f" {strong_right}/{len(strong_rows)} |")
    print("\n| stated score (half B) | queries | first right |")
    print("|---|---:|---:|")
    bins = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)
    for lo, hi in zip(bins, bins[1:], strict=False):
        inside = [r for r in rows if lo <= sc(r) < hi]
        if inside:
            right_n = sum(r["rank"] == 1 for r in inside)
            print(f"| {lo:.1f}–{min(hi, 1):.1f} | {len(inside)} | {right_n / len(inside):.2f} |")


def rotate(rows: list[dict]) -> int:
    """Each person's rows scored by a model fitted on rows that involve neither their
    queries nor their index (the dump's `repo` and `index`)."""
    people = sorted({r["index"] for r in rows})
    for person in people:

        def involved(r: dict, p: str = person) -> bool:
            return r["index"] == p or r["repo"].replace("/", "__") == p

        rest = [r for r in rows if not involved(r)]
        w = fit(rest)
        nothing, strong = thresholds(w, rest)
        print(f"without {person}: WEIGHTS =", tuple(round(x, 2) for x in w),
              f"NOTHING_BELOW = {nothing:.2f}; STRONG_FROM = {strong:.2f}")
        for r in rows:
            if r["index"] == person:  # what this person's own searches see
                r["_score"], r["_nothing"], r["_strong"] = score(w, r), nothing, strong
    print(f"\n{len(rows)} rows, each scored by the model fitted without its person\n")
    report(None, 0.0, 1.0, rows)
    return 0


def main() -> int:
    global SIGNALS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump", type=Path)
    ap.add_argument("--split", choices=("parity", "person", "rotate", "all"), default="parity")
    ap.add_argument("--drop", action="append", default=[], choices=SIGNALS,
                    help="fit without this signal (to measure what it adds)")
    args = ap.parse_args()
    SIGNALS = tuple(name for name in SIGNALS if name not in args.drop)
    rows = [json.loads(line) for line in args.dump.open(encoding="utf-8")]
    if args.split == "rotate":
        return rotate(rows)
    if args.split == "all":  # the shipped weights: fitted on every row (reported in-sample)
        in_a = [True] * len(rows)
        w = fit(rows)
        nothing, strong = thresholds(w, rows)
        print(f"fitted on all {len(rows)} queries")
        print("WEIGHTS =", tuple(round(x, 2) for x in w), f"# {', '.join(SIGNALS)}, intercept")
        print(f"NOTHING_BELOW = {nothing:.2f}; STRONG_FROM = {strong:.2f}\n")
        report(w, nothing, strong, rows)
        return 0
    if args.split == "parity":
        # A query and its `foreign` copies (`pg-003@other`) fall in the same half.
        in_a = [int(r["id"].split("@")[0].rsplit("-", 1)[1]) % 2 == 0 for r in rows]
    else:  # the first two people (by query prefix) against the other two
        people = sorted({r["id"].split("-")[0] for r in rows})
        in_a = [r["id"].split("-")[0] in people[: len(people) // 2] for r in rows]
    half_a = [r for r, a in zip(rows, in_a, strict=True) if a]
    half_b = [r for r, a in zip(rows, in_a, strict=True) if not a]
    w = fit(half_a)
    nothing, strong = thresholds(w, half_a)
    print(f"fitted on {len(half_a)} queries ({args.split} split), reported on {len(half_b)}")
    print("WEIGHTS =", tuple(round(x, 2) for x in w), f"# {', '.join(SIGNALS)}, intercept")
    print(f"NOTHING_BELOW = {nothing:.2f}; STRONG_FROM = {strong:.2f}\n")
    report(w, nothing, strong, half_b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
