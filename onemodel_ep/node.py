"""Direct calls of library nodes from Python, without ORT (tests and tools use this)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from onemodel_ep._lib import MODES, ffi, lib, path_index

_ERR_LEN = 1024


class NodeError(ValueError):
    """The library refused a node or a run; the message names node, op and type."""


# The run calls' parallel_for and host_ctx: no host thread pool, the node runs on the calling thread.
_NO_POOL = (ffi.NULL, ffi.NULL)


def _checked(fn: Any, *args: Any) -> None:
    """Call the library function `fn` with `args` and an error buffer (its last two parameters); a NodeError
    with the library's message when it returns nonzero."""
    err = ffi.new("char[]", _ERR_LEN)
    if fn(*args, err, _ERR_LEN) != 0:
        raise NodeError(ffi.string(err).decode(errors="replace"))


def _attrs(mode: str, kernel_path: str | None, onnx_opset: int, attributes: dict[str, Any],
           n_outputs: int = 0) -> Any:
    if mode not in MODES:
        raise ValueError(f"mode must be 'exact' or 'fast', got {mode!r}")
    a = ffi.new("om_attrs*")
    a.mode = MODES.index(mode)
    a.path = path_index(kernel_path)
    a.onnx_opset = onnx_opset
    a.n_outputs = n_outputs
    if "fmod" in attributes:
        a.fmod = int(attributes["fmod"])
        a.has_fmod = 1
    if "approximate" in attributes:
        approx = attributes["approximate"]
        a.approximate = 1 if approx in ("tanh", b"tanh") else 0
    if "mode" in attributes:  # Pad's
        pad_mode = attributes["mode"]
        pad_mode = pad_mode.decode() if isinstance(pad_mode, bytes) else str(pad_mode)
        a.pad_mode = _PAD_MODES.index(pad_mode) if pad_mode in _PAD_MODES else -1
        a.has_pad_mode = 1
        a.depth_mode = _DEPTH_MODES.index(pad_mode) if pad_mode in _DEPTH_MODES else -1  # DepthToSpace's
        a.has_depth_mode = 1
    if "reduction" in attributes:  # ScatterElements', ScatterND's
        red = attributes["reduction"]
        red = red.decode() if isinstance(red, bytes) else str(red)
        a.scatter_reduction = _SCATTER_REDUCTIONS.index(red) if red in _SCATTER_REDUCTIONS else -1
        a.has_scatter_reduction = 1
    if "equation" in attributes:  # Einsum's
        eq = attributes["equation"]
        eq = eq if isinstance(eq, bytes) else str(eq).encode()
        if len(eq) >= len(a.equation):
            raise NodeError(f"attribute 'equation' has {len(eq)} bytes, more than {len(a.equation) - 1}")
        a.equation = eq
        a.has_equation = 1
    if "to" in attributes:
        a.to = int(attributes["to"])
        a.has_to = 1
    for name in ("detect_positive", "detect_negative"):
        if name in attributes:
            setattr(a, name, int(attributes[name]))
            setattr(a, "has_" + name, 1)
    for name in ("alpha", "beta", "gamma", "min", "max", "epsilon", "clip", "lambd", "bias", "cubic_coeff_a"):
        if name in attributes:
            setattr(a, name, float(attributes[name]))
            setattr(a, "has_" + name, 1)
    for onnx_name, field in _INT_ATTRS.items():
        if onnx_name in attributes:
            setattr(a, field, int(attributes[onnx_name]))
            setattr(a, "has_" + field, 1)
    for onnx_name, field in _NBITS_ATTRS.items():
        if onnx_name in attributes:
            setattr(a, field, int(attributes[onnx_name]))
            setattr(a, "has_" + field, 1)
    for name in _GQA_ATTRS:
        if name in attributes:
            value = attributes[name]
            setattr(a, name, float(value) if name in _GQA_FLOAT_ATTRS else int(value))
            setattr(a, "has_" + name, 1)
    _conv_attrs(a, attributes)
    _resize_attrs(a, attributes)
    _rnn_attrs(a, attributes)
    _value_attr(a, attributes)
    if "axes" in attributes:
        listed = [int(v) for v in attributes["axes"]]
        axes = list(dict.fromkeys(listed))  # repeats name an axis once
        if len(axes) > len(a.axes):
            raise NodeError(f"attribute 'axes' names {len(axes)} distinct axes, more than any rank allows")
        for i, v in enumerate(axes):
            a.axes[i] = v
        a.n_axes = len(axes)
        a.n_axes_listed = len(listed)
        a.has_axes = 1
    for name in _LIST_ATTRS:
        if name in attributes:
            values = [int(v) for v in attributes[name]]
            cap = len(getattr(a, name))
            if len(values) > cap:
                raise NodeError(f"attribute '{name}' has {len(values)} entries, more than {cap}")
            for i, v in enumerate(values):
                getattr(a, name)[i] = v
            setattr(a, "n_" + name, len(values))
            setattr(a, "has_" + name, 1)
    return a


