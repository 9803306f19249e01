"""The output bits never change by accident: every op-table case and every test model against
testdata/golden/digests.json, on every kernel path of this machine (and, for the models, both ways in and at
one and two threads). A failure names the ops whose bits changed; if the change is deliberate, bump
onemodel_ep.digests.BITS_VERSION, run `python tools/gen/golden_digests.py --write` and say in CHANGELOG.md
which ops changed and why."""

import json
from pathlib import Path

import pytest

import onemodel_ep
from onemodel_ep.digests import BITS_VERSION, model_digest, model_files, model_key, op_digests

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((ROOT / "testdata" / "golden" / "digests.json").read_text())
MODELS = model_files(ROOT / "testdata")
HOW = "if deliberate: bump BITS_VERSION, run tools/gen/golden_digests.py --write, add a CHANGELOG.md line"


def test_golden_file_is_for_this_bits_version():
    assert GOLDEN["bits_version"] == BITS_VERSION, (
        f"testdata/golden/digests.json is for bits version {GOLDEN['bits_version']}, the library says "
        f"{BITS_VERSION}: regenerate it with tools/gen/golden_digests.py --write")
    assert onemodel_ep.BITS_VERSION == BITS_VERSION


@pytest.mark.parametrize("path", onemodel_ep.kernel_paths())
def test_op_digests_match_golden(path):
    got = op_digests(path)
    want = GOLDEN["ops"]
    missing = sorted(set(want) - set(got))
    changed = sorted(k for k in want if k in got and got[k] != want[k])
    new = sorted(set(got) - set(want))
    ops = sorted({k.split("(")[0] for k in missing + changed + new})
    assert not (missing or changed or new), (
        f"kernel path {path}: exact-mode bits changed for op(s) {', '.join(ops)}: "
        f"{len(changed)} cases differ (first: {changed[:3]}), {len(missing)} no longer served "
        f"(first: {missing[:3]}), {len(new)} new (first: {new[:3]}); {HOW}")


@pytest.mark.parametrize("model", MODELS, ids=model_key)
@pytest.mark.parametrize("via", ["ep", "rewrite"])
@pytest.mark.parametrize("threads", [1, 2])
def test_model_digests_match_golden(model, via, threads):
    for path in onemodel_ep.kernel_paths():
        got = model_digest(model, kernel_path=path, via=via, threads=threads)
        key = model_key(model)
        assert got == GOLDEN["models"][key], (
            f"{key} via {via}, {threads} thread(s), kernel path {path}: output digest {got} differs "
            f"from the golden {GOLDEN['models'][key]}; {HOW}")
