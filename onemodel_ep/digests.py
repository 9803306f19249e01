"""Digests of exact-mode outputs: what `onemodel verify` prints, and the golden digests that pin the bits.

A digest is the SHA-256 of every output in order, each as its element type, its shape and its bytes, so two
runs that print the same digest computed the same bits. `op_digests` computes, on one kernel path, every row
of the op table for every element type it takes, on seeded inputs that reach the edges (NaN, infinities,
signed zeros, subnormals, integer extremes) at a length that exercises the vector bodies and the tail; the
structured ops (MatMul, Gemm, MatMulInteger, Softmax, LayerNormalization, Reduce*, Conv, the global pools,
BatchNormalization, the quantization ops) on shapes that give their blocked loops full blocks and edges, the
data-movement ops (Reshape ... Expand, Size, Tile) on a case per opset form, Range on one long range per type,
ConstantOfShape on one output per type of its `value`;
and every unary op on all 65,536 float16 and bfloat16 bit patterns (keys ending in "/all16"). `model_digest`
runs a test model (testdata/models) on fixed feeds. testdata/golden/digests.json holds both as they were when
BITS_VERSION was last bumped; tests and the cross-CPU tools compare against it.

Exact mode promises these digests on every kernel path of every machine, at every thread count. A change is a
deliberate act: bump BITS_VERSION, regenerate the file (`python tools/gen/golden_digests.py --write`) and say
in CHANGELOG.md which ops changed and why.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from onemodel_ep._lib import F_STRUCT, op_table
from onemodel_ep.node import Node, NodeError

# The version of the output bits: bumped, with regenerated golden digests and a CHANGELOG.md line, whenever a
# change of the library changes an exact-mode output bit.
BITS_VERSION = 5

SEED = 20261130
N = 1000 + 37  # vector bodies and a tail on every width
# Inputs of arbitrary bit patterns, NaN payloads included: exact mode writes canonical NaNs, so they are bits
# like any others.

Case = tuple[list[int], dict[str, Any], list[Any], int]
REDUCE_AXES_INPUT = {"ReduceSum": 13}  # the others take axes as an input from opset 18
QDQ_OPS = ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear")


def output_digest(outputs: Sequence[np.ndarray]) -> str:
    """SHA-256 of the outputs in order, each as element type, shape and bytes (hex, 64 characters)."""
    h = hashlib.sha256()
    for y in outputs:
        a = np.ascontiguousarray(y)
        h.update(f"{a.dtype.str}{list(a.shape)};".encode())
        h.update(a.view(np.uint8).tobytes())
    return h.hexdigest()


def _values(t: int, rng: np.random.Generator) -> np.ndarray:
    if t == TensorProto.BFLOAT16:
        return rng.integers(0, 1 << 16, N).astype(np.uint16)
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))
    if dt == np.bool_:
        return rng.integers(0, 2, N).astype(bool)
    if dt.kind == "f":
        bits = rng.integers(0, 1 << (8 * dt.itemsize), N, dtype=np.uint64).astype(f"u{dt.itemsize}")
        x = bits.view(dt).copy()
        x[: N // 2] = rng.normal(0, 20, N // 2).astype(dt)  # half ordinary values, half random bit patterns
        x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5], dtype=dt)
        return x
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    edges = [0, 1, info.max, info.min, info.max - 1, -1 if info.min < 0 else 2]
    x[:6] = np.array(edges, dtype=object).astype(dt)
    return x


def _struct_cases(op: str, t: int) -> list[Case]:
    """(input types, attributes, input shapes (or, for an int64 axes input, its values), opset) per case."""
    if op == "MatMul":
        return [([t, t], {}, [(37, 67), (67, 41)], 13), ([t, t], {}, [(3, 1, 19, 33), (2, 33, 17)], 13),
                ([t, t], {}, [(1037,), (1037,)], 13),
                ([t, t], {}, [(5, 1300), (1300, 3)], 13)]  # K over one block of 256: the block-sum tree
    if op == "Gemm":
        gemm_attrs = {"transA": 1, "transB": 1, "alpha": 0.5, "beta": -2.0}
        return [([t, t, t], gemm_attrs, [(67, 37), (41, 67), (41,)], 13),
                ([t, t], {}, [(37, 67), (67, 41)], 13)]
    if op == "Dropout":  # inference: the input's bits (NaN payloads included)
        return [([t], {}, [(5, 33, 19)], 13)]
    if op == "Hardmax":  # both readings of axis; ties (few distinct values)
        return [([t], {"axis": -1}, [(7, 1037)], 13), ([t], {"axis": 1}, [(5, 33, 19)], 13),
                ([t], {"axis": 1}, [(5, 33, 19)], 11)]
    if op in ("Softmax", "LogSoftmax"):
        return [([t], {"axis": -1}, [(7, 1037)], 13), ([t], {"axis": 1}, [(5, 33, 19)], 13),
                ([t], {"axis": 1}, [(5, 33, 19)], 11)]
    if op == "LayerNormalization":
        return [([t, t, t], {"axis": -1, "epsilon": 1e-5}, [(7, 1037), (1037,), (1037,)], 17),
                ([t, t], {"axis": 1}, [(3, 5, 67), (5, 67)], 17)]
    if op in ("SimplifiedLayerNormalization", "RMSNormalization"):
        opset = 23 if op == "RMSNormalization" else 17
        return [([t, t], {"axis": -1, "epsilon": 1e-5}, [(7, 1037), (1037,)], opset),
                ([t, t], {"axis": 1}, [(3, 5, 67), (5, 67)], opset)]
    if op == "com.microsoft.SkipLayerNormalization":
        return [([t] * 5, {"epsilon": 1e-6}, [(2, 7, 1037), (7, 1037), (1037,), (1037,), (1037,)], 1),
                ([t] * 3, {}, [(3, 5, 67), (3, 5, 67), (67,)], 1)]
    if op == "com.microsoft.SkipSimplifiedLayerNormalization":
        return [([t] * 4, {"epsilon": 1e-6}, [(2, 7, 1037), (7, 1037), (1037,), (1037,)], 1),
                ([t] * 3, {}, [(3, 5, 67), (3, 5, 67), (67,)], 1)]
    if op == "Conv":  # T = 576 (the tree), grouped and dilated, depthwise, 1-D at opset 1, 3-D, pointwise
        return [
            ([t, t, t], {"pads": [1, 1, 1, 1], "strides": [2, 1]}, [(2, 64, 9, 7), (5, 64, 3, 3), (5,)], 11),
            ([t, t], {"group": 3, "dilations": [2, 1], "auto_pad": "SAME_LOWER"},
             [(1, 6, 11, 8), (9, 2, 3, 2)], 11),
            ([t, t, t], {"group": 8, "pads": [1, 1, 1, 1]}, [(1, 8, 13, 13), (8, 1, 3, 3), (8,)], 11),
            ([t, t], {"auto_pad": "VALID", "strides": [2]}, [(2, 7, 29), (4, 7, 5)], 1),
            ([t, t, t], {}, [(1, 5, 4, 6, 5), (3, 5, 2, 3, 2), (3,)], 11),
            ([t, t], {}, [(1, 33, 37, 31), (6, 33, 1, 1)], 11),
        ]
    if op == "ConvTranspose":  # Cg = 300 (the tree), k4 s2 p1, grouped and dilated, depthwise, 1-D, 3-D, SAME
        return [
            ([t, t, t], {"strides": [2, 2]}, [(1, 300, 3, 2), (300, 3, 2, 2), (3,)], 11),
            ([t, t, t], {"strides": [2, 2], "pads": [1, 1, 1, 1]}, [(2, 5, 6, 7), (5, 3, 4, 4), (3,)], 22),
            ([t, t], {"group": 2, "dilations": [2, 1], "strides": [3, 2], "output_padding": [1, 1]},
             [(1, 4, 5, 4), (4, 3, 3, 2)], 11),
            ([t, t, t], {"group": 6, "strides": [2, 2], "pads": [1, 1, 1, 1]},
             [(1, 6, 7, 7), (6, 1, 3, 3), (6,)], 11),
            ([t, t], {"strides": [2], "output_shape": [30]}, [(2, 7, 15), (7, 4, 3)], 1),
            ([t, t, t], {"strides": [1, 2, 2], "auto_pad": "SAME_UPPER"},
             [(1, 3, 3, 4, 3), (3, 2, 2, 3, 3), (2,)], 11),
        ]
    if op in ("GlobalAveragePool", "GlobalMaxPool"):
        return [([t], {}, [(2, 3, 7, 7)], 13), ([t], {}, [(1, 5, 1037)], 13)]
    if op == "MaxPool":  # the ResNet stem pool, 1-D ceil_mode column-major, 3-D dilated
        return [([t], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, [(2, 3, 9, 9)], 12),
                ([t], {"kernel_shape": [4], "strides": [3], "ceil_mode": 1, "storage_order": 1},
                 [(2, 3, 37)], 12),
                ([t], {"kernel_shape": [2, 2, 3], "dilations": [2, 1, 2]}, [(1, 2, 5, 6, 7)], 12)]
    if op == "AveragePool":  # padding counted or not, ceil_mode, SAME_LOWER, 1-D and 3-D
        return [([t], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1,
                       "count_include_pad": 1}, [(2, 3, 10, 9)], 19),
                ([t], {"kernel_shape": [3, 3], "pads": [1, 2, 2, 1]}, [(1, 4, 7, 8)], 19),
                ([t], {"kernel_shape": [5], "auto_pad": "SAME_LOWER", "strides": [2]}, [(2, 3, 37)], 19),
                ([t], {"kernel_shape": [2, 3, 2], "dilations": [1, 2, 1]}, [(1, 2, 5, 6, 7)], 19)]
    if op == "BatchNormalization":
        return [([t] * 5, {"epsilon": 1e-3}, [(2, 3, 7, 7), (3,), (3,), (3,), (3,)], 15),
                ([t] * 5, {}, [(3, 5, 37), (5,), (5,), (5,), (5,)], 9)]
    if op == "InstanceNormalization":
        return [([t] * 3, {"epsilon": 1e-3}, [(2, 3, 7, 37), (3,), (3,)], 6),
                ([t] * 3, {}, [(1, 5, 1037), (5,), (5,)], 22)]
    if op == "GroupNormalization":  # scale and bias per group (18), per channel (21)
        return [([t] * 3, {"num_groups": 2}, [(2, 6, 7, 9), (2,), (2,)], 18),
                ([t] * 3, {"num_groups": 3, "epsilon": 1e-3}, [(2, 6, 37), (6,), (6,)], 21)]
    if op == "MatMulInteger":  # zero points: one, per column, per row; none; tails past every tile and panel
        u8, i8 = TensorProto.UINT8, TensorProto.INT8
        return [([t, u8, t, u8], {}, [(37, 67), (67, 41), (), ()], 10),
                ([t, i8, t, i8], {}, [(37, 67), (67, 41), (37,), (41,)], 10),
                ([t, i8], {}, [(3, 1, 19, 33), (2, 33, 17)], 10),
                ([t, u8], {}, [(5, 1300), (1300, 3)], 10)]
    if op == "ConvInteger":  # zero points one, per channel, none; 3x3 pad at T = 576, grouped s2, 1-D, 3-D
        u8, i8 = TensorProto.UINT8, TensorProto.INT8
        return [([t, i8, t, i8], {"pads": [1, 1, 1, 1]}, [(1, 64, 9, 7), (5, 64, 3, 3), (), (5,)], 10),
                ([t, u8, t, u8], {"group": 2, "strides": [2, 2], "auto_pad": "SAME_UPPER"},
                 [(2, 6, 11, 8), (4, 3, 3, 2), (), ()], 10),
                ([t, u8], {"dilations": [2]}, [(2, 7, 29), (4, 7, 5)], 10),
                ([t, i8], {}, [(1, 5, 4, 6, 5), (3, 5, 2, 3, 2)], 10)]
    if op.split(".")[-1] in QDQ_OPS:
        return [] if t in QDQ_NARROW else _qdq_cases(op, t)
    if op == "com.microsoft.MatMulNBits":  # 4 bits, packed zero points; 8 bits, 128, K past 256; f32 ones;
        u8 = TensorProto.UINT8
        return [([t, u8, t, u8], {"K": 100, "N": 41, "bits": 4, "block_size": 32},
                 [(37, 100), (41, 4, 16), (164,), (82,)], 1),
                ([t, u8, t], {"K": 1300, "N": 3, "bits": 8, "block_size": 64},
                 [(5, 1300), (3, 21, 64), (63,)], 1),
                ([t, u8, t, t], {"K": 70, "N": 17, "bits": 4, "block_size": 16},
                 [(2, 3, 70), (17, 5, 8), (85,), (85,)], 1),
                # accuracy_level 4 (the int8 contract): 4 bits, packed zero points, K tail; 8 bits, 128
                ([t, u8, t, u8], {"K": 300, "N": 37, "bits": 4, "block_size": 32, "accuracy_level": 4},
                 [(5, 300), (37, 10, 16), (370,), (185,)], 1),
                ([t, u8, t], {"K": 200, "N": 19, "bits": 8, "block_size": 64, "accuracy_level": 4},
                 [(3, 200), (19, 4, 64), (76,)], 1)]
    if op in ("LSTM", "GRU", "RNN"):  # docs/recurrent.md: two directions, two K blocks; both GRU forms;
        # activation lists (every activation once), LSTM's input_forget
        lstm_acts = {"hidden_size": 5, "direction": "bidirectional", "input_forget": 1,
                     "activations": ["HardSigmoid", "Softsign", "Elu", "Sigmoid", "ScaledTanh", "Affine"],
                     "activation_alpha": [0.3, 0.9, 0.8, 0.5], "activation_beta": [0.45, 1.1, 0.125]}
        return {"LSTM": [([t] * 4, {"hidden_size": 5, "direction": "bidirectional"},
                          [(7, 3, 300), (2, 20, 300), (2, 20, 5), (2, 40)], 14),
                         ([t] * 4, lstm_acts, [(6, 3, 4), (2, 20, 4), (2, 20, 5), (2, 40)], 14)],
                "GRU": [([t] * 4, {"hidden_size": 6, "linear_before_reset": 1},
                         [(5, 2, 4), (1, 18, 4), (1, 18, 6), (1, 36)], 14),
                        ([t] * 3, {"hidden_size": 6, "direction": "reverse"},
                         [(5, 2, 4), (1, 18, 4), (1, 18, 6)], 14),
                        ([t] * 4, {"hidden_size": 6, "activations": ["LeakyRelu", "Softplus"],
                                   "activation_alpha": [0.2]},
                         [(5, 2, 4), (1, 18, 4), (1, 18, 6), (1, 36)], 14)],
                "RNN": [([t] * 4, {"hidden_size": 7, "direction": "bidirectional"},
                         [(6, 3, 300), (2, 7, 300), (2, 7, 7), (2, 14)], 14),
                        ([t] * 4, {"hidden_size": 7, "activations": ["ThresholdedRelu"],
                                   "activation_alpha": [0.1], "clip": 2.5},
                         [(6, 3, 5), (1, 7, 5), (1, 7, 7), (1, 14)], 7),
                        ([t] * 3, {"hidden_size": 7, "activations": ["Relu"], "direction": "reverse"},
                         [(6, 3, 5), (1, 7, 5), (1, 7, 7)], 14)],
                }[op] + (_rnn_double_cases(op) if t == TensorProto.DOUBLE else [])
    if op in ("com.microsoft.Gelu", "com.microsoft.QuickGelu"):  # docs/transformer-ops.md
        quick = [([t], {"alpha": 1.5}, [(3, 67)], 1)] if op.endswith("QuickGelu") else []
        return [([t], {}, [(7, 1037)], 1), *quick]
    if op == "com.microsoft.BiasSoftmax":  # an attention mask [B, 1, 1, S]; a bias row over a batch of rows
        return [([t, t], {"axis": 3, "is_inner_broadcast": 1}, [(2, 3, 5, 67), (2, 1, 1, 67)], 1),
                ([t, t], {"axis": 1, "is_inner_broadcast": 0}, [(3, 1037), (1, 1037)], 1)]
    if op in ("com.microsoft.BiasGelu", "com.microsoft.FastGelu"):
        plain = [([t], {}, [(7, 1037)], 1)] if op.endswith("FastGelu") else []
        return [([t, t], {}, [(7, 1037), (1037,)], 1), *plain]
    if op == "com.microsoft.FusedMatMul":  # transposed operands by strides, alpha; a constant B packed
        return [([t, t], {"transA": 1, "transB": 1, "alpha": 0.5}, [(2, 3, 67, 37), (3, 41, 67)], 1),
                ([t, t], {"transB": 1}, [(5, 1300), (3, 1300)], 1)]
    if op.startswith("Reduce"):
        since = REDUCE_AXES_INPUT.get(op, 18)
        return [([t], {"axes": [1], "keepdims": 0}, [(5, 1037, 3)], since - 1),
                ([t], {"axes": [-1], "keepdims": 1}, [(7, 1037)], since - 1),
                ([t, 7], {"keepdims": 1}, [(3, 33, 19), [0, 2]], since),
                ([t], {}, [(3, 33, 19)], since)]
    if op == "Shrink":  # the defaults; a wider dead band and a negative bias
        return [([t], {}, [(7, 1037)], 9), ([t], {"lambd": 3.0, "bias": -1.5}, [(3, 33, 19)], 9)]
    if op == "LpPool":  # p 2 padded, p 1 at opset 18 with ceil_mode and dilation; p 3 and p 5 (opset 2)
        return [([t], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, [(2, 3, 9, 9)], 11),
                ([t], {"kernel_shape": [4], "strides": [3], "ceil_mode": 1, "p": 1}, [(2, 3, 37)], 18),
                ([t], {"kernel_shape": [2, 2, 3], "dilations": [2, 1, 2]}, [(1, 2, 5, 6, 7)], 18),
                ([t], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "p": 3}, [(2, 3, 9, 9)], 18),
                ([t], {"kernel_shape": [4], "strides": [3], "p": 5}, [(2, 3, 37)], 2)]
    if op == "GlobalLpPool":
        return [([t], {}, [(2, 3, 7, 7)], 2), ([t], {"p": 1}, [(1, 5, 1037)], 2),
                ([t], {"p": 3}, [(2, 3, 7, 7)], 2)]
    if op == "LRN":  # the defaults with AlexNet's size; an even size over a 1-D map
        return [([t], {"size": 5}, [(2, 16, 9, 9)], 13),
                ([t], {"size": 4, "alpha": 0.5, "beta": 0.6, "bias": 2.0}, [(3, 7, 33)], 13)]
    if op == "Einsum":  # docs/einsum.md: attention scores (K past a 64-lane tile), bilinear with K past one
        # 256-block, a batched diagonal with its letter summed out
        return [([t, t], {"equation": "bhid,bhjd->bhij"}, [(1, 2, 37, 67), (1, 2, 41, 67)], 12),
                ([t, t, t], {"equation": "bn,anm,bm->ba"}, [(3, 300), (4, 300, 5), (3, 5)], 12),
                ([t], {"equation": "...ii->..."}, [(2, 3, 5, 5)], 12)]
    if op == "LpNormalization":  # L1 along a middle axis, L2 along the last
        return [([t], {"axis": 1, "p": 1}, [(3, 37, 5)], 1), ([t], {}, [(7, 1037)], 1)]
    if op == "MeanVarianceNormalization":  # the default axes [0, 2, 3]; one axis
        return [([t], {}, [(2, 3, 5, 7)], 13), ([t], {"axes": [1]}, [(4, 37)], 9)]
    return _movement_cases(op, t)


def _rnn_double_cases(op: str) -> list[Case]:
    """double's lists without Elu and Softplus (refused there; docs/recurrent.md), every other activation."""
    t = TensorProto.DOUBLE
    if op == "LSTM":
        acts = {"hidden_size": 5, "direction": "bidirectional", "input_forget": 1,
                "activations": ["HardSigmoid", "Softsign", "LeakyRelu", "Sigmoid", "ScaledTanh", "Affine"],
                "activation_alpha": [0.3, 0.2, 0.8, 0.5], "activation_beta": [0.45, 1.1, 0.125]}
        return [([t] * 4, acts, [(6, 3, 4), (2, 20, 4), (2, 20, 5), (2, 40)], 14)]
    if op == "GRU":
        acts = {"hidden_size": 6, "activations": ["Sigmoid", "Tanh"], "clip": 1.5}
        return [([t] * 4, acts, [(5, 2, 4), (1, 18, 4), (1, 18, 6), (1, 36)], 22)]
    return []


