"""OneModel's InstanceNormalization and GroupNormalization, bit for bit against the independent reference
tests/reference/norm_reference.py (written from docs/pooling-norm.md's contract alone).

Each case is a one-node model (scale and bias initializers) run through both ways in (the rewrite, and the
execution provider where ORT supports it) on every kernel path, exact mode, at one thread, and (f32) at two
threads on the default path; the node must run on OneModel's kernels and the output must have the
reference's bits (the same NaN positions, every NaN the canonical quiet NaN of its type, every other element's
bits equal).
Cases: ranks 2 (GroupNormalization only) to 5, groups of fewer and more than 16 elements and not a multiple of
16, G = 1, 1 < G < C and G = C, both scale layouts of GroupNormalization (opsets 18-20: [G]; 21: [C]),
epsilon 0, tiny and large, NaN, inf, -0.0, subnormals, overflowing squares, constant groups, zero-size
dimensions.

The reference itself is checked here too (these tests run without the kernel): against a float64 evaluation
(ONNX's reference evaluator) within the contract's error bound, and against the independently written
LayerNormalization reference (tests/reference/reference_linalg.py), whose mean and var the contract says
these are, bit for bit.

The kernel tests skip, with the reason, while the library does not serve the op (it is not in
onemodel_ep.op_table()).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onemodel_ep
from tests.reference import norm_reference as NR
from tests.reference.conv_cases import ONNX_TYPE, assert_same_bits
from tests.reference.reference_linalg import layer_norm

TABLE = onemodel_ep.op_table()
PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
F16, F32, F64 = NR.F16, NR.F32, NR.F64
SEED = 20261204
U = {F16: 2.0**-11, F32: 2.0**-24, F64: 2.0**-53}

# (X shape, num_groups; None for InstanceNormalization's one group per channel)
INSTANCE_SHAPES = [(2, 3, 5, 7), (1, 4, 37), (1, 2, 3, 4, 5), (2, 3, 1, 1), (1, 2, 17, 16), (3, 5, 1),
                   (1, 3, 64, 65)]
GROUP_SHAPES = [((2, 6, 5, 4), 3), ((2, 6, 5, 4), 1), ((2, 6, 5, 4), 6), ((3, 8), 2), ((3, 8), 8),
                ((2, 4), 1), ((1, 12, 7), 4), ((1, 4, 2, 3, 5), 2), ((1, 9, 33, 2), 3), ((1, 2, 40, 41), 1)]
ZERO_SHAPES = [(0, 3, 4, 4), (2, 3, 0, 4), (2, 0, 3)]


def sample(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Normals at a random offset and scale per call, with +0.0 and -0.0 mixed in."""
    size = int(np.prod(shape))
    e = 3 if dtype == F16 else 6
    v = rng.standard_normal(size) * 2.0 ** float(rng.integers(-e, e + 1)) + float(rng.standard_normal()) * 2.0
    pick = rng.integers(0, 16, size)
    v = np.where(pick == 0, 0.0, np.where(pick == 1, -0.0, v))
    return v.astype(dtype).reshape(shape)


