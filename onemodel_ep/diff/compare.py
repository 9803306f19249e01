"""Element-wise comparison of two tensors for `onemodel diff`: bit identity, ulp distance, abs/rel error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

FLOAT_KINDS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


@dataclass(frozen=True)
class Criteria:
    """Pass criteria. An element passes when the two values are bit-identical (floats: or both NaN), or their
    ulp distance (integers: exact difference) is at most `max_ulp`, or, when atol or rtol is set,
    |ort - onemodel| <= atol + rtol * |ort|. A NaN on one side only never passes; bools must be equal."""

    atol: float = 0.0
    rtol: float = 0.0
    max_ulp: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"atol": self.atol, "rtol": self.rtol, "max_ulp": self.max_ulp}


def json_value(v: Any) -> Any:
    """A NumPy scalar as a JSON value: floats as numbers (-0.0 kept), or the strings "nan", "inf", "-inf"."""
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return str(v)


def value_bits(v: Any) -> str | None:
    """Hex bit pattern of a float scalar (None for other kinds)."""
    if isinstance(v, np.floating):
        width = v.dtype.itemsize
        u = np.asarray(v).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width])
        return f"0x{int(u):0{2 * width}x}"
    return None


def show_value(v: Any) -> str:
    """A scalar for the text report: floats with their shortest round-trip repr and bit pattern."""
    if isinstance(v, np.floating):
        f = abs(float(v))
        if np.isfinite(f) and (f == 0 or 1e-4 <= f < 1e16):
            text = np.format_float_positional(v, unique=True, trim="-")
        else:
            text = np.format_float_scientific(v, unique=True, trim="-") if np.isfinite(f) else str(float(v))
        return f"{text} ({value_bits(v)})"
    if isinstance(v, np.bool_):
        return str(bool(v))
    return str(v)


def _ordered_u64(a: np.ndarray) -> np.ndarray:
    """Monotonic unsigned key of each float: adjacent floats differ by 1, -0.0 and +0.0 are adjacent."""
    width = a.dtype.itemsize
    u = np.ascontiguousarray(a).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width]).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(8 * width - 1)
    full = np.uint64((1 << (8 * width)) - 1)
    neg = (u & sign) != 0
    return np.where(neg, (~u) & full, u | sign)


def _int_key(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    return a.astype(np.int64).view(np.uint64) ^ (np.uint64(1) << np.uint64(63))


def _distance(ka: np.ndarray, kb: np.ndarray) -> np.ndarray:
    return np.where(ka >= kb, ka - kb, kb - ka)


def _histogram(dist: np.ndarray, nan_mismatch: int) -> list[list[Any]]:
    """Counts per bucket "0", "1", "2-3", "4-7", ... (ulp or exact difference), then "nan mismatch"."""
    out: list[list[Any]] = []
    zeros = int(np.count_nonzero(dist == 0))
    out.append(["0", zeros])
    nz = dist[dist != 0]
    if nz.size:
        exps = np.frexp(nz.astype(np.float64))[1]
        for e in range(1, int(exps.max()) + 1):
            lo, hi = 1 << (e - 1), (1 << e) - 1
            label = str(lo) if lo == hi else f"{lo}-{hi}"
            out.append([label, int(np.count_nonzero(exps == e))])
    if nan_mismatch:
        out.append(["nan mismatch", nan_mismatch])
    return out


@dataclass
class Comparison:
    """How two tensors of one value compare. Counts are over elements; see docs/diff.md for every field."""

    kind: str  # "float", "int", "bool", "other"
    dtype: str
    shape: list[int]
    elements: int
    identical: int  # bit-identical elements
    failing: int  # elements that fail the criteria
    passed: bool
    max_abs: float | None = None
    max_rel: float | None = None
    max_ulp: int | None = None  # floats: ulp distance; integers: exact difference
    median_ulp: float | None = None
    median_ulp_differing: float | None = None
    nan_mismatches: int = 0  # NaN on one side only
    inf_mismatches: int = 0  # an infinity on one side only, or of the other sign
    signed_zero_mismatches: int = 0
    nan_payload_differs: int = 0  # both NaN, other bits
    worst: dict[str, Any] | None = None  # index, ort, onemodel (+ bits), abs, rel, ulp, inputs
    histogram: list[list[Any]] = field(default_factory=list)
    error: str | None = None  # shapes or dtypes differ: nothing element-wise could be compared
    worst_index: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "worst_index"}
        return d


def compare(ref: Any, got: Any, crit: Criteria) -> Comparison:
    """Compare the stock ORT value `ref` with the OneModel EP value `got`."""
    a, b = np.asarray(ref), np.asarray(got)
    if a.dtype != b.dtype or a.shape != b.shape:
        return Comparison(
            kind="other",
            dtype=str(a.dtype),
            shape=list(a.shape),
            elements=int(a.size),
            identical=0,
            failing=int(max(a.size, 1)),
            passed=False,
            error=f"ort gives {a.dtype} {list(a.shape)}, onemodel gives {b.dtype} {list(b.shape)}",
        )
    n = int(a.size)
    base: dict[str, Any] = {"dtype": str(a.dtype), "shape": list(a.shape), "elements": n}
    if a.dtype in FLOAT_KINDS:
        return _compare_float(a, b, crit, base)
    if a.dtype.kind in "iu":
        return _compare_int(a, b, crit, base)
    eq = a == b
    if a.dtype.kind == "b":
        bad = ~eq
        histogram: list[list[Any]] = [["0", int(eq.sum())], ["mismatch", int(bad.sum())]]
        c = Comparison(**_counts("bool", eq, bad, base), histogram=histogram)
    else:
        eq = np.asarray(eq, dtype=bool).reshape(a.shape)
        bad = ~eq
        c = Comparison(**_counts("other", eq, bad, base))
    if bad.any():
        idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), a.shape))
        c.worst_index = idx
        c.worst = {"index": list(idx), "ort": json_value(a[idx]), "onemodel": json_value(b[idx])}
    return c


def _counts(kind: str, equal: np.ndarray, bad: np.ndarray, base: dict[str, Any]) -> dict[str, Any]:
    """The fields of every Comparison: `kind`, those of `base` (dtype, shape, elements) and the counts of
    bit-identical (`equal`) and failing (`bad`) elements."""
    failing = int(bad.sum())
    return {"kind": kind, "identical": int(equal.sum()), "failing": failing, "passed": failing == 0, **base}


def _rel(absd: np.ndarray, ref_abs: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = absd / ref_abs
    rel = np.where(absd == 0, 0.0, rel)
    return np.where(np.isnan(rel), np.inf, rel)


def _worst(
    key: np.ndarray,
    mask: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    absd: np.ndarray,
    rel: np.ndarray,
    dist: np.ndarray,
) -> tuple[tuple[int, ...], dict[str, Any]] | None:
    if not mask.any():
        return None
    k = np.where(mask, key, -1.0)
    flat = int(np.argmax(k))
    idx = tuple(int(i) for i in np.unravel_index(flat, a.shape))
    w: dict[str, Any] = {
        "index": list(idx),
        "ort": json_value(a[idx]),
        "onemodel": json_value(b[idx]),
        "ort_bits": value_bits(a[idx]),
        "onemodel_bits": value_bits(b[idx]),
        "abs": json_value(absd[idx]),
        "rel": json_value(rel[idx]),
        "ulp": None if np.isinf(key[idx]) else int(dist[idx]),
    }
    return idx, w


def _compare_float(a: np.ndarray, b: np.ndarray, crit: Criteria, base: dict[str, Any]) -> Comparison:
    ka, kb = _ordered_u64(a), _ordered_u64(b)
    bit_eq = ka == kb
    na, nb = np.isnan(a), np.isnan(b)
    both_nan = na & nb
    nan_mis = na ^ nb
    value_eq = (a == b) | both_nan
    inf_mis = (np.isinf(a) | np.isinf(b)) & ~value_eq & ~nan_mis
    dist = _distance(ka, kb)
    dist = np.where(both_nan | nan_mis, np.uint64(0), dist)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        absd = np.abs(a64 - b64)
    absd = np.where(value_eq | nan_mis, 0.0, absd)
    ref_abs = np.abs(a64)
    rel = _rel(absd, ref_abs)
    ok = bit_eq | both_nan | (~nan_mis & (dist <= np.uint64(crit.max_ulp)))
    if crit.atol > 0 or crit.rtol > 0:
        with np.errstate(invalid="ignore"):
            ok |= ~nan_mis & (absd <= crit.atol + crit.rtol * ref_abs)
    counted = ~nan_mis
    differing = ~bit_eq & ~both_nan
    key = dist.astype(np.float64)
    key[nan_mis] = np.inf
    bad = ~ok
    c = Comparison(
        **_counts("float", bit_eq, bad, base),
        max_abs=float(absd[counted].max()) if counted.any() else 0.0,
        max_rel=float(rel[counted].max()) if counted.any() else 0.0,
        max_ulp=int(dist[counted].max()) if counted.any() else 0,
        median_ulp=float(np.median(dist[counted])) if counted.any() else 0.0,
        median_ulp_differing=float(np.median(dist[differing & counted]))
        if (differing & counted).any()
        else 0.0,
        nan_mismatches=int(nan_mis.sum()),
        inf_mismatches=int(inf_mis.sum()),
        signed_zero_mismatches=int(((a == 0) & (b == 0) & ~bit_eq).sum()),
        nan_payload_differs=int((both_nan & ~bit_eq).sum()),
        histogram=_histogram(dist[counted], int(nan_mis.sum())),
    )
    found = _worst(key, bad if bad.any() else differing, a, b, absd, rel, dist)
    if found:
        c.worst_index, c.worst = found
    return c


def _compare_int(a: np.ndarray, b: np.ndarray, crit: Criteria, base: dict[str, Any]) -> Comparison:
    dist = _distance(_int_key(a), _int_key(b))
    eq = dist == 0
    absd = dist.astype(np.float64)
    ref_abs = np.abs(a.astype(np.float64))
    rel = _rel(absd, ref_abs)
    ok = dist <= np.uint64(crit.max_ulp)
    if crit.atol > 0 or crit.rtol > 0:
        ok |= absd <= crit.atol + crit.rtol * ref_abs
    bad = ~ok
    differing = ~eq
    c = Comparison(
        **_counts("int", eq, bad, base),
        max_abs=float(absd.max()) if a.size else 0.0,
        max_rel=float(rel.max()) if a.size else 0.0,
        max_ulp=int(dist.max()) if a.size else 0,
        median_ulp=float(np.median(dist)) if a.size else 0.0,
        median_ulp_differing=float(np.median(dist[differing])) if differing.any() else 0.0,
        histogram=_histogram(dist, 0),
    )
    found = _worst(dist.astype(np.float64), bad if bad.any() else differing, a, b, absd, rel, dist)
    if found:
        c.worst_index, c.worst = found
    return c


def tensor_stats(x: np.ndarray) -> dict[str, Any]:
    """Summary of one tensor: dtype, shape, min, max, mean over finite values, NaN and inf counts."""
    a = np.asarray(x)
    d: dict[str, Any] = {"dtype": str(a.dtype), "shape": list(a.shape)}
    if a.dtype.kind == "f":
        fin = a[np.isfinite(a)]
        d["nan"] = int(np.isnan(a).sum())
        d["inf"] = int(np.isinf(a).sum())
        if fin.size:
            d.update(
                min=json_value(fin.min()),
                max=json_value(fin.max()),
                mean=json_value(fin.astype(np.float64).mean()),
            )
    elif a.dtype.kind in "iub" and a.size:
        d.update(min=json_value(a.min()), max=json_value(a.max()))
        if a.dtype.kind != "b":
            d["mean"] = float(a.astype(np.float64).mean())
    return d


def bit_identical(a: Any, b: Any) -> bool:
    """Whether two values have the same dtype, shape and bytes."""
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "O":
        return bool(np.array_equal(x, y))
    return np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()


def first_bit_difference(a: np.ndarray, b: np.ndarray) -> tuple[int, ...] | None:
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return None
    if x.dtype.kind == "f":
        ne = _ordered_u64(x) != _ordered_u64(y)
    else:
        ne = x != y
    if not ne.any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(ne)), x.shape))
