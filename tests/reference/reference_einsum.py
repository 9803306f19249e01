"""An independent reference for Einsum, written from docs/einsum.md alone: labels, views, the left-to-right
steps (sum-outs, then the pairwise product), each product and sum-out the MatMul of docs/exact-linalg.md
(`reference_linalg.matmul`), integers wrapping. Slow and literal; numpy arrays in, numpy array out."""

from __future__ import annotations

import numpy as np

from tests.reference import reference_linalg as R

Label = str  # a letter, or "@q" for ellipsis dim q


def _terms(equation: str) -> tuple[list[str], str | None]:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    return lhs.split(","), (rhs if arrow else None)


def _symbols(term: str) -> list[str]:
    """A term's symbols: letters and "..." (one symbol)."""
    out: list[str] = []
    i = 0
    while i < len(term):
        if term.startswith("...", i):
            out.append("...")
            i += 3
        else:
            out.append(term[i])
            i += 1
    return out


def _alpha_key(letter: str) -> int:
    return ord(letter) - ord("A") if letter.isupper() else 26 + ord(letter) - ord("a")


class _Plan:
    def __init__(self, equation: str, shapes: list[tuple[int, ...]]) -> None:
        terms, out = _terms(equation)
        syms = [_symbols(t) for t in terms]
        ell = [len(s) - 1 if "..." in s else -1 for s in syms]  # letters of a term with an ellipsis
        self.E = max([len(shp) - n for shp, n in zip(shapes, ell, strict=True) if n >= 0], default=0)
        self.axes: list[list[Label]] = []
        self.size: dict[Label, int] = {}
        self.order: dict[Label, int] = {}
        self.last_use: dict[Label, int] = {}
        for k, (s, shp) in enumerate(zip(syms, shapes, strict=True)):
            labels: list[Label] = []
            for sym in s:
                if sym == "...":
                    e = len(shp) - ell[k]
                    for q in range(self.E):
                        self.order.setdefault(f"@{q}", len(self.order))
                    labels += [f"@{self.E - e + q}" for q in range(e)]
                else:
                    self.order.setdefault(sym, len(self.order))
                    labels.append(sym)
            for lab, n in zip(labels, shp, strict=True):
                self.last_use[lab] = k
                cur = self.size.get(lab)
                self.size[lab] = n if cur is None or cur == 1 else cur
            self.axes.append(labels)
        for q in range(self.E):
            self.size.setdefault(f"@{q}", 1)
        if out is None:
            letters = [c for s in syms for c in s if c != "..."]
            once = sorted((c for c in set(letters) if letters.count(c) == 1), key=_alpha_key)
            self.out: list[Label] = [f"@{q}" for q in range(self.E)] + once
        else:
            self.out = []
            for sym in _symbols(out):
                self.out += [f"@{q}" for q in range(self.E)] if sym == "..." else [sym]

    def key(self, lab: Label) -> int:
        return self.out.index(lab) if lab in self.out else 1000 + self.order[lab]

    def needed(self, lab: Label, k: int) -> bool:
        return lab in self.out or self.last_use[lab] > k


class _View:
    def __init__(self, arr: np.ndarray, labels: list[Label]) -> None:
        self.arr, self.labels = arr, labels


def _input_view(plan: _Plan, x: np.ndarray, k: int) -> _View:
    """The diagonal of repeated letters, size-1 dims broadcast to the label's size."""
    labels: list[Label] = []
    for lab in plan.axes[k]:
        if lab not in labels:
            labels.append(lab)
    shape = tuple(plan.size[lab] for lab in labels)
    out = np.empty(shape, x.dtype)
    for idx in np.ndindex(*shape):
        pos = dict(zip(labels, idx, strict=True))
        src = tuple(0 if x.shape[a] == 1 else pos[lab] for a, lab in enumerate(plan.axes[k]))
        out[idx] = x[src]
    return _View(out, labels)


def _flat(v: _View, plan: _Plan, groups: list[list[Label]]) -> np.ndarray:
    arr = np.transpose(v.arr, [v.labels.index(lab) for g in groups for lab in g])
    return arr.reshape([int(np.prod([plan.size[lab] for lab in g], dtype=np.int64)) for g in groups])


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return R.matmul(a, b)
    with np.errstate(over="ignore"):
        return np.matmul(a.astype(np.uint64), b.astype(np.uint64)).astype(a.dtype)  # wrapping, mod 2^64


def _product(plan: _Plan, a: _View, b: _View | None, bl: list[Label], ml: list[Label], kl: list[Label],
             nl: list[Label]) -> _View:
    am = _flat(a, plan, [bl, ml, kl])
    if b is None:
        bm = np.ones((1, am.shape[2], 1), a.arr.dtype)
    else:
        bm = _flat(b, plan, [bl, kl, nl])
    r = _matmul(am, bm)
    labels = bl + ml + nl
    return _View(r.reshape([plan.size[lab] for lab in labels]), labels)


def _sum_out(plan: _Plan, v: _View, drop: set[Label]) -> _View:
    kept = sorted((lab for lab in v.labels if lab not in drop), key=plan.key)
    summed = sorted((lab for lab in v.labels if lab in drop), key=lambda lab: plan.order[lab])
    return _product(plan, v, None, [], kept, summed, [])


def einsum(equation: str, *xs: np.ndarray) -> np.ndarray:
    plan = _Plan(equation, [x.shape for x in xs])
    cur = _input_view(plan, xs[0], 0)
    if len(xs) == 1:
        drop = {lab for lab in cur.labels if lab not in plan.out}
        if drop:
            cur = _sum_out(plan, cur, drop)
    for k in range(1, len(xs)):
        right = _input_view(plan, xs[k], k)
        drop = {lab for lab in cur.labels if lab not in right.labels and not plan.needed(lab, k)}
        if drop:
            cur = _sum_out(plan, cur, drop)
        drop = {lab for lab in right.labels if lab not in cur.labels and not plan.needed(lab, k)}
        if drop:
            right = _sum_out(plan, right, drop)
        both = [lab for lab in cur.labels if lab in right.labels]
        bl = sorted((lab for lab in both if plan.needed(lab, k)), key=plan.key)
        kl = sorted((lab for lab in both if not plan.needed(lab, k)), key=lambda lab: plan.order[lab])
        ml = sorted((lab for lab in cur.labels if lab not in right.labels), key=plan.key)
        nl = sorted((lab for lab in right.labels if lab not in cur.labels), key=plan.key)
        cur = _product(plan, cur, right, bl, ml, kl, nl)
    arr = np.transpose(cur.arr, [cur.labels.index(lab) for lab in plan.out])
    return np.asarray(arr, order="C").copy()
