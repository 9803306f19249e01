"""OneModel as a plugin execution provider (provider/csrc/ep/, onemodel_ep/ep.py).

The EP path runs the unmodified model; it must give the rewrite path's bits on every kernel path, thread count
and optimisation level (constant folding included), claim exactly what the library serves (subgraphs too),
leave the rest to the CPU EP with a reason, and fail cleanly on bad input.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import onnx
import onnx.parser
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import ep

pytestmark = pytest.mark.skipif(not ep.ep_supported(), reason="no plugin kernel registries in this ORT")

LEVELS = (
    ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
)
N = 4096


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def mixed_model() -> onnx.ModelProto:
    """Transcendentals, broadcasting, a constant subexpression, 1/x*y and x+0 (level-1 optimiser bait), a
    Atan (not served) in the middle, and Gelu with an attribute."""
    c = numpy_helper.from_array(np.linspace(-30, 30, N, dtype=np.float32), "c")
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    zero = numpy_helper.from_array(np.zeros(N, np.float32), "zero")
    nodes = onnx.parser.parse_graph(
        """g (float[N] x) => (float[N] g, float[N] y) {
          [exp_const] ec = Exp(c)
          [tanh] t = Tanh(x)
          [add] s = Add(t, ec)
          [recip] r = Div(one, x)
          [mul] m = Mul(s, r)
          [add_zero] m0 = Add(m, zero)
          [atan] sm = Atan(m0)
          [gelu] g = Gelu<approximate = "tanh">(sm)
          [sigmoid] y = Sigmoid(m0)
        }"""
    ).node
    return _model(nodes, [_f32("x", [N])], [_f32("g", [N]), _f32("y", [N])], [c, one, zero], opset=20)


def _inputs() -> dict[str, np.ndarray]:
    x = np.random.default_rng(1).uniform(-20, 20, N).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.0]
    return {"x": x}


def _bits(outs: list[np.ndarray]) -> list[bytes]:
    return [np.ascontiguousarray(o).tobytes() for o in outs]


def _quiet(so: ort.SessionOptions) -> ort.SessionOptions:
    so.log_severity_level = 3
    return so


def _ep_session(
    model, mode="exact", kernel_path=None, threads=1, level=LEVELS[-1], dispatch="registry"
) -> ort.InferenceSession:
    so = _quiet(ort.SessionOptions())
    so.intra_op_num_threads = threads
    so.graph_optimization_level = level
    # enable_fallback=0: ORT's Python session would otherwise retry on the CPU EP alone after an EP error
    return ort.InferenceSession(
        model.SerializeToString(), ep.ep_session_options(so, mode, kernel_path, dispatch), enable_fallback=0
    )


def _rewrite_session(model, mode="exact", kernel_path=None) -> ort.InferenceSession:
    so = _quiet(ort.SessionOptions())
    return onemodel_ep.InferenceSession(model, so, mode=mode, kernel_path=kernel_path, via="rewrite")


def test_library_exports_the_ep_entry_points():
    lib = ctypes.CDLL(onemodel_ep.library_path())
    for name in ("CreateEpFactories", "ReleaseEpFactory", "RegisterCustomOps"):
        assert getattr(lib, name) is not None


def test_ep_device_is_listed_on_the_cpu():
    (d,) = ep.ep_devices()
    assert d.ep_name == "OneModelExecutionProvider" and d.ep_vendor == "OneModel"
    assert d.device.type == ort.OrtHardwareDeviceType.CPU


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_same_bits_as_rewrite_on_every_path_thread_count_and_level(mode, dispatch):
    model, feeds = mixed_model(), _inputs()
    for path in onemodel_ep.kernel_paths():
        want = _bits(_rewrite_session(model, mode, path).run(None, feeds))
        for threads in (1, 3):
            for level in LEVELS:
                got = _bits(_ep_session(model, mode, path, threads, level, dispatch).run(None, feeds))
                assert got == want, (mode, path, threads, level)


def test_constant_subexpression_runs_on_our_kernel_not_stock():
    """ORT folds constants with stock CPU kernels before partitioning; ep_session_options prevents that."""
    c = numpy_helper.from_array(np.linspace(-30, 30, N, dtype=np.float32), "c")
    model = _model(
        [
            helper.make_node("Exp", ["c"], ["e"], name="exp_const"),
            helper.make_node("Add", ["e", "x"], ["y"], name="a"),
        ],
        [_f32("x", [N])],
        [_f32("y", [N])],
        [c],
    )
    feeds = {"x": np.zeros(N, np.float32)}
    stock = ort.InferenceSession(
        model.SerializeToString(), _quiet(ort.SessionOptions()), providers=["CPUExecutionProvider"]
    )
    (s,) = stock.run(None, feeds)
    (want,) = _rewrite_session(model).run(None, feeds)
    assert np.count_nonzero(s.view(np.uint32) != want.view(np.uint32)) > 0  # stock's exp is not ours here
    sess = _ep_session(model)
    (got,) = sess.run(None, feeds)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert {"exp_const", "a"} <= ep.claimed_names(ep.assignments(sess))


def test_claims_exactly_what_the_library_serves_and_reports_the_rest():
    sess = onemodel_ep.InferenceSession(mixed_model(), _quiet(ort.SessionOptions()))
    assert sess.via == "ep" and sess.rewritten_model is None
    rep = sess.report
    moved = {n.name for n in rep.moved}
    assert moved == {"exp_const", "tanh", "add", "recip", "mul", "add_zero", "gelu", "sigmoid"}
    (stayed,) = rep.stayed
    assert stayed.name == "atan" and stayed.category == "op" and "Atan" in stayed.reason
    assert "8 node(s) on OneModelExecutionProvider" in rep.summary()
    on_cpu = {a.name for a in ep.assignments(sess) if a.ep == "CPUExecutionProvider"}
    assert on_cpu == {"atan"}


def test_unsupported_type_stays_with_the_cpu_ep_with_its_reason():
    model = _model(
        [
            helper.make_node("Exp", ["x"], ["y"], name="exp_u8"),
            helper.make_node("Neg", ["i"], ["j"], name="neg_u8"),
        ],
        [_f32("x", [4]), helper.make_tensor_value_info("i", TensorProto.UINT8, [4])],
        [_f32("y", [4]), helper.make_tensor_value_info("j", TensorProto.UINT8, [4])],
        opset=13,
    )
    # Neg has no uint8 in ONNX either: ORT refuses the model itself; keep only the node ORT accepts.
    model.graph.node.pop()
    model.graph.output.pop()
    model.graph.input.pop()
    rep = onemodel_ep.InferenceSession(model, _quiet(ort.SessionOptions())).report
    assert [n.name for n in rep.moved] == ["exp_u8"]
    m2 = _model(
        [helper.make_node("Exp", ["x"], ["y"], name="exp_bf16")],
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [4])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [4])],
        opset=13,
    )
    rep2 = onemodel_ep.InferenceSession(m2, _quiet(ort.SessionOptions())).report
    moved2 = [n.name for n in rep2.moved]
    stayed2 = [(n.name, n.category) for n in rep2.stayed]
    # bfloat16 Exp: served by the library (exact tables) or left with its reason, never both
    assert (moved2, stayed2) in ((["exp_bf16"], []), ([], [("exp_bf16", "type")]))


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_nodes_inside_subgraphs_are_claimed(dispatch):
    then_g = helper.make_graph(
        [helper.make_node("Exp", ["x"], ["t"], name="exp_then")], "then", [], [_f32("t", [N])]
    )
    else_g = helper.make_graph(
        [helper.make_node("Tanh", ["x"], ["e"], name="tanh_else")], "else", [], [_f32("e", [N])]
    )
    model = _model(
        [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g, else_branch=else_g)],
        [_f32("x", [N]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [_f32("y", [N])],
    )
    x = _inputs()["x"]
    sess = _ep_session(model, dispatch=dispatch)
    claimed = ep.claimed_names(ep.assignments(sess))
    assert {"exp_then", "tanh_else"} <= claimed
    for cond in (True, False):
        feeds = {"x": x, "cond": np.array(cond)}
        assert _bits(sess.run(None, feeds)) == _bits(_rewrite_session(model).run(None, feeds))


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_bad_attribute_on_a_claimed_node_is_a_clear_session_error(dispatch):
    # A bad value is ours to report; a wrong attribute type ORT's own model check reports first.
    for attrs, ours in (({"approximate": "cubic"}, True), ({"approximate": 3}, False)):
        model = _model(
            [helper.make_node("Gelu", ["x"], ["y"], name="bad_gelu", **attrs)],
            [_f32("x", [4])],
            [_f32("y", [4])],
            opset=20,
        )
        with pytest.raises(Exception) as e:
            _ep_session(model, dispatch=dispatch)
        msg = str(e.value)
        assert "bad_gelu" in msg and "Gelu" in msg and "approximate" in msg, msg
        assert ("OneModel EP" in msg) == ours, msg
        with pytest.raises(Exception, match="bad_gelu"):  # the wrapper never falls back to the CPU EP
            onemodel_ep.InferenceSession(model, _quiet(ort.SessionOptions()))


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_run_time_shape_error_is_a_clear_run_error(dispatch):
    model = _model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add_dyn")],
        [_f32("a", ["n"]), _f32("b", ["m"])],
        [_f32("y", ["k"])],
    )
    sess = _ep_session(model, dispatch=dispatch)
    with pytest.raises(Exception) as e:
        sess.run(None, {"a": np.zeros(3, np.float32), "b": np.zeros(4, np.float32)})
    msg = str(e.value)  # ours, naming node and op, under either dispatch (compile's node name is ORT's)
    assert "OneModel EP: node 'add_dyn' (op Add): shapes cannot be broadcast" in msg, msg
    (y,) = sess.run(None, {"a": np.ones(3, np.float32), "b": np.ones(1, np.float32)})  # still usable
    assert np.array_equal(y, np.full(3, 2, np.float32))


def test_bad_ep_options_are_refused():
    with pytest.raises(ValueError):
        ep.ep_session_options(mode="exactish")
    with pytest.raises(ValueError, match="dispatch"):
        ep.ep_session_options(dispatch="fused")
    with pytest.raises(ValueError):
        ep.ep_session_options(kernel_path="1024")
    so = _quiet(ort.SessionOptions())
    so.add_provider_for_devices(ep.ep_devices(), {"mode": "exactish"})
    model = _model([helper.make_node("Exp", ["x"], ["y"], name="e")], [_f32("x", [4])], [_f32("y", [4])])
    with pytest.raises(Exception, match="'mode' must be"):
        ort.InferenceSession(model.SerializeToString(), so, enable_fallback=0)


def test_compiled_nodes_map_repeated_and_absent_inputs():
    """A compiled node's inputs are the node's distinct present inputs: Add(x, x), Clip(x, "", hi), Where with
    one input twice, and MatMul with a constant B (packed at compile time) give the registry's bits."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "w")
    hi = numpy_helper.from_array(np.array(0.5, np.float32), "hi")
    nodes = [
        helper.make_node("Add", ["x", "x"], ["xx"], name="add_self"),
        helper.make_node("Clip", ["xx", "", "hi"], ["c"], name="clip_no_min"),
        helper.make_node("Greater", ["c", "x"], ["g"], name="gt"),
        helper.make_node("Where", ["g", "c", "c"], ["wh"], name="where_twice"),
        helper.make_node("MatMul", ["wh", "w"], ["y"], name="matmul_const"),
    ]
    model = _model(nodes, [_f32("x", [3, 8])], [_f32("y", [3, 5]), _f32("xx", [3, 8])], [w, hi])
    feeds = {"x": rng.standard_normal((3, 8)).astype(np.float32)}
    want = _bits(_ep_session(model).run(None, feeds))
    sess = _ep_session(model, dispatch="compile")
    assert ep.claimed_names(ep.assignments(sess)) == {n.name for n in nodes}
    assert _bits(sess.run(None, feeds)) == want


