"""Hostile and odd models through the rewriter and ONNX Runtime: each gives a clear error (naming node, op and
type where it applies) or the right result, and none takes the process down.

Every scenario that reaches the C library through ORT runs in a child Python process (`_isolated`), so a
crash is a failed test, not a dead test runner. The rewriter must never edit its input and never drop a node
silently (every default-domain node is in the report, with a reason when it stayed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep import DOMAIN
from onemodel_ep._lib import ffi, lib

OPSET = [helper.make_opsetid("", 17)]
OM_OPSET = [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)]


# ---- helpers


def _model(nodes, inputs, outputs, opset=None, initializers=()) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(g, opset_imports=opset or OPSET, ir_version=9)


def _vi(name: str, t: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


def _session_and_run(model_bytes: bytes, feeds: dict[str, Any], rewrite: bool) -> dict[str, Any]:
    """In the child: build a session (rewritten or as given) and run it; report the outcome as JSON data."""
    import onnxruntime as ort

    so = onemodel_ep.session_options()
    so.log_severity_level = 4
    stage = "rewrite"
    try:
        model = onnx.load_model_from_string(model_bytes)
        if rewrite:
            model = onemodel_ep.rewrite(model)
        moved = sum(n.domain == DOMAIN for n in model.graph.node)
        stage = "create"
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        stage = "run"
        outs = sess.run(
            None, {k: np.asarray(v["data"], dtype=v["dtype"]).reshape(v["shape"]) for k, v in feeds.items()}
        )
    except Exception as exc:  # the point: every failure is an exception with a message
        return {"stage": stage, "error": f"{type(exc).__name__}: {exc}"}
    return {
        "stage": "done",
        "error": None,
        "moved": moved,
        "shape_ref": lib.om_ort_glue_shape_ref(),
        "outputs": [
            {"shape": list(o.shape), "dtype": str(o.dtype), "data": o.ravel().tolist()} for o in outs
        ],
    }


def _feed(x: np.ndarray) -> dict[str, Any]:
    return {"data": x.ravel().tolist(), "dtype": str(x.dtype), "shape": list(x.shape)}


def _isolated(fn: str, *args: Any) -> dict[str, Any]:
    """Run `test_hostile.<fn>(*args)` in a child Python; fail (not crash) if the child dies."""
    from tests.ep.child import run_in_child  # here, not at the top: the child imports this module alone

    return run_in_child("test_hostile", fn, list(args), timeout=300)


def child_run(model_hex: str, feeds: dict[str, Any], rewrite: bool = True) -> dict[str, Any]:
    return _session_and_run(bytes.fromhex(model_hex), feeds, rewrite)


def child_run_many(jobs: list[list[Any]]) -> list[dict[str, Any]]:
    return [_session_and_run(bytes.fromhex(h), f, rw) for h, f, rw in jobs]


def _run_many(jobs: list[tuple[onnx.ModelProto, dict[str, np.ndarray], bool]]) -> list[dict[str, Any]]:
    """Several models in one child process (one process start instead of many)."""
    return _isolated(
        "child_run_many",
        [[m.SerializeToString().hex(), {k: _feed(v) for k, v in f.items()}, rw] for m, f, rw in jobs],
    )


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], rewrite: bool = True) -> dict[str, Any]:
    return _isolated(
        "child_run", model.SerializeToString().hex(), {k: _feed(v) for k, v in feeds.items()}, rewrite
    )


def _assert_error(r: dict[str, Any], stage: str, *words: str) -> None:
    assert r["error"], f"expected an error at {stage}, got {r}"
    assert r["stage"] == stage, f"error at {r['stage']}, expected {stage}: {r['error']}"
    for w in words:
        assert w in r["error"], f"{w!r} not in the error message: {r['error']}"


def _out(r: dict[str, Any], k: int = 0) -> np.ndarray:
    assert r["error"] is None, r["error"]
    o = r["outputs"][k]
    return np.array(o["data"], dtype=o["dtype"]).reshape(o["shape"])


def _check_rewriter(model: onnx.ModelProto) -> None:
    """The rewriter leaves its input alone and reports every default-domain node (a reason if it stayed)."""
    before = model.SerializeToString()
    rep = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(model, report=rep)
    assert model.SerializeToString() == before, "rewrite() edited its input"

    def count(g: onnx.GraphProto) -> int:
        n = 0
        for node in g.node:
            n += node.domain in ("", "ai.onnx")
            for a in node.attribute:
                n += sum(count(s) for s in ([a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs))
        return n

    assert len(rep.nodes) == count(model.graph), rep.summary()
    assert all(n.moved or n.reason for n in rep.nodes), rep.summary()


# ---- shapes
# The glue reads input shapes through ORT's own dims on runtimes with C API 24+ and through a copy on
# older ones (or with ONEMODEL_LEGACY_SHAPES=1): the shape tests run both ways, and each checks its path.


@pytest.fixture(params=["api24", "legacy"])
def glue_shapes(request, monkeypatch) -> int:
    if request.param == "legacy":
        monkeypatch.setenv("ONEMODEL_LEGACY_SHAPES", "1")
        return 0
    monkeypatch.delenv("ONEMODEL_LEGACY_SHAPES", raising=False)
    return 1


def _assert_shape_path(r: dict[str, Any], expect: int) -> None:
    assert r["stage"] == "done", r
    assert r["shape_ref"] == expect, "the glue took the other shape path"


def test_unbroadcastable_shapes_at_run_time(glue_shapes: int):
    m = _model(
        [helper.make_node("Add", ["x", "y"], ["z"], name="add_sym")],
        [_vi("x", TensorProto.FLOAT, ["N"]), _vi("y", TensorProto.FLOAT, ["M"])],
        [_vi("z", TensorProto.FLOAT, None)],
    )
    _check_rewriter(m)
    ok = _run(m, {"x": np.arange(3, dtype=np.float32), "y": np.ones(1, np.float32)})
    _assert_shape_path(ok, glue_shapes)
    np.testing.assert_array_equal(_out(ok), np.arange(3, dtype=np.float32) + 1)
    assert ok["moved"] == 1
    r = _run(m, {"x": np.ones(3, np.float32), "y": np.ones(4, np.float32)})
    _assert_error(r, "run", "add_sym", "Add", "broadcast")


def test_variadic_and_where_mismatch_at_run_time(glue_shapes: int):
    m = _model(
        [
            helper.make_node("Sum", ["a", "b", "c"], ["s"], name="sum3"),
            helper.make_node("Where", ["k", "a", "b"], ["w"], name="where1"),
        ],
        [
            _vi("a", TensorProto.FLOAT, ["A"]),
            _vi("b", TensorProto.FLOAT, ["B"]),
            _vi("c", TensorProto.FLOAT, ["C", "D"]),
            _vi("k", TensorProto.BOOL, ["K"]),
        ],
        [_vi("s", TensorProto.FLOAT, None), _vi("w", TensorProto.FLOAT, None)],
    )
    ones = {"a": np.ones(2, np.float32), "b": np.ones(2, np.float32)}
    for c_shape, k_len, node, op in (((3, 5), 2, "sum3", "Sum"), ((3, 2), 7, "where1", "Where")):
        r = _run(m, {**ones, "c": np.ones(c_shape, np.float32), "k": np.ones(k_len, bool)})
        _assert_error(r, "run", node, op)
    r = _run(
        m,
        {
            "a": np.array([1, 2], np.float32),
            "b": np.array([10, 20], np.float32),
            "c": np.ones((3, 2), np.float32),
            "k": np.array([True, False]),
        },
    )
    _assert_shape_path(r, glue_shapes)
    np.testing.assert_array_equal(_out(r, 0), np.full((3, 2), 1, np.float32) + [11, 22])
    np.testing.assert_array_equal(_out(r, 1), np.array([1, 20], np.float32))


def test_zero_dimensions(glue_shapes: int):
    m = _model(
        [
            helper.make_node("Add", ["x", "y"], ["a"], name="add0"),
            helper.make_node("Sum", ["x", "y", "x"], ["s"], name="sum0"),
            helper.make_node("Cast", ["x"], ["c"], name="cast0", to=TensorProto.INT8),
            helper.make_node("Clip", ["x", "lo"], ["k"], name="clip0"),
        ],
        [
            _vi("x", TensorProto.FLOAT, ["N", 3]),
            _vi("y", TensorProto.FLOAT, [1, 3]),
            _vi("lo", TensorProto.FLOAT, []),
        ],
        [_vi(n, t, None) for n, t in (("a", 1), ("s", 1), ("c", 3), ("k", 1))],
    )
    _check_rewriter(m)
    r = _run(
        m,
        {"x": np.zeros((0, 3), np.float32), "y": np.ones((1, 3), np.float32), "lo": np.array(0, np.float32)},
    )
    _assert_shape_path(r, glue_shapes)
    assert r["moved"] == 4
    for k in range(4):
        assert _out(r, k).shape == (0, 3)


def test_huge_dimension_of_an_empty_tensor():
    # 0 x 2^58 floats: no bytes, and no multiplication by the huge dimension may happen first.
    m = _model(
        [helper.make_node("Add", ["x", "y"], ["z"], name="add_huge")],
        [_vi("x", TensorProto.FLOAT, ["N", "M"]), _vi("y", TensorProto.FLOAT, [1, 1])],
        [_vi("z", TensorProto.FLOAT, None)],
    )
    r = _run(m, {"x": np.empty((0, 2**58), np.float32), "y": np.ones((1, 1), np.float32)})
    if r["error"] is None:
        assert r["outputs"][0]["shape"] == [0, 2**58]
    else:  # ORT may refuse the shape itself; then it must say so at run time, cleanly
        assert r["stage"] == "run"


def test_byte_size_overflow_is_refused():
    """Element counts whose byte size overflows size_t/int64 (only reachable through the C API: no runtime
    can allocate the inputs): om_node_output_shape refuses them by node and op."""
    err = ffi.new("char[]", 512)
    types = ffi.new("int[]", [TensorProto.DOUBLE, TensorProto.DOUBLE])
    attrs = ffi.new("om_attrs*")
    attrs.path = -1
    node = lib.om_node_create(b"big", b"Add", 2, types, attrs, err, 512)
    assert node != ffi.NULL
    try:
        for a, b in (
            ([2**61], [1]),
            ([2**62, 1], [1, 2**62]),
            ([2**40, 1, 1], [1, 2**20, 2**10]),
            ([2**63 - 1], [1]),
        ):
            sa, sb = ffi.new("int64_t[]", a), ffi.new("int64_t[]", b)
            shapes = ffi.new("int64_t*[]", [sa, sb])
            ranks = ffi.new("size_t[]", [len(a), len(b)])
            out = ffi.new("int64_t[]", 64)
            rank = ffi.new("size_t*")
            rc = lib.om_node_output_shape(node, 2, shapes, ranks, out, rank, err, 512)
            msg = ffi.string(err).decode()
            assert rc != 0, f"{a} x {b} accepted"
            assert "big" in msg and "Add" in msg, msg
        # negative dimensions
        sa, sb = ffi.new("int64_t[]", [-1]), ffi.new("int64_t[]", [1])
        shapes = ffi.new("int64_t*[]", [sa, sb])
        ranks = ffi.new("size_t[]", [1, 1])
        assert (
            lib.om_node_output_shape(
                node, 2, shapes, ranks, ffi.new("int64_t[]", 64), ffi.new("size_t*"), err, 512
            )
            != 0
        )
    finally:
        lib.om_node_destroy(node)


def test_rank_beyond_the_limit_and_many_inputs(glue_shapes: int):
    # Rank 64 (the library's and NumPy's limit); 12 inputs of rank 10 exercise the glue's heap paths.
    big = [1] * 63 + [2]
    m = _model(
        [helper.make_node("Abs", ["x"], ["y"], name="abs64")],
        [_vi("x", TensorProto.FLOAT, big)],
        [_vi("y", TensorProto.FLOAT, None)],
    )
    r = _run(m, {"x": np.full(big, -2, np.float32)})
    _assert_shape_path(r, glue_shapes)
    np.testing.assert_array_equal(_out(r), np.full(big, 2, np.float32))
    shape = [1, 2, 1, 3, 1, 1, 2, 1, 1, 2]
    names = [f"i{k}" for k in range(12)]
    m = _model(
        [helper.make_node("Sum", names, ["s"], name="sum12")],
        [_vi(n, TensorProto.FLOAT, shape) for n in names],
        [_vi("s", TensorProto.FLOAT, None)],
    )
    feeds = {n: np.full(shape, k, np.float32) for k, n in enumerate(names)}
    r = _run(m, feeds)
    _assert_shape_path(r, glue_shapes)
    np.testing.assert_array_equal(_out(r), np.full(shape, sum(range(12)), np.float32))


# ---- optional inputs


def test_clip_missing_optional_inputs():
    x = np.array([-5, -1, 0, 2, 9], np.float32)
    cases = [
        (["x", "", "hi"], np.minimum(x, 1)),
        (["x", "lo"], np.maximum(x, -1)),
        (["x"], x),
        (["x", "", ""], x),
        (["x", "lo", "hi"], np.clip(x, -1, 1)),
    ]
    jobs = []
    for ins, _ in cases:
        m = _model(
            [helper.make_node("Clip", ins, ["y"], name="clip_opt")],
            [
                _vi("x", TensorProto.FLOAT, [5]),
                _vi("lo", TensorProto.FLOAT, []),
                _vi("hi", TensorProto.FLOAT, []),
            ],
            [_vi("y", TensorProto.FLOAT, None)],
        )
        _check_rewriter(m)
        jobs.append((m, {"x": x, "lo": np.array(-1, np.float32), "hi": np.array(1, np.float32)}, True))
    # A bound that is not a single value: refused at run time by node and op.
    m = _model(
        [helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_vec")],
        [_vi("x", TensorProto.FLOAT, [5]), _vi("lo", TensorProto.FLOAT, ["L"])],
        [_vi("y", TensorProto.FLOAT, None)],
    )
    jobs.append((m, {"x": x, "lo": np.zeros(2, np.float32)}, True))
    results = _run_many(jobs)
    for (ins, want), r in zip(cases, results):
        assert r.get("moved") == 1, (ins, r)
        np.testing.assert_array_equal(_out(r), want, err_msg=str(ins))
    _assert_error(results[-1], "run", "clip_vec", "Clip", "single value")


# ---- hand-written nodes


def _om_node(op: str, t: int, attrs: dict[str, Any], n_in: int = 2, name: str = "hand") -> onnx.ModelProto:
    ins = [f"x{k}" for k in range(n_in)]
    node = helper.make_node(op, ins, ["y"], name=name, domain=DOMAIN, **attrs)
    return _model([node], [_vi(i, t, [4]) for i in ins], [_vi("y", t, None)], opset=OM_OPSET)


BAD_ATTRIBUTES = [
    ("Add", {"mode": 1}, 2, ["mode", "string"]),
    ("Add", {"mode": "slow"}, 2, ["mode", "slow"]),
    ("Add", {"kernel_path": "1024"}, 2, ["kernel_path"]),
    ("Mod", {"fmod": 1.0}, 2, ["fmod", "integer"]),
    ("Mod", {"fmod": 7}, 2, ["fmod"]),
    ("Mod", {"fmod": 0}, 2, ["fmod"]),  # float type: fmod=0 is not defined
    ("LeakyRelu", {"alpha": "x"}, 1, ["alpha", "float"]),
    ("HardSigmoid", {"beta": 3}, 1, ["beta", "float"]),
    ("Gelu", {"approximate": "maybe"}, 1, ["approximate"]),
    ("Cast", {}, 1, ["to"]),
    ("Cast", {"to": 12345}, 1, ["12345"]),  # ORT refuses it first, by its own message
    ("Cast", {"to": "float"}, 1, ["to", "integer"]),
    ("Clip", {"min": "low"}, 1, ["min", "float"]),
    ("Add", {"onnx_opset": "x"}, 2, ["onnx_opset"]),
    ("Add", {}, 1, ["Add"]),  # arity
    ("Add", {}, 3, ["Add"]),
]


def test_bad_attributes_on_handwritten_nodes():
    jobs = [
        (
            _om_node(op, TensorProto.FLOAT, attrs, n_in),
            {f"x{k}": np.ones(4, np.float32) for k in range(n_in)},
            False,
        )
        for op, attrs, n_in, _ in BAD_ATTRIBUTES
    ]
    for (op, attrs, _, words), r in zip(BAD_ATTRIBUTES, _run_many(jobs)):
        assert r["error"], f"{op} {attrs}: accepted"
        assert r["stage"] == "create", (op, attrs, r)
        for w in words:
            assert w in r["error"], f"{op} {attrs}: {w!r} not in {r['error']}"


def test_unknown_attribute_is_ignored_with_the_right_result():
    r = _run(
        _om_node("Add", TensorProto.FLOAT, {"colour": "blue", "mode": "exact"}, 2),
        {"x0": np.full(4, 1.5, np.float32), "x1": np.full(4, 2.0, np.float32)},
        rewrite=False,
    )
    np.testing.assert_array_equal(_out(r), np.full(4, 3.5, np.float32))


def test_unsupported_types_on_handwritten_nodes():
    kinds = [
        (TensorProto.BFLOAT16, "bfloat16"),
        (TensorProto.STRING, "string"),
        (TensorProto.COMPLEX64, "complex64"),
    ]
    models = [
        _om_node("Add", t, {"mode": "exact"}, 2, name="add_bad").SerializeToString().hex() for t, _ in kinds
    ]
    for (_, name), r in zip(kinds, _isolated("child_create_only", models)):
        _assert_error(r, "create", "add_bad", "Add", name)


def child_create_only(models_hex: list[str]) -> list[dict[str, Any]]:
    import onnxruntime as ort

    so = onemodel_ep.session_options()
    so.log_severity_level = 4
    out: list[dict[str, Any]] = []
    for h in models_hex:
        try:
            ort.InferenceSession(bytes.fromhex(h), so, providers=["CPUExecutionProvider"])
            out.append({"stage": "done", "error": None})
        except Exception as exc:
            out.append({"stage": "create", "error": f"{type(exc).__name__}: {exc}"})
    return out


def test_rewriter_leaves_unsupported_types_with_a_reason():
    m = _model(
        [helper.make_node("Add", ["a", "b"], ["c"], name="bf_add")],
        [_vi("a", TensorProto.BFLOAT16, [2]), _vi("b", TensorProto.BFLOAT16, [2])],
        [_vi("c", TensorProto.BFLOAT16, None)],
    )
    rep = onemodel_ep.RewriteReport("exact", None)
    out = onemodel_ep.rewrite(m, report=rep)
    assert out.graph.node[0].domain == ""
    (n,) = rep.nodes
    assert not n.moved and n.category == "type" and "bfloat16" in n.reason
    _check_rewriter(m)


# ---- broken files


def child_load_files(paths: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            onemodel_ep.InferenceSession(path)
            out.append({"stage": "done", "error": None})
        except Exception as exc:
            out.append({"stage": "load", "error": f"{type(exc).__name__}: {exc}"})
    return out


def test_truncated_and_corrupt_model_files(tmp_path):
    m = _model(
        [helper.make_node("Add", ["x", "y"], ["z"], name="a")],
        [_vi("x", TensorProto.FLOAT, [3]), _vi("y", TensorProto.FLOAT, [3])],
        [_vi("z", TensorProto.FLOAT, None)],
    )
    data = m.SerializeToString()
    rng = np.random.default_rng(7)
    variants = {
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "garbage": rng.bytes(300),
        "flipped": bytes(b ^ 0xFF if i % 7 == 3 else b for i, b in enumerate(data)),
    }
    paths = []
    for name, blob in variants.items():
        paths.append(str(tmp_path / f"{name}.onnx"))
        Path(paths[-1]).write_bytes(blob)
    results = _isolated("child_load_files", [*paths, str(tmp_path / "missing.onnx")])
    # A clean Python exception (or, for a mutation that happens to stay valid, a working session).
    for name, r in zip(variants, results):
        assert r["error"] is None or r["stage"] == "load", (name, r)
    assert results[0]["error"] and results[1]["error"] and results[-1]["error"]


# ---- subgraphs


def _if_in_loop() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["acc", "two"], ["t_out"], name="then_mul")],
        "then",
        [],
        [_vi("t_out", f, [3])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["acc", "one"], ["e_out"], name="else_sub")],
        "else",
        [],
        [_vi("e_out", f, [3])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_f"], name="cast_i", to=f),
            helper.make_node("Mod", ["i", "two_i"], ["par"], name="mod_i"),
            helper.make_node("Equal", ["par", "zero_i"], ["even"], name="eq_i"),
            helper.make_node(
                "If", ["even"], ["branch"], name="if_even", then_branch=then_g, else_branch=else_g
            ),
            helper.make_node("Add", ["branch", "i_f"], ["acc_out"], name="add_i"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="id_c"),
        ],
        "body",
        [_vi("i", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []), _vi("acc", f, [3])],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("acc_out", f, [3])],
    )
    inits = [
        helper.make_tensor("two", f, [], [2.0]),
        helper.make_tensor("one", f, [], [1.0]),
        helper.make_tensor("two_i", TensorProto.INT64, [], [2]),
        helper.make_tensor("zero_i", TensorProto.INT64, [], [0]),
        helper.make_tensor("n", TensorProto.INT64, [], [6]),
        helper.make_tensor("c", TensorProto.BOOL, [], [True]),
    ]
    loop = helper.make_node("Loop", ["n", "c", "x"], ["y"], name="loop", body=body)
    return _model([loop], [_vi("x", f, [3])], [_vi("y", f, [3])], initializers=inits)


def test_if_inside_loop():
    m = _if_in_loop()
    _check_rewriter(m)
    rep = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(m, report=rep)
    moved = {n.name for n in rep.moved}
    assert {"then_mul", "else_sub", "add_i", "mod_i", "eq_i"} <= moved, rep.summary()
    x = np.array([1.0, -2.0, 0.5], np.float32)
    got = _out(_run(m, {"x": x}))
    want = _out(_run(m, {"x": x}, rewrite=False))
    acc = x.copy()
    for i in range(6):
        acc = (acc * 2 if i % 2 == 0 else acc - 1) + np.float32(i)
    np.testing.assert_array_equal(want, acc)
    np.testing.assert_array_equal(got, want)


def test_rewrite_refuses_non_models_loudly():
    with pytest.raises(TypeError):
        onemodel_ep.rewrite(b"not a model")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        onemodel_ep.rewrite(_if_in_loop(), mode="turbo")
    with pytest.raises(ValueError):
        onemodel_ep.rewrite(_if_in_loop(), kernel_path="4096")
