"""Embedding providers the user configures: Ollama, OpenAI-compatible, an ONNX folder.

The servers are stand-ins speaking the real protocols over a real socket; everything of
ours (config file, CLI, index, search) is the real thing, run as a user would.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import CLI
from embedding_server import DIMS, EmbeddingServer
from transcripts import Transcript, project_dir

from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    s = EmbeddingServer()
    yield s
    s.close()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "home" / ".claude" / "projects"
    t = Transcript(session_id="aaaa1111-0000-4000-8000-000000000001", cwd="/home/dev/app")
    t.prompt("the invoice totals are rounded twice").reply("Rounding now happens once, at the end.")
    t.write(project_dir(root, "/home/dev/app"))
    u = Transcript(session_id="bbbb2222-0000-4000-8000-000000000002", cwd="/home/dev/app")
    u.prompt("make the login page load faster").reply("Deferred the analytics script.")
    u.prompt("long paste: " + "lorem ipsum dolor sit amet " * 200).reply("Noted.")
    u.write(project_dir(root, "/home/dev/app"))
    return root


def configure(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.toml").write_text(text)


def test_ollama_gets_its_context_length_and_prefixes(
    cli: CLI, tmp_path: Path, corpus: Path, server: EmbeddingServer
) -> None:
    configure(tmp_path, f'[embedding]\nprovider = "ollama"\nurl = "{server.url}"\ncontext = 128\n')
    report = cli.json("index")
    assert report["embedding"]["model"].startswith(f"ollama:nomic-embed-text:{DIMS}d")
    bodies = [body for path, body, _ in server.requests if path == "/api/embed"]
    assert bodies and all(b["options"]["num_ctx"] == 128 for b in bodies)
    assert all(b["model"] == "nomic-embed-text" for b in bodies)
    documents = server.inputs("/api/embed")[1:]  # the first is the dimension probe
    assert all(t.startswith("search_document: ") for t in documents)
    # The 5,400-character paste is cut to fit the 128-token window (about 3 characters a
    # token), not left for the server to truncate.
    assert max(len(t) for t in documents) <= len("search_document: ") + (128 - 16) * 3
    assert sum("lorem" in t for t in documents) >= 8

    # The stand-in's vectors only know shared words: a query sharing three of them with
    # the session finds it by the server's vectors alone.
    data = cli.json("search", "invoice totals rounded", "--mode", "vector")
    assert data["strategy"] == "vector"
    assert data["results"][0]["session"]["id"].startswith("aaaa1111")
    assert server.inputs("/api/embed")[-1] == "search_query: invoice totals rounded"


def test_openai_compatible_endpoint_with_key_from_the_environment(
    cli: CLI, tmp_path: Path, corpus: Path, server: EmbeddingServer
) -> None:
    configure(
        tmp_path,
        f'[embedding]\nprovider = "openai"\nurl = "{server.url}/v1"\nmodel = "embed-small"\n'
        'api_key_env = "TEST_EMBED_KEY"\nquery_prefix = "query: "\n',
    )
    cli.env["TEST_EMBED_KEY"] = "sk-test-123"
    cli.run("index")
    headers = [h for path, _, h in server.requests if path == "/v1/embeddings"]
    assert headers and all(h["Authorization"] == "Bearer sk-test-123" for h in headers)
    # The server answers in reverse order; vectors must follow `index`, not position.
    data = cli.json("search", "login page faster", "--mode", "vector")
    assert data["results"][0]["session"]["id"].startswith("bbbb2222")
    assert server.inputs("/v1/embeddings")[-1] == "query: login page faster"


def test_unreachable_server_leaves_keyword_search_working(
    cli: CLI, tmp_path: Path, corpus: Path, server: EmbeddingServer
) -> None:
    url = server.url
    server.close()
    configure(tmp_path, f'[embedding]\nprovider = "ollama"\nurl = "{url}"\n')
    index = cli.run("index")
    assert "no vectors built" in index.stderr and "cannot reach" in index.stderr
    out = cli.run("invoice totals")
    assert "invoice" in out.stdout
    assert "keyword search" in out.stderr and "no vectors yet" in out.stderr


def test_changing_the_model_re_embeds_and_never_mixes(
    cli: CLI, tmp_path: Path, corpus: Path, server: EmbeddingServer
) -> None:
    first = cli.json("index")["embedding"]
    assert first["model"].startswith("onnx:multilingual-e5-small")
    configure(tmp_path, f'[embedding]\nprovider = "ollama"\nurl = "{server.url}"\n')
    # Before re-indexing, the stored vectors belong to another model: keyword only.
    out = cli.run("invoice totals")
    assert "another model" in out.stderr and "keyword search" in out.stderr
    second = cli.run("index", "--json")
    assert "the embedding model changed" in second.stderr
    status = cli.json("status")
    assert status["embedding_model"].startswith("ollama:")
    assert status["embedded_units"] == status["units"]
    assert cli.json("search", "invoice rounding")["strategy"] == "hybrid"


def test_a_model_file_that_cannot_load_leaves_keyword_search(
    cli: CLI, tmp_path: Path, corpus: Path
) -> None:
    folder = tmp_path / "broken-model"
    shutil.copytree(bundled_model_dir(), folder)
    (folder / "model.onnx").write_bytes(b"not an onnx graph" * 100)
    configure(tmp_path, f'[embedding]\nprovider = "onnx"\npath = "{folder}"\n')
    index = cli.run("index")
    assert "vectors not built (cannot load the model" in index.stderr
    assert "Traceback" not in index.stderr
    out = cli.run("invoice rounding")
    assert "keyword search" in out.stderr and "invoice" in out.stdout


def test_a_user_onnx_model_folder(cli: CLI, tmp_path: Path, corpus: Path) -> None:
    configure(tmp_path, f'[embedding]\nprovider = "onnx"\npath = "{bundled_model_dir()}"\n')
    assert cli.json("index")["embedding"]["units"] > 0
    assert cli.json("search", "invoice rounding")["strategy"] == "hybrid"
    configure(tmp_path, '[embedding]\nprovider = "onnx"\npath = "/nowhere/model"\n')
    out = cli.run("invoice rounding")
    assert "embedding model unavailable" in out.stderr and "not an ONNX model folder" in out.stderr
    assert "keyword search" in out.stderr and "invoice" in out.stdout


def test_the_bundled_model_loads_from_its_mapped_copy_with_the_same_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold search maps the model's weights from a copy in the user cache instead of
    copying 82 MB out of model.onnx; the copy must give exactly the vectors the model
    file gives, or a search would rank against an index built by another model."""
    texts = ["query: flaky test fixture timing out", "passage: 为什么迁移会死锁", "x " * 400]
    blocked = tmp_path / "a-file-not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("FINDSESSION_CACHE", str(blocked))  # no cache can be written
    folder = bundled_model_dir("multilingual-e5-small")
    plain = OnnxEmbedder(folder).embed(texts, "document")
    monkeypatch.setenv("FINDSESSION_CACHE", str(tmp_path / "cache"))
    first = OnnxEmbedder(folder).embed(texts, "document")  # loads the file, leaves the copy
    copies = list((tmp_path / "cache" / "models").glob("*/model.onnx.data"))
    assert len(copies) == 1 and not list((tmp_path / "cache" / "models").glob("*.tmp"))
    mapped = OnnxEmbedder(folder)
    second = mapped.embed(texts, "document")
    assert np.array_equal(plain, first) and np.array_equal(plain, second)
    maps = Path("/proc/self/maps")
    if maps.exists():  # the weights come from the copy, mapped, not read into memory
        assert str(copies[0]) in maps.read_text()
