"""tests/reference/conv_reference.py checked on its own, no library code involved.

- Semantics: within the contract's error bound (gamma_n * sum|x w| plus the bias and output roundings) of
  onnx.reference's Conv evaluated in float64, on every shared case (1-D/2-D/3-D, group and depthwise,
  strides, dilations, every auto_pad, asymmetric pads) in f16, f32 and f64.
- Order: bit for bit equal to a slow scalar Python loop written literally from the contract (explicit index
  arithmetic for the padding, fma and every addition exactly rounded from Fractions by integer arithmetic,
  tests/reference/rounding.py, and the block tree by its recursive definition), for T <= 256 and T > 256.
- The blocks matter: for T > 256 a single chain over all T gives other bits on some elements.
- Padding is a real +0.0 term: w = inf gives NaN where its tap falls in the padding; a chain of -0.0
  products from +0.0 gives +0.0.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from tests.reference.conv_cases import (
    CASES,
    Case,
    assert_same_bits,
    case_data,
    conv_model,
    feeds,
    random_cases,
)
from tests.reference.conv_reference import conv_reference, output_shape, resolve_pads
from tests.reference.rounding import round_magnitude

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
# exponent bits, fraction bits, the unsigned type of the same size
FORMAT = {F16: (5, 10, np.uint16), F32: (8, 23, np.uint32), F64: (11, 52, np.uint64)}
UNIT = {F16: 2.0**-11, F32: 2.0**-24, F64: 2.0**-53}
SEED = 20261203
KB = 256  # the contract's block of terms, stated here, not taken from the reference


# ---- the slow scalar loop ------------------------------------------------------------------------------


def round_exact(v: Fraction, dtype: np.dtype) -> float:
    """The nonzero rational v rounded once (to nearest even) to dtype, as a Python float."""
    ebits, mbits, uint = FORMAT[dtype]
    bits = round_magnitude(v, ebits, mbits) | ((1 << (ebits + mbits)) if v < 0 else 0)
    return float(np.array(bits, uint).view(dtype))


def fma_exact(a: float, b: float, c: float, dtype: np.dtype) -> float:
    """a*b + c rounded once to dtype (a, b, c values of dtype), by IEEE 754's rules for specials and zeros."""
    finite = math.isfinite(a) and math.isfinite(b)
    if not (finite and math.isfinite(c)):
        return c if finite and not math.isnan(c) else a * b + c  # a*b is exact in f64 or inf/NaN here
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # -0 only for a -0 product plus -0
        product_negative_zero = (a == 0 or b == 0) and math.copysign(1, a) * math.copysign(1, b) < 0
        return -0.0 if product_negative_zero and math.copysign(1, c) < 0 else 0.0
    return round_exact(exact, dtype)


def tree(sums: list[float], dtype: np.dtype) -> float:
    """docs/exact-linalg.md: s_0 for one sum, else tree(first P) + tree(the rest), P the largest power of two
    below the count."""
    if len(sums) == 1:
        return sums[0]
    p = 1
    while 2 * p < len(sums):
        p *= 2
    return fma_exact(tree(sums[:p], dtype), 1.0, tree(sums[p:], dtype), dtype)


def at(nested: list, index: list[int] | tuple[int, ...]) -> float:
    for i in index:
        nested = nested[i]
    return nested  # type: ignore[return-value]


def scalar_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, begin: list[int], strides: list[int],
                dilations: list[int], group: int, out: list[int], block: int = KB) -> np.ndarray:
    """Every output element by the contract's loops; `block` other than 256 only to show that it matters."""
    acc_t = F64 if x.dtype == F64 else F32
    n_, c_ = x.shape[:2]
    m_, cg = w.shape[:2]
    kernel = w.shape[2:]
    xl, wl = x.astype(acc_t).tolist(), w.astype(acc_t).tolist()
    y = np.empty((n_, m_, *out), dtype=x.dtype)
    for n, m in itertools.product(range(n_), range(m_)):
        g = m // (m_ // group)
        for o in itertools.product(*(range(v) for v in out)):
            terms = []
            for c in range(cg):
                for kk in itertools.product(*(range(v) for v in kernel)):
                    j = [o[i] * strides[i] + kk[i] * dilations[i] - begin[i] for i in range(len(o))]
                    inside = all(0 <= j[i] < x.shape[2 + i] for i in range(len(j)))
                    xv = at(xl[n][g * cg + c], j) if inside else 0.0  # the padding: +0.0
                    terms.append((xv, at(wl[m][c], kk)))
            sums = []
            for t0 in range(0, len(terms), block):
                acc = 0.0
                for xv, wv in terms[t0:t0 + block]:
                    acc = fma_exact(xv, wv, acc, acc_t)
                sums.append(acc)
            acc = tree(sums, acc_t) if sums else 0.0
            if b is not None:
                acc = fma_exact(acc, 1.0, float(b[m]), acc_t)
            if x.dtype == F16 and math.isfinite(acc) and acc != 0:
                acc = round_exact(Fraction(acc), F16)
            y[(n, m, *o)] = acc
    y[np.isnan(y)] = np.nan
    return y