def _qdq_cases(op: str, t: int) -> list[Case]:
    """QuantizeLinear (t: x's type) and DequantizeLinear (t: x's and the zero point's type), both domains: per
    tensor, per axis with each 8-bit zero point type (QuantizeLinear) or x's (DequantizeLinear), blocked along
    the first axis (ONNX's, opset 21); DynamicQuantizeLinear."""
    f, u8, i8, i16 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT16
    if op == "DynamicQuantizeLinear":
        return [([t], {}, [(7, 1037)], 11)]
    microsoft = op.startswith("com.microsoft.")
    opset = 1 if microsoft else 21
    quantize = op.split(".")[-1] == "QuantizeLinear"
    zts = (u8, i8) if quantize else (t,)
    cases: list[Case] = [([t, f, zt], {"axis": 1}, [(7, 1037), (1037,), (1037,)], opset) for zt in zts]
    cases.append(([t, f], {}, [(5, 1037), ()], opset))
    if not microsoft:
        zt = i16 if quantize else t
        cases.append(([t, f, zt], {"axis": 0, "block_size": 4}, [(37, 33), (10, 33), (10, 33)], opset))
    return cases


QDQ_NARROW = (TensorProto.INT4, TensorProto.UINT4, TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
              TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ)


def _qdq_narrow_cases(op: str) -> Iterator[OpCase]:
    """ONNX's QuantizeLinear and DequantizeLinear of int4, uint4 and the float8 types (docs/quantized.md): per
    axis with a zero point, blocked along the first axis; float8 with saturate 1 and 0; every float8 code."""
    f = TensorProto.FLOAT
    for nt in QDQ_NARROW:
        rng = np.random.default_rng(SEED + nt)
        dt = np.dtype(helper.tensor_dtype_to_np_dtype(nt))
        f8 = nt not in (TensorProto.INT4, TensorProto.UINT4)
        lo, hi = (-8, 7) if nt == TensorProto.INT4 else (0, 15)

        def q(*shape: int, zero: bool = False, rng: np.random.Generator = rng, dt: np.dtype = dt,
              f8: bool = f8, lo: int = lo, hi: int = hi) -> np.ndarray:
            if zero:
                return np.zeros(shape, np.uint8).view(dt)
            if f8:
                return rng.integers(0, 256, shape).astype(np.uint8).view(dt)
            return rng.integers(lo, hi, shape, endpoint=True).astype(dt)

        def sc(*shape: int, rng: np.random.Generator = rng) -> np.ndarray:
            return (rng.random(shape) * 2 + 0.01).astype(np.float32)

        if op == "QuantizeLinear":
            x, xb = np.resize(_values(f, rng), (7, 1037)), np.resize(_values(f, rng), (37, 33))
            for sat in (1, 0) if f8 else (1,):
                attrs = {"axis": 1, "saturate": sat} if f8 else {"axis": 1}
                yield OpCase(op, [f, f, nt], attrs, opset=21, given=[x, sc(1037), q(1037, zero=f8)],
                             tag=f"narrow-axis-sat{sat}")
            yield OpCase(op, [f, f, nt], {"axis": 0, "block_size": 4}, opset=21,
                         given=[xb, sc(10, 33), q(10, 33, zero=f8)], tag="narrow-blocked")
        else:
            yield OpCase(op, [nt, f, nt], {"axis": 1}, opset=21,
                         given=[q(7, 1037), sc(1037), q(1037, zero=f8)], tag="narrow-axis")
            yield OpCase(op, [nt, f], {"axis": 0, "block_size": 4}, opset=21, given=[q(37, 33), sc(10, 33)],
                         tag="narrow-blocked")


