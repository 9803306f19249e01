"""Every op of the table x every allowed type, through Node(...).run on every kernel path, in both modes,
against tests/reference/reference.py (the spec's NumPy reference); exact mode must be bit-identical across
paths.

Ops the reference does not know yet (added to the table after it) are listed by test_reference_knows_ops.
Where, Cast, CastLike, Clip and Pow (inputs of several types, optional inputs) have tests of their own below;
Pow results may be 1 ulp off (the library's own pow), everything else is bit-exact in exact mode.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep._lib import F_STRUCT, MODES
from onemodel_ep.node import Node, probe
from tests.reference import reference
from tests.reference.ops_elementwise_oracle import (
    OPS,
    STORED,
    WHERE_SHAPES,
    _clip_bounds,
    cast_edges,
    gen_general,
    gen_pow_base,
    gen_pow_exponent,
    pow_exponent_specials,
    specials,
)

PATHS = onemodel_ep.kernel_paths()
# The element-wise ops (the structured ones, OM_F_STRUCT, have their own tests: test_matmul_node.py, ...).
TABLE = {op: info for op, info in onemodel_ep.op_table().items() if not info.flags & F_STRUCT}
TRANSCENDENTAL_TOL = 1e-4
SAME_SHAPES = [(0,), (1,), (5,), (16,), (33,), (100,), (257,)]
BROADCAST = [
    ((), (9,)),
    ((9,), ()),
    ((1,), (17,)),
    ((7, 1), (1, 9)),
    ((2, 3, 4), (4,)),
    ((4, 1, 3), (1, 5, 1)),
]


def _combos():
    out = []
    for op, info in sorted(TABLE.items()):
        if op not in reference.KNOWN_OPS or op in reference.OTHER:
            continue
        spec = OPS[op]
        for attrs in spec.attributes:
            for t in sorted(info.input0_types):
                dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))
                if op == "Mod" and reference.is_float(dt) and attrs.get("fmod", 0) == 0:
                    continue
                tag = ",".join(f"{k}={v}" for k, v in attrs.items())
                out.append(
                    pytest.param(op, attrs, dt, id=f"{op}[{tag}]-{dt.name}" if tag else f"{op}-{dt.name}")
                )
    return out


# Ops whose newest types came with a later opset than 17 (IsInf's f16 and bf16: 20; Softplus's bf16: 22).
LATE_TYPES_OPSET = {"Gelu": 20, "IsInf": 20, "IsNaN": 20, "Softplus": 22, "Mish": 22, "Elu": 22, "Selu": 22}


def _opset(op: str) -> int:
    return max(TABLE[op].since_opset, LATE_TYPES_OPSET.get(op, 17))


def _arity(op: str) -> int:
    a = OPS[op].arity
    return 2 if a == -1 else a


def _check(op, attrs, dt, inputs, types=None, opset=None):
    spec = OPS.get(op, OPS["Add"])
    if types is None:
        types = [int(helper.np_dtype_to_tensor_dtype(dt))] * len(inputs)
    opset = opset or _opset(op)
    if spec.transcendental:
        why = probe(op, types, onnx_opset=_opset(op), attributes=attrs)
        if why is not None:  # listed in the table before its kernels landed
            pytest.skip(f"not served yet: {why}")
    exact_out = {}
    for mode in MODES:
        want = reference.evaluate(op, inputs, attrs, mode=mode, opset=opset)
        for path in PATHS:
            node = Node(op, types, onnx_opset=opset, attributes=attrs, mode=mode, kernel_path=path)
            got = node.run(*inputs)
            shapes = [None if a is None else a.shape for a in inputs]
            where = f"{op} {dt.name} {attrs} mode={mode} path={path} shapes={shapes}"
            assert got.dtype == want.dtype and got.shape == want.shape, where
            if op == "Pow":  # the library's own pow (exact mode) or the platform's (fast): within 1 ulp
                ok = reference.pow_within(got, want, 1)
                assert ok.all(), f"{where}: {_first_bad(~ok, got, want, inputs)}"
            elif spec.transcendental:
                g, w = got.astype(np.float64), want.astype(np.float64)
                with np.errstate(all="ignore"):
                    ok = (
                        (np.isnan(g) & np.isnan(w))
                        | (g == w)
                        | (
                            np.isfinite(w)
                            & (np.abs(g - w) <= TRANSCENDENTAL_TOL * np.maximum(np.abs(w), 1e-3))
                        )
                    )
                assert ok.all(), f"{where}: {_first_bad(~ok, got, want, inputs)}"
            elif mode == "exact":
                bad = reference.bits(got) != reference.bits(want)
                assert not bad.any(), f"{where}: {_first_bad(bad, got, want, inputs)}"
            else:
                assert reference.same_values(got, want), where
            if mode == "exact":
                assert reference.nan_bits_canonical(got), f"{where}: NaN not canonical"
                exact_out[path] = got
    first = next(iter(exact_out.values()))
    for path, got in exact_out.items():
        assert (reference.bits(got) == reference.bits(first)).all(), (
            f"{op} {dt.name}: exact differs on {path}"
        )


def _first_bad(bad, got, want, inputs):
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    ins = []
    for a in inputs:
        try:
            ins.append(np.broadcast_to(a, got.shape)[idx].item())
        except ValueError:  # CastLike's second input, an omitted Clip bound
            ins.append("...")
    return (
        f"{int(bad.sum())} bad, e.g. at {list(idx)}: inputs {ins}: got {got[idx].item()!r}, "
        f"want {want[idx].item()!r}"
    )


@pytest.mark.parametrize("op,attrs,dt", _combos())
def test_random_same_shapes(op, attrs, dt):
    rng = np.random.default_rng(zlib.crc32(f"{op}{attrs}{dt.name}".encode()))
    for shape in SAME_SHAPES:
        inputs = [OPS[op].gen(rng, dt, shape) for _ in range(_arity(op))]
        _check(op, attrs, dt, inputs)


@pytest.mark.parametrize("op,attrs,dt", _combos())
def test_specials_same_shapes(op, attrs, dt):
    sp = specials(dt)
    if _arity(op) == 1:
        _check(op, attrs, dt, [sp])
        for extra in OPS[op].extra:
            if extra.dtype == dt:
                _check(op, attrs, dt, [extra])
    else:  # every pair of specials, as two same-shape vectors (no broadcasting)
        a, b = np.meshgrid(sp, sp, indexing="ij")
        _check(op, attrs, dt, [a.ravel().copy(), b.ravel().copy()])


def _broadcast_combos():
    out = []
    for p in _combos():
        op, attrs, dt = p.values
        if _arity(op) < 2 or op == "PRelu":  # PRelu's slope never widens X: test_prelu_broadcast
            continue
        out.append(pytest.param(op, attrs, dt, id=p.id))
    return out


@pytest.mark.parametrize("op,attrs,dt", _broadcast_combos())
def test_broadcast(op, attrs, dt):
    rng = np.random.default_rng(99)
    for sa, sb in BROADCAST:
        _check(op, attrs, dt, [OPS[op].gen(rng, dt, sa), OPS[op].gen(rng, dt, sb)])
    sp = specials(dt)  # every pair of specials through an [n,1] x [1,n] grid
    _check(op, attrs, dt, [sp.reshape(-1, 1), sp.reshape(1, -1)])


@pytest.mark.parametrize("op", sorted(o for o in TABLE if OPS.get(o) is not None and OPS[o].arity == -1))
@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)])
def test_variadic_fold(op, dt):
    rng = np.random.default_rng(7)
    for n in (1, 3, 5):
        inputs = [gen_general(rng, dt, (40,)) for _ in range(n)]
        _check(op, {}, dt, inputs)


@pytest.mark.parametrize("dt,t", [(np.float32, 1), (np.float64, 11)])
def test_scalar_operand_keeps_negative_zero(dt, t):
    for path in PATHS:
        node = Node("Add", [t, t], onnx_opset=14, mode="exact", kernel_path=path)
        got = node.run(np.array([-0.0, -0.0], dt), np.array([-0.0], dt))
        assert np.signbit(got).all(), f"{path}: Add([-0, -0], [-0]) gave {got}"


@pytest.mark.parametrize("op,n", [("Add", 2), ("Abs", 1), ("Max", 3)])
def test_rank0_inputs_give_rank0_output(op, n):
    x = [np.array(1.5, np.float32)] * n
    got = Node(op, [1] * n, onnx_opset=17).run(*x)
    assert got.shape == ()


def test_reference_knows_ops():
    unknown = sorted(set(TABLE) - reference.KNOWN_OPS)
    if unknown:
        pytest.skip(f"tests/reference/reference.py has no rule yet for: {', '.join(unknown)}")


# ---- Where, Cast, CastLike, Clip, Pow


def _t(dt) -> int:
    return int(helper.np_dtype_to_tensor_dtype(np.dtype(dt)))


BOOL = np.dtype(np.bool_)


def _table_types(op: str, other: bool = False) -> list[np.dtype]:
    info = TABLE[op]
    mask = info.other_types if other else info.input0_types
    return [t for t in STORED if _t(t) in mask]


@pytest.mark.parametrize("dt", _table_types("Where", other=True), ids=lambda d: d.name)
def test_where(dt):
    rng = np.random.default_rng(zlib.crc32(f"Where{dt.name}".encode()))
    types = [_t(BOOL), _t(dt), _t(dt)]
    for n in (0, 1, 7, 33, 257):
        ins = [gen_general(rng, BOOL, (n,)), gen_general(rng, dt, (n,)), gen_general(rng, dt, (n,))]
        _check("Where", {}, dt, ins, types, 16)
    sp = specials(dt)  # every special selected from x and from y
    _check(
        "Where",
        {},
        dt,
        [np.array([True, False]).reshape(2, 1, 1), sp.reshape(1, -1, 1), sp.reshape(1, 1, -1)],
        types,
        16,
    )
    for shapes in WHERE_SHAPES:
        ins = [
            gen_general(rng, BOOL, shapes[0]),
            gen_general(rng, dt, shapes[1]),
            gen_general(rng, dt, shapes[2]),
        ]
        _check("Where", {}, dt, ins, types, 16)


@pytest.mark.parametrize("src", _table_types("Cast"), ids=lambda d: d.name)
def test_cast_and_castlike(src):
    """Every source x every target (the exhaustive bit matrix is tests/kernels/test_cast_matrix.py)."""
    rng = np.random.default_rng(zlib.crc32(f"Cast{src.name}".encode()))
    x = np.concatenate([cast_edges(src), gen_general(rng, src, (67,))])
    for k, dst in enumerate(_table_types("Cast", other=True)):
        _check("Cast", {"to": _t(dst)}, dst, [x], [_t(src)], 21)
        _check("Cast", {"to": _t(dst)}, dst, [x.reshape(1, -1, 1)[:, : (k % 5) * 7]], [_t(src)], 13)
        like = gen_general(rng, dst, [(3,), (), (2, 2)][k % 3])  # its values are never read
        _check("CastLike", {}, dst, [x, like], [_t(src), _t(dst)], 21)


@pytest.mark.parametrize("dt", _table_types("Clip"), ids=lambda d: d.name)
def test_clip(dt):
    rng = np.random.default_rng(zlib.crc32(f"Clip{dt.name}".encode()))
    xs = [specials(dt), gen_general(rng, dt, (67,)), gen_general(rng, dt, (3, 0)), gen_general(rng, dt, ())]
    for lo, hi in _clip_bounds(dt).values():
        bounds = [None if v is None else np.array(v, dtype=dt) for v in (lo, hi)]
        while bounds and bounds[-1] is None:
            bounds.pop()
        types = [_t(dt)] + [_t(dt) if b is not None else 0 for b in bounds]
        for x in xs:
            _check("Clip", {}, dt, [x, *bounds], types, 13)
    if reference.is_float(dt):  # opset 6: float attributes, defaults the lowest/highest finite float
        for attrs in ({}, {"min": -2.5}, {"max": 3.0}, {"min": 0.1, "max": 1e5}, {"min": 3.0, "max": -2.5}):
            for x in xs:
                _check("Clip", attrs, dt, [x], [_t(dt)], 6)


POW_COMBOS = [(b, e) for b in _table_types("Pow") for e in _table_types("Pow", other=True)]


@pytest.mark.parametrize("bt,et", POW_COMBOS, ids=[f"{b.name}^{e.name}" for b, e in POW_COMBOS])
def test_pow(bt, et):
    """Spec rules and special values over base x exponent types (the MPFR accuracy study is test_pow.py)."""
    rng = np.random.default_rng(zlib.crc32(f"Pow{bt.name}{et.name}".encode()))
    types = [_t(bt), _t(et)]
    _check("Pow", {}, bt, [specials(bt).reshape(-1, 1), pow_exponent_specials(et).reshape(1, -1)], types, 15)
    for n in (0, 1, 17, 100):
        _check("Pow", {}, bt, [gen_pow_base(rng, bt, (n,)), gen_pow_exponent(rng, et, (n,))], types, 15)
    _check("Pow", {}, bt, [gen_pow_base(rng, bt, (4, 1, 3)), gen_pow_exponent(rng, et, (5, 1))], types, 15)
    _check("Pow", {}, bt, [gen_pow_base(rng, bt, ()), gen_pow_exponent(rng, et, (9,))], types, 15)


def test_run_into_given_output():
    """Node.run(..., out=) writes into the caller's array, bit for bit what a new array gets, and refuses one
    of another shape, type or layout without writing it."""
    node = Node("Add", [TensorProto.FLOAT, TensorProto.FLOAT])
    x = np.linspace(-3.0, 3.0, 37, dtype=np.float32)
    y = np.float32(0.25) * x[::-1].copy()
    out = np.full(37, np.nan, dtype=np.float32)
    got = node.run(x, y, out=out)
    assert got is out
    assert np.array_equal(out.view(np.uint32), node.run(x, y).view(np.uint32))
    for bad in (np.zeros(36, np.float32), np.zeros(37, np.float64), np.zeros(74, np.float32)[::2]):
        before = bad.copy()
        with pytest.raises(ValueError, match="out must be"):
            node.run(x, y, out=bad)
        assert np.array_equal(bad, before)


# ---- the Relu family, IsNaN, IsInf


PRELU_TYPES = _table_types("PRelu")


@pytest.mark.parametrize("dt", PRELU_TYPES, ids=lambda d: d.name)
def test_prelu_broadcast(dt):
    """The slope broadcasts to X's shape (unidirectionally); a slope that would widen X is refused."""
    rng = np.random.default_rng(zlib.crc32(f"PRelu{dt.name}".encode()))
    shapes = [((9,), ()), ((17,), (1,)), ((7, 9), (1, 9)), ((2, 3, 4), (4,)), ((4, 5, 3), (5, 1))]
    for sx, ss in shapes:
        _check("PRelu", {}, dt, [gen_general(rng, dt, sx), gen_general(rng, dt, ss)], opset=16)
    sp = specials(dt)  # every (x, slope) pair of specials
    grid = np.broadcast_to(sp.reshape(-1, 1), (sp.size, sp.size)).copy()
    _check("PRelu", {}, dt, [grid, sp.reshape(1, -1)])
    node = Node("PRelu", [_t(dt), _t(dt)], onnx_opset=16)
    with pytest.raises(ValueError, match=r"PRelu.*slope \(input 1\) must broadcast to the shape of X"):
        node.run(gen_general(rng, dt, (3,)), gen_general(rng, dt, (2, 3)))


