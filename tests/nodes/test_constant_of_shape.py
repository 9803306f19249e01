"""ConstantOfShape (node_constant_of_shape.c, docs/data-movement.md) through the execution provider and
the rewrite against the contract written here in NumPy (every element of the output, of the shape input 0
gives, has the bits of the one element of the tensor attribute `value`; float +0.0 when it is absent) and
against stock ONNX Runtime, byte for byte: every stored type with random bits (NaN payloads and -0.0
included), bfloat16 from opset 20, a scalar and zero-size outputs, an output of several parallel chunks on
every kernel path and 1 and 2 threads, a constant shape folded by OneModel's own kernel. Bad values, shapes
and attributes fail with node, op and problem named, never an abort.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
import onemodel_ep.ep
from onemodel_ep.fold import fold
from onemodel_ep.node import Node, NodeError
from tests.nodes.movement_cases import BF16, STORED, bits, onnx_type
from tests.nodes.node_sessions import VIAS, assert_exact_bits, runs, session, stock

OP = "ConstantOfShape"
PLAIN = tuple(t for t in STORED if t != BF16)  # the types ORT's Python binding reads back


def cos_want(shape: tuple[int, ...], value: np.ndarray | None) -> np.ndarray:
    """The contract: `value`'s one element's bits at every position (float +0.0 when absent)."""
    v = np.zeros(1, np.float32) if value is None else value.reshape(-1)
    u = v.view(f"u{v.dtype.itemsize}")
    return np.full(shape, u[0], dtype=u.dtype).view(v.dtype)


IR_OF_OPSET = {9: 4, 20: 9, 21: 10, 23: 11, 25: 13}  # the lowest IR version each opset needs


def cos_model(values: list[np.ndarray | None], opset: int = 21, shape: np.ndarray | None = None,
              cast_to_float: bool = False) -> onnx.ModelProto:
    """One ConstantOfShape per value, all of the graph input `shape` (an initializer when given); with
    cast_to_float each output is Cast to float32 (ORT's Python binding reads no bfloat16)."""
    nodes, outputs = [], []
    for k, value in enumerate(values):
        attrs = {} if value is None else {"value": numpy_helper.from_array(value, "value")}
        y = f"y{k}"
        nodes.append(helper.make_node(OP, ["shape"], [y], name=f"cos{k}", **attrs))
        if cast_to_float:
            nodes.append(helper.make_node("Cast", [y], [f"f{k}"], name=f"cast{k}", to=TensorProto.FLOAT))
            outputs.append(helper.make_tensor_value_info(f"f{k}", TensorProto.FLOAT, None))
        else:
            elem = TensorProto.FLOAT if value is None else onnx_type(value.dtype)
            outputs.append(helper.make_tensor_value_info(y, elem, None))
    inputs = [] if shape is not None else [helper.make_tensor_value_info("shape", TensorProto.INT64, [None])]
    inits = [] if shape is None else [numpy_helper.from_array(shape, "shape")]
    graph = helper.make_graph(nodes, "cos", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=IR_OF_OPSET.get(opset, 10))


def feeds(shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {"shape": np.array(shape, np.int64)}


def test_one_node_every_way_in_chunks() -> None:
    """A float NaN with a payload over [3, 70001] (four parallel chunks of 65,536): the same bits on every way
    in, kernel path and thread count, as the contract and stock ORT."""
    value = np.array([0x7FC12345], np.uint32).view(np.float32)
    model = cos_model([value])
    shape = (3, 70001)
    want = cos_want(shape, value)
    assert_exact_bits("stock ORT vs contract", stock(model, feeds(shape))[0], want)
    for what, (got,) in runs(model, feeds(shape), OP).items():
        assert_exact_bits(what, got, want)


@pytest.mark.parametrize("via", VIAS)
def test_every_stored_type_random_bits(via: str) -> None:
    values = [None] + [bits((1,), t, seed=k) for k, t in enumerate(PLAIN)]
    values.append(np.array([-0.0], np.float64))
    model = cos_model(values)
    shape = (2, 3, 5)
    sess = session(model, via, None, 1)
    assert [n.op for n in sess.report.moved] == [OP] * len(values), sess.report.summary()
    got = sess.run(None, feeds(shape))
    want_stock = stock(model, feeds(shape))
    for value, g, s in zip(values, got, want_stock):
        what = f"via {via}, value {value!r}"
        assert_exact_bits(what, g, cos_want(shape, value))
        assert_exact_bits(what + " (stock ORT)", s, cos_want(shape, value))


@pytest.mark.parametrize("opset", sorted(IR_OF_OPSET))
def test_every_opset_ort_registers(opset: int) -> None:
    """ORT 1.31.1 registers ConstantOfShape at opsets 9, 20, 21, 23 and 25: one reading, served at each."""
    value = np.array([-3], np.int8)
    model = cos_model([value], opset=opset)
    for via in VIAS:
        sess = session(model, via, None, 1)
        assert [n.op for n in sess.report.moved] == [OP], (via, sess.report.summary())
        (got,) = sess.run(None, feeds((2, 3)))
        assert_exact_bits(f"via {via}, opset {opset}", got, cos_want((2, 3), value))


@pytest.mark.parametrize("via", VIAS)
def test_bfloat16_value_from_opset_20(via: str) -> None:
    value = np.array([-3.140625], BF16)
    model = cos_model([value], opset=20, cast_to_float=True)
    sess = session(model, via, None, 1)
    assert sorted(n.op for n in sess.report.moved) == ["Cast", OP], sess.report.summary()
    (got,) = sess.run(None, feeds((4, 3)))
    assert_exact_bits(f"via {via}", got, cos_want((4, 3), value).astype(np.float32))
    with pytest.raises(NodeError, match=r"node 'n' \(op ConstantOfShape\): element type bfloat16 of "
                                        r"attribute 'value' needs opset 20 or later \(opset 19\)"):
        Node(OP, [TensorProto.INT64], onnx_opset=19, attributes={"value": value}, name="n")


@pytest.mark.parametrize("via", VIAS)
def test_scalar_and_zero_size(via: str) -> None:
    value = np.array([7], np.int16)
    model = cos_model([value])
    sess = session(model, via, None, 1)
    for shape in ((), (0,), (4, 0, 2), (0, 1 << 40)):
        (got,) = sess.run(None, feeds(shape))
        assert_exact_bits(f"via {via}, shape {shape}", got, cos_want(shape, value))


def test_constant_shape_is_folded_by_our_kernel() -> None:
    value = np.array([2.5], np.float16)
    model = cos_model([value], shape=np.array([3, 2], np.int64))
    model.graph.node.append(helper.make_node("Identity", ["y0"], ["z"], name="id"))
    model.graph.output[0].name = "z"
    folded = fold(model)
    assert [n.op_type for n in folded.graph.node] == ["Identity"]
    init = {t.name: numpy_helper.to_array(t) for t in folded.graph.initializer}
    assert_exact_bits("folded", init["y0"], cos_want((3, 2), value))


def test_bad_attributes_are_refused_with_node_and_op_named() -> None:
    int64 = [TensorProto.INT64]
    with pytest.raises(NodeError, match=r"node 'n' \(op ConstantOfShape\): attribute 'value' must have "
                                        r"exactly one element, it has 2"):
        Node(OP, int64, onnx_opset=21, attributes={"value": np.array([1.0, 2.0], np.float32)}, name="n")
    with pytest.raises(NodeError, match=r"attribute 'value' must have exactly one element, it has 0"):
        Node(OP, int64, onnx_opset=21, attributes={"value": np.zeros(0, np.int32)}, name="n")
    text = helper.make_tensor("value", TensorProto.STRING, [1], [b"x"])
    with pytest.raises(NodeError, match=r"\(op ConstantOfShape\): unsupported element type string for "
                                        r"attribute 'value'"):
        Node(OP, int64, onnx_opset=21, attributes={"value": text}, name="n")
    with pytest.raises(NodeError, match=r"unsupported element type int32 for input 0"):
        Node(OP, [TensorProto.INT32], onnx_opset=21, name="n")
    with pytest.raises(NodeError, match=r"input 1 \(the output type's witness\) has element type int8, "
                                        r"attribute 'value' has float"):
        Node(OP, [TensorProto.INT64, TensorProto.INT8], onnx_opset=21, name="n")


@pytest.mark.parametrize("via", VIAS)
def test_bad_shapes_fail_clearly(via: str) -> None:
    """A negative dimension of a constant shape at session creation; of a fed one, and a shape of 2^62 bytes
    or more, at run time (the session stays usable); an allocation that fails (4 TiB) is ORT's error, never an
    abort."""
    model = cos_model([None], shape=np.array([2, -1], np.int64))
    with pytest.raises(Exception) as created:  # noqa: PT011 - checked below
        session(model, via, None, 1)
    msg = str(created.value)  # via ep stock ORT's ONNX inference stops it first, in its own words
    assert "cos0" in msg and "ConstantOfShape" in msg and "negative" in msg, msg
    if via == "rewrite":
        assert "input 0 (shape) has a negative dimension -1 at index 1" in msg, msg
    sess = session(cos_model([np.array([1], np.int64)]), via, None, 1)
    with pytest.raises(Exception, match=r"node 'cos0' \(op ConstantOfShape\): input 0 \(shape\) has a "
                                        r"negative dimension -3 at index 0"):
        sess.run(None, feeds((-3, 2)))
    with pytest.raises(Exception, match=r"node 'cos0' \(op ConstantOfShape\): output shape \[2147483648, "
                                        r"2147483648\] of int64 needs 2\^62 bytes or more"):
        sess.run(None, feeds((1 << 31, 1 << 31)))
    with pytest.raises(Exception):  # noqa: B017, PT011 - ORT's own allocation error, whatever its words
        sess.run(None, feeds((1 << 39,)))
    (got,) = sess.run(None, feeds((2,)))
    assert_exact_bits("after the errors", got, cos_want((2,), np.array([1], np.int64)))
    untyped = cos_model([None])
    del untyped.graph.input[0].type.tensor_type.shape.dim[:]
    untyped.graph.input[0].type.tensor_type.ClearField("shape")  # rank unknown until fed
    sess = session(untyped, via, None, 1)
    with pytest.raises(Exception, match=NOT_1D):
        sess.run(None, {"shape": np.ones((1, 2), np.int64)})


NOT_1D = r"node 'cos0' \(op ConstantOfShape\): input 0 \(shape\) must be 1-D, it has rank 2"


def test_declared_rank_2_refused_at_creation() -> None:
    """Through the rewrite ONNX inference lets it pass (the EP's stock ORT stops it first, with its own
    words): our kernel refuses it when created."""
    model = cos_model([None])
    model.graph.input[0].type.tensor_type.shape.dim.add().dim_value = 2
    with pytest.raises(Exception, match=NOT_1D):
        session(model, "rewrite", None, 1)


def test_not_served_stays_with_stock() -> None:
    """A string value: the library refuses it, so the EP does not claim the node and the rewrite leaves it."""
    text = helper.make_tensor("value", TensorProto.STRING, [1], [b"x"])
    node = helper.make_node(OP, ["shape"], ["y"], name="s", value=text)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("shape", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(model, report=report)
    assert [(n.op, n.moved) for n in report.nodes] == [(OP, False)]
    assert "unsupported element type string" in report.nodes[0].reason


@pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="the EP needs ORT 1.24+")
def test_compile_dispatch_reads_the_attribute_too() -> None:
    """dispatch=compile builds the node from the OrtNode (member 362) as GetCapability does: every type's
    bits."""
    values = [None] + [bits((1,), t, seed=50 + k) for k, t in enumerate(PLAIN)]
    model = cos_model(values)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 2
    options = onemodel_ep.ep.ep_session_options(so, "exact", None, "compile")
    sess = ort.InferenceSession(model.SerializeToString(), options, enable_fallback=0)
    assert len(onemodel_ep.ep.claimed_names(onemodel_ep.ep.assignments(sess))) == len(values)
    shape = (3, 4)
    for value, got in zip(values, sess.run(None, feeds(shape)), strict=True):
        assert_exact_bits(f"compile, value {value!r}", got, cos_want(shape, value))
