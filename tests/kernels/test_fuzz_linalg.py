"""Fuzzer for the structured ops (MatMul, Gemm, Softmax, LogSoftmax, LayerNormalization, the Reduce ops):
random shapes (zero-size dimensions, tails past every tile and vector width, broadcast batches),
attributes and values (zeros of both signs, subnormals, infinities, NaNs, huge magnitudes) through the
library's node API on every kernel path, against tests/reference/reference_linalg.py, which follows
docs/exact-linalg.md and was written without reading the kernels.

Each drawn case checks: exact mode gives the same bits on every path; those bits are the reference's (NaN
payloads aside) and every exact-mode NaN is the canonical one; fast mode runs and gives the shape and type;
an invalid case (inner dimensions that differ, an axis out of range, a C that does not broadcast) is refused
with a NodeError naming the op, never a crash. Only the ops the op table serves are drawn, so an op that lands
is fuzzed from then on. tools/ci/sanitize.sh runs this file under ASan/UBSan.

    .venv/bin/python -m pytest tests/kernels/test_fuzz_linalg.py           # the seeded CI profile
    HYPOTHESIS_PROFILE=long FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/kernels/test_fuzz_linalg.py
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onemodel_ep
from onemodel_ep._lib import F_STRUCT
from onemodel_ep.node import Node, NodeError
from tests.nodes.movement_cases import CASES as MOVEMENT
from tests.reference import reference_linalg as ref
from tests.reference import reference_llm_norms as ref_llm

PATHS = onemodel_ep.kernel_paths()
# The structured rows this fuzzer draws: not the data-movement ones (Reshape ... Expand), which compute
# nothing and which tests/nodes/test_movement_ops.py checks against stock ORT over every type and opset.
# Not drawn here yet: rows whose own test checks them bit for bit against an independent reference (the
# issue-34/37 families; drawing them here is open work). Each test file must exist.
OWN_TESTS = {
    "Conv": "tests/nodes/test_conv_exact.py",
    "GlobalAveragePool": "tests/nodes/test_pool_bn.py",
    "GlobalMaxPool": "tests/nodes/test_pool_bn.py",
    "BatchNormalization": "tests/nodes/test_pool_bn.py",
    "MatMulInteger": "tests/nodes/test_quant_matmul_integer.py",
    "Range": "tests/nodes/test_movement_b.py",
    "Size": "tests/nodes/test_movement_b.py",
    "Tile": "tests/nodes/test_movement_b.py",
    "com.microsoft.MatMulNBits": "tests/nodes/test_matmul_nbits.py",
    "Split": "tests/nodes/test_movement_split.py",
    "Trilu": "tests/nodes/test_movement_trilu.py",
    "NonZero": "tests/nodes/test_nonzero.py",
    "OneHot": "tests/nodes/test_one_hot.py",
    "ConstantOfShape": "tests/nodes/test_constant_of_shape.py",
    "CumSum": "tests/nodes/test_cumsum.py",
    "LpNormalization": "tests/nodes/test_stat_norm.py",
    "Shrink": "tests/nodes/test_shrink.py",
    "LRN": "tests/nodes/test_lrn.py",
    "Einsum": "tests/nodes/test_einsum.py",
    "LpPool": "tests/nodes/test_lp_pool.py",
    "GlobalLpPool": "tests/nodes/test_lp_pool.py",
    "MeanVarianceNormalization": "tests/nodes/test_stat_norm.py",
    "DepthToSpace": "tests/nodes/test_movement_depth_space.py",
    "SpaceToDepth": "tests/nodes/test_movement_depth_space.py",
    "GatherElements": "tests/nodes/test_movement_gather_nd.py",
    "GatherND": "tests/nodes/test_movement_gather_nd.py",
    "ScatterElements": "tests/nodes/test_movement_scatter.py",
    "ScatterND": "tests/nodes/test_movement_scatter.py",
    "MaxPool": "tests/nodes/test_window_pool_exact.py",
    "AveragePool": "tests/nodes/test_window_pool_exact.py",
    "Pad": "tests/nodes/test_pad.py",
    "ArgMax": "tests/nodes/test_argminmax.py",
    "ArgMin": "tests/nodes/test_argminmax.py",
    "TopK": "tests/nodes/test_topk.py",
    "QuantizeLinear": "tests/nodes/test_quant_qdq.py",
    "DequantizeLinear": "tests/nodes/test_quant_qdq.py",
    "DynamicQuantizeLinear": "tests/nodes/test_quant_qdq.py",
    "com.microsoft.QuantizeLinear": "tests/nodes/test_quant_qdq.py",
    "com.microsoft.DequantizeLinear": "tests/nodes/test_quant_qdq.py",
    "com.microsoft.GroupQueryAttention": "tests/nodes/test_gqa_node.py",
    "com.microsoft.MultiHeadAttention": "tests/nodes/test_mha.py",
    "com.microsoft.Attention": "tests/nodes/test_mha.py",
    "Attention": "tests/nodes/test_onnx_attention.py",
    "com.microsoft.EmbedLayerNormalization": "tests/nodes/test_embed_layernorm.py",
    "com.microsoft.GatherBlockQuantized": "tests/nodes/test_gather_block_quantized.py",
    "com.microsoft.MatMulIntegerToFloat": "tests/nodes/test_quant_matmul_float.py",
    "com.microsoft.DynamicQuantizeMatMul": "tests/nodes/test_quant_matmul_float.py",
    "QLinearMatMul": "tests/nodes/test_quant_matmul_float.py",
    "com.microsoft.QGemm": "tests/nodes/test_qgemm.py",
    "InstanceNormalization": "tests/nodes/test_groupnorm.py",
    "GroupNormalization": "tests/nodes/test_groupnorm.py",
    "ConvTranspose": "tests/nodes/test_conv_transpose.py",
    "Resize": "tests/nodes/test_resize.py",
    "Upsample": "tests/nodes/test_resize.py",
    "LSTM": "tests/nodes/test_rnn_node.py",
    "GRU": "tests/nodes/test_rnn_node.py",
    "RNN": "tests/nodes/test_rnn_activations.py",
    "Hardmax": "tests/nodes/test_hardmax.py",
    "Dropout": "tests/nodes/test_dropout.py",
    "RotaryEmbedding": "tests/nodes/test_rotary.py",
    "com.microsoft.RotaryEmbedding": "tests/nodes/test_rotary.py",
    "com.microsoft.Gelu": "tests/nodes/test_gelu_family.py",
    "com.microsoft.BiasGelu": "tests/nodes/test_gelu_family.py",
    "com.microsoft.BiasSoftmax": "tests/nodes/test_bias_softmax.py",
    "com.microsoft.FastGelu": "tests/nodes/test_gelu_family.py",
    "com.microsoft.QuickGelu": "tests/nodes/test_gelu_family.py",
    "com.microsoft.FusedMatMul": "tests/nodes/test_fused_matmul.py",
    "com.microsoft.QLinearAdd": "tests/nodes/test_qlinear_eltwise.py",
    "com.microsoft.QLinearMul": "tests/nodes/test_qlinear_eltwise.py",
    "com.microsoft.QLinearSigmoid": "tests/nodes/test_qlinear_eltwise.py",
    "com.microsoft.QLinearLeakyRelu": "tests/nodes/test_qlinear_eltwise.py",
    "com.microsoft.QLinearGlobalAveragePool": "tests/nodes/test_qlinear_pool_concat.py",
    "com.microsoft.QLinearConcat": "tests/nodes/test_qlinear_pool_concat.py",
    "com.microsoft.QLinearAveragePool": "tests/nodes/test_qlinear_avg_pool.py",
    "com.microsoft.QLinearSoftmax": "tests/nodes/test_qlinear_softmax.py",
    "ConvInteger": "tests/nodes/test_qconv.py",
    "QLinearConv": "tests/nodes/test_qconv.py",
}
STRUCT = {op: info for op, info in onemodel_ep.op_table().items()
          if info.flags & F_STRUCT and op not in MOVEMENT and op not in OWN_TESTS}
SANITIZE = bool(os.environ.get("ONEMODEL_SANITIZE"))

F32, F16, F64, BF16, I32, I64 = 1, 10, 11, 16, 6, 7
DTYPE = {F32: ref.F32, F16: ref.F16, F64: ref.F64, BF16: ref.BF16, I32: np.dtype(np.int32),
         I64: np.dtype(np.int64), 2: np.dtype(np.uint8), 3: np.dtype(np.int8), 12: np.dtype(np.uint32),
         13: np.dtype(np.uint64)}
CANON = {ref.F32: 0x7FC00000, ref.F16: 0x7E00, ref.F64: 0x7FF8000000000000, ref.BF16: 0x7FC0}
SOFTMAX = ("Softmax", "LogSoftmax")
# The largest element counts: the reference's exp and log go through MPFR one distinct value at a time.
MAX_ELEMENTS = 1500
MAX_TRANSC = 400

_common: dict[str, Any] = dict(deadline=None, print_blob=True,
                               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("linalg-ci", max_examples=40 if SANITIZE else 250, derandomize=True, **_common)
settings.register_profile("linalg-long", max_examples=int(os.environ.get("FUZZ_EXAMPLES", "5000")), **_common)
_LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
PROFILE = settings.get_profile("linalg-long" if _LONG else "linalg-ci")


@dataclass
class Case:
    op: str
    types: list[int]
    inputs: list[np.ndarray | None]
    attrs: dict[str, Any] = field(default_factory=dict)
    opset: int = 0
    valid: bool = True  # False: the library must refuse it with a NodeError


# ---- values


def _edges(dt: np.dtype) -> np.ndarray:
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [0, 1, 2, 3, 7, int(info.max), int(info.min)] + ([-1, -7] if dt.kind == "i" else [])
        return np.array(vals, dtype=object).astype(dt)
    fi = ml_finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float(fi.max), -float(fi.max), float(fi.tiny),
            -float(fi.smallest_subnormal), np.inf, -np.inf, np.nan, 100.0, -88.5, 1e30]
    with np.errstate(all="ignore"):
        return np.array(vals, dtype=np.float64).astype(dt)


def ml_finfo(dt: np.dtype) -> Any:
    import ml_dtypes

    return ml_dtypes.finfo(dt) if dt == ref.BF16 else np.finfo(dt)


def _values(rng: np.random.Generator, dt: np.dtype, shape: tuple[int, ...], edge_p: float) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (int(info.min), int(info.max)) if rng.random() < 0.3 else (-20 if dt.kind == "i" else 0, 20)
        x = rng.integers(lo, hi, size=n, endpoint=True, dtype=dt)
    else:
        scale = 10.0 ** float(rng.integers(-2, 3))
        with np.errstate(all="ignore"):
            x = (rng.standard_normal(n) * scale).astype(dt)
    edges = _edges(dt)
    pick = rng.random(n) < edge_p
    x[pick] = edges[rng.integers(0, len(edges), size=int(pick.sum()))]
    return x.reshape(shape)


# ---- drawing

DIMS = [0, 1, 1, 2, 3, 5, 7, 16, 17, 33]
MM_DIMS = [0, 1, 2, 3, 6, 7, 13, 17, 31, 64, 65, 70]


def _float_types(op: str) -> list[int]:
    return sorted(t for t in STRUCT[op].input0_types if t in (F32, F16, F64, BF16))


@st.composite
def _matmul(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    t = draw(st.sampled_from(_float_types("MatMul")))
    dt = DTYPE[t]
    m, k, n = (draw(st.sampled_from(MM_DIMS)) for _ in range(3))
    batch = tuple(draw(st.sampled_from([1, 2, 3])) for _ in range(draw(st.integers(0, 2))))
    a_shape: tuple[int, ...] = batch + (m, k)
    b_batch = tuple(1 if draw(st.booleans()) else d for d in batch)[draw(st.integers(0, len(batch))):]
    b_shape: tuple[int, ...] = b_batch + (k, n)
    if draw(st.integers(0, 5)) == 0:
        a_shape = (k,)
    if draw(st.integers(0, 5)) == 0:
        b_shape = (k,)
    if draw(st.integers(0, 15)) == 0:  # inner dimensions that differ
        b_shape = b_shape[:-2] + (k + 1, b_shape[-1]) if len(b_shape) >= 2 else (k + 1,)
    while np.prod(a_shape) + np.prod(b_shape) > 2 * MAX_ELEMENTS:
        a_shape = tuple(max(d // 2, 1) for d in a_shape)
        b_shape = tuple(max(d // 2, 1) for d in b_shape)
    valid = a_shape[-1] == (b_shape[-2] if len(b_shape) >= 2 else b_shape[0])
    return Case("MatMul", [t, t], [_values(rng, dt, a_shape, edge_p), _values(rng, dt, b_shape, edge_p)],
                opset=13, valid=valid)


@st.composite
def _gemm(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    t = draw(st.sampled_from(_float_types("Gemm")))
    dt = DTYPE[t]
    m, k, n = (draw(st.sampled_from(MM_DIMS[:-2])) for _ in range(3))
    ta, tb = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    a = _values(rng, dt, (k, m) if ta else (m, k), edge_p)
    b = _values(rng, dt, (n, k) if tb else (k, n), edge_p)
    c_shape = draw(st.sampled_from([None, (), (n,), (1, n), (m, 1), (m, n), (1, 1)]))
    valid = True
    if draw(st.integers(0, 15)) == 0:  # a C that does not broadcast to [M, N]
        c_shape, valid = (m + 1, n + 2), False
    attrs: dict[str, Any] = {"transA": ta, "transB": tb}
    if draw(st.booleans()):
        attrs["alpha"] = float(np.float32(draw(st.sampled_from([0.5, -1.0, 0.0, -0.0, 3.0, 1e-3]))))
    if draw(st.booleans()):
        attrs["beta"] = float(np.float32(draw(st.sampled_from([0.5, -1.0, 0.0, 2.0]))))
    inputs: list[np.ndarray | None] = [a, b]
    types = [t, t]
    if c_shape is not None:
        inputs.append(_values(rng, dt, c_shape, edge_p))
        types.append(t)
    return Case("Gemm", types, inputs, attrs, opset=13, valid=valid)


def _shape(draw: st.DrawFn, lo_rank: int, limit: int) -> tuple[int, ...]:
    shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(draw(st.integers(lo_rank, 4))))
    while int(np.prod(shape, dtype=np.int64)) > limit:
        shape = tuple(max(d // 2, 1) for d in shape)
    return shape


@st.composite
def _softmax(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    op = draw(st.sampled_from([o for o in SOFTMAX if o in STRUCT]))
    t = draw(st.sampled_from(_float_types(op)))
    shape = _shape(draw, 1, MAX_TRANSC)
    r = len(shape)
    opset = draw(st.sampled_from([11, 13])) if t != BF16 else 13  # bfloat16 from opset 13
    axis = draw(st.integers(-r, r - 1))
    valid = True
    if draw(st.integers(0, 15)) == 0:
        axis, valid = r + draw(st.integers(0, 2)), False
    return Case(op, [t], [_values(rng, DTYPE[t], shape, edge_p)], {"axis": axis}, opset=opset, valid=valid)


RMS_OPS = ("SimplifiedLayerNormalization", "RMSNormalization")
SKIP_OPS = ("com.microsoft.SkipLayerNormalization", "com.microsoft.SkipSimplifiedLayerNormalization")


def _epsilon(draw: st.DrawFn, attrs: dict[str, Any]) -> dict[str, Any]:
    """attrs, with an epsilon attribute drawn half the time."""
    if draw(st.booleans()):
        attrs["epsilon"] = float(np.float32(draw(st.sampled_from([1e-5, 1e-12, 0.0, 0.5]))))
    return attrs


@st.composite
def _layernorm(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    """LayerNormalization and its RMS forms (SimplifiedLayerNormalization, RMSNormalization)."""
    op = draw(st.sampled_from([o for o in ("LayerNormalization", *RMS_OPS) if o in STRUCT]))
    t = draw(st.sampled_from(_float_types(op)))
    dt = DTYPE[t]
    shape = _shape(draw, 1, MAX_ELEMENTS)
    r = len(shape)
    axis = draw(st.integers(-r, r - 1))
    norm = shape[axis:]
    valid = True
    scale_shape = norm
    if draw(st.integers(0, 15)) == 0 and int(np.prod(norm)) > 1:
        scale_shape, valid = tuple(d + 1 for d in norm), False
    inputs: list[np.ndarray | None] = [_values(rng, dt, shape, edge_p), _values(rng, dt, scale_shape, edge_p)]
    if op == "LayerNormalization" and draw(st.booleans()):
        inputs.append(_values(rng, dt, norm, edge_p))
    opset = {"LayerNormalization": 17, "RMSNormalization": 23}.get(op, 1)
    return Case(op, [t] * len(inputs), inputs, _epsilon(draw, {"axis": axis}), opset=opset, valid=valid)


@st.composite
def _skip(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    op = draw(st.sampled_from([o for o in SKIP_OPS if o in STRUCT]))
    t = draw(st.sampled_from(_float_types(op)))
    dt = DTYPE[t]
    shape = _shape(draw, 1, MAX_ELEMENTS)
    h = shape[-1]
    skip_shape = (1,) * draw(st.integers(0, 1)) + shape[draw(st.integers(0, len(shape) - 1)):]
    valid = True
    gamma_shape = (h,)
    if draw(st.integers(0, 15)) == 0:
        gamma_shape, valid = (h + 1,), False
    inputs: list[np.ndarray | None] = [_values(rng, dt, shape, edge_p), _values(rng, dt, skip_shape, edge_p),
                                       _values(rng, dt, gamma_shape, edge_p)]
    for _ in range(draw(st.integers(0, 2 if op == SKIP_OPS[0] else 1))):  # beta, bias / bias
        inputs.append(_values(rng, dt, (h,), edge_p))
    return Case(op, [t] * len(inputs), inputs, _epsilon(draw, {}), opset=1, valid=valid)


@st.composite
def _reduce(draw: st.DrawFn, rng: np.random.Generator, edge_p: float) -> Case:
    op = draw(st.sampled_from(sorted(o for o in ref.REDUCE_OPS if o in STRUCT)))
    types = sorted(t for t in STRUCT[op].input0_types if t in DTYPE
                   and (DTYPE[t].kind == "f" or t == BF16 or op in ref.REDUCE_INTEGER))
    t = draw(st.sampled_from(types))
    transc = op in ref.REDUCE_TRANSCENDENTAL
    shape = _shape(draw, 0, MAX_TRANSC if transc else MAX_ELEMENTS)
    r = len(shape)
    axes = sorted(draw(st.sets(st.integers(0, r - 1), max_size=r))) if r else []
    axes = [a - r if draw(st.booleans()) else a for a in axes]
    # axes as an input from opset 13 (ReduceSum) or 18; as an attribute before (bf16 needs opset 13)
    as_input = draw(st.booleans()) or (op == "ReduceSum" and t == BF16)
    opset = (13 if op == "ReduceSum" else 18) if as_input else (11 if op == "ReduceSum" else 13)
    attrs: dict[str, Any] = {"keepdims": draw(st.integers(0, 1))}
    noop = 0
    if as_input and draw(st.booleans()):
        noop = draw(st.integers(0, 1))
        attrs["noop_with_empty_axes"] = noop
    valid = True
    if r and draw(st.integers(0, 15)) == 0:
        axes, valid = axes + [r + draw(st.integers(0, 2))], False
    x = _values(rng, DTYPE[t], shape, edge_p)
    if as_input:
        give_axes = bool(axes) or draw(st.booleans())  # empty axes: an empty tensor or no input at all
        if give_axes:
            return Case(op, [t, I64], [x, np.array(axes, dtype=np.int64)], attrs, opset=opset, valid=valid)
        return Case(op, [t], [x], attrs, opset=opset, valid=valid)
    if axes or draw(st.booleans()):
        attrs["axes"] = axes
    return Case(op, [t], [x], attrs, opset=opset, valid=valid)


FAMILIES = [("MatMul", _matmul), ("Gemm", _gemm), ("Softmax", _softmax), ("LogSoftmax", _softmax),
            ("LayerNormalization", _layernorm)] + [(o, _reduce) for o in ref.REDUCE_OPS] + \
    [(o, _layernorm) for o in RMS_OPS] + [(o, _skip) for o in SKIP_OPS]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    served = sorted({fn.__name__: fn for op, fn in FAMILIES if op in STRUCT}.items())
    fn = draw(st.sampled_from([f for _, f in served]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    edge_p = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
    return draw(fn(rng, edge_p))


# ---- the reference


def _reference(c: Case) -> list[np.ndarray] | None:
    """The outputs docs/exact-linalg.md defines, or None where the comparison is not bit for bit."""
    x = c.inputs[0]
    assert x is not None
    if c.op == "MatMul":
        return [ref.matmul(x, c.inputs[1])]
    if c.op == "Gemm":
        return [ref.gemm(x, c.inputs[1], c.inputs[2] if len(c.inputs) > 2 else None,
                         alpha=c.attrs.get("alpha", 1.0), beta=c.attrs.get("beta", 1.0),
                         trans_a=c.attrs["transA"], trans_b=c.attrs["transB"])]
    if c.op in SOFTMAX:
        if x.dtype == ref.F64:
            return None  # f64 exp/log are not correctly rounded: compared within a bound below
        fn = ref.softmax if c.op == "Softmax" else ref.log_softmax
        return [fn(x, axis=c.attrs["axis"], opset=c.opset)]
    if c.op == "LayerNormalization":
        y, mean, inv = ref.layer_norm(x, c.inputs[1], c.inputs[2] if len(c.inputs) > 2 else None,
                                      axis=c.attrs["axis"], epsilon=c.attrs.get("epsilon", 1e-5))
        # Mean and InvStdDev are float (stash_type 1): the type-A values rounded once (docs/exact-linalg.md)
        return [y, mean.astype(np.float32), inv.astype(np.float32)]
    if c.op in RMS_OPS:
        y, inv = ref_llm.rms_norm(x, c.inputs[1], axis=c.attrs["axis"], epsilon=c.attrs.get("epsilon", 1e-5))
        return [y, inv.astype(np.float32)] if c.op == "SimplifiedLayerNormalization" else [y]
    if c.op in SKIP_OPS:
        simplified = c.op == SKIP_OPS[1]
        opt = list(c.inputs[3:])
        beta = None if simplified or not opt else opt[0]
        bias = (opt[0] if opt else None) if simplified else (opt[1] if len(opt) > 1 else None)
        return list(ref_llm.skip_layer_norm(x, c.inputs[1], c.inputs[2], beta, bias,
                                            epsilon=c.attrs.get("epsilon", 1e-12), simplified=simplified))
    # Reduce
    if len(c.inputs) > 1:
        axes: list[int] = [int(a) for a in np.asarray(c.inputs[1])]
    else:
        axes = list(c.attrs.get("axes", []))
    if c.op in ref.REDUCE_TRANSCENDENTAL and x.dtype == ref.F64:
        return None
    if not axes and c.attrs.get("noop_with_empty_axes", 0):
        # No axis reduced: each element is the reduction of its one-element set (docs/reductions.md).
        return [ref.reduce(c.op, x[..., np.newaxis], [x.ndim], keepdims=0)]
    r = x.ndim
    reduced = {a + r if a < 0 else a for a in (axes or range(r))}
    n = int(np.prod([x.shape[a] for a in reduced], dtype=np.int64))
    if n == 0 and (c.op in ("ReduceMax", "ReduceMin", "ReduceLogSumExp")
                   or (c.op == "ReduceMean" and x.dtype.kind in "iu")):
        return None  # the empty-set value: docs/reductions.md, tested in tests/nodes/test_reduce_node.py
    return [ref.reduce(c.op, x, axes or None, keepdims=c.attrs["keepdims"])]


# ---- running


def _run(c: Case, mode: str, path: str) -> list[np.ndarray]:
    node = Node(c.op, c.types, onnx_opset=c.opset, attributes=c.attrs, mode=mode, kernel_path=path,
                name="fuzz")
    return node.run_outputs(*c.inputs, n_outputs=STRUCT[c.op].max_outputs)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


def run_case(c: Case) -> None:
    label = (f"{c.op} opset {c.opset} types {c.types} attrs {c.attrs} shapes "
             f"{[None if x is None else x.shape for x in c.inputs]}")
    if not c.valid:
        for path in PATHS:
            with pytest.raises(NodeError, match=c.op.rsplit(".", 1)[-1]):
                _run(c, "exact", path)
        return
    first: list[np.ndarray] | None = None
    for path in PATHS:
        got = _run(c, "exact", path)
        if first is None:
            first = got
            continue
        for k, (g, f) in enumerate(zip(got, first, strict=True)):
            assert g.shape == f.shape and np.array_equal(_bits(g), _bits(f)), \
                f"{label}: output {k} on path {path} differs from path {PATHS[0]}"
    assert first is not None
    for k, g in enumerate(first):
        if g.dtype in CANON:
            nan = np.isnan(g.astype(np.float64))
            assert (_bits(g)[nan] == CANON[g.dtype]).all(), f"{label}: output {k}: a NaN not canonical"
    want = _reference(c)
    if want is None:  # f64 exp/log (not correctly rounded) and empty max/min: same bits on every path only
        return
    for k, (g, w) in enumerate(zip(first, want, strict=True)):
        same = ref.bits_equal(g, w)
        assert same.all(), (f"{label}: output {k}: {int((~same).sum())} of {same.size} differ from the "
                            f"reference; first at {np.argwhere(~same)[0].tolist()}: got "
                            f"{g[tuple(np.argwhere(~same)[0])]!r}, want {w[tuple(np.argwhere(~same)[0])]!r}")
    fast = _run(c, "fast", PATHS[-1])
    for k, (g, w) in enumerate(zip(fast, first, strict=True)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{label}: fast-mode output {k} shape/type"


@pytest.mark.skipif(not STRUCT, reason="the op table serves no structured op")
@settings(PROFILE)
@given(cases())
def test_fuzz_linalg(case: Case) -> None:
    run_case(case)


def test_every_structured_op_is_drawn() -> None:
    """A structured op in the op table that this fuzzer cannot draw would go unfuzzed: fail instead."""
    drawable = {op for op, _ in FAMILIES}
    assert set(STRUCT) <= drawable, f"no strategy for {sorted(set(STRUCT) - drawable)}"
    root = Path(__file__).resolve().parents[2]
    assert all((root / f).is_file() for f in OWN_TESTS.values()), OWN_TESTS
    assert set(OWN_TESTS) <= set(onemodel_ep.op_table()), sorted(set(OWN_TESTS) - set(onemodel_ep.op_table()))
