"""Hostile input through the rewrite path (issue 39): attributes of the wrong kind, external data that escapes
the model's folder, data files onnx refuses as hard links, malformed models on `onemodel rewrite`.

Where stock ONNX Runtime refuses a model at session creation, the rewrite path must refuse it too (an error,
or the node left to stock ORT, which then refuses it); where stock ORT runs it, the rewritten model must
give stock's result. The fuzzers are seeded and bounded (a few seconds each).
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep import DOMAIN, cli, data_files
from onemodel_ep.node import NodeError
from onemodel_ep.rewriter import RewriteReport, rewrite, rewrite_file

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64
A = helper.make_attribute


# ---- helpers


def _model(op: str, attrs: list[onnx.AttributeProto], ins: list[tuple[str, int, list[int]]], opset: int = 17):
    node = helper.make_node(op, [n for n, _, _ in ins], ["y"], name="n0")
    node.attribute.extend(attrs)
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
        [onnx.ValueInfoProto(name="y")],  # no type: ORT infers it
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _options() -> ort.SessionOptions:
    so = onemodel_ep.session_options()
    so.log_severity_level = 4
    return so


def _feeds(ins: list[tuple[str, int, list[int]]], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for name, t, shape in ins:
        dtype = helper.tensor_dtype_to_np_dtype(t)
        if dtype.kind == "f":
            out[name] = rng.uniform(-3, 3, size=shape).astype(dtype)
        else:
            out[name] = rng.integers(1, 9, size=shape).astype(dtype)
    return out


def _outcome(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> tuple[str, Any]:
    """("create", error) when ORT refuses the model, ("run", error) when the run fails, ("ok", outputs)."""
    try:
        sess = ort.InferenceSession(model.SerializeToString(), _options(), providers=["CPUExecutionProvider"])
    except Exception as e:
        return "create", str(e)
    try:
        return "ok", sess.run(None, feeds)
    except Exception as e:
        return "run", str(e)


# ---- item 2: attributes of the wrong kind, and unknown attributes

X23 = [("a", F, [2, 3])]
GEMM = [("a", F, [2, 2]), ("b", F, [2, 2])]
WRONG_KINDS = [
    ("Gemm", A("alpha", [2.0]), GEMM, "float", "floats"),
    ("Gemm", A("beta", [2.0]), [*GEMM, ("c", F, [2, 2])], "float", "floats"),
    ("ReduceMean", A("axes", [1.0]), X23, "ints", "floats"),
    ("Softmax", A("axis", helper.make_tensor("t", I64, [], [0])), X23, "int", "tensor"),
    ("LayerNormalization", A("epsilon", [0.1]), [*X23, ("s", F, [3])], "float", "floats"),
    ("Softmax", A("axis", [0]), X23, "int", "ints"),  # a list where an int is expected: was a TypeError
    ("LeakyRelu", A("alpha", [0.5]), X23, "float", "floats"),
    ("Clip", A("min", 0), X23, "float", "int"),
    ("Cast", A("to", 6.0), X23, "int", "float"),
]
UNKNOWN = [
    ("Relu", A("colour", 1), X23),
    ("Add", A("alpha", 2.0), [*X23, ("b", F, [2, 3])]),
    ("Gemm", A("gamma", 2.0), GEMM),
]


@pytest.mark.parametrize("op, attr, ins, expected, given", WRONG_KINDS, ids=[c[0] for c in WRONG_KINDS])
def test_attribute_of_the_wrong_kind_stays_with_stock_ort_with_a_reason(op, attr, ins, expected, given):
    opset = 10 if op == "Clip" else 17  # Clip's min and max are attributes up to opset 10
    model = _model(op, [attr], ins, opset)
    assert _outcome(model, _feeds(ins, 0))[0] == "create"  # stock ORT refuses it
    report = RewriteReport("exact", None)
    out = rewrite(model, report=report)
    (node,) = report.nodes
    assert not node.moved and node.category == "attribute", node
    for word in (f"'{attr.name}'", op, f"kind {expected}", f"got {given}"):
        assert word in node.reason, (word, node.reason)
    assert out.graph.node[0].domain == ""
    assert _outcome(out, _feeds(ins, 0))[0] == "create"  # and so does the rewrite path


@pytest.mark.parametrize("op, attr, ins", UNKNOWN, ids=[c[0] for c in UNKNOWN])
def test_unknown_attribute_stays_with_stock_ort(op, attr, ins):
    model = _model(op, [attr], ins)
    assert _outcome(model, _feeds(ins, 0))[0] == "create"
    report = RewriteReport("exact", None)
    out = rewrite(model, report=report)
    (node,) = report.nodes
    assert not node.moved and node.category == "attribute" and f"'{attr.name}'" in node.reason, node
    assert _outcome(out, _feeds(ins, 0))[0] == "create"


@pytest.mark.parametrize("bounds", [{"min": 2.0, "max": 1.0}, {"min": math.nan}, {"max": -math.inf}])
def test_clip_attribute_bounds_out_of_order_follow_the_spec(bounds):
    """Stock ORT refuses Clip-6 unless min <= max; the spec (docs/ops-elementwise.md) defines it: the upper
    bound wins. The rewrite serves it by the spec, as the EP does (docs/reliability.md says so)."""
    model = _model("Clip", [A(k, v) for k, v in bounds.items()], X23, 10)
    assert _outcome(model, _feeds(X23, 0))[0] == "create"
    report = RewriteReport("exact", None)
    out = rewrite(model, report=report)
    (node,) = report.nodes
    assert node.moved, node
    ours = _outcome(out, _feeds(X23, 0))
    assert ours[0] == "ok", ours
    if bounds == {"min": 2.0, "max": 1.0}:
        assert np.all(ours[1][0] == 1.0)


def test_missing_required_attribute_stays_with_stock_ort():
    report = RewriteReport("exact", None)
    rewrite(_model("Cast", [], X23), report=report)
    (node,) = report.nodes
    assert not node.moved and "required attribute 'to'" in node.reason, node


# ---- the attribute fuzzer: every op of the op table with attributes, kinds and values mutated

# op -> (opset, inputs, valid attributes to start from)
FUZZ_OPS: dict[str, tuple[int, list[tuple[str, int, list[int]]], dict[str, Any]]] = {
    "Mod": (17, [("a", I32, [2, 3]), ("b", I32, [2, 3])], {"fmod": 0}),
    "Gelu": (20, X23, {"approximate": "tanh"}),
    "Cast": (17, X23, {"to": I32}),
    "CastLike": (21, [*X23, ("b", I32, [1])], {"saturate": 1}),
    "LeakyRelu": (17, X23, {"alpha": 0.1}),
    "HardSigmoid": (17, X23, {"alpha": 0.3, "beta": 0.4}),
    "Gemm": (17, [("a", F, [3, 3]), ("b", F, [3, 3]), ("c", F, [3])], {"alpha": 1.5, "transA": 1}),
    "Softmax": (17, X23, {"axis": 0}),
    "LogSoftmax": (17, X23, {"axis": 0}),
    "LayerNormalization": (17, [*X23, ("s", F, [3]), ("bias", F, [3])], {"epsilon": 1e-3}),
    "ThresholdedRelu": (17, X23, {"alpha": 0.5}),
    "IsInf": (20, X23, {"detect_negative": 0}),
    "Clip": (10, X23, {"min": -1.0, "max": 1.0}),
    "ReduceSum": (17, X23, {"keepdims": 0}),
    "ReduceMean": (17, X23, {"axes": [1]}),
    "ReduceMax": (17, X23, {"axes": [0], "keepdims": 0}),
    "ReduceMin": (17, X23, {"axes": [1]}),
    "ReduceProd": (17, X23, {"axes": [1]}),
    "ReduceSumSquare": (17, X23, {"axes": [0]}),
    "ReduceL1": (17, X23, {"axes": [1]}),
    "ReduceL2": (17, X23, {"axes": [1]}),
    "ReduceLogSum": (17, [("a", F, [2, 3])], {"axes": [1]}),
    "ReduceLogSumExp": (17, X23, {"axes": [1]}),
    "Elu": (17, X23, {"alpha": 0.7}),
    "Selu": (17, X23, {"alpha": 1.5, "gamma": 1.1}),
    "Celu": (17, X23, {"alpha": 2.0}),
}
KINDS = ("int", "float", "ints", "floats", "tensor", "string")
INTS = (-4, -3, -2, -1, 0, 1, 2, 3, 5, 7, 12345, 2**40)
FLOATS = (-1.0, 0.0, 1e-5, 0.5, 2.0, math.inf, -math.inf, math.nan)
STRINGS = ("tanh", "none", "maybe", "", "TANH")


def _value(kind: str, rng: random.Random) -> Any:
    if kind == "int":
        return rng.choice(INTS)
    if kind == "float":
        return rng.choice(FLOATS)
    if kind == "ints":
        return [rng.choice(INTS[:9]) for _ in range(rng.randint(1, 3))]
    if kind == "floats":
        return [rng.choice(FLOATS) for _ in range(rng.randint(1, 3))]
    if kind == "tensor":
        return helper.make_tensor("t", I64, [], [rng.choice(INTS[:9])])
    return rng.choice(STRINGS)


def _schema_kind(op: str, opset: int, name: str) -> str | None:
    spec = onnx.defs.get_schema(op, opset, "").attributes.get(name)
    return None if spec is None else str(spec.type).rsplit(".", 1)[-1].lower()


def _mutants(op: str, rng: random.Random, count: int) -> list[dict[str, Any]]:
    """`count` attribute sets for `op`: its valid start with one attribute changed in kind or value (half
    the time the schema's own kind with an edge value), added under an unknown name, or removed."""
    opset, _, base = FUZZ_OPS[op]
    names = sorted(onnx.defs.get_schema(op, opset, "").attributes)
    out = []
    for _ in range(count):
        attrs = dict(base)
        pick = rng.random()
        if pick < 0.1 and attrs:
            del attrs[rng.choice(sorted(attrs))]
        else:
            name = rng.choice(names) if pick < 0.9 else rng.choice(("colour", "axis_", "mode"))
            kind = _schema_kind(op, opset, name) if rng.random() < 0.5 else None
            attrs[name] = _value(kind or rng.choice(KINDS), rng)
        out.append(attrs)
    return out


def _tolerance(op: str, dtype: np.dtype) -> dict[str, float]:
    if dtype.kind != "f":
        return {"rtol": 0, "atol": 0}
    return {"rtol": 1e-5, "atol": 1e-6}


def _stock_bug(op: str, attrs: dict[str, Any]) -> bool:
    """Attributes stock ORT 1.31.1 mishandles, where the rewrite path may differ (docs/reliability.md): an
    int attribute beyond int32 (ORT truncates it: Softmax axis=2**32+1 runs along axis 1; the library
    refuses it), CastLike's saturate other than 0 or 1 (ORT's output is zeros or uninitialised memory); and
    Clip-6 with min > max, which stock refuses and the spec defines."""
    if any(isinstance(v, int) and not -(2**31) <= v < 2**31 for v in attrs.values()):
        return True
    lo, hi = attrs.get("min", -3.4028234663852886e38), attrs.get("max", 3.4028234663852886e38)
    if op == "Clip" and isinstance(lo, float) and isinstance(hi, float) and not lo <= hi:
        return True  # stock refuses min > max (or a NaN bound); the spec defines it: the upper bound wins
    return op == "CastLike" and attrs.get("saturate") not in (None, 0, 1)


def _agree(op: str, attrs: dict[str, Any]) -> str | None:
    """None when the rewrite path agrees with stock ORT on `op` with `attrs`; else what differs."""
    opset, ins, _ = FUZZ_OPS[op]
    if _stock_bug(op, attrs):
        return None
    model = _model(op, [A(k, v) for k, v in attrs.items()], ins, opset)
    feeds = _feeds(ins, 1)
    stock = _outcome(model, feeds)
    try:
        report = RewriteReport("exact", None)
        rewritten = rewrite(model, report=report)
    except (ValueError, NodeError) as e:  # a clear refusal
        return None if stock[0] != "ok" else f"rewrite refused what stock runs: {e}"
    except Exception as e:
        return f"rewrite raised {type(e).__name__}: {e}"
    ours = _outcome(rewritten, feeds)
    if stock[0] != "ok":
        return None if ours[0] != "ok" else f"stock refuses ({stock[1][:120]}), the rewrite path runs it"
    if ours[0] != "ok":
        return f"stock runs it, the rewrite path refuses: {ours[1][:160]}"
    for s, o in zip(stock[1], ours[1]):
        if s.shape != o.shape or s.dtype != o.dtype:
            return f"stock gives {s.dtype}{list(s.shape)}, the rewrite path {o.dtype}{list(o.shape)}"
        try:
            np.testing.assert_allclose(o, s, equal_nan=True, **_tolerance(op, s.dtype))
        except AssertionError as e:
            return f"outputs differ: {str(e)[:300]}"
    return None


FUZZ_SEED, FUZZ_PER_OP = 39, 24


def test_attribute_fuzz_agrees_with_stock_ort():
    rng = random.Random(FUZZ_SEED)
    problems = []
    for op in FUZZ_OPS:
        for attrs in _mutants(op, rng, FUZZ_PER_OP):
            problem = _agree(op, attrs)
            if problem is not None:
                problems.append(f"{op} {attrs}: {problem}")
    assert not problems, f"{len(problems)} disagreement(s):\n" + "\n".join(problems)


def test_valid_starts_move_and_agree():
    """The fuzzer's starting points are valid models the library serves, so mutants test the moved path."""
    for op, (opset, ins, attrs) in FUZZ_OPS.items():
        model = _model(op, [A(k, v) for k, v in attrs.items()], ins, opset)
        report = RewriteReport("exact", None)
        out = rewrite(model, report=report)
        assert [n.domain for n in out.graph.node if n.op_type == op] == [DOMAIN], report.summary()
        assert _agree(op, attrs) is None, op


# ---- items 3 and 4: external data locations, and the layout of a rewritten model's data


def _data_model(folder: Path, location: str, name: str = "m.onnx") -> Path:
    """y = x + w, w (4 floats) at `location` relative to `folder`."""
    t = onnx.TensorProto(name="w", data_type=F, dims=[4], data_location=TensorProto.EXTERNAL)
    for k, v in (("location", location), ("offset", "0"), ("length", "16")):
        t.external_data.add(key=k, value=v)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])],
        [t],
    )
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)]), folder / name)
    return folder / name