QUANT_MATMUL_OPS = ("com.microsoft.MatMulIntegerToFloat", "com.microsoft.DynamicQuantizeMatMul",
                    "QLinearMatMul")


def _quant_matmul_cases(op: str, input0_types: list[int]) -> Iterator[OpCase]:
    """The quantized products with a float step (docs/quantized-matmul.md), on given inputs: integer operands
    with their edges, scales of ordinary magnitude (the seeded bit patterns of the other cases would mostly
    give 0 or NaN): per-tensor and per-column parameters, bias, batches, tails past every tile."""
    f, u8, i8 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8
    for t in input0_types:
        rng = np.random.default_rng(SEED + sum(map(ord, op)) + t)

        def arr(tt: int, shape: tuple[int, ...], lo: float = -2.0, hi: float = 2.0,
                rng: np.random.Generator = rng) -> np.ndarray:
            if tt == f:
                return rng.uniform(lo, hi, shape).astype(np.float32)
            return np.resize(_values(tt, rng), shape)

        if op == "QLinearMatMul":
            for tb, n, opset in ((u8, 41, 21), (i8, 3, 10)):
                k = 67 if n == 41 else 1300
                ins = [arr(t, (37, k)), arr(f, (), 0.01, 0.05), arr(t, ()), arr(tb, (k, n)),
                       arr(f, (n,) if n == 41 else (), 0.01, 0.05), arr(tb, (n,) if n == 41 else ()),
                       arr(f, (), 2.0, 9.0), arr(tb, ())]
                yield OpCase(op, [t, f, t, tb, f, tb, f, tb], {}, opset=opset, given=ins, tag=f"/{n}@{opset}")
        elif op.endswith("MatMulIntegerToFloat"):
            yield OpCase(op, [t, u8, f, f, t, u8, f], {}, opset=1, tag="/column",
                         given=[arr(t, (37, 67)), arr(u8, (67, 41)), arr(f, (), 0.01, 0.05),
                                arr(f, (41,), -0.05, 0.05), arr(t, ()), arr(u8, (41,)), arr(f, (41,))])
            yield OpCase(op, [t, i8, f, f], {}, opset=1, tag="/batch",
                         given=[arr(t, (3, 1, 19, 33)), arr(i8, (2, 33, 17)), arr(f, (), 0.01, 0.05),
                                arr(f, (), 0.01, 0.05)])
        else:  # DynamicQuantizeMatMul: A float
            yield OpCase(op, [f, i8, f, i8, f], {}, opset=1, tag="/column",
                         given=[arr(f, (37, 67), -9.0, 5.0), arr(i8, (67, 41)), arr(f, (41,), 0.01, 0.05),
                                arr(i8, (41,)), arr(f, (41,))])
            yield OpCase(op, [f, u8, f], {}, opset=1, tag="/batch",
                         given=[arr(f, (2, 5, 1300)), arr(u8, (1300, 3)), arr(f, (), 0.01, 0.05)])
