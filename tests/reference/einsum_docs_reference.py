"""Einsum written from docs/einsum.md alone (and the MatMul order of docs/exact-linalg.md it cites), as an
independent check of that page: its author has not read the kernels nor tests/reference/reference_einsum.py.

The steps are the page's, in its order: the labels (ellipsis dims `@0 .. @E-1`, right-aligned), the views
(diagonals and size-1 broadcasts, only addressing elements), then for k = 1 .. N-1 cur's own sum-out, input
k's own sum-out and the product whose K labels run in equation order (row-major, last K label fastest). Every
floating-point product and sum-out is docs/exact-linalg.md's MatMul: K cut into blocks of 256, each block one
chain `s = fma(a, b, s)` from +0 over increasing k, the block sums added in the fixed tree; a sum-out is the
MatMul by a column of ones. A NaN a product or sum-out makes is the canonical quiet NaN; elements only moved
keep their bits. Integers wrap modulo 2^32 or 2^64 (numpy's int64 arithmetic wraps; int32 results keep the low
32 bits). The only generic helper borrowed is tests/reference/reference_linalg.py's exactly rounded `fma`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tests.reference.reference_linalg import fma

KB = 256  # the MatMul's K block (docs/exact-linalg.md)
CANONICAL_NAN = {np.dtype(np.float32): np.uint32(0x7FC00000),
                 np.dtype(np.float64): np.uint64(0x7FF8000000000000)}


@dataclass(frozen=True)
class Parsed:
    terms: list[list[str]]  # per input, the label of each axis (letters, "@0".."@E-1" for ellipsis dims)
    out: list[str]  # the output's labels, in its order
    order: list[str]  # the equation order of every label


def _split_term(term: str) -> tuple[list[str], bool]:
    """A term's symbols: letters and at most one '...' (kept as one symbol)."""
    symbols: list[str] = []
    i = 0
    while i < len(term):
        if term.startswith("...", i):
            if "..." in symbols:
                raise ValueError(f"two ellipses in term {term!r}")
            symbols.append("...")
            i += 3
        elif term[i].isascii() and term[i].isalpha():
            symbols.append(term[i])
            i += 1
        else:
            raise ValueError(f"bad character {term[i]!r} in term {term!r}")
    return symbols, "..." in symbols


def parse(equation: str, ranks: Sequence[int]) -> Parsed:
    """docs/einsum.md, "The equation" and "Labels"."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError("a second '->'")
    lhs, arrow, rhs = eq.partition("->")
    raw = [_split_term(t) for t in lhs.split(",")]
    if len(raw) != len(ranks):
        raise ValueError(f"{len(raw)} terms for {len(ranks)} inputs")
    n_ell = []
    for (symbols, has_ell), r in zip(raw, ranks, strict=True):
        letters = len(symbols) - has_ell
        if (not has_ell and r != letters) or (has_ell and r < letters):
            raise ValueError(f"rank {r} does not fit {''.join(symbols)!r}")
        n_ell.append(r - letters if has_ell else 0)
    e_max = max(n_ell, default=0)
    ell = [f"@{i}" for i in range(e_max)]
    terms: list[list[str]] = []
    order: list[str] = []
    for (symbols, _), e_k in zip(raw, n_ell, strict=True):
        labels: list[str] = []
        for s in symbols:
            if s == "...":
                mine = ell[e_max - e_k:]
                labels += mine
                order += [lab for lab in ell if lab not in order]  # every ellipsis label not seen yet
            else:
                labels.append(s)
                if s not in order:
                    order.append(s)
        terms.append(labels)
    if arrow:
        out_symbols, _ = _split_term(rhs)
        out = [lab for s in out_symbols for lab in (ell if s == "..." else [s])]
        if len(set(out)) != len(out):
            raise ValueError("an output letter twice")
        if any(lab not in order for lab in out if not lab.startswith("@")):
            raise ValueError("an output letter in no input")
    else:
        letters = [s for symbols, _ in raw for s in symbols if s != "..."]
        once = sorted({s for s in letters if letters.count(s) == 1})  # ASCII: upper case before lower case
        out = ell + once
    return Parsed(terms, out, order)


def label_sizes(parsed: Parsed, shapes: Sequence[tuple[int, ...]]) -> dict[str, int]:
    """docs/einsum.md, "Sizes": equal within an input (a diagonal), equal or 1 across inputs."""
    sizes: dict[str, int] = {}
    for k, (labels, shape) in enumerate(zip(parsed.terms, shapes, strict=True)):
        own: dict[str, int] = {}
        for lab, d in zip(labels, shape, strict=True):
            if own.setdefault(lab, d) != d:
                raise ValueError(f"input {k}: label {lab} has sizes {own[lab]} and {d}")
        for lab, d in own.items():
            have = sizes.get(lab, 1)
            if have != d and 1 not in (have, d):
                raise ValueError(f"label {lab}: size {d} in input {k}, {have} before")
            sizes[lab] = d if have == 1 else have
    for lab in parsed.out:
        sizes.setdefault(lab, 1)  # an ellipsis label no input has
    return sizes


def view(x: np.ndarray, labels: list[str], sizes: dict[str, int]) -> tuple[list[str], np.ndarray]:
    """docs/einsum.md, "Views": one axis per distinct label (first-appearance order), of the label's size; a
    repeated label reads the diagonal, a size-1 axis of a larger label reads index 0. Bits are only moved."""
    distinct = list(dict.fromkeys(labels))
    grids = np.meshgrid(*[np.arange(sizes[lab]) for lab in distinct], indexing="ij", sparse=True)
    grid = dict(zip(distinct, grids, strict=True))
    index = tuple(grid[lab] if x.shape[a] == sizes[lab] else np.zeros_like(grid[lab])
                  for a, lab in enumerate(labels))
    if not distinct:
        return [], x.copy()
    return distinct, x[index]


def _canonical(y: np.ndarray) -> np.ndarray:
    if y.dtype.kind == "f":
        nan = np.isnan(y)
        if nan.any():
            y = y.copy()
            y[nan] = CANONICAL_NAN[y.dtype].view(y.dtype)
    return y


def _tree(sums: list[np.ndarray]) -> np.ndarray:
    """docs/exact-linalg.md: tree(s) = s_0 for one sum, else tree(first P) + tree(rest), P the largest power
    of two below the count."""
    if len(sums) == 1:
        return sums[0]
    p = 1
    while p * 2 < len(sums):
        p *= 2
    return _tree(sums[:p]) + _tree(sums[p:])


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[nb, m, K] x [nb, K, n] -> [nb, m, n]: floats per docs/exact-linalg.md (blocks of 256, fma chains from
    +0, the tree), NaN canonical; integers exactly, wrapping."""
    nb, m, kk = a.shape
    n = b.shape[2]
    if a.dtype.kind in "iu":
        with np.errstate(all="ignore"):
            wide = (a.astype(np.int64)[:, :, :, None] * b.astype(np.int64)[:, None, :, :]).sum(axis=2)
        return wide.astype(a.dtype)  # the low bits: modulo 2^32 for int32
    zero = np.zeros((nb, m, n), a.dtype)  # +0
    if kk == 0:
        return zero
    blocks = []
    for start in range(0, kk, KB):
        s = zero
        for k in range(start, min(start + KB, kk)):
            s = fma(a[:, :, k, None], b[:, None, k, :], s)
        blocks.append(s)
    with np.errstate(all="ignore"):
        return _canonical(_tree(blocks))


