"""Sentence embeddings from an ONNX model on the CPU: a bundled model, or a user's folder.

A model folder holds `model.onnx`, a tokenizer (`tokenizer.json` or a SentencePiece
`tokenizer.model`) and optionally `model.json` (name, dims, max_tokens, prefixes,
min_cosine). onnxruntime and the tokenizer libraries are imported here and only here, so
keyword-only work never pays for them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from findsession.embeddings.base import MAX_CHUNKS, EmbeddingUnavailable, Role, normalize
from findsession.embeddings.onnx_cache import load_session
from findsession.embeddings.tokenize import Tokenizer, load_tokenizer, tokenizer_path
from findsession.paths import expand
from findsession.writing_systems import cjk_fraction

#: Tokens per run of the model at most (batch x length); 1 runs every text alone. The
#: bundled models quantize activations per run, so a text's vector moved with whatever
#: texts shared its run: the same file embedded in two indexes (or on two machines
#: pushing to one server) got other vectors, and never quite the vector of the same words
#: asked as a query. Alone, a document is embedded exactly as a query is, and closer to
#: the reference model (tools/export_e5.py). That noise alone moved known-item MRR by
#: +-.01 and LoCoMo recall@10 by +-0.5 between builds of the same files (docs/benchmarks.md,
#: "Every text embedded alone"); runs of one text are as fast as runs of 1,024 tokens
#: (bench/embed_runs.py, bench/embed_speed.py) and keep onnxruntime's arena small.
TOKENS_PER_RUN = 1
#: Runs of the model at once at most, each on its own core (more cores: more threads each).
MAX_PARALLEL_RUNS = 4
#: Tokens two neighbouring chunks share, so a sentence cut in two is whole in one of them.
CHUNK_OVERLAP = 32


def bundled_model_dir(name: str = "all-MiniLM-L6-v2") -> Path:
    """The folder of a model shipped inside the package."""
    return Path(str(resources.files("findsession") / "models" / name))


class OnnxEmbedder:
    """Mean-pooled, normalised vectors from a BERT-like ONNX encoder."""

    def __init__(self, folder: Path, overrides: dict[str, Any] | None = None) -> None:
        folder = expand(folder)
        model_file = next(
            (p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.exists()),
            None,
        )
        if model_file is None:
            raise EmbeddingUnavailable(f"{folder} is not an ONNX model folder (no model.onnx)")
        spec: dict[str, Any] = {}
        if (folder / "model.json").exists():
            spec = json.loads((folder / "model.json").read_text(encoding="utf-8"))
        spec.update({k: v for k, v in (overrides or {}).items() if v is not None})
        self._tokenizer_file = tokenizer_path(folder, spec.get("tokenizer"))
        self._tokenizer_loaded: Tokenizer | None = None
        self._model_file = model_file
        self._loaded: Any = None  # what the loading thread produced: a session or an error
        self._loading: threading.Thread | None = None
        self._ready: Any = None  # the session, once checked
        self._parallel_runs, self._threads_per_run = parallelism()
        self.max_tokens = int(spec.get("max_tokens", 256))
        self.query_prefix = str(spec.get("query_prefix", ""))
        self.document_prefix = str(spec.get("document_prefix", ""))
        self.min_cosine = float(spec.get("min_cosine", 0.0))
        self.cosine_margin = float(spec.get("cosine_margin", 0.35))
        #: How much of a question's passage view its vector takes (0: the query view alone).
        self.query_as_passage = float(spec.get("query_as_passage", 0.0))
        if self.query_prefix == self.document_prefix:
            self.query_as_passage = 0.0  # one view: nothing to blend
        self._centroids = _centroids(spec.get("centroids"))
        name = spec.get("name") or folder.name
        self.dims = int(spec.get("dims") or self._probe_dims())
        self.identity = (
            f"onnx:{name}:{self.dims}d:{self.max_tokens}t:{model_file.stat().st_size}"
            f":{self.query_prefix!r}:{self.document_prefix!r}"
        )
        if self._centroids is not None:
            digest = hashlib.sha256(self._centroids.tobytes()).hexdigest()[:8]
            self.identity += f":centred-{digest}"

    @property
    def _session(self) -> Any:
        """The onnxruntime session, created on first use.

        Deciding whether anything needs embedding (the model's identity) must not cost a
        model load: a no-op index run would pay it every time.
        """
        if self._ready is None:
            self._start_session()
            assert self._loading is not None
            self._loading.join()
            if isinstance(self._loaded, BaseException):
                exc, self._loaded, self._loading = self._loaded, None, None
                raise EmbeddingUnavailable(
                    f"cannot load the model {self._model_file}: {exc}"
                ) from exc
            self._inputs = {i.name for i in self._loaded.get_inputs()}
            self._ready = self._loaded
        return self._ready

    def _start_session(self) -> None:
        """Create the session in a thread: onnxruntime releases the GIL while it loads,
        so it overlaps the tokenizer's load (0.4 s hidden under 0.7 s for e5)."""
        if self._loading is not None:
            return

        def load() -> None:
            try:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = self._threads_per_run
                # The shipped graphs are fused already; the "all" level only adds layout
                # passes that cost 0.2 s per load and no speed for these models.
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                self._loaded = load_session(ort, self._model_file, options)
            except Exception as exc:  # noqa: BLE001 - onnxruntime raises untyped errors
                self._loaded = exc

        self._loading = threading.Thread(target=load, name="findsession-model", daemon=True)
        self._loading.start()

    @property
    def _tokenizer(self) -> Tokenizer:
        """Loaded on first use: a 250k-piece vocabulary takes 0.7 s, which a no-op index
        run (it only compares identities) must not pay. The model starts loading beside it."""
        if self._tokenizer_loaded is None:
            self._start_session()
            self._tokenizer_loaded = load_tokenizer(self._tokenizer_file)
        return self._tokenizer_loaded

    def _probe_dims(self) -> int:
        return int(self._run(self._tokenizer.ids(["probe"], self.max_tokens)).shape[1])

    def spans(self, text: str) -> list[tuple[int, int]]:
        offsets = self._tokenizer.offsets(text[: MAX_CHUNKS * self.max_tokens * 8])
        if not offsets:
            return [(0, len(text))] if text.strip() else []
        prefix = self._tokenizer.count(self.document_prefix) if self.document_prefix else 0
        window = self.max_tokens - 2 - prefix
        spans = []
        start = 0
        while start < len(offsets) and len(spans) < MAX_CHUNKS:
            end = min(len(offsets), start + window)
            spans.append((offsets[start][0], offsets[end - 1][1]))
            if end == len(offsets):
                break
            start = end - CHUNK_OVERLAP
        return spans

    def embed(self, texts: list[str], role: Role) -> np.ndarray:
        if role == "query" and self.query_as_passage > 0:
            return self._embed_queries(texts)
        prefix = self.query_prefix if role == "query" else self.document_prefix
        return self._embed([prefix + t for t in texts], texts)

    def _embed_queries(self, texts: list[str]) -> np.ndarray:
        """A question's vector: its query view, blended with its passage view outside CJK.

        e5 learned "query: " against "passage: ", and the language centroids this model
        subtracts are mean *passage* vectors, so a query keeps an offset of its own (0.20
        from the Latin centroid, 0.15 from the CJK one). Half the passage view brings an
        English or French question closer to the words its session used. On the four
        histories of known-item-large, CJK questions lost with it while every other
        language gained (docs/benchmarks.md, "A question asked as a passage too"), so its
        weight falls with the question's share of CJK letters. Both views are runs of
        their own, side by side on the cores: a search does not wait for the second.
        """
        weights = np.array(
            [self.query_as_passage * (1.0 - cjk_fraction(t)) for t in texts], dtype=np.float32
        )
        blended = [i for i, w in enumerate(weights) if w > 0]
        vectors = self._embed(
            [self.query_prefix + t for t in texts]
            + [self.document_prefix + texts[i] for i in blended],
            texts + [texts[i] for i in blended],
        )
        asked = vectors[: len(texts)]
        if blended:
            w = weights[blended][:, None]
            asked[blended] = (1 - w) * asked[blended] + w * vectors[len(texts) :]
        return normalize(asked)

    def _embed(self, prefixed: list[str], texts: list[str]) -> np.ndarray:
        """Vectors of `prefixed` (each text with its role's prefix), centred by `texts`."""
        encodings = self._tokenizer.ids(prefixed, self.max_tokens)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        # Similar lengths share a run, so little of each run is padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i]))
        runs: list[list[int]] = [[]]
        for i in order:
            if runs[-1] and len(encodings[i]) * (len(runs[-1]) + 1) > TOKENS_PER_RUN:
                runs.append([])
            runs[-1].append(i)
        if runs[-1]:
            for run, vectors in zip(runs, self._run_all(runs, encodings), strict=True):
                out[run] = vectors
        if self._centroids is not None:
            out = self._centre(texts, out)
        return out

    def _centre(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        """Subtract each text's language centroid, so meaning outweighs language.

        A small multilingual model puts any two English texts closer than an English
        and a Chinese text about the same thing: its vectors carry the language as a
        large shared offset. Centroids measured on parallel sentences (see
        tools/export_e5.py) remove it; a mixed text gets the mix of the two.
        """
        cjk = np.array([cjk_fraction(t) for t in texts], dtype=np.float32)[:, None]
        latin, chinese = self._centroids
        return normalize(vectors - (cjk * chinese + (1 - cjk) * latin))

    def _run_all(self, runs: list[list[int]], encodings: list[list[int]]) -> list[np.ndarray]:
        """Each run's vectors, the runs side by side on the cores.

        Two runs on one thread each reach about 1.9x one core's texts/s, where one run
        split over two threads waits for the other at each of the graph's many small
        steps. onnxruntime releases the GIL and a session may run on several threads at
        once.
        Tokenizing stays on the caller's thread (the tokenizers are not shared).
        """
        inputs = [[encodings[j] for j in run] for run in runs]
        if self._parallel_runs == 1 or len(runs) == 1:
            return [self._run(e) for e in inputs]
        self._session  # noqa: B018 - loaded here, once, not raced for by the workers
        pool = ThreadPoolExecutor(self._parallel_runs, thread_name_prefix="findsession-embed")
        try:
            return list(pool.map(self._run, inputs))
        finally:  # on Ctrl-C the runs not started are dropped; running ones just end
            pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, encodings: list[list[int]]) -> np.ndarray:
        length = max(len(e) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e)] = e
            mask[row, : len(e)] = 1
        session = self._session
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = session.run(None, feed)[0]
        if output.ndim == 3:  # token states: mean over the real tokens
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return normalize(output)


def parallelism() -> tuple[int, int]:
    """(runs of the model at once, threads each run): every core this process may use,
    or `FINDSESSION_THREADS` of them."""
    cores = int(os.environ.get("FINDSESSION_THREADS", "0") or 0)
    if cores <= 0:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
        cores = cores or os.cpu_count() or 1
    runs = min(cores, MAX_PARALLEL_RUNS)
    return runs, max(1, cores // runs)


def _centroids(spec: Any) -> np.ndarray | None:
    """model.json's `centroids` ({"latin": [...], "cjk": [...]}) as a (2, dims) array."""
    if not spec:
        return None
    try:
        return np.array([spec["latin"], spec["cjk"]], dtype=np.float32)
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbeddingUnavailable(f"model.json has unusable centroids: {exc}") from exc
