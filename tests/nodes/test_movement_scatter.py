"""ScatterElements and ScatterND (node_scatter.c, scatter_apply.c, docs/data-movement.md) through the
execution provider and the rewrite path, at 1 and 2 threads, and on every kernel path by direct calls, byte
for byte against the contract computed here in NumPy from the docs: data copied, then the updates applied one
by one in their row-major order (duplicate indices included: the last wins for none, the reductions fold in
that order). Every stored type for reduction none, every numeric type and bfloat16 for add, mul, max and min;
int32 and int64 indices, negative ones and the ends of each range; zero-size inputs. Stock ONNX Runtime gives
the same bytes where it serves the type. An index out of range fails the run naming node, op and index; bad
shapes, types and attributes fail at creation naming node and op.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.case_runs import compiled_dispatch_matches, direct_every_path_matches, every_way_matches
from tests.nodes.movement_cases import BF16, STORED, Case, bits, model_of
from tests.nodes.one_node import one_node_model, quiet_session
from tests.nodes.test_movement_ops import _same, _split, _stock

VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)
HALF = (np.dtype(np.float16), BF16)


def _combine(red: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One element of the output (a) and one update (b), as 1-element arrays: the reduction's result."""
    if red == "none":
        return b
    if red in ("max", "min"):
        take = a < b if red == "max" else b < a
        return b if bool(take[0]) else a
    op = np.add if red == "add" else np.multiply
    with np.errstate(invalid="ignore", over="ignore"):
        if a.dtype in HALF:  # widened exactly to float, one float operation, rounded to nearest even back
            r = op(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
        else:
            r = op(a, b)  # floats: one rounding; integers: wrapping
    return np.full_like(r, np.nan) if (r.dtype.kind == "f" or r.dtype == BF16) and np.isnan(r[0]) else r


def _apply(x: np.ndarray, targets: list[int], upd: np.ndarray, red: str) -> np.ndarray:
    """x with update g applied at flat element targets[g], g in order."""
    out = x.copy().reshape(-1)
    u = upd.reshape(-1)
    for g, t in enumerate(targets):
        out[t : t + 1] = _combine(red, out[t : t + 1], u[g : g + 1])
    return out.reshape(x.shape)


def scatter_elements(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, axis: int, red: str) -> np.ndarray:
    axis %= x.ndim
    targets = []
    for p in np.ndindex(*idx.shape):
        v = int(idx[p])
        q = list(p)
        q[axis] = v + x.shape[axis] if v < 0 else v
        targets.append(int(np.ravel_multi_index(q, x.shape)))
    return _apply(x, targets, upd, red)


def scatter_nd(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, red: str) -> np.ndarray:
    k = idx.shape[-1]
    run = int(np.prod(x.shape[k:], dtype=np.int64))
    targets = []
    for pos in np.ndindex(*idx.shape[:-1]):
        t = tuple(int(v) + (x.shape[m] if v < 0 else 0) for m, v in enumerate(idx[pos]))
        base = int(np.ravel_multi_index(t, x.shape[:k])) * run if x.size else 0
        targets.extend(range(base, base + run))
    return _apply(x, targets, upd, red)


def _indices(rng: np.random.Generator, shape: tuple[int, ...], size: int, dtype: type) -> np.ndarray:
    """Random indices in [-size, size - 1] (duplicates likely), the two ends included where there is room."""
    v = rng.integers(-size, size, shape) if size else np.zeros(shape, np.int64)
    flat = v.reshape(-1)
    if flat.size >= 2 and size:
        flat[0], flat[-1] = -size, size - 1
    return v.astype(dtype)


def _values(shape: tuple[int, ...], t: np.dtype, seed: int) -> np.ndarray:
    """Data for the reductions: random bits for integers (the sums and products wrap), finite values for
    floats (a NaN's payload through an operation is the hardware's)."""
    if t.kind in "iu":
        return bits(shape, t, seed)
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3).astype(np.float32).astype(t)


