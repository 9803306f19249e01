"""RNN, LSTM and GRU bit for bit as docs/recurrent.md orders them, in NumPy: every dot product is
reference_linalg's (blocks of 256 fma chains, the block sums in the binary-counter tree), every other `+`, `*`
one float32 operation, the activations as the doc's "Activations" section defines them (transcendental ones
correctly rounded: transcendental32's references, Elu through MPFR where float64 does not settle the f32).
Layout 0; sequence_lens as the doc (padded steps +0 in Y, a row of length 0 gives +0 in Y_h and Y_c).

float64 inputs: the same steps, every `+`, `*` one float64 operation, the dot products reference_linalg's
f64 ones (each fma through MPFR), Sigmoid and Tanh the correctly rounded binary64 values (MPFR at 300 bits,
rounded once in the IEEE binary64 context), alpha, beta and clip the float32 attributes widened exactly."""

from __future__ import annotations

from typing import Any

import gmpy2
import numpy as np
from gmpy2 import mpfr

from tests.reference import transcendental32 as t32
from tests.reference.reference_linalg import matmul
from tests.reference.unary64 import act64

F32 = np.float32
F64 = np.float64
_CTX64 = gmpy2.context(precision=53, emin=-1073, emax=1024, subnormalize=True)
PER_DIR = {"LSTM": 3, "GRU": 2, "RNN": 1}
DEFAULTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
PARAMS = {"affine": "ab", "leakyrelu": "a", "thresholdedrelu": "a", "scaledtanh": "ab", "hardsigmoid": "ab",
          "elu": "a"}
PARAM_DEFAULTS = {("leakyrelu", "a"): 0.01, ("hardsigmoid", "a"): 0.2, ("hardsigmoid", "b"): 0.5,
                  ("elu", "a"): 1.0}


def _elu(x: np.ndarray, alpha: np.float32) -> np.ndarray:
    r = act64("Elu", x.astype(np.float64), float(alpha), 1.0)
    out = r.astype(F32)
    with np.errstate(all="ignore"):
        lo = (r - np.abs(r) * 2.0**-36).astype(F32)
        hi = (r + np.abs(r) * 2.0**-36).astype(F32)
    for i in np.flatnonzero((lo.view(np.uint32) != hi.view(np.uint32)) & (x < 0)):
        with gmpy2.context(t32.MPFR_CTX):
            y = mpfr(float(alpha)) * gmpy2.expm1(mpfr(float(x.flat[i])))
        out.flat[i] = t32.round32(y)
    return out


