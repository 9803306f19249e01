"""Run a function of a test module in a child Python, so that a crash fails the test instead of pytest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def run_in_child(module: str, fn: str, args: list[Any], env: dict[str, str | None] | None = None,
                 timeout: int = 300) -> Any:
    """`module.fn(*args)` (a module of this folder) in a child Python, its JSON result back. `env`: variables
    to set (None: to remove) over this process's environment."""
    code = (
        f"import json, sys, {module} as t\n"
        f"r = t.{fn}(*json.loads(sys.stdin.read()))\n"
        "print('RESULT=' + json.dumps(r))\n"
    )
    child_env = dict(os.environ)
    child_env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([child_env["PYTHONPATH"]]
                                                              if child_env.get("PYTHONPATH") else []))
    for k, v in (env or {}).items():
        if v is None:
            child_env.pop(k, None)
        else:
            child_env[k] = v
    with tempfile.TemporaryDirectory() as cwd:  # not the repo root: the child imports the installed package
        p = subprocess.run([sys.executable, "-c", code], input=json.dumps(args), cwd=cwd, env=child_env,
                           capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert p.returncode == 0, f"child process died (exit {p.returncode}):\n{p.stderr[-4000:]}"
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT=")]
    assert lines, f"child printed no result:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
    return json.loads(lines[-1][len("RESULT=") :])