W_IN, W_SECRET = np.arange(4, dtype=np.float32) + 1, np.full(4, 7.0, np.float32)


def _layout(tmp: Path, kind: str) -> tuple[Path, str]:
    """A model folder tmp/in whose weight's location is of `kind`; tmp/secret holds a file outside it."""
    (tmp / "in").mkdir()
    (tmp / "secret").mkdir()
    (tmp / "in" / "d.bin").write_bytes(W_IN.tobytes())
    (tmp / "secret" / "s.bin").write_bytes(W_SECRET.tobytes())
    location = {
        "symlinked folder": "sub/s.bin",
        "symlinked file out": "out.bin",
        "symlinked file in": "in.bin",
        "dotdot": "../secret/s.bin",
        "absolute": str(tmp / "secret" / "s.bin"),
        "fifo": "fifo",
        "dev zero": "zero",
        "folder": "sub2",
        "missing": "gone.bin",
    }[kind]
    if kind == "symlinked folder":
        os.symlink("../secret", tmp / "in" / "sub")
    elif kind == "symlinked file out":
        os.symlink("../secret/s.bin", tmp / "in" / "out.bin")
    elif kind == "symlinked file in":
        os.symlink("d.bin", tmp / "in" / "in.bin")
    elif kind == "fifo":
        os.mkfifo(tmp / "in" / "fifo")
    elif kind == "dev zero":
        os.symlink("/dev/zero", tmp / "in" / "zero")
    elif kind == "folder":
        (tmp / "in" / "sub2").mkdir()
    return _data_model(tmp / "in", location), location