@pytest.mark.parametrize(
    "op,types,opset,attrs,why",
    [
        ("Relu", [TensorProto.INT32], 13, {}, "element type int32 needs opset 14 or later"),
        ("PRelu", [TensorProto.INT64] * 2, 7, {}, "element type int64 needs opset 9 or later"),
        ("IsNaN", [TensorProto.BFLOAT16], 9, {}, "element type bfloat16 needs opset 13 or later"),
        ("IsInf", [TensorProto.FLOAT16], 13, {}, "element type float16 needs opset 20 or later"),
        ("IsInf", [TensorProto.FLOAT], 13, {"detect_positive": 2}, "detect_positive must be 0 or 1, got 2"),
        ("IsInf", [TensorProto.FLOAT], 13, {"detect_negative": -1}, "detect_negative must be 0 or 1, got -1"),
        ("Relu", [TensorProto.UINT8], 14, {}, "unsupported element type uint8"),
        ("ThresholdedRelu", [TensorProto.FLOAT], 9, {}, "opset 9 is not served; ThresholdedRelu is served"),
        ("Softsign", [TensorProto.INT32], 13, {}, "unsupported element type int32"),
    ],
)
def test_relu_family_refusals(op, types, opset, attrs, why):
    got = probe(op, types, onnx_opset=opset, attributes=attrs, name="n1")
    assert got is not None and why in got and "node 'n1'" in got and f"op {op}" in got, got


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_thresholded_relu_alpha_between_values(dt):
    """x > alpha compares with the f32 alpha exactly, also where alpha is not a value of the element type."""
    alpha = 0.1  # not an f16, f32 or f64 value; f16 neighbours 0.0999755859375 and 0.10003662109375
    x = np.array([0.0999755859375, 0.10003662109375, 0.1, -0.1, 1e30, -np.inf, np.inf], dtype=np.float64)
    with np.errstate(over="ignore"):
        x = x.astype(dt)  # 1e30 is inf in f16
    _check("ThresholdedRelu", {"alpha": alpha}, np.dtype(dt), [x])
    for a in (-1e6, 7e4, -7e4, 65504.0, 1e-8, -1e-8):  # beyond the f16 range and around its extremes
        _check("ThresholdedRelu", {"alpha": a}, np.dtype(dt), [specials(np.dtype(dt))])