def _cr64(kind: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded binary64 sigmoid or tanh of each element (MPFR at 300 bits, rounded once)."""
    out = np.empty(x.shape, F64)
    for i, v in enumerate(x.ravel().tolist()):
        if v != v:
            out.flat[i] = np.nan
            continue
        with gmpy2.context(precision=300):
            m = mpfr(v)
            y = gmpy2.tanh(m) if kind == "tanh" else 1 / (1 + gmpy2.exp(-m))
        with gmpy2.context(_CTX64):
            out.flat[i] = float(+y)
    return out


def activation64(name: str, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The activation of f64 array x in binary64 (docs/recurrent.md, "double"); alpha, beta f32 widened."""
    a, b = F64(F32(alpha)), F64(F32(beta))
    x = x.astype(F64)
    kind = name.lower()
    with np.errstate(all="ignore"):
        if kind in ("sigmoid", "tanh"):
            return _cr64(kind, x)
        if kind == "relu":
            return np.where(x < 0, F64(0), x)
        if kind == "leakyrelu":
            return np.where(x < 0, a * x, x)
        if kind == "thresholdedrelu":
            return np.where(x > a, x, np.where(np.isnan(x), x, F64(0)))
        if kind == "affine":
            return (a * x) + b
        if kind == "scaledtanh":
            return a * _cr64("tanh", b * x)
        if kind == "hardsigmoid":
            r = (a * x) + b
            return np.where(r < 0, F64(0), np.where(r > 1, F64(1), r))
        if kind == "softsign":
            r = x / (np.abs(x) + F64(1))
            return np.where(np.isinf(x), np.copysign(F64(1), x), r).astype(F64)
    raise ValueError(name)


def activation(name: str, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The activation of f32 array x, every step as docs/recurrent.md states it."""
    a, b = F32(alpha), F32(beta)
    x = x.astype(F32)
    kind = name.lower()
    with np.errstate(all="ignore"):
        if kind in ("sigmoid", "tanh", "softplus"):
            return t32.reference(kind, x.ravel()).reshape(x.shape)
        if kind == "relu":
            return np.where(x < 0, F32(0), x)
        if kind == "leakyrelu":
            return np.where(x < 0, a * x, x)
        if kind == "thresholdedrelu":
            return np.where(x > a, x, F32(0))
        if kind == "affine":
            return (a * x) + b
        if kind == "scaledtanh":
            return a * t32.reference("tanh", (b * x).ravel()).reshape(x.shape)
        if kind == "hardsigmoid":
            r = (a * x) + b
            return np.where(r < 0, F32(0), np.where(r > 1, F32(1), r))
        if kind == "softsign":
            r = x / (np.abs(x) + F32(1))
            return np.where(np.isinf(x), np.copysign(F32(1), x), r).astype(F32)
        if kind == "elu":
            return _elu(x, a)
    raise ValueError(name)


def activations_of(op: str, attrs: dict[str, Any], dirs: int) -> list[list[tuple[str, float, float]]]:
    """Per direction, its activations with their alpha and beta (the lists consumed in order)."""
    names = [str(v) for v in attrs.get("activations", [])]
    if not names:
        return [[(nm, 0.0, 0.0) for nm in DEFAULTS[op]] for _ in range(dirs)]
    if op == "RNN" and len(names) == 2 and dirs == 1:
        names = names[:1]
    lists = {"a": list(attrs.get("activation_alpha", [])), "b": list(attrs.get("activation_beta", []))}
    out: list[tuple[str, float, float]] = []
    for nm in names:
        vals = {"a": 0.0, "b": 0.0}
        for p in PARAMS.get(nm.lower(), ""):
            vals[p] = lists[p].pop(0) if lists[p] else PARAM_DEFAULTS[(nm.lower(), p)]
        out.append((nm, vals["a"], vals["b"]))
    per = PER_DIR[op]
    return [out[d * per:(d + 1) * per] for d in range(dirs)]


def _clip(x: np.ndarray, clip: float | None) -> np.ndarray:
    if clip is None:
        return x
    c = x.dtype.type(F32(clip))
    return np.where(x < -c, -c, np.where(x > c, c, x))


def recurrent(op: str, x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None = None,
              seq: np.ndarray | None = None, h0: np.ndarray | None = None, c0: np.ndarray | None = None,
              p: np.ndarray | None = None, attrs: dict[str, Any] | None = None) -> list[np.ndarray]:
    """Y [T, D, N, H], Y_h [D, N, H] (and Y_c for LSTM), layout 0, bit for bit (float64 when x is)."""
    ft = F64 if x.dtype == F64 else F32
    act_fn = activation64 if ft is F64 else activation
    attrs = attrs or {}
    hd = int(attrs["hidden_size"])
    direction = attrs.get("direction", "forward")
    clip = attrs.get("clip")
    lbr = int(attrs.get("linear_before_reset", 0))
    coupled = int(attrs.get("input_forget", 0)) == 1
    t_len, n_batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    g = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    acts = activations_of(op, attrs, dirs)
    y = np.zeros((t_len, dirs, n_batch, hd), ft)
    yh = np.zeros((dirs, n_batch, hd), ft)
    yc = np.zeros((dirs, n_batch, hd), ft)
    lens = np.full(n_batch, t_len) if seq is None else seq.astype(np.int64)
    for d in range(dirs):
        f_act, g_act, h_act = [*acts[d], None, None][:3]

        def act(spec: tuple[str, float, float] | None, v: np.ndarray) -> np.ndarray:
            assert spec is not None
            return act_fn(spec[0], v, spec[1], spec[2])

        reverse = direction == "reverse" or d == 1
        bd = np.zeros(2 * g * hd, ft) if b is None else b[d]
        wb, rb = bd[: g * hd], bd[g * hd:]
        bsum = wb + rb
        if op == "GRU" and lbr:
            bsum = np.concatenate([bsum[: 2 * hd], wb[2 * hd:]])
        xw = matmul(x.reshape(t_len * n_batch, -1), np.ascontiguousarray(w[d].T)) + bsum
        xw = xw.reshape(t_len, n_batch, g * hd)
        rt = np.ascontiguousarray(r[d].T)  # [H, G*H]
        for n in range(n_batch):
            h = np.zeros(hd, ft) if h0 is None else h0[d, n].copy()
            c = np.zeros(hd, ft) if c0 is None else c0[d, n].copy()
            steps = range(lens[n] - 1, -1, -1) if reverse else range(lens[n])
            for t in steps:
                xr = xw[t, n]
                if op == "LSTM":
                    a = matmul(h[None, :], rt)[0] + xr
                    ai, ao, af, ac = (a[k * hd:(k + 1) * hd] for k in range(4))
                    if p is not None:
                        pi, po, pf = (p[d][k * hd:(k + 1) * hd] for k in range(3))
                        ai = ai + pi * c
                        if not coupled:
                            af = af + pf * c
                    i = act(f_act, _clip(ai, clip))
                    f = (ft(1) - i) if coupled else act(f_act, _clip(af, clip))
                    gg = act(g_act, _clip(ac, clip))
                    c = (f * c) + (i * gg)
                    if p is not None:
                        ao = ao + po * c
                    o = act(f_act, _clip(ao, clip))
                    h = o * act(h_act, c)
                elif op == "GRU":
                    a = matmul(h[None, :], rt[:, : 2 * hd])[0] + xr[: 2 * hd]
                    zr = act(f_act, _clip(a, clip))
                    z, rg = zr[:hd], zr[hd:]
                    if lbr:
                        hr = matmul(h[None, :], rt[:, 2 * hd:])[0]
                        ah = (rg * (hr + rb[2 * hd:])) + xr[2 * hd:]
                    else:
                        ah = matmul((rg * h)[None, :], rt[:, 2 * hd:])[0] + xr[2 * hd:]
                    hh = act(g_act, _clip(ah, clip))
                    h = ((ft(1) - z) * hh) + (z * h)
                else:
                    a = matmul(h[None, :], rt)[0] + xr
                    h = act(f_act, _clip(a, clip))
                y[t, d, n] = h
            if lens[n] > 0:
                yh[d, n] = h
                yc[d, n] = c
    outs = [y, yh]
    if op == "LSTM":
        outs.append(yc)
    return outs
