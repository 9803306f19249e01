"""The attention pattern MatMul -> [Div|Mul by a scalar] -> [Add mask] -> Softmax(last axis) -> MatMul
fused into one node on the execution provider (docs/attention.md, "The attention pattern fused"): the fused
node gives the bits of the same nodes unfused (EP option fuse="0") and of the rewrite path, on every kernel
path and at 1 and 2 threads; what is not the pattern is left unfused; close to stock ORT."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from tests.ep.ep_sessions import check_fused, ep_session, make_model, nodes_run, run
from tests.nodes.node_sessions import assert_exact_bits, stock

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)")

F, H16 = TensorProto.FLOAT, TensorProto.FLOAT16


def attn_model(
    q: Sequence[int | str],
    kt: Sequence[int | str],
    v: Sequence[int | str],
    scale: str | None = "Div",
    mask: Sequence[int | str] | None = None,
    transpose_k: bool = False,
    t: int = F,
    axis: int | None = -1,
    opset: int = 17,
    extra_outputs: Sequence[str] = (),
) -> onnx.ModelProto:
    """o = MatMul(Softmax(Add(Div(MatMul(q, kt), c), mask)), v); kt an input, or Transpose(k) of k given as
    [.., Skv, D] (transpose_k); the scale and the mask optional."""
    nodes = []
    ins: dict[str, tuple[int, Sequence[int | str]]] = {"q": (t, q), "v": (t, v)}
    if transpose_k:
        perm = list(range(len(kt)))
        perm[-2:] = perm[-1], perm[-2]
        ins["k"] = (t, [kt[i] for i in perm])
        nodes.append(helper.make_node("Transpose", ["k"], ["kt"], name="tr", perm=perm))
    else:
        ins["kt"] = (t, kt)
    nodes.append(helper.make_node("MatMul", ["q", "kt"], ["s"], name="qk"))
    last = "s"
    consts = []
    d = q[-1] if isinstance(q[-1], int) else 64
    if scale is not None:
        c = np.sqrt(np.float32(d)) if scale == "Div" else np.float32(1) / np.sqrt(np.float32(d))
        dt = onnx.helper.tensor_dtype_to_np_dtype(t)
        consts.append(numpy_helper.from_array(np.array(c, dtype=dt), "c"))
        nodes.append(helper.make_node(scale, [last, "c"], ["sc"], name="scale"))
        last = "sc"
    if mask is not None:
        ins["mask"] = (t, mask)
        nodes.append(helper.make_node("Add", [last, "mask"], ["sm"], name="mask"))
        last = "sm"
    kw = {} if axis is None else {"axis": axis}
    nodes.append(helper.make_node("Softmax", [last], ["p"], name="softmax", **kw))
    nodes.append(helper.make_node("MatMul", ["p", "v"], ["o"], name="pv"))
    outs: dict[str, tuple[int, Sequence[int | str] | None]] = {"o": (t, None)}
    outs.update({k: (t, None) for k in extra_outputs})
    m = make_model(nodes, ins, outs, consts)
    m.opset_import[0].version = opset
    return m


def feeds(m: onnx.ModelProto, shapes: dict[str, Sequence[int]], seed: int = 35) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for vi in m.graph.input:
        dt = onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        s = shapes[vi.name]
        if vi.name == "mask":  # 0 where attended, a large negative where masked
            out[vi.name] = np.where(rng.random(s) < 0.25, -10000.0, 0.0).astype(dt)
        else:
            out[vi.name] = (rng.standard_normal(s) * 2).astype(dt)
    return out


def test_bert_shape_every_path_and_thread_count() -> None:
    """B 2, H 4, S 77, D 64, Div scale, the [B, 1, 1, Skv] mask, K via Transpose."""
    m = attn_model([2, 4, 77, 64], [2, 4, 64, 77], [2, 4, 77, 64], mask=[2, 1, 1, 77], transpose_k=True)
    f = feeds(m, {"q": (2, 4, 77, 64), "k": (2, 4, 77, 64), "v": (2, 4, 77, 64), "mask": (2, 1, 1, 77)})
    want = check_fused(m, f, every_way=True)
    # close to stock ORT: each op is within a few ulp of stock's, the output a weighted mean of V (|v| ~ 2)
    np.testing.assert_allclose(want, stock(m, f)[0], rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    ("sq", "skv", "d", "scale", "mask"),
    [
        (5, 300, 64, "Mul", [1, 1, 5, 300]),  # Skv > 256
        (130, 600, 65, "Div", [2, 1, 130, 600]),  # Skv > 512, K 65, per-row mask, 3 row blocks
        (40, 513, 64, None, [2, 1, 1, 513]),  # no scale
        (7, 20, 65, "Mul", None),  # no mask
        (1, 1, 1, "Div", [1, 1, 1, 1]),
    ],
)
def test_shapes_scales_and_masks(
    sq: int, skv: int, d: int, scale: str | None, mask: list[int] | None
) -> None:
    q, kt, v = [2, 3, sq, d], [2, 3, d, skv], [2, 3, skv, 16]
    m = attn_model(q, kt, v, scale=scale, mask=mask)
    shapes = {"q": q, "kt": kt, "v": v}
    if mask is not None:
        shapes["mask"] = mask
    check_fused(m, feeds(m, shapes), every_way=sq == 130)


def test_minus_inf_mask_rows_and_mul_scalar_first() -> None:
    """A mask row all -inf: the Softmax row is NaN, as unfused; Mul(c, S); a 3-D (one head) form."""
    m = attn_model([4, 9, 64], [4, 64, 300], [4, 300, 8], scale="Mul", mask=[4, 9, 300])
    m.graph.node[1].input[:] = ["c", "s"]
    f = feeds(m, {"q": (4, 9, 64), "kt": (4, 64, 300), "v": (4, 300, 8), "mask": (4, 9, 300)})
    f["mask"][1, 3, :] = -np.inf
    f["mask"][2, :, 5] = -np.inf
    got = check_fused(m, f)
    assert np.isnan(got[1, 3]).all() and not np.isnan(got[0]).any()


def test_float16() -> None:
    q, kt, v = [1, 2, 40, 64], [1, 2, 64, 270], [1, 2, 270, 64]
    m = attn_model(q, kt, v, mask=[1, 1, 1, 270], t=H16)
    f = feeds(m, {"q": q, "kt": kt, "v": v, "mask": [1, 1, 1, 270]})
    want = check_fused(m, f, every_way=True)
    np.testing.assert_allclose(want.astype(np.float32), stock(m, f)[0].astype(np.float32), rtol=0, atol=2e-2)


def test_broadcast_batch_and_symbolic_shapes() -> None:
    """K and V shared by the heads ([B, 1, ..]), symbolic dimensions, and a zero-size query."""
    m = attn_model(["b", 4, "s", 64], ["b", 1, 64, "t"], ["b", 1, "t", 32], mask=["b", 1, 1, "t"])
    f = feeds(m, {"q": (2, 4, 50, 64), "kt": (2, 1, 64, 70), "v": (2, 1, 70, 32), "mask": (2, 1, 1, 70)})
    check_fused(m, f)
    f0 = feeds(m, {"q": (2, 4, 0, 64), "kt": (2, 1, 64, 70), "v": (2, 1, 70, 32), "mask": (2, 1, 1, 70)})
    got = run(m, f0)[0]
    assert got.shape == (2, 4, 0, 32)
    f1 = feeds(m, {"q": (2, 4, 3, 64), "kt": (2, 1, 64, 0), "v": (2, 1, 0, 32), "mask": (2, 1, 1, 0)})
    assert_exact_bits("no key", run(m, f1)[0], run(m, f1, fuse=False)[0])


def test_fast_mode_same_bits_as_unfused() -> None:
    m = attn_model([1, 2, 20, 64], [1, 2, 64, 30], [1, 2, 30, 64], mask=[1, 1, 20, 30])
    f = feeds(m, {"q": (1, 2, 20, 64), "kt": (1, 2, 64, 30), "v": (1, 2, 30, 64), "mask": (1, 1, 20, 30)})
    assert_exact_bits("fast", run(m, f, mode="fast")[0], run(m, f, mode="fast", fuse=False)[0])


@pytest.mark.parametrize(
    "case",
    [
        "graph_output",
        "axis_not_last",
        "opset11_default_axis",
        "mask_widens",
        "div_scalar_first",
        "vector_scale",
    ],
)
def test_not_the_pattern_is_not_fused(case: str) -> None:
    """An intermediate a graph output, Softmax along another axis, a mask that widens the scores, c / S, a
    non-scalar scale: no fused attention (the nodes run as before, the same bits)."""
    q, kt, v = [2, 3, 6, 8], [2, 3, 8, 6], [2, 3, 6, 8]
    mask = [2, 1, 1, 6]
    kw: dict[str, object] = {}
    if case == "graph_output":
        kw["extra_outputs"] = ["sc"]
    elif case == "axis_not_last":
        kw["axis"] = 2
    elif case == "opset11_default_axis":
        kw.update(axis=None, opset=11)
    elif case == "mask_widens":
        q, kt, v, mask = [1, 3, 6, 8], [1, 3, 8, 6], [1, 3, 6, 8], [2, 1, 1, 6]
    m = attn_model(q, kt, v, mask=mask, **kw)  # type: ignore[arg-type]
    if case == "div_scalar_first":
        m.graph.node[1].input[:] = ["c", "s"]
    if case == "vector_scale":
        m.graph.initializer[0].CopyFrom(numpy_helper.from_array(np.full(6, 2.0, np.float32), "c"))
    f = feeds(m, {"q": q, "kt": kt, "v": v, "mask": mask})
    names = nodes_run(m, f)
    assert "Softmax" in names, names
    assert_exact_bits(case, run(m, f)[0], run(m, f, fuse=False)[0])


def test_runtime_shape_error_names_the_node() -> None:
    m = attn_model(["b", 2, "s", "d"], ["b", 2, "e", "t"], ["b", 2, "t", 8], mask=["b", 1, 1, "t"])
    sess = ep_session(m)
    bad = feeds(m, {"q": (1, 2, 4, 8), "kt": (1, 2, 9, 5), "v": (1, 2, 5, 8), "mask": (1, 1, 1, 5)})
    with pytest.raises(Exception, match=r"node 'qk' \(op MatMul\)"):
        sess.run(None, bad)
    good = feeds(m, {"q": (1, 2, 4, 8), "kt": (1, 2, 8, 5), "v": (1, 2, 5, 8), "mask": (1, 1, 1, 5)})
    assert_exact_bits("after an error", sess.run(None, good)[0], run(m, good, fuse=False)[0])


@pytest.mark.parametrize("name", ["bert_tiny", "llama_tiny"])
def test_whole_models_fuse_with_the_unfused_bits(name: str) -> None:
    """Both attentions of each model fuse (no Softmax runs alone); every output has the unfused bits."""
    m = onnx.load(f"testdata/models/{name}.onnx")
    rng = np.random.default_rng(7)
    f = {"input_ids": rng.integers(0, 256, (2, 40)).astype(np.int64)}
    if name == "bert_tiny":
        f["attention_mask"] = np.ones((2, 40), np.int64)
        f["attention_mask"][1, 30:] = 0
    assert "Softmax" not in nodes_run(m, f)
    for got, want in zip(run(m, f), run(m, f, fuse=False), strict=True):
        assert_exact_bits(name, got, want)


def test_constant_keys_and_values_and_compile_dispatch() -> None:
    """K^T and V 2-D initializers (the MatMuls pack them once, as unfused) and dispatch="compile"."""
    m = attn_model([2, 3, 40, 64], [64, 90], [90, 24], mask=[2, 1, 1, 90])
    rng = np.random.default_rng(11)
    for name, shape in (("kt", (64, 90)), ("v", (90, 24))):
        a = rng.standard_normal(shape).astype(np.float32)
        m.graph.initializer.append(numpy_helper.from_array(a, name))
        keep = [vi for vi in m.graph.input if vi.name != name]
        del m.graph.input[:]
        m.graph.input.extend(keep)
    f = feeds(m, {"q": (2, 3, 40, 64), "mask": (2, 1, 1, 90)})
    want = check_fused(m, f)
    assert_exact_bits("compile", run(m, f, dispatch="compile")[0], want)
    assert_exact_bits("compile, unfused", run(m, f, dispatch="compile", fuse=False)[0], want)


def test_mask_that_widens_at_run_time_fails_clearly() -> None:
    """Declared of one symbolic batch, fed two: the fused node refuses the run, naming the node."""
    m = attn_model(["b", 2, "s", 8], ["b", 2, 8, "t"], ["b", 2, "t", 8], mask=["b", 1, 1, "t"])
    f = feeds(m, {"q": (1, 2, 4, 8), "kt": (1, 2, 8, 5), "v": (1, 2, 5, 8), "mask": (2, 1, 1, 5)})
    with pytest.raises(Exception, match="node 'mask' in a fused attention: the mask widens the scores"):
        run(m, f)
