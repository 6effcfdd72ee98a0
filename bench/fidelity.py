"""Fidelity of the bundled int8 graphs against their fp32 references, per instruction set.

    python bench/fidelity.py [--speed 200] [--folder LABEL=MODEL_DIR ...] [--dump F] [--against F]

onnxruntime's int8 matrix products take a different kernel per instruction set: without
VNNI (AVX2, or AVX-512 before Cascade Lake) a uint8 x int8 product pair is summed into a
saturating int16 (`vpmaddubsw`), with VNNI or AMX it is not. So one graph can give other
vectors on another CPU. This script embeds the reference texts of `tests/fixtures/` with
each model as the product does (`OnnxEmbedder`, same batching) and prints the cosine
against the fp32 reference (min and mean; for e5 also after the language centroids are
subtracted, as the product uses it). With `--speed N` it adds texts/s over N texts of 256
tokens, on `FINDSESSION_THREADS` threads (default: all cores), the best of `--rounds`.
The "path" column is the kernel family onnxruntime picks, from what cpuid tells this
process (numpy's view of it; an AVX-VNNI CPU without AVX-512, Alder Lake and later, shows
as AVX2 but takes exact VNNI kernels).

To measure the AVX2 path on a newer CPU, run the same script under QEMU's user-mode
emulator with a Haswell CPU (Debian's `qemu-user`), which reports AVX2 and FMA but no
AVX-512; emulated times mean nothing, so leave `--speed` at 0 there:

    qemu-x86_64 -cpu Haswell .venv/bin/python bench/fidelity.py --dump avx2.npz
    .venv/bin/python bench/fidelity.py --speed 200 --against avx2.npz

`--dump` saves every vector, `--against` compares this run's vectors with a saved run's
(the largest difference of any component, and the lowest cosine between the two paths).
`--folder` measures another build of a model (a folder like the bundled ones), for
comparing quantization options. Exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir
from findsession.writing_systems import cjk_fraction

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
BUNDLED = {
    "all-MiniLM-L6-v2": FIXTURES / "minilm_reference.json",
    "multilingual-e5-small": FIXTURES / "e5_reference.json",
}
#: Words for the speed texts: transcript-like, so either tokenizer makes >256 tokens of them.
SPEED_WORDS = """deploy rollback cache index query session token migration schema worker
queue retry timeout socket fixture parser record branch commit rebase config module the a
of to and in for with on that this when we it is was"""


def instruction_path() -> str:
    """The int8 kernel family MLAS picks, from the features cpuid reports to us."""
    from numpy._core._multiarray_umath import __cpu_features__ as cpu

    if cpu.get("AVX512_SKX") and cpu.get("AVX512VNNI"):
        return "AVX-512 VNNI"
    if cpu.get("AVX512_SKX"):
        return "AVX-512, no VNNI"
    if cpu.get("AVX2"):
        return "AVX2, no AVX-512"
    return "SSE only"


def speed_texts(count: int) -> list[str]:
    """`count` distinct texts of well over 256 tokens for either tokenizer."""
    rng = random.Random(7)
    words = SPEED_WORDS.split()
    return [" ".join(rng.choice(words) for _ in range(320)) for _ in range(count)]


def reference(model: str) -> tuple[list[str], np.ndarray]:
    data = json.loads(BUNDLED[model].read_text(encoding="utf-8"))
    return data["texts"], np.asarray(data["vectors"], dtype=np.float32)


def centred(folder: Path, texts: list[str], raw: np.ndarray) -> np.ndarray:
    """The fp32 reference centred with the folder's centroids, as the e5 test does."""
    spec = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    latin, cjk = (np.asarray(spec["centroids"][k], dtype=np.float32) for k in ("latin", "cjk"))
    share = np.array([[cjk_fraction(t)] for t in texts], dtype=np.float32)
    out = raw - (share * cjk + (1 - share) * latin)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def measure(label: str, model: str, folder: Path) -> tuple[dict, dict]:
    texts, raw = reference(model)
    plain = OnnxEmbedder(folder, {"centroids": {}}).embed(texts, "document")
    cos = (plain * raw).sum(axis=1)
    row = {"model": model, "build": label, "raw": (float(cos.min()), float(cos.mean()))}
    vectors = {f"{model}/{label}/raw": plain}
    if json.loads((folder / "model.json").read_text(encoding="utf-8")).get("centroids"):
        embedder = OnnxEmbedder(folder)
        ours = embedder.embed(texts, "document")
        cos = (ours * centred(folder, texts, raw)).sum(axis=1)
        row["centred"] = (float(cos.min()), float(cos.mean()))
        vectors[f"{model}/{label}/centred"] = ours
    return row, vectors