def _qgemm_cases(input0_types: list[int]) -> Iterator[OpCase]:
    """com.microsoft QGemm (docs/quantized-matmul.md): B int8, requantised to A's type with transB, per-column
    parameters and an int32 C per column; to float with transA, alpha, y_scale and a C per row."""
    f, i8, i32 = TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT32
    op = "com.microsoft.QGemm"
    for t in input0_types:
        rng = np.random.default_rng(SEED + sum(map(ord, op)) + t)

        def q(tt: int, *shape: int, rng: np.random.Generator = rng) -> np.ndarray:
            return np.resize(_values(tt, rng), shape)

        def sc(*shape: int, rng: np.random.Generator = rng) -> np.ndarray:
            return rng.uniform(0.01, 0.05, shape).astype(np.float32)

        c = rng.integers(-50000, 50000, 41).astype(np.int32)
        yield OpCase(op, [t, f, t, i8, f, i8, i32, f, t], {"transB": 1}, opset=1, tag="/requant",
                     given=[q(t, 37, 67), sc(), q(t), q(i8, 41, 67), sc(41), q(i8, 41), c,
                            np.array(3.5, np.float32), q(t)])
        yield OpCase(op, [t, f, t, i8, f, i8, i32, f], {"transA": 1, "alpha": 0.75}, opset=1, tag="/float",
                     given=[q(t, 300, 19), sc(), q(t), q(i8, 300, 23), sc(), q(i8), c[:19].reshape(19, 1),
                            np.array(2.0, np.float32)])


QLINEAR_OPS = tuple(f"com.microsoft.QLinear{n}" for n in ("Add", "Mul", "Sigmoid", "LeakyRelu",
                                                            "GlobalAveragePool", "AveragePool", "Concat",
                                                            "Softmax"))


