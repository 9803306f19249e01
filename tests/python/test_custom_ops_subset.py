"""Registering only the custom ops a session lists (session config entry onemodel.custom_ops,
provider/csrc/ort/custom_ops_subset.c; onemodel_ep.custom_ops.session_options(so, ops=...)): a session over
the listed ops runs with the full registration's bits, an op outside the list is ORT's clear error naming it,
distinct lists coexist in one process (each domain is kept), and the rewrite path lists its model's ops."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep._lib import DOMAIN, op_table
from onemodel_ep.custom_ops import OPS_KEY, custom_op_types, session_options

_A = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
_B = np.linspace(0.5, 2, 12, dtype=np.float32).reshape(3, 4)


def _binary(ops: list[str], elem: int = TensorProto.FLOAT) -> onnx.ModelProto:
    """y = ops[-1](...ops[1](ops[0](a, b), b)..., b), every node of ai.onemodel."""
    nodes, prev = [], "a"
    for k, op in enumerate(ops):
        out = "y" if k == len(ops) - 1 else f"t{k}"
        nodes.append(helper.make_node(op, [prev, "b"], [out], domain=DOMAIN))
        prev = out
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, elem, [3, 4]) for n in "ab"],
                              [helper.make_tensor_value_info("y", elem, [3, 4])])
    opsets = [helper.make_opsetid("", 19), helper.make_opsetid(DOMAIN, 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _run(model: onnx.ModelProto, ops: list[str] | None, a: np.ndarray = _A, b: np.ndarray = _B) -> np.ndarray:
    so = session_options(ort.SessionOptions(), ops=ops)
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"a": a, "b": b})[0]


def test_subset_runs_with_the_full_registrations_bits() -> None:
    model = _binary(["Mul", "Div", "Sub"])
    want = _run(model, None)
    for ops in (["Mul", "Div", "Sub"], ["Sub", "Div", "Mul", "Mul"], ["Div", "Mul", "Sub", "NoSuchOp"]):
        got = _run(model, ops)
        assert got.tobytes() == want.tobytes(), ops
    np.testing.assert_allclose(want, (_A * _B) / _B - _B, rtol=1e-6)


def _child_env() -> dict[str, str | None]:
    """A child Python that imports this module by name (tests/ep/child.py), onemodel_ep as this one does."""
    here = str(Path(__file__).resolve().parent)
    return {"PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)}


def outside_error(model_ops: list[str], listed: list[str]) -> str:
    """ORT's error for a session of `model_ops` registering only `listed` ("" if it ran): run in a child
    process, whose domain cache is empty (a long test process may have passed the cache's 64 lists, after
    which every session gets every op)."""
    try:
        _run(_binary(model_ops), listed)
    except Exception as e:  # noqa: BLE001 - ORT's error, whatever its class
        return str(e)
    return ""


def test_op_outside_the_list_is_orts_error_naming_it() -> None:
    from tests.ep.child import run_in_child

    env = _child_env()
    msg = run_in_child("test_custom_ops_subset", "outside_error", [["Mul", "Div"], ["Mul"]], env=env)
    assert re.search(r"ai\.onemodel:Div\(-1\) is not a registered function/op", msg), msg
    msg = run_in_child("test_custom_ops_subset", "outside_error", [["Mul"], []], env=env)
    assert re.search(r"ai\.onemodel:Mul\(-1\) is not a registered function/op", msg), msg


def test_distinct_lists_coexist_in_one_process() -> None:
    first = _run(_binary(["Add"]), ["Add"])
    second = _run(_binary(["Add", "Max"]), ["Max", "Add"])
    again = _run(_binary(["Add"]), ["Add"])  # the first list's domain, kept
    assert first.tobytes() == again.tobytes() == (_A + _B).tobytes()
    assert second.tobytes() == np.maximum(_A + _B, _B).tobytes()


CACHE_MAX = 1024  # OM_SUBSET_CACHE_MAX (provider/csrc/ort/custom_ops_subset.h)


def cache_overflow() -> bool:
    """In a fresh process: CACHE_MAX + 6 distinct lists, each session running; then a list never seen (Abs
    alone) runs Min too, since the cache stopped keeping new domains at CACHE_MAX and such a session gets
    every op."""
    model = _binary(["Min"])
    others = [key for key in op_table() if key not in ("Min", "Abs")]
    pairs = [["Min", a, b] for i, a in enumerate(others) for b in others[i:]]
    lists = pairs[: CACHE_MAX + 6]  # distinct sets
    for names in lists:
        assert _run(model, names).tobytes() == np.minimum(_A, _B).tobytes()
    return _run(model, ["Abs"]).tobytes() == np.minimum(_A, _B).tobytes()


def test_more_lists_than_the_cache_fall_back_to_every_op() -> None:
    """Past CACHE_MAX distinct lists (OM_SUBSET_CACHE_MAX) a session gets the full domain: it still runs, and
    so does an op outside its list (the process has then stopped keeping new domains). In a child process: a
    list this process cached earlier (a test worker caches many) would get its own domain instead."""
    from tests.ep.child import run_in_child

    assert run_in_child("test_custom_ops_subset", "cache_overflow", [], env=_child_env()) is True


def test_pow_typed_entries_come_with_the_name() -> None:
    a = np.arange(12, dtype=np.int32).reshape(3, 4) % 5
    b = np.full((3, 4), 3, dtype=np.int32)
    got = _run(_binary(["Pow"], TensorProto.INT32), ["Pow"], a, b)
    assert got.dtype == np.int32 and got.tobytes() == (a**3).tobytes()


def test_registration_is_fixed_once_made() -> None:
    so = session_options(ort.SessionOptions(), ops=["Add"])
    assert so.get_session_config_entry(OPS_KEY) == "Add"
    assert session_options(so, ops=["Add"]) is so  # already covered: harmless
    with pytest.raises(ValueError, match=r"\['Add'\] only, not for \['Mul'\]"):
        session_options(so, ops=["Mul", "Add"])
    with pytest.raises(ValueError, match="not for every op"):
        session_options(so)
    with pytest.raises(ValueError, match="cannot contain ','"):
        session_options(ort.SessionOptions(), ops=["Add,Mul"])
    full = session_options(ort.SessionOptions())
    assert session_options(full, ops=["Mul"]) is full  # every op already registered


def test_custom_op_types_reads_subgraphs() -> None:
    body_node = helper.make_node("Neg", ["x"], ["z"], domain=DOMAIN)
    body = helper.make_graph([body_node], "then", [],
                             [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])])
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["w"])], "else", [],
                               [helper.make_tensor_value_info("w", TensorProto.FLOAT, [3])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=branch),
             helper.make_node("Abs", ["y"], ["o"], domain=DOMAIN), helper.make_node("Abs", ["o"], ["p"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                           helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("p", TensorProto.FLOAT, [3])])
    assert custom_op_types(helper.make_model(graph)) == ["Abs", "Neg"]


def test_rewrite_path_lists_its_models_ops() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Mul", ["e", "x"], ["y"])]
    y_info = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
    graph = helper.make_graph(nodes, "g", [x], [y_info])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=10)
    so = ort.SessionOptions()
    sess = onemodel_ep.InferenceSession(model, so, via="rewrite")
    assert sess.rewritten_model is not None
    listed = so.get_session_config_entry(OPS_KEY)
    assert listed == ",".join(custom_op_types(sess.rewritten_model)) == "Exp,Mul"
    y = sess.run(None, {"x": _A})[0]
    np.testing.assert_allclose(y, np.exp(_A) * _A, rtol=1e-6)


def test_sessions_made_on_several_threads_at_once() -> None:
    """The domain cache is shared: sessions over distinct and equal lists made concurrently all run."""
    from concurrent.futures import ThreadPoolExecutor

    lists = [["Add", "Sub"], ["Sub", "Add"], ["Add", "Sub", "Neg"], ["Add", "Sub", "Abs"]] * 3
    model = _binary(["Add", "Sub"])
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda ops: _run(model, ops), lists))
    assert all(out.tobytes() == (_A + _B - _B).tobytes() for out in outs)
