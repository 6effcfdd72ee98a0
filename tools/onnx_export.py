"""The fp32 ONNX export both model build scripts share (maintainer tool, needs torch)."""

from __future__ import annotations

from pathlib import Path

import torch
from onnxruntime.quantization import QuantType

#: Dynamic int8 quantization as both builds use it. Per channel: one scale per output
#: column keeps cosine about 0.99 against fp32 (one per matrix: 0.89).
#: `reduce_range`: weights in -64..64 (7 bits). onnxruntime's int8 kernels for AVX2, and
#: for AVX-512 without VNNI, add each pair of uint8 x int8 products into a saturating
#: int16 (`vpmaddubsw`); with 8-bit weights 255 * 127 * 2 overflows it, while VNNI and AMX
#: kernels add exactly, so one graph gave other vectors on other CPUs (cosine down to 0.963
#: between the two for MiniLM). With 7 bits 255 * 64 * 2 = 32,640 fits, so every CPU
#: computes the same integer products. Measured (docs/benchmarks.md, "Fidelity per
#: instruction set"): it costs up to 0.0012 of mean cosine against fp32 at the same speed;
#: uint8 weights (exact everywhere too) cost 36% of the speed on VNNI CPUs instead.
QUANTIZATION = {"weight_type": QuantType.QInt8, "per_channel": True, "reduce_range": True}


class _Encoder(torch.nn.Module):
    """Calls the model with keyword arguments only: newer transformers reject positional ones."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def export_fp32(model: torch.nn.Module, path: Path) -> Path:
    """Plain fp32 export with named inputs and dynamic batch and sequence axes.

    Initializers are named after the wrapper (`model.embeddings...`). Tracing leaves the
    module computing slightly different values afterwards, so reference vectors must be
    taken before this runs.
    """
    ids = torch.ones((2, 16), dtype=torch.long)
    torch.onnx.export(
        _Encoder(model),
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            name: {0: "batch", 1: "sequence"}
            for name in ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")
        },
        opset_version=17,
        dynamo=False,
    )
    return path