def scalar_for(case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, block: int = KB) -> np.ndarray:
    k = x.ndim - 2
    a = case.attrs
    strides, dilations = a.get("strides", [1] * k), a.get("dilations", [1] * k)
    begin, end = resolve_pads(a.get("auto_pad", "NOTSET"), x.shape[2:], w.shape[2:], strides, dilations,
                              a.get("pads"))
    out = output_shape(x.shape[2:], w.shape[2:], strides, dilations, begin, end)
    return scalar_conv(x, w, b, begin, strides, dilations, a.get("group", 1), out, block)


# ---- onnx.reference in float64 -------------------------------------------------------------------------


def onnx_conv64(case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    x, w = x.astype(F64), w.astype(F64)
    b = None if b is None else b.astype(F64)
    model = conv_model(x.shape, w, b, case.attrs, weights_as_inputs=True)
    return ReferenceEvaluator(model).run(None, feeds(x, w, b, True))[0]


def gamma(n: int, u: float) -> float:
    return n * u / (1 - n * u)


# The shared cases in every type, seeded random ones (up to 4096 terms in f32, 600 in f16 and f64) besides.
BOUND_CASES = ([(c, d) for c in CASES for d in (F16, F32, F64)]
               + [(c, F32) for c in random_cases(SEED, 24)]
               + [(c, d) for c in random_cases(SEED + 7, 12, max_terms=600) for d in (F16, F64)])


def case_id(v: object) -> str:
    return v.name if isinstance(v, Case) else str(v)


@pytest.mark.parametrize("case,dtype", BOUND_CASES, ids=case_id)
def test_within_the_bound_of_onnx_reference(case: Case, dtype: np.dtype) -> None:
    x, w, b = case_data(case, dtype, SEED)
    got = conv_reference(x, w, b, **case.attrs)
    want = onnx_conv64(case, x, w, b)
    scale = onnx_conv64(case, np.abs(x), np.abs(w), None)  # sum |x w| per output
    assert got.shape == want.shape and got.dtype == dtype
    t = case.terms
    n = min(t, KB) + math.ceil(math.log2(math.ceil(t / KB)))
    acc_u = UNIT[F64] if dtype == F64 else UNIT[F32]
    bound = gamma(n, acc_u) * scale + acc_u * np.abs(want) * 2  # chain and tree, then the bias add
    if dtype == F64:
        bound += gamma(t, acc_u) * scale  # onnx.reference's own float64 error
    if dtype == F16:
        bound += UNIT[F16] * np.abs(want) * 1.01 + 2.0**-25  # one rounding to f16 (subnormal: half of 2^-24)
    err = np.abs(got.astype(F64) - want)
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), f"error {err[worst]} over the bound {bound[worst]} at {list(worst)}"
    assert not np.isnan(got).any()


# ---- bit for bit against the scalar loop ----------------------------------------------------------------

# The scalar loop costs about 10 us per term: every shared case and 12 random ones (T up to 300) in f32, the
# small ones and one of T > 256 in f16 and f64.
SCALAR_ALL_TYPES = {"1d_stride_dil_asym", "2d_asym_stride_dil", "2d_group2", "2d_depthwise_same_upper",
                    "2d_same_lower_stride_dil", "2d_kernel_over_input", "3d_group_same_lower", "2d_T257"}


@pytest.mark.parametrize(
    "case,dtype",
    [(c, F32) for c in CASES + random_cases(SEED + 3, 12, max_terms=300)]
    + [(c, d) for c in CASES if c.name in SCALAR_ALL_TYPES for d in (F16, F64)],
    ids=case_id,
)
def test_bits_equal_the_scalar_loop(case: Case, dtype: np.dtype) -> None:
    x, w, b = case_data(case, dtype, SEED + 1)
    assert_same_bits(conv_reference(x, w, b, **case.attrs), scalar_for(case, x, w, b), case.name)


@pytest.mark.parametrize("name", ["2d_T360_pad", "2d_T1170_5blocks"])
def test_blocks_change_bits_for_t_over_256(name: str) -> None:
    """A single chain over all T (one block) is not the contract: some element's bits differ, so the
    comparison above would see a reference that ignored the blocks or the tree."""
    case = next(c for c in CASES if c.name == name)
    x, w, b = case_data(case, F32, SEED + 1)
    ref = conv_reference(x, w, b, **case.attrs)
    one_chain = scalar_for(case, x, w, b, block=10**9)
    assert (ref.view(np.uint32) != one_chain.view(np.uint32)).any()


