"""Token ids and character offsets from a model's own tokenizer, whichever kind it ships.

BERT-family models ship a `tokenizer.json` for the `tokenizers` library; SentencePiece
models (multilingual-e5) a `tokenizer.model`. For a 250k-piece vocabulary the
SentencePiece runtime holds about 60 MB where `tokenizers` holds about 290 MB, so each
format is read by its own library rather than converted to one.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

from findsession.embeddings.base import EmbeddingUnavailable


class Tokenizer(Protocol):
    def ids(self, texts: list[str], max_tokens: int) -> list[list[int]]:
        """Model inputs: special tokens included, cut to `max_tokens`."""
        ...

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each content token of `text`, in order."""
        ...

    def count(self, text: str) -> int:
        """Content tokens in `text` (no special tokens)."""
        ...


class HuggingFaceTokenizer:
    """A `tokenizer.json`; its post-processor adds the special tokens."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer as HfTokenizer

        try:
            self._tok: Any = HfTokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises its own untyped errors
            raise EmbeddingUnavailable(f"cannot read {path}: {exc}") from exc
        # A shipped tokenizer.json may truncate and pad to its own length (128 for
        # MiniLM, half the model's window); the caller decides both.
        self._tok.no_padding()
        self._tok.no_truncation()
        # Truncation is a setting of the shared tokenizer, switched on for `ids` alone: a
        # resident service tokenises a query and new turns on two threads at once, and
        # one thread's setting must not cut the other's text.
        self._lock = threading.Lock()

    def ids(self, texts: list[str], max_tokens: int) -> list[list[int]]:
        with self._lock:
            self._tok.enable_truncation(max_length=max_tokens)
            try:
                return [e.ids for e in self._tok.encode_batch(texts)]
            finally:
                self._tok.no_truncation()

    def offsets(self, text: str) -> list[tuple[int, int]]:
        with self._lock:
            encoding = self._tok.encode(text)
        pairs = zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        return [offset for offset, special in pairs if not special]

    def count(self, text: str) -> int:
        with self._lock:
            return len(self._tok.encode(text, add_special_tokens=False).ids)


class SentencePieceTokenizer:
    """A SentencePiece `tokenizer.model`, wrapped in its begin and end pieces."""

    def __init__(self, path: Path) -> None:
        import sentencepiece

        try:
            self._sp: Any = sentencepiece.SentencePieceProcessor(model_file=str(path))
        except (OSError, RuntimeError) as exc:
            raise EmbeddingUnavailable(f"cannot read {path}: {exc}") from exc
        self._bos, self._eos = self._sp.bos_id(), self._sp.eos_id()

    def ids(self, texts: list[str], max_tokens: int) -> list[list[int]]:
        body = max_tokens - 2
        return [[self._bos, *pieces[:body], self._eos] for pieces in self._sp.encode(texts)]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        found = self._sp.encode(text, return_type="offset_mapping")
        # The leading "▁" SentencePiece adds covers no input.
        return [(start, end) for start, end in found["offsets"] if end > start]

    def count(self, text: str) -> int:
        return len(self._sp.encode(text))


def tokenizer_path(folder: Path, name: str | None = None) -> Path:
    """The tokenizer file in a model folder: `name` if model.json gives one, else whichever
    of `tokenizer.json` and `tokenizer.model` is there."""
    for candidate in [name] if name else ["tokenizer.json", "tokenizer.model"]:
        if (folder / candidate).exists():
            return folder / candidate
    raise EmbeddingUnavailable(
        f"{folder} is not an ONNX model folder (needs model.onnx and"
        " tokenizer.json or tokenizer.model)"
    )


def load_tokenizer(path: Path) -> Tokenizer:
    if path.suffix == ".model":
        return SentencePieceTokenizer(path)
    return HuggingFaceTokenizer(path)