def _qlinear_cases(op: str, input0_types: list[int]) -> Iterator[OpCase]:
    """The QOperator nodes (docs/quantized-elementwise.md) on given inputs: every 8-bit value, scales of
    ordinary magnitude, zero points at their edges; broadcasting, both layouts of the pool, three inputs of
    Concat along a middle axis."""
    f, u8, i8 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8
    for t in (u8, i8) if op.endswith("Concat") else input0_types:
        rng = np.random.default_rng(SEED + sum(map(ord, op)) + t)
        dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))

        def q(*shape: int, rng: np.random.Generator = rng, dt: np.dtype = dt) -> np.ndarray:
            if not shape:  # a zero point
                return np.array(rng.integers(0, 256), np.uint8).view(dt)
            every = np.resize(np.arange(256, dtype=np.uint8).view(dt), shape)
            return every[..., rng.permutation(shape[-1])]

        def s(lo: float, hi: float, rng: np.random.Generator = rng) -> np.ndarray:
            return np.array(rng.uniform(lo, hi), np.float32)

        name = op.split(".")[-1]
        if name in ("QLinearAdd", "QLinearMul"):
            yield OpCase(op, [t, f, t, t, f, t, f, t], {}, opset=1, tag="/bcast",
                         given=[q(7, 1037), s(0.01, 0.05), q(), q(1037), s(0.01, 0.05), q(), s(0.02, 0.08),
                                q()])
        elif name in ("QLinearSigmoid", "QLinearLeakyRelu"):
            attrs = {"alpha": 0.125} if name == "QLinearLeakyRelu" else {}
            yield OpCase(op, [t, f, t, f, t], attrs, opset=1,
                         given=[q(3, 1037), s(0.02, 0.1), q(), s(0.003, 0.01), q()])
        elif name == "QLinearSoftmax":  # one axis at 1 (strided rows), and the 2-D coercion before opset 13
            yield OpCase(op, [t, f, t, f, t], {"opset": 13, "axis": 1}, opset=1, tag="/13",
                         given=[q(3, 37, 29), s(0.02, 0.15), q(), s(0.003, 0.005), q()])
            yield OpCase(op, [t, f, t, f, t], {"opset": 12, "axis": 1}, opset=1, tag="/12",
                         given=[q(5, 3, 67), s(0.02, 0.15), q(), s(0.003, 0.005), q()])
        elif name == "QLinearGlobalAveragePool":
            for last in (0, 1):
                yield OpCase(op, [t, f, t, f, t], {"channels_last": last}, opset=1, tag=f"/{last}",
                             given=[q(2, 37, 9, 11), s(0.01, 0.1), q(), s(0.005, 0.05), q()])
        elif name == "QLinearAveragePool":  # padding counted or not, ceil_mode, both layouts, SAME_LOWER 1-D
            for last, cip in ((0, 0), (1, 1)):
                x = q(2, 9, 11, 37) if last else q(2, 37, 9, 11)
                attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 2, 1], "ceil_mode": 1,
                         "count_include_pad": cip, "channels_last": last}
                yield OpCase(op, [t, f, t, f, t], attrs, opset=1, tag=f"/{last}",
                             given=[x, s(0.01, 0.1), q(), s(0.005, 0.05), q()])
            yield OpCase(op, [t, f, t, f, t], {"kernel_shape": [4], "strides": [3], "auto_pad": "SAME_LOWER"},
                         opset=1, tag="/1d", given=[q(3, 5, 67), s(0.01, 0.1), q(), s(0.005, 0.05), q()])
        else:  # QLinearConcat
            yield OpCase(op, [f, t] + [t, f, t] * 3, {"axis": 1}, opset=1,
                         given=[s(0.02, 0.05), q(), q(3, 5, 67), s(0.01, 0.1), q(), q(3, 1, 67), s(0.01, 0.1),
                                q(), q(3, 7, 67), s(0.01, 0.1), q()])


def _resize_cases(t: int) -> list[Case]:
    """Resize (docs/resize.md): nearest by scales and sizes, linear (float only) by sizes and over three axes,
    opset 10's asymmetric and simple rounding; cubic (exclude_outside, cubic_coeff_a, rank 2 by sizes) and
    antialias linear and cubic (float only)."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    x = (2, 3, 5, 7)
    return [([t, f, f], {"nearest_mode": "round_prefer_ceil"}, [x, [], [1, 1, 2.5, 0.6]], 19),
            ([t, f, f, i64], {"coordinate_transformation_mode": "asymmetric"}, [x, [], [], [2, 3, 9, 4]], 19),
            ([t, f, f, i64], {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
             [x, [], [], [2, 3, 9, 4]], 19),
            ([t, f, f], {"mode": "linear"}, [(1, 2, 3, 5, 6), [], [1, 1, 2, 1.5, 0.7]], 19),
            ([t, f], {"mode": "nearest"}, [(2, 3, 4, 5), [1, 1, 0.6, 1.7]], 10),
            ([t, f, f], {"mode": "cubic", "exclude_outside": 1, "cubic_coeff_a": -0.5},
             [(1, 2, 7, 9), [], [1, 1, 2, 1.5]], 19),
            ([t, f, f, i64], {"mode": "cubic", "coordinate_transformation_mode": "align_corners"},
             [(7, 9), [], [], [13, 4]], 11),
            ([t, f, f], {"mode": "linear", "antialias": 1}, [(2, 3, 16, 18), [], [1, 1, 0.5, 0.3]], 18),
            ([t, f, f], {"mode": "cubic", "antialias": 1}, [(1, 2, 16, 18), [], [1, 1, 0.6, 0.45]], 19)]


def _movement_cases(op: str, t: int) -> list[Case]:
    """The data-movement ops: copies, whose digests pin the element order of each op and opset form."""
    i64, f = TensorProto.INT64, TensorProto.FLOAT
    cases: dict[str, list[Case]] = {
        "Reshape": [([t, i64], {}, [(3, 4, 5), [6, -1]], 14)],
        "Unsqueeze": [([t, i64], {}, [(3, 4), [0, -1]], 13), ([t], {"axes": [1]}, [(3, 4)], 11)],
        "Squeeze": [([t, i64], {}, [(3, 1, 4), [1]], 13), ([t], {}, [(1, 3, 1)], 11)],
        "Flatten": [([t], {"axis": 2}, [(3, 4, 5)], 13)],
        "Identity": [([t], {}, [(3, 5)], 13)],
        "Shape": [([t], {"start": 1}, [(3, 4, 5)], 15)],
        "Size": [([t], {}, [(3, 4, 5)], 13)],
        "Transpose": [([t], {"perm": [2, 0, 1]}, [(7, 33, 19)], 13)],
        "Concat": [([t, t], {"axis": 1}, [(3, 5), (3, 7)], 13)],
        "Gather": [([t, i64], {"axis": 1}, [(3, 19, 5), [0, -1, 4, 4]], 13)],
        "Slice": [([t, i64, i64, i64, i64], {}, [(9, 11), [1, -1], [8, 0], [0, 1], [2, -3]], 13),
                  ([t], {"starts": [1], "ends": [5]}, [(9, 11)], 9)],
        "Expand": [([t, i64], {}, [(3, 1), [2, 3, 4]], 13)],
        "Tile": [([t, i64], {}, [(3, 1, 5), [2, 3, 1]], 13)],
        "Pad": [([t, i64], {"mode": "reflect"}, [(3, 5, 7), [0, 1, 2, 0, 2, 1]], 19),
                ([t, i64], {"mode": "wrap"}, [(4, 6), [-1, 7, 2, -2]], 19),
                ([t, i64], {}, [(3, 5), [1, -1, 0, 2]], 13)],
        "ArgMax": [([t], {"axis": 1, "keepdims": 0}, [(5, 37, 3)], 13),
                   ([t], {"axis": -1, "select_last_index": 1}, [(7, 1037)], 13)],
        "ArgMin": [([t], {"axis": 1, "keepdims": 0}, [(5, 37, 3)], 13),
                   ([t], {"axis": -1, "select_last_index": 1}, [(7, 1037)], 13)],
        "Split": [([t], {"axis": 1, "split": [2, 5, 3]}, [(3, 10, 4)], 11),
                  ([t], {"axis": -1, "num_outputs": 3}, [(4, 7)], 18)],
        "TopK": [([t, i64], {"axis": 1}, [(5, 37, 3), [4]], 11),
                 ([t, i64], {"axis": -1, "largest": 0, "sorted": 0}, [(7, 1037), [300]], 11),
                 ([t], {"axis": -1, "k": 3}, [(4, 9)], 1)],
        "Trilu": [([t, i64], {}, [(2, 5, 7), [1]], 14), ([t, i64], {"upper": 0}, [(3, 6, 4), [-2]], 14)],
        "DepthToSpace": [([t], {"blocksize": 2}, [(2, 8, 3, 5)], 1),
                         ([t], {"blocksize": 3, "mode": "CRD"}, [(1, 18, 2, 3)], 13)],
        "SpaceToDepth": [([t], {"blocksize": 2}, [(2, 3, 4, 6)], 13)],
        "GatherElements": [([t, i64], {"axis": 1}, [(3, 5), [[0, -1, 4], [2, -5, 1]]], 13)],
        "GatherND": [([t, i64], {}, [(4, 5, 3), [[0, -1], [3, 2], [-4, 0]]], 13),
                     ([t, i64], {"batch_dims": 1}, [(2, 5, 3), [[1, 2], [-1, 0]]], 13)],
        "ScatterElements": [([t, i64, t], {"axis": 1}, [(3, 5), [[0, -1, 4], [2, -5, 1]], (2, 3)], 13)]
        + ([([t, i64, t], {"axis": 0, "reduction": r}, [(3, 4), [[0, 2, -1, 0], [0, -3, 1, 2]], (2, 4)], 18)
            for r in ("add", "mul", "max", "min")] if t != TensorProto.BOOL else []),
        "ScatterND": [([t, i64, t], {}, [(4, 5, 3), [[0, -1], [3, 2], [-4, 0]], (3, 3)], 13)]
        + ([([t, i64, t], {"reduction": "add"}, [(4, 3), [[1], [-3], [0]], (3, 3)], 18)]
           if t != TensorProto.BOOL else []),
        "Resize": _resize_cases(t),
        "NonZero": [([t], {}, [(3, 37, 5)], 13)],
        "OneHot": [([t, i64, f], {"axis": 1}, [[[0, 2, 4], [1, 3, 5]], [4], (2,)], 11)],
        "CumSum": [([t, i64], {}, [(3, 37, 5), [1]], 14),
                   ([t, i64], {"exclusive": 1, "reverse": 1}, [(7, 33), [1]], 14)],
        "Upsample": [([t, f], {"mode": m}, [(2, 3, 4, 5), [1, 1, 2, 3]], 9) for m in ("nearest", "linear")],
    }
    return cases.get(op, [])


class OpCase:
    """One op-table case: a node's op, input types, attributes, opset and its inputs."""

    def __init__(self, op: str, types: list[int], attrs: dict[str, Any], shapes: list[Any] | None = None,
                 opset: int = 0, given: list[np.ndarray | None] | None = None, tag: str = "") -> None:
        key = f"{op}({','.join(str(t) for t in types)}){json.dumps(attrs, sort_keys=True) if attrs else ''}"
        if shapes is not None:
            key += f"{shapes}@{opset}"
        rng = np.random.default_rng(SEED + len(key) * 7919 + sum(map(ord, key)))
        arrays = given if given is not None else [_values(t, rng) for t in types]
        if shapes is not None:  # a structured op: inputs of these shapes; a list of ints: an int64 axes input
            arrays = [np.array(s, dtype=helper.tensor_dtype_to_np_dtype(t)) if isinstance(s, list)
                      else np.resize(_values(t, rng), s) for t, s in zip(types, shapes)]
        if op == "Clip":
            arrays[1] = arrays[1][:1].copy()
            arrays[2] = arrays[2][:1].copy()
        self.key = key + tag
        self.op, self.types, self.attrs, self.opset, self.inputs = op, types, attrs, opset, arrays

    def outputs(self, mode: str, kernel_path: str | None) -> list[np.ndarray] | None:
        """The node's outputs on that path; None when the library does not serve these types."""
        try:
            node = Node(self.op, self.types, attributes=self.attrs, mode=mode, kernel_path=kernel_path,
                        onnx_opset=self.opset)
        except NodeError:
            return None
        return node.run_outputs(*self.inputs)


