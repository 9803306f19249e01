"""Writes the small random-weight test models testdata/models/bert_tiny.onnx and llama_tiny.onnx.

    python3 -m venv /work/toolvenv
    /work/toolvenv/bin/pip install torch==2.13.0 onnx onnxscript onnxruntime
    /work/toolvenv/bin/python tools/gen/make_test_models.py

Run by hand, never in CI (it needs torch). The two models are written directly in torch (no transformers),
with a fixed seed, and exported with torch.onnx.export (the dynamo exporter) at opset 18 with dynamic
`batch` and `seq` dimensions:

- bert_tiny: a 2-layer BERT-style encoder. Word, position (positions made in the graph) and token-type
  embeddings, LayerNorm, 4-head self-attention with an additive padding mask from `attention_mask` and
  Softmax, an erf-GELU MLP, post-LayerNorm residuals, and a tanh pooler on the first token.
  Inputs input_ids, attention_mask: int64 [batch, seq]. Outputs last_hidden_state [batch, seq, 64],
  pooler_output [batch, 64].
- llama_tiny: a 2-layer Llama-style decoder. RMSNorm, rotary embeddings computed in the graph from the
  positions (Range, then Mul by the inverse frequencies, Cos and Sin), grouped-query attention (4 query
  heads, 2 key/value heads), a causal mask made in the graph from the positions, a SiLU-gated MLP, a final
  RMSNorm and the LM head. Input input_ids: int64 [batch, seq]. Output logits [batch, seq, 256].

Each model is checked with onnx.checker and run in onnxruntime against torch before it is written.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

OUT = Path(__file__).resolve().parents[2] / "testdata" / "models"
OPSET = 18
SEED = 20261201

VOCAB = 256
HIDDEN = 64
HEADS = 4
KV_HEADS = 2
HEAD_DIM = HIDDEN // HEADS
FFN = 128
LAYERS = 2
MAX_POS = 128


def _randomize(module: nn.Module) -> None:
    """Every parameter random (norm scales around 1, the rest around 0), so no weight is trivially 1 or 0."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            elif p.dim() == 1:
                p.copy_(0.05 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) / math.sqrt(p.shape[-1]))


# ---- BERT-style encoder -------------------------------------------------------------------------------


class BertLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(HIDDEN, HIDDEN)
        self.k = nn.Linear(HIDDEN, HIDDEN)
        self.v = nn.Linear(HIDDEN, HIDDEN)
        self.o = nn.Linear(HIDDEN, HIDDEN)
        self.attn_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.up = nn.Linear(HIDDEN, FFN)
        self.down = nn.Linear(FFN, HIDDEN)
        self.ffn_norm = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, x: torch.Tensor, mask_add: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q(x).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(x).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v(x).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM) + mask_add
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, HIDDEN)
        x = self.attn_norm(x + self.o(ctx))
        return self.ffn_norm(x + self.down(F.gelu(self.up(x))))


class BertTiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.word = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(MAX_POS, HIDDEN)
        self.token_type = nn.Embedding(2, HIDDEN)
        self.emb_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.pooler = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = input_ids.shape[1]
        positions = torch.arange(s, device=input_ids.device)
        x = self.word(input_ids) + self.pos(positions)[None] + self.token_type.weight[0]
        x = self.emb_norm(x)
        mask_add = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_add)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


# ---- Llama-style decoder ------------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(HIDDEN))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn_norm = RMSNorm()
        self.q = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.o = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.mlp_norm = RMSNorm()
        self.gate = nn.Linear(HIDDEN, FFN, bias=False)
        self.up = nn.Linear(HIDDEN, FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask_add: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(h).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v(h).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        rep = HEADS // KV_HEADS
        k = k[:, :, None].expand(b, KV_HEADS, rep, s, HEAD_DIM).reshape(b, HEADS, s, HEAD_DIM)
        v = v[:, :, None].expand(b, KV_HEADS, rep, s, HEAD_DIM).reshape(b, HEADS, s, HEAD_DIM)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM) + mask_add
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, HIDDEN)
        x = x + self.o(ctx)
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class LlamaTiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(LlamaLayer() for _ in range(LAYERS))
        self.norm = RMSNorm()
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        s = input_ids.shape[1]
        positions = torch.arange(s, device=input_ids.device)
        freqs = positions[:, None].to(torch.float32) * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        causal = positions[None, :] > positions[:, None]
        mask_add = torch.where(causal, torch.finfo(torch.float32).min, 0.0)[None, None]
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask_add)
        return self.lm_head(self.norm(x))


# ---- export and check ---------------------------------------------------------------------------------


