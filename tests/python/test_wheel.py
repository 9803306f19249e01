"""The binary wheel as a user installs it: built by tools/build_wheel.sh (or $ONEMODEL_WHEEL, prebuilt),
tagged abi3 and manylinux, installed into a fresh venv with no compiler on PATH (CC=/bin/false), and the
installed `onemodel run` and `onemodel verify` work from outside the source tree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from onemodel_ep.verify import verify

ROOT = Path(__file__).resolve().parents[2]
BERT = ROOT / "testdata" / "models" / "bert_tiny.onnx"
# The runtime dependencies, at the versions the test suite pins (requirements-test.txt), from pip's index.
DEPS = ["onnxruntime==1.31.1", "onnx==1.23.2", "numpy==2.4.6", "cffi>=1.16"]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="manylinux wheel: Linux")]


def _wheel(tmp: Path) -> Path:
    given = os.environ.get("ONEMODEL_WHEEL")
    if given:
        return Path(given)
    r = subprocess.run(["bash", str(ROOT / "tools" / "build_wheel.sh"), sys.executable], cwd=ROOT,
                       capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    wheels = sorted((ROOT / "dist").glob("onemodel_ep-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _no_compiler_path(tmp: Path, venv: Path) -> str:
    """PATH of the venv's bin and a folder of links to the few tools a run needs: no cc, gcc or clang."""
    tools = tmp / "tools"
    tools.mkdir()
    for name in ("sh", "bash", "env", "uname", "ldconfig"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    path = f"{venv / 'bin'}{os.pathsep}{tools}"
    assert not any(shutil.which(c, path=path) for c in ("cc", "gcc", "clang", "c++"))
    return path


def test_wheel_installs_without_a_compiler_and_runs(tmp_path):
    wheel = _wheel(tmp_path)
    assert re.fullmatch(r"onemodel_ep-[^-]+-cp39-abi3-manylinux_\d+_\d+_x86_64(\..+)?\.whl", wheel.name) or (
        "aarch64" in wheel.name
    ), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "onemodel_ep/_native.abi3.so" in names and "onemodel_ep/examples/bert_tiny.onnx" in names
    assert not any(n.endswith((".c", ".h")) for n in names)  # a binary wheel: no sources to compile

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    r = subprocess.run([*pip, *DEPS], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=_no_compiler_path(tmp_path, venv), CC="/bin/false", CXX="/bin/false")
    r = subprocess.run([*pip, "--no-index", "--no-deps", str(wheel)], env=env, capture_output=True, text=True,
                       timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]

    work = tmp_path / "work"  # outside the source tree: the installed package, not the checkout
    work.mkdir()
    onemodel = str(venv / "bin" / "onemodel")
    run = subprocess.run([onemodel, "run"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "site-packages/onemodel_ep/examples/bert_tiny.onnx" in run.stdout
    assert re.search(r"digests on \d+ kernel paths: equal", run.stdout) or run.stdout.count("digest on") == 1

    want = verify(BERT).digest  # this checkout's build, on this machine
    for via in ("ep", "rewrite"):
        r = subprocess.run([onemodel, "verify", str(BERT), "--via", via, "--expect", want], cwd=work, env=env,
                           capture_output=True, text=True, timeout=600)  # fmt: skip
        assert r.returncode == 0, r.stdout + r.stderr
        assert "every computing node on OneModel EP" in r.stdout and "expected digest: match" in r.stdout
