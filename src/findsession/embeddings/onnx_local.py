"""Sentence embeddings from an ONNX model on the CPU: the bundled default, or a user's folder.

A model folder holds `model.onnx`, `tokenizer.json` and optionally `model.json` (name,
dims, max_tokens, pooling, prefixes). onnxruntime and tokenizers are imported here and
only here, so keyword-only work never pays for them.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from findsession.embeddings.base import MAX_CHUNKS, EmbeddingUnavailable, Role, normalize

#: Tokens per run of the model at most (batch x length): onnxruntime's arena keeps the
#: peak memory of the largest batch for the life of the process.
TOKENS_PER_RUN = 8192
#: Tokens two neighbouring chunks share, so a sentence cut in two is whole in one of them.
CHUNK_OVERLAP = 32


def bundled_model_dir() -> Path:
    """The all-MiniLM-L6-v2 model shipped inside the package."""
    return Path(str(resources.files("findsession") / "models" / "all-MiniLM-L6-v2"))


class OnnxEmbedder:
    """Mean-pooled, normalised vectors from a BERT-like ONNX encoder."""

    def __init__(self, folder: Path, overrides: dict[str, Any] | None = None) -> None:
        folder = Path(folder).expanduser()
        model_file = next(
            (p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.exists()),
            None,
        )
        if model_file is None or not (folder / "tokenizer.json").exists():
            raise EmbeddingUnavailable(
                f"{folder} is not an ONNX model folder (needs model.onnx and tokenizer.json)"
            )
        spec: dict[str, Any] = {}
        if (folder / "model.json").exists():
            spec = json.loads((folder / "model.json").read_text(encoding="utf-8"))
        spec.update({k: v for k, v in (overrides or {}).items() if v is not None})
        from tokenizers import Tokenizer

        try:
            self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # tokenizers raises its own untyped errors
            raise EmbeddingUnavailable(f"cannot read {folder / 'tokenizer.json'}: {exc}") from exc
        self._model_file = model_file
        self._loaded: Any = None
        self.max_tokens = int(spec.get("max_tokens", 256))
        self.query_prefix = str(spec.get("query_prefix", ""))
        self.document_prefix = str(spec.get("document_prefix", ""))
        self.min_cosine = float(spec.get("min_cosine", 0.0))
        # The shipped tokenizer.json may truncate and pad to its own length (128 for
        # MiniLM, half the model's window); set both explicitly.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        name = spec.get("name") or folder.name
        self.dims = int(spec.get("dims") or self._probe_dims())
        self.identity = (
            f"onnx:{name}:{self.dims}d:{self.max_tokens}t:{model_file.stat().st_size}"
            f":{self.query_prefix!r}:{self.document_prefix!r}"
        )

    @property
    def _session(self) -> Any:
        """The onnxruntime session, created on first use.

        Deciding whether anything needs embedding (the model's identity) must not cost a
        model load: a no-op index run would pay it every time.
        """
        if self._loaded is None:
            try:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = int(os.environ.get("FINDSESSION_THREADS", "0"))
                self._loaded = ort.InferenceSession(
                    str(self._model_file), options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbeddingUnavailable(
                    f"cannot load the model {self._model_file}: {exc}"
                ) from exc
            self._inputs = {i.name for i in self._loaded.get_inputs()}
        return self._loaded

    def _probe_dims(self) -> int:
        return int(self._run([self._tokenizer.encode("probe")]).shape[1])

    def spans(self, text: str) -> list[tuple[int, int]]:
        encoding = self._tokenizer.encode(text[: MAX_CHUNKS * self.max_tokens * 8])
        pairs = zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        offsets = [offset for offset, special in pairs if not special]
        if not offsets:
            return [(0, len(text))] if text.strip() else []
        prefix = len(self._tokenizer.encode(self.document_prefix).ids) - 2
        window = self.max_tokens - 2 - max(prefix, 0)
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
        prefix = self.query_prefix if role == "query" else self.document_prefix
        self._tokenizer.enable_truncation(max_length=self.max_tokens)
        try:
            encodings = self._tokenizer.encode_batch([prefix + t for t in texts])
        finally:
            self._tokenizer.no_truncation()
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        # Similar lengths share a run, so little of each run is padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batch: list[int] = []
        for i in order:
            longest = len(encodings[i].ids)
            if batch and longest * (len(batch) + 1) > TOKENS_PER_RUN:
                out[batch] = self._run([encodings[j] for j in batch])
                batch = []
            batch.append(i)
        if batch:
            out[batch] = self._run([encodings[j] for j in batch])
        return out

    def _run(self, encodings: list[Any]) -> np.ndarray:
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        session = self._session
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = session.run(None, feed)[0]
        if output.ndim == 3:  # token states: mean over the real tokens
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return normalize(output)
