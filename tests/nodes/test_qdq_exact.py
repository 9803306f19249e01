"""QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear on OneModel's kernels, bit for bit against the
independent reference (tests/reference/qdq_docs_reference.py, written from docs/quantized.md alone).

Each case is a one-node model (scale and zero point initializers; or graph inputs, then on the default path
only) run through onemodel_ep.InferenceSession via the EP and the rewrite on every kernel path (and with 2
threads); the node must run on OneModel's kernels and every output must have the reference's bits (a NaN only
as 0x7FC00000). Cases: every served opset and domain, every element type, per tensor / per axis (negative axes
too) / blocked along every axis with tails, zero point absent or given, output_dtype; x with NaN, +-inf, +-0,
subnormals, exact ties, the saturation ends and past them; scales 0, -0, negative, NaN, inf, subnormal; int32
differences past 2^24 and 2^31; empty tensors. A test whose op is not in onemodel_ep.op_table() is skipped,
with the reason.

The reference itself is checked against ONNX's reference evaluator and float64 arithmetic (these tests run
without the kernels).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onemodel_ep
from tests.nodes.exact_runs import VIAS, run_every_path
from tests.reference.qdq_docs_reference import (
    RANGES,
    dequantize_linear,
    dynamic_quantize_linear,
    expand,
    quantize_elements,
    quantize_linear,
)

TABLE = onemodel_ep.op_table()
MS = "com.microsoft"
SEED = 20261203
U8, I8, U16, I16, I32 = (np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.int32))
F32 = np.dtype(np.float32)
ONNX_TYPE = {U8: TensorProto.UINT8, I8: TensorProto.INT8, U16: TensorProto.UINT16, I16: TensorProto.INT16,
             I32: TensorProto.INT32, F32: TensorProto.FLOAT}


def need(op: str, domain: str = "") -> None:
    key = op if domain == "" else f"{domain}.{op}"
    if key not in TABLE:
        pytest.skip(f"onemodel_ep does not serve {key}: it is not in onemodel_ep.op_table()")


@dataclass
class Node:
    """One node: its op, domain, opset, attributes, and its inputs (name -> array; None: absent)."""
    op: str
    domain: str
    opset: int
    inputs: list[tuple[str, np.ndarray | None]]
    out_types: list[np.dtype]
    attrs: dict[str, object] = field(default_factory=dict)


def make_model(node: Node, *, params_as_inputs: bool) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The one-node model: input 0 is a graph input; the others initializers (or graph inputs)."""
    names, graph_inputs, inits, feeds = [], [], [], {}
    for i, (name, value) in enumerate(node.inputs):
        if value is None:
            names.append("")
            continue
        names.append(name)
        if i == 0 or params_as_inputs:
            graph_inputs.append(helper.make_tensor_value_info(name, ONNX_TYPE[value.dtype],
                                                              list(value.shape)))
            feeds[name] = value
        else:
            inits.append(numpy_helper.from_array(value, name))
    outs = [f"y{i}" for i in range(len(node.out_types))]
    n = helper.make_node(node.op, names, outs, name="q", domain=node.domain, **node.attrs)
    graph = helper.make_graph([n], "g", graph_inputs,
                              [helper.make_tensor_value_info(o, ONNX_TYPE[t], None)
                               for o, t in zip(outs, node.out_types)], initializer=inits)
    opsets = [helper.make_opsetid("", node.opset if node.domain == "" else 19)]
    if node.domain:
        opsets.append(helper.make_opsetid(node.domain, node.opset))
    ir = 11 if node.opset >= 23 and node.domain == "" else 10 if node.opset >= 21 else 9
    return helper.make_model(graph, ir_version=ir, opset_imports=opsets), feeds


def check(node: Node, want: list[np.ndarray], what: str) -> None:
    need(node.op, node.domain)
    for params_as_inputs in (False, True):
        model, feeds = make_model(node, params_as_inputs=params_as_inputs)
        run_every_path(model, feeds, want, f"{what}, params as inputs {params_as_inputs}",
                       every_path=not params_as_inputs)


