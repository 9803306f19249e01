"""How good a rational form of Tanh could be: the sampled relative error of near-minimax fits
tanh(a)/a ~= P(s)/Q(s), s = a^2, on a in [0, A] (A = 9.1 by default: tanh rounds to 1 in f32 above 9.02).

A measurement behind docs/performance.md ("What would close the gaps"), not the library's code: the fit of
tools/gen/sollya/gelu_rational_fit.py (linearised, reweighted least squares, mpmath) at 160 bits on 300
Chebyshev points, 40 iterations. Nothing here is rigorous; it only tells whether a form is worth a rigorous
bound. Needs mpmath, which the package does not.

    # degrees of P and Q in s; prints log2 of the error
    python tools/gen/sollya/tanh_rational_fit.py 6 6
    python tools/gen/sollya/tanh_rational_fit.py 5 5 9.1
"""

from __future__ import annotations

import sys

import mpmath as mp
from gelu_rational_fit import rational_fit  # the directory of this script is on sys.path


def tanh_over_a(s: mp.mpf) -> mp.mpf:
    if s == 0:
        return mp.mpf(1)
    a = mp.sqrt(s)
    return mp.tanh(a) / a


def main() -> int:
    mp.mp.prec = 160
    dp, dq = int(sys.argv[1]), int(sys.argv[2])
    a_max = mp.mpf(sys.argv[3]) if len(sys.argv) > 3 else mp.mpf("9.1")
    err, _p, _q = rational_fit(tanh_over_a, a_max**2, dp, dq, 300, 40)
    print(f"degrees {dp}/{dq} on [0, {mp.nstr(a_max, 6)}]: relative error 2^{float(mp.log(err, 2)):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