# com.microsoft MatMulNBits' attributes: ONNX name -> om_attrs field (block_size: QuantizeLinear's field).
_NBITS_ATTRS = {
    "K": "nbits_k",
    "N": "nbits_n",
    "bits": "nbits_bits",
    "accuracy_level": "nbits_accuracy_level",
}
# com.microsoft GroupQueryAttention's, MultiHeadAttention's and Attention's attributes, and ONNX Attention's
# (the om_attrs field has the ONNX name; docs/attention.md).
_GQA_ATTRS = ("num_heads", "kv_num_heads", "scale", "do_rotary", "rotary_interleaved", "local_window_size",
              "softcap", "smooth_softmax", "qk_output", "kv_cache_bit_width", "sliding_window_cache",
              "causal", "unidirectional", "mask_filter_value", "past_present_share_buffer",
              "rotary_embedding_dim", "is_causal", "q_num_heads", "qk_matmul_output_mode",
              "softmax_precision")
_GQA_FLOAT_ATTRS = ("scale", "softcap", "mask_filter_value")
# Pad's mode values, in om_attrs.pad_mode's numbering.
_PAD_MODES = ("constant", "reflect", "edge", "wrap")
# ScatterElements' and ScatterND's reduction values, in om_attrs.scatter_reduction's numbering.
_SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")
# DepthToSpace's mode values, in om_attrs.depth_mode's numbering.
_DEPTH_MODES = ("DCR", "CRD")


# Whether the installed ONNX Runtime's kernels read a list of strings (C API member 417, ORT 1.30+): else a
# node with `activations` is left to stock ORT, as the execution provider leaves it (ort/ort_attrs_lists.c).
_ORT_READS_STRING_LISTS = tuple(int(v) for v in ort.__version__.split(".")[:2]) >= (1, 30)

# LSTM's and GRU's direction values, in om_attrs.rnn_direction's numbering.
_RNN_DIRECTIONS = ("forward", "reverse", "bidirectional")


def _value_attr(a: Any, attributes: dict[str, Any]) -> None:
    """The tensor attribute `value` (ConstantOfShape's: a TensorProto, or an array) into om_attrs' value_*:
    its element type, element count and first element's bytes, as the ORT glue reads it."""
    value = attributes.get("value")
    if isinstance(value, onnx.TensorProto):
        elem_type, array = int(value.data_type), numpy_helper.to_array(value)
    elif isinstance(value, np.ndarray):  # not Pad-2's float `value`, which only Pad reads
        elem_type, array = onnx_type_of(value), value
    else:
        return
    a.has_value = 1
    a.value_type = elem_type
    a.value_n = int(array.size)
    if array.size and array.dtype.itemsize <= 8 and array.dtype.kind != "O":
        first = np.ascontiguousarray(array.reshape(-1)[:1]).tobytes()
        ffi.memmove(a.value_bytes, first, len(first))


def _rnn_attrs(a: Any, attributes: dict[str, Any]) -> None:
    """RNN's, LSTM's and GRU's string and list attributes: direction, activations (coded by the library,
    om_rnn_activation_code), activation_alpha and activation_beta."""
    if "direction" in attributes:
        d = attributes["direction"]
        d = d.decode() if isinstance(d, bytes) else str(d)
        a.rnn_direction = _RNN_DIRECTIONS.index(d) if d in _RNN_DIRECTIONS else -1
    if "activations" in attributes and not _ORT_READS_STRING_LISTS:
        a.n_rnn_acts = int(ffi.cast("size_t", -1))  # its kernel could not read the list: not served
    elif "activations" in attributes:
        names = [v.decode() if isinstance(v, bytes) else str(v) for v in attributes["activations"]]
        for i, name in enumerate(names[: len(a.rnn_acts)]):
            a.rnn_acts[i] = lib.om_rnn_activation_code(name.encode())
        a.n_rnn_acts = len(names)
    for onnx_name, field in (("activation_alpha", "rnn_act_alpha"), ("activation_beta", "rnn_act_beta")):
        if onnx_name in attributes:
            values = [float(v) for v in attributes[onnx_name]]
            for i, v in enumerate(values[: len(getattr(a, field))]):
                getattr(a, field)[i] = v
            setattr(a, "n_" + field, len(values))


