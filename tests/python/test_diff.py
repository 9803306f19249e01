"""`onemodel diff` and onemodel_ep.diff_models(): comparisons, planted divergences found at the right node,
kernel-path bit-identity, exit codes, the JSON schema (docs/diff.md), input generation and clear one-line
user errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper

import onemodel_ep
from onemodel_ep import cli
from onemodel_ep.diff import DiffError, DiffReport, example_model_path
from onemodel_ep.diff.compare import Criteria, compare
from onemodel_ep.node import probe
from onemodel_ep.session import default_via

F = T.FLOAT


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def _vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def _save(tmp_path: Path, m: onnx.ModelProto, name: str = "m.onnx") -> str:
    p = tmp_path / name
    onnx.save(m, str(p))
    return str(p)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def int_model() -> onnx.ModelProto:
    """Pure integer arithmetic: stock ORT and OneModel EP agree exactly."""
    i = T.INT32
    return _model(
        [
            helper.make_node("Add", ["a", "b"], ["s"], name="add"),
            helper.make_node("Mul", ["s", "a"], ["p"], name="mul"),
            helper.make_node("Sub", ["p", "b"], ["d"], name="sub"),
            helper.make_node("Max", ["d", "a"], ["out"], name="max"),
            helper.make_node("Neg", ["out"], ["neg"], name="neg"),
        ],
        [_vi("a", i, [3, 16]), _vi("b", i, [16])],
        [_vi("out", i, [3, 16]), _vi("neg", i, [3, 16])],
    )


def quantize_chain() -> onnx.ModelProto:
    """x -> Mul(8) -> Add -> Cast(int8) -> Cast(float) -> Mul -> Add: the int8 Cast is where the runs part
    (stock ORT wraps out-of-range values, OneModel EP saturates); everything before it agrees bit for bit."""
    return _model(
        [
            helper.make_node("Mul", ["x", "eight"], ["a"], name="scale"),
            helper.make_node("Add", ["a", "one"], ["b"], name="plus_one"),
            helper.make_node("Cast", ["b"], ["q"], name="quantize", to=T.INT8),
            helper.make_node("Cast", ["q"], ["dq"], name="dequantize", to=F),
            helper.make_node("Mul", ["dq", "half"], ["h"], name="halve"),
            helper.make_node("Add", ["h", "x"], ["y"], name="residual"),
        ],
        [_vi("x", F, [4, 32])],
        [_vi("y", F, [4, 32])],
        inits=[
            helper.make_tensor("eight", F, [], [8.0]),
            helper.make_tensor("one", F, [], [1.0]),
            helper.make_tensor("half", F, [], [0.5]),
        ],
    )


# ------------------------------------------------------------------------------------------- comparisons


def test_compare_ulp_and_special_values():
    a = np.array([1.0, 0.0, np.nan, np.nan, np.inf, 1.0, -1.0], np.float32)
    up = np.nextafter(np.float32(1), np.float32(2))
    b = np.array([up, -0.0, np.nan, 2.0, np.inf, 1.0, -1.0], np.float32)
    c = compare(a, b, Criteria())
    assert c.kind == "float" and c.elements == 7
    assert c.identical == 4  # nan/nan with the same bits, inf, 1, -1
    assert c.nan_mismatches == 1 and c.signed_zero_mismatches == 1 and c.inf_mismatches == 0
    assert c.max_ulp == 1 and c.failing == 3 and not c.passed
    assert c.worst is not None and c.worst["index"] == [3] and c.worst["ort"] == "nan"
    # +-0 and one-ulp differences pass with --max-ulp 1; the one-sided NaN never does.
    assert compare(a, b, Criteria(max_ulp=1)).failing == 1
    assert compare(a, b, Criteria(atol=1.0)).failing == 1


def test_compare_integers_exact_difference():
    a = np.array([np.iinfo(np.int64).min, 5, 7], np.int64)
    b = np.array([np.iinfo(np.int64).max, 5, 9], np.int64)
    c = compare(a, b, Criteria())
    assert c.kind == "int" and c.identical == 1 and c.failing == 2
    assert c.max_ulp == 2**64 - 1  # exact, no overflow
    assert c.worst is not None and c.worst["index"] == [0]
    assert compare(a, b, Criteria(max_ulp=2)).failing == 1


def test_compare_bool_and_shape_mismatch():
    c = compare(np.array([True, False, True]), np.array([True, True, True]), Criteria())
    assert c.kind == "bool" and c.failing == 1 and c.worst is not None and c.worst["index"] == [1]
    c = compare(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), Criteria())
    assert not c.passed and c.error and "[2, 3]" in c.error


# ---------------------------------------------------------------------------------------- identical outputs


def test_pure_integer_model_has_no_differences(tmp_path, capsys):
    r = onemodel_ep.diff_models(int_model(), seed=3, per_node=True)
    assert r.passed
    assert len(r.rewrite.moved) == 5
    for o in r.outputs:
        c = o.comparison
        assert c.kind == "int" and c.identical == c.elements == 48 and c.failing == 0 and c.max_ulp == 0
        assert c.worst is None
    assert r.first_divergence is None and r.top(5) == []
    rc, out, err = _cli(capsys, "diff", _save(tmp_path, int_model()), "--per-node")
    assert rc == 0 and "PASS" in out and "Traceback" not in err
    assert "bit-identical 48/48 (100.0%)" in out


# -------------------------------------------------------------------------------------- planted divergences


def test_per_node_finds_the_int8_cast():
    x = np.linspace(-100, 100, 128, dtype=np.float32).reshape(4, 32)
    r = onemodel_ep.diff_models(quantize_chain(), {"x": x}, per_node=True, top=3)
    assert not r.passed
    first = r.first_divergence
    assert first is not None and first.name == "quantize" and first.op == "Cast" and first.output == "q"
    assert first.comparison.kind == "int"
    # its input agrees in both runs: the divergence is born at this node
    (inp,) = first.inputs
    assert inp["name"] == "b" and inp["identical"] is True and inp["min"] == -799.0 and inp["max"] == 801.0
    names = [n.name for n in r.nodes]
    assert names == ["scale", "plus_one", "quantize", "dequantize", "halve", "residual"]
    assert all(n.comparison.passed for n in r.nodes[:2])
    assert {n.name for n in r.top(3)} <= {"quantize", "dequantize", "halve", "residual"}
    # the worst output element is traced back to the input element that produced it
    w = r.outputs[0].comparison.worst
    assert w is not None and "x" in w["inputs"]
    assert w["inputs"]["x"]["value"] == float(x[tuple(w["index"])])


def test_per_node_finds_int_pow_zero_to_minus_one():
    i = T.INT32
    m = _model(
        [
            helper.make_node("Add", ["a", "b"], ["s"], name="add"),
            helper.make_node("Pow", ["s", "e"], ["p"], name="pow"),
            helper.make_node("Mul", ["p", "b"], ["m"], name="mul"),
            helper.make_node("Sub", ["m", "a"], ["out"], name="sub"),
        ],
        [_vi("a", i, [4]), _vi("b", i, [4]), _vi("e", i, [4])],
        [_vi("out", i, [4])],
    )
    feeds = {
        "a": np.array([1, 0, 2, 3], np.int32),
        "b": np.array([1, 0, 1, 1], np.int32),  # s = [2, 0, 3, 4]
        "e": np.array([3, -1, 2, 1], np.int32),  # 0 ** -1: stock ORT gives INT_MIN, OneModel EP saturates
    }
    r = onemodel_ep.diff_models(m, feeds, per_node=True)
    first = r.first_divergence
    assert first is not None and first.name == "pow" and first.op == "Pow"
    assert first.comparison.worst is not None and first.comparison.worst["index"] == [1]
    assert first.comparison.worst["ort"] == -(2**31) and first.comparison.worst["onemodel"] == 2**31 - 1
    assert all(inp["identical"] for inp in first.inputs)


def test_signed_zero_from_where_fails_at_zero_ulp_only():
    m = _model(
        [
            helper.make_node("Abs", ["x"], ["ax"], name="abs"),
            helper.make_node("Where", ["c", "x", "ax"], ["out"], name="where"),
        ],
        [_vi("c", T.BOOL, [3]), _vi("x", F, [3])],
        [_vi("out", F, [3])],
    )
    feeds = {"c": np.array([True, False, True]), "x": np.array([-0.0, 1.0, 2.0], np.float32)}
    r = onemodel_ep.diff_models(m, feeds, per_node=True)
    c = r.outputs[0].comparison
    if c.identical == c.elements:
        pytest.skip("stock ORT's Where keeps -0.0 in this build")
    assert c.signed_zero_mismatches == 1 and c.max_abs == 0.0 and c.max_ulp == 1 and not c.passed
    assert r.first_divergence is not None and r.first_divergence.name == "where"
    assert onemodel_ep.diff_models(m, feeds, max_ulp=1).passed


def test_per_node_finds_sigmoid_in_a_chain():
    reason = probe("Sigmoid", [F], onnx_opset=17)
    if reason is not None:
        pytest.skip(f"Sigmoid not served yet: {reason}")
    m = _model(
        [
            helper.make_node("Mul", ["x", "one"], ["a"], name="scale"),
            helper.make_node("Sub", ["a", "five"], ["b"], name="shift"),
            helper.make_node("Sigmoid", ["b"], ["s"], name="sigmoid"),
            helper.make_node("Mul", ["s", "x"], ["t"], name="gate"),
            helper.make_node("Add", ["t", "x"], ["y"], name="residual"),
        ],
        [_vi("x", F, [1024])],
        [_vi("y", F, [1024])],
        inits=[helper.make_tensor("one", F, [], [1.0]), helper.make_tensor("five", F, [], [5.0])],
    )
    x = np.linspace(-20, -10, 1024, dtype=np.float32)  # b in [-25, -15]: the far tail of the logistic
    r = onemodel_ep.diff_models(m, {"x": x}, per_node=True)
    assert "sigmoid" in {n.name for n in r.rewrite.moved}
    first = r.first_divergence
    if first is None:
        pytest.skip("stock ORT's Sigmoid agrees with OneModel EP's on this range")
    assert first.name == "sigmoid" and all(i["identical"] for i in first.inputs)


def _f16_attention_scores() -> onnx.ModelProto:
    """q * 0.125 -> MatMul with k -> Cast to float: stock ORT fuses the scale into the MatMul (FusedMatMul)
    and runs it in float between casts it inserts, so 'scores' is never rounded to float16 there."""
    h = T.FLOAT16
    return _model(
        [
            helper.make_node("Mul", ["q", "scale_c"], ["qs"], name="scale"),
            helper.make_node("MatMul", ["qs", "k"], ["scores"], name="matmul"),
            helper.make_node("Cast", ["scores"], ["y"], to=F, name="cast"),
        ],
        [_vi("q", h, [2, 16, 64]), _vi("k", h, [2, 64, 16])],
        [_vi("y", F, [2, 16, 16])],
        inits=[helper.make_tensor("scale_c", h, [], [0.125])],
    )


@pytest.mark.parametrize("via", ["rewrite", "ep"])
def test_per_node_names_the_node_stock_ort_fused(via, capsys, tmp_path):
    """The outputs differ while every exposed value agrees: the first divergence is the MatMul that stock ORT
    fused with the scale in its plain run, not the Cast after it, and the report says so."""
    if via == "ep" and default_via() != "ep":
        pytest.skip("this ORT cannot load OneModel as an execution provider")
    r = onemodel_ep.diff_models(_f16_attention_scores(), per_node=True, via=via)
    assert not r.passed
    first = r.first_divergence
    assert first is not None and first.name == "matmul" and first.op == "MatMul"
    assert all(i["identical"] for i in first.inputs)
    assert first.reason is not None
    assert "stock ORT ran it as FusedMatMul" in first.reason and "fused with 'scale' (Mul)" in first.reason
    assert "OneModel EP ran it as MatMul" in first.reason
    assert [n.name for n in r.nodes] == ["scale", "matmul", "cast"]
    rc, out, _ = _cli(capsys, "diff", _save(tmp_path, _f16_attention_scores()), "--per-node", "--via", via)
    assert rc == 1 and "first divergence: node 'matmul' (MatMul, #1" in out and "why: " in out


def test_per_node_compares_stock_nodes_too():
    """A node left to stock ORT (Softmax) is compared like ours, and is named when it is where runs part."""
    m = _model(
        [
            helper.make_node("Mul", ["x", "two"], ["a"], name="double"),
            helper.make_node("Softmax", ["a"], ["s"], name="softmax", axis=-1),
            helper.make_node("Neg", ["s"], ["y"], name="neg"),
        ],
        [_vi("x", F, [4, 32])],
        [_vi("y", F, [4, 32])],
        inits=[helper.make_tensor("two", F, [], [2.0])],
    )
    r = onemodel_ep.diff_models(m, per_node=True)
    by_name = {n.name: n for n in r.nodes}
    assert set(by_name) == {"double", "softmax", "neg"}
    assert by_name["softmax"].retargeted is (probe("Softmax", [F], onnx_opset=17) is None)
    assert by_name["double"].retargeted and by_name["neg"].retargeted
    if r.passed:
        assert r.first_divergence is None


# ------------------------------------------------------------------------------------------- kernel paths


def test_all_paths_bit_identical(capsys, tmp_path):
    r = onemodel_ep.diff_models(quantize_chain(), all_paths=True, special=0.2, seed=1)
    assert r.all_paths is not None
    assert r.all_paths.paths == onemodel_ep.kernel_paths()
    assert r.all_paths.identical and all(o["identical"] for o in r.all_paths.outputs)
    rc, out, _ = _cli(capsys, "diff", _save(tmp_path, int_model()), "--all-paths")
    assert rc == 0 and "bit-identical on every output" in out


def test_kernel_path_option(capsys, tmp_path):
    path = onemodel_ep.kernel_paths()[-1]
    r = onemodel_ep.diff_models(int_model(), kernel_path=path)
    assert r.kernel_path == path and r.passed
    with pytest.raises(DiffError, match="unknown kernel path"):
        onemodel_ep.diff_models(int_model(), kernel_path="1024")


# ------------------------------------------------------------------------------------------- exit codes, CLI


def test_bundled_example_differs_and_exits_1(capsys):
    assert example_model_path().is_file()
    rc, out, err = _cli(capsys, "diff")
    assert rc == 1
    assert "diff_demo.onnx" in out and "output q8: int8 [8, 64]  FAIL" in out
    assert "FAIL:" in out.splitlines()[-1]
    assert "worst" in out and "from x[" in out


def test_tolerances_make_it_pass(capsys, tmp_path):
    model = _save(tmp_path, quantize_chain())
    rc, out, _ = _cli(capsys, "diff", model, "--range=-100,100", "--atol", "1000")
    assert rc == 0 and out.splitlines()[-1].startswith("PASS")
    rc, _, _ = _cli(capsys, "diff", model, "--range=-100,100")
    assert rc == 1
    rc, _, _ = _cli(capsys, "diff", model, "--range=-10,10")  # 8x + 1 stays inside int8
    assert rc == 0


def _bad_model(tmp_path: Path) -> str:
    p = tmp_path / "corrupt.onnx"
    p.write_bytes(b"\x08\x07this is not a protobuf \xff\xff\xff")
    return str(p)


@pytest.mark.parametrize(
    "case, expect",
    [
        ("missing-model", "no such model file"),
        ("corrupt-model", "cannot read"),
        ("wrong-name", "not in the model"),
        ("missing-input", "missing input"),
        ("wrong-dtype", "is float64, the model takes float32"),
        ("wrong-shape", "has shape [4, 31]"),
        ("missing-npz", "no such inputs file"),
        ("not-npz", "is not an .npz file"),
        ("bad-shape-option", "bad --shape"),
        ("unknown-shape-name", "neither an input"),
        ("unrunnable", "stock ORT cannot load the model"),
    ],
)
def test_user_errors_exit_2_with_one_line(tmp_path, capsys, case, expect):
    model = _save(tmp_path, quantize_chain())
    good = np.zeros((4, 32), np.float32)
    args: list[str] = ["diff", model]
    if case == "missing-model":
        args = ["diff", str(tmp_path / "nope.onnx")]
    elif case == "corrupt-model":
        args = ["diff", _bad_model(tmp_path)]
    elif case in ("wrong-name", "missing-input", "wrong-dtype", "wrong-shape"):
        feeds = {
            "wrong-name": {"x": good, "z": good},
            "missing-input": {},
            "wrong-dtype": {"x": good.astype(np.float64)},
            "wrong-shape": {"x": np.zeros((4, 31), np.float32)},
        }[case]
        np.savez(tmp_path / "in.npz", **feeds)
        args += ["--inputs", str(tmp_path / "in.npz")]
    elif case == "missing-npz":
        args += ["--inputs", str(tmp_path / "none.npz")]
    elif case == "not-npz":
        args += ["--inputs", model]
    elif case == "bad-shape-option":
        args += ["--shape", "x4,32"]
    elif case == "unknown-shape-name":
        args += ["--shape", "q=4"]
    elif case == "unrunnable":
        m = _model([helper.make_node("Add", ["x", "x"], ["y"])], [_vi("x", F, [2])], [_vi("y", F, [2])])
        m.graph.node[0].op_type = "NoSuchOp"
        args = ["diff", _save(tmp_path, m, "bad_op.onnx")]
    rc, out, err = _cli(capsys, *args)
    assert rc == 2, (out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("onemodel: error: ") and expect in err


def test_bad_option_values_exit_2(capsys):
    bad = (["--range=5,1"], ["--special", "2"], ["--top", "-1"], ["--max-ulp", "x"], ["--mode", "slow"])
    for argv in bad:
        with pytest.raises(SystemExit) as e:
            cli.main(["diff", *argv])
        assert e.value.code == 2
        assert "Traceback" not in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- inputs


def test_generated_inputs_reach_the_edges():
    m = _model(
        [helper.make_node("Abs", ["x"], ["y"]), helper.make_node("Neg", ["k"], ["nk"])],
        [_vi("x", F, ["batch", 256]), _vi("k", T.INT16, [64])],
        [_vi("y", F, ["batch", 256]), _vi("nk", T.INT16, [64])],
    )
    with pytest.raises(DiffError, match="symbolic"):
        onemodel_ep.diff_models(m)
    r = onemodel_ep.diff_models(m, shapes={"batch": [3]}, value_range=(-50.0, 50.0), special=0.25, seed=7)
    x = {i["name"]: i for i in r.inputs}
    assert x["x"]["shape"] == [3, 256] and x["x"]["nan"] > 0 and x["x"]["inf"] > 0
    assert x["k"]["min"] == -(2**15) and x["k"]["max"] == 2**15 - 1
    r2 = onemodel_ep.diff_models(m, shapes={"x": [2, 256]}, value_range=(-50.0, 50.0), seed=7)
    x2 = {i["name"]: i for i in r2.inputs}
    assert x2["x"]["shape"] == [2, 256] and x2["x"]["min"] == -50.0 and x2["x"]["max"] == 50.0
    assert x2["x"]["nan"] == 0


def test_special_values_include_zeros_and_subnormals():
    from onemodel_ep.diff.inputs import InputSpec, generate

    v = generate(InputSpec("x", F, (4096,)), [4096], np.random.default_rng(0), None, 0.5)
    assert np.isnan(v).any() and np.isposinf(v).any() and np.isneginf(v).any()
    assert (np.signbit(v) & (v == 0)).any() and (~np.signbit(v) & (v == 0)).any()
    tiny = np.finfo(np.float32).smallest_normal
    assert ((v != 0) & (np.abs(v) < tiny)).any()


def test_save_inputs_round_trip(tmp_path, capsys):
    model = _save(tmp_path, quantize_chain())
    saved = tmp_path / "saved.npz"
    rc1, out1, _ = _cli(capsys, "diff", model, "--seed", "5", "--special", "--save-inputs", str(saved))
    rc2, out2, _ = _cli(capsys, "diff", model, "--inputs", str(saved))
    assert rc1 == rc2 == 1
    tail = lambda s: s[s.index("\noutput ") :]  # noqa: E731
    assert tail(out1) == tail(out2)


# ------------------------------------------------------------------------------------------- JSON, plot, API

TOP_KEYS = {
    "schema_version", "model", "mode", "kernel_path", "via", "versions", "criteria", "passed", "inputs",
    "generation", "rewrite", "outputs", "all_paths", "per_node", "seconds",
}  # fmt: skip
OUTPUT_KEYS = {
    "name", "kind", "dtype", "shape", "elements", "identical", "failing", "passed", "max_abs", "max_rel",
    "max_ulp", "median_ulp", "median_ulp_differing", "nan_mismatches", "inf_mismatches",
    "signed_zero_mismatches", "nan_payload_differs", "worst", "histogram", "error",
}  # fmt: skip
WORST_KEYS = {"index", "ort", "onemodel", "ort_bits", "onemodel_bits", "abs", "rel", "ulp"}
NODE_KEYS = {"index", "name", "op", "output", "inputs", "error", "retargeted", "reason", "inside"}
PER_NODE_KEYS = {"retargeted", "exposed", "untyped", "top_k", "first_divergence", "top", "nodes"}


def _strict(text: str) -> dict:
    def no_constants(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=no_constants)


def test_json_schema(tmp_path, capsys):
    out_file = tmp_path / "r.json"
    rc, out, _ = _cli(
        capsys, "diff", _save(tmp_path, quantize_chain()), "--special", "--per-node", "--all-paths",
        "--json", str(out_file),
    )  # fmt: skip
    assert rc == 1 and f"wrote {out_file}" in out
    d = _strict(out_file.read_text())
    assert set(d) == TOP_KEYS and d["schema_version"] == 1 and d["passed"] is False
    assert d["criteria"] == {"atol": 0.0, "rtol": 0.0, "max_ulp": 0}
    (o,) = d["outputs"]
    assert set(o) == OUTPUT_KEYS and o["name"] == "y"
    assert WORST_KEYS <= set(o["worst"]) and set(o["worst"]) <= WORST_KEYS | {"inputs"}
    assert o["histogram"][0][0] == "0" and sum(n for _, n in o["histogram"]) == o["elements"]
    assert set(d["per_node"]) == PER_NODE_KEYS
    assert set(d["per_node"]["first_divergence"]) == NODE_KEYS
    assert d["per_node"]["first_divergence"]["name"] == "quantize"
    assert set(d["all_paths"]) == {"mode", "paths", "identical", "outputs"} and d["all_paths"]["identical"]
    assert {"name", "source", "dtype", "shape"} <= set(d["inputs"][0])
    assert set(d["rewrite"]) == {"moved", "stayed", "nodes"}
    # '-' writes the JSON document alone on stdout
    rc, out, _ = _cli(capsys, "diff", _save(tmp_path, int_model()), "--json", "-")
    assert rc == 0 and _strict(out)["passed"] is True


def test_report_object_api():
    r = onemodel_ep.diff_models(quantize_chain(), seed=2)
    assert isinstance(r, DiffReport) and not r.passed
    assert r.to_dict()["outputs"][0]["failing"] == r.outputs[0].comparison.failing
    assert "output y: float32 [4, 32]  FAIL" in str(r)
    assert r.per_node is None and r.all_paths is None
    msgs: list[str] = []
    onemodel_ep.diff_models(int_model(), progress=msgs.append, all_paths=True)
    assert any("stock ORT" in m for m in msgs) and any("kernel path" in m for m in msgs)


def test_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "ulp.png"
    rc, out, _ = _cli(capsys, "diff", "--plot", str(png))
    assert rc == 1 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- per node inside If, Loop and Scan bodies (onemodel_ep/diff/subgraph.py) ---

_I = T.INT32
# 0 ** -1 in int32: stock ORT gives INT_MIN, OneModel EP saturates to INT_MAX (element 1 below)
_POW_FEEDS = {
    "a": np.array([1, 0, 2, 3], np.int32),
    "b": np.array([1, 0, 1, 1], np.int32),
    "e": np.array([3, -1, 2, 1], np.int32),
}


def _pow_body(prefix: str, out: str, exponent: str = "e") -> list[onnx.NodeProto]:
    return [
        helper.make_node("Add", ["a", "b"], [f"{prefix}s"], name=f"{prefix}add"),
        helper.make_node("Pow", [f"{prefix}s", exponent], [f"{prefix}p"], name=f"{prefix}pow_named_long"),
        helper.make_node("Add", [f"{prefix}p", "b"], [out], name=f"{prefix}add2"),
    ]


def _if_model(take_then: bool) -> onnx.ModelProto:
    then = helper.make_graph(_pow_body("t_", "t_out"), "then", [], [_vi("t_out", _I, [4])])
    other = helper.make_graph(_pow_body("e_", "e_out"), "else", [], [_vi("e_out", _I, [4])])
    return _model(
        [
            helper.make_node("Greater", ["x", "zero"], ["c"], name="gt"),
            helper.make_node("If", ["c"], ["r"], name="the_if", then_branch=then, else_branch=other),
            helper.make_node("Add", ["r", "a"], ["out"], name="after"),
        ],
        [_vi(n, _I, [4]) for n in "abe"] + [_vi("x", F, [])],
        [_vi("out", _I, [4])],
        inits=[helper.make_tensor("zero", F, [], [0.0 if take_then else 2.0])],
    )


@pytest.mark.parametrize("via", ["ep", "rewrite"])
@pytest.mark.parametrize("take_then", [True, False])
def test_per_node_looks_inside_the_branch_if_took(via, take_then):
    if via == "ep" and default_via() != "ep":
        pytest.skip("this ORT cannot load OneModel as an execution provider")
    feeds = {**_POW_FEEDS, "x": np.array(1.0, np.float32)}
    r = onemodel_ep.diff_models(_if_model(take_then), feeds, per_node=True, via=via)
    first = r.first_divergence
    which, prefix = ("then_branch", "t_") if take_then else ("else_branch", "e_")
    assert first is not None and first.op == "Pow" and first.name == f"{prefix}pow_named_long"
    assert first.inside == [f"the_if (If) {which}"]
    assert all(i["identical"] for i in first.inputs)
    assert first.comparison.worst is not None and first.comparison.worst["index"] == [1]
    text = str(r)
    assert f"inside: the_if (If) {which}" in text
    assert r.to_dict()["per_node"] is not None


def _loop_model(trips: int, pow_at: int) -> onnx.ModelProto:
    """A Loop of `trips` iterations carrying v += Pow(a + b, x) + b, where x is e at iteration `pow_at` and 1
    at the others ((e - 1) * [i == pow_at] + 1), so the runs part only at that iteration."""
    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["at"], value=helper.make_tensor("at_v", T.INT64, [], [pow_at])),
            helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one_v", _I, [], [1])),
            helper.make_node("Equal", ["i", "at"], ["now"], name="now"),
            helper.make_node("Cast", ["now"], ["now_i"], to=_I, name="now_i"),
            helper.make_node("Sub", ["e", "one"], ["e1"], name="e_minus_1"),
            helper.make_node("Mul", ["e1", "now_i"], ["em"], name="e_masked"),
            helper.make_node("Add", ["em", "one"], ["x"], name="exponent"),
            *_pow_body("l_", "l_q", "x"),
            helper.make_node("Add", ["v_in", "l_q"], ["v_out"], name="l_acc"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="l_cond"),
        ],
        "body",
        [_vi("i", T.INT64, []), _vi("cond_in", T.BOOL, []), _vi("v_in", _I, [4])],
        [_vi("cond_out", T.BOOL, []), _vi("v_out", _I, [4])],
    )
    return _model(
        [helper.make_node("Loop", ["trips", "", "v0"], ["v"], name="the_loop", body=body)],
        [_vi(n, _I, [4]) for n in "abe"] + [_vi("v0", _I, [4])],
        [_vi("v", _I, [4])],
        inits=[helper.make_tensor("trips", T.INT64, [], [trips])],
    )


def test_per_node_looks_inside_a_loop_body_at_its_first_iteration():
    feeds = {**_POW_FEEDS, "v0": np.zeros(4, np.int32)}
    r = onemodel_ep.diff_models(_loop_model(3, 0), feeds, per_node=True, via="rewrite")
    first = r.first_divergence
    assert first is not None and first.op == "Pow"
    assert first.inside == ["the_loop (Loop) body at its first iteration"]


def test_per_node_says_when_a_loop_parts_after_its_first_iteration():
    feeds = {**_POW_FEEDS, "v0": np.zeros(4, np.int32)}
    r = onemodel_ep.diff_models(_loop_model(3, 1), feeds, per_node=True, via="rewrite")
    first = r.first_divergence
    assert first is not None and first.op == "Loop" and first.inside == []
    assert first.reason is not None
    assert "first iteration" in first.reason and "later iteration" in first.reason


def test_per_node_looks_inside_a_scan_body():
    body = helper.make_graph(
        [*_pow_body("s_", "s_q"), helper.make_node("Add", ["st_in", "s_q"], ["st_out"], name="s_acc"),
         helper.make_node("Identity", ["s_q"], ["y_out"], name="s_y")],
        "body",
        [_vi("st_in", _I, [4]), _vi("e", _I, [4])],
        [_vi("st_out", _I, [4]), _vi("y_out", _I, [4])],
    )
    m = _model(
        [helper.make_node("Scan", ["st0", "es"], ["st", "ys"], name="the_scan", body=body,
                          num_scan_inputs=1)],
        [_vi("a", _I, [4]), _vi("b", _I, [4]), _vi("st0", _I, [4]), _vi("es", _I, [2, 4])],
        [_vi("st", _I, [4]), _vi("ys", _I, [2, 4])],
    )
    feeds = {"a": _POW_FEEDS["a"], "b": _POW_FEEDS["b"], "st0": np.zeros(4, np.int32),
             "es": np.stack([_POW_FEEDS["e"], np.ones(4, np.int32)])}
    r = onemodel_ep.diff_models(m, feeds, per_node=True, via="rewrite")
    first = r.first_divergence
    assert first is not None and first.op == "Pow"
    assert first.inside == ["the_scan (Scan) body at its first iteration"]


def test_per_node_top_table_prints_names_whole():
    feeds = {**_POW_FEEDS, "x": np.array(1.0, np.float32)}
    m = _if_model(True)
    m.graph.node[2].name = "a_node_name_much_longer_than_twenty_characters"
    r = onemodel_ep.diff_models(m, feeds, per_node=True, via="rewrite")
    assert "a_node_name_much_longer_than_twenty_characters" in str(r)
