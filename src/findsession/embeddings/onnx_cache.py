"""A model's onnxruntime session, from a copy in the user cache whose weights are mapped.

onnxruntime reads a self-contained `model.onnx` whole and copies every weight out of it:
for the bundled e5 (82 MB) that is about 180 MB of fresh memory per process and most of a
cold search's model load (0.2-0.3 s, mostly page faults). The same graph saved once with
its weights in a separate file (`model.onnx.data`, external data) is memory-mapped
instead: a load reads a 74 kB graph and maps the weights from the page cache, touching
only what a query uses (ten rows of a 250,000-word table, not the table).

The copy is the session's own optimised graph, written by onnxruntime on the first load
(`optimized_model_filepath`) at the same optimisation level, so it computes exactly the
same vectors (checked bit for bit in tests/test_providers.py). It is keyed by the model
file's path, size and modification time and by the onnxruntime version, written to a
temporary folder and renamed into place, so a reader never sees half of one; any failure
to write or read it falls back to the model file itself.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import platformdirs

from findsession.paths import expand

PROVIDERS = ["CPUExecutionProvider"]
#: Weights above this size go to the mapped file; small ones stay in the graph.
_EXTERNAL_MIN_BYTES = 1024


def cache_root() -> Path:
    """`FINDSESSION_CACHE`, else the user's cache folder for findsession."""
    env = os.environ.get("FINDSESSION_CACHE")
    return expand(env) if env else platformdirs.user_cache_path("findsession")


def cached_copy(model_file: Path, ort_version: str, level: Any) -> Path:
    """Where the mapped copy of `model_file` lives (whether or not it exists yet)."""
    stat = model_file.stat()
    key = f"{model_file.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0{ort_version}\0{level}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return cache_root() / "models" / f"{model_file.parent.name}-{digest}" / "model.onnx"


def load_session(ort: Any, model_file: Path, options: Any) -> Any:
    """An `InferenceSession` of `model_file` with `options`, from the mapped copy when
    there is one; otherwise from the file, leaving the copy behind for the next process."""
    copy = cached_copy(model_file, ort.__version__, options.graph_optimization_level)
    if copy.exists():
        try:
            return ort.InferenceSession(str(copy), options, providers=PROVIDERS)
        except Exception:  # noqa: BLE001 - a damaged copy: made again from the model file
            shutil.rmtree(copy.parent, ignore_errors=True)
    staging = copy.parent.with_name(f"{copy.parent.name}.{os.getpid()}.tmp")
    try:
        staging.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable cache: load as before
        return ort.InferenceSession(str(model_file), options, providers=PROVIDERS)
    options.optimized_model_filepath = str(staging / copy.name)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", f"{copy.name}.data"
    )
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes",
        str(_EXTERNAL_MIN_BYTES),
    )
    try:
        session = ort.InferenceSession(str(model_file), options, providers=PROVIDERS)
    except Exception:  # noqa: BLE001 - saving failed (a full disk): load without it
        shutil.rmtree(staging, ignore_errors=True)
        options.optimized_model_filepath = ""
        return ort.InferenceSession(str(model_file), options, providers=PROVIDERS)
    try:
        staging.rename(copy.parent)
    except OSError:  # another process got there first, or the cache went away
        shutil.rmtree(staging, ignore_errors=True)
    return session
