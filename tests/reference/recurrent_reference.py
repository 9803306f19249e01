"""LSTM and GRU written from docs/recurrent.md alone (an independent check of that page; the kernels were not
read): the bias sum once, the input product `RN(dot(x, W_g[j]) + bsum)`, then per step and unit the documented
sequence of binary32 operations, with `dot` exact-linalg.md's (f32_docs_ops.dot) and sigma, tanh correctly
rounded (f32_docs_ops). Layout 0 throughout; `layout1_*` transpose around it (the page: "Layout 1 computes the
same bits as layout 0 on the transposed tensors")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.reference import f32_docs_ops as D

F = np.float32


@dataclass(frozen=True)
class Inputs:
    x: np.ndarray  # [T, N, I]
    w: np.ndarray  # [D, G*Hd, I]
    r: np.ndarray  # [D, G*Hd, Hd]
    b: np.ndarray | None = None  # [D, 2*G*Hd]
    seq_lens: np.ndarray | None = None  # int32 [N]
    h0: np.ndarray | None = None  # [D, N, Hd]
    c0: np.ndarray | None = None  # [D, N, Hd] (LSTM)
    p: np.ndarray | None = None  # [D, 3*Hd] (LSTM)


def _rn(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, F)


def _clip(a: np.ndarray, clip: float | None) -> np.ndarray:
    if clip is None:
        return a
    c = F(clip)
    return np.minimum(np.maximum(a, -c), c).astype(F)  # NaN stays NaN


def run(op: str, ins: Inputs, direction: str = "forward", clip: float | None = None,
        linear_before_reset: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(Y [T, D, N, Hd], Y_h [D, N, Hd], Y_c [D, N, Hd] or None for GRU)."""
    G = 4 if op == "LSTM" else 3
    T, N, _ = ins.x.shape
    Dn = ins.w.shape[0]
    Hd = ins.r.shape[2]
    y = np.zeros((T, Dn, N, Hd), F)
    yh = np.zeros((Dn, N, Hd), F)
    yc = np.zeros((Dn, N, Hd), F)
    lens = ins.seq_lens if ins.seq_lens is not None else np.full(N, T, np.int32)
    for d in range(Dn):
        reverse = direction == "reverse" or (direction == "bidirectional" and d == 1)
        wb = ins.b[d, :G * Hd] if ins.b is not None else np.zeros(G * Hd, F)
        rb = ins.b[d, G * Hd:] if ins.b is not None else np.zeros(G * Hd, F)
        bsum = _rn(wb + rb)
        if op == "GRU" and linear_before_reset:
            bsum = bsum.copy()
            bsum[2 * Hd:] = wb[2 * Hd:]  # gate h: Wb_h only on the input side
        # xw[t, n, g*Hd + j]
        xw = _rn(D.dot(ins.x[:, :, None, :], ins.w[d][None, None, :, :]) + bsum)
        for n in range(N):
            h = ins.h0[d, n].astype(F) if ins.h0 is not None else np.zeros(Hd, F)
            c = ins.c0[d, n].astype(F) if ins.c0 is not None else np.zeros(Hd, F)
            L = int(lens[n])
            steps = range(L - 1, -1, -1) if reverse else range(L)
            for t in steps:
                if op == "LSTM":
                    p = ins.p[d] if ins.p is not None else None
                    h, c = _lstm_step(h, c, xw[t, n], ins.r[d], p, clip, Hd)
                else:
                    h = _gru_step(h, xw[t, n], ins.r[d], rb, clip, linear_before_reset, Hd)
                y[t, d, n] = h
            if L > 0:
                yh[d, n], yc[d, n] = h, c
    return _canon(y), _canon(yh), (_canon(yc) if op == "LSTM" else None)


def _canon(v: np.ndarray) -> np.ndarray:
    """The page: a NaN result is the canonical quiet NaN (a NaN anywhere stays NaN through every later step,
    so rewriting at the end gives the same bits as after each step)."""
    return np.where(np.isnan(v), D.CANON_NAN, v).astype(F)


def _gate_pre(h: np.ndarray, xw: np.ndarray, r: np.ndarray, g: int, Hd: int) -> np.ndarray:
    rows = r[g * Hd:(g + 1) * Hd]
    return _rn(D.dot(h[None, :], rows) + xw[g * Hd:(g + 1) * Hd])


def _lstm_step(h: np.ndarray, c: np.ndarray, xw: np.ndarray, r: np.ndarray, p: np.ndarray | None,
               clip: float | None, Hd: int) -> tuple[np.ndarray, np.ndarray]:
    a_i, a_o, a_f, a_c = (_gate_pre(h, xw, r, g, Hd) for g in range(4))
    if p is not None:
        a_i = _rn(a_i + _rn(p[:Hd] * c))
        a_f = _rn(a_f + _rn(p[2 * Hd:] * c))
    a_i, a_f, a_c = _clip(a_i, clip), _clip(a_f, clip), _clip(a_c, clip)
    i, f, gg = D.sigmoid(a_i), D.sigmoid(a_f), D.tanh(a_c)
    c_new = _rn(_rn(f * c) + _rn(i * gg))
    if p is not None:
        a_o = _rn(a_o + _rn(p[Hd:2 * Hd] * c_new))
    o = D.sigmoid(_clip(a_o, clip))
    return _rn(o * D.tanh(c_new)), c_new


def _gru_step(h: np.ndarray, xw: np.ndarray, r: np.ndarray, rb: np.ndarray, clip: float | None, lbr: int,
              Hd: int) -> np.ndarray:
    a_z = _clip(_gate_pre(h, xw, r, 0, Hd), clip)
    a_r = _clip(_gate_pre(h, xw, r, 1, Hd), clip)
    z, rr = D.sigmoid(a_z), D.sigmoid(a_r)
    r_h = r[2 * Hd:]
    if lbr == 0:
        rh = _rn(rr * h)
        a_h = _rn(D.dot(rh[None, :], r_h) + xw[2 * Hd:])
    else:
        a_h = _rn(_rn(rr * _rn(D.dot(h[None, :], r_h) + rb[2 * Hd:])) + xw[2 * Hd:])
    hh = D.tanh(_clip(a_h, clip))
    return _rn(_rn(_rn(F(1) - z) * hh) + _rn(z * h))


def to_layout1(y: np.ndarray, yh: np.ndarray, yc: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Layout 1's outputs from layout 0's: Y [N, T, D, Hd], Y_h / Y_c [N, D, Hd]."""
    return (np.ascontiguousarray(y.transpose(2, 0, 1, 3)), np.ascontiguousarray(yh.transpose(1, 0, 2)),
            None if yc is None else np.ascontiguousarray(yc.transpose(1, 0, 2)))
