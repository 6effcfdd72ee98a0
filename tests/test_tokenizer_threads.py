"""A resident service tokenises a query and newly indexed turns on two threads at once,
with one shared tokenizer: neither may see the other's truncation."""

from __future__ import annotations

import threading

from findsession.embeddings.onnx_local import bundled_model_dir
from findsession.embeddings.tokenize import load_tokenizer, tokenizer_path

TEXT = " ".join(f"word{i} about the deploy and its health check" for i in range(200))


def test_counting_on_one_thread_is_never_cut_by_truncation_on_another() -> None:
    tokenizer = load_tokenizer(tokenizer_path(bundled_model_dir("all-MiniLM-L6-v2")))
    full = tokenizer.count(TEXT)
    assert full > 1000
    stop = threading.Event()
    longest: list[int] = []

    def embed_side() -> None:
        while not stop.is_set():
            longest.append(max(len(ids) for ids in tokenizer.ids([TEXT, TEXT], 16)))

    thread = threading.Thread(target=embed_side)
    thread.start()
    try:
        counts = {tokenizer.count(TEXT) for _ in range(300)}
    finally:
        stop.set()
        thread.join()
    assert counts == {full}  # a count is never of a truncated text
    assert max(longest) <= 16  # and truncation is never lost mid-batch
