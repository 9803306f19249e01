"""Conv's direct f32 path (conv/convdirect.h, docs/conv.md "The direct f32 kernel"), bit for bit against the
independent reference (tests/reference/conv_reference.py, written from the Conv contract alone).

node_conv.c sends every f32 Conv with at least two input channels per group and at least one narrow tile of
output channels per group (16 on the 512 path, 8 on the 256, 4 on the 128, 2 on the scalar; the wide tile
from 32, 16, 8, 4) to the direct kernel unless it is a pointwise one (1x1, stride 1, no pad: the GEMM reads X
in place), so these shapes run it, on the wide tile (33 to 45 output channels) or the narrow one (16, 17):
T > 256 with the block boundary inside a channel's taps (40 channels x 9 taps), T > 512 and T > 1024 (the
binary-counter tree over 3 and 5 blocks), pads, dilations and asymmetric pads, 1-D and 3-D, groups, 1x1 with
a pad, output channel counts that fill no tile (33, 37, 45, 17; 7 to 21 on the narrower paths), planes whose
flattened padded rows end inside a tile, infinities, NaNs and -0.0 in the weights of padded taps, strides 2
and 3 (the phase-split copy), 1-D and 3-D strided, a 7x7 stride-2 stem, a 2x2 output plane, the short tile
(a plane's last nr/2 or fewer positions: 2x2 outputs with T > 256 on the wide and narrow tiles, an 8x8 output
whose 78 flattened positions end in one), W as a graph input
(packed per run), and a zero-size batch. Every kernel path, 1 and 2 threads, both ways in
(node_sessions.runs) for two cases; the rest on every path at 1 and 2 threads.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import onemodel_ep
from tests.nodes.node_sessions import PATHS, runs, session
from tests.reference import conv_cases as cc
from tests.reference.conv_cases import Case
from tests.reference.conv_reference import conv_reference

pytestmark = pytest.mark.skipif(
    "Conv" not in onemodel_ep.op_table(), reason="onemodel_ep does not serve Conv"
)

SEED = 20261205

CASES = [
    Case("T360_split_channel", (1, 40, 7, 7), (37, 40, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("T576_tree3", (2, 64, 9, 11), (45, 64, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("T1170_tree5", (1, 130, 5, 6), (33, 130, 3, 3), False, {"pads": [1, 1, 1, 1]}),
    Case("dil_asym_pads", (1, 5, 12, 13), (17, 5, 3, 2), True, {"pads": [2, 0, 1, 3], "dilations": [2, 3]}),
    Case("same_lower_even_kernel", (1, 6, 8, 10), (9, 6, 4, 2), True, {"auto_pad": "SAME_LOWER"}),
    Case("1d_dil", (2, 9, 40), (11, 9, 5), True, {"pads": [3, 1], "dilations": [2]}),
    Case("3d", (1, 4, 4, 5, 6), (10, 4, 2, 3, 3), True, {"pads": [1, 0, 1, 0, 1, 2]}),
    Case("group2", (1, 6, 9, 8), (10, 3, 3, 3), True, {"group": 2, "pads": [1, 1, 1, 1]}),
    Case("1x1", (2, 24, 4, 5), (30, 24, 1, 1), True),
    Case("1x1_pad", (1, 16, 6, 3), (16, 16, 1, 1), False, {"pads": [1, 0, 0, 2]}),
    Case("wide_rows", (1, 3, 3, 150), (5, 3, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("stride2_T576", (1, 64, 9, 10), (35, 64, 3, 3), True, {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    Case("stride_2x3_dil2", (1, 4, 13, 17), (9, 4, 3, 3), True,
         {"strides": [2, 3], "dilations": [2, 2], "pads": [0, 2, 1, 1]}),
    Case("stride3_1d", (2, 7, 50), (5, 7, 4), False, {"strides": [3], "pads": [2, 2]}),
    Case("1x1_stride2", (1, 24, 9, 8), (20, 24, 1, 1), True, {"strides": [2, 2]}),
    Case("3d_stride2", (1, 3, 5, 6, 7), (6, 3, 3, 2, 3), True,
         {"strides": [2, 1, 2], "pads": [1, 1, 1, 1, 0, 1]}),
    Case("tiny_plane_O4", (1, 12, 2, 2), (40, 12, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("7x7_stem_s2", (1, 3, 20, 22), (8, 3, 7, 7), True, {"strides": [2, 2], "pads": [3, 3, 3, 3]}),
    Case("short_tile_tree2", (1, 32, 2, 2), (40, 32, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("short_narrow_tree2", (1, 30, 2, 2), (17, 30, 3, 3), False, {"pads": [1, 1, 1, 1]}),
    Case("short_tail_8x8", (1, 8, 8, 8), (36, 8, 3, 3), True, {"pads": [1, 1, 1, 1]}),
]


def check_every_path(
    case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, weights_as_inputs: bool = False
) -> None:
    want = conv_reference(x, w, b, **case.attrs)
    model = cc.conv_model(x.shape, w, b, case.attrs, weights_as_inputs=weights_as_inputs)
    feeds = cc.feeds(x, w, b, weights_as_inputs)
    for path in PATHS:
        for threads in (1, 2):
            sess = session(model, "rewrite", path, threads)
            assert [n.op for n in sess.report.moved] == ["Conv"], sess.report.summary()
            for rep in range(2):  # the first run packs a constant W, later runs reuse it
                got = sess.run(None, feeds)[0]
                cc.assert_same_bits(
                    got, want, f"{case.name}, path {path}, {threads} thread(s), run {rep + 1}"
                )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_direct_bit_for_bit(case: Case) -> None:
    x, w, b = cc.case_data(case, np.dtype(np.float32), SEED)
    check_every_path(case, x, w, b)


@pytest.mark.parametrize("case", [CASES[0], CASES[1]], ids=lambda c: c.name)
def test_direct_every_way_in(case: Case) -> None:
    x, w, b = cc.case_data(case, np.dtype(np.float32), SEED + 1)
    want = conv_reference(x, w, b, **case.attrs)
    model = cc.conv_model(x.shape, w, b, case.attrs)
    for where, got in runs(model, {"x": x}, "Conv").items():
        cc.assert_same_bits(got[0], want, f"{case.name} {where}")


def test_direct_weights_as_inputs() -> None:
    case = CASES[1]
    x, w, b = cc.case_data(case, np.dtype(np.float32), SEED + 2)
    check_every_path(case, x, w, b, weights_as_inputs=True)


def test_direct_specials_in_padded_taps() -> None:
    """Padded taps are terms: fma(+0.0, w, acc). An infinite or NaN weight on a tap that reads the padding
    gives NaN at the border; -0.0 inputs and weights give +0.0 chains; NaN payloads in X become the canonical
    NaN."""
    case = Case("specials", (1, 3, 6, 7), (8, 3, 3, 3), True, {"pads": [1, 1, 1, 1]})
    x, w, b = cc.case_data(case, np.dtype(np.float32), SEED + 3)
    x[0, 2] = -0.0
    x[0, 1, 3, 4] = np.frombuffer(np.uint32(0x7FA00001).tobytes(), np.float32)[0]  # signalling NaN payload
    w[0, 0, 0, 0] = np.inf  # reads row -1: the padding
    w[1, 1, 2, 2] = -np.inf
    w[2, 0, 1, 0] = np.nan
    w[3] = -0.0
    w[4, 2] = -1.0  # times x's -0.0 channel: +0.0 products
    b[3] = -0.0
    check_every_path(case, x, w, b)


def test_direct_zero_batch() -> None:
    case = CASES[0]
    _, w, b = cc.case_data(case, np.dtype(np.float32), SEED + 4)
    x = np.zeros((0, 40, 7, 7), np.float32)
    model = cc.conv_model(x.shape, w, b, case.attrs)
    for path in PATHS:
        got = session(model, "rewrite", path, 1).run(None, {"x": x})[0]
        assert got.shape == (0, 37, 7, 7)


def test_direct_close_to_stock() -> None:
    """Stock ORT sums in another order: within the order's bound, n = min(T, 256) + ceil(log2(blocks)) + 1
    roundings of sum|x w| (docs/conv.md), for each element."""
    case = CASES[1]
    x, w, b = cc.case_data(case, np.dtype(np.float32), SEED + 5)
    model = cc.conv_model(x.shape, w, b, case.attrs)
    got = session(model, "rewrite", None, 1).run(None, {"x": x})[0]
    so = ort.SessionOptions()
    want = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )[0]
    absum = conv_reference(
        np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), np.abs(b).astype(np.float64), **case.attrs
    )
    gamma = 2 * (256 + 2 + 1) * 2.0**-24  # both sides' bounds
    assert np.all(np.abs(got.astype(np.float64) - want) <= gamma * absum + 1e-38)