def _constant_of_shape_cases(value_types: list[int]) -> Iterator[OpCase]:
    """ConstantOfShape: a [3, 37, 5] output of a one-element `value` of each type (random bits of it), opset
    20 (bfloat16's first); the tensor attribute is set after the key, which names its type."""
    for t in value_types:
        case = OpCase("ConstantOfShape", [TensorProto.INT64], {}, opset=20,
                      given=[np.array([3, 37, 5], np.int64)], tag=f"/value:{t}")
        raw = _values(t, np.random.default_rng(SEED + t))[-1:]
        case.attrs = {"value": helper.make_tensor("value", t, [1], raw.tobytes(), raw=True)}
        yield case


def _gqa_cases() -> Iterator[OpCase]:
    """GroupQueryAttention (docs/attention.md): a right-padded packed prefill with rotary halves, a batched
    decode over separate Q/K/V and a longer past, rotary pairs with a window and softcap; ordinary values."""
    f, i32 = TensorProto.FLOAT, TensorProto.INT32
    rng = np.random.default_rng(SEED)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 1, shape).astype(np.float32)

    ang = rng.uniform(0, 6.3, (40, 8))
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    rot = {"num_heads": 4, "kv_num_heads": 2, "do_rotary": 1}
    yield OpCase("com.microsoft.GroupQueryAttention", [f, 0, 0, 0, 0, i32, i32, f, f], rot, opset=1,
                 given=[r(2, 9, 8 * 32), None, None, None, None, np.array([8, 4], np.int32),
                        np.array(9, np.int32), cos, sin], tag="prefill")
    yield OpCase("com.microsoft.GroupQueryAttention", [f, f, f, f, f, i32, i32],
                 {"num_heads": 6, "kv_num_heads": 3, "scale": 0.2}, opset=1,
                 given=[r(2, 1, 6 * 40), r(2, 1, 3 * 40), r(2, 1, 3 * 40), r(2, 3, 37, 40), r(2, 3, 37, 40),
                        np.array([36, 20], np.int32), np.array(37, np.int32)], tag="decode")
    yield OpCase("com.microsoft.GroupQueryAttention", [f, 0, 0, f, f, i32, i32, f, f],
                 {**rot, "rotary_interleaved": 1, "local_window_size": 5, "softcap": 2.5}, opset=1,
                 given=[r(1, 3, 8 * 32), None, None, r(1, 2, 12, 32), r(1, 2, 12, 32),
                        np.array([11], np.int32), np.array(12, np.int32), cos, sin], tag="chunk")