REDUCTIONS = {
    11: ("none",),
    13: ("none",),
    16: ("none", "add", "mul"),
    18: ("none", "add", "mul", "max", "min"),
}
# (data shape, indices shape, axis (None: no attribute))
SE_BASE = [
    ((3, 4), (3, 4), None),
    ((5, 7), (2, 9), 1),
    ((2, 3, 4), (2, 3, 6), -1),
    ((4, 3, 5), (7, 2, 5), 0),
    ((2, 5, 3), (1, 4, 2), -2),
    ((6,), (10,), 0),
    ((3, 0), (3, 0), 1),
    ((3, 4), (0, 4), 0),
    ((40, 50), (30, 50), 0),
]
# (data shape, indices shape (the last: k))
ND_BASE = [
    ((3, 4), (2, 2)),
    ((3, 4, 5), (6, 1)),
    ((4, 5), (2, 3, 2)),
    ((2, 6, 3), (4, 3)),
    ((3, 0, 2), (4, 1)),
    ((3, 4), (0, 2)),
    ((30, 40), (50, 1)),
]


def _types(red: str, opset: int) -> tuple[np.dtype, ...]:
    return tuple(
        t for t in STORED if (t != BF16 or opset >= 13) and (red == "none" or t != np.dtype(np.bool_))
    )


def scatter_elements_cases(opset: int) -> list[Case]:
    out = []
    for red in REDUCTIONS[opset]:
        for i, (xs, ishape, axis) in enumerate(SE_BASE):
            for j, t in enumerate(_types(red, opset)):
                if (i + j) % 3 and i:  # every type on the first shape, a third of them on the others
                    continue
                rng = np.random.default_rng(100 * i + j)
                make = bits if red == "none" else _values
                x, upd = make(xs, t, 17 * i + j), make(ishape, t, 23 * i + j)
                a = 0 if axis is None else axis
                idx = _indices(rng, ishape, xs[a], np.int32 if (i + j) % 2 else np.int64)
                attrs: dict[str, object] = {} if axis is None else {"axis": axis}
                if red != "none" or (opset >= 16 and i % 2):
                    attrs["reduction"] = red
                want = scatter_elements(x, idx, upd, a, red)
                out.append(
                    Case(
                        "ScatterElements",
                        opset,
                        [x, idx, upd],
                        [False, (i + j) % 3 == 0, False],
                        attrs,
                        [want],
                    )
                )
    return out


def scatter_nd_cases(opset: int) -> list[Case]:
    out = []
    for red in REDUCTIONS[opset]:
        for i, (xs, ishape) in enumerate(ND_BASE):
            for j, t in enumerate(_types(red, opset)):
                if (i + j) % 3 and i:
                    continue
                rng = np.random.default_rng(200 * i + j)
                k = ishape[-1]
                ushape = ishape[:-1] + xs[k:]
                make = bits if red == "none" else _values
                x, upd = make(xs, t, 19 * i + j), make(ushape, t, 29 * i + j)
                cols = [_indices(rng, ishape[:-1] + (1,), xs[m], np.int64) for m in range(k)]
                idx = np.concatenate(cols, axis=-1)
                attrs: dict[str, object] = {} if red == "none" and opset < 16 else {"reduction": red}
                out.append(
                    Case(
                        "ScatterND",
                        opset,
                        [x, idx, upd],
                        [False, (i + j) % 3 == 0, False],
                        attrs,
                        [scatter_nd(x, idx, upd, red)],
                    )
                )
    return out


CASES = {"ScatterElements": scatter_elements_cases, "ScatterND": scatter_nd_cases}
PARAMS = [(op, opset) for op in CASES for opset in (11, 13, 16, 18)]


@pytest.mark.parametrize("op,opset", PARAMS)
def test_ep_and_rewrite_match_contract(op: str, opset: int) -> None:
    every_way_matches(CASES[op](opset), opset)


@pytest.mark.parametrize("op,opset", PARAMS)
def test_direct_every_type_and_path(op: str, opset: int) -> None:
    direct_every_path_matches(CASES[op](opset))


@pytest.mark.skipif("ep" not in VIAS, reason="ORT without plugin execution providers")
@pytest.mark.parametrize("op", list(CASES))
def test_compiled_dispatch_matches(op: str) -> None:
    compiled_dispatch_matches(CASES[op](18), 18)


def test_cases_cover_the_stored_types_and_reductions() -> None:
    for op, cases in CASES.items():
        got = cases(18)
        assert {c.inputs[0].dtype for c in got} == set(STORED), op
        assert {c.attrs.get("reduction", "none") for c in got} == set(REDUCTIONS[18]), op
        assert any(len(set(c.inputs[1].reshape(-1).tolist())) < c.inputs[1].size for c in got), (
            op
        )  # duplicates


