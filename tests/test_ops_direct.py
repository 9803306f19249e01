"""Every op of the table x every allowed type, through Node(...).run on every kernel path, in both modes,
against tests/reference.py (the spec's NumPy reference); exact mode must be bit-identical across paths.

Ops the reference does not know yet (added to the table after it) are listed by test_reference_knows_ops.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import reference
from onnx import helper
from ops_elementwise_oracle import OPS, gen_general, specials

import onemodel_ep
from onemodel_ep._lib import MODES
from onemodel_ep.node import Node, probe

PATHS = onemodel_ep.kernel_paths()
TABLE = onemodel_ep.op_table()
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
        if op not in reference.KNOWN_OPS:
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


def _opset(op: str) -> int:
    return max(TABLE[op].since_opset, 17 if op != "Gelu" else 20)


def _arity(op: str) -> int:
    a = OPS[op].arity
    return 2 if a == -1 else a


def _check(op, attrs, dt, inputs):
    spec = OPS[op]
    types = [int(helper.np_dtype_to_tensor_dtype(dt))] * len(inputs)
    if spec.transcendental:
        why = probe(op, types, onnx_opset=_opset(op), attributes=attrs)
        if why is not None:  # listed in the table before its kernels landed
            pytest.skip(f"not served yet: {why}")
    exact_out = {}
    for mode in MODES:
        want = reference.evaluate(op, inputs, attrs, mode=mode)
        for path in PATHS:
            node = Node(op, types, onnx_opset=_opset(op), attributes=attrs, mode=mode, kernel_path=path)
            got = node.run(*inputs)
            where = f"{op} {dt.name} {attrs} mode={mode} path={path} shapes={[a.shape for a in inputs]}"
            assert got.dtype == want.dtype and got.shape == want.shape, where
            if spec.transcendental:
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
    ins = [np.broadcast_to(a, got.shape)[idx].item() for a in inputs]
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
        if _arity(op) < 2:
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
        pytest.skip(f"tests/reference.py has no rule yet for: {', '.join(unknown)}")
