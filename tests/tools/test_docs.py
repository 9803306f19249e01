"""The generated op table in docs/ops-elementwise.md matches the library's op table."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_op_doc_is_current():
    r = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen" / "gen_op_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
