"""The embedding stage of indexing: give every unit without vectors its vectors.

It runs after the keyword pass, so the keyword index is usable at once and search is
hybrid wherever vectors already exist. Work is committed a batch at a time: an
interrupted run keeps what it finished and the next run embeds only the rest.
Vectors from two models are never mixed: a new model identity clears the old vectors.

A text is embedded once: each chunk is stored with a digest of the exact text the model
saw (its context included) and the model's identity, and a text whose digest is already
stored, or that repeats inside the batch, takes that vector instead of a model run.
Forked and resumed sessions repeat hundreds of turns word for word.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from findsession.embeddings.base import Embedder
from findsession.interrupts import Held
from findsession.quantize import quantize
from findsession.storage.views import IndexStore

#: Units embedded per committed batch: small enough that Ctrl-C loses little work.
BATCH_UNITS = 32

#: Characters of context embedded around a short prompt: the end of what came before it
#: and the start of what answered it.
CONTEXT_CHARS = 200


@dataclass
class EmbedReport:
    """What an embedding run did, for the summary line and --json."""

    model: str = ""
    units: int = 0
    chunks: int = 0
    #: Chunks whose text was already embedded (stored, or earlier in the same batch):
    #: they took that vector without a model run.
    reused: int = 0
    seconds: float = 0.0
    pending_before: int = 0
    replaced_model: str | None = None
    interrupted: bool = False
    #: Share of recent turns written mostly in non-Latin scripts (None: not measured).
    non_latin_share: float | None = None
    #: A sentence for the user when the model in use cannot read much of the corpus.
    advice: str | None = None

    @property
    def texts_per_second(self) -> float:
        """Chunks stored per second, reused ones included: how fast the corpus is done."""
        return self.chunks / self.seconds if self.seconds else 0.0


def fields_to_embed(title: str, prompt: str, reply: str) -> list[tuple[str, str]]:
    """The (field, text) pairs that carry a unit's meaning; tool output is left out.

    Turn titles are empty; a session's title is a summary of it, so it is embedded too.
    """
    fields = [("title", title), ("prompt", prompt), ("reply", reply)]
    return [(name, text) for name, text in fields if text and text.strip()]


def embed_pending(
    store: IndexStore,
    embedder: Embedder,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedReport:
    """Embed every unit that has no vectors for `embedder`; safe to interrupt."""
    report = EmbedReport(model=embedder.identity)
    stored = store.setting("embedding_model")
    if stored is not None and stored != embedder.identity:
        with store.transaction():
            store.clear_vectors()
        report.replaced_model = stored
    if stored != embedder.identity:
        with store.transaction():
            store.set_setting("embedding_model", embedder.identity)
            store.set_setting("embedding_dims", str(embedder.dims))
    pending = store.pending_units()
    report.pending_before = len(pending)
    started = time.perf_counter()
    try:
        for at in range(0, len(pending), BATCH_UNITS):
            _embed_batch(store, embedder, pending[at : at + BATCH_UNITS], report)
            if progress:
                progress(min(at + BATCH_UNITS, len(pending)), len(pending))
    except KeyboardInterrupt:  # finished batches are committed; the rest waits
        report.interrupted = True
    finally:
        report.seconds = time.perf_counter() - started
    if not report.interrupted:  # searchers load the pack at once, and what changed after
        with store.transaction():
            store.pack_vectors()
    return report


def _embed_batch(
    store: IndexStore, embedder: Embedder, unit_ids: list[int], report: EmbedReport
) -> None:
    pieces: list[tuple[int, str, int, int]] = []
    texts: list[str] = []
    rows = store.unit_texts(unit_ids)
    hashes = {r[0]: r[1] for r in rows}
    for unit_id, _, session_id, kind, ordinal, title, prompt, reply in rows:
        for field, text in fields_to_embed(title, prompt, reply):
            spans = embedder.spans(text)
            for start, end in spans:
                pieces.append((unit_id, field, start, end))
                texts.append(text[start:end])
            if field == "prompt" and kind == "turn" and len(spans) == 1:
                texts[-1] = _in_context(store, session_id, ordinal, texts[-1], reply)
    digests = [text_digest(embedder.identity, t) for t in texts]
    vectors = store.vectors_of_texts(list(dict.fromkeys(digests))) if digests else {}
    new = {d: t for d, t in zip(digests, texts, strict=True) if d not in vectors}
    if new:
        packed = quantize(embedder.embed(list(new.values()), "document"))
        vectors.update(zip(new, packed, strict=True))
    by_unit: dict[int, list[tuple[str, int, int, float, bytes, bytes, bytes]]] = {
        r[0]: [] for r in rows
    }
    for (unit_id, field, start, end), digest in zip(pieces, digests, strict=True):
        by_unit[unit_id].append((field, start, end, *vectors[digest], digest))
    with Held(), store.transaction():  # Ctrl-C waits for the batch's vectors to land
        store.save_vectors_many([(u, hashes[u], chunks) for u, chunks in by_unit.items()])
        store.bump_vector_generation()
    report.units += len(rows)
    report.chunks += len(texts)
    report.reused += len(texts) - len(new)


def text_digest(identity: str, text: str) -> bytes:
    """What a chunk's vector depends on: the model (its identity names the document
    prefix too) and the exact text. 128 bits: a collision would silently give a chunk
    another text's vector."""
    data = f"{identity}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def _in_context(store: IndexStore, session_id: str, ordinal: int, prompt: str, reply: str) -> str:
    """A short prompt between the end of the turn before and the start of its answer.

    "yes, do that" means nothing alone; with the proposal it accepts and the work it
    started, it can be found by what it was about. The answer is the turn's reply, or
    (in a dialogue whose turns have no replies) the next turn.
    """
    near = store.turn_texts(session_id, [ordinal - 1, ordinal + 1])
    before = near.get(ordinal - 1, ("", ""))
    before_text = before[1] or before[0]
    after_text = reply or near.get(ordinal + 1, ("", ""))[0]
    parts = []
    if before_text.strip():
        parts.append("…" + " ".join(before_text[-CONTEXT_CHARS * 2 :].split())[-CONTEXT_CHARS:])
    parts.append(prompt)
    if after_text.strip():
        parts.append(" ".join(after_text[: CONTEXT_CHARS * 2].split())[:CONTEXT_CHARS] + "…")
    return "\n".join(parts)
