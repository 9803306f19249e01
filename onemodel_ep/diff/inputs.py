"""Inputs for `onemodel diff`: read from .npz and checked against the model, or generated from its types."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import onnx
from onnx import helper

from onemodel_ep.diff.compare import tensor_stats
from onemodel_ep.errors import DiffError

InputsArg = Union[Mapping[str, Any], str, "os.PathLike[str]", None]

Dim = Union[int, str, None]  # a fixed size, a symbol, or unknown

GENERATED_DTYPES = {
    onnx.TensorProto.FLOAT,
    onnx.TensorProto.DOUBLE,
    onnx.TensorProto.FLOAT16,
    onnx.TensorProto.BOOL,
    onnx.TensorProto.INT8,
    onnx.TensorProto.INT16,
    onnx.TensorProto.INT32,
    onnx.TensorProto.INT64,
    onnx.TensorProto.UINT8,
    onnx.TensorProto.UINT16,
    onnx.TensorProto.UINT32,
    onnx.TensorProto.UINT64,
}


@dataclass(frozen=True)
class InputSpec:
    name: str
    elem_type: int
    dims: tuple[Dim, ...] | None  # None: rank unknown

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(helper.tensor_dtype_to_np_dtype(self.elem_type))

    def shape_text(self) -> str:
        if self.dims is None:
            return "[?]"
        return "[" + ", ".join("?" if d is None else str(d) for d in self.dims) + "]"


def model_inputs(model: onnx.ModelProto) -> list[InputSpec]:
    """The graph inputs a caller must feed (initializers with the same name are optional and left out)."""
    inits = {i.name for i in model.graph.initializer}
    specs = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        if not vi.type.HasField("tensor_type"):
            raise DiffError(f"input {vi.name!r} is not a tensor; onemodel diff feeds tensors only")
        tt = vi.type.tensor_type
        dims: tuple[Dim, ...] | None = None
        if tt.HasField("shape"):
            dims = tuple(
                int(d.dim_value) if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim
            )
        specs.append(InputSpec(vi.name, int(tt.elem_type), dims))
    return specs


def parse_shape_option(text: str) -> tuple[str, list[int]]:
    """'NAME=d0,d1,...' -> (NAME, [d0, d1, ...]); 'NAME=' is a scalar."""
    name, sep, dims = text.partition("=")
    if not sep or not name:
        raise DiffError(
            f"bad --shape {text!r}: expected NAME=d0,d1,... (an input name or a symbolic dimension)"
        )
    try:
        sizes = [int(d) for d in dims.split(",") if d.strip()]
    except ValueError:
        raise DiffError(f"bad --shape {text!r}: dimensions must be integers") from None
    if any(s < 0 for s in sizes):
        raise DiffError(f"bad --shape {text!r}: dimensions must be >= 0")
    return name, sizes


def resolve_shape(spec: InputSpec, shapes: Mapping[str, list[int]]) -> list[int]:
    """The concrete shape to generate for `spec`: --shape NAME=... for the input, or per symbol."""
    if spec.name in shapes:
        given = list(shapes[spec.name])
        if spec.dims is not None:
            if len(given) != len(spec.dims):
                raise DiffError(
                    f"--shape {spec.name}: rank {len(given)} given, the model declares "
                    f"{spec.shape_text()} (rank {len(spec.dims)})"
                )
            for k, (g, d) in enumerate(zip(given, spec.dims)):
                if isinstance(d, int) and g != d:
                    raise DiffError(f"--shape {spec.name}: dimension {k} is {g}, the model fixes it to {d}")
        return given
    if spec.dims is None:
        raise DiffError(
            f"input {spec.name!r} has no declared shape; give one with --shape {spec.name}=d0,d1,..."
        )
    out = []
    for k, d in enumerate(spec.dims):
        if isinstance(d, int):
            out.append(d)
        elif isinstance(d, str) and d in shapes:
            if len(shapes[d]) != 1:
                raise DiffError(f"--shape {d}=...: a symbolic dimension takes one size")
            out.append(shapes[d][0])
        else:
            what = f"symbolic ({d!r})" if d else "unknown"
            hint = f" or --shape {d}=N" if d else ""
            raise DiffError(
                f"input {spec.name!r} dimension {k} is {what}: give its size with "
                f"--shape {spec.name}=d0,d1,...{hint}"
            )
    return out


def default_range(dtype: np.dtype) -> tuple[float, float]:
    if dtype.kind == "f":
        return (-20.0, 20.0)
    if dtype.kind == "u":
        return (0.0, 200.0)
    return (-100.0, 100.0)


def _float_specials(dtype: np.dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    tiny_sub = fi.smallest_subnormal
    max_sub = np.nextafter(fi.smallest_normal, dtype.type(0))
    vals = [
        np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        tiny_sub,
        -tiny_sub,
        max_sub,
        -max_sub,
        fi.smallest_normal,
        fi.max,
        -fi.max,
    ]
    return np.array(vals, dtype=dtype)


def generate(
    spec: InputSpec,
    shape: list[int],
    rng: np.random.Generator,
    value_range: tuple[float, float] | None,
    special: float,
) -> np.ndarray:
    """Values that reach the edges: the range's ends, uniform values over it, values of every magnitude near
    0, and with `special` > 0 that fraction of NaN, +-inf, +-0, subnormals and extremes (integers: min,
    max, 0, +-1)."""
    if spec.elem_type not in GENERATED_DTYPES:
        raise DiffError(
            f"input {spec.name!r}: cannot generate values of type "
            f"{helper.tensor_dtype_to_string(spec.elem_type)}; pass --inputs FILE.npz"
        )
    dtype = spec.dtype
    size = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "b":
        out = rng.random(size) < 0.5
        return out.reshape(shape)
    lo, hi = value_range if value_range is not None else default_range(dtype)
    if dtype.kind == "f":
        fmax = float(np.finfo(dtype).max)
        lo, hi = max(lo, -fmax), min(hi, fmax)
        x = rng.uniform(lo, hi, size)
        # A quarter of the values log-uniform in magnitude, from 1e-6 of the range's largest end up to it.
        big = max(abs(lo), abs(hi))
        if big > 0 and size >= 4:
            k = size // 4
            pick = rng.choice(size, k, replace=False)
            mags = np.exp(rng.uniform(np.log(big * 1e-6), np.log(big), k))
            signs = np.where(rng.random(k) < 0.5, -1.0, 1.0)
            cand = mags * signs
            cand = np.where((cand >= lo) & (cand <= hi), cand, np.clip(cand, lo, hi))
            x[pick] = cand
        out = x.astype(dtype)
    else:
        ii = np.iinfo(dtype)
        lo_i, hi_i = max(int(np.ceil(lo)), int(ii.min)), min(int(np.floor(hi)), int(ii.max))
        if lo_i > hi_i:
            raise DiffError(f"--range {lo},{hi} holds no value of {dtype} (input {spec.name!r})")
        out = rng.integers(lo_i, hi_i, size=size, endpoint=True, dtype=dtype)
    if size >= 2:  # the range's ends themselves
        ends = rng.choice(size, 2, replace=False)
        out[ends[0]], out[ends[1]] = dtype.type(lo), dtype.type(hi)
    if special > 0 and size:
        if dtype.kind == "f":
            pool = _float_specials(dtype)
        else:
            ii = np.iinfo(dtype)
            pool = np.array(
                sorted({int(ii.min), int(ii.max), 0, 1} | ({-1} if ii.min < 0 else set())), dtype=dtype
            )
        k = max(1, int(round(special * size)))
        pick = rng.choice(size, min(k, size), replace=False)
        out[pick] = pool[rng.integers(0, len(pool), size=len(pick))]
    return out.reshape(shape)


def load_npz(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise DiffError(f"no such inputs file: {p}")
    if not zipfile.is_zipfile(p):
        raise DiffError(f"{p} is not an .npz file (np.savez writes one, with the input names as keys)")
    try:
        with np.load(p, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise DiffError(f"{p} is a single .npy array, not an .npz of named inputs")
            return {k: np.asarray(z[k]) for k in z.files}
    except DiffError:
        raise
    except Exception as e:
        raise DiffError(f"cannot read inputs from {p}: {type(e).__name__}: {e}") from None


def check_inputs(specs: list[InputSpec], feeds: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Check given inputs against the model: names, element types, ranks and fixed dimensions."""
    by_name = {s.name: s for s in specs}
    unknown = [k for k in feeds if k not in by_name]
    if unknown:
        raise DiffError(
            f"input(s) {', '.join(map(repr, unknown))} not in the model; it takes "
            f"{', '.join(repr(s.name) for s in specs) or 'no inputs'}"
        )
    missing = [s.name for s in specs if s.name not in feeds]
    if missing:
        raise DiffError(f"missing input(s) {', '.join(map(repr, missing))}")
    out: dict[str, np.ndarray] = {}
    for s in specs:
        a = np.asarray(feeds[s.name])
        if s.elem_type in GENERATED_DTYPES or s.elem_type != onnx.TensorProto.STRING:
            try:
                want = s.dtype
            except Exception:
                want = None
            if want is not None and a.dtype != want:
                raise DiffError(f"input {s.name!r} is {a.dtype}, the model takes {want}")
        if s.dims is not None:
            if a.ndim != len(s.dims):
                raise DiffError(
                    f"input {s.name!r} has shape {list(a.shape)}, the model takes {s.shape_text()}"
                )
            for k, d in enumerate(s.dims):
                if isinstance(d, int) and a.shape[k] != d:
                    raise DiffError(
                        f"input {s.name!r} has shape {list(a.shape)}, the model takes {s.shape_text()}"
                    )
        out[s.name] = a
    return out