def params(rng: np.random.Generator, n: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    return sample(rng, (n,), dtype), sample(rng, (n,), dtype)


def model(op: str, x: np.ndarray, scale: np.ndarray, bias: np.ndarray, opset: int,
          **attrs: Any) -> onnx.ModelProto:
    elem = ONNX_TYPE[x.dtype]
    node = helper.make_node(op, ["x", "scale", "bias"], ["y"], name="norm0", **attrs)
    graph = helper.make_graph(
        [node], "norm", [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", elem, [None] * x.ndim)],
        initializer=[numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(bias, "bias")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def served(op: str, dtype: np.dtype) -> None:
    row = TABLE.get(op)
    if row is None:
        pytest.skip(f"onemodel_ep does not serve {op}: it is not in onemodel_ep.op_table() "
                    "(`onemodel info --ops`)")
    if ONNX_TYPE[dtype] not in row.input0_types:
        pytest.skip(f"onemodel_ep's {op} does not serve {dtype} (op_table()['{op}'].input0_types)")


def session(m: onnx.ModelProto, via: str, path: str | None, threads: int) -> onemodel_ep.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    return onemodel_ep.InferenceSession(m, so, mode="exact", kernel_path=path, via=via)


def run_everywhere(op: str, m: onnx.ModelProto, x: np.ndarray, want: np.ndarray, what: str) -> None:
    """The model through both ways in on every path at one thread, and (f32) the default path at two
    threads."""
    runs = [(via, path, 1) for via in VIAS for path in PATHS]
    runs += [(via, None, 2) for via in VIAS] if x.dtype == F32 else []
    for via, path, threads in runs:
        sess = session(m, via, path, threads)
        assert [n.op for n in sess.report.moved] == [op], \
            f"{what}: {op} did not run on OneModel's kernels ({via}):\n{sess.report.summary()}"
        got = sess.run(None, {"x": x})[0]
        assert_same_bits(got, want, f"{what}, {via}, path {path}, {threads} thread(s)")


def check_instance(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, what: str, opset: int = 17,
                   **attrs: Any) -> None:
    served("InstanceNormalization", x.dtype)
    want = NR.instance_normalization(x, scale, bias, **attrs)
    run_everywhere("InstanceNormalization", model("InstanceNormalization", x, scale, bias, opset, **attrs), x,
                   want, what)


def check_group(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, num_groups: int, opset: int, what: str,
                **attrs: Any) -> None:
    served("GroupNormalization", x.dtype)
    want = NR.group_normalization(x, scale, bias, num_groups, opset=opset, **attrs)
    m = model("GroupNormalization", x, scale, bias, opset, num_groups=num_groups, **attrs)
    run_everywhere("GroupNormalization", m, x, want, what)


# ---- the kernel, bit for bit ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
@pytest.mark.parametrize("shape", INSTANCE_SHAPES + ZERO_SHAPES, ids=str)
def test_instance_norm_bit_for_bit(shape: tuple[int, ...], dtype: np.dtype) -> None:
    rng = np.random.default_rng([SEED, *shape])
    x = sample(rng, shape, dtype)
    scale, bias = params(rng, shape[1], dtype)
    check_instance(x, scale, bias, f"InstanceNormalization {shape} {dtype}")


@pytest.mark.parametrize("opset,dtype", [(21, F32), (21, F16), (21, F64), (18, F32)], ids=str)
@pytest.mark.parametrize("shape,groups", GROUP_SHAPES, ids=str)
def test_group_norm_bit_for_bit(shape: tuple[int, ...], groups: int, dtype: np.dtype, opset: int) -> None:
    rng = np.random.default_rng([SEED + 1, groups, opset, *shape])
    x = sample(rng, shape, dtype)
    scale, bias = params(rng, groups if opset < NR.GROUP_SCALE_PER_GROUP_BEFORE else shape[1], dtype)
    check_group(x, scale, bias, groups, opset, f"GroupNormalization-{opset} {shape} G={groups} {dtype}")


@pytest.mark.parametrize("shape", ZERO_SHAPES, ids=str)
def test_group_norm_zero_sizes(shape: tuple[int, ...]) -> None:
    groups = 3 if shape[1] else 1
    rng = np.random.default_rng(SEED + 2)
    x = sample(rng, shape, F32)
    scale, bias = params(rng, shape[1], F32)
    check_group(x, scale, bias, groups, 21, f"GroupNormalization {shape}")


@pytest.mark.parametrize("epsilon", [0.0, 1e-30, 7.5])
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_epsilon_values(epsilon: float, dtype: np.dtype) -> None:
    """epsilon widened exactly from f32; 0 with a constant channel gives 0 * inf = NaN."""
    rng = np.random.default_rng(SEED + 3)
    x = sample(rng, (2, 4, 3, 5), dtype)
    x[1, 2] = dtype.type(1.25)  # a constant channel: var = 0
    scale, bias = params(rng, 4, dtype)
    check_instance(x, scale, bias, f"InstanceNormalization eps={epsilon} {dtype}", epsilon=epsilon)
    check_group(x, np.repeat(scale[:2], 2), np.repeat(bias[:2], 2), 2, 21,
                f"GroupNormalization eps={epsilon} {dtype}", epsilon=epsilon)


SPECIALS = ["nan", "inf", "neg_zero", "subnormal", "huge", "ties"]


def special_input(kind: str, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X [2, 4, 5, 6] with one kind of edge value; scale and bias [4]."""
    rng = np.random.default_rng([SEED + 4, SPECIALS.index(kind)])
    x = sample(rng, (2, 4, 5, 6), dtype)
    scale, bias = params(rng, 4, dtype)
    u = np.dtype(f"u{dtype.itemsize}")
    info = np.finfo(dtype)
    if kind == "nan":  # a signalling NaN and a negative quiet one with payloads: their groups are NaN
        x.view(u)[0, 1, 2, 3] = {F16: 0x7C12, F32: 0x7F800123, F64: 0x7FF0000000000123}[dtype]
        x.view(u)[1, 3, 0, 0] = {F16: 0xFE45, F32: 0xFFC00456, F64: 0xFFF8000000000456}[dtype]
        scale.view(u)[2] = {F16: 0xFE45, F32: 0xFFC00456, F64: 0xFFF8000000000456}[dtype]
    elif kind == "inf":  # inf - inf in d, and an infinite scale and bias
        x[0, 0, 1, 1] = np.inf
        x[1, 2, 4, 5] = -np.inf
        scale[1], bias[3] = np.inf, -np.inf
    elif kind == "neg_zero":  # all -0.0 groups, -0.0 scale and bias: signs of zero through every step
        x[0] = dtype.type(-0.0)
        x[1, 1] = dtype.type(0.0)
        scale[0], bias[0], bias[1] = dtype.type(-0.0), dtype.type(-0.0), dtype.type(-0.0)
    elif kind == "subnormal":  # values, differences and squares at the bottom of the range
        x = (x.astype(np.float64) * float(info.smallest_subnormal) * 8).astype(dtype)
        scale = (scale.astype(np.float64) * float(info.tiny)).astype(dtype)
    elif kind == "huge":  # squares that overflow to inf (var inf, s 0) and sums that overflow
        x = (rng.uniform(-1, 1, x.shape) * float(info.max) / 4).astype(dtype)  # finite; sums may overflow
        x[1, 2] = (rng.uniform(-1, 1, x.shape[2:]) * np.sqrt(float(info.max)) * 4).astype(dtype)  # squares do
    elif kind == "ties":  # few distinct values: the mean and differences land on exact halves
        x = rng.integers(-3, 4, x.shape).astype(dtype) * dtype.type(0.5)
    return x, scale, bias


@pytest.mark.parametrize("kind", SPECIALS)
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_special_values(kind: str, dtype: np.dtype) -> None:
    x, scale, bias = special_input(kind, dtype)
    check_instance(x, scale, bias, f"InstanceNormalization {kind} {dtype}")
    check_group(x, scale, bias, 2, 21, f"GroupNormalization-21 {kind} {dtype}")
    if dtype == F32:
        check_group(x, scale[:2].copy(), bias[:2].copy(), 2, 18, f"GroupNormalization-18 {kind} {dtype}")


@pytest.mark.parametrize("opset", [6, 22])
def test_instance_norm_opsets(opset: int) -> None:
    rng = np.random.default_rng(SEED + 5)
    x = sample(rng, (2, 3, 4, 9), F32)
    scale, bias = params(rng, 3, F32)
    check_instance(x, scale, bias, f"InstanceNormalization-{opset}", opset=opset)


def test_group_norm_stash_type_other_than_1_stays_with_ort() -> None:
    """Opset 21's stash_type 0 is not served: the rewrite leaves the node to stock ORT and its report names
    the attribute (stock ORT 1.31.1 itself then has no implementation for it)."""
    served("GroupNormalization", F32)
    rng = np.random.default_rng(SEED + 6)
    x = sample(rng, (1, 4, 3, 3), F32)
    scale, bias = params(rng, 4, F32)
    report = onemodel_ep.RewriteReport("exact", None)
    out = onemodel_ep.rewrite(model("GroupNormalization", x, scale, bias, 21, num_groups=2, stash_type=0),
                              report=report)
    assert [n.op_type for n in out.graph.node] == ["GroupNormalization"] and out.graph.node[0].domain == ""
    assert not report.moved and "stash_type" in report.summary(), report.summary()


# ---- the reference on its own --------------------------------------------------------------------------


def float64_eval(op: str, x: np.ndarray, scale: np.ndarray, bias: np.ndarray, opset: int,
                 **attrs: Any) -> np.ndarray:
    """ONNX's reference evaluator on the float64 values."""
    x64, s64, b64 = (v.astype(F64) for v in (x, scale, bias))
    return np.asarray(ReferenceEvaluator(model(op, x64, s64, b64, opset, **attrs)).run(None, {"x": x64})[0])


def group_norm_float64(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, groups: int) -> np.ndarray:
    """GroupNormalization (opset 21) in numpy float64 (ONNX's reference evaluator runs opset 21's function
    body in its stash type, float32, even for float64 input)."""
    v = x.astype(F64).reshape(x.shape[0], groups, -1)
    z = ((v - v.mean(axis=-1, keepdims=True)) / np.sqrt(v.var(axis=-1, keepdims=True) + np.float32(1e-5)))
    bc = (1, -1) + (1,) * (x.ndim - 2)
    return z.reshape(x.shape) * scale.astype(F64).reshape(bc) + bias.astype(F64).reshape(bc)


def error_bound(x: np.ndarray, scale_c: np.ndarray, num_groups: int, epsilon: float, dtype: np.dtype
                ) -> np.ndarray:
    """docs/pooling-norm.md's bound on |y - y*| per element, from float64 mu and sigma^2 (twice the terms
    stated, for the O(u^2) parts and float64's own rounding), plus one f16 rounding of |y*|."""
    u = U[F64] if dtype == F64 else U[F32]
    n, c = x.shape[:2]
    v = x.astype(F64).reshape(n, num_groups, -1)
    m = v.shape[-1]
    h = -(-m // 16) + 3

    def gamma(j: int) -> float:
        return j * u / (1 - j * u)

    mu = v.mean(axis=-1)
    sigma2 = v.var(axis=-1)
    delta = gamma(h + 1) * np.abs(v).sum(axis=-1) / m
    vstar = sigma2 + np.float64(np.float32(epsilon))
    dv = delta**2 + gamma(h + 4) * (sigma2 + delta**2)
    e_s = dv / (2 * vstar) + 2.5 * u
    g = c // num_groups
    xr = x.astype(F64).reshape(n, num_groups, g, -1)
    a = np.abs(scale_c.astype(F64)).reshape(num_groups, g)[None, :, :, None]
    ystar_lin = a * np.abs(xr - mu[..., None, None]) / np.sqrt(vstar)[..., None, None]
    root = np.sqrt(vstar)[..., None, None]
    err = (2 * u + e_s[..., None, None]) * ystar_lin + delta[..., None, None] * a / root
    return 2 * (1 + u) * err.reshape(x.shape)


@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
@pytest.mark.parametrize("shape,groups", [(s, None) for s in INSTANCE_SHAPES] + GROUP_SHAPES, ids=str)
def test_reference_within_bound_of_float64(shape: tuple[int, ...], groups: int | None,
                                           dtype: np.dtype) -> None:
    rng = np.random.default_rng([SEED + 7, *shape])
    x = sample(rng, shape, dtype)
    c = shape[1]
    scale, bias = params(rng, c, dtype)
    if groups is None:
        got = NR.instance_normalization(x, scale, bias)
        ref = float64_eval("InstanceNormalization", x, scale, bias, 17)
        g = c
    else:
        got = NR.group_normalization(x, scale, bias, groups, opset=21)
        ref = group_norm_float64(x, scale, bias, groups)
        g = groups
    bound = error_bound(x, scale, g, 1e-5, dtype) + U[F32] * np.abs(ref) + 1e-300
    if dtype == F16:
        bound = bound + U[F16] * np.abs(ref) + 2.0**-25  # the one rounding to f16 (subnormal spacing 2^-24)
    err = np.abs(got.astype(F64) - ref)
    assert (err <= bound).all(), f"{shape} {dtype}: worst excess {np.max(err - bound)} at " \
                                 f"{np.unravel_index(np.argmax(err - bound), err.shape)}"


@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
@pytest.mark.parametrize("shape,groups", GROUP_SHAPES, ids=str)
def test_reference_is_layer_norm_of_the_groups(shape: tuple[int, ...], groups: int, dtype: np.dtype) -> None:
    """With scale 1 and bias +0: s_c = 1 / sqrt(var + eps) is LayerNormalization's inv and
    ((x - mean) * s) + 0 its ((d * inv) * 1) + 0, so GroupNormalization is LayerNormalization over each
    group's run, bit for bit (tests/reference/reference_linalg.py, written independently)."""
    rng = np.random.default_rng([SEED + 8, groups, *shape])
    x = sample(rng, shape, dtype)
    ones, zeros = np.ones(shape[1], dtype), np.zeros(shape[1], dtype)
    got = NR.group_normalization(x, ones, zeros, groups, opset=21)
    rows = x.reshape(shape[0], groups, -1)
    want = layer_norm(rows, np.ones(rows.shape[-1], dtype), np.zeros(rows.shape[-1], dtype), axis=2)[0]
    want[np.isnan(want)] = np.nan
    assert_same_bits(got, want.reshape(shape), f"{shape} G={groups}")


def test_reference_group_layouts_agree() -> None:
    """G = C is InstanceNormalization; opset 18's per-group scale is opset 21's repeated per channel."""
    rng = np.random.default_rng(SEED + 9)
    x = sample(rng, (2, 6, 4, 5), F32)
    scale, bias = params(rng, 6, F32)
    assert_same_bits(NR.group_normalization(x, scale, bias, 6), NR.instance_normalization(x, scale, bias),
                     "G=C")
    assert_same_bits(NR.group_normalization(x, scale[:3], bias[:3], 3, opset=18),
                     NR.group_normalization(x, np.repeat(scale[:3], 2), np.repeat(bias[:3], 2), 3),
                     "[G] vs [C]")


def test_reference_sum16_order() -> None:
    """sum16 is the contract's lanes and tree, not a plain or pairwise sum: 16 lanes of 2^24 with 1.0 in lane
    0 keep the ones that a left-to-right f32 sum loses."""
    v = np.zeros(48, F32)
    v[0], v[16], v[32] = 2.0**24, 1.0, 1.0  # lane 0: 2^24 + 1 + 1, each add rounds back to 2^24
    v[1], v[17] = 1.0, 1.0  # lane 1: 2
    assert NR.sum16(v) == np.float32(2.0**24 + 2)  # lane 0 (2^24) + lane 1 (2) in the tree
    assert NR.sum16(np.zeros(0, F32)) == 0 and not np.signbit(NR.sum16(np.zeros(0, F32)))
    assert np.signbit(NR.sum16(np.full(5, -0.0, F32)))  # partials from -0.0: all -0.0 stays -0.0


# ---- errors --------------------------------------------------------------------------------------------

BAD = [  # (what, op, opset, X shape, scale/bias length, attributes)
    ("num_groups0", "GroupNormalization", 21, (1, 4, 3), 4, {"num_groups": 0}),
    ("C_mod_G", "GroupNormalization", 21, (1, 4, 3), 4, {"num_groups": 3}),
    ("group_scale_C_at_18", "GroupNormalization", 18, (1, 4, 3), 4, {"num_groups": 2}),
    ("group_scale_G_at_21", "GroupNormalization", 21, (1, 4, 3), 2, {"num_groups": 2}),
    ("instance_scale", "InstanceNormalization", 17, (1, 4, 3), 3, {}),
    ("instance_rank2", "InstanceNormalization", 17, (2, 4), 4, {}),
]


@pytest.mark.parametrize("what,op,opset,shape,n_params,attrs", BAD, ids=[b[0] for b in BAD])
def test_bad_nodes_fail_naming_node_and_op(what: str, op: str, opset: int, shape: tuple[int, ...],
                                           n_params: int, attrs: dict[str, Any]) -> None:
    """docs/pooling-norm.md's errors: at session creation or at the run, naming node and op."""
    served(op, F32)
    rng = np.random.default_rng(SEED + 10)
    x = sample(rng, shape, F32)
    scale, bias = params(rng, n_params, F32)
    for via in VIAS:
        with pytest.raises(Exception) as err:  # noqa: PT011 - ORT raises its own exception types
            session(model(op, x, scale, bias, opset, **attrs), via, None, 1).run(None, {"x": x})
        assert "norm0" in str(err.value) and op in str(err.value), f"{what} ({via}): {err.value}"
