"""An independent reference for com.microsoft EmbedLayerNormalization, written from docs/transformer-ops.md
("EmbedLayerNormalization") alone, in numpy: each float32 operation rounded once, the row sums
reference_linalg's `sum16` (the documented 16-lane order)."""

from __future__ import annotations

import numpy as np

from tests.reference.reference_linalg import sum16


def embed_layer_norm(ids: np.ndarray, segment_ids: np.ndarray | None, word: np.ndarray, position: np.ndarray,
                     segment: np.ndarray | None, gamma: np.ndarray, beta: np.ndarray, mask: np.ndarray | None,
                     position_ids: np.ndarray | None,
                     epsilon: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(output, mask_index, embedding_sum) of the op's inputs (None: absent)."""
    B, S = ids.shape
    H = word.shape[1]
    pos = np.arange(S) if position_ids is None else position_ids
    pos = np.broadcast_to(pos, (B, S))
    with np.errstate(all="ignore"):
        s = word[ids] + position[pos]                      # word + position, rounded
        if segment is not None and segment_ids is not None:
            s = s + segment[segment_ids]                   # + segment, rounded
        rows = s.reshape(B * S, H)
        nA = np.float32(H)
        mean = sum16(rows) / nA
        d = rows - mean[:, None]
        var = sum16(d * d) / nA
        inv = np.float32(1.0) / np.sqrt(var + np.float32(epsilon))
        y = (d * inv[:, None]) * gamma + beta
    if mask is None:
        mi = np.zeros(B, np.int32)
    else:
        mi = (mask == 1).sum(axis=1).astype(np.int32)
    return y.reshape(B, S, H).astype(np.float32), mi, s.astype(np.float32)
