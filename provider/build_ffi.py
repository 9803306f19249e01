"""cffi build script: compiles provider/csrc into one shared object, onemodel_ep._native.

Python imports it (tests call kernels through onemodel.h) and ORT loads the same file through
SessionOptions.register_custom_ops_library, calling its exported RegisterCustomOps.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
CSRC = HERE / "csrc"

# Sources are given relative to the project root, as setuptools requires.
ROOT = HERE.parent
# Every .c file under csrc/ (kernels/, gemm/, reduce/, ...): a new kernel family needs no edit here.
SOURCES = sorted(str(p.relative_to(ROOT)) for p in CSRC.rglob("*.c"))

# Exact mode is a promise: no contraction into FMA, no fast-math, warnings on and clean. -ffp-contract=off
# matters most on AArch64, where GCC's default is to fuse a*b + c (x86-64's base ISA has no FMA to fuse into).
# No -march on either ISA: x86's wider paths are chosen at run time (CPUID) under their own target pragmas,
# and AArch64's 128 path needs only Advanced SIMD, part of the base ISA.
CFLAGS = [
    "-std=c11",
    "-O3",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-fno-strict-aliasing",
    "-fno-math-errno",
    "-Wall",
    "-Wextra",
    # Only RegisterCustomOps (OM_EXPORT) and the module's PyInit are looked up by name; every other function
    # is called from inside this shared object, directly rather than through the PLT.
    "-fvisibility=hidden",
]
if os.environ.get("ONEMODEL_WERROR"):
    CFLAGS.append("-Werror")
# Test entries (onemodel_test.h: om_test_gemm, om_test_reduce, om_test_rexp), which only tests and benchmarks
# call, are compiled only when ONEMODEL_TEST_ENTRIES=1 at build time; the shipped library has none.
TEST_ENTRIES = os.environ.get("ONEMODEL_TEST_ENTRIES") == "1"
if TEST_ENTRIES:
    CFLAGS.append("-DOM_TEST_ENTRIES")
# Sanitizer builds (tools/ci/sanitize.sh) add their flags here.
CFLAGS += os.environ.get("ONEMODEL_EXTRA_CFLAGS", "").split()
LDFLAGS = os.environ.get("ONEMODEL_EXTRA_LDFLAGS", "").split()


# A row of core/om_attrs.def: OM_ATTR_<kind>(field, "name"[, cap], scope).
_ATTR_ROW = re.compile(r'^OM_ATTR_(INT|FLOAT|INTS|AXES)\((\w+), "\w+", (?:(\d+), )?\w+\)', re.M)
ATTRS_DEF = '#include "core/om_attrs.def"'


def _attr_fields() -> str:
    """om_attrs' fields from core/om_attrs.def, as onemodel.h's OM_ATTR_* macros expand its rows (cffi's cdef
    reads no macros; in API mode cffi checks each field's offset against the compiled struct)."""
    text = re.sub(r"/\*.*?\*/", "", (CSRC / "core" / "om_attrs.def").read_text(), flags=re.S)
    fields = []
    for kind, field, cap in _ATTR_ROW.findall(text):
        value = {"INT": f"int64_t {field};", "FLOAT": f"float {field};"}.get(kind, f"int64_t {field}[{cap}];")
        count = f" size_t n_{field};" if cap else ""
        listed = f" size_t n_{field}_listed;" if kind == "AXES" else ""
        fields.append(f"{value}{count} int has_{field};{listed}")
    if len(fields) != len(re.findall(r"^OM_ATTR_", text, flags=re.M)) or not fields:
        raise RuntimeError('core/om_attrs.def: a row not of the form OM_ATTR_<kind>(field, "name"[, cap], …)')
    return "\n".join(fields)


def _cdef_from_header(path: Path) -> str:
    """The declarations of a header without comments and preprocessor lines (om_attrs' fields expanded)."""
    text = path.read_text().replace(ATTRS_DEF, _attr_fields())
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


ffibuilder = FFI()
HEADERS = ["onemodel.h"] + (["onemodel_test.h"] if TEST_ENTRIES else [])
# The cdef drops #include lines, so it reads onemodel.h's own include (core/om_exec.h) first.
ffibuilder.cdef("\n".join(_cdef_from_header(CSRC / h) for h in ["core/om_exec.h", *HEADERS]))
ffibuilder.set_source(
    "onemodel_ep._native",
    "".join(f'#include "{h}"\n' for h in HEADERS),
    sources=SOURCES,
    include_dirs=[str(CSRC.relative_to(ROOT))],
    extra_compile_args=CFLAGS,
    extra_link_args=LDFLAGS + (["-lm"] if sys.platform != "win32" else []),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