@pytest.mark.parametrize("op,opset", PARAMS)
def test_contract_is_stock_orts(op: str, opset: int) -> None:
    """Stock ORT's CPU kernels apply the updates in the same order: the same bytes wherever it has a kernel
    for the type (float16: NaNs compared as NaNs, stock quiets them)."""
    compared = set()
    for c in _split(CASES[op](opset))[0]:
        model, feeds = model_of([c], opset)
        try:
            got = _stock(model, feeds)[0]
        except Exception as e:  # noqa: BLE001 - a type or reduction stock ORT has no kernel for
            known = ("NOT_IMPLEMENTED", "Could not find an implementation", "not supported", "Unsupported")
            assert any(k in str(e) for k in known), str(e)
            continue
        if c.inputs[0].dtype == np.float16:
            assert np.array_equal(got, c.want[0], equal_nan=True), c.label()
        else:
            _same(f"stock ORT vs the contract: {c.label()}", got, c.want[0])
        compared.add((c.inputs[0].dtype, str(c.attrs.get("reduction", "none"))))
    assert (np.dtype(np.float32), REDUCTIONS[opset][-1]) in compared, compared


F32, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


@pytest.mark.parametrize("t", [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64), BF16])
@pytest.mark.parametrize("red", ["add", "mul", "max", "min"])
def test_nan_results_are_canonical_and_selections_keep_bits(t: np.dtype, red: str) -> None:
    """add and mul write a NaN result as the canonical NaN (inf - inf, 0 * inf, a NaN operand with a payload);
    max and min select an operand, bits as they are (docs/data-movement.md)."""
    payload = {4: 0x7FA00001, 2: 0x7D01, 8: 0x7FF4000000000001}
    if t == BF16:
        nan = np.array([0x7F81], np.uint16).view(BF16)
    else:
        raw = np.array([payload[t.itemsize]], {4: np.uint32, 2: np.uint16, 8: np.uint64}[t.itemsize])
        nan = raw.view(t)
    x = np.array([np.inf, 0.0, 1.0, 2.0, -0.0], np.float32).astype(t)
    x[3] = nan[0]
    upd = np.array([-np.inf, np.inf, 0.0, 5.0, 0.0, 0.0], np.float32).astype(t)
    upd[2] = nan[0]
    idx = np.array([0, 1, 2, 3, 4, 4], np.int64)
    want = scatter_elements(x, idx, upd, 0, red)
    if red in ("add", "mul"):
        nans = np.isnan(want.astype(np.float32))
        assert nans.sum() >= 2 and all(v.tobytes() == np.array(np.nan, t).tobytes() for v in want[nans])
    for path in onemodel_ep.kernel_paths():
        types = [TensorProto.BFLOAT16 if t == BF16 else int(helper.np_dtype_to_tensor_dtype(t)), I64]
        node = Node(
            "ScatterElements",
            types + types[:1],
            onnx_opset=18,
            attributes={"reduction": red},
            kernel_path=path,
            name="n",
        )
        _same(f"{red} {t} {path}", node.run_outputs(x, idx, upd)[0], want)


