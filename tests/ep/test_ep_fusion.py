"""Fused element-wise chains on the execution provider (docs/architecture.md, "Fused element-wise chains"):
the fused node gives the bits of the same nodes unfused (EP option fuse="0") and of the rewrite path, on every
kernel path and thread count; what ORT runs is one node per chain; an intermediate value something else reads
is never fused away; the report still counts every member as OneModel's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from tests.ep.ep_sessions import ep_session, fused_names, make_model, nodes_run, run
from tests.nodes.node_sessions import PATHS, assert_exact_bits

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)")

N = 70_001  # not a multiple of the tile (4,096) or of the chunk (16,384)


def _scalar(name: str, t: int, v: float) -> onnx.TensorProto:
    return helper.make_tensor(name, t, [], [v])


def chain5(t: int = TensorProto.FLOAT, shape: Sequence[int | str] = ("n",)) -> onnx.ModelProto:
    """Add a scalar, Mul by a same-shape input, Exp, Sigmoid, Sub a scalar."""
    nodes = [
        helper.make_node("Add", ["x", "c"], ["a"], name="add"),
        helper.make_node("Mul", ["a", "y"], ["b"], name="mul"),
        helper.make_node("Exp", ["b"], ["e"], name="exp"),
        helper.make_node("Sigmoid", ["e"], ["s"], name="sig"),
        helper.make_node("Sub", ["s", "c"], ["z"], name="sub"),
    ]
    return make_model(nodes, {"x": (t, shape), "y": (t, shape)}, {"z": (t, None)}, [_scalar("c", t, 0.5)])


def cheap_chain(t: int) -> onnx.ModelProto:
    """Only exactly rounded IEEE operations, for a numpy reference: Add c, Mul y, Neg, Abs, Relu, Sub y."""
    nodes = [
        helper.make_node("Add", ["x", "c"], ["a"], name="add"),
        helper.make_node("Mul", ["a", "y"], ["b"], name="mul"),
        helper.make_node("Neg", ["b"], ["ng"], name="neg"),
        helper.make_node("Abs", ["ng"], ["ab"], name="abs"),
        helper.make_node("Relu", ["ab"], ["r"], name="relu"),
        helper.make_node("Sub", ["r", "y"], ["z"], name="sub"),
    ]
    return make_model(nodes, {"x": (t, ["n"]), "y": (t, ["n"])}, {"z": (t, None)}, [_scalar("c", t, 0.25)])


def feeds(n: int = N, dtype: type = np.float32, shape: Sequence[int] | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(35)
    s = tuple(shape) if shape is not None else (n,)
    return {k: (rng.standard_normal(s) * 3).astype(dtype) for k in ("x", "y")}


def test_chain_is_one_node() -> None:
    m, f = chain5(), feeds(1000)
    assert len(fused_names(nodes_run(m, f))) == 1 and len(nodes_run(m, f)) == 1
    assert fused_names(nodes_run(m, f, fuse=False)) == []
    assert len(nodes_run(m, f, fuse=False)) == 5


def test_chain5_same_bits_every_path_and_thread_count() -> None:
    m, f = chain5(), feeds()
    want = run(m, f, fuse=False)[0]
    rewrite = onemodel_ep.InferenceSession(m, mode="exact", via="rewrite").run(None, f)[0]
    assert_exact_bits("rewrite vs EP unfused", rewrite, want)
    for path in PATHS:
        assert_exact_bits(f"fused, path {path}", run(m, f, path=path)[0], want)
    assert_exact_bits("fused, 2 threads", run(m, f, threads=2)[0], want)
    assert_exact_bits("fused, dispatch=compile", run(m, f, dispatch="compile")[0], want)
    # close to stock ORT: our exact Exp and Sigmoid are correctly rounded, stock's within a few ulp of them
    np.testing.assert_allclose(want, run_stock(m, f), rtol=1e-5, atol=1e-6)


def run_stock(model: onnx.ModelProto, f: dict[str, np.ndarray]) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, f)[0]


def test_chain5_fast_mode_same_bits_as_unfused() -> None:
    m, f = chain5(), feeds()
    for path in PATHS:  # fast mode's bits may differ between paths, never between fused and unfused
        want = run(m, f, fuse=False, path=path, mode="fast")[0]
        assert_exact_bits(f"fast, path {path}", run(m, f, path=path, mode="fast")[0], want)
    want = run(m, f, fuse=False, mode="fast")[0]
    assert_exact_bits("fast, 2 threads", run(m, f, threads=2, mode="fast")[0], want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cheap_chain_numpy_reference(dtype: type) -> None:
    t = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    m, f = cheap_chain(t), feeds(dtype=dtype)
    x, y = f["x"], f["y"]
    c = dtype(0.25)
    want = np.maximum(np.abs(-((x + c) * y)), dtype(0)) - y  # each step one rounding, as the docs say
    for path in PATHS:
        assert_exact_bits(f"{dtype.__name__}, path {path}", run(m, f, path=path)[0], want)
    assert_exact_bits(f"{dtype.__name__}, 2 threads", run(m, f, threads=2)[0], want)
    assert_exact_bits(f"{dtype.__name__}, unfused", run(m, f, fuse=False)[0], want)


def test_intermediate_graph_output_is_kept() -> None:
    """Exp's output is a graph output as well as Sigmoid's input: the chain breaks there."""
    nodes = [
        helper.make_node("Add", ["x", "c"], ["a"], name="add"),
        helper.make_node("Exp", ["a"], ["e"], name="exp"),
        helper.make_node("Sigmoid", ["e"], ["s"], name="sig"),
        helper.make_node("Mul", ["s", "y"], ["z"], name="mul"),
    ]
    t = TensorProto.FLOAT
    outs: dict[str, tuple[int, Sequence[int | str] | None]] = {"e": (t, None), "z": (t, None)}
    m = make_model(nodes, {"x": (t, ["n"]), "y": (t, ["n"])}, outs, [_scalar("c", t, 0.5)])
    f = feeds()
    assert len(fused_names(nodes_run(m, f))) == 2  # Add -> Exp, Sigmoid -> Mul
    want = run(m, f, fuse=False)
    got = run(m, f)
    for k in range(2):
        assert_exact_bits(f"output {k}", got[k], want[k])


def test_branch_two_consumers_not_fused_through() -> None:
    """Exp's output feeds two nodes: Add -> Exp fuse, each branch stays its own."""
    nodes = [
        helper.make_node("Add", ["x", "c"], ["a"], name="add"),
        helper.make_node("Exp", ["a"], ["e"], name="exp"),
        helper.make_node("Sigmoid", ["e"], ["s"], name="sig"),
        helper.make_node("Tanh", ["e"], ["th"], name="tanh"),
        helper.make_node("Mul", ["s", "th"], ["z"], name="mul"),
    ]
    t = TensorProto.FLOAT
    m = make_model(nodes, {"x": (t, ["n"]), "y": (t, ["n"])}, {"z": (t, None)}, [_scalar("c", t, 0.5)])
    f = feeds()
    names = nodes_run(m, f)
    assert len(fused_names(names)) == 2, names  # Add -> Exp, and Sigmoid (or Tanh) -> Mul
    assert_exact_bits("branch", run(m, f)[0], run(m, f, fuse=False)[0])


