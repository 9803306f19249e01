"""OneModel's Conv, bit for bit against the independent reference (tests/reference/conv_reference.py, written
from the Conv contract of docs/conv.md alone).

Each case is a one-node Conv model (W and B initializers; also as graph inputs) run through
onemodel_ep.InferenceSession on every kernel path of this machine (f32 with 1 and 2 threads too), exact
mode; the node must run on OneModel's kernels, and the output must have the reference's bits: the same NaN
positions, every NaN the canonical quiet NaN of its type, every other element's bits equal. Cases: the shared
ones of tests/reference/conv_cases.py (1-D/2-D/3-D, group and depthwise, strides, dilations, every auto_pad,
asymmetric pads, T <= 256 and T > 256 up to five blocks), seeded random ones, depthwise ones (C/G = 1: the
direct path, rows wider than four vectors of the 512 path, strides and dilations, multipliers, 1-D and 3-D,
kernels of 256 and 272 positions), and specials (an infinite weight over the padding, NaN payloads, -0.0
products and bias, overflow, subnormals), for a group convolution and a depthwise one.

The whole file is skipped, with the reason, while the library does not serve Conv (it is not in
onemodel_ep.op_table(), the table `onemodel info --ops` lists); a type Conv does not serve is skipped too.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from tests.reference import conv_cases as cc
from tests.reference.conv_cases import CASES, Case
from tests.reference.conv_reference import conv_reference

CONV = onemodel_ep.op_table().get("Conv")
pytestmark = pytest.mark.skipif(
    CONV is None,
    reason="onemodel_ep does not serve Conv: it is not in onemodel_ep.op_table() (`onemodel info --ops`)",
)

PATHS = onemodel_ep.kernel_paths()
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
SEED = 20261204
OPSET = max(17, CONV.since_opset) if CONV is not None else 17


def served(dtype: np.dtype) -> None:
    assert CONV is not None
    if cc.ONNX_TYPE[dtype] not in CONV.input0_types:
        pytest.skip(f"onemodel_ep's Conv does not serve {dtype} (op_table()['Conv'].input0_types)")


def run_every_path(model: onnx.ModelProto, inputs: dict[str, np.ndarray], want: np.ndarray, what: str,
                   threads: tuple[int, ...] = (1,), require_claim: bool = True) -> None:
    """The model on every kernel path and thread count: run on OneModel's kernels, with want's bits."""
    for path in PATHS:
        for n_threads in threads:
            so = ort.SessionOptions()
            so.intra_op_num_threads = n_threads
            sess = onemodel_ep.InferenceSession(model, so, kernel_path=path)
            if [n.op for n in sess.report.moved] != ["Conv"]:
                if not require_claim:
                    pytest.skip(f"{what}: Conv stayed with ORT:\n{sess.report.summary()}")
                raise AssertionError(f"{what}: Conv did not run on OneModel's kernels:\n"
                                     f"{sess.report.summary()}")
            for rep in range(2):  # the first run may prepare what later runs reuse (a packed constant W^T)
                got = sess.run(None, inputs)[0]
                cc.assert_same_bits(got, want, f"{what}, path {path}, {n_threads} thread(s), run {rep + 1}")


def check(case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, *, weights_as_inputs: bool = False,
          threads: tuple[int, ...] = (1,), require_claim: bool = True) -> None:
    served(x.dtype)
    want = conv_reference(x, w, b, **case.attrs)
    model = cc.conv_model(x.shape, w, b, case.attrs, weights_as_inputs=weights_as_inputs, opset=OPSET)
    run_every_path(model, cc.feeds(x, w, b, weights_as_inputs), want, f"{case.name} {x.dtype}",
                   threads, require_claim)


def case_id(v: object) -> str:
    return v.name if isinstance(v, Case) else str(v)


@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_shared_cases_bit_for_bit(case: Case, dtype: np.dtype) -> None:
    x, w, b = cc.case_data(case, dtype, SEED)
    check(case, x, w, b, threads=(1, 2) if dtype == F32 else (1,))


@pytest.mark.parametrize(
    "case,dtype",
    [(c, F32) for c in cc.random_cases(SEED, 24)]
    + [(c, d) for c in cc.random_cases(SEED + 1, 8, max_terms=600) for d in (F16, F64)],
    ids=case_id,
)
def test_random_cases_bit_for_bit(case: Case, dtype: np.dtype) -> None:
    x, w, b = cc.case_data(case, dtype, SEED + 2)
    check(case, x, w, b, threads=(1, 2))


# C/G = 1: the direct depthwise path (docs/conv.md), every row length around the vector widths, the last axis
# strided and dilated (the phase-split padded copy), several filters per channel, and T = 256 / 272 around the
# limit of one chain (272 goes to the GEMM, two blocks).
DEPTHWISE = [
    Case("dw_wide_pad2_5x5", (1, 4, 9, 83), (4, 1, 5, 5), True, {"group": 4, "pads": [2, 2, 2, 2]}),
    Case("dw_stride2_odd", (2, 3, 13, 71), (3, 1, 3, 3), True,
         {"group": 3, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    Case("dw_stride3_dil2", (1, 2, 11, 70), (2, 1, 3, 3), False,
         {"group": 2, "strides": [1, 3], "dilations": [2, 2], "pads": [0, 2, 1, 0]}),
    Case("dw_x3_same_lower", (1, 2, 6, 37), (6, 1, 3, 2), True, {"group": 2, "auto_pad": "SAME_LOWER"}),
    Case("dw_2x2_out", (1, 5, 4, 4), (5, 1, 5, 5), True,
         {"group": 5, "strides": [2, 2], "pads": [2, 2, 2, 2]}),
    Case("dw_1d", (2, 3, 100), (3, 1, 7), True, {"group": 3, "pads": [3, 2]}),
    Case("dw_3d", (1, 2, 4, 5, 33), (2, 1, 2, 3, 3), True, {"group": 2, "pads": [1, 1, 1, 0, 1, 1]}),
    Case("dw_T256", (1, 2, 17, 20), (2, 1, 16, 16), True, {"group": 2, "pads": [1, 2, 0, 3]}),
    Case("dw_T272_gemm", (1, 2, 18, 20), (2, 1, 17, 16), True, {"group": 2}),
    # output rows of at most 8 positions, one filter per channel: the channels in the vector lanes, blocks of
    # 16 channels and a partial one, a batch, strides and dilations, 1-D
    Case("dw_chan_20_pad1_batch", (2, 20, 4, 4), (20, 1, 3, 3), True, {"group": 20, "pads": [1, 1, 1, 1]}),
    Case("dw_chan_35_s2_dil", (1, 35, 9, 7), (35, 1, 3, 3), False,
         {"group": 35, "strides": [2, 2], "dilations": [1, 2], "pads": [1, 0, 1, 2]}),
    Case("dw_chan_1d", (1, 18, 6), (18, 1, 5), True, {"group": 18, "pads": [2, 2]}),
    # one channel per group, many filters, at most 4 output positions: the transposed product instead (the
    # filters in the lanes; silero-vad's STFT is 1 -> 258 channels, 256 taps, stride 128, 4 positions)
    Case("dw_mg_stft", (1, 1, 640), (258, 1, 256), False, {"strides": [128]}),
    Case("dw_mg_groups_pad", (2, 2, 5, 5), (34, 1, 3, 3), True, {"group": 2, "strides": [2, 2]}),
    Case("dw_mg16_one_pos", (1, 3, 4, 4), (48, 1, 4, 4), True, {"group": 3}),
]
DW_PAD1 = Case("dw_pad1_3x3", (1, 3, 5, 70), (3, 1, 3, 3), True, {"group": 3, "pads": [1, 1, 1, 1]})
DW_SMALL = Case("dw_small_pad1_3x3", (1, 18, 4, 5), (18, 1, 3, 3), True, {"group": 18, "pads": [1, 1, 1, 1]})


@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
@pytest.mark.parametrize("case", DEPTHWISE, ids=case_id)
def test_depthwise_cases_bit_for_bit(case: Case, dtype: np.dtype) -> None:
    x, w, b = cc.case_data(case, dtype, SEED + 7)
    check(case, x, w, b, threads=(1, 2) if dtype == F32 else (1,))


# f32 column panels made inside the GEMM (om_im2col_panel, docs/conv.md): many output channels (every row
# tile in one block, more than 8 tiles on every path), T over one K block (a panel starts mid-channel and
# mid-kernel), planes over one task's 512 positions (panels start mid output row), output rows narrower than a
# panel, 1-wide rows (a segment per column), strides, dilations and asymmetric pads, groups, 3-D.
PANEL_FILL = [
    Case("fill_m100_T360_plane900", (1, 40, 30, 30), (100, 40, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    Case("fill_s2_dil2_asym", (1, 33, 37, 29), (70, 33, 3, 3), True,
         {"strides": [2, 2], "dilations": [2, 2], "pads": [2, 0, 1, 3]}),
    Case("fill_w1_rows", (2, 30, 41, 1), (20, 30, 5, 1), False, {"pads": [2, 0, 2, 0]}),
    Case("fill_group3_rows5", (1, 60, 23, 5), (63, 20, 3, 3), True,
         {"group": 3, "strides": [1, 2], "pads": [1, 1, 0, 1]}),
    Case("fill_3d_stride", (1, 9, 6, 7, 9), (16, 9, 3, 3, 3), True,
         {"strides": [1, 2, 3], "pads": [1, 0, 2, 0, 1, 1]}),
    Case("fill_1x1_stride2", (1, 300, 9, 11), (24, 300, 1, 1), True, {"strides": [2, 2]}),
]


@pytest.mark.parametrize("case", PANEL_FILL, ids=case_id)
def test_panel_fill_cases_bit_for_bit(case: Case) -> None:
    x, w, b = cc.case_data(case, F32, SEED + 11)
    check(case, x, w, b, threads=(1, 2))


@pytest.mark.parametrize("name", ["2d_pad1", "2d_group2", "2d_T360_pad", "3d_asym_stride",
                                  "2d_plane4_T576_pad", "dw_chan_20_pad1_batch"])
def test_weights_as_graph_inputs(name: str) -> None:
    """W and B fed at run time instead of initializers: the same bits (skipped if Conv is not claimed so)."""
    case = next(c for c in CASES + DEPTHWISE if c.name == name)
    x, w, b = cc.case_data(case, F32, SEED + 3)
    check(case, x, w, b, weights_as_inputs=True, require_claim=False)


# ---- specials -------------------------------------------------------------------------------------------

PAD1 = Case("pad1_3x3", (1, 2, 5, 6), (3, 2, 3, 3), True, {"pads": [1, 1, 1, 1]})


@pytest.mark.parametrize("case", [PAD1, DW_PAD1, DW_SMALL], ids=case_id)
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_infinite_weight_over_padding_is_nan(dtype: np.dtype, case: Case) -> None:
    """+0.0 padding times inf is NaN: the outputs whose tap of w[m, 0, 0, 0] = inf falls in the padding are
    NaN, the others inf (x > 0)."""
    x, w, b = cc.case_data(case, dtype, SEED + 4)
    x, w = np.abs(x) + dtype.type(1), np.abs(w)
    w[1, 0, 0, 0] = np.inf
    want = conv_reference(x, w, b, **case.attrs)
    assert np.isnan(want[0, 1, 0, :]).all() and np.isnan(want[0, 1, :, 0]).all()
    assert (want[0, 1, 1:, 1:] == np.inf).all()
    check(case, x, w, b)


@pytest.mark.parametrize("case", [PAD1, DW_PAD1, DW_SMALL], ids=case_id)
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_nan_payloads_become_canonical(dtype: np.dtype, case: Case) -> None:
    x, w, b = cc.case_data(case, dtype, SEED + 5)
    u = np.dtype(f"u{dtype.itemsize}")
    quiet_neg = {F16: 0xFE45, F32: 0xFFC00456, F64: 0xFFF8000000000456}[dtype]
    signalling = {F16: 0x7C12, F32: 0x7F800123, F64: 0x7FF0000000000123}[dtype]
    x.view(u)[0, 1, 2, 3] = signalling
    w.view(u)[2, 0, 1, 1] = quiet_neg
    assert b is not None
    b.view(u)[0] = quiet_neg
    check(case, x, w, b)


@pytest.mark.parametrize("case", [PAD1, DW_PAD1, DW_SMALL], ids=case_id)
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_negative_zero_products_give_plus_zero(dtype: np.dtype, case: Case) -> None:
    """All products -0.0 (x = -0.0 with w > 0, and x = +0.0 with w < 0), the bias -0.0: +0.0 everywhere."""
    for xv, wv in ((-0.0, 1.5), (0.0, -2.0)):
        x = np.full(case.x_shape, xv, dtype)
        w = np.full(case.w_shape, wv, dtype)
        b = np.full(case.w_shape[0], -0.0, dtype)
        assert (conv_reference(x, w, b, **case.attrs).view(f"u{dtype.itemsize}") == 0).all()
        check(case, x, w, b)


@pytest.mark.parametrize("case", [PAD1, DW_PAD1, DW_SMALL], ids=case_id)
@pytest.mark.parametrize("dtype", [F32, F16, F64], ids=str)
def test_overflow_and_subnormals(dtype: np.dtype, case: Case) -> None:
    """Terms near the top of the range (sums overflow to +-inf, inf - inf is NaN) and near the bottom
    (subnormal products and results)."""
    info = np.finfo(dtype)
    rng = np.random.default_rng(SEED + 6)
    x, w, b = cc.case_data(case, dtype, SEED + 6)
    big = np.sqrt(float(info.max)) * 0.75
    tiny = np.sqrt(float(info.smallest_subnormal)) * 4
    scale = np.where(rng.random(x.shape) < 0.5, big, tiny)
    x = (np.sign(x.astype(np.float64)) * scale).astype(dtype)
    w = (w.astype(np.float64) * np.where(rng.random(w.shape) < 0.5, big, tiny)).astype(dtype)
    want = conv_reference(x, w, b, **case.attrs)
    assert np.isinf(want).any() or np.isnan(want).any()
    check(case, x, w, b)
