"""The package's modules import one another without cycles and use no other module's private names.

The import graph is read from the sources with `ast`: every import statement, at module level or inside a
function (those run too, later), except under `if TYPE_CHECKING:` (never at run time). Importing
`onemodel_ep.a.b` from outside the package `onemodel_ep.a` also runs `onemodel_ep/a/__init__.py`, so it
counts as importing that too; the root `onemodel_ep/__init__.py` runs before any module and is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "onemodel_ep"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE
COMPILED = {f"{PACKAGE}._native"}  # the cffi extension setup.py builds (no .py source)


def module_sources(root: Path = ROOT) -> dict[str, str]:
    """{module name: source} of every .py file of the package."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path.read_text()
    return out


def _is_package(name: str, modules: set[str]) -> bool:
    return any(m.startswith(name + ".") for m in modules)


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of `tree`, those under `if TYPE_CHECKING:` left out."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def analyse(sources: dict[str, str]) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph among `sources`' modules and the private names one module takes from another."""
    modules = set(sources) | COMPILED
    graph: dict[str, set[str]] = {m: set() for m in sources}
    private: list[str] = []
    for name, source in sources.items():
        tree = ast.parse(source)
        here = name if _is_package(name, modules) else name.rpartition(".")[0]
        bound: dict[str, str] = {}  # local name -> package module it stands for
        targets: list[str] = []
        for node in _runtime_imports(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        targets.append(alias.name)
                        if alias.asname:
                            bound[alias.asname] = alias.name
                continue
            base = node.module or ""
            if node.level:
                anchor = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base not in modules:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    targets.append(sub)
                    bound[alias.asname or alias.name] = sub
                    continue
                targets.append(base)
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    private.append(f"{name}: from {base} import {alias.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and f"{bound[node.value.id]}.{node.attr}" not in modules
            ):
                private.append(f"{name}: {bound[node.value.id]}.{node.attr}")
        for target in targets:
            parts = target.split(".")
            for k in range(2, len(parts)):  # the packages the import runs on the way (not the root)
                package = ".".join(parts[:k])
                if not (name == package or name.startswith(package + ".")):
                    graph[name].add(package)
            if target != name:
                graph[name].add(target)
    for edges in graph.values():
        edges &= set(sources)
        edges.discard(PACKAGE)
    return graph, private


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in state:
                cycle = visit(n)
                if cycle:
                    return cycle
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            if cycle:
                return cycle
    return None


def test_no_import_cycles():
    graph, _ = analyse(module_sources())
    assert len(graph) > 10 and graph[f"{PACKAGE}.session"]  # the sources were found and read
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_private_names_across_modules():
    _, private = analyse(module_sources())
    assert private == []


def test_the_checks_find_what_they_look_for():
    sources = {
        "onemodel_ep": "",
        "onemodel_ep.a": "from onemodel_ep.b import f\n",
        "onemodel_ep.b": "def f():\n    from onemodel_ep import a\n    return a._hidden\n",
        "onemodel_ep.c": "from onemodel_ep.a import _helper\nfrom onemodel_ep import pkg\n",
        "onemodel_ep.pkg": "from onemodel_ep.pkg.inner import g\n",
        "onemodel_ep.pkg.inner": "import typing\nif typing.TYPE_CHECKING:\n    import onemodel_ep.c\n",
        "onemodel_ep.d": "from onemodel_ep.pkg.inner import g\n",
    }
    graph, private = analyse(sources)
    assert find_cycle(graph) == ["onemodel_ep.a", "onemodel_ep.b", "onemodel_ep.a"]
    assert sorted(private) == [
        "onemodel_ep.b: onemodel_ep.a._hidden",
        "onemodel_ep.c: from onemodel_ep.a import _helper",
    ]
    # importing pkg.inner runs pkg's __init__ too
    assert graph["onemodel_ep.d"] == {"onemodel_ep.pkg", "onemodel_ep.pkg.inner"}
    assert graph["onemodel_ep.pkg"] == {"onemodel_ep.pkg.inner"}
    assert graph["onemodel_ep.pkg.inner"] == set()  # TYPE_CHECKING imports never run
    del sources["onemodel_ep.b"]
    assert find_cycle(analyse(sources)[0]) is None
    sources["onemodel_ep.pkg.inner"] = "def late():\n    from onemodel_ep.d import y\n"
    cycle = find_cycle(analyse(sources)[0])  # d -> pkg (its __init__) -> pkg.inner -> d
    assert cycle is not None and set(cycle) == {"onemodel_ep.d", "onemodel_ep.pkg", "onemodel_ep.pkg.inner"}


def test_every_subpackage_is_packaged():
    """pyproject.toml lists the packages a wheel holds: a folder missing there would be left out of it."""
    import re

    text = (ROOT.parent / "pyproject.toml").read_text()
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*)\]$", text, re.M).group(1)))
    found = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("__init__.py")}
    assert found == listed