@pytest.mark.parametrize(
    "op,itype,x,idx,upd,attrs,msg",
    [
        (
            "ScatterElements",
            np.int64,
            (3, 4),
            [[0, 4]],
            (1, 2),
            {"axis": 1},
            "index 4 \\(element 1 of input 1\\) is out of range for axis 1 of size 4 \\(allowed: -4 to 3\\)",
        ),
        (
            "ScatterElements",
            np.int32,
            (3, 4),
            [[-3], [-4]],
            (2, 1),
            {},
            "index -4 \\(element 1 of input 1\\) is out of range for axis 0 of size 3",
        ),
        ("ScatterElements", np.int64, (0, 4), [[0]], (1, 1), {}, "index 0 .* of size 0"),
        (
            "ScatterElements",
            np.int64,
            (3, 4),
            [0, 1],
            (2,),
            {},
            "input 1 \\(indices\\) has rank 1, input 0 \\(data\\) rank 2",
        ),
        (
            "ScatterElements",
            np.int64,
            (3, 4),
            [[0] * 5],
            (1, 5),
            {},
            "has 5 along dimension 1, more than input 0 \\(data\\)'s 4",
        ),
        (
            "ScatterElements",
            np.int64,
            (3, 4),
            [[0, 1]],
            (1, 3),
            {},
            "input 2 \\(updates\\) has 3 along dimension 1, input 1 \\(indices\\) 2",
        ),
        (
            "ScatterElements",
            np.int64,
            (3, 4),
            [[0]],
            (1, 1),
            {"axis": 2},
            "axis 2 is out of range for rank 2",
        ),
        (
            "ScatterND",
            np.int64,
            (3, 4),
            [[1, 4]],
            (1,),
            {},
            "index 4 \\(element 1 of input 1\\) is out of range for data dimension 1 of size 4",
        ),
        ("ScatterND", np.int64, (3, 4), [[-4, 0]], (1,), {}, "index -4 .* data dimension 0 of size 3"),
        (
            "ScatterND",
            np.int64,
            (3, 4),
            [[0, 1, 2]],
            (1,),
            {},
            "last dimension of input 1 \\(indices\\) is 3; it must be 1 to 2",
        ),
        ("ScatterND", np.int64, (3, 4), [[0]], (1, 3), {}, "input 2 \\(updates\\) must have the shape"),
    ],
)
def test_run_errors(
    op: str,
    itype: type,
    x: tuple[int, ...],
    idx: list,
    upd: tuple[int, ...],
    attrs: dict[str, object],
    msg: str,
) -> None:
    node = Node(
        op, [F32, I32 if itype is np.int32 else I64, F32], onnx_opset=18, attributes=attrs, name="bad"
    )
    with pytest.raises(NodeError, match=msg) as e:
        node.run_outputs(np.zeros(x, np.float32), np.array(idx, itype), np.ones(upd, np.float32))
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize(
    "op,types,opset,attrs,msg",
    [
        ("ScatterND", [F32, I32, F32], 13, {}, "type int32 for input 1"),
        ("ScatterElements", [F32, F32, F32], 13, {}, "type float for input 1"),
        ("ScatterElements", [F32, I64, TensorProto.DOUBLE], 13, {}, "input 2 \\(updates\\) does not match"),
        ("ScatterElements", [F32, I64, F32], 10, {}, "opset"),
        ("ScatterElements", [TensorProto.STRING, I64, TensorProto.STRING], 13, {}, "type"),
        ("ScatterElements", [F32, I64, F32], 13, {"reduction": "add"}, "'reduction' add is not in opset 13"),
        (
            "ScatterND",
            [F32, I64, F32],
            16,
            {"reduction": "max"},
            "'reduction' max is not in opset 16 \\(from 18\\)",
        ),
        (
            "ScatterND",
            [F32, I64, F32],
            18,
            {"reduction": "sum"},
            "'reduction' must be none, add, mul, max or min",
        ),
        (
            "ScatterElements",
            [TensorProto.BOOL, I64, TensorProto.BOOL],
            18,
            {"reduction": "add"},
            "reduction add on element type bool is not served",
        ),
        ("ScatterND", [F32, I64, F32], 18, {"axis": 0}, "'axis' is not one of ScatterND's"),
        ("ScatterElements", [TensorProto.BFLOAT16, I64, TensorProto.BFLOAT16], 11, {}, "needs opset 13"),
    ],
)
def test_creation_errors(op: str, types: list[int], opset: int, attrs: dict[str, object], msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node(op, types, onnx_opset=opset, attributes=attrs, name="bad")
    assert "'bad'" in str(e.value) and op in str(e.value)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("op", list(CASES))
def test_index_out_of_range_is_a_run_error_naming_node_and_op(via: str, op: str) -> None:
    x = helper.make_tensor_value_info("x", F32, ["n", "m"])
    i = helper.make_tensor_value_info("i", I64, ["a", "b"])
    u = helper.make_tensor_value_info("u", F32, ["c"] if op == "ScatterND" else ["a", "b"])
    y = helper.make_tensor_value_info("y", F32, None)
    node = helper.make_node(op, ["x", "i", "u"], ["y"], name="put")
    sess = quiet_session(one_node_model(node, [x, i, u], [y], 18), via)
    assert all(n.moved for n in sess.report.nodes)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    upd = np.array([-1.0] if op == "ScatterND" else [[-1.0, -2.0]], np.float32)  # one tuple (k = 2), one row
    with pytest.raises(Exception, match=f"put.*{op}.*index 7 .* out of range"):
        sess.run(None, {"x": data, "i": np.array([[0, 7]], np.int64), "u": upd})
    ok = np.array([[2, -1]], np.int64)
    want = (
        scatter_elements(data, ok, upd, 0, "none")
        if op == "ScatterElements"
        else scatter_nd(data, ok, upd, "none")
    )
    _same(
        "after the error", sess.run(None, {"x": data, "i": ok, "u": upd})[0], want
    )  # the session stays usable
