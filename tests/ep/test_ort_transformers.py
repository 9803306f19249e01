"""ORT's level-1 transformers against OneModel EP (onemodel_ep/ort_transformers.py).

Every level-1 transformer the running ORT applies is classified there; and for each pattern a level-1
transformer rewrites (one small graph each, values with NaN, infinities, signed zeros and subnormals), the EP
path gives the rewrite path's bits at ORT's basic and full optimisation levels: the transformers left on do
not change a value, the disabled ones cannot. Each graph is checked to be one that stock ORT does rewrite.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, numpy_helper
from onnx import helper as oh

import onemodel_ep
from onemodel_ep import ep
from onemodel_ep.ort_transformers import LEVEL1

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="ORT without plugin EP support")

LEVELS = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
_rng = np.random.default_rng(35)


def _init(name: str, arr: np.ndarray | float) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)


def _model(nodes: list[onnx.NodeProto], shape: list[int], inits: list[onnx.TensorProto],
           opset: int = 17) -> onnx.ModelProto:
    for i, n in enumerate(nodes):
        n.name = f"n{i}_{n.op_type}"
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)], ir_version=9)


def _vec(n: int) -> np.ndarray:
    return _rng.standard_normal(n).astype(np.float32)


def _gelu(opset: int) -> onnx.ModelProto:
    return _model([
        oh.make_node("Div", ["x", "s2"], ["d"]), oh.make_node("Erf", ["d"], ["e"]),
        oh.make_node("Add", ["e", "one"], ["a"]), oh.make_node("Mul", ["x", "a"], ["m"]),
        oh.make_node("Mul", ["m", "half"], ["y"])],
        [4, 64], [_init("s2", np.sqrt(2.0)), _init("one", 1.0), _init("half", 0.5)], opset)


def _layer_norm() -> onnx.ModelProto:
    return _model([
        oh.make_node("ReduceMean", ["x"], ["mu"], axes=[-1]), oh.make_node("Sub", ["x", "mu"], ["d"]),
        oh.make_node("Pow", ["d", "two"], ["p"]), oh.make_node("ReduceMean", ["p"], ["v"], axes=[-1]),
        oh.make_node("Add", ["v", "eps"], ["ve"]), oh.make_node("Sqrt", ["ve"], ["sd"]),
        oh.make_node("Div", ["d", "sd"], ["n"]), oh.make_node("Mul", ["n", "g"], ["ng"]),
        oh.make_node("Add", ["ng", "b"], ["y"])],
        [4, 64], [_init("two", 2.0), _init("eps", 1e-5), _init("g", _vec(64)), _init("b", _vec(64))])


def _matmul_bn() -> onnx.ModelProto:
    return _model([
        oh.make_node("MatMul", ["x", "w"], ["mm"]),
        oh.make_node("BatchNormalization", ["mm", "sc", "bb", "mean", "var"], ["y"])],
        [4, 16], [_init("w", _rng.standard_normal((16, 8))), _init("sc", _vec(8)), _init("bb", _vec(8)),
                  _init("mean", _vec(8)), _init("var", _rng.random(8) + 0.5)])


def _relu_clip() -> onnx.ModelProto:
    return _model([oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Clip", ["r", "lo", "hi"], ["y"])],
                  [4, 64], [_init("lo", -1.0), _init("hi", 0.5)])


def _matmul_add() -> onnx.ModelProto:
    return _model([oh.make_node("MatMul", ["x", "w"], ["mm"]), oh.make_node("Add", ["mm", "b"], ["y"])],
                  [4, 16], [_init("w", _rng.standard_normal((16, 8))), _init("b", _vec(8))])


def _gemm_transpose() -> onnx.ModelProto:
    return _model([oh.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                   oh.make_node("Gemm", ["xt", "w"], ["y"])],
                  [16, 4], [_init("w", _rng.standard_normal((16, 8)))])


def _pad_conv() -> onnx.ModelProto:
    pads = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads")
    return _model([oh.make_node("Pad", ["x", "pads"], ["p"]), oh.make_node("Conv", ["p", "w"], ["y"])],
                  [1, 3, 8, 8], [pads, _init("w", _rng.standard_normal((4, 3, 3, 3)))])


def _not_where() -> onnx.ModelProto:
    return _model([oh.make_node("Greater", ["x", "z"], ["c"]), oh.make_node("Not", ["c"], ["nc"]),
                   oh.make_node("Where", ["nc", "x", "seven"], ["y"])],
                  [4, 64], [_init("z", 0.0), _init("seven", 7.0)])


# pattern -> (graph, the transformer that rewrites it)
PATTERNS: dict[str, tuple[Callable[[], onnx.ModelProto], str]] = {
    "gelu_erf_opset20": (lambda: _gelu(20), "GeluFusionL1"),
    "layer_norm_sequence": (_layer_norm, "LayerNormFusionL1"),
    "matmul_batchnorm": (_matmul_bn, "MatMul_BatchNormalization_Fusion"),
    "relu_clip": (_relu_clip, "FuseReluClip"),
    "matmul_add": (_matmul_add, "MatMulAddFusion"),
    "transpose_gemm": (_gemm_transpose, "GemmTransposeFusion"),
    "pad_conv": (_pad_conv, "Pad_Fusion"),
    "not_where": (_not_where, "NotWhereFusion"),
}


def _input(model: onnx.ModelProto) -> np.ndarray:
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = (_rng.standard_normal(shape) * 3).astype(np.float32)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -1e-40, 0.5, -0.5, 1.0], np.float32)
    x.ravel()[:special.size] = special
    return x


def _stock_nodes(model: onnx.ModelProto, tmp_path: object, disabled: list[str]) -> int:
    so = ort.SessionOptions()
    so.graph_optimization_level = LEVELS["basic"]
    so.optimized_model_filepath = str(tmp_path)
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"],
                         disabled_optimizers=disabled)
    return len(onnx.load(str(tmp_path)).graph.node)


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_pattern_gives_the_rewrite_paths_bits(pattern: str, tmp_path: object) -> None:
    make, transformer = PATTERNS[pattern]
    model = make()
    assert any(t.name == transformer for t in LEVEL1), transformer
    out = f"{tmp_path}/opt.onnx"
    # the graph is one the named transformer rewrites in stock ORT, and disabling that name stops it
    assert _stock_nodes(model, out, []) < len(model.graph.node), f"stock ORT leaves {pattern} as it is"
    assert _stock_nodes(model, out, [transformer]) == len(model.graph.node), (
        f"disabling {transformer} does not stop ORT rewriting {pattern}")
    x = _input(model)
    want: np.ndarray | None = None
    for via in ("rewrite", "ep"):
        for level_name, level in LEVELS.items():
            so = ort.SessionOptions()
            so.graph_optimization_level = level
            so.log_severity_level = 3
            got = onemodel_ep.InferenceSession(model.SerializeToString(), sess_options=so, via=via,
                                               fold=False).run(None, {"x": x})[0]
            if want is None:
                want = got
                continue
            differ = int(np.sum(got.view(np.uint32) != want.view(np.uint32)))
            assert differ == 0, f"{pattern}: via {via} at level {level_name}, {differ} elements differ"


_LIST_TRANSFORMERS = textwrap.dedent("""
    import onnx, onnxruntime as ort
    from onnx import helper as oh, TensorProto
    g = oh.make_graph([oh.make_node("Relu", ["x"], ["y"])], "g",
                      [oh.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                      [oh.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 17)], ir_version=9)
    ort.set_default_logger_severity(0)
    so = ort.SessionOptions()
    so.log_severity_level = 0
    so.log_verbosity_level = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
""")


def test_every_level1_transformer_of_this_ort_is_classified() -> None:
    """ORT's verbose log names each transformer it applies: a new one in a new ORT must be classified."""
    run = subprocess.run([sys.executable, "-c", _LIST_TRANSFORMERS], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    applied = set(re.findall(r"Applying graph transformer (\S+) on step", run.stdout + run.stderr))
    assert "ConstantFolding" in applied, "ORT's log format changed: no transformer names found"
    known = {t.name for t in LEVEL1 if not t.rule}
    assert applied <= known, f"level-1 transformers not in onemodel_ep/ort_transformers.py: {applied - known}"
    transformers_disabled = {t.name for t in LEVEL1 if t.disabled and not t.rule}
    assert transformers_disabled <= applied | {"RocmBlasAltImpl"}, transformers_disabled - applied
    assert set(ep.NUMERIC_OPTIMIZERS) >= {t.name for t in LEVEL1 if t.disabled}


def test_table_is_in_the_architecture_doc() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    missing = [t.name for t in LEVEL1 if f"`{t.name}`" not in doc]
    assert not missing, f"docs/architecture.md does not name {missing}"