LAYOUTS = [
    ("symlinked folder", "outside the model's folder"),
    ("symlinked file out", "symbolic link"),
    ("symlinked file in", "symbolic link"),
    ("dotdot", "not a path inside"),
    ("absolute", "not a path inside"),
    ("fifo", "a FIFO, not a regular file"),
    ("dev zero", "symbolic link"),
    ("folder", "a folder, not a regular file"),
    ("missing", "does not exist"),
]


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("kind, words", LAYOUTS, ids=[k for k, _ in LAYOUTS])
@pytest.mark.parametrize("same_folder", [False, True], ids=["other folder", "same folder"])
def test_cli_rewrite_refuses_external_data_it_may_not_reference(tmp_path, capsys, kind, words, same_folder):
    src, location = _layout(tmp_path, kind)
    out_dir = tmp_path / "in" if same_folder else tmp_path / "out"
    out_dir.mkdir(exist_ok=True)
    before = _tree(tmp_path)
    assert cli.main(["rewrite", str(src), str(out_dir / "r.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("onemodel: error: "), err
    assert words in err and repr(location) in err, err
    assert _tree(tmp_path) == before  # nothing written: no model, no data file, no folder
    with pytest.raises((ValueError, FileNotFoundError), match=words):
        rewrite_file(src, out_dir / "r2.onnx")
    assert _tree(tmp_path) == before


def _onnx_and_ort_load(path: Path) -> np.ndarray:
    onnx.load(str(path))  # with its external data: onnx's checks of the data file's path
    onnx.checker.check_model(str(path))
    sess = ort.InferenceSession(str(path), _options(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": np.ones(4, np.float32)})[0]


def test_rewritten_model_in_another_folder_loads_in_onnx_and_ort_and_so_does_the_input(tmp_path, capsys):
    src = _data_model(tmp_path / "in", "d.bin")
    (tmp_path / "in" / "d.bin").write_bytes(W_IN.tobytes())
    (tmp_path / "out").mkdir()
    assert cli.main(["rewrite", str(src), str(tmp_path / "out" / "r.onnx")]) == 0
    for p in (src, tmp_path / "out" / "r.onnx"):
        np.testing.assert_array_equal(_onnx_and_ort_load(p), W_IN + 1)
    copy = tmp_path / "out" / "d.bin"
    assert not os.path.samefile(copy, tmp_path / "in" / "d.bin") and copy.stat().st_nlink == 1
    copy.write_bytes(W_SECRET.tobytes())  # a write to the copy leaves the input's data alone
    assert (tmp_path / "in" / "d.bin").read_bytes() == W_IN.tobytes()
    assert cli.main(["diff", str(src), "-q"]) == 0  # onnx loads the original after the rewrite


def test_rewrite_again_replaces_an_old_hard_link_and_keeps_a_copy(tmp_path, capsys):
    src = _data_model(tmp_path / "in", "d.bin")
    (tmp_path / "in" / "d.bin").write_bytes(W_IN.tobytes())
    (tmp_path / "out").mkdir()
    dst = tmp_path / "out" / "r.onnx"
    os.link(tmp_path / "in" / "d.bin", tmp_path / "out" / "d.bin")  # what earlier versions left there
    assert cli.main(["rewrite", str(src), str(dst)]) == 2  # onnx's checker refuses the input now
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hardlink" in err and not dst.exists(), err
    rewrite_file(src, dst)  # the API (no checker) replaces the link by a copy
    assert (tmp_path / "in" / "d.bin").stat().st_nlink == 1
    np.testing.assert_array_equal(_onnx_and_ort_load(dst), W_IN + 1)
    assert cli.main(["rewrite", str(src), str(dst)]) == 0  # the copy is kept
    np.testing.assert_array_equal(_onnx_and_ort_load(src), W_IN + 1)


def test_sparse_data_file_stays_sparse_when_copied(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    with open(folder / "big.bin", "wb") as f:
        f.truncate(1 << 30)  # 1 GiB of holes
        f.seek(1 << 20)
        f.write(b"\1" * 4096)
    (tmp_path / "out").mkdir()
    data_files.place(data_files.resolve(folder, "big.bin"), tmp_path / "out", "big.bin")
    copied = tmp_path / "out" / "big.bin"
    assert copied.stat().st_size == 1 << 30
    assert copied.stat().st_blocks * 512 < 1 << 24  # not 1 GiB on disk
    with open(copied, "rb") as f:
        f.seek((1 << 20) - 1)
        assert f.read(4098) == b"\0" + b"\1" * 4096 + b"\0"


# ---- item 9: malformed models on `onemodel rewrite`, and one-line errors


def _vi(name: str, t: int = F, shape: tuple[int, ...] | None = (2, 3)) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, None if shape is None else list(shape))


def _graph_model(
    nodes, ins=None, outs=None, inits=(), opset: int | None = 17, ir: int = 9
) -> onnx.ModelProto:
    g = helper.make_graph(
        nodes, "g", [_vi("x")] if ins is None else ins, [_vi("y")] if outs is None else outs
    )
    g.initializer.extend(inits)
    imports = [] if opset is None else [helper.make_opsetid("", opset)]
    return helper.make_model(g, opset_imports=imports or [helper.make_opsetid("ai.other", 1)], ir_version=ir)


def _malformed() -> dict[str, onnx.ModelProto]:
    N, arr = helper.make_node, onnx.numpy_helper.from_array
    w33, w22 = arr(np.ones((3, 3), np.float32), "w"), arr(np.ones((2, 2), np.float32), "w")
    bad_size = onnx.TensorProto(name="w", data_type=F, dims=[2, 3], raw_data=b"\0" * 8)
    return {
        "Add with one input": _graph_model([N("Add", ["x"], ["y"], name="a")]),
        "Add with three inputs": _graph_model([N("Add", ["x", "x", "x"], ["y"], name="a")]),
        "Relu with two inputs": _graph_model([N("Relu", ["x", "x"], ["y"], name="a")]),
        "dangling input": _graph_model([N("Add", ["x", "nowhere"], ["y"], name="a")]),
        "duplicate output": _graph_model(
            [N("Relu", ["x"], ["y"], name="a"), N("Neg", ["x"], ["y"], name="b")]
        ),
        "missing graph output": _graph_model([N("Relu", ["x"], ["z"], name="a")]),
        "Gemm alpha list": _graph_model([N("Gemm", ["x", "w"], ["y"], name="g", alpha=[2.0])], inits=[w33]),
        "Softmax axis list": _graph_model([N("Softmax", ["x"], ["y"], name="s", axis=[1])]),
        "ReduceMean axes floats": _graph_model(
            [N("ReduceMean", ["x"], ["y"], name="r", axes=[1.0])], outs=[_vi("y", F, None)]
        ),
        "unknown attribute": _graph_model([N("Relu", ["x"], ["y"], name="a", colour=1)]),
        "no default-domain opset": _graph_model([N("Relu", ["x"], ["y"], name="a")], opset=None),
        "opset 0": _graph_model([N("Relu", ["x"], ["y"], name="a")], opset=0),
        "opset 999": _graph_model([N("Relu", ["x"], ["y"], name="a")], opset=999),
        "type mismatch": _graph_model([N("Add", ["x", "i"], ["y"], name="a")], ins=[_vi("x"), _vi("i", I32)]),
        "output declared int32": _graph_model([N("Relu", ["x"], ["y"], name="a")], outs=[_vi("y", I32)]),
        "cycle": _graph_model(
            [
                N("Relu", ["z"], ["w"], name="a"),
                N("Neg", ["w"], ["z"], name="b"),
                N("Relu", ["x"], ["y"], name="c"),
            ]
        ),
        "node before its input": _graph_model(
            [N("Relu", ["z"], ["y"], name="a"), N("Neg", ["x"], ["z"], name="b")]
        ),
        "initializer of another type than its input": _graph_model(
            [N("Relu", ["x"], ["y"], name="a")], inits=[arr(np.ones((2, 3), np.int32), "x")]
        ),
        "initializer data too short": _graph_model([N("Add", ["x", "w"], ["y"], name="a")], inits=[bad_size]),
        "Cast to 12345": _graph_model(
            [N("Cast", ["x"], ["y"], name="c", to=12345)], outs=[_vi("y", F, None)]
        ),
        "empty op type": _graph_model([N("", ["x"], ["y"], name="a")]),
        "IR version 0": _graph_model([N("Relu", ["x"], ["y"], name="a")], ir=0),
        "unknown operator": _graph_model([N("Frobnicate", ["x"], ["y"], name="a")]),
        "MatMul shapes": _graph_model([N("MatMul", ["x", "w"], ["y"], name="m")], inits=[w22]),
        "Gemm of rank 3": _graph_model(
            [N("Gemm", ["x", "w"], ["y"], name="g")], ins=[_vi("x", F, (2, 2, 2))], inits=[w22]
        ),
    }


MALFORMED = _malformed()


def _refused(model: onnx.ModelProto) -> bool:
    """Whether onnx's full check or stock ORT's session creation refuses `model`."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception:
        return True
    return _outcome(model, {})[0] == "create"


@pytest.mark.parametrize("name", list(MALFORMED))
def test_cli_rewrite_of_a_malformed_model_exits_2_with_one_line(tmp_path, capfd, name):
    model = MALFORMED[name]
    assert _refused(model), f"{name}: neither onnx nor ORT refuses it"
    src, dst = tmp_path / "m.onnx", tmp_path / "out.onnx"
    src.write_bytes(model.SerializeToString())
    capfd.readouterr()
    assert cli.main(["rewrite", str(src), str(dst)]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith("onemodel: error: ") and "not a valid ONNX model" in err, (
        err
    )
    assert not dst.exists()


def test_cli_error_is_one_line_without_ort_log_unless_verbose(tmp_path, capfd):
    """ORT logs an error line (coloured, on fd 2) before it raises; the CLI shows only its own line."""
    path = tmp_path / "lrn.onnx"  # stock's kernel refuses size 0 (and logs it); OneModel does not serve LRN
    onnx.save(_model("LRN", [A("size", 0)], [("x", F, [1, 4, 2, 2])]), path)
    capfd.readouterr()
    assert cli.main(["run", str(path), "--via", "rewrite"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith("onemodel: error: cannot load"), err
    assert cli.main(["--verbose", "run", str(path), "--via", "rewrite"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") > 1 and "onnxruntime" in err, err
