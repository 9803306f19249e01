"""Access to the compiled library: its path, its op table and its kernel paths."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any


def _missing_native() -> ImportError | None:
    """The error to raise when the compiled library onemodel_ep._native is not there; None when it is (and
    failed to load for a reason of its own, which the original error tells).

    The usual cause is importing the package from its source tree (Python puts the current folder first on
    sys.path), which holds the Python files but not the library that `pip install .` built into
    site-packages. numpy reports the same situation the same way.
    """
    here = Path(__file__).resolve().parent
    if any((here / f"_native{suffix}").is_file() for suffix in EXTENSION_SUFFIXES):
        return None
    root = here.parent
    if (root / "setup.py").is_file() and (root / "provider").is_dir():
        return ImportError(
            f"onemodel_ep is being imported from its source tree {root}, which has no built library "
            "(onemodel_ep/_native). Build it in place with `pip install -e .` there, or run Python from "
            "another folder to use the installed onemodel_ep."
        )
    return ImportError(
        f"the compiled library onemodel_ep._native is missing from {here}: reinstall onemodel-ep "
        "(pip install --force-reinstall onemodel-ep)"
    )


try:
    from onemodel_ep import _native
except ImportError:
    _error = _missing_native()
    if _error is None:
        raise
    raise _error from None  # the cause is known: the chained message would only mislead

ffi = _native.ffi
lib = _native.lib


def native_test_entry(name: str) -> Any:
    """The test-only C entry `name` (provider/csrc/onemodel_test.h: om_test_gemm, om_test_reduce,
    om_test_rexp), which the library has only when built with ONEMODEL_TEST_ENTRIES=1."""
    fn = getattr(lib, name, None)
    if fn is None:
        raise RuntimeError(
            f"{name} is a test entry, absent from this build of onemodel_ep._native: "
            "rebuild with ONEMODEL_TEST_ENTRIES=1 (ONEMODEL_TEST_ENTRIES=1 pip install -e .)"
        )
    return fn

DOMAIN = "ai.onemodel"
DOMAIN_VERSION = 1
EP_NAME = "OneModelExecutionProvider"  # the execution provider the library offers (ep.py)
PATH_NAMES = ("512", "256", "128", "scalar")
MODES = ("exact", "fast")

OUT_SAME, OUT_BOOL, OUT_TO, OUT_LIKE1, OUT_INT64, OUT_INT32, OUT_NODE = 0, 1, 2, 3, 4, 5, 6
OUT_VALUE = 7  # the element type of the tensor attribute `value` (ConstantOfShape)
F_INPLACE, F_FMOD, F_MODES, F_STRUCT, F_OUT3, F_OUT2, F_OUT4 = 1, 2, 4, 8, 16, 32, 64
F_OUTN = 128  # variadic outputs, as many as the node has (Split)


@dataclass(frozen=True)
class OpInfo:
    """One row of the op table (provider/csrc/core/om_ops.def), read from the compiled library."""

    name: str  # the op type in its domain
    since_opset: int
    min_inputs: int
    max_inputs: int
    input0_types: frozenset[int]
    other_types: frozenset[int]  # empty: same as input 0
    output_rule: int
    flags: int
    max_outputs: int
    domain: str  # "" (ONNX's default domain) or another, such as "com.microsoft"
    key: str  # unique across domains: `name` in the default domain, "<domain>.<name>" in another (op_key)


def _bits(mask: int) -> frozenset[int]:
    return frozenset(t for t in range(32) if mask & (1 << t))


def op_key(domain: str, op_type: str) -> str:
    """The op-table key of an ONNX node's op: its op type in the default domain ("" or "ai.onnx"),
    "<domain>.<op type>" in another; the op type a rewritten node has in our domain ai.onemodel."""
    return op_type if domain in ("", "ai.onnx") else f"{domain}.{op_type}"


@cache
def served_domains() -> frozenset[str]:
    """The domains of the op table's rows ("" for ONNX's default domain)."""
    return frozenset(row.domain for row in op_table().values())


@cache
def op_table() -> dict[str, OpInfo]:
    """The supported operators, keyed by op_key (the ONNX op name in the default domain)."""
    table: dict[str, OpInfo] = {}
    info = ffi.new("om_op_info*")
    for i in range(lib.om_op_count()):
        lib.om_op_get(i, info)
        name = ffi.string(info.name).decode()
        key = ffi.string(info.key).decode()
        table[key] = OpInfo(
            name=name,
            since_opset=info.since_opset,
            min_inputs=info.min_inputs,
            max_inputs=info.max_inputs,
            input0_types=_bits(info.input0_types),
            other_types=_bits(info.other_types),
            output_rule=info.output_rule,
            flags=info.flags,
            max_outputs=info.max_outputs,
            domain=ffi.string(info.domain).decode(),
            key=key,
        )
    return table


def get_library_path() -> str:
    """Path of the shared object: the plugin EP library (onnxruntime.register_execution_provider_library)
    and the custom-op library (SessionOptions.register_custom_ops_library). ORT's plugin-EP packaging
    convention names this function; `library_path` is the same."""
    path = _native.__file__
    assert path is not None
    return path


library_path = get_library_path


def get_ep_names() -> list[str]:
    """The execution providers the library offers (ORT's plugin-EP packaging convention)."""
    return [EP_NAME]


def get_ep_name() -> str:
    """The execution provider the library offers (its only one)."""
    return EP_NAME


def kernel_paths() -> list[str]:
    """The kernel paths this machine runs, widest first."""
    return [PATH_NAMES[p] for p in range(lib.om_path_count()) if lib.om_path_available(p)]


def check_kernel_path(kernel_path: str | None) -> None:
    """A ValueError unless `kernel_path` is None (the widest available) or a kernel path this machine runs."""
    if kernel_path is None:
        return
    if kernel_path not in PATH_NAMES:
        raise ValueError(f"unknown kernel path {kernel_path!r}; expected one of {', '.join(PATH_NAMES)}")
    if kernel_path not in kernel_paths():
        avail = ", ".join(kernel_paths())
        raise ValueError(f"kernel path {kernel_path} is not available on this machine (available: {avail})")


def path_index(name: str | None) -> int:
    """Index of a kernel path name; -1 for None (the widest available)."""
    if name is None:
        return -1
    if name not in PATH_NAMES:
        raise ValueError(f"unknown kernel path {name!r}; expected one of {', '.join(PATH_NAMES)}")
    return PATH_NAMES.index(name)


def type_name(onnx_type: int) -> str:
    return ffi.string(lib.om_type_name(onnx_type)).decode()
