#!/usr/bin/env python3
"""The one recipe that builds (and runs) every C tool under tools/.

    tools/c_tool.py NAME [ARGS...]            build tools/**/NAME.c, then run it with ARGS
    tools/c_tool.py --build-only NAME         build only; print the binary's path
    tools/c_tool.py -DFOO --src X.c NAME ...  FOO defined for the tool's own sources only, X.c linked in
    tools/c_tool.py --shared-lib TREE OUT     the library of checkout TREE as one shared object (A/B builds)

A tool links against the library's C sources, every `*.c` under provider/csrc (found, never listed), compiled
with the flags below (the library's: -ffp-contract=off, no fast-math; -DOM_TEST_ENTRIES for the test entry
points some tools call). Their objects are cached under build/c_tool/KEY/ (KEY: the compiler and the flags),
so
N tools compile the library once; an object is rebuilt when its source or a header it includes is newer.

A tool states what it needs in a comment line of its first lines, `c_tool: [standalone] [FLAGS...]`:
`-lmpfr`-style words are link libraries, other words compile flags for the tool and the library (so
`-DOM_TR_STATS` instruments the library's objects too, cached under their own KEY); `standalone` builds the
file
alone (micro-benchmarks of instructions, not of the library), its flags after the common ones (`-O1` wins).

TOOL_CC / TOOL_RUN: another compiler (the tool is then linked static) and a runner, e.g.
`TOOL_CC=aarch64-linux-gnu-gcc TOOL_RUN=qemu-aarch64`. ONEMODEL_WERROR=1 adds -Werror, as for the library.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
BUILD = ROOT / "build" / "c_tool"

# The flags of every C tool build; the library's own (provider/build_ffi.py) less -fvisibility, in GNU C.
COMMON = "-std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno".split()
COMMON += ["-Wall", "-Wextra"]
LIBRARY = ["-DOM_TEST_ENTRIES", "-Iprovider/csrc"]
DIRECTIVE = re.compile(r"c_tool:(.*?)(?:\*/|$)")


class ToolError(Exception):
    pass


def find_tool(name: str) -> Path:
    hits = sorted(TOOLS.rglob(f"{name}.c"))
    if len(hits) != 1:
        found = ", ".join(str(h.relative_to(ROOT)) for h in hits) or "none"
        raise ToolError(f"c_tool: want exactly one tools/**/{name}.c, found {found}")
    return hits[0]


def directive(src: Path) -> tuple[bool, list[str], list[str]]:
    """(standalone, compile flags, link libraries) from the tool's `c_tool:` comment line."""
    for line in src.read_text().splitlines()[:40]:
        m = DIRECTIVE.search(line)
        if m:
            words = m.group(1).split()
            standalone = "standalone" in words
            words = [w for w in words if w != "standalone"]
            return standalone, [w for w in words if not w.startswith("-l")], [w for w in words if
            w.startswith("-l")]
    return False, [], []


def compiler() -> tuple[list[str], list[str]]:
    """The compiler command and the link flags it needs (-static for a cross compiler, as its runner
    wants)."""
    cc = shlex.split(os.environ.get("TOOL_CC", "gcc"))
    return cc, ([] if cc == ["gcc"] else ["-static"])


def werror() -> list[str]:
    return ["-Werror"] if os.environ.get("ONEMODEL_WERROR") else []


def library_sources(tree: Path) -> list[Path]:
    return sorted((tree / "provider" / "csrc").rglob("*.c"))


def _key(*parts: list[str]) -> str:
    """A short hash of the build's compiler, flags and sources (-Werror left out: it changes no object)."""
    kept = [[w for w in part if w != "-Werror"] for part in parts]
    return hashlib.sha256(repr(kept).encode()).hexdigest()[:12]


def _stale(target: Path, depfile: Path) -> bool:
    """True when target is missing or older than a file its depfile (gcc -MMD) names."""
    if not target.exists() or not depfile.exists():
        return True
    deps = depfile.read_text().replace("\\\n", " ").split(":", 1)[-1].split()
    t = target.stat().st_mtime
    try:
        return any((ROOT / d).stat().st_mtime > t for d in deps)
    except FileNotFoundError:
        return True