def _rotary_cases(op: str) -> Iterator[OpCase]:
    """RotaryEmbedding (docs/transformer-ops.md): com.microsoft's (B, S, N * H) halves at positions (B, S) and
    (B, N, S, H) pairs from one position; ONNX's (B, N, S, H) pairs, partial, at positions (B, S) and
    (B, S, N * H) halves without position_ids."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    rng = np.random.default_rng(SEED)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 1, shape).astype(np.float32)

    def caches(*shape: int) -> list[np.ndarray]:
        ang = rng.uniform(0, 6.3, shape)
        return [np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)]

    pos = rng.integers(0, 40, (2, 9)).astype(np.int64)
    if op == "com.microsoft.RotaryEmbedding":
        yield OpCase(op, [f, i64, f, f], {"num_heads": 4}, opset=1,
                     given=[r(2, 9, 4 * 32), pos, *caches(40, 16)], tag="/halves")
        yield OpCase(op, [f, i64, f, f], {"interleaved": 1}, opset=1,
                     given=[r(2, 3, 9, 32), np.array([5], np.int64), *caches(40, 16)], tag="/pairs")
        return
    pairs = {"interleaved": 1, "num_heads": 3, "rotary_embedding_dim": 16}
    yield OpCase(op, [f, f, f, i64], pairs, opset=23, given=[r(2, 3, 9, 32), *caches(40, 8), pos],
                 tag="/pairs")
    yield OpCase(op, [f, f, f], {"num_heads": 4}, opset=23, given=[r(2, 9, 4 * 32), *caches(2, 9, 16)],
                 tag="/halves")
def _qlinear_conv_cases(input0_types: list[int]) -> Iterator[OpCase]:
    """QLinearConv (docs/quantized-conv.md) on given inputs of ordinary scales: per-channel u8 x s8 with B
    over T = 576 and padding, per-tensor grouped and strided, int8 y, depthwise."""
    f, u8, i8, i32 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
    for t in input0_types:
        rng = np.random.default_rng(SEED + sum(map(ord, "QLinearConv")) + t)

        def arr(tt: int, shape: tuple[int, ...], lo: float = 0.01, hi: float = 0.05,
                rng: np.random.Generator = rng) -> np.ndarray:
            if tt == f:
                return rng.uniform(lo, hi, shape).astype(np.float32)
            if tt == i32:
                return rng.integers(-5000, 5000, shape).astype(np.int32)
            return np.resize(_values(tt, rng), shape)

        for tw, ty, xs, ws, attrs, per in (
                (i8, u8, (1, 64, 9, 7), (5, 64, 3, 3), {"pads": [1, 1, 1, 1]}, True),
                (u8, i8, (2, 6, 11, 8), (4, 3, 3, 2), {"group": 2, "strides": [2, 2]}, False),
                (i8, t, (1, 8, 13, 13), (8, 1, 3, 3), {"group": 8, "pads": [1, 1, 1, 1]}, True)):
            m = ws[0]
            pshape = (m,) if per else ()
            ins = [arr(t, xs), arr(f, ()), arr(t, ()), arr(tw, ws), arr(f, pshape), arr(tw, pshape),
                   arr(f, (), 0.5, 2.0), arr(ty, ()), arr(i32, (m,))]
            yield OpCase("QLinearConv", [t, f, t, tw, f, tw, f, ty, i32], attrs, opset=10, given=ins,
                         tag=f"/{ws}")


def _mha_cases() -> Iterator[OpCase]:
    """MultiHeadAttention and Attention (docs/attention.md): MHA with bias, a 2-D key mask, an attention bias
    and past; Attention as the BERT optimiser writes it (1-D mask_index), and causal over a past."""
    f, i32 = TensorProto.FLOAT, TensorProto.INT32
    rng = np.random.default_rng(SEED)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 1, shape).astype(np.float32)

    mask = np.ones((2, 11), np.int32)
    mask[1, 7:] = 0
    yield OpCase("com.microsoft.MultiHeadAttention", [f, f, f, f, i32, f, f, f], {"num_heads": 4}, opset=1,
                 given=[r(2, 5, 64), r(2, 5, 64), r(2, 5, 64), r(192), mask, r(2, 4, 5, 11), r(2, 4, 6, 16),
                        r(2, 4, 6, 16)], tag="bias-mask-past")
    yield OpCase("com.microsoft.Attention", [f, f, f, i32], {"num_heads": 4}, opset=1,
                 given=[r(2, 9, 64), r(64, 192) * np.float32(0.2), r(192), np.array([9, 6], np.int32)],
                 tag="bert")
    yield OpCase("com.microsoft.Attention", [f, f, f, 0, f], {"num_heads": 2, "unidirectional": 1}, opset=1,
                 given=[r(1, 3, 32), r(32, 96) * np.float32(0.2), r(96), None, r(2, 1, 2, 8, 16)],
                 tag="causal-past")


def _onnx_attention_cases() -> Iterator[OpCase]:
    """ONNX Attention (docs/attention.md): 3-D GQA heads, causal over a past; 4-D with a bool mask and
    softcap; opset 24's nonpad_kv_seqlen with a broadcast float mask."""
    f, b, i64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64
    rng = np.random.default_rng(SEED)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 1, shape).astype(np.float32)

    keep = rng.random((2, 1, 3, 9)) < 0.7
    keep[..., 0] = True
    yield OpCase("Attention", [f, f, f, 0, f, f], {"q_num_heads": 4, "kv_num_heads": 2, "is_causal": 1},
                 opset=23, given=[r(2, 3, 4 * 32), r(2, 3, 2 * 32), r(2, 3, 2 * 32), None, r(2, 2, 6, 32),
                                  r(2, 2, 6, 32)], tag="gqa-causal-past")
    yield OpCase("Attention", [f, f, f, b], {"softcap": 3.0, "scale": 0.2}, opset=23,
                 given=[r(2, 4, 3, 24), r(2, 2, 9, 24), r(2, 2, 9, 16), keep], tag="bool-softcap")
    yield OpCase("Attention", [f, f, f, f, 0, 0, i64], {"is_causal": 1}, opset=24,
                 given=[r(2, 2, 4, 16), r(2, 1, 12, 16), r(2, 1, 12, 16), r(4, 12), None, None,
                        np.array([12, 7], np.int64)], tag="nonpad")
    h = TensorProto.FLOAT16  # float16: widened, the f32 contract, rounded once
    yield OpCase("Attention", [h, h, h, h, h, h], {"is_causal": 1}, opset=23,
                 given=[r(*s).astype(np.float16) for s in ((2, 4, 3, 16), (2, 2, 3, 16), (2, 2, 3, 16),
                                                           (3, 8), (2, 2, 5, 16), (2, 2, 5, 16))],
                 tag="f16-past")


def _embed_layernorm_cases() -> Iterator[OpCase]:
    """EmbedLayerNormalization (docs/transformer-ops.md): BERT's form with segments and a mask; without
    segments, with [1, S] position_ids."""
    f, i32 = TensorProto.FLOAT, TensorProto.INT32
    rng = np.random.default_rng(SEED)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 1, shape).astype(np.float32)

    def ids(hi: int, *shape: int) -> np.ndarray:
        return rng.integers(0, hi, shape).astype(np.int32)

    yield OpCase("com.microsoft.EmbedLayerNormalization", [i32, i32, f, f, f, f, f, i32], {}, opset=1,
                 given=[ids(30, 2, 9), ids(2, 2, 9), r(30, 64), r(16, 64), r(2, 64), r(64), r(64),
                        ids(2, 2, 9)], tag="bert")
    yield OpCase("com.microsoft.EmbedLayerNormalization", [i32, 0, f, f, 0, f, f, 0, i32], {"epsilon": 1e-5},
                 opset=1, given=[ids(30, 3, 5), None, r(30, 40), r(8, 40), None, r(40), r(40), None,
                                 ids(8, 1, 5)], tag="position-ids")


def _gather_block_quantized_cases() -> Iterator[OpCase]:
    """GatherBlockQuantized with uint8 data (docs/transformer-ops.md): 4-bit rows with the default zero point,
    8-bit rows with packed zero points and rank-3 data."""
    u8, i32, i64, f = TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64, TensorProto.FLOAT
    rng = np.random.default_rng(SEED)

    def q(*shape: int) -> np.ndarray:
        return rng.integers(0, 256, shape).astype(np.uint8)

    def sc(*shape: int) -> np.ndarray:
        return (rng.random(shape) + 0.01).astype(np.float32)

    yield OpCase("com.microsoft.GatherBlockQuantized", [u8, i64, f], {"bits": 4, "block_size": 32}, opset=1,
                 given=[q(40, 48), np.array([[3, -1, 17], [0, 39, 5]], np.int64), sc(40, 3)], tag="4bit")
    yield OpCase("com.microsoft.GatherBlockQuantized", [u8, i32, f, u8],
                 {"bits": 8, "block_size": 16, "quantize_axis": 2}, opset=1,
                 given=[q(6, 2, 40), np.array([5, 0, -2], np.int32), sc(6, 2, 3), q(6, 2, 3)], tag="8bit-zp")
    h = TensorProto.FLOAT16  # f16 scales: the f32 product rounded to f16
    yield OpCase("com.microsoft.GatherBlockQuantized", [u8, i64, h, u8], {"bits": 4, "block_size": 16},
                 opset=1, given=[q(20, 40), np.array([7, -3, 0], np.int64), sc(20, 5).astype(np.float16),
                                 q(20, 3)], tag="4bit-f16")


