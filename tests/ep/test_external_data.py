"""Models whose weights live in external data files, up to more than 2 GiB of them: `onemodel rewrite`,
`rewrite_file` and `InferenceSession(path)` keep the weights in their files (never in a Python ModelProto)
and the rewritten model runs, with its data beside it."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import onemodel_ep
from onemodel_ep import cli, external_data
from onemodel_ep.rewriter import rewrite_file

F = TensorProto.FLOAT


def _external(name: str, dims: list[int], location: str, offset: int) -> onnx.TensorProto:
    t = onnx.TensorProto(name=name, data_type=F, dims=dims, data_location=TensorProto.EXTERNAL)
    length = 4 * int(np.prod(dims))
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        t.external_data.add(key=k, value=v)
    return t


def _graph(weights: list[onnx.TensorProto]) -> onnx.ModelProto:
    """y = -(x + sum_k w_k[0:4]): Slice takes four elements of each weight, whatever its size."""
    inits = [
        *weights,
        numpy_helper.from_array(np.array([0], np.int64), "starts"),
        numpy_helper.from_array(np.array([4], np.int64), "ends"),
    ]
    nodes, acc = [], "x"
    for k, w in enumerate(weights):
        nodes.append(helper.make_node("Slice", [w.name, "starts", "ends"], [f"s{k}"], name=f"slice{k}"))
        nodes.append(helper.make_node("Add", [acc, f"s{k}"], [f"a{k}"], name=f"add{k}"))
        acc = f"a{k}"
    nodes.append(helper.make_node("Neg", [acc], ["y"], name="neg"))
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])],
        inits,
    )
    return helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 17)])


def _small(folder: Path) -> Path:
    """A model with two weights in one external data file, m.data."""
    folder.mkdir(parents=True, exist_ok=True)
    w = [np.arange(8, dtype=np.float32) + 1, np.arange(6, dtype=np.float32) * 0.5]
    (folder / "m.data").write_bytes(w[0].tobytes() + w[1].tobytes())
    m = _graph([_external("w0", [8], "m.data", 0), _external("w1", [6], "m.data", 32)])
    onnx.save(m, folder / "m.onnx")
    return folder / "m.onnx"


X = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
SMALL_Y = -(X + np.arange(4, dtype=np.float32) + 1 + np.arange(4, dtype=np.float32) * 0.5)


def _all_external(path: Path) -> bool:
    m = onnx.load(str(path), load_external_data=False)
    ws = [t for t in m.graph.initializer if t.name.startswith("w")]
    return bool(ws) and all(t.data_location == TensorProto.EXTERNAL and not t.raw_data for t in ws)


def _run_rewritten_file(path: Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    so = onemodel_ep.session_options()
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]).run(None, feeds)


def test_cli_rewrite_to_another_folder_copies_the_data(tmp_path, capsys):
    src = _small(tmp_path / "in")
    dst = tmp_path / "out" / "r.onnx"
    dst.parent.mkdir()
    assert cli.main(["rewrite", str(src), str(dst)]) == 0
    assert _all_external(dst)
    copy = tmp_path / "out" / "m.data"  # a copy, not a hard link (which onnx refuses)
    assert copy.read_bytes() == (tmp_path / "in" / "m.data").read_bytes() and copy.stat().st_nlink == 1
    rewritten = onnx.load(str(dst), load_external_data=False)
    assert any(n.domain == onemodel_ep.DOMAIN for n in rewritten.graph.node)
    np.testing.assert_array_equal(_run_rewritten_file(dst, {"x": X})[0], SMALL_Y)


def test_cli_rewrite_in_the_same_folder_shares_the_data(tmp_path, capsys):
    src = _small(tmp_path)
    assert cli.main(["rewrite", str(src), str(tmp_path / "r.onnx")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.data", "m.onnx", "r.onnx"]
    assert _all_external(tmp_path / "r.onnx")
    np.testing.assert_array_equal(_run_rewritten_file(tmp_path / "r.onnx", {"x": X})[0], SMALL_Y)


def test_cli_rewrite_refuses_a_different_file_in_the_way(tmp_path, capsys):
    src = _small(tmp_path / "in")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "m.data").write_bytes(b"something else")
    assert cli.main(["rewrite", str(src), str(tmp_path / "out" / "r.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists and is not the external data file" in err
    assert not (tmp_path / "out" / "r.onnx").exists()


def test_cli_rewrite_of_a_model_whose_data_is_missing(tmp_path, capsys):
    src = _small(tmp_path / "in")
    (tmp_path / "in" / "m.data").unlink()
    (tmp_path / "out").mkdir()
    assert cli.main(["rewrite", str(src), str(tmp_path / "out" / "r.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


@pytest.mark.parametrize("via", ["rewrite", "ep"])
def test_session_from_a_path_reads_the_weights_in_ort_only(tmp_path, monkeypatch, via):
    if via == "ep" and onemodel_ep.session.default_via() != "ep":
        pytest.skip("this ORT cannot load OneModel as an execution provider")
    src = _small(tmp_path / "model")
    monkeypatch.chdir(tmp_path)  # not the model's folder
    sess = onemodel_ep.InferenceSession(src, via=via)
    np.testing.assert_array_equal(sess.run(None, {"x": X})[0], SMALL_Y)
    if via == "rewrite":
        ws = [t for t in sess.rewritten_model.graph.initializer if t.name.startswith("w")]
        assert ws and all(not t.raw_data and t.data_location == TensorProto.EXTERNAL for t in ws)


def test_rewrite_of_an_in_memory_model_over_the_limit_infers_without_its_weights(monkeypatch):
    """rewrite() of a ModelProto too large to serialise (simulated: the limit lowered to 1 MiB) still knows
    every type: inference runs on external_data.skeleton(), without the large initializers' data."""
    big = numpy_helper.from_array(np.ones(1 << 19, np.float32), "w0")  # 2 MiB, inline
    m = _graph([big])
    limit = 1 << 20
    real = onnx.shape_inference.infer_shapes

    def infer(model: onnx.ModelProto, *a: object, **k: object) -> onnx.ModelProto:
        if model.ByteSize() > limit:
            raise ValueError("Message onnx.ModelProto exceeds maximum protobuf size of 2GB")
        return real(model, *a, **k)

    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", infer)
    monkeypatch.setattr(external_data, "SERIALISABLE_BYTES", limit)
    report = onemodel_ep.RewriteReport("exact", None)
    onemodel_ep.rewrite(m, report=report)
    assert {n.name for n in report.moved} == {"slice0", "add0", "neg"}, report.summary()