def _run(cmd: list[str]) -> None:
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        sys.stderr.write(f"$ {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
    if r.returncode != 0:
        raise ToolError(f"c_tool: failed ({r.returncode}): {shlex.join(cmd[:1] + cmd[-3:])}")


def library_objects(flags: list[str]) -> list[Path]:
    """The library's objects built with flags, cached; returns them in source order."""
    cc, _ = compiler()
    out = BUILD / f"lib-{_key(cc, flags)}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "flags").write_text(shlex.join(cc + flags) + "\n")
    objs, todo = [], []
    for src in library_sources(ROOT):
        rel = src.relative_to(ROOT)
        obj = out / (str(rel.with_suffix("")).replace("/", "__") + ".o")
        objs.append(obj)
        if _stale(obj, obj.with_suffix(".d")):
            todo.append((cc + flags, rel, obj))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        errors = [e for e in pool.map(_compile_object, todo) if e]
    if errors:
        raise ToolError(errors[0])
    return objs


def _compile_object(job: tuple[list[str], Path, Path]) -> str | None:
    """Compiles one library source; written under a temporary name first, so that two builds at once (parallel
    tests) never see half an object. Returns the error, if any."""
    cmd, src, obj = job
    tmp = obj.with_name(f"{obj.stem}.{os.getpid()}.{threading.get_ident()}")
    try:
        _run(cmd + ["-MMD", "-MF", f"{tmp}.d", "-MT", str(obj), "-c", str(src), "-o", f"{tmp}.o"])
    except ToolError as e:
        return str(e)
    os.replace(f"{tmp}.d", obj.with_suffix(".d"))
    os.replace(f"{tmp}.o", obj)
    return None


def build(name: str, defines: list[str], extra_src: list[str]) -> Path:
    """Builds tool NAME (cached; relinked when its inputs are newer) and returns the binary's path."""
    src = find_tool(name)
    standalone, flags, libs = directive(src)
    cc, static = compiler()
    if standalone:
        lib_flags, objs = COMMON + werror() + ["-Iprovider/csrc"] + flags, []
    else:
        lib_flags = COMMON + werror() + LIBRARY + flags
        objs = library_objects(lib_flags)
    tool_flags = lib_flags + [f"-I{src.parent.relative_to(ROOT)}"] + defines
    sources = [str(src.relative_to(ROOT)), *extra_src]
    key = _key(cc, tool_flags, sources)
    BUILD.mkdir(parents=True, exist_ok=True)
    binary = BUILD / f"{name}-{key}"
    depfiles = [binary.with_name(f"{binary.name}-{i}.d") for i in range(len(sources))]
    newest_obj = max((o.stat().st_mtime for o in objs), default=0.0)
    if (any(_stale(binary, d) for d in depfiles) or newest_obj > binary.stat().st_mtime):
        tool_objs = []
        for s, d in zip(sources, depfiles):
            o = d.with_suffix(".o")
            _run(cc + tool_flags + ["-MMD", "-MF", str(d), "-c", s, "-o", str(o)])
            tool_objs.append(str(o))
        tmp = binary.with_name(f"{binary.name}.{os.getpid()}")
        _run(cc + static + tool_objs + [str(o) for o in objs] + libs + ["-lm", "-o", str(tmp)])
        os.replace(tmp, binary)
    return binary


def shared_lib(tree: Path, out: Path) -> None:
    """The library of the checkout at tree (its provider/csrc) as one shared object, the recipe's flags."""
    cc, _ = compiler()
    inc = f"-I{tree / 'provider' / 'csrc'}"
    srcs = [str(s) for s in library_sources(tree)]
    _run(cc + COMMON + werror() + ["-DOM_TEST_ENTRIES", inc, "-shared", "-fPIC", "-o", str(out), *srcs,
    "-lm"])


USAGE = __doc__.split("\n\n")[1]


def main(argv: list[str]) -> int:
    defines: list[str] = []
    extra: list[str] = []
    build_only = False
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a == "--build-only":
            build_only = True
        elif a.startswith("-D") and len(a) > 2:
            defines.append(a)
        elif a == "--src" and i + 1 < len(argv):
            i += 1
            extra.append(argv[i])
        elif a == "--shared-lib" and i + 2 < len(argv):
            shared_lib(Path(argv[i + 1]).resolve(), Path(argv[i + 2]).resolve())
            return 0
        else:
            sys.stderr.write(USAGE + "\n")
            return 2
        i += 1
    if i >= len(argv):
        sys.stderr.write(USAGE + "\n")
        return 2
    binary = build(argv[i], defines, extra)
    if build_only:
        print(binary.relative_to(ROOT))
        return 0
    run = shlex.split(os.environ.get("TOOL_RUN", ""))
    os.chdir(ROOT)
    os.execvp((run or [str(binary)])[0], run + [str(binary), *argv[i + 1:]])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ToolError as e:
        sys.exit(str(e))
