"""The fp32 ONNX export both model build scripts share (maintainer tool, needs torch)."""

from __future__ import annotations

from pathlib import Path

import torch


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