def op_cases() -> Iterator[OpCase]:
    """Every case of every row of the op table, in a fixed order."""
    for row in op_table().values():
        if row.name == "Range":  # scalar inputs of its type: a range of 1037 (int) or 1088 (float) elements
            for t in sorted(row.input0_types):
                dt = np.dtype(helper.tensor_dtype_to_np_dtype(t))
                values = (-7.25, 101.5, 0.1) if dt.kind == "f" else (-1000, 2111, 3)
                yield OpCase(row.name, [t, t, t], {}, opset=11, given=[np.array(v, dt) for v in values])
            continue
        if row.key == "com.microsoft.GroupQueryAttention":
            yield from _gqa_cases()
            continue
        if row.key == "ConstantOfShape":
            yield from _constant_of_shape_cases(sorted(row.other_types))
            continue
        if row.name == "RotaryEmbedding":
            yield from _rotary_cases(row.key)
            continue
        if row.key == "QLinearConv":
            yield from _qlinear_conv_cases(sorted(row.input0_types))
            continue
        if row.key == "com.microsoft.MultiHeadAttention":
            yield from _mha_cases()
            continue
        if row.key == "com.microsoft.Attention":
            continue  # _mha_cases gives Attention's too
        if row.key == "Attention":
            yield from _onnx_attention_cases()
            continue
        if row.key == "com.microsoft.EmbedLayerNormalization":
            yield from _embed_layernorm_cases()
            continue
        if row.key == "com.microsoft.GatherBlockQuantized":
            yield from _gather_block_quantized_cases()
            continue
        if row.key == "com.microsoft.QGemm":
            yield from _qgemm_cases(sorted(row.input0_types))
            continue
        if row.key in QUANT_MATMUL_OPS:
            yield from _quant_matmul_cases(row.key, sorted(row.input0_types))
            continue
        if row.key in QLINEAR_OPS:
            yield from _qlinear_cases(row.key, sorted(row.input0_types))
            continue
        if row.key in ("QuantizeLinear", "DequantizeLinear"):
            yield from _qdq_narrow_cases(row.key)
        if row.flags & F_STRUCT:
            for t in sorted(row.input0_types):
                for types, attrs, shapes, opset in _struct_cases(row.key, t):
                    yield OpCase(row.key, types, attrs, shapes, opset)
            continue
        if row.name == "Where":  # condition bool, values of every stored type
            for vt in sorted(row.other_types):
                yield OpCase(row.name, [TensorProto.BOOL, vt, vt], {})
            continue
        for t in sorted(row.input0_types):
            if row.name == "Mod":
                for fmod in (0, 1):
                    yield OpCase(row.name, [t, t], {"fmod": fmod})
            elif row.name == "Cast":
                for to in sorted(row.input0_types):
                    yield OpCase(row.name, [t], {"to": to})
            elif row.name == "Gelu":
                for approx in ("none", "tanh"):
                    yield OpCase(row.name, [t], {"approximate": approx})
            elif row.name == "Clip":
                yield OpCase(row.name, [t, t, t], {})
            elif row.max_inputs == 1:
                yield OpCase(row.name, [t], {})
            else:
                for o in sorted(row.other_types) if row.other_types else [t]:
                    yield OpCase(row.name, [t, o], {})
    all16 = np.arange(1 << 16, dtype=np.uint16)
    for row in op_table().values():
        if row.flags & F_STRUCT or row.max_inputs != 1 or row.name in ("Cast", "CastLike"):
            continue
        for t in sorted(row.input0_types & {TensorProto.FLOAT16, TensorProto.BFLOAT16}):
            for attrs in ({"approximate": "none"}, {"approximate": "tanh"}) if row.name == "Gelu" else ({},):
                x = all16.view(np.float16) if t == TensorProto.FLOAT16 else all16
                yield OpCase(row.name, [t], attrs, given=[x], tag="/all16")


def op_digests(kernel_path: str | None = None, mode: str = "exact") -> dict[str, str]:
    """Every op-table case's output digest on one kernel path (None: the widest this CPU has)."""
    out: dict[str, str] = {}
    for case in op_cases():
        ys = case.outputs(mode, kernel_path)
        if ys is not None:
            out[case.key] = output_digest(ys)
    return out


def float_input(model_file: Path) -> tuple[str, tuple[int, ...]] | None:
    """The one float input of a vision or audio test model and its shape (0 for a symbolic dimension, the
    batch); None for a model with other inputs (the transformers)."""
    import onnx

    graph = onnx.load(str(model_file), load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if len(inputs) != 1 or inputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        return None
    return inputs[0].name, tuple(d.dim_value for d in inputs[0].type.tensor_type.shape.dim)


def model_files(testdata: Path) -> list[Path]:
    """The test models whose digests are golden: testdata/models/*.onnx and the ONNX Runtime GenAI decoders
    testdata/genai/*/model.onnx (fp32 and int4, with their external data)."""
    return sorted(testdata.glob("models/*.onnx")) + sorted(testdata.glob("genai/*/model.onnx"))


def model_key(model_file: Path) -> str:
    """A test model's name in the golden file: its stem, or a GenAI decoder's folder (llama_fp32)."""
    return model_file.parent.name if model_file.parent.parent.name == "genai" else model_file.stem


def _genai_feeds(model_file: Path, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A GenAI decoder's prefill on an empty KV cache: a batch of 2 prompts of 5 token ids (the cache's head
    count and size from the genai_config.json beside the model)."""
    import json

    import onnx

    decoder = json.loads((model_file.parent / "genai_config.json").read_text())["model"]["decoder"]
    kv_shape = (2, int(decoder["num_key_value_heads"]), 0, int(decoder["head_size"]))
    graph = onnx.load(str(model_file), load_external_data=False).graph
    feeds = {"input_ids": rng.integers(0, 256, size=(2, 5), dtype=np.int64),
             "attention_mask": np.ones((2, 5), dtype=np.int64)}
    for i in graph.input:
        if i.name.startswith("past_key_values."):
            feeds[i.name] = np.zeros(kv_shape, dtype=np.float32)
    return feeds


def model_feeds(model_file: Path) -> dict[str, np.ndarray]:
    """The fixed feeds of a test model (model_files): token ids of a batch of 2 x 9 and a padding mask for
    the transformers (an `input_ids` input); for a model with one float input (the CNNs, unet_small,
    crnn_small, audio_gru_small) standard normal values of its shape with the batch (its one symbolic
    dimension) 2; for a GenAI decoder a prefill of 2 x 5 token ids on an empty cache."""
    rng = np.random.default_rng(7)
    if model_file.parent.parent.name == "genai":
        return _genai_feeds(model_file, rng)
    single = float_input(model_file)
    if single is not None:
        name, shape = single
        return {name: rng.standard_normal(tuple(d or 2 for d in shape)).astype(np.float32)}
    feeds = {"input_ids": rng.integers(0, 256, size=(2, 9), dtype=np.int64)}
    if "bert" in model_file.name:
        feeds["attention_mask"] = np.ones((2, 9), dtype=np.int64)
        feeds["attention_mask"][1, 6:] = 0
    return feeds


def model_digest(model_file: Path, kernel_path: str | None = None, via: str = "ep", threads: int = 1,
                 mode: str = "exact") -> str:
    """The output digest of a test model on its fixed feeds, through OneModel EP or the rewrite."""
    import onnxruntime as ort

    from onemodel_ep.session import InferenceSession

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3  # no "nodes not assigned" warning per session
    sess = InferenceSession(str(model_file), so, mode=mode, kernel_path=kernel_path, via=via)
    return output_digest(sess.run(None, model_feeds(model_file)))


def golden_document(ops: dict[str, str], models: dict[str, str]) -> dict[str, Any]:
    return {"bits_version": BITS_VERSION, "mode": "exact", "ops": ops, "models": models}