def make_inputs(
    specs: list[InputSpec],
    inputs: InputsArg,
    seed: int,
    shapes: Mapping[str, Sequence[int]],
    value_range: tuple[float, float] | None,
    special: float,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], dict[str, Any] | None]:
    if inputs is not None:
        if isinstance(inputs, (str, os.PathLike)):
            given, source = load_npz(inputs), os.fspath(inputs)
        elif isinstance(inputs, Mapping):
            given, source = dict(inputs), "given"
        else:
            raise TypeError(f"inputs: expected a mapping or an .npz path, got {type(inputs).__name__}")
        feeds = check_inputs(specs, given)
        info = [{"name": k, "source": source, **tensor_stats(v)} for k, v in feeds.items()]
        return feeds, info, None
    by_shape = {k: list(v) for k, v in shapes.items()}
    known = {s.name for s in specs} | {d for s in specs for d in (s.dims or ()) if isinstance(d, str)}
    unknown = sorted(set(by_shape) - known)
    if unknown:
        raise DiffError(
            f"--shape {unknown[0]}: neither an input of the model nor one of its symbolic dimensions"
        )
    rng = np.random.default_rng(seed)
    feeds = {}
    info = []
    for s in specs:
        feeds[s.name] = generate(s, resolve_shape(s, by_shape), rng, value_range, special)
        info.append({"name": s.name, "source": "generated", **tensor_stats(feeds[s.name])})
    generation = {
        "seed": seed,
        "special": special,
        "range": list(value_range) if value_range is not None else None,
        "ranges": {s.name: list(value_range or default_range(s.dtype)) for s in specs if s.dtype.kind != "b"},
        "shapes": {s.name: list(feeds[s.name].shape) for s in specs},
    }
    return feeds, info, generation