def test_long_chain_cut_and_cast_inside() -> None:
    """20 nodes, a Cast to double in the middle: cut into chains of at most 16."""
    nodes = [
        helper.make_node("Neg" if i % 2 else "Abs", [f"v{i}"], [f"v{i + 1}"], name=f"n{i}") for i in range(10)
    ]
    nodes.append(helper.make_node("Cast", ["v10"], ["w0"], to=TensorProto.DOUBLE, name="cast"))
    nodes += [helper.make_node("Add", [f"w{i}", "cd"], [f"w{i + 1}"], name=f"m{i}") for i in range(9)]
    m = make_model(
        [helper.make_node("Sqrt", ["x"], ["v0"], name="sqrt"), *nodes],
        {"x": (TensorProto.FLOAT, ["n"])},
        {"w9": (TensorProto.DOUBLE, None)},
        [_scalar("cd", TensorProto.DOUBLE, 0.1)],
    )
    f = {"x": feeds()["x"]}
    names = nodes_run(m, f)
    assert len(fused_names(names)) == 2 and len(names) == 2, names  # 16 + 5
    want = run(m, f, fuse=False)[0]
    assert want.dtype == np.float64
    for path in PATHS:
        assert_exact_bits(f"path {path}", run(m, f, path=path)[0], want)


def test_two_node_chain_beside_a_registered_kernel() -> None:
    """A fused node and a node claimed alone (Softmax: structured, and no producer that heads a chain) in one
    graph, registry dispatch."""
    t = TensorProto.FLOAT
    nodes = [
        helper.make_node("Softmax", ["x"], ["p"], name="sm"),
        helper.make_node("Add", ["p", "c"], ["a"], name="add"),
        helper.make_node("Tanh", ["a"], ["z"], name="tanh"),
    ]
    rng = np.random.default_rng(1)
    m = make_model(nodes, {"x": (t, ["b", 64])}, {"z": (t, None)}, [_scalar("c", t, 0.5)])
    f = {"x": rng.standard_normal((300, 64)).astype(np.float32)}
    names = nodes_run(m, f)
    assert len(fused_names(names)) == 1 and "Softmax" in names and len(names) == 2, names
    assert_exact_bits("mixed", run(m, f)[0], run(m, f, fuse=False)[0])


