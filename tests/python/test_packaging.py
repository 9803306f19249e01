"""The package as a user meets it: imported from a source tree without the built library, and its
module structure (no import cycle through cli.py)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import onemodel_ep

PACKAGE = Path(onemodel_ep.__file__).resolve().parent


# As after `pip install .` (not editable): an editable install's finder would find onemodel_ep._native in the
# worktree for any onemodel_ep package, so it is taken off sys.meta_path first.
IMPORT = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'Editable' not in getattr(f, '__name__', "
    "type(f).__name__)]; import onemodel_ep"
)


def _fake_source_tree(root: Path) -> Path:
    """root laid out like a checkout: the package's Python files, setup.py, provider/, and no _native."""
    pkg = root / "onemodel_ep"
    pkg.mkdir()
    for f in PACKAGE.glob("*.py"):
        shutil.copy(f, pkg / f.name)
    (root / "setup.py").write_text("# the project's setup.py\n")
    (root / "provider").mkdir()
    (pkg / "_native.c").write_text("/* cffi's generated source, which a build may leave here */\n")
    return pkg


def test_import_from_the_source_tree_says_what_to_do(tmp_path):
    _fake_source_tree(tmp_path)
    r = subprocess.run([sys.executable, "-c", IMPORT], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert "circular import" not in r.stderr
    assert last.startswith("ImportError: onemodel_ep is being imported from its source tree")
    assert str(tmp_path.resolve()) in last and "pip install -e ." in last and "another folder" in last


def test_import_without_the_library_outside_a_source_tree(tmp_path):
    (tmp_path / "site").mkdir()
    _fake_source_tree(tmp_path / "site")
    (tmp_path / "site" / "setup.py").unlink()  # an installed package, its library deleted
    r = subprocess.run([sys.executable, "-c", IMPORT], cwd=tmp_path / "site", capture_output=True, text=True)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert "compiled library onemodel_ep._native is missing" in last and "reinstall" in last


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_no_module_imports_the_command_line():
    """cli.py imports bench and diff; neither, nor any other module, imports cli (UsageError: errors.py)."""
    importers = [
        f.name
        for f in PACKAGE.glob("*.py")
        if f.name != "cli.py" and "onemodel_ep.cli" in _imported_modules(f)
    ]
    assert importers == []


def test_usage_error_is_one_class():
    import importlib

    bench, cli, cli_diff, errors = (
        importlib.import_module(f"onemodel_ep.{m}") for m in ("bench", "cli", "cli_diff", "errors")
    )
    assert cli.UsageError is errors.UsageError is bench.UsageError is cli_diff.UsageError
