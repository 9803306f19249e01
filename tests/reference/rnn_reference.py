"""LSTM, GRU and RNN as ONNX defines them, in float64 NumPy (default activations, layout 0, with sequence_lens
as ONNX Runtime's CPU kernel treats it: padded steps give 0 in Y, Y_h / Y_c hold the last step's state, and
a row of length 0 gives 0); float32 results, float64 for float64 X. Not bit-exact to docs/recurrent.md: the
tests compare within a tolerance."""

from __future__ import annotations

from typing import Any

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _clip(x: np.ndarray, clip: float | None) -> np.ndarray:
    return x if clip is None else np.clip(x, -clip, clip)


def recurrent(op: str, x: np.ndarray, w: np.ndarray, r: np.ndarray, b: np.ndarray | None = None,
              seq: np.ndarray | None = None, h0: np.ndarray | None = None, c0: np.ndarray | None = None,
              p: np.ndarray | None = None, attrs: dict[str, Any] | None = None) -> list[np.ndarray]:
    """Y [T, D, N, H], Y_h [D, N, H] (and Y_c for LSTM) of op ("LSTM", "GRU", "RNN"), layout 0."""
    attrs = attrs or {}
    hidden = int(attrs["hidden_size"])
    direction = attrs.get("direction", "forward")
    clip = attrs.get("clip")
    lbr = int(attrs.get("linear_before_reset", 0))
    t_len, n_batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    x64 = x.astype(np.float64)
    y = np.zeros((t_len, dirs, n_batch, hidden))
    yh = np.zeros((dirs, n_batch, hidden))
    yc = np.zeros((dirs, n_batch, hidden))
    lens = np.full(n_batch, t_len) if seq is None else seq.astype(np.int64)
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        wd, rd = w[d].astype(np.float64), r[d].astype(np.float64)
        bd = np.zeros(2 * gates * hidden) if b is None else b[d].astype(np.float64)
        wb, rb = bd[: gates * hidden], bd[gates * hidden:]
        for n in range(n_batch):
            h = np.zeros(hidden) if h0 is None else h0[d, n].astype(np.float64)
            c = np.zeros(hidden) if c0 is None else c0[d, n].astype(np.float64)
            steps = range(lens[n] - 1, -1, -1) if reverse else range(lens[n])
            for t in steps:
                xt = x64[t, n]
                if op == "LSTM":
                    a = _clip(wd @ xt + rd @ h + wb + rb, None)
                    ai, ao, af, ac = np.split(a, 4)
                    if p is not None:
                        pi, po, pf = np.split(p[d].astype(np.float64), 3)
                        ai, af = ai + pi * c, af + pf * c
                    i, f, g = _sigmoid(_clip(ai, clip)), _sigmoid(_clip(af, clip)), np.tanh(_clip(ac, clip))
                    c = f * c + i * g
                    if p is not None:
                        ao = ao + po * c
                    h = _sigmoid(_clip(ao, clip)) * np.tanh(c)
                elif op == "GRU":
                    wz, wr, wh = np.split(wd, 3)
                    rz, rr, rh = np.split(rd, 3)
                    wbz, wbr, wbh = np.split(wb, 3)
                    rbz, rbr, rbh = np.split(rb, 3)
                    z = _sigmoid(_clip(wz @ xt + rz @ h + wbz + rbz, clip))
                    rg = _sigmoid(_clip(wr @ xt + rr @ h + wbr + rbr, clip))
                    if lbr:
                        hh = np.tanh(_clip(wh @ xt + rg * (rh @ h + rbh) + wbh, clip))
                    else:
                        hh = np.tanh(_clip(wh @ xt + rh @ (rg * h) + rbh + wbh, clip))
                    h = (1 - z) * hh + z * h
                else:
                    h = np.tanh(_clip(wd @ xt + rd @ h + wb + rb, clip))
                y[t, d, n] = h
            if lens[n] > 0:
                yh[d, n] = h
                yc[d, n] = c
    out_t = np.float64 if x.dtype == np.float64 else np.float32  # double in, double out
    outs = [y.astype(out_t), yh.astype(out_t)]
    if op == "LSTM":
        outs.append(yc.astype(out_t))
    return outs