def _export(model: nn.Module, name: str, args: tuple[torch.Tensor, ...], input_names: list[str],
            output_names: list[str]) -> Path:
    model.eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    seq = torch.export.Dim("seq", min=2, max=MAX_POS)
    dynamic_shapes = tuple({0: batch, 1: seq} for _ in args)
    path = export_checked(model, args, name, input_names, output_names, dynamic_shapes,
                          "tools/gen/make_test_models.py")
    _check_in_ort(model, path, input_names)
    return path


def export_checked(model: nn.Module, args: tuple[torch.Tensor, ...], name: str, input_names: list[str],
                   output_names: list[str], dynamic_shapes: tuple[dict[int, Any], ...], tool: str) -> Path:
    """Export (dynamo exporter, OPSET), strip the metadata, name the tool, check, write OUT/name.onnx."""
    path = OUT / f"{name}.onnx"
    program = torch.onnx.export(model, args, dynamo=True, opset_version=OPSET, input_names=input_names,
                                output_names=output_names, dynamic_shapes=dynamic_shapes, optimize=True,
                                external_data=False)
    assert program is not None
    proto = program.model_proto
    strip_metadata(proto)
    proto.producer_name = tool
    proto.doc_string = f"{name}: random weights (seed {SEED}), see {tool}"
    onnx.checker.check_model(proto, full_check=True)
    onnx.save(proto, str(path))
    return path


def strip_metadata(proto: onnx.ModelProto) -> None:
    """Drop the exporter's metadata (stack traces with this file's path and line numbers, FX node text), so
    the bytes depend on the model only."""
    g = proto.graph
    del g.metadata_props[:]
    for n in g.node:
        del n.metadata_props[:]
        n.doc_string = ""
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        del vi.metadata_props[:]
    for t in g.initializer:
        del t.metadata_props[:]
    del proto.metadata_props[:]


def _check_in_ort(model: nn.Module, path: Path, input_names: list[str]) -> None:
    """Run the exported model in onnxruntime at two shapes other than the export's, against torch."""
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for b, s in ((1, 1), (1, 5), (3, 17)):
        feeds = {"input_ids": rng.integers(0, VOCAB, size=(b, s), dtype=np.int64)}
        if "attention_mask" in input_names:
            mask = np.ones((b, s), dtype=np.int64)
            mask[-1, max(1, s - 2):] = 0
            feeds["attention_mask"] = mask
        got = sess.run(None, feeds)
        with torch.no_grad():
            want = model(*(torch.from_numpy(feeds[n]) for n in input_names))
        want = want if isinstance(want, tuple) else (want,)
        errs = []
        for g, w in zip(got, want):
            w = w.numpy()
            assert g.shape == w.shape, (path.name, g.shape, w.shape)
            err = float(np.max(np.abs(g - w)))
            assert err <= 1e-4 * max(1.0, float(np.max(np.abs(w)))), (path.name, b, s, err)
            errs.append(f"{err:.3g}")
        print(f"  {path.name}: onnxruntime vs torch at batch={b} seq={s}: max |diff| per output {errs}")


def check_one_input(net: nn.Module, path: Path, in_name: str, shapes: tuple[tuple[int, ...], ...]) -> None:
    """Run the exported model of one float input `in_name` in onnxruntime at each of `shapes` (standard normal
    values, seed 1) against torch: within 1e-4 of max(1, max |torch|)."""
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        (got,) = sess.run(None, {in_name: x})
        with torch.no_grad():
            want = net(torch.from_numpy(x)).numpy()
        err = float(np.max(np.abs(got - want)))
        scale = max(1.0, float(np.max(np.abs(want))))
        assert got.shape == want.shape and err <= 1e-4 * scale, (path.name, err)
        print(f"  {path.name}: onnxruntime vs torch at {shape}: max |diff| {err:.3g}")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    bert = BertTiny()
    _randomize(bert)
    ids = torch.randint(0, VOCAB, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 6:] = 0
    _export(bert, "bert_tiny", (ids, mask), ["input_ids", "attention_mask"],
            ["last_hidden_state", "pooler_output"])

    llama = LlamaTiny()
    _randomize(llama)
    _export(llama, "llama_tiny", (ids,), ["input_ids"], ["logits"])

    for p in sorted(OUT.glob("*.onnx")):
        m = onnx.load(str(p))
        ops = sorted({n.op_type for n in m.graph.node})
        print(f"wrote {p} ({p.stat().st_size} bytes, opset "
              f"{[o.version for o in m.opset_import if o.domain in ('', 'ai.onnx')]}): {', '.join(ops)}")


if __name__ == "__main__":
    main()
