"""Every C tool under tools/ compiles and links through the one recipe (tools/c_tool.py --build-only), so none
can rot unseen when the library's sources move or its functions change. Warnings are errors here, as in CI.

The library's objects are cached under build/c_tool/ per set of flags (three sets today: plain, -DOM_TR_STATS,
and -DOM_TR_STATS -DOM_POW_STATS), so the first run compiles the library three times and later runs only what
changed. Tools that need MPFR (the `-lmpfr` in their `c_tool:` line) are skipped where its header is
missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "tools" / "c_tool.py"
TOOLS = sorted(p.stem for p in (ROOT / "tools").rglob("*.c"))
pytestmark = pytest.mark.slow  # compiles the library once and links 15 tools: ~4 min; CI runs it (-m slow)


def _needs_mpfr(name: str) -> bool:
    src = next((ROOT / "tools").rglob(f"{name}.c")).read_text().splitlines()
    return any("c_tool:" in line and "-lmpfr" in line for line in src[:40])


def _has_mpfr() -> bool:
    r = subprocess.run(["gcc", "-E", "-x", "c", "-"], input=b"#include <mpfr.h>\n", capture_output=True)
    return r.returncode == 0


def _build(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RECIPE), *args], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env
    )


def test_tools_found():
    # the C tools of today's tree; a tool added or removed changes this list on purpose
    assert len(TOOLS) >= 15, TOOLS
    assert len(set(TOOLS)) == len(TOOLS), "two tools of the same name: c_tool.py could not tell them apart"


@pytest.mark.parametrize("name", TOOLS)
def test_c_tool_builds(name):
    if _needs_mpfr(name) and not _has_mpfr():
        pytest.skip("mpfr.h not found (libmpfr-dev)")
    env = dict(os.environ, ONEMODEL_WERROR="1")
    env.pop("TOOL_CC", None)
    r = _build("--build-only", name, env=env)
    assert r.returncode == 0, f"{name} does not build:\n{r.stderr[-6000:]}"
    binary = ROOT / r.stdout.strip()
    assert binary.is_file() and os.access(binary, os.X_OK), r.stdout


def test_unknown_tool_is_a_clear_error():
    r = _build("--build-only", "no_such_tool")
    assert r.returncode != 0
    assert "no_such_tool.c" in r.stderr and "Traceback" not in r.stderr