def _grouped(labels: list[str], x: np.ndarray, groups: list[list[str]]) -> np.ndarray:
    """x (axes `labels`) transposed to the groups' labels in order, each group flattened row-major."""
    perm = [labels.index(lab) for g in groups for lab in g]
    dims = [int(np.prod([x.shape[labels.index(lab)] for lab in g])) for g in groups]
    return np.transpose(x, perm).reshape(dims)


def sum_out(labels: list[str], x: np.ndarray, summed: list[str]) -> tuple[list[str], np.ndarray]:
    """docs/einsum.md, "Sum-out": MatMul(V[r, s], ones)[r, 0], s over `summed` (in equation order)."""
    kept = [lab for lab in labels if lab not in summed]
    v = _grouped(labels, x, [kept, summed])[None]
    y = matmul(v, np.ones((1, v.shape[2], 1), x.dtype))
    return kept, y.reshape([x.shape[labels.index(lab)] for lab in kept])


def einsum(equation: str, *inputs: np.ndarray) -> np.ndarray:
    """docs/einsum.md, "The steps"."""
    parsed = parse(equation, [x.ndim for x in inputs])
    sizes = label_sizes(parsed, [x.shape for x in inputs])
    rank = {lab: i for i, lab in enumerate(parsed.order)}

    def eq_order(labs: set[str]) -> list[str]:
        return sorted(labs, key=lambda lab: rank[lab])

    cur_labels, cur = view(inputs[0], parsed.terms[0], sizes)
    n_in = len(inputs)
    if n_in == 1:
        gone = eq_order({lab for lab in cur_labels if lab not in parsed.out})
        if gone:
            cur_labels, cur = sum_out(cur_labels, cur, gone)
    for k in range(1, n_in):
        needed = set(parsed.out).union(*[set(t) for t in parsed.terms[k + 1:]])
        in_labels, x = view(inputs[k], parsed.terms[k], sizes)
        own = eq_order({lab for lab in cur_labels if lab not in in_labels and lab not in needed})
        if own:
            cur_labels, cur = sum_out(cur_labels, cur, own)
        own = eq_order({lab for lab in in_labels if lab not in cur_labels and lab not in needed})
        if own:
            in_labels, x = sum_out(in_labels, x, own)
        both = [lab for lab in cur_labels if lab in in_labels]
        batch = [lab for lab in both if lab in needed]
        kk = eq_order({lab for lab in both if lab not in needed})
        m = [lab for lab in cur_labels if lab not in both]
        n = [lab for lab in in_labels if lab not in both]
        a = _grouped(cur_labels, cur, [batch, m, kk])
        b = _grouped(in_labels, x, [batch, kk, n])
        c = matmul(a, b)  # [batch, M, K] x [batch, K, N]
        cur_labels = batch + m + n
        cur = c.reshape([sizes[lab] for lab in cur_labels])
    return np.transpose(cur, [cur_labels.index(lab) for lab in parsed.out]).copy()