def test_user_disabled_optimizers_are_kept():
    so = ort.SessionOptions()
    so.add_session_config_entry("optimization.disable_specified_optimizers", "GeluFusion")
    ep.ep_session_options(so)
    disabled = so.get_session_config_entry("optimization.disable_specified_optimizers").split(";")
    assert "GeluFusion" in disabled and set(ep.NUMERIC_OPTIMIZERS) <= set(disabled)
    with pytest.raises(ValueError, match="already"):
        ep.ep_session_options(so)


def test_via_choices():
    model = mixed_model()
    with pytest.raises(ValueError, match="via"):
        onemodel_ep.InferenceSession(model, via="jit")
    with pytest.raises(ValueError, match="providers"):
        onemodel_ep.InferenceSession(model, providers=["CPUExecutionProvider"], via="ep")
    r = onemodel_ep.InferenceSession(model, _quiet(ort.SessionOptions()), via="rewrite")
    assert r.via == "rewrite" and r.rewritten_model is not None and len(r.report.moved) == 8


def test_a_model_file_runs_in_a_plain_ort_session(tmp_path: Path):
    path = tmp_path / "m.onnx"
    onnx.save(mixed_model(), str(path))
    feeds = _inputs()
    so = ep.ep_session_options(_quiet(ort.SessionOptions()))
    got = ort.InferenceSession(str(path), so).run(None, feeds)
    assert _bits(got) == _bits(_rewrite_session(mixed_model()).run(None, feeds))


