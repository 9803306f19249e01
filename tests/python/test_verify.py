"""`onemodel verify`: the same digest on every kernel path and through the EP and the rewrite; --expect
exits 1 on a mismatch; bad inputs give one clear line and exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import onemodel_ep
from onemodel_ep import cli
from onemodel_ep.digests import BITS_VERSION
from onemodel_ep.verify import seeded_inputs, verify

ROOT = Path(__file__).resolve().parents[2]
MODELS = sorted((ROOT / "testdata" / "models").glob("*.onnx"))
DIGEST = re.compile(r"^digest +sha256:([0-9a-f]{64})$", re.M)


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_digest_equal_across_kernel_paths_and_vias(model: Path):
    vias = ["rewrite"] + (["ep"] if onemodel_ep.ep_supported() else [])
    results = [verify(model, via=v, kernel_path=k) for v in vias for k in onemodel_ep.kernel_paths()]
    assert len({r.digest for r in results}) == 1, [(r.via, r.kernel_path, r.digest) for r in results]
    for r in results:
        assert r.strict, r.left  # every computing node of the test models is served
        assert r.bits_version == BITS_VERSION and r.library_version == onemodel_ep.__version__


def test_cli_prints_the_proof_and_checks_expect(capsys):
    model = str(MODELS[0])
    rc, out, err = _cli(["verify", model, "--kernel-path", "scalar"], capsys)
    assert rc == 0, err
    assert f"bits version    {BITS_VERSION}" in out and f"library version {onemodel_ep.__version__}" in out
    assert "every computing node on OneModel EP" in out
    digest = DIGEST.search(out).group(1)
    rc, out, err = _cli(["verify", model, "--expect", f"sha256:{digest}"], capsys)
    assert rc == 0 and "expected digest: match" in out, err
    wrong = ("0" if digest[0] != "0" else "1") + digest[1:]
    rc, out, err = _cli(["verify", model, "--expect", wrong], capsys)
    assert rc == 1 and err.count("\n") == 1 and "digest mismatch" in err and wrong in err and digest in err


def test_inputs_file_gives_the_digest_of_those_inputs(tmp_path, capsys):
    model = MODELS[0]
    import onnx

    feeds = seeded_inputs(onnx.load(str(model), load_external_data=False), seed=3)
    np.savez(tmp_path / "in.npz", **feeds)
    assert verify(model, feeds).digest == verify(model, seed=3).digest != verify(model, seed=0).digest
    rc, out, err = _cli(["verify", str(model), "--inputs", str(tmp_path / "in.npz")], capsys)
    assert rc == 0 and DIGEST.search(out).group(1) == verify(model, seed=3).digest, err


def test_seeded_inputs_are_fixed():
    """The seeded inputs are a function of the model's metadata and the seed only (pinned here by value)."""
    import onnx

    feeds = seeded_inputs(onnx.load(str(ROOT / "testdata" / "models" / "bert_tiny.onnx")))
    assert feeds["input_ids"].shape == (4, 4) and feeds["input_ids"].dtype == np.int64
    assert set(np.unique(feeds["attention_mask"])) <= {0, 1}
    assert 0 <= feeds["input_ids"].min() and feeds["input_ids"].max() < 100
    again = seeded_inputs(onnx.load(str(ROOT / "testdata" / "models" / "bert_tiny.onnx")))
    assert all(np.array_equal(feeds[k], again[k]) for k in feeds)


def _bad_inputs(tmp: Path) -> dict[str, str]:
    np.savez(tmp / "wrong_name.npz", input_ids=np.zeros((2, 3), np.int64), nope=np.zeros(3, np.int64))
    np.savez(tmp / "missing.npz", input_ids=np.zeros((2, 3), np.int64))
    np.savez(tmp / "wrong_type.npz", input_ids=np.zeros((2, 3), np.float32),
             attention_mask=np.ones((2, 3), np.int64))  # fmt: skip
    (tmp / "text.npz").write_text("not an npz\n")
    np.save(tmp / "array.npy", np.zeros(3))
    return {k: str(tmp / f) for k, f in (("wrong_name", "wrong_name.npz"), ("missing", "missing.npz"),
            ("wrong_type", "wrong_type.npz"), ("text", "text.npz"), ("array", "array.npy"))}  # fmt: skip


@pytest.mark.parametrize(
    "which, text",
    [
        ("wrong_name", "'nope' not in the model"),
        ("missing", "missing input(s) 'attention_mask'"),
        ("wrong_type", "is float32, the model takes int64"),
        ("text", "is not an .npz"),
        ("array", "is not an .npz"),
        ("absent", "no such file"),
    ],
)
def test_bad_inputs_one_line_exit_2(tmp_path, capsys, which, text):
    paths = _bad_inputs(tmp_path)
    path = paths.get(which, str(tmp_path / "absent.npz"))
    bert = str(ROOT / "testdata" / "models" / "bert_tiny.onnx")
    rc, out, err = _cli(["verify", bert, "--inputs", path], capsys)
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("onemodel: error: --inputs") and text in err, err


def test_bad_expect_and_model(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["verify", str(MODELS[0]), "--expect", "abc"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "64 hex digits" in err
    rc, out, err = _cli(["verify", str(tmp_path / "none.onnx")], capsys)
    assert rc == 2 and err.count("\n") == 1 and "no such file" in err