def test_tree_is_not_a_left_fold() -> None:
    """Five blocks (T = 1280, x = 1) with block sums s = [1, 2^-24, 2^-24, 2^-24, 0]: the tree
    ((s0+s1)+(s2+s3))+s4 = (1 + 2^-23) + 0; the left fold gives 1 (each 1 + 2^-24 is a tie, to even), the
    right fold 1 + 3*2^-24, a tie, to 1 + 2^-22."""
    x = np.ones((1, 5 * KB, 1), F32)
    w = np.zeros((1, 5 * KB, 1), F32)
    w[0, [0, KB, 2 * KB, 3 * KB], 0] = [1.0, 2.0**-24, 2.0**-24, 2.0**-24]
    want = np.float32(1 + 2.0**-23)
    y = conv_reference(x, w)
    assert y.shape == (1, 1, 1) and y[0, 0, 0] == want
    assert scalar_conv(x, w, None, [0], [1], [1], 1, [1])[0, 0, 0] == want


# ---- padding and signed zeros ---------------------------------------------------------------------------


def test_padding_with_infinite_weight_is_nan() -> None:
    """pads 1, w[0,0,0,0] = inf: the taps of kernel position (0, 0) fall in the padding for output row 0 and
    column 0 (+0.0 * inf = NaN), elsewhere on x = 1 (inf)."""
    x = np.ones((1, 1, 3, 3), F32)
    w = np.ones((1, 1, 3, 3), F32)
    w[0, 0, 0, 0] = np.inf
    y = conv_reference(x, w, pads=[1, 1, 1, 1])
    nan = np.zeros((3, 3), bool)
    nan[0, :] = nan[:, 0] = True
    assert (np.isnan(y[0, 0]) == nan).all()
    assert (y[0, 0][~nan] == np.inf).all()
    assert (y.view(np.uint32)[0, 0][nan] == 0x7FC00000).all()
    assert_same_bits(y, scalar_conv(x, w, None, [1, 1], [1, 1], [1, 1], 1, [3, 3]), "inf weight")


@pytest.mark.parametrize("dtype", [F16, F32, F64], ids=str)
def test_negative_zero_products_give_plus_zero(dtype: np.dtype) -> None:
    """Every product -0.0 (x = -0.0, w > 0 and x = +0.0, w < 0), also with a -0.0 bias: +0.0 everywhere."""
    u = np.dtype(f"u{dtype.itemsize}")
    for xv, wv in ((-0.0, 1.5), (0.0, -2.0)):
        x = np.full((1, 2, 4, 4), xv, dtype)
        w = np.full((3, 2, 3, 3), wv, dtype)
        for b in (None, np.full(3, -0.0, dtype)):
            y = conv_reference(x, w, b, pads=[1, 1, 1, 1])
            assert (y.view(u) == 0).all(), (xv, wv, b)


def test_nan_payload_is_canonical() -> None:
    x = np.ones((1, 1, 4), F32)
    x.view(np.uint32)[0, 0, 1] = 0x7F800123  # signalling, payload
    w = np.ones((2, 1, 2), F32)
    w.view(np.uint32)[1, 0, 0] = 0xFFC00456  # quiet, negative, payload
    y = conv_reference(x, w)
    assert np.isnan(y[0, 0, :2]).all() and not np.isnan(y[0, 0, 2])
    assert np.isnan(y[0, 1]).all()
    assert (y.view(np.uint32)[np.isnan(y)] == 0x7FC00000).all()


# ---- pads and errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "auto_pad,d,k,s,dil,want",
    [
        ("SAME_UPPER", 8, 3, 2, 1, ([0], [1])),  # out 4: total 1, the odd pad at the end
        ("SAME_LOWER", 8, 3, 2, 1, ([1], [0])),
        ("SAME_UPPER", 7, 4, 1, 1, ([1], [2])),
        ("SAME_LOWER", 7, 4, 1, 1, ([2], [1])),
        ("SAME_UPPER", 9, 3, 1, 2, ([2], [2])),  # dilated kernel of 5
        ("SAME_UPPER", 5, 1, 3, 1, ([0], [0])),  # nothing needed (max with 0)
        ("VALID", 9, 3, 2, 1, ([0], [0])),
    ],
)
def test_resolve_pads(auto_pad: str, d: int, k: int, s: int, dil: int, want: tuple[list[int], list[int]]
                      ) -> None:
    assert resolve_pads(auto_pad, [d], [k], [s], [dil], None) == want


@pytest.mark.parametrize(
    "xs,ws,attrs,msg",
    [
        ((1, 4, 5, 5), (2, 3, 3, 3), {}, "do not fit"),
        ((1, 4, 5, 5), (3, 2, 3, 3), {"group": 2}, "do not fit"),
        ((1, 2, 2, 2), (1, 2, 3, 3), {}, "smaller than the dilated kernel"),
        ((1, 2, 5, 5), (1, 2, 3, 3), {"kernel_shape": [3, 2]}, "kernel_shape"),
        ((1, 2, 5, 5), (1, 2, 3, 3), {"pads": [1, 1]}, "pads must be 4"),
        ((1, 2, 5, 5), (1, 2, 3, 3), {"auto_pad": "SAME"}, "auto_pad must be"),
    ],
)
def test_bad_shapes_and_attributes_are_refused(xs: tuple[int, ...], ws: tuple[int, ...], attrs: dict,
                                               msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        conv_reference(np.zeros(xs, F32), np.zeros(ws, F32), **attrs)
