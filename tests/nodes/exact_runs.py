"""Running a one-node model on OneModel's kernels via the EP and the rewrite, on every kernel path (and with 2
threads), and comparing every output bit for bit: shared by the exact tests of the quantized operators."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort

import onemodel_ep

PATHS = onemodel_ep.kernel_paths()
VIAS = ("rewrite", "ep") if onemodel_ep.ep_supported() else ("rewrite",)


def same_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """The same dtype, shape and bytes (so a NaN only where the reference has its NaN's bits)."""
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    if got.tobytes() != want.tobytes():
        u = np.dtype(f"u{got.itemsize}")
        bad = np.argwhere(got.view(u) != want.view(u))
        detail = [(tuple(int(i) for i in ix), got[tuple(ix)], want[tuple(ix)]) for ix in bad[:5]]
        raise AssertionError(f"{what}: {len(bad)} element(s) differ, (index, got, want) {detail}")


def run_every_path(model: onnx.ModelProto, feeds: dict[str, np.ndarray], want: Sequence[np.ndarray],
                   what: str, *, every_path: bool = True) -> None:
    """Each via and kernel path with 1 thread, and each via with 2 (every_path False: each via on the default
    path only): the node on OneModel's kernels, every output with want's bits."""
    runs = [(via, path, 1) for via in VIAS for path in PATHS] + [(via, None, 2) for via in VIAS]
    if not every_path:
        runs = [(via, None, 1) for via in VIAS]
    for via, path, threads in runs:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.log_severity_level = 3
        sess = onemodel_ep.InferenceSession(model, so, mode="exact", kernel_path=path, via=via)
        label = f"{what} via {via}, path {path}, {threads} thread(s)"
        assert len(sess.report.moved) == 1, f"{label}: not on OneModel's kernels:\n{sess.report.summary()}"
        got = sess.run(None, feeds)
        assert len(got) == len(want), label
        for i, (g, w) in enumerate(zip(got, want)):
            same_bits(g, w, f"{label}, output {i}")