GIB = 1 << 30


def test_model_over_2_gib(tmp_path, capsys):
    """Three weights of 720 MiB each (2.1 GiB) in one sparse external data file of zeros: rewritten through
    the CLI and rewrite_file, and run by path, without the weights ever in Python memory. Most of its time
    is ORT reading the 2.1 GiB, twice."""
    n = 720 << 18  # floats per weight: 720 MiB
    src_dir = tmp_path / "in"
    src_dir.mkdir()
    weights = [_external(f"w{k}", [n], "big.data", k * 4 * n) for k in range(3)]
    with open(src_dir / "big.data", "wb") as f:
        f.truncate(3 * 4 * n)  # sparse: no disk blocks, reads as zeros
    assert 3 * 4 * n > 2 * GIB
    onnx.save(_graph(weights), src_dir / "big.onnx")
    assert (src_dir / "big.onnx").stat().st_size < 4096
    want = -X

    t0 = time.monotonic()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    assert cli.main(["rewrite", str(src_dir / "big.onnx"), str(out_dir / "big.onnx")]) == 0
    assert "7 node(s) moved" in capsys.readouterr().out  # the Slices too
    assert _all_external(out_dir / "big.onnx") and (out_dir / "big.onnx").stat().st_size < 8192
    np.testing.assert_array_equal(_run_rewritten_file(out_dir / "big.onnx", {"x": X})[0], want)

    report = rewrite_file(src_dir / "big.onnx", src_dir / "big_api.onnx")  # the CLI's model (run above)
    assert len(report.moved) == 7
    assert (src_dir / "big_api.onnx").read_bytes() == (out_dir / "big.onnx").read_bytes()

    sess = onemodel_ep.InferenceSession(src_dir / "big.onnx", via="rewrite")
    np.testing.assert_array_equal(sess.run(None, {"x": X})[0], want)
    assert sess.rewritten_model.ByteSize() < 8192
    print(f"2 GiB model: {time.monotonic() - t0:.1f} s")