# Conv's auto_pad values, in om_attrs.auto_pad's numbering.
_AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def _conv_attrs(a: Any, attributes: dict[str, Any]) -> None:
    """Conv's group, auto_pad and lists (kernel_shape, strides, dilations, pads; ConvTranspose's
    output_padding, output_shape) into the om_attrs `a`."""
    if "group" in attributes:
        a.group = int(attributes["group"])
        a.has_group = 1
    if "auto_pad" in attributes:
        pad = attributes["auto_pad"]
        pad = pad.decode() if isinstance(pad, bytes) else str(pad)
        if pad not in _AUTO_PADS:
            raise NodeError(f"attribute 'auto_pad' must be one of {', '.join(_AUTO_PADS)}, got {pad!r}")
        a.auto_pad = _AUTO_PADS.index(pad)
    for name in ("kernel_shape", "strides", "dilations", "pads", "output_padding", "output_shape"):
        if name in attributes:
            values = [int(v) for v in attributes[name]]
            field = getattr(a, name)
            if len(values) > len(field):
                raise NodeError(f"attribute '{name}' has {len(values)} entries, more than {len(field)}")
            for i, v in enumerate(values):
                field[i] = v
            setattr(a, "n_" + name, len(values))
            setattr(a, "has_" + name, 1)


# Resize's and Upsample's string attributes: ONNX name -> om_attrs field; the library gives each value's code.
_RESIZE_ATTRS = {
    "mode": "resize_mode",
    "coordinate_transformation_mode": "resize_coord",
    "nearest_mode": "resize_nearest",
    "keep_aspect_ratio_policy": "resize_aspect",
}


def _resize_attrs(a: Any, attributes: dict[str, Any]) -> None:
    """Resize's string attributes into the om_attrs `a`, coded by the library (om_resize_attr_code)."""
    for onnx_name, field in _RESIZE_ATTRS.items():
        if onnx_name in attributes:
            value = attributes[onnx_name]
            value = value.decode() if isinstance(value, bytes) else str(value)
            setattr(a, field, lib.om_resize_attr_code(onnx_name.encode(), value.encode()))


# List attributes of the data-movement ops (64 entries at most; Split's split 256), each with n_<name> and
# has_<name>.
_LIST_ATTRS = ("perm", "starts", "ends", "split", "qkv_hidden_sizes")


# Integer attributes of the structured ops: ONNX name -> om_attrs field.
_INT_ATTRS = {
    "transA": "trans_a",
    "transB": "trans_b",
    "axis": "axis",
    "p": "p",
    "size": "lrn_size",
    "exclusive": "exclusive",
    "reverse": "reverse",
    "stash_type": "stash_type",
    "mask_index_type": "mask_index_type",
    "gather_axis": "gather_axis",
    "quantize_axis": "quantize_axis",
    "is_inner_broadcast": "is_inner_broadcast",
    "opset": "softmax_opset",  # com.microsoft QLinearSoftmax
    "keepdims": "keepdims",
    "noop_with_empty_axes": "noop_with_empty_axes",
    "training_mode": "training_mode",
    "select_last_index": "select_last_index",
    "ceil_mode": "ceil_mode",
    "storage_order": "storage_order",
    "count_include_pad": "count_include_pad",
    "allowzero": "allowzero",
    "start": "start",
    "end": "end",
    "block_size": "block_size",
    "output_dtype": "output_dtype",
    "precision": "precision",
    "saturate": "saturate",
    "num_outputs": "num_outputs",
    "upper": "upper",
    "blocksize": "blocksize",
    "batch_dims": "batch_dims",
    "num_groups": "num_groups",
    "antialias": "antialias",
    "exclude_outside": "exclude_outside",
    "hidden_size": "hidden_size",
    "layout": "layout",
    "input_forget": "input_forget",
    "linear_before_reset": "linear_before_reset",
    "interleaved": "interleaved",
    "rotary_embedding_dim": "rotary_embedding_dim",
    "is_packed_batching": "is_packed_batching",
    "transBatchA": "trans_batch_a",
    "transBatchB": "trans_batch_b",
    "channels_last": "channels_last",
    "k": "topk_k",
    "largest": "largest",
    "sorted": "sorted",
}