def test_zero_size_and_broadcast_at_run_time() -> None:
    """Symbolic shapes: a zero-size input; inputs that broadcast beyond each other (run member by member)."""
    t = TensorProto.FLOAT
    nodes = [
        helper.make_node("Add", ["x", "y"], ["a"], name="add"),
        helper.make_node("Exp", ["a"], ["e"], name="exp"),
        helper.make_node("Mul", ["e", "x"], ["z"], name="mul"),
    ]
    m = make_model(nodes, {"x": (t, ["r", "k"]), "y": (t, ["s", "k2"])}, {"z": (t, None)})
    rng = np.random.default_rng(2)
    empty = {"x": np.zeros((0, 5), np.float32), "y": np.zeros((0, 5), np.float32)}
    got = run(m, empty)[0]
    assert got.shape == (0, 5)
    wide = {
        "x": rng.standard_normal((300, 1)).astype(np.float32),
        "y": rng.standard_normal((1, 70)).astype(np.float32),
    }
    want = run(m, wide, fuse=False)[0]
    assert want.shape == (300, 70)
    assert_exact_bits("broadcast", run(m, wide)[0], want)
    assert_exact_bits("broadcast, 2 threads", run(m, wide, threads=2)[0], want)


def test_runtime_shape_error_names_the_members() -> None:
    m = chain5(shape=("n",))
    m.graph.input[1].type.tensor_type.shape.dim[0].dim_param = "other"
    sess = ep_session(m)
    bad = {"x": np.zeros(6, np.float32), "y": np.zeros(4, np.float32)}
    with pytest.raises(Exception, match=r"fused chain 'add' \(Add\) -> 'mul' \(Mul\).*'mul'"):
        sess.run(None, bad)
    good = feeds(100)
    assert_exact_bits("after an error", sess.run(None, good)[0], run(m, good, fuse=False)[0])


def test_report_counts_every_member() -> None:
    m = chain5()
    sess = onemodel_ep.InferenceSession(m, mode="exact", via="ep")
    moved = sorted(n.op for n in sess.report.moved)
    assert moved == ["Add", "Exp", "Mul", "Sigmoid", "Sub"], sess.report.summary()
    assert_exact_bits("InferenceSession", sess.run(None, feeds(100))[0], run(m, feeds(100), fuse=False)[0])


def test_value_read_by_a_subgraph_is_not_fused_away() -> None:
    """Exp's output feeds Sigmoid and, implicitly, an If's branches: Exp and Sigmoid stay apart."""
    t = TensorProto.FLOAT
    then = helper.make_graph(
        [helper.make_node("Abs", ["a"], ["o1"])], "then", [], [helper.make_tensor_value_info("o1", t, None)]
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["a"], ["o2"])], "else", [], [helper.make_tensor_value_info("o2", t, None)]
    )
    nodes = [
        helper.make_node("Exp", ["x"], ["a"], name="exp"),
        helper.make_node("Sigmoid", ["a"], ["b"], name="sig"),
        helper.make_node("If", ["cond"], ["r"], then_branch=then, else_branch=other, name="if"),
    ]
    m = make_model(nodes, {"x": (t, ["n"]), "cond": (TensorProto.BOOL, [])}, {"b": (t, None), "r": (t, None)})
    f = {"x": feeds(1000)["x"], "cond": np.array(True)}
    assert fused_names(nodes_run(m, f)) == []
    got, want = run(m, f), run(m, f, fuse=False)
    for k in range(2):
        assert_exact_bits(f"output {k}", got[k], want[k])


def test_many_inputs() -> None:
    """Ten Sum nodes of eight inputs each: the fused node has 71 inputs."""
    t = TensorProto.FLOAT
    nodes, prev, names = [], "x0", ["x0"]
    for i in range(10):
        extra = [f"x{i}_{k}" for k in range(7)]
        names += extra
        nodes.append(helper.make_node("Sum", [prev, *extra], [f"s{i}"], name=f"sum{i}"))
        prev = f"s{i}"
    m = make_model(nodes, {k: (t, ["n"]) for k in names}, {prev: (t, None)})
    rng = np.random.default_rng(3)
    f = {k: rng.standard_normal(5000).astype(np.float32) for k in names}
    assert len(fused_names(nodes_run(m, f))) == 1
    want = f["x0"]
    for i in range(10):  # Sum folds left to right, one rounding per addition
        for k in range(7):
            want = want + f[f"x{i}_{k}"]
    assert_exact_bits("sum chain", run(m, f)[0], want)
    assert_exact_bits("sum chain unfused", run(m, f, fuse=False)[0], want)
