"""Einsum (node_einsum.c, docs/einsum.md) bit for bit against tests/reference/reference_einsum.py (written
from the doc: left-to-right steps, each product or sum-out the documented MatMul), on every way in, kernel
path and 1 and 2 threads for representative equations and on one session for the rest; float, double, int32
and int64 (wrapping); stock ONNX Runtime within the scaled bound below; malformed equations and inconsistent
shapes fail naming node, op and problem; zero-size dimensions.

Stock tolerance: stock and ours are each within gamma_n * sum|products| of the exact result (n the length of
the longest chain of roundings an element goes through: every summed label's size together plus one per
operand), so |ours - stock| <= 2 n u E with E = einsum of the absolute values in binary64 and u = 2^-24
(float) or 2^-53 (double).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.node import Node, NodeError
from tests.nodes.node_sessions import assert_bits, runs, session, stock
from tests.reference.reference_einsum import einsum as einsum_ref

TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.int32: TensorProto.INT32,
         np.int64: TensorProto.INT64}


def model(equation: str, shapes: list[tuple[int | None, ...] | None], dt: type,
          name: str = "ein") -> onnx.ModelProto:
    ins = [helper.make_tensor_value_info(f"x{i}", TYPES[dt], s) for i, s in enumerate(shapes)]
    out = helper.make_tensor_value_info("y", TYPES[dt], None)
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation, name=name)
    return helper.make_model(helper.make_graph([node], "g", ins, [out]), ir_version=8,
                             opset_imports=[helper.make_opsetid("", 13)])


def inputs(shapes: list[tuple[int, ...]], dt: type, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "i":  # large values: the products and sums wrap
        info = np.iinfo(dt)
        return [rng.integers(info.min, info.max, size=s, dtype=dt, endpoint=True) for s in shapes]
    xs = [np.asarray(rng.standard_normal(s) * 4, dtype=dt) for s in shapes]
    for x in xs:
        x.reshape(-1)[::7] *= -0.0 if x.size else 1  # some signed zeros
    return xs


def feeds_of(xs: list[np.ndarray]) -> dict[str, np.ndarray]:
    return {f"x{i}": x for i, x in enumerate(xs)}


def stock_close(equation: str, xs: list[np.ndarray], got: np.ndarray, want: np.ndarray) -> None:
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    u = 2.0 ** -24 if got.dtype == np.float32 else 2.0 ** -53
    absolute = np.einsum(equation, *[np.abs(x.astype(np.float64)) for x in xs])
    n = len(xs) + max(1, sum(x.size for x in xs))  # generous: at least every summed label's sizes together
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert np.all(diff <= 2 * n * u * absolute + 1e-300), equation


# equations exporters write, and the forms the doc names (diagonal, summed-out letters, broadcast, scalars)
CASES: list[tuple[str, list[tuple[int, ...]]]] = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhid,bhjd->bhij", [(1, 3, 5, 8), (1, 3, 6, 8)]),
    ("bhij,bhjd->bhid", [(1, 3, 5, 6), (1, 3, 6, 8)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij->...ji", [(2, 3, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 300)]),  # K past one 256-block of the MatMul
    ("ij", [(3, 4)]),  # implicit: the letters used once, alphabetically
    ("ij,jk", [(3, 4), (4, 5)]),
    ("Ba,aC", [(2, 3), (3, 4)]),  # upper-case letters sort before lower-case ones
    ("...i,...i->...", [(3, 1, 4), (1, 2, 4)]),  # broadcast ellipsis dims
    ("ij,jk->ik", [(2, 1), (3, 4)]),  # a size-1 letter broadcast
    ("bij->bj", [(2, 3, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),  # two contracted letters, in equation order
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ij,ij,ij->ij", [(2, 3)] * 3),
    ("ij,k->", [(2, 3), (4,)]),  # letters of one input summed before the product
    (",ij->ij", [(), (2, 3)]),
    ("->", [()]),
    ("...,...->...", [(2, 3), (1, 3)]),
]

REPRESENTATIVE = ["bhid,bhjd->bhij", "bn,anm,bm->ba", "iij->j"]


@pytest.mark.parametrize("equation", REPRESENTATIVE)
def test_every_way_in_path_and_thread_count(equation: str) -> None:
    shapes = dict(CASES)[equation]
    xs = inputs(shapes, np.float32)
    want = einsum_ref(equation, *xs)
    for what, out in runs(model(equation, shapes, np.float32), feeds_of(xs), "Einsum").items():
        assert_bits(f"{equation} {what}", out[0], want)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("equation,shapes", CASES)
def test_reference_bits_and_stock(equation: str, shapes: list[tuple[int, ...]], dt: type) -> None:
    if dt == np.float64 and sum(int(np.prod(s)) for s in shapes) > 200:
        shapes = [tuple(min(d, 3) for d in s) for s in shapes]  # the f64 fma reference is slow (MPFR)
        if len({tuple(s) for s in shapes}) and equation == "ij->":
            shapes = [(2, 260)]
    xs = inputs(shapes, dt, seed=len(equation))
    m = model(equation, shapes, dt)
    sess = session(m, "ep" if onemodel_ep.ep_supported() else "rewrite", None, 1)
    assert [n.op for n in sess.report.moved] == ["Einsum"], sess.report.summary()
    got = sess.run(None, feeds_of(xs))[0]
    want = einsum_ref(equation, *xs)
    assert_bits(f"{equation} {np.dtype(dt).name}", got, want)
    if np.dtype(dt).kind == "i":  # stock's integer sums do not wrap (some saturate): small values for it
        xs = [np.asarray(x % 7 - 3, dtype=dt) for x in xs]
        got = sess.run(None, feeds_of(xs))[0]
        assert_bits(f"{equation} {np.dtype(dt).name}, small", got, einsum_ref(equation, *xs))
    try:
        theirs = stock(m, feeds_of(xs))[0]
    except Exception:  # noqa: BLE001 - stock refuses some equations we serve (upper case first, ...)
        return
    stock_close(equation, xs, got, theirs)


@pytest.mark.parametrize(
    "equation,shapes,zero",
    [
        ("ij,jk->ik", [(2, 0), (0, 3)], True),  # empty K: +0
        ("i,i->", [(0,), (0,)], True),
        ("ij->i", [(3, 0)], True),
        ("ij,jk->ik", [(0, 2), (2, 3)], False),  # empty output
        ("bij,bjk->bik", [(0, 2, 3), (0, 3, 4)], False),
        ("...ij->...ji", [(0, 2, 3)], False),
    ],
)
def test_zero_size(equation: str, shapes: list[tuple[int, ...]], zero: bool) -> None:
    xs = inputs(shapes, np.float32)
    sess = session(model(equation, shapes, np.float32), "rewrite", None, 1)
    got = sess.run(None, feeds_of(xs))[0]
    want = np.einsum(equation, *xs)
    assert got.shape == want.shape
    if zero:
        assert got.size and np.all(got.view(np.uint32) == 0)  # +0, not -0
    assert_bits(equation, got, einsum_ref(equation, *xs))


def test_ellipses_of_different_ranks_broadcast() -> None:
    # ONNX's shape inference refuses these in a model; the node serves them as NumPy does (right-aligned)
    for equation, shapes in (("...i,...i->...", [(3, 2, 4), (2, 4)]), ("...,...->...", [(2, 3), (3,)])):
        xs = inputs(shapes, np.float32)
        node = Node("Einsum", [TensorProto.FLOAT] * 2, onnx_opset=12, attributes={"equation": equation})
        got = node.run(*xs)
        assert got.shape == np.einsum(equation, *xs).shape
        assert_bits(equation, got, einsum_ref(equation, *xs))


def test_signed_zero_and_nan_follow_the_matmul() -> None:
    a = np.array([-0.0, 1.0, np.uint32(0xFFC01234).view(np.float32)], np.float32)  # a NaN with a payload
    b = np.array([2.0, -0.0], np.float32)
    got = Node("Einsum", [TensorProto.FLOAT] * 2, onnx_opset=12, attributes={"equation": "i,j->ij"}).run(a, b)
    # no contracted letter: fma(a, b, +0), so (-0) * 2 gives +0; a NaN product is the canonical quiet NaN
    assert got[0, 0].tobytes() == np.float32(0.0).tobytes()
    assert [hex(v) for v in got[2].view(np.uint32)] == ["0x7fc00000"] * 2
    assert_bits("i,j->ij", got, einsum_ref("i,j->ij", a, b))
    moved = Node("Einsum", [TensorProto.FLOAT], onnx_opset=12, attributes={"equation": "ij->ji"})
    x = np.array([[-0.0, np.nan]], np.float32)
    assert moved.run(x).tobytes() == x.T.copy().tobytes()  # only moved: every bit kept


@pytest.mark.parametrize(
    "equation,n,msg",
    [
        ("ij,jk->ik", 1, "2 input terms, the node 1 inputs"),
        ("ij->ik", 1, "output letter 'k' is in no input term"),
        ("ij->ii", 1, "output letter 'i' appears more than once"),
        ("i.j->ij", 1, "not part of an ellipsis"),
        ("...i...->i", 1, "more than one ellipsis"),
        ("ij->i->j", 1, "a second \"->\""),
        ("i1->i", 1, "character '1'"),
    ],
)
def test_bad_equation_names_node_and_op(equation: str, n: int, msg: str) -> None:
    with pytest.raises(NodeError, match=msg) as e:
        Node("Einsum", [TensorProto.FLOAT] * n, onnx_opset=12, attributes={"equation": equation}, name="bad")
    assert "'bad'" in str(e.value) and "Einsum" in str(e.value)


def test_missing_equation_and_other_types() -> None:
    with pytest.raises(NodeError, match="'bad'.*Einsum.*equation' is required"):
        Node("Einsum", [TensorProto.FLOAT], onnx_opset=12, name="bad")
    for t in (TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT32):
        with pytest.raises(NodeError, match="type"):
            Node("Einsum", [t], onnx_opset=12, attributes={"equation": "ij->ji"}, name="bad")
    with pytest.raises(NodeError, match="opset"):
        Node("Einsum", [TensorProto.FLOAT], onnx_opset=11, attributes={"equation": "ij->ji"}, name="bad")


def test_float16_is_left_to_stock() -> None:
    x = helper.make_tensor_value_info("x0", TensorProto.FLOAT16, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)
    node = helper.make_node("Einsum", ["x0"], ["y"], equation="ij->ji", name="half")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y]), ir_version=8,
                          opset_imports=[helper.make_opsetid("", 13)])
    sess = session(m, "rewrite", None, 1)
    assert [n.moved for n in sess.report.nodes] == [False]


@pytest.mark.parametrize(
    "equation,shapes,msg",
    [
        ("ij,jk->ik", [(2, 3), (4, 5)], "letter 'j' has size 4 at axis 0 of input 1, 3 in an input before"),
        ("ii->i", [(2, 3)], "letter 'i' is repeated in input 0 with sizes 2 .axis 0. and 3"),
        ("...i,...i->...i", [(2, 4), (3, 4)], "ellipsis dim 0 of input 1 has size 3"),
    ],
)
def test_inconsistent_sizes_fail_at_run(equation: str, shapes: list[tuple[int, ...]], msg: str) -> None:
    node = Node("Einsum", [TensorProto.FLOAT] * len(shapes), onnx_opset=12, attributes={"equation": equation},
                name="sizes")
    with pytest.raises(NodeError, match=msg) as e:
        node.run(*inputs(shapes, np.float32))
    assert "'sizes'" in str(e.value) and "Einsum" in str(e.value)


VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


@pytest.mark.parametrize("via", VIAS)
def test_rank_mismatch_is_refused_at_session_creation(via: str) -> None:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    # ours, or ONNX's shape inference where ORT runs it first
    msg = r"rankbad.*Einsum.*(input 1 has rank 3, its term has 2|Rank of input 1 .3.)"
    with pytest.raises(Exception, match=msg):
        onemodel_ep.InferenceSession(model("ij,jk->ik", [(2, 3), (3, 4, 5)], np.float32, "rankbad"),
                                     sess_options=so, via=via)


@pytest.mark.parametrize("via", VIAS)
def test_dynamic_shapes_checked_at_run(via: str) -> None:
    m = model("ij,jk->ik", [(None, None), (None, None)], np.float32, "dyn")
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = onemodel_ep.InferenceSession(m, sess_options=so, via=via)
    assert [n.op for n in sess.report.moved] == ["Einsum"]
    with pytest.raises(Exception, match="dyn.*Einsum.*letter 'j' has size 5"):
        sess.run(None, feeds_of(inputs([(2, 3), (5, 4)], np.float32)))
    xs = inputs([(2, 3), (3, 4)], np.float32)
    assert_bits("dynamic", sess.run(None, feeds_of(xs))[0], einsum_ref("ij,jk->ik", *xs))



@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the EP needs ORT 1.24+")
@pytest.mark.parametrize("equation", ["bn,anm,bm->ba", "...ii->..."])
def test_compile_dispatch_gives_the_reference(equation: str) -> None:
    from onemodel_ep import ep

    shapes = {"bn,anm,bm->ba": [(2, 3), (4, 3, 5), (2, 5)], "...ii->...": [(2, 3, 4, 4)]}[equation]
    xs = inputs(shapes, np.float32)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    options = ep.ep_session_options(so, "exact", None, "compile")
    sess = ort.InferenceSession(model(equation, shapes, np.float32).SerializeToString(), options,
                                enable_fallback=0)
    assert len(ep.claimed_names(ep.assignments(sess))) == 1
    assert_bits(f"compile: {equation}", sess.run(None, feeds_of(xs))[0], einsum_ref(equation, *xs))


def _random_equation(rng: np.random.Generator) -> tuple[str, list[tuple[int, ...]]]:
    """1 to 3 inputs of up to 3 letters (repeats allowed) and sometimes an ellipsis (size-1 dims among its
    dims), implicit or explicit output; letter sizes 0 to 4."""
    letters = "abcdeAB"
    size = {c: int(rng.integers(0 if rng.random() < 0.1 else 1, 5)) for c in letters}
    ell = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    use_ell = rng.random() < 0.3
    terms, shapes = [], []
    for _ in range(int(rng.integers(1, 4))):
        t = [str(c) for c in rng.choice(list(letters), size=int(rng.integers(0, 4)))]
        shp = [size[c] for c in t]
        if use_ell and rng.random() < 0.7:
            e, pos = int(rng.integers(0, len(ell) + 1)), int(rng.integers(0, len(t) + 1))
            t.insert(pos, "...")
            shp[pos:pos] = [1 if rng.random() < 0.3 else s for s in ell[len(ell) - e:]]
        terms.append("".join(t))
        shapes.append(tuple(shp))
    if rng.random() < 0.5:
        return ",".join(terms), shapes
    used = sorted({c for t in terms for c in t if c != "."})
    out = [str(c) for c in rng.permutation(used)[: int(rng.integers(0, len(used) + 1))]] if used else []
    if any("..." in t for t in terms) and rng.random() < 0.8:
        out.insert(int(rng.integers(0, len(out) + 1)), "...")
    return ",".join(terms) + "->" + "".join(out), shapes


@pytest.mark.parametrize("dt", [np.float32, np.int64])
def test_random_equations(dt: type) -> None:
    rng = np.random.default_rng(34)
    compared = 0
    for _ in range(80):
        equation, shapes = _random_equation(rng)
        xs = [np.asarray(rng.standard_normal(s) * 3).astype(dt) for s in shapes]
        node = Node("Einsum", [TYPES[dt]] * len(xs), onnx_opset=12, attributes={"equation": equation})
        try:
            numpy_shape = np.einsum(equation, *xs).shape
        except ValueError:  # NumPy refuses it (a letter of two sizes, ...): so must we
            with pytest.raises(NodeError):
                node.run(*xs)
            continue
        got = node.run(*xs)
        assert got.shape == numpy_shape, equation
        assert_bits(f"{equation} {shapes}", got, einsum_ref(equation, *xs))
        compared += 1
    assert compared > 60


def test_a_plain_product_is_the_matmul_node() -> None:
    # the doc's claim, checked against the library's own MatMul node (K = 700: three 256-blocks)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 33, 700)).astype(np.float32)
    b = rng.standard_normal((2, 700, 17)).astype(np.float32)
    mm = Node("MatMul", [TensorProto.FLOAT] * 2, onnx_opset=13).run(a, b)
    bt = np.ascontiguousarray(b.transpose(0, 2, 1))
    for equation, x, y in (("bij,bjk->bik", a, b), ("bij,bkj->bik", a, bt)):
        node = Node("Einsum", [TensorProto.FLOAT] * 2, onnx_opset=12, attributes={"equation": equation})
        assert node.run(x, y).tobytes() == mm.tobytes(), equation