def probe(op: str, input_types: Sequence[int], **options: Any) -> str | None:
    """None when the library serves this node; otherwise the library's reason. `options`: Node's keyword
    options (onnx_opset, attributes, mode, kernel_path, name, n_outputs)."""
    try:
        Node(op, input_types, **{"name": "", **options})
    except NodeError as e:
        return str(e)
    return None


class Node:
    """A library node bound to input types; `run` computes it on NumPy arrays."""

    def __init__(
        self,
        op: str,
        input_types: Sequence[int],
        *,
        onnx_opset: int = 0,
        attributes: dict[str, Any] | None = None,
        mode: str = "exact",
        kernel_path: str | None = None,
        name: str = "node",
        n_outputs: int = 0,
    ) -> None:
        """`n_outputs`: the outputs the node has in its graph (Split's count), 0 if unknown."""
        err = ffi.new("char[]", _ERR_LEN)
        types = ffi.new("int[]", list(input_types) or [0])
        ptr = lib.om_node_create(
            name.encode(),
            op.encode(),
            len(input_types),
            types,
            _attrs(mode, kernel_path, onnx_opset, attributes or {}, n_outputs),
            err,
            _ERR_LEN,
        )
        if ptr == ffi.NULL:
            raise NodeError(ffi.string(err).decode(errors="replace"))
        self._ptr = ffi.gc(ptr, lib.om_node_destroy)
        self.op = op
        self.n_inputs = len(input_types)
        self.output_type = int(lib.om_node_output_type(self._ptr))
        # the element type of every output the node can have (structured ops: their optional outputs too)
        self.output_types = [
            int(lib.om_node_output_type_at(self._ptr, k)) for k in range(lib.om_node_output_count(self._ptr))
        ]

    def _marshal(self, inputs: Sequence[np.ndarray | None]) -> tuple[int, Any, Any, Any, list[Any]]:
        """The inputs as the library's data, shapes and ranks arrays, and the objects that keep them alive."""
        if len(inputs) != self.n_inputs:
            raise ValueError(f"{self.op}: {len(inputs)} inputs given, node has {self.n_inputs}")
        # np.asarray(order="C"), not np.ascontiguousarray: that one turns a rank-0 array into shape (1,).
        arrays = [None if x is None else np.asarray(x, order="C") for x in inputs]
        n = len(arrays)
        keep: list[Any] = []
        data = ffi.new("void*[]", max(n, 1))
        shapes = ffi.new("int64_t*[]", max(n, 1))
        ranks = ffi.new("size_t[]", max(n, 1))
        for i, a in enumerate(arrays):
            if a is None:
                data[i] = ffi.NULL
                shapes[i] = ffi.NULL
                ranks[i] = 0
                continue
            shp = ffi.new("int64_t[]", list(a.shape) or [0])
            keep.append(shp)
            shapes[i] = shp
            ranks[i] = a.ndim
            if _is_4bit(a.dtype):  # the library's int4 / uint4: two values a byte, the first in the low half
                a = _pack4(a)
                arrays[i] = a
            # A zero-size array may have no buffer; the library never reads it.
            data[i] = ffi.cast("void*", a.ctypes.data) if a.size else ffi.cast("void*", 1)
        return n, data, shapes, ranks, keep + arrays

    def run(self, *inputs: np.ndarray | None, out: np.ndarray | None = None) -> np.ndarray:
        """The node's output for `inputs` (None for an absent optional input), written into `out` when given
        (a writable C-contiguous array of the output's shape and type, returned) or into a new array."""
        n, data, shapes, ranks, _keep = self._marshal(inputs)
        out_shape = ffi.new("int64_t[]", lib.OM_NODE_MAX_RANK)
        out_rank = ffi.new("size_t*")
        _checked(lib.om_node_output_shape, self._ptr, n, shapes, ranks, out_shape, out_rank)
        shape = tuple(out_shape[d] for d in range(out_rank[0]))
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(self.output_type))
        if out is None:
            out = np.empty(shape, dtype=dtype)
        elif (
            out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous or not out.flags.writeable
        ):
            raise ValueError(
                f"{self.op}: out must be a writable C-contiguous {dtype} array of shape {shape}, "
                f"got {out.dtype} of shape {out.shape}"
            )
        out_ptr = ffi.cast("void*", out.ctypes.data) if out.size else ffi.cast("void*", 1)
        rank = out_rank[0]
        _checked(lib.om_node_run, self._ptr, n, data, shapes, ranks, out_ptr, out_shape, rank, *_NO_POOL)
        return out

    def _output_shapes(
        self, count: int, n: int, data: Any, shapes: Any, ranks: Any
    ) -> tuple[Any, Any, list[tuple[tuple[int, ...], np.dtype[Any]]]]:
        """om_node_output_shapes' arrays for the first `count` outputs, and each one's shape and dtype."""
        out_shapes = ffi.new("int64_t[]", lib.OM_NODE_MAX_RANK * max(count, 1))
        out_ranks = ffi.new("size_t[]", max(count, 1))
        _checked(lib.om_node_output_shapes, self._ptr, n, data, shapes, ranks, count, out_shapes, out_ranks)
        found = []
        for k in range(count):
            shape = tuple(int(out_shapes[lib.OM_NODE_MAX_RANK * k + d]) for d in range(out_ranks[k]))
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(int(lib.om_node_output_type_at(self._ptr, k))))
            found.append((shape, dtype))
        return out_shapes, out_ranks, found

    def output_shapes(
        self, *inputs: np.ndarray | None, n_outputs: int | None = None
    ) -> list[tuple[tuple[int, ...], np.dtype[Any]]]:
        """The shape and dtype of each of the first `n_outputs` outputs (by default all the node can have)
        for `inputs`, computing nothing (om_node_output_shapes)."""
        count = int(lib.om_node_output_count(self._ptr)) if n_outputs is None else n_outputs
        n, data, shapes, ranks, _keep = self._marshal(inputs)
        return self._output_shapes(count, n, data, shapes, ranks)[2]

    def run_outputs(self, *inputs: np.ndarray | None, n_outputs: int | None = None) -> list[np.ndarray]:
        """Every output of the node (the first `n_outputs`, by default all it can have) for `inputs`, through
        om_node_output_shapes / om_node_run_outputs (multi-output and structured nodes)."""
        count = int(lib.om_node_output_count(self._ptr)) if n_outputs is None else n_outputs
        n, data, shapes, ranks, _keep = self._marshal(inputs)
        out_shapes, out_ranks, found = self._output_shapes(count, n, data, shapes, ranks)
        outs: list[np.ndarray] = []
        ptrs = ffi.new("void*[]", max(count, 1))
        for k, (shape, dtype) in enumerate(found):
            o = np.empty(shape, dtype=dtype)
            if _is_4bit(dtype):  # written packed: a buffer of half the bytes, unpacked below
                o = np.empty((int(np.prod(shape)) + 1) // 2, np.uint8)
            outs.append(o)
            ptrs[k] = ffi.cast("void*", o.ctypes.data) if o.size else ffi.cast("void*", 1)
        args = (self._ptr, n, data, shapes, ranks, count, ptrs, out_shapes, out_ranks)
        _checked(lib.om_node_run_outputs, *args, *_NO_POOL)
        return [_unpack4(o, shape, dtype) if _is_4bit(dtype) else o
                for o, (shape, dtype) in zip(outs, found, strict=True)]


def _is_4bit(dtype: np.dtype[Any]) -> bool:
    return dtype.name in ("int4", "uint4")  # ml_dtypes' (onnx's numpy type for TensorProto.INT4, UINT4)


def _pack4(a: np.ndarray) -> np.ndarray:
    """An int4 / uint4 array (one value a byte, as ml_dtypes holds it) packed two a byte, the first value in
    the low four bits, an odd count's last high half 0 (ONNX's layout, the library's)."""
    v = a.reshape(-1).view(np.uint8) & np.uint8(0xF)
    if v.size % 2:
        v = np.append(v, np.uint8(0))
    return np.ascontiguousarray(v[0::2] | (v[1::2] << np.uint8(4)))


def _unpack4(p: np.ndarray, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """Packed int4 / uint4 bytes back to one value a byte of `dtype` (ml_dtypes' four low bits)."""
    v = np.stack([p & np.uint8(0xF), p >> np.uint8(4)], axis=1).reshape(-1)[: int(np.prod(shape))]
    return np.ascontiguousarray(v).view(dtype).reshape(shape)


def onnx_type_of(array: np.ndarray) -> int:
    return int(helper.np_dtype_to_tensor_dtype(array.dtype))


__all__ = ["Node", "NodeError", "probe", "onnx_type_of", "onnx"]
