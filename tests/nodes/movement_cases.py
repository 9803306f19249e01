"""Cases of the data-movement ops (node_reshape.c, node_shape.c, node_transpose.c, node_concat.c,
node_gather.c, node_slice.c, node_expand.c) and the models that run them: one ONNX node per case, its
integer inputs (shape, axes, starts ...) either initializers or fed at run time.

Data are random bit patterns of each stored type (NaNs with any payload, signalling ones, infinities,
subnormals included), so that an output compared byte for byte shows any element not copied as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BF16 = np.dtype(ml_dtypes.bfloat16)
STORED = tuple(
    np.dtype(t)
    for t in (
        np.float32,
        np.float16,
        np.float64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.bool_,
    )
) + (BF16,)
FLOATS = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64))


def onnx_type(dtype: np.dtype) -> int:
    return TensorProto.BFLOAT16 if dtype == BF16 else int(helper.np_dtype_to_tensor_dtype(dtype))


def types_at(op: str, opset: int) -> tuple[np.dtype, ...]:
    """The stored types ONNX allows for op at opset (bfloat16 from 13, Flatten's non-float types from 9)."""
    out = [t for t in STORED if t != BF16 or opset >= 13]
    if op == "Flatten" and opset < 9:
        out = [t for t in out if t in FLOATS]
    return tuple(out)


def bits(shape: Sequence[int], dtype: np.dtype, seed: int) -> np.ndarray:
    """Random bits of `dtype` in `shape` (bool: 0 or 1)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


@dataclasses.dataclass
class Case:
    """One node: input 0 (data), the other inputs, each fed at run time or an initializer ("const"),
    attributes, and the expected outputs (computed with NumPy on the bits)."""

    op: str
    opset: int
    inputs: list[np.ndarray | None]
    const: list[bool]
    attrs: dict[str, object]
    want: list[np.ndarray]

    def label(self) -> str:
        shapes = [None if x is None else (x.dtype.name, x.shape) for x in self.inputs]
        return f"{self.op}-{self.opset} {shapes} {self.attrs} const={self.const}"


def model_of(cases: Sequence[Case], opset: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One model with a node per case (named n<k>), and its feeds."""
    nodes, inputs, outputs, inits, feeds = [], [], [], [], {}
    for k, c in enumerate(cases):
        names = []
        for i, (x, const) in enumerate(zip(c.inputs, c.const)):
            if x is None:
                names.append("")
                continue
            name = f"x{k}_{i}"
            names.append(name)
            if const:
                inits.append(
                    numpy_helper.from_array(x, name)
                    if x.dtype != BF16
                    else helper.make_tensor(name, TensorProto.BFLOAT16, x.shape, x.tobytes(), raw=True)
                )
            else:
                feeds[name] = x
                inputs.append(helper.make_tensor_value_info(name, onnx_type(x.dtype), list(x.shape)))
        outs = [f"y{k}_{o}" for o in range(len(c.want))]
        for name, w in zip(outs, c.want):
            outputs.append(helper.make_tensor_value_info(name, onnx_type(w.dtype), None))
        nodes.append(helper.make_node(c.op, names, outs, name=f"n{k}", **c.attrs))
    graph = helper.make_graph(nodes, "movement", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", opset)])
    return model, feeds


# ---- the cases of each op at an opset ---------------------------------------------------------------
I64_MAX, I64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def _typed(base: list[tuple], op: str, opset: int) -> list[tuple[np.dtype, tuple]]:
    """Each base case with a type: every type for the first two, then the types in turn."""
    types = types_at(op, opset)
    out = []
    for i, b in enumerate(base):
        chosen = types if i < 2 else (types[(i * 5) % len(types)], types[(i * 5 + 3) % len(types)])
        out += [(t, b) for t in chosen]
    return out


def _ints(values: Sequence[int], dtype: type = np.int64) -> np.ndarray:
    return np.array(values, dtype=dtype)


def reshape_cases(opset: int) -> list[Case]:
    base = [
        ((2, 3, 4), [4, 6], 0, (4, 6)),
        ((2, 3, 4), [-1], 0, (24,)),
        ((2, 3, 4), [0, -1], 0, (2, 12)),
        ((2, 3, 4), [2, 0, 2, 2], 0, (2, 3, 2, 2)),
        ((), [1, 1], 0, (1, 1)),
        ((1,), [], 0, ()),
        ((0, 3), [-1, 3], 0, (0, 3)),
        ((4, 0, 2), [0, 0, 2], 0, (4, 0, 2)),
        ((3, 5, 7), [7, -1, 1], 0, (7, 15, 1)),
    ]
    if opset >= 14:
        base += [((0, 3), [0, 3], 1, (0, 3)), ((2, 3), [3, 2], 1, (3, 2)), ((2, 0), [0, 5], 1, (0, 5))]
    out = []
    for k, (t, (xs, shape, allowzero, ws)) in enumerate(_typed(base, "Reshape", opset)):
        x = bits(xs, t, k)
        attrs = {"allowzero": allowzero} if allowzero else {}
        out.append(Case("Reshape", opset, [x, _ints(shape)], [False, k % 2 == 0], attrs, [x.reshape(ws)]))
    return out


def unsqueeze_cases(opset: int) -> list[Case]:
    base = [
        ((2, 3), [0], (1, 2, 3)),
        ((2, 3), [2, 0], (1, 2, 1, 3)),
        ((), [0], (1,)),
        ((3,), [0, 1, 2], (1, 1, 1, 3)),
        ((2, 0), [1], (2, 1, 0)),
    ]
    if opset >= 11:
        base += [((2, 3), [-1], (2, 3, 1)), ((2, 3), [1, -1], (2, 1, 3, 1))]
    return _axes_cases("Unsqueeze", opset, base)


def squeeze_cases(opset: int) -> list[Case]:
    base = [
        ((1, 3, 1), [0], (3, 1)),
        ((1, 3, 1), None, (3,)),
        ((1,), [0], ()),
        ((1, 1), None, ()),
        ((0, 1), [1], (0,)),
        ((2, 3), None, (2, 3)),
        ((1, 2, 1, 1), [2, 0, 3], (2,)),
    ]
    if opset >= 11:
        base += [((1, 3, 1), [-1, 0], (3,))]
    return _axes_cases("Squeeze", opset, base)


def _axes_cases(op: str, opset: int, base: list[tuple]) -> list[Case]:
    out = []
    for k, (t, (xs, axes, ws)) in enumerate(_typed(base, op, opset)):
        x = bits(xs, t, k)
        if axes is None:
            out.append(Case(op, opset, [x], [False], {}, [x.reshape(ws)]))
        elif opset < 13:
            out.append(Case(op, opset, [x], [False], {"axes": axes}, [x.reshape(ws)]))
        else:
            out.append(Case(op, opset, [x, _ints(axes)], [False, k % 2 == 0], {}, [x.reshape(ws)]))
    return out


def flatten_cases(opset: int) -> list[Case]:
    base = [((2, 3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4), 3), ((5,), 1), ((2, 0, 3), 2), ((2, 3, 4), None)]
    if opset >= 11:
        base += [((2, 3, 4), -1), ((2, 3, 4), -3)]
    out = []
    for k, (t, (xs, axis)) in enumerate(_typed(base, "Flatten", opset)):
        x = bits(xs, t, k)
        a = 1 if axis is None else axis % (len(xs) + 1) if axis >= 0 else axis + len(xs)
        ws = (int(np.prod(xs[:a], dtype=np.int64)), int(np.prod(xs[a:], dtype=np.int64)))
        out.append(
            Case("Flatten", opset, [x], [False], {} if axis is None else {"axis": axis}, [x.reshape(ws)])
        )
    return out


def identity_cases(opset: int) -> list[Case]:
    base = [(2, 3), (), (0, 4), (7,)]
    return [
        Case("Identity", opset, [bits(xs, t, k)], [False], {}, [bits(xs, t, k)])
        for k, (t, xs) in enumerate(_typed(base, "Identity", opset))
    ]


def shape_cases(opset: int) -> list[Case]:
    base: list[tuple] = [((2, 3, 4), {}), ((), {}), ((0, 5), {})]
    if opset >= 15:
        base += [
            ((2, 3, 4), {"start": 1}),
            ((2, 3, 4), {"end": -1}),
            ((2, 3, 4), {"start": -2, "end": 10}),
            ((2, 3, 4), {"start": 5}),
            ((2, 3, 4), {"start": 2, "end": 1}),
            ((2, 3, 4), {"start": -9}),
        ]
    out = []
    for k, (t, (xs, attrs)) in enumerate(_typed(base, "Shape", opset)):
        s = slice(attrs.get("start", 0), attrs.get("end", None))
        out.append(Case("Shape", opset, [bits(xs, t, k)], [False], attrs, [np.array(xs, np.int64)[s]]))
    return out


def transpose_cases(opset: int) -> list[Case]:
    base = [
        ((2, 3, 4), None),
        ((2, 3, 4), [1, 0, 2]),
        ((2, 3, 4), [2, 0, 1]),
        ((5,), [0]),
        ((), None),
        ((0, 3), [1, 0]),
        ((2, 1, 3, 1, 2), [4, 2, 0, 3, 1]),
        ((64, 33, 40), [2, 1, 0]),
        ((3, 70000), [1, 0]),
    ]
    out = []
    for k, (t, (xs, perm)) in enumerate(_typed(base, "Transpose", opset)):
        x = bits(xs, t, k)
        out.append(
            Case(
                "Transpose",
                opset,
                [x],
                [False],
                {} if perm is None else {"perm": perm},
                [np.array(np.transpose(x, perm))],
            )
        )
    return out


def concat_cases(opset: int) -> list[Case]:
    base = [
        ([(2, 3), (4, 3)], 0),
        ([(2, 3), (2, 1), (2, 0)], 1),
        ([(0, 3), (0, 3)], 0),
        ([(3,), (0,), (2,)], 0),
        ([(2, 3, 4), (2, 5, 4), (2, 1, 4), (2, 2, 4)], 1),
    ]
    if opset >= 11:
        base += [([(2, 3)], -1), ([(1, 2, 3), (1, 2, 3), (1, 2, 3)], -2)]
    out = []
    for k, (t, (shapes, axis)) in enumerate(_typed(base, "Concat", opset)):
        xs = [bits(s, t, k * 10 + i) for i, s in enumerate(shapes)]
        const = [i == 1 for i in range(len(xs))]  # an initializer among fed inputs
        out.append(Case("Concat", opset, list(xs), const, {"axis": axis}, [np.concatenate(xs, axis=axis)]))
    return out


def gather_cases(opset: int) -> list[Case]:
    base = [
        ((5, 4), [0, 4, -1, -5, 2], 0),
        ((5, 4), [[1, 3], [0, -4]], 1),
        ((3, 4, 5), 2, 1),
        ((3, 4, 5), [], 2),
        ((0, 4), [], 0),
        ((2, 3), [[[1]]], 1),
        ((300, 400), list(range(-150, 150, 3)), 0),
    ]
    if opset >= 11:
        base += [((3, 4, 5), [4, -5], -1)]
    out = []
    for k, (t, (xs, idx, axis)) in enumerate(_typed(base, "Gather", opset)):
        x = bits(xs, t, k)
        ind = _ints(idx, np.int32 if k % 3 == 1 else np.int64)
        if ind.ndim == 1 and ind.size == 0:
            ind = ind.reshape(0)
        attrs = {} if axis == 0 and k % 2 else {"axis": axis}
        out.append(Case("Gather", opset, [x, ind], [False, k % 2 == 0], attrs, [np.take(x, ind, axis=axis)]))
    return out


def onnx_slice(
    x: np.ndarray, starts: list[int], ends: list[int], axes: list[int] | None, steps: list[int] | None
) -> np.ndarray:
    """ONNX's Slice, written from the operator's documentation, with stock ORT's reading of an end of
    INT32_MAX or INT64_MAX with a negative step: through element 0 (NumPy's x[start::step])."""
    sl = [slice(None)] * x.ndim
    for i, (b, e) in enumerate(zip(starts, ends)):
        a = axes[i] % x.ndim if axes is not None else i
        s = steps[i] if steps is not None else 1
        d = x.shape[a]
        b, e = b + d if b < 0 else b, e + d if e < 0 else e
        if s > 0:
            b, e = min(max(b, 0), d), min(max(e, 0), d)
            sl[a] = slice(b, e, s)
        else:
            b, e = min(max(b, 0), d - 1), -1 if ends[i] in (2**31 - 1, I64_MAX) else min(max(e, -1), d - 1)
            idx = list(range(b, e, s)) if d else []
            sl[a] = idx if idx else slice(0, 0)  # type: ignore[call-overload]
    out = x
    for a, s in enumerate(sl):  # one axis at a time: a list index on several axes would pair them up
        out = out[(slice(None),) * a + (s,)]
    return np.array(out)


def slice_cases(opset: int) -> list[Case]:
    base: list[tuple] = [
        ((5, 6), [1], [4], None, None),
        ((5, 6), [0, 1], [5, 5], [0, 1], None),
        ((5, 6), [10], [20], [1], None),
        ((3, 0, 2), [0], [1], [1], None),
        ((4, 5, 6), [1, -1], [3, -4], [2, 0], None),
        ((5, 6), [-100], [100], [0], None),
        ((5, 6), [0, I64_MIN], [I64_MAX, I64_MAX], [0, 1], None),
    ]
    if opset >= 10:
        base += [
            ((5, 6), [0, 1], [5, 5], [0, 1], [2, 2]),
            ((5, 6), [-1], [-7], [1], [-1]),
            ((5, 6), [4], [-100], [0], [-2]),
            ((5, 6), [I64_MAX], [I64_MIN], [1], [-1]),
            ((5, 6), [3], [I64_MAX], [1], [-1]),
            ((5, 6), [0], [I64_MAX], [-1], [3]),
            ((5, 6), [4], [2**31 - 1], [0], [-2]),
            ((5, 6), [-2], [2**31 - 2], [0], [-1]),
            ((4, 5, 6), [5, 0, 1], [0, 10, 6], [2, 1, 0], [-2, 3, 2]),
            ((0, 3), [0], [1], [0], [-1]),
            ((400, 400), [1, 0], [400, 400], [0, 1], [1, 1]),
            ((5, 6), [2], [4], [0], [I64_MAX]),
        ]
    out = []
    for k, (t, (xs, starts, ends, axes, steps)) in enumerate(_typed(base, "Slice", opset)):
        x = bits(xs, t, k)
        want = onnx_slice(x, starts, ends, axes, steps)
        if opset < 10:
            attrs: dict[str, object] = {"starts": starts, "ends": ends}
            if axes is not None:
                attrs["axes"] = axes
            out.append(Case("Slice", opset, [x], [False], attrs, [want]))
            continue
        it = (
            np.int32
            if k % 3 == 2 and all(abs(v) < 2**31 for v in starts + ends + (steps or []))
            else np.int64
        )
        ins = [
            x,
            _ints(starts, it),
            _ints(ends, it),
            None
            if axes is None and steps is None
            else _ints(axes if axes is not None else range(len(starts)), it),
        ]
        if steps is not None:
            ins.append(_ints(steps, it))
        const = [False] + [k % 2 == 0] * (len(ins) - 1)
        out.append(Case("Slice", opset, ins, const, {}, [want]))
    return out


def expand_cases(opset: int) -> list[Case]:
    base = [
        ((3, 1), [2, 1, 4]),
        ((1,), [5]),
        ((), [2, 3]),
        ((2, 3), [1]),
        ((2, 1), [2, 0]),
        ((4, 1, 3), [1, 5, 1]),
        ((1, 300), [300, 300]),
        ((2, 3), []),
    ]
    out = []
    for k, (t, (xs, shape)) in enumerate(_typed(base, "Expand", opset)):
        x = bits(xs, t, k)
        want = np.array(np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(shape))))
        out.append(Case("Expand", opset, [x, _ints(shape)], [False, k % 2 == 0], {}, [want]))
    return out


CASES = {
    "Reshape": reshape_cases,
    "Unsqueeze": unsqueeze_cases,
    "Squeeze": squeeze_cases,
    "Flatten": flatten_cases,
    "Identity": identity_cases,
    "Shape": shape_cases,
    "Transpose": transpose_cases,
    "Concat": concat_cases,
    "Gather": gather_cases,
    "Slice": slice_cases,
    "Expand": expand_cases,
}
# The opsets each op is tested at: every one where its ONNX definition changed, up to 21.
OPSETS = {
    "Reshape": (5, 13, 14, 21),
    "Unsqueeze": (1, 11, 13, 21),
    "Squeeze": (1, 11, 13, 21),
    "Flatten": (1, 9, 11, 13, 21),
    "Identity": (1, 13, 14, 16, 21),
    "Shape": (1, 13, 15, 21),
    "Transpose": (1, 13, 21),
    "Concat": (4, 11, 13),
    "Gather": (1, 11, 13),
    "Slice": (1, 10, 11, 13),
    "Expand": (8, 13),
}