# ---- data -----------------------------------------------------------------------------------------------

def f32_bits(*bits: int) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


SPECIAL_X = np.concatenate([
    np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e10, -1e10, 3.4e38, -3.4e38], np.float32),
    f32_bits(0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x7FC00456, 0xFF800123, 0x7F800001),
    np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, 128.5, -128.5, 255.5, 254.5, 32767.5, -32768.5,
              65534.5, 4194303.5, 8388607.0, 16777216.0], np.float32),
])


def x_data(rng: np.random.Generator, shape: tuple[int, ...], out: np.dtype, s: float) -> np.ndarray:
    """Random x spanning a little past y's range (in units of the scale), ties, then the specials."""
    qmin, qmax = RANGES[out]
    width = (qmax - qmin) * 0.6
    q = rng.uniform(-width, width, shape)
    ties = rng.random(shape) < 0.25
    q = np.where(ties, np.floor(q) + 0.5, q)
    with np.errstate(over="ignore"):  # a huge scale: x past the f32 range is infinite, as wanted
        x = np.asarray(q * abs(s) if np.isfinite(s) and s != 0 else q, np.float32)
    flat = x.reshape(-1)
    n = min(flat.size, SPECIAL_X.size)
    if n:
        pos = rng.choice(flat.size, n, replace=False)
        with np.errstate(all="ignore"):  # the specials times the scale may overflow: that is wanted
            flat[pos] = SPECIAL_X[:n] * np.float32(abs(s) if np.isfinite(s) and abs(s) >= 2 ** -100 else 1.0)
    return x


def int_data(rng: np.random.Generator, shape: tuple[int, ...], t: np.dtype) -> np.ndarray:
    info = np.iinfo(t)
    v = rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)
    if v.size >= 2:
        v.flat[:2] = [info.min, info.max]
    return v