def timings(runs: list[tuple[str, str, Path]], count: int, rounds: int) -> list[float]:
    """texts/s of each run: rounds go through every build in turn, the best round counts,
    so a neighbour's load on a shared machine hits all builds alike."""
    sample = speed_texts(count)
    embedders = [OnnxEmbedder(folder, {"centroids": {}}) for _, _, folder in runs]
    for embedder in embedders:
        embedder.embed(sample[:16], "document")  # warm-up: session, arena
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for i, embedder in enumerate(embedders):
            start = time.perf_counter()
            embedder.embed(sample, "document")
            best[i] = min(best[i], time.perf_counter() - start)
    return [count / b for b in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", type=int, default=0, help="texts of 256 tokens to time")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds, the best counts")
    parser.add_argument(
        "--folder",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also measure this model folder (its name picks the reference)",
    )
    parser.add_argument("--dump", type=Path, help="save every vector to this .npz")
    parser.add_argument("--against", type=Path, help="compare with vectors saved by --dump")
    parser.add_argument("--only", choices=sorted(BUNDLED), help="one model only")
    args = parser.parse_args()

    runs = [("shipped", m, bundled_model_dir(m)) for m in BUNDLED if args.only in (None, m)]
    for spec in args.folder:
        label, _, folder = spec.partition("=")
        folder_path = Path(folder)
        model = next((m for m in BUNDLED if m in str(folder_path.resolve())), None)
        if model is None:
            sys.exit(f"{folder}: name the folder after a bundled model")
        runs.append((label, model, folder_path))

    path = instruction_path()
    rows, vectors = [], {}
    for label, model, folder in runs:
        row, vecs = measure(label, model, folder)
        rows.append(row)
        vectors.update(vecs)
    if args.speed:
        for row, rate in zip(rows, timings(runs, args.speed, args.rounds), strict=True):
            row["texts_s"] = rate
    other = dict(np.load(args.against)) if args.against else {}

    threads = os.environ.get("FINDSESSION_THREADS", "all")
    print(f"path: {path}; onnxruntime {__import__('onnxruntime').__version__}; threads: {threads}")
    print()
    header = "| model | build | path | cosine min / mean | centred min / mean | texts/s |"
    if other:
        header += " vs saved run: max abs diff, min cosine |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for row in rows:
        raw = "{:.4f} / {:.4f}".format(*row["raw"])
        cent = "{:.4f} / {:.4f}".format(*row["centred"]) if "centred" in row else "-"
        speed = f"{row['texts_s']:.1f}" if "texts_s" in row else "-"
        line = f"| {row['model']} | {row['build']} | {path} | {raw} | {cent} | {speed} |"
        if other:
            key = f"{row['model']}/{row['build']}/raw"
            if key in other:
                ours, theirs = vectors[key], other[key]
                diff = float(np.abs(ours - theirs).max())
                line += f" {diff:.1e}, {float((ours * theirs).sum(axis=1).min()):.6f} |"
            else:
                line += " - |"
        print(line)
    if args.dump:
        np.savez(args.dump, **vectors)


if __name__ == "__main__":
    main()
