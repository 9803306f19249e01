"""How good a rational form of Tanh could be: the sampled relative error of near-minimax fits
tanh(a)/a ~= P(s)/Q(s), s = a^2, on a in [0, A] (A = 9.1 by default: tanh rounds to 1 in f32 above 9.02).

A measurement behind docs/performance.md ("What would close the gaps"), not the library's code: the same
linearised, reweighted least squares as tools/sollya/gelu_rational_fit.py (Loeb's linearisation with Lawson's
weights, mpmath at 160 bits, 300 Chebyshev points). Nothing here is rigorous; it only tells whether a form
is worth a rigorous bound. Needs mpmath, which the package does not.

    python tools/tanh_rational_fit.py 6 6          # degrees of P and Q in s; prints log2 of the error
    python tools/tanh_rational_fit.py 5 5 9.1
"""

from __future__ import annotations

import sys

import mpmath as mp


def f(s: mp.mpf) -> mp.mpf:
    if s == 0:
        return mp.mpf(1)
    a = mp.sqrt(s)
    return mp.tanh(a) / a


def fit(dp: int, dq: int, s_max: mp.mpf, points: int, iterations: int) -> mp.mpf:
    """The smallest sampled max relative error seen over the iterations."""
    half = mp.mpf(1) / 2
    ss = [s_max * (1 - mp.cos(mp.pi * (i + half) / points)) / 2 for i in range(points)] + [mp.mpf(0), s_max]
    xs = [s / s_max for s in ss]
    fs = [f(s) for s in ss]
    weights = [mp.mpf(1)] * len(ss)
    q_prev = [mp.mpf(1)] * len(ss)
    best: mp.mpf | None = None
    for _ in range(iterations):
        rows, rhs = [], []
        for i, x in enumerate(xs):
            scale = mp.sqrt(weights[i]) / (fs[i] * q_prev[i])
            row_p = [x**k * scale for k in range(dp + 1)]
            rows.append(row_p + [-fs[i] * x**k * scale for k in range(1, dq + 1)])
            rhs.append(fs[i] * scale)
        sol, _res = mp.qr_solve(mp.matrix(rows), mp.matrix(rhs))
        p = [sol[k] for k in range(dp + 1)]
        q = [mp.mpf(1)] + [sol[dp + k] for k in range(1, dq + 1)]
        errs = []
        for i, x in enumerate(xs):
            q_prev[i] = mp.polyval(q[::-1], x)
            errs.append(abs(mp.polyval(p[::-1], x) / q_prev[i] / fs[i] - 1))
        err = max(errs)
        if best is None or err < best:
            best = err
        total = mp.fsum(w * e for w, e in zip(weights, errs))
        weights = [w * e / total for w, e in zip(weights, errs)]
    assert best is not None
    return best


def main() -> int:
    mp.mp.prec = 160
    dp, dq = int(sys.argv[1]), int(sys.argv[2])
    a_max = mp.mpf(sys.argv[3]) if len(sys.argv) > 3 else mp.mpf("9.1")
    err = fit(dp, dq, a_max**2, 300, 40)
    print(f"degrees {dp}/{dq} on [0, {mp.nstr(a_max, 6)}]: relative error 2^{float(mp.log(err, 2)):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