def param_shape(shape: tuple[int, ...], axis: int, block: int, form: str) -> tuple[int, ...]:
    a = axis % len(shape) if shape else 0
    if form == "tensor":
        return ()
    if form == "tensor1":
        return (1,)
    if form == "axis":
        return (shape[a],)
    blocked = list(shape)
    blocked[a] = -(-shape[a] // block)
    return tuple(blocked)


def scales(rng: np.random.Generator, shape: tuple[int, ...], specials: bool) -> np.ndarray:
    """Positive scales of many sizes (powers of two among them, for exact ties); with specials, the first ones
    are 0, -0, negative, NaN, inf, subnormal, huge."""
    s = (2.0 ** rng.integers(-6, 4, shape) * np.where(rng.random(shape) < 0.5, 1.0, rng.uniform(0.5, 1.5,
                                                                                               shape)))
    s = np.asarray(s, np.float32)
    if specials and s.size:
        extra = np.array([0.0, -0.0, -0.37, np.nan, np.inf, 1e-40, 3e38, -np.inf], np.float32)
        k = min(s.size, extra.size)
        s.reshape(-1)[:k] = extra[:k]
    return s


# ---- QuantizeLinear -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QCase:
    name: str
    shape: tuple[int, ...]
    form: str  # tensor, tensor1, axis, block
    axis: int = 1
    block: int = 0


Q_CASES = [
    QCase("tensor_scalar", (3, 37), "tensor"),
    QCase("tensor_1elem", (2, 3, 19), "tensor1"),
    QCase("tensor_rank0", (), "tensor"),
    QCase("tensor_empty", (0, 5), "tensor"),
    QCase("tensor_long_tail", (1031,), "tensor"),
    QCase("axis0", (7, 33), "axis", 0),
    QCase("axis1", (2, 9, 17), "axis", 1),
    QCase("axis_last_neg", (3, 5, 35), "axis", -1),
    QCase("axis_neg2", (4, 6, 3), "axis", -2),
    QCase("axis_empty", (3, 0, 4), "axis", 0),
    QCase("block_last_b2", (3, 11), "block", -1, 2),
    QCase("block_last_b16_tail", (2, 37), "block", 1, 16),
    QCase("block_axis0_b2", (11, 4), "block", 0, 2),
    QCase("block_mid_b3", (2, 10, 5), "block", 1, 3),
    QCase("block_mid_b4_neg", (3, 9, 7), "block", -2, 4),
    QCase("block_b1", (5, 6), "block", 0, 1),
    QCase("block_bigger_than_axis", (3, 5), "block", 1, 8),
    QCase("large_axis", (37, 2053), "axis", 0),
]


def q_node(case: QCase, x: np.ndarray, s: np.ndarray, z: np.ndarray | None, opset: int, domain: str = "",
           out: np.dtype | None = None, **extra: int) -> Node:
    """A QuantizeLinear node; `extra`: attributes that do not change the result (saturate, precision)."""
    attrs: dict[str, object] = dict(extra)
    if case.form in ("axis", "block") or (opset >= 13 and case.axis != 1):
        attrs["axis"] = case.axis
    if case.form == "block":
        attrs["block_size"] = case.block
    if out is not None:
        attrs["output_dtype"] = ONNX_TYPE[out]
    out_t = z.dtype if z is not None else out or U8
    return Node("QuantizeLinear", domain, opset, [("x", x), ("s", s), ("z", z)], [out_t], attrs)


def q_data(case: QCase, out: np.dtype, seed: int, specials: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = scales(rng, param_shape(case.shape, case.axis, case.block, case.form), specials)
    rep = float(np.nan_to_num(s.reshape(-1)[-1], nan=1.0)) if s.size else 1.0
    x = x_data(rng, case.shape, out, rep)
    z = int_data(rng, s.shape, out)
    return x, s, z


def allowed_forms(opset: int, domain: str) -> set[str]:
    if domain == MS or opset >= 21:
        return {"tensor", "tensor1", "axis"} | ({"block"} if domain == "" else set())
    return {"tensor", "tensor1"} | ({"axis"} if opset >= 13 else set())


def q_opsets(out: np.dtype) -> list[tuple[int, str]]:
    base = [(21, ""), (23, ""), (1, MS)]
    return base if out in (U16, I16) else [(10, ""), (13, ""), (19, "")] + base


@pytest.mark.parametrize("out", [U8, I8, U16, I16], ids=str)
@pytest.mark.parametrize("case", Q_CASES, ids=lambda c: c.name)
def test_quantize_linear_bit_for_bit(case: QCase, out: np.dtype) -> None:
    for k, (opset, domain) in enumerate(q_opsets(out)):
        if case.form not in allowed_forms(opset, domain):
            continue
        x, s, z = q_data(case, out, SEED + k, specials=(k % 2 == 0))
        want = quantize_linear(x, s, z, axis=case.axis, block_size=case.block)
        extra = {"precision": TensorProto.FLOAT} if opset == 23 else {"saturate": 0} if opset == 19 else {}
        check(q_node(case, x, s, z, opset, domain, **extra), [want],
              f"{case.name} {out} opset {domain or 'ai.onnx'}:{opset}")


@pytest.mark.parametrize("opset,out", [(10, None), (13, None), (19, None), (21, None), (21, I8), (21, U16),
                                       (21, I16), (23, I8), (23, U8)])
def test_quantize_linear_without_zero_point(opset: int, out: np.dtype | None) -> None:
    """No zero point: y uint8, or output_dtype's type (opset 21+), z = 0."""
    case = QCase("tensor", (4, 29), "tensor")
    x, s, _ = q_data(case, out or U8, SEED + opset, specials=False)
    want = quantize_linear(x, s, None, out=out)
    check(q_node(case, x, s, None, opset, out=out), [want], f"no zero point, opset {opset}, output {out}")


@pytest.mark.parametrize("s", [0.0, -0.0, -0.37, np.nan, np.inf, -np.inf, 1e-40, 2.0 ** -149, 3e38],
                         ids=lambda v: repr(float(v)))
def test_quantize_linear_special_scales(s: float) -> None:
    """One scale for every special x: 0 and -0 (x / 0 is +-inf, 0 / 0 NaN), negative, NaN, inf, subnormal."""
    x = np.concatenate([SPECIAL_X, np.array([1.0, -1.0, 3e-39, -7.5, 200.0], np.float32)])
    for out in (U8, I8, U16, I16):
        z = np.array(RANGES[out][0] + 3, out)
        want = quantize_linear(x, np.array(s, np.float32), z)
        check(q_node(QCase("t", x.shape, "tensor"), x, np.array(s, np.float32), z, 21), [want],
              f"scale {s!r} {out}")


def test_quantize_linear_saturation_ends() -> None:
    """z at both ends of the range: lo or hi is 0 and the other the whole width (|lo|, |hi| up to 65535)."""
    x = np.concatenate([SPECIAL_X, np.linspace(-70000, 70000, 97, dtype=np.float32)])
    for out in (U8, I8, U16, I16):
        qmin, qmax = RANGES[out]
        for zv in (qmin, qmax):
            z = np.array(zv, out)
            want = quantize_linear(x, np.array(1.0, np.float32), z)
            for saturate in (0, 1):
                check(q_node(QCase("t", x.shape, "tensor"), x, np.array(1.0, np.float32), z, 21,
                             saturate=saturate), [want], f"z = {zv} {out} saturate {saturate}")


# ---- DequantizeLinear -----------------------------------------------------------------------------------

def dq_node(case: QCase, x: np.ndarray, s: np.ndarray, z: np.ndarray | None, opset: int,
            domain: str = "", **extra: int) -> Node:
    """A DequantizeLinear node; `extra`: attributes that do not change the result (output_dtype float)."""
    attrs: dict[str, object] = dict(extra)
    if case.form in ("axis", "block") or (opset >= 13 and case.axis != 1):
        attrs["axis"] = case.axis
    if case.form == "block":
        attrs["block_size"] = case.block
    return Node("DequantizeLinear", domain, opset, [("x", x), ("s", s), ("z", z)], [F32], attrs)


def dq_opsets(t: np.dtype) -> list[tuple[int, str]]:
    base = [(21, ""), (23, ""), (1, MS)]
    return base if t in (U16, I16) else [(10, ""), (13, ""), (19, "")] + base


@pytest.mark.parametrize("t", [U8, I8, U16, I16, I32], ids=str)
@pytest.mark.parametrize("case", Q_CASES, ids=lambda c: c.name)
def test_dequantize_linear_bit_for_bit(case: QCase, t: np.dtype) -> None:
    for k, (opset, domain) in enumerate(dq_opsets(t)):
        if case.form not in allowed_forms(opset, domain):
            continue
        rng = np.random.default_rng(SEED + 100 + k)
        s = scales(rng, param_shape(case.shape, case.axis, case.block, case.form), specials=k % 2 == 0)
        x = int_data(rng, case.shape, t)
        z = None if k % 3 == 2 else int_data(rng, s.shape, t)
        want = dequantize_linear(x, s, z, axis=case.axis, block_size=case.block)
        extra = {"output_dtype": TensorProto.FLOAT} if opset == 23 else {}
        check(dq_node(case, x, s, z, opset, domain, **extra), [want],
              f"{case.name} {t} opset {domain or 'ai.onnx'}:{opset}")


def test_dequantize_linear_int32_past_2_24_and_2_31() -> None:
    """int32 x - z beyond 2^24 (one rounding to f32) and beyond int32 (exact in 64 bits: no wrap)."""
    i32 = np.iinfo(np.int32)
    x = np.array([i32.max, i32.min, 16777217, -16777217, 16777219, 0, 1, -1, 33554435, 2**30 + 3], np.int32)
    for zv in (i32.min, i32.max, -3, 0, 5):
        for s in (1.0, -1.0, 0.5, 3e38, 1e-45, np.nan, 0.0):
            z, sa = np.array(zv, np.int32), np.array(s, np.float32)
            want = dequantize_linear(x, sa, z)
            check(dq_node(QCase("t", x.shape, "tensor"), x, sa, z, 13), [want], f"int32 z = {zv}, s = {s}")


def test_dequantize_linear_signed_zero() -> None:
    """d = 0: +0 * s, so -0 for a negative scale and for s = -0."""
    x = np.array([7, 7, 7, 7, 3], np.int8)
    for s in (2.0, -2.0, 0.0, -0.0, np.inf):
        sa = np.array(s, np.float32)
        want = dequantize_linear(x, sa, np.array(7, np.int8))
        check(dq_node(QCase("t", x.shape, "tensor"), x, sa, np.array(7, np.int8), 19), [want], f"s = {s}")


# ---- DynamicQuantizeLinear ------------------------------------------------------------------------------

def dyn_cases() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(SEED + 7)
    f = np.float32
    return [
        ("random", rng.normal(0, 3, (5, 67)).astype(f)),
        ("positive", rng.uniform(0.5, 9, (3, 33)).astype(f)),
        ("negative", rng.uniform(-9, -0.5, (2, 41)).astype(f)),
        ("tail", rng.normal(0, 1, (1037,)).astype(f)),
        ("all_zero", np.zeros((4, 5), f)),
        ("neg_zero", np.full((7,), -0.0, f)),
        ("all_nan", np.full((3, 3), np.nan, f)),
        ("empty", np.zeros((0, 4), f)),
        ("scalar", np.array(-2.5, f)),
        ("with_nan", np.where(rng.random((4, 19)) < 0.2, np.nan, rng.normal(0, 1, (4, 19))).astype(f)),
        ("with_inf", np.concatenate([rng.normal(0, 1, 20), [np.inf]]).astype(f)),
        ("with_neg_inf", np.concatenate([rng.normal(0, 1, 20), [-np.inf]]).astype(f)),
        ("both_inf", np.array([1.0, -np.inf, np.inf, 0.0], f)),
        ("huge_span", np.array([3e38, -3e38, 1.0, -1e38], f)),
        ("subnormal_neg", f32_bits(0x80000001, 0, 0x80000003)),
        ("subnormal_pos", f32_bits(0x00000001, 0x00000005)),
        ("subnormal_mixed", f32_bits(0x80000007, 0x00000009, 0x807FFFFF)),
        ("ties", np.array([-1.0, 254.0 / 255 * 0.5, 0.5, 1.0, 2.0, -0.5], f)),
        ("zp_tie", np.array([-0.5, 255 - 0.5], f)),
        ("payload_nan", np.concatenate([f32_bits(0xFFC00456, 0x7F800001), np.array([1.0, -3.0], f)])),
        ("large", np.where(rng.random((301, 263)) < 0.01, np.nan, rng.normal(0.3, 2, (301, 263))).astype(f)),
    ]


@pytest.mark.parametrize("name,x", dyn_cases(), ids=[c[0] for c in dyn_cases()])
def test_dynamic_quantize_linear_bit_for_bit(name: str, x: np.ndarray) -> None:
    y, ys, yz = dynamic_quantize_linear(x)
    check(Node("DynamicQuantizeLinear", "", 11, [("x", x)], [U8, F32, U8]), [y, ys, yz], name)


# ---- the reference against ONNX's reference evaluator and float64 ---------------------------------------

def onnx_eval(node: Node) -> list[np.ndarray]:
    model, feeds = make_model(node, params_as_inputs=False)
    return list(ReferenceEvaluator(model).run(None, feeds))


@pytest.mark.parametrize("out", [U8, I8, U16, I16], ids=str)
@pytest.mark.parametrize("case", [c for c in Q_CASES if c.shape != ()], ids=lambda c: c.name)
def test_reference_quantize_matches_onnx_on_finite_values(case: QCase, out: np.dtype) -> None:
    """Finite x and positive finite scales: ONNX's reference (np.rint(x / s) + z, clipped) gives the same
    integers; and every y is within 1 of the float64 formula (one binary32 rounding of x / s before the
    rounding to an integer), equal where the float64 quotient is not within an ulp of a half-integer."""
    x, s, z = q_data(case, out, SEED + 11, specials=False)
    x = np.clip(np.nan_to_num(x, nan=0.0, posinf=1e6, neginf=-1e6), -1e6, 1e6).astype(np.float32)
    want = quantize_linear(x, s, z, axis=case.axis, block_size=case.block)
    got = onnx_eval(q_node(case, x, s, z, 21))[0]
    assert got.dtype == want.dtype and np.array_equal(got, want)
    q64 = x.astype(np.float64) / expand(s, x.shape, case.axis, case.block).astype(np.float64)
    z64 = expand(z, x.shape, case.axis, case.block).astype(np.float64)
    exact = np.clip(np.rint(q64) + z64, *RANGES[out])
    assert np.all(np.abs(want.astype(np.float64) - exact) <= 1)
    far = np.abs(np.abs(q64 - np.floor(q64)) - 0.5) > np.abs(q64) * 2.0 ** -23  # past an ulp of the quotient
    assert np.array_equal(want[far].astype(np.float64), exact[far])


def stock_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(sess.run(None, feeds))


def test_reference_quantize_specials_by_the_doc() -> None:
    """The doc's sentences: NaN x, 0 / 0 and a NaN scale give qmin; +inf hi, -inf lo; scale 0: +-inf."""
    x = np.array([np.nan, np.inf, -np.inf, 0.0, 2.0, -2.0], np.float32)
    y = quantize_linear(x, np.array(0.0, np.float32), np.array(10, np.int8))
    assert y.tolist() == [-128, 127, -128, -128, 127, -128]
    y = quantize_linear(x, np.array(np.nan, np.float32), np.array(10, np.uint8))
    assert y.tolist() == [0] * 6


def test_reference_rint_is_the_kernels_add_and_subtract() -> None:
    """Step 3 in the reference (np.rint) is the doc's (c + 1.5 * 2^23) - 1.5 * 2^23 on every c that step 2
    can produce (|c| <= 131071): all integers and half-integers there, and random values."""
    rng = np.random.default_rng(SEED + 12)
    c = np.concatenate([np.arange(-131071 * 2, 131071 * 2 + 1) / 2.0, rng.uniform(-131071, 131071, 100000),
                        [-0.0, 2.0 ** -149, -(2.0 ** -149), 0.49999997, -0.49999997]]).astype(np.float32)
    magic = np.float32(12582912.0)
    assert np.array_equal(np.rint(c), (c + magic) - magic)


@pytest.mark.parametrize("t", [U8, I8, U16, I16, I32], ids=str)
@pytest.mark.parametrize("case", [c for c in Q_CASES if c.shape != ()], ids=lambda c: c.name)
def test_reference_dequantize_matches_onnx_and_float64(case: QCase, t: np.dtype) -> None:
    """Finite scales: the 8- and 16-bit types give ONNX's reference bits; every type is within half an ulp
    of y of float64's (x - z) * s (d exact) for |d| <= 2^24, otherwise within two roundings' relative error
    ((1 + 2^-24)^2 - 1)."""
    rng = np.random.default_rng(SEED + 13)
    s = scales(rng, param_shape(case.shape, case.axis, case.block, case.form), specials=False)
    x = int_data(rng, case.shape, t)
    z = int_data(rng, s.shape, t)
    want = dequantize_linear(x, s, z, axis=case.axis, block_size=case.block)
    if t != I32:
        got = onnx_eval(dq_node(case, x, s, z, 21))[0]
        assert got.dtype == F32 and got.tobytes() == want.tobytes()
    d = x.astype(np.int64) - expand(z, x.shape, case.axis, case.block).astype(np.int64)
    exact = d.astype(np.float64) * expand(s, x.shape, case.axis, case.block).astype(np.float64)
    ulp = np.spacing(np.abs(want)).astype(np.float64)
    bound = np.where(np.abs(d) <= 2**24, 0.5 * ulp, (2.0 ** -23 + 2.0 ** -47) * np.abs(exact))
    assert np.all(np.abs(want.astype(np.float64) - exact) <= bound)


@pytest.mark.parametrize("name,x", dyn_cases(), ids=[c[0] for c in dyn_cases()])
def test_reference_dynamic_matches_onnx(name: str, x: np.ndarray) -> None:
    """ONNX's reference evaluator (np.max / np.min: only NaN-free finite x with a normal finite y_scale) gives
    the same y, y_scale and y_zero_point bits; the specials are checked against the doc's sentences."""
    y, ys, yz = dynamic_quantize_linear(x)
    assert y.shape == x.shape and ys.shape == () and yz.shape == ()
    normal_scale = np.isfinite(ys) and ys >= np.finfo(np.float32).tiny
    if x.size and np.isfinite(x).all() and normal_scale:  # ONNX's evaluator: no NaN, no degenerate scale
        got = onnx_eval(Node("DynamicQuantizeLinear", "", 11, [("x", x)], [U8, F32, U8]))
        for g, w in zip(got, (y, ys, yz)):
            assert g.dtype == w.dtype and g.tobytes() == w.tobytes(), name
    if name in ("all_zero", "neg_zero", "all_nan", "empty"):
        assert ys.view(np.uint32) == 0x3B808081 and yz == 0 and (y == 0).all()
    if name in ("with_neg_inf", "subnormal_neg"):  # mn / y_scale is NaN or -inf: t is NaN or +inf, zf 255
        assert yz == 255
    if name == "huge_span":  # mx - mn overflows: y_scale +inf, mn / inf = -0, zero point 0
        assert np.isinf(ys) and yz == 0
    expect = quantize_elements(x, np.full(x.shape, ys), np.full(x.shape, int(yz)), U8)
    assert np.array_equal(y, expect)


@pytest.mark.parametrize("out", [U8, I8, U16, I16], ids=str)
@pytest.mark.parametrize("case", [c for c in Q_CASES if c.form != "block" or c.axis in (-1, len(c.shape) - 1)
                                  ], ids=lambda c: c.name)
def test_reference_quantize_matches_stock_ort(case: QCase, out: np.dtype) -> None:
    """The doc: "for per-tensor, per-axis and blocked-along-the-last-axis QuantizeLinear stock gives our bits"
    (ONNX Runtime 1.31.1, opset 21), the specials included."""
    x, s, z = q_data(case, out, SEED + 14, specials=True)
    node = q_node(case, x, s, z, 21)
    model, feeds = make_model(node, params_as_inputs=False)
    stock = stock_run(model, feeds)
    want = quantize_linear(x, s, z, axis=case.axis, block_size=case.block)
    assert stock[0].dtype == want.dtype and stock[0].tobytes() == want.tobytes()


def test_reference_blocked_axis0_differs_from_stock_as_documented() -> None:
    """The doc's example: x = 1e10 (or +inf), s = 1, z = 0, uint8, block_size 2, axis 0, x of shape [11, 4]:
    stock ORT 1.31.1 gives 0, ONNX's formula and the reference 255."""
    x = np.full((11, 4), 1e10, np.float32)
    x[5, 2] = np.inf
    s = np.ones((6, 4), np.float32)
    z = np.zeros((6, 4), np.uint8)
    case = QCase("doc", x.shape, "block", 0, 2)
    want = quantize_linear(x, s, z, axis=0, block_size=2)
    assert (want == 255).all()
    model, feeds = make_model(q_node(case, x, s, z, 21), params_as_inputs=False)
    stock = stock_run(model, feeds)
    assert (stock[0] == 0).all()


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
def test_zero_point_of_another_shape_is_an_error_naming_node_and_op(op: str) -> None:
    """A blocked zero point whose shape is not the scale's: an error naming the node ('q') and the op, at
    session creation or at the run; never a result."""
    need(op)
    x = np.zeros((4, 6), np.float32 if op == "QuantizeLinear" else np.uint8)
    case = QCase("bad_zp", x.shape, "block", 1, 2)
    s = np.ones((4, 3), np.float32)
    z = np.zeros((4, 2), np.uint8)
    node = (q_node if op == "QuantizeLinear" else dq_node)(case, x, s, z, 21)
    model, feeds = make_model(node, params_as_inputs=False)
    for via in VIAS:
        with pytest.raises(Exception) as err:
            onemodel_ep.InferenceSession(model, mode="exact", via=via).run(None, feeds)
        assert "'q'" in str(err.value) and op in str(err.value), (via, str(err.value))