def test_two_sessions_in_two_threads():
    model, feeds = mixed_model(), _inputs()
    want = _bits(_rewrite_session(model).run(None, feeds))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                s = _ep_session(model, threads=2)
                for _ in range(5):
                    assert _bits(s.run(None, feeds)) == want
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_register_twice_and_unregister_after_sessions_closed():
    """In a child: register under two names, run, close, unregister both, register again and run."""
    code = textwrap.dedent(
        """
        import gc, numpy as np, onnxruntime as ort, onemodel_ep
        from onemodel_ep import ep
        from onnx import helper, TensorProto
        ort.set_default_logger_severity(3)
        g = helper.make_graph([helper.make_node("Exp", ["x"], ["y"], name="e")], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
        m = m.SerializeToString()
        x = {"x": np.arange(4, dtype=np.float32)}
        ep.register_library(); ep.register_library()            # idempotent
        ort.register_execution_provider_library("second", onemodel_ep.library_path())
        devs = [d for d in ort.get_ep_devices() if d.ep_name == ep.EP_NAME]
        assert len(devs) == 2, devs
        outs = []
        for d in devs:
            so = ort.SessionOptions(); so.add_provider_for_devices([d], {})
            s = ort.InferenceSession(m, so); outs.append(s.run(None, x)[0]); del s, so
        s = ort.InferenceSession(m, ep.ep_session_options()); outs.append(s.run(None, x)[0]); del s
        gc.collect()
        ort.unregister_execution_provider_library("second")
        ep.unregister_library()
        assert not [d for d in ort.get_ep_devices() if d.ep_name == ep.EP_NAME]
        s = ort.InferenceSession(m, ep.ep_session_options()); outs.append(s.run(None, x)[0]); del s
        assert all(np.array_equal(o, outs[0]) for o in outs)
        print("ok")
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


MODELS = Path(__file__).resolve().parents[2] / "testdata" / "models"


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
@pytest.mark.parametrize("name", ["bert_tiny", "llama_tiny"])
def test_test_models_give_the_rewrite_paths_bits(name, dispatch):
    model = onnx.load(str(MODELS / f"{name}.onnx"))
    rng = np.random.default_rng(7)
    feeds = {"input_ids": rng.integers(0, 256, size=(2, 9), dtype=np.int64)}
    if name == "bert_tiny":
        feeds["attention_mask"] = np.ones((2, 9), np.int64)
        feeds["attention_mask"][1, 6:] = 0
    path = onemodel_ep.kernel_paths()[0]
    want = _bits(_rewrite_session(model, kernel_path=path).run(None, feeds))
    for threads, level in ((1, LEVELS[0]), (2, LEVELS[-1])):
        sess = _ep_session(model, kernel_path=path, threads=threads, level=level, dispatch=dispatch)
        assert _bits(sess.run(None, feeds)) == want, (threads, level)
    on_ep = {a.op for a in ep.assignments(sess) if a.ep == ep.EP_NAME}
    assert {"Add", "Mul"} <= on_ep


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "onemodel_ep.cli", *args], capture_output=True, text=True, timeout=600
    )


def test_cli_via():
    r = _cli("info")
    assert r.returncode == 0 and "execution provider path (--via ep): supported" in r.stdout
    for via, header in (("ep", "node(s) on OneModelExecutionProvider"), ("rewrite", "moved to ai.onemodel")):
        r = _cli("run", "--via", via)
        assert r.returncode == 0 and header in r.stdout, r.stderr
    for via, line in (
        ("ep", "execution provider: 9 node(s) on OneModelExecutionProvider"),
        ("rewrite", "rewrite: 9 node(s) moved to ai.onemodel"),
    ):
        r = _cli("diff", "--via", via, "-q")
        assert r.returncode == 1 and line in r.stdout, r.stdout
    r = _cli("run", "--via", "jit")
    assert r.returncode == 2


def test_bench_whole_model(tmp_path: Path):
    out = tmp_path / "b.json"
    r = _cli("bench", "--model", str(MODELS / "bert_tiny.onnx"), "--threads", "1", "--budget", "0.2",
             "--dim", "4", "--json", str(out))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "ours / stock time" in r.stdout
    import json

    (res,) = json.loads(out.read_text())
    assert res["via"] == "ep" and res["stock_s"] > 0 and res["ours_s"] > 0
    assert res["inputs"]["input_ids"] == [4, 4]
    r = _cli("bench", "--model", str(MODELS / "bert_tiny.onnx"), "--threads", "1", "--budget", "0.2",
             "--dim", "4", "--via", "rewrite", "--json", str(out))  # fmt: skip
    assert r.returncode == 0 and "OneModel via rewrite (exact)" in r.stdout, r.stderr
    (res,) = json.loads(out.read_text())
    assert res["via"] == "rewrite" and res["ours_s"] > 0


def _one_node(row) -> tuple[onnx.ModelProto, dict[str, np.ndarray]] | None:
    """A one-node model of op-table row `row` over float (or the row's first type) [4, 8] tensors (MatMul and
    Gemm: [4, 8] by [8, 3]; other structured rows: None)."""
    from onemodel_ep._lib import F_STRUCT

    shapes = [[4, 8]] * 3
    if row.flags & F_STRUCT:
        if row.name not in ("MatMul", "Gemm"):
            return None
        shapes = [[4, 8], [8, 3]]
    t0 = TensorProto.FLOAT if TensorProto.FLOAT in row.input0_types else min(row.input0_types)
    others = row.other_types or {t0}
    t1 = TensorProto.FLOAT if TensorProto.FLOAT in others else min(others)
    n_in = 3 if row.max_inputs > 3 else row.min_inputs  # variadic ops get three inputs
    types = [t0] + [t1] * (n_in - 1)
    attrs: dict[str, object] = {}
    if row.name == "Cast":
        attrs["to"] = TensorProto.FLOAT16
    if row.name == "Mod":
        attrs["fmod"] = 1
    rng = np.random.default_rng(abs(hash(row.name)) % 1000)
    feeds, vis = {}, []
    for k, t in enumerate(types):
        dt = helper.tensor_dtype_to_np_dtype(t)
        if dt == np.bool_:
            v = rng.integers(0, 2, shapes[k]).astype(dt)
        elif np.issubdtype(dt, np.integer):
            v = rng.integers(1, 9, shapes[k]).astype(dt)
        else:
            v = rng.uniform(-9, 9, shapes[k]).astype(dt)
        feeds[f"i{k}"] = v
        vis.append(helper.make_tensor_value_info(f"i{k}", t, shapes[k]))
    node = helper.make_node(row.name, list(feeds), ["o"], name=f"n_{row.name}", **attrs)
    out = helper.make_value_info("o", onnx.TypeProto())
    return _model([node], vis, [out], opset=20), feeds


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_every_row_of_the_op_table_gives_the_rewrite_paths_bits(dispatch):
    from onemodel_ep._lib import op_table

    checked = []
    for row in op_table().values():
        built = _one_node(row)
        if built is None:
            continue
        model, feeds = built
        try:
            want = _bits(_rewrite_session(model).run(None, feeds))
        except Exception:  # noqa: BLE001 - an op/type ONNX itself refuses at opset 20: nothing to compare
            continue
        sess = _ep_session(model, dispatch=dispatch)
        assert ep.claimed_names(ep.assignments(sess)) == {f"n_{row.name}"}, row.name
        assert _bits(sess.run(None, feeds)) == want, row.name
        checked.append(row.name)
    assert len(checked) >= 48 and {"MatMul", "Gemm"} <= set(checked), checked


@pytest.mark.parametrize("dispatch", ep.DISPATCHES)
def test_hostile_nodes_are_left_or_served_never_crash(dispatch):
    # an absent optional input (Clip's min given as ""), a Sum past the library's 4096 inputs, an empty tensor
    names = [f"x{k}" for k in range(4100)]
    nodes = [
        helper.make_node("Clip", ["x", "", "hi"], ["c"], name="clip_no_min"),
        helper.make_node("Sum", names, ["s"], name="sum_4100"),
        helper.make_node("Exp", ["e"], ["ee"], name="exp_empty"),
    ]
    hi = numpy_helper.from_array(np.array(1.5, np.float32), "hi")
    inputs = [_f32("x", [4]), _f32("e", [0])] + [_f32(n, [1]) for n in names]
    model = _model(nodes, inputs, [_f32("c", [4]), _f32("s", [1]), _f32("ee", [0])], [hi])
    feeds = {"x": np.array([-3, 0, 1, 9], np.float32), "e": np.zeros(0, np.float32)}
    feeds.update({n: np.ones(1, np.float32) for n in names})
    sess = _ep_session(model, dispatch=dispatch)
    claimed = ep.claimed_names(ep.assignments(sess))
    assert "clip_no_min" in claimed and "exp_empty" in claimed and "sum_4100" not in claimed
    c, s, e = sess.run(None, feeds)
    assert np.array_equal(c, np.array([-3, 0, 1, 1.5], np.float32)) and s[0] == 4100 and e.shape == (0,)


def test_an_older_runtime_falls_back_to_the_rewrite(monkeypatch):
    from onemodel_ep import session

    monkeypatch.setattr(ort, "__version__", "1.23.2")
    assert not ep.ep_supported() and "1.24" in (ep.ep_unsupported_reason() or "")
    assert session.default_via() == "rewrite"
    with pytest.raises(RuntimeError, match="via='rewrite'"):
        ep.register_library()
    sess = onemodel_ep.InferenceSession(mixed_model(), _quiet(ort.SessionOptions()))
    assert sess.via == "rewrite" and sess.rewritten_model is not None


def test_library_refuses_an_older_runtime_with_a_clear_status():
    """CreateEpFactories called as ORT 1.23 would: no factory, and a status naming both versions."""
    vp = ctypes.c_void_p
    messages: list[bytes] = []

    @ctypes.CFUNCTYPE(vp, ctypes.c_int, ctypes.c_char_p)
    def create_status(code, msg):
        messages.append(msg)
        return 1  # any non-NULL status

    api = (vp * 1)(ctypes.cast(create_status, vp))

    @ctypes.CFUNCTYPE(vp, ctypes.c_uint32)
    def get_api(version):
        return ctypes.addressof(api) if version <= 23 else None

    version = ctypes.create_string_buffer(b"1.23.0")

    @ctypes.CFUNCTYPE(vp)
    def version_string():
        return ctypes.addressof(version)

    base = (vp * 2)(ctypes.cast(get_api, vp), ctypes.cast(version_string, vp))
    lib = ctypes.CDLL(onemodel_ep.library_path())
    lib.CreateEpFactories.restype = vp
    size_p = ctypes.POINTER(ctypes.c_size_t)
    lib.CreateEpFactories.argtypes = [ctypes.c_char_p, vp, vp, vp, ctypes.c_size_t, size_p]
    factories = (vp * 4)()
    n = ctypes.c_size_t(9)
    base_p, factories_p = ctypes.addressof(base), ctypes.addressof(factories)
    status = lib.CreateEpFactories(b"old", base_p, None, factories_p, 4, ctypes.byref(n))
    assert status and n.value == 0 and not any(factories)
    (msg,) = messages
    assert b"1.24" in msg and b"1.23.0" in msg and b"rewrite" in msg, msg


def test_an_already_rewritten_model_runs_through_the_ep_options():
    model, feeds = mixed_model(), _inputs()
    rewritten = onemodel_ep.rewrite(model)
    want = _bits(_rewrite_session(model).run(None, feeds))
    assert _bits(_ep_session(rewritten).run(None, feeds)) == want
    sess = onemodel_ep.InferenceSession(rewritten, _quiet(ort.SessionOptions()))
    assert sess.via == "ep" and _bits(sess.run(None, feeds)) == want
    assert len(sess.report.moved) == 8 and [n.name for n in sess.report.stayed] == ["atan"]


def test_elu_selu_celu_parameters_reach_the_kernel():
    """Non-default alpha (and gamma) go to the kernel as a broadcast operand: the EP claims the nodes, its
    bits are the rewrite's and the library node's, and within 1e-6 relative plus 3e-7 absolute of stock ORT
    (whose f32 exp(x) - 1 carries the rounding of exp(x), about 6e-8 absolute, times alpha or gamma alpha)."""
    from onemodel_ep.node import Node

    cases = [("Elu", {"alpha": 0.3}), ("Selu", {"alpha": 1.5, "gamma": 0.75}), ("Celu", {"alpha": 2.5})]
    nodes = [helper.make_node(op, ["x"], [f"y{k}"], name=f"n{k}", **a) for k, (op, a) in enumerate(cases)]
    model = _model(nodes, [_f32("x", [N])], [_f32(f"y{k}", [N]) for k in range(len(cases))], opset=13)
    x = np.random.default_rng(3).uniform(-12, 4, N).astype(np.float32)
    x[:6] = [0.0, -0.0, -np.inf, np.inf, -1e-3, -1e-20]
    feeds = {"x": x}
    sess = _ep_session(model)
    assert ep.claimed_names(ep.assignments(sess)) == {"n0", "n1", "n2"}
    got = sess.run(None, feeds)
    assert _bits(got) == _bits(_rewrite_session(model).run(None, feeds))
    stock = ort.InferenceSession(model.SerializeToString(), _quiet(ort.SessionOptions())).run(None, feeds)
    for (op, a), g, s in zip(cases, got, stock):
        lib_node = Node(op, [TensorProto.FLOAT], onnx_opset=13, attributes=a)
        assert _bits([lib_node.run(x)]) == _bits([g]), op
        assert np.allclose(g, s, rtol=1e-6, atol=3e-7, equal_nan=True), op
        assert g[4] < 0 and g[5] < 0, (op, g[4:6])  # stock ORT's f32 exp(x) - 1 gives +0 at -1e-20
