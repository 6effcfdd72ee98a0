"""How the size of the model's runs and running them side by side change texts/s.

    python bench/embed_runs.py INDEX.db [--texts 600] [--rounds 3] [--sizes 8192,2048,512]
                               [--model all-MiniLM-L6-v2|multilingual-e5-small]

Takes the first --texts chunks (prompts and replies cut into the model's windows) of an
index, and embeds them through `OnnxEmbedder.embed` with each run size, once on one core
(`FINDSESSION_THREADS=1`: one run at a time, one thread) and once with every core (runs
side by side). Variants alternate within each round; the table gives medians. Prints a
table; exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import apsw

import findsession.embeddings.onnx_local as onnx_local
from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir


def chunks(db: Path, embedder: OnnxEmbedder, limit: int) -> list[str]:
    conn = apsw.Connection(
        f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_URI | apsw.SQLITE_OPEN_READONLY
    )
    texts: list[str] = []
    for prompt, reply in conn.execute("SELECT prompt, reply FROM units ORDER BY id"):
        for text in (prompt, reply):
            texts += [text[a:b] for a, b in embedder.spans(text)] if text.strip() else []
        if len(texts) >= limit:
            break
    conn.close()
    return texts[:limit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="8192,2048,512")
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    args = parser.parse_args()
    folder = bundled_model_dir(args.model)
    os.environ["FINDSESSION_THREADS"] = "1"
    one_core = OnnxEmbedder(folder)
    del os.environ["FINDSESSION_THREADS"]
    every_core = OnnxEmbedder(folder)
    texts = chunks(args.db, every_core, args.texts)
    sizes = [int(s) for s in args.sizes.split(",")]
    variants = [
        (f"{n} tokens a run, {name}", n, e)
        for n in sizes
        for name, e in (("one core", one_core), ("runs side by side", every_core))
    ]
    for _, _, e in variants:
        e.embed(texts[:4], "document")  # model loaded outside the timing
    rates: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    for _ in range(args.rounds):
        for name, size, embedder in variants:
            onnx_local.TOKENS_PER_RUN = size
            started = time.perf_counter()
            embedder.embed(texts, "document")
            rates[name].append(len(texts) / (time.perf_counter() - started))
    first = variants[0][0]
    print(f"\n{len(texts)} texts, {args.model}, median of {args.rounds} rounds\n")
    print(f"| variant | texts/s | vs {first} |")
    print("|---|---:|---:|")
    for name, rate in rates.items():
        ratio = statistics.median(a / b for a, b in zip(rate, rates[first], strict=True))
        print(f"| {name} | {statistics.median(rate):.1f} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
