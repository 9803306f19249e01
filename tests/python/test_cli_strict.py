"""`onemodel run|diff|bench --strict`: a model with a computing node OneModel EP does not serve exits with
status 2, a one-line summary and one line per such node on stderr, no traceback; a model whose computing nodes
all run on OneModel EP runs as without --strict."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onemodel_ep import cli
from onemodel_ep.session import VIAS, default_via


def _save(tmp: Path, name: str, nodes, inits=()) -> str:
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [3, 3])], [vi("y", TensorProto.FLOAT, [])],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    onnx.checker.check_model(m, full_check=True)
    path = tmp / name
    onnx.save(m, path)
    return str(path)


@pytest.fixture
def models(tmp_path: Path) -> dict[str, str]:
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    det = _save(
        tmp_path,
        "det.onnx",
        [
            helper.make_node("Det", ["x"], ["d"], name="the_det"),
            helper.make_node("Add", ["d", "zero"], ["y"], name="plus_zero"),
        ],
        [zero],
    )
    ours = _save(
        tmp_path, "ours.onnx", [helper.make_node("ReduceSum", ["x"], ["y"], name="sum", keepdims=0)]
    )
    return {"det": det, "ours": ours}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


COMMANDS = ["run {m}", "diff {m} -q", "bench --model {m} --threads 1 --budget 0.01"]


@pytest.mark.parametrize("via", VIAS if default_via() == "ep" else ("rewrite",))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.split()[0])
def test_strict_refuses_a_stock_only_computing_node_with_exit_2(command, via, models, capsys):
    rc, out, err = _run([*command.format(m=models["det"]).split(), "--strict", "--via", via], capsys)
    assert rc == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 2, err  # the summary, then the one node
    assert lines[0].startswith("onemodel: error: strict mode: 1 computing node(s)") and "outside" in lines[0]
    assert lines[1].strip().startswith("the_det: op Det, domain ai.onnx, graph main: "), lines[1]
    assert "Det is not an operator of OneModel EP" in lines[1]
    assert not out  # refused at session creation, before any output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.split()[0])
def test_strict_runs_a_model_fully_ours(command, models, capsys):
    rc, _, err = _run([*command.format(m=models["ours"]).split(), "--strict"], capsys)
    assert rc == 0, err


def test_bench_ops_strict_is_refused_before_timing(capsys):
    # Exp over double: stock ORT serves it, OneModel EP does not (its types: float, float16, bfloat16).
    argv = ["bench", "--ops", "Exp", "--types", "float,double", "--sizes", "1K", "--threads", "1"]
    rc, out, err = _run([*argv, "--strict"], capsys)
    assert rc == 2 and "Traceback" not in err and not out, err
    lines = err.strip().splitlines()
    assert lines[0].startswith("onemodel: error: strict mode: 1 computing node(s) of the benchmark's models")
    assert len(lines) == 2 and "op Exp" in lines[1] and lines[1].endswith("(Exp over double)")
