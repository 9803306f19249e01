"""Builds the crafted element-wise cases and writes testdata/ops-elementwise/cases.json.gz.

    python -m tests.reference.ops_elementwise_oracle [--out PATH] [--check]      # from the repository root

A case is a small ONNX model (one node of the default domain at a given opset, or a short chain), its inputs
and the output of stock ONNX Runtime (run in plain onnxruntime, no OneModel library). Every operator of the
library's op table (onemodel_ep.op_table()) gets cases for every element type the table allows (and the ONNX
schema of that opset accepts): sizes 0 and 1, scalars, broadcasting of rank 0 to 4, lengths around every
vector width, NaN, infinities, signed zeros, subnormals, integer extremes, each opset form and attribute.

Where the spec deliberately differs from ORT, `expected` holds the spec's value
(tests/reference/reference.py), `ort`
keeps ORT's output and `reason` says why. Integer division by zero and MIN / -1 can trap (SIGFPE) in ORT, so
ORT is never run on those: their `expected` comes from the reference alone.

Tensors are stored losslessly: dtype, shape and the raw little-endian bytes in base64 (NaN payloads and -0
survive). The file is deterministic: every case draws from its own generator seeded by its id.

Adding an operator: give it a row in OPS (arity, value domain, attribute variants); an operator of the table
without a row still gets generic cases from its table row. Operators whose inputs differ in type or are
optional have their own case makers (OWN_DRAFTS: Cast and CastLike over every source x target type, Where
over every stored type with three-way broadcasting, Clip in its attribute and input forms, Pow over every
base x exponent type). bfloat16 tensors go to ORT through io_binding (its Python binding cannot convert
them); Pow expectations are the correctly rounded value where ORT's pow is not, and the tests allow 1 ulp.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import onnx.defs
import onnxruntime as ort
from onnx import helper

import onemodel_ep
from tests.reference import reference  # the spec's NumPy reference

ROOT = Path(__file__).resolve().parents[2]

OUT = ROOT / "testdata" / "ops-elementwise" / "cases.json.gz"
FORMAT_VERSION = 1
IR_VERSION = 9  # ORT 1.31.1 rejects newer IR versions
ORT_MAX_OPSET = 21  # the newest default-domain opset the cases use
MAIN_OPSET_FLOOR = 17  # the main cases use max(this, the op's newest form)
MAIN_FLOAT = np.dtype(np.float32)

# Lengths around every vector width: all of 1-67, then 127-129, 255-257, 1023-1025 (main float type), and
# a subset around the widths of the narrower and wider lanes for the other types.
MAIN_LENGTHS = [*range(1, 68), 127, 128, 129, 255, 256, 257, 1023, 1024, 1025]
OTHER_LENGTHS = [1, 3, 8, 15, 17, 31, 33, 63, 65, 129]
BROADCAST_SHAPES: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((), ()),
    ((), (5,)),
    ((5,), ()),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 3, 4)),
    ((2, 1, 4), (3, 1)),
    ((1,), (2, 3)),
    ((2, 3, 1, 5), (1, 3, 4, 1)),
    ((4,), (2, 1, 1, 4)),
    ((), (2, 2, 2, 2)),
    ((2, 3, 4, 5), (2, 3, 4, 5)),
    ((5, 1, 3), (1, 1)),
    ((1, 17), (19, 1)),
    ((0, 3), (1, 3)),
    ((2, 0, 1), (1, 4)),
    ((0,), ()),
]
SHORT_BROADCAST = [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 2, 2, 2)), ((0, 3), (1, 3))]
VARIADIC_SHAPES: list[list[tuple[int, ...]]] = [
    [(5,)],
    [(3, 1), (1, 4), (4,)],
    [(2, 3), (2, 3), (2, 3), (2, 3)],
    [(), (2, 1, 3), (4, 1), (1, 1, 1, 3)],
    [(0,), (1,), ()],
]

Gen = Callable[[np.random.Generator, np.dtype, tuple[int, ...]], np.ndarray]


# ------------------------------------------------------------------------------------------------ values


def float_specials(dtype: np.dtype) -> np.ndarray:
    """NaNs (with sign and payload), infinities, signed zeros, subnormals, extremes and ordinary values."""
    fi = ml_dtypes.finfo(dtype)
    u = reference.UINT_OF[dtype]
    nbits = dtype.itemsize * 8
    mant = fi.nmant
    exp_all = ((1 << (nbits - 1 - mant)) - 1) << mant
    sign = 1 << (nbits - 1)
    nan_bits = [
        exp_all | (1 << (mant - 1)),
        sign | exp_all | (1 << (mant - 1)),
        exp_all | (1 << (mant - 1)) | 5,
        exp_all | 1,
    ]  # +qNaN, -qNaN, qNaN with payload, sNaN
    nans = np.array(nan_bits, dtype=u).view(dtype)
    tiny = fi.smallest_subnormal
    vals = [
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        tiny,
        -tiny,
        fi.smallest_normal - tiny,
        -(fi.smallest_normal - tiny),
        fi.smallest_normal,
        -fi.smallest_normal,
        fi.max,
        -fi.max,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.0,
        7.0,
        -0.1,
        1e-3,
    ]
    with np.errstate(all="ignore"):
        return np.concatenate([nans, np.array(vals, dtype=dtype)])


def int_specials(dtype: np.dtype) -> np.ndarray:
    ii = np.iinfo(dtype)
    vals = sorted(
        v
        for v in {ii.min, ii.min + 1, -7, -2, -1, 0, 1, 2, 3, 7, ii.max - 1, ii.max}
        if ii.min <= v <= ii.max
    )
    return np.array(vals, dtype=dtype)


def specials(dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return np.array([False, True])
    return float_specials(dtype) if reference.is_float(dtype) else int_specials(dtype)


def gen_general(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Ordinary values of every magnitude with specials sprinkled in (about one element in six)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return (rng.random(n) < 0.5).reshape(shape)
    if reference.is_float(dtype):
        fi = ml_dtypes.finfo(dtype)
        emax = min(int(fi.maxexp) - 2, 40)
        mag = rng.uniform(1.0, 2.0, n) * np.exp2(rng.integers(-emax, emax, n).astype(np.float64))
        vals = np.where(rng.random(n) < 0.5, -mag, mag)
        small = rng.integers(-8, 9, n).astype(np.float64) / rng.choice([1.0, 2.0, 4.0], n)
        vals = np.where(rng.random(n) < 0.25, small, vals)
        out = vals.astype(dtype)
    else:
        ii = np.iinfo(dtype)
        full = rng.integers(ii.min, ii.max, n, dtype=dtype, endpoint=True)
        lo, hi = max(ii.min, -20), min(ii.max, 20)
        small = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
        out = np.where(rng.random(n) < 0.4, small, full).astype(dtype)
    sp = specials(dtype)
    pick = rng.random(n) < 1 / 6
    out[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
    return out.reshape(shape)


def gen_range(lo: float, hi: float) -> Gen:
    """Floats uniform in [lo, hi] with specials sprinkled in (for the transcendentals' interesting domain)."""

    def gen(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        n = int(np.prod(shape, dtype=np.int64))
        out = rng.uniform(lo, hi, n).astype(dtype)
        sp = specials(dtype)
        pick = rng.random(n) < 1 / 8
        out[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
        return out.reshape(shape)

    return gen


def gen_positive(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Mostly positive floats of every magnitude (Log), with specials."""
    out = gen_general(rng, dtype, shape)
    flip = rng.random(out.shape) < 0.85
    with np.errstate(all="ignore"):
        return np.where(flip, np.abs(out), out).astype(dtype)


# ------------------------------------------------------------------------------------------------ ops


def _int_division_hazard(inputs: Sequence[np.ndarray], attributes: dict[str, Any]) -> str | None:
    """Why ORT must not run this integer Div/Mod (it traps on x/0 and MIN/-1), or None."""
    a, b = inputs[0], inputs[1]
    if reference.is_float(a.dtype):
        return None
    if (b == 0).any():  # ORT checks the divisor even when the output is empty
        return (
            "integer division by zero: ORT fails ('Integer division by zero') or traps; "
            "spec gives 0, value from the spec"
        )
    aa, bb = np.broadcast_arrays(a, b)
    if a.dtype.kind == "i":
        mn = np.iinfo(a.dtype).min
        if ((aa == mn) & (bb == -1)).any():
            return "MIN / -1: ORT traps (SIGFPE); spec wraps (Div: MIN, Mod: 0), value from the spec"
    return None


def _int_division_safe(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The same inputs with zero divisors made 1 and -1 divisors made -2 (so ORT can run them)."""
    a, b = inputs[0], np.array(inputs[1], copy=True)
    if not reference.is_float(b.dtype):
        b[b == 0] = 1
        if b.dtype.kind == "i":
            b[b == -1] = -2
    return [a, b]


@dataclass(frozen=True)
class OpSpec:
    """How to make cases for one operator."""

    arity: int  # 1, 2, or -1 for variadic
    gen: Gen = gen_general
    attributes: tuple[dict[str, Any], ...] = ({},)  # each variant gets the full set of cases
    hazard: Callable[[Sequence[np.ndarray], dict[str, Any]], str | None] | None = None
    make_safe: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None
    transcendental: bool = False
    out_bool: bool = False  # the output is bool (comparisons)
    extra: tuple[np.ndarray, ...] = field(default=())  # extra unary inputs (float32)


def _f32(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float32)


OPS: dict[str, OpSpec] = {
    "Add": OpSpec(2),
    "Sub": OpSpec(2),
    "Mul": OpSpec(2),
    "Div": OpSpec(2, hazard=_int_division_hazard, make_safe=_int_division_safe),
    "Mod": OpSpec(
        2, attributes=({"fmod": 0}, {"fmod": 1}), hazard=_int_division_hazard, make_safe=_int_division_safe
    ),
    "Neg": OpSpec(1),
    "Abs": OpSpec(1),
    "Sign": OpSpec(1),
    "Max": OpSpec(-1),
    "Min": OpSpec(-1),
    "Sum": OpSpec(-1),
    "Mean": OpSpec(-1),
    "Exp": OpSpec(
        1,
        gen=gen_range(-110.0, 95.0),
        transcendental=True,
        extra=(_f32(88.72, 88.7228, 88.73, -87.33, -103.2, -103.98, -104.0, 1e-8, -1e-8),),
    ),
    "Log": OpSpec(
        1,
        gen=gen_positive,
        transcendental=True,
        extra=(_f32(1.0, 1.0000001, 0.99999994, 2.0, 0.5, 1e-38, 1e-45, 3e38, -1.0),),
    ),
    "Tanh": OpSpec(
        1,
        gen=gen_range(-12.0, 12.0),
        transcendental=True,
        extra=(_f32(1e-8, -1e-8, 0.55, -0.55, 9.0, 9.1, -9.1, 20.0, -20.0, 1e-4),),
    ),
    "Sigmoid": OpSpec(
        1,
        gen=gen_range(-40.0, 40.0),
        transcendental=True,
        extra=(_f32(-10.0, -15.0, -20.0, -50.0, -87.0, -88.8, -103.0, -104.0, 17.0, 1e-8),),
    ),
    "Erf": OpSpec(
        1,
        gen=gen_range(-6.0, 6.0),
        transcendental=True,
        extra=(_f32(1e-30, -1e-30, 0.84375, -0.84375, 1.25, 2.857, 3.9, 4.0, 6.0, -6.0),),
    ),
    **{
        op: OpSpec(
            1,
            gen=gen_range(-200.0, 200.0),
            transcendental=True,
            extra=(
                _f32(1e30, -1e30, 3.4e38, -3.4e38, 1e10, 16777216.0, 12345.678, 1.5707964, 3.1415927, 1e-30),
            ),
        )
        for op in ("Sin", "Cos")
    },
    "Softplus": OpSpec(
        1,
        gen=gen_range(-110.0, 40.0),
        transcendental=True,
        extra=(_f32(-103.0, -104.0, -120.0, -200.0, 15.0, 16.7, 17.0, 20.0, 88.8, 1e-8, -1e-8, 3e38),),
    ),
    "Mish": OpSpec(
        1,
        gen=gen_range(-110.0, 30.0),
        transcendental=True,
        extra=(_f32(-1.19, -1.2, -20.0, -100.0, -108.0, -110.0, -200.0, 9.0, 20.0, 1e-8, -1e-8, -3e38),),
    ),
    "Elu": OpSpec(
        1,
        gen=gen_range(-20.0, 5.0),
        attributes=({}, {"alpha": 0.3}, {"alpha": -2.0}),
        transcendental=True,
        extra=(
            _f32(-1e-30, -1e-8, -0.0054, -0.3466, -0.35, -17.0, -88.0, -104.0, -120.0, -200.0, -3e38, 3e38),
        ),
    ),
    "Selu": OpSpec(
        1,
        gen=gen_range(-20.0, 5.0),
        attributes=({}, {"alpha": 1.5, "gamma": 0.75}),
        transcendental=True,
        extra=(
            _f32(-1e-30, -1e-8, -0.0054, -0.35, -17.0, -88.0, -104.0, -120.0, -200.0, -3e38, 3e38, 1e-40),
        ),
    ),
    "Celu": OpSpec(
        1,
        gen=gen_range(-20.0, 5.0),
        attributes=({}, {"alpha": 2.5}, {"alpha": 0.2}),
        transcendental=True,
        extra=(_f32(-1e-30, -1e-8, -0.0054, -0.35, -17.0, -88.0, -104.0, -120.0, -200.0, -3e38, 3e38),),
    ),
    **{op: OpSpec(2, out_bool=True) for op in ("Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual")}, **{op: OpSpec(2) for op in ("And", "Or", "Xor")},
    "Not": OpSpec(1),
    **{op: OpSpec(1) for op in ("Reciprocal", "Sqrt", "Floor", "Ceil", "Round", "HardSwish")},
    **{op: OpSpec(1) for op in ("Relu", "Softsign")},
    "LeakyRelu": OpSpec(1, attributes=({}, {"alpha": 0.3})),
    "PRelu": OpSpec(2),
    "ThresholdedRelu": OpSpec(1, attributes=({}, {"alpha": 0.1}, {"alpha": -2.5})),
    "IsNaN": OpSpec(1, out_bool=True),
    "IsInf": OpSpec(1, out_bool=True, attributes=({}, {"detect_positive": 0}, {"detect_negative": 0})),
    "HardSigmoid": OpSpec(1, attributes=({}, {"alpha": 0.3, "beta": 0.25})),
    "Gelu": OpSpec(
        1,
        gen=gen_range(-12.0, 12.0),
        attributes=({}, {"approximate": "tanh"}),
        transcendental=True,
        extra=(_f32(-5.0, -9.0, -10.0, -13.0, -20.0, -30.0, 1e-20, -1e-20, 3.0, 20.0),),
    ),
}


# Operators whose inputs or output differ in type (or that take optional inputs) have their own case makers
# (OWN_DRAFTS, below); NOT_YET lists table operators still without cases (none).
NOT_YET: frozenset[str] = frozenset()


def spec_for(op: str, info: Any) -> OpSpec | None:
    if op in OPS:
        return OPS[op]
    if info.other_types or info.output_rule != 0 or info.min_inputs > 2:
        print(f"note: {op} needs a row in OPS (types or inputs differ); no cases", file=sys.stderr)
        return None
    arity = info.min_inputs if info.min_inputs == info.max_inputs else -1
    print(f"note: {op} has no row in OPS; generic cases from its table row", file=sys.stderr)
    return OpSpec(arity if arity in (1, 2) else -1)


# ------------------------------------------------------------------------------------------------ schema


def opset_forms(op: str, since: int) -> list[int]:
    """The opsets at which the op's ONNX definition changed, from the table's first opset on."""
    versions = sorted(
        {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == ""}
    )
    forms = [v for v in versions if since <= v <= ORT_MAX_OPSET]
    first = max((v for v in versions if v <= since), default=since)
    if first not in forms and first <= ORT_MAX_OPSET:
        forms.insert(0, since)
    return forms


def schema_types(op: str, opset: int) -> set[np.dtype]:
    """Element types the ONNX schema of `op` at `opset` accepts for its first input."""
    schema = onnx.defs.get_schema(op, opset, "")
    tp = schema.inputs[0].type_str
    allowed: set[str] = {tp}
    for tc in schema.type_constraints:
        if tc.type_param_str == tp:
            allowed = set(tc.allowed_type_strs)
    out: set[np.dtype] = set()
    for s in allowed:
        if s.startswith("tensor(") and s[7:-1] not in ("string", "bfloat16", "complex64", "complex128"):
            name = s[7:-1]
            try:
                out.add(np.dtype({"float": "float32", "double": "float64"}.get(name, name)))
            except TypeError:
                continue
    return out


def broadcasts(op: str, opset: int) -> bool:
    """Whether the op broadcasts at this opset (Max/Min/Sum/Mean before 8, others before 7 do not)."""
    return opset >= (8 if op in ("Max", "Min", "Sum", "Mean") else 7)


# ------------------------------------------------------------------------------------------------ cases


def tensor_to_json(x: np.ndarray) -> dict[str, Any]:
    x = np.ascontiguousarray(x)
    return {
        "dtype": x.dtype.name,
        "shape": list(x.shape),
        "data": base64.b64encode(x.astype(x.dtype.newbyteorder("<")).tobytes()).decode(),
    }


def tensor_from_json(d: dict[str, Any]) -> np.ndarray:
    dt = np.dtype(d["dtype"]).newbyteorder("<")
    return (
        np.frombuffer(base64.b64decode(d["data"]), dtype=dt).astype(dt.newbyteorder("=")).reshape(d["shape"])
    )


@dataclass
class Draft:
    """A case before ORT has run: id, model and inputs."""

    id: str
    op: str
    opset: int
    attributes: dict[str, Any]
    model: onnx.ModelProto
    inputs: list[np.ndarray]
    tags: list[str]
    nodes: list[tuple[str, list[str], dict[str, Any]]]  # (op, input names, attributes) in order; output "y"


def make_model(
    name: str,
    opset: int,
    inputs: Sequence[np.ndarray],
    nodes: Sequence[tuple[str, list[str], dict[str, Any]]],
    out_bool: bool = False,
    out_dtype: np.dtype | None = None,
    out_shape: Sequence[int] | None = None,
) -> onnx.ModelProto:
    """A model over inputs x0, x1, ...; node k writes t{k}, the last one writes y."""
    vis = [
        helper.make_tensor_value_info(f"x{i}", helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
        for i, a in enumerate(inputs)
    ]
    made = []
    for k, (op, ins, attrs) in enumerate(nodes):
        out = "y" if k == len(nodes) - 1 else f"t{k}"
        made.append(helper.make_node(op, ins, [out], name=f"{op.lower()}_{k}", **attrs))
    if out_dtype is None:
        out_dtype = np.dtype(np.bool_) if out_bool else inputs[0].dtype
    out_type = helper.np_dtype_to_tensor_dtype(out_dtype)
    if out_shape is None:
        out_shape = list(np.broadcast_shapes(*(a.shape for a in inputs)))  # element-wise graphs only
    graph = helper.make_graph(
        made, name, vis, [helper.make_tensor_value_info("y", out_type, list(out_shape))]
    )
    model = helper.make_model(
        graph,
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="ops_elementwise_oracle",
    )
    onnx.checker.check_model(model)
    return model


def _rng(case_id: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(case_id.encode()))


def _tag_of(attrs: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(attrs.items()))


def drafts_for_op(op: str, info: Any) -> Iterator[Draft]:
    if info.flags & 8:  # OM_F_STRUCT (MatMul, Gemm): not element-wise; their own tests cover them
        return
    spec = spec_for(op, info)
    if spec is None or op in NOT_YET:
        return
    forms = opset_forms(op, info.since_opset)
    if not forms:
        return
    main = min(max(MAIN_OPSET_FLOOR, forms[-1]), ORT_MAX_OPSET)
    table_types = {np.dtype(helper.tensor_dtype_to_np_dtype(t)) for t in info.input0_types}
    order = [t for t in STORED if t.name != "bfloat16"]  # every stored type but bfloat16, in this order

    for attrs in spec.attributes:
        atag = _tag_of(attrs)

        def draft(
            kind: str,
            dtype: np.dtype,
            opset: int,
            shapes: Sequence[tuple[int, ...]],
            fixed: Sequence[np.ndarray] | None = None,
            tags: Sequence[str] = (),
            attrs: dict[str, Any] = attrs,
            atag: str = atag,
        ) -> Draft:
            if op == "PRelu" and len(shapes) == 2:  # the slope broadcasts to X's shape, never beyond it
                full = tuple(np.broadcast_shapes(*shapes))
                shapes = [full, shapes[1]]
                if fixed is not None:
                    fixed = [np.broadcast_to(fixed[0], full).copy(), fixed[1]]
            shape_tag = "x".join("[" + ",".join(map(str, s)) + "]" for s in shapes)
            cid = f"{op}{'[' + atag + ']' if atag else ''}/opset{opset}/{dtype.name}/{kind}/{shape_tag}"
            rng = _rng(cid)
            if fixed is not None:
                ins = list(fixed)
            else:  # random inputs stay away from the values ORT cannot take (the specials grid has them)
                ins = [spec.gen(rng, dtype, s) for s in shapes]
                ins = spec.make_safe(ins) if spec.make_safe is not None else ins
            names = [f"x{i}" for i in range(len(ins))]
            nodes = [(op, names, attrs)]
            model = make_model(op, opset, ins, nodes, out_bool=spec.out_bool)
            return Draft(cid, op, opset, dict(attrs), model, ins, [kind, *tags], nodes)

        for dtype in order:
            if dtype not in table_types or dtype not in schema_types(op, main):
                continue
            if op == "Mod" and reference.is_float(dtype) and attrs.get("fmod", 0) == 0:
                continue  # the spec (and ONNX) reject fmod=0 on floats
            n_in = 2 if spec.arity == -1 else spec.arity
            main_type = dtype == MAIN_FLOAT or (
                MAIN_FLOAT not in table_types
                and dtype == min(table_types, key=lambda t: order.index(t) if t in order else 99)
            )
            # lengths around the vector widths
            for n in MAIN_LENGTHS if main_type else OTHER_LENGTHS:
                yield draft("length", dtype, main, [(n,)] * n_in)
            # sizes 0 and 1, scalars
            for s in SMALL_SHAPES:
                yield draft("small", dtype, main, [s] * n_in)
            # special values: every pair of specials (an [n,1] x [1,n] grid) or the specials vector
            sp = specials(dtype)
            if n_in == 1:
                yield draft("specials", dtype, main, [sp.shape], fixed=[sp])
                for k, extra in enumerate(spec.extra):
                    if extra.dtype == dtype:
                        yield draft(f"extra{k}", dtype, main, [extra.shape], fixed=[extra])
            else:
                grid = [sp.reshape(-1, 1), sp.reshape(1, -1)]
                yield draft("specials", dtype, main, [g.shape for g in grid], fixed=grid)
                if spec.make_safe is not None and spec.hazard is not None and spec.hazard(grid, attrs):
                    safe = spec.make_safe([g.copy() for g in grid])
                    yield draft("specials-safe", dtype, main, [g.shape for g in safe], fixed=safe)
                # broadcasting
                for sa, sb in BROADCAST_SHAPES if main_type or dtype == np.int32 else SHORT_BROADCAST:
                    yield draft("broadcast", dtype, main, [sa, sb])
            if spec.arity == -1:
                for shapes in VARIADIC_SHAPES:
                    yield draft("variadic", dtype, main, shapes)
            # older opset forms: a few cases each (same shapes below the broadcasting opsets)
            for form in forms:
                if form == main or dtype not in schema_types(op, form):
                    continue
                shapes = [(37,)] * n_in
                yield draft("opset-form", dtype, form, shapes)
                if n_in > 1 and broadcasts(op, form):
                    yield draft("opset-form", dtype, form, [(3, 1), (1, 5)])
                if n_in > 1 and spec.arity == -1:
                    yield draft("opset-form", dtype, form, [(6,)] * 3)


def crafted_drafts(table: dict[str, Any]) -> Iterator[Draft]:
    """Hand-made cases: rounding of f16 through f32, Sum/Mean fold order, short chains of several nodes."""
    f16, f32 = np.dtype(np.float16), np.dtype(np.float32)

    def one(
        cid: str,
        op: str,
        opset: int,
        ins: list[np.ndarray],
        attrs: dict[str, Any] | None = None,
        tags: Sequence[str] = ("crafted",),
    ) -> Draft:
        a = attrs or {}
        nodes = [(op, [f"x{i}" for i in range(len(ins))], a)]
        return Draft(cid, op, opset, a, make_model(op, opset, ins, nodes), ins, list(tags), nodes)

    if "Sum" in table and "Mean" in table:
        # f16: each step rounds to f16 (2048 + 1 + 1 = 2048 in f16 steps, 2050 if accumulated in f32)
        a = [
            np.array([2048, 1, 65504, -65504, 0.1], dtype=f16),
            np.array([1, 2048, 65504, 65504, 0.2], dtype=f16),
            np.array([1, 1, -65504, 1, 0.3], dtype=f16),
        ]
        for op in ("Sum", "Mean"):
            yield one(f"{op}/crafted/float16-fold", op, 13, a)
        b = [
            np.array([1e8, 1.0, 3.0, 1e-7], dtype=f32),
            np.array([1.0, 1e8, 3.0, 1.0], dtype=f32),
            np.array([-1e8, -1e8, 3.0, -1.0], dtype=f32),
        ]
        for op in ("Sum", "Mean"):
            yield one(f"{op}/crafted/float32-fold", op, 13, b)
        c = [np.array([1.0, 2.0, 10.0, 7.0, 0.3, 3.4e38], dtype=f32)] * 3
        yield one("Mean/crafted/float32-thirds", "Mean", 13, c)
    for op in ("Add", "Sub", "Mul", "Div"):
        if op in table:
            x = np.array([1.0009765625, 65504, 6e-8, -6e-8, 0.333, 1000, 2049], dtype=f16)
            y = np.array([3.0, 0.5, 0.5, 3.0, 0.777, 0.001, 1.0], dtype=f16)
            yield one(f"{op}/crafted/float16-rounding", op, 14, [x, y])
    chains: list[tuple[str, list[tuple[str, list[str], dict[str, Any]]], int]] = [
        (
            "mul-add-max",
            [("Mul", ["x0", "x1"], {}), ("Add", ["t0", "x2"], {}), ("Max", ["t1", "x0", "x2"], {})],
            3,
        ),
        (
            "div-mod-abs",
            [("Div", ["x0", "x1"], {}), ("Mod", ["t0", "x2"], {"fmod": 1}), ("Abs", ["t1"], {})],
            3,
        ),
        ("sub-neg-sign", [("Sub", ["x0", "x1"], {}), ("Neg", ["t0"], {}), ("Sign", ["t1"], {})], 2),
        (
            "mean-sigmoid-min",
            [("Mean", ["x0", "x1"], {}), ("Sigmoid", ["t0"], {}), ("Min", ["t1", "x1"], {})],
            2,
        ),
    ]
    for name, nodes, n_in in chains:
        if not all(op in table for op, _, _ in nodes):
            continue
        cid = f"chain/{name}/opset17/float32"
        rng = _rng(cid)
        shapes = [(2, 9), (9,), (2, 1)][:n_in]
        ins = [gen_general(rng, f32, s) for s in shapes]
        yield Draft(cid, nodes[-1][0], 17, {}, make_model(name, 17, ins, nodes), ins, ["chain"], nodes)


# ------------------------------------------------------------------------------------------------ own rows
# Cast, CastLike, Where, Clip and Pow: inputs of several types, optional inputs, attribute forms.

STORED = [
    np.dtype(t)
    for t in (
        "float32",
        "float16",
        "float64",
        "bfloat16",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    )
]
SMALL_SHAPES: list[tuple[int, ...]] = [(0,), (1,), (), (1, 1, 1, 1), (0, 4)]
WHERE_SHAPES: list[tuple[tuple[int, ...], ...]] = [
    ((), (5,), (5,)),
    ((5,), (), ()),
    ((3, 1), (1, 4), ()),
    ((0, 3), (1, 3), (3,)),
    ((2, 3, 4), (4,), (3, 1)),
    ((4,), (2, 3, 4), (1,)),
    ((2, 1, 4), (3, 1), (1, 1, 1, 4)),
    ((1, 17), (19, 1), (17,)),
    ((2, 3, 1, 5), (1, 3, 4, 1), (5,)),
    ((), (2, 2, 2, 2), ()),
    ((2, 0, 1), (1, 4), (1,)),
    ((2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5)),
]


def _types_of(mask: frozenset[int]) -> set[np.dtype]:
    return {reference.np_dtype_of(t) for t in mask}


def _shape_tag(shapes: Sequence[tuple[int, ...]]) -> str:
    return "x".join("[" + ",".join(map(str, s)) + "]" for s in shapes)


def _own(
    cid: str,
    op: str,
    opset: int,
    ins: Sequence[np.ndarray],
    names: list[str],
    attrs: dict[str, Any],
    out_dtype: np.dtype,
    kind: str,
    out_shape: Sequence[int] | None = None,
) -> Draft | None:
    """One draft; None when the ONNX schema of that opset refuses the types (the checker says so)."""
    nodes = [(op, names, attrs)]
    try:
        model = make_model(op, opset, ins, nodes, out_dtype=out_dtype, out_shape=out_shape)
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return None
    return Draft(cid, op, opset, dict(attrs), model, list(ins), [kind], nodes)


def _as(values: Sequence[float], dt: np.dtype) -> np.ndarray:
    """Float values (Python floats) into a float type, by the spec's rounding (any value, exactly once)."""
    return reference.round_to_float(np.array(values, dtype=np.float64), dt)


def cast_edges(src: np.ndarray | np.dtype) -> np.ndarray:
    """Source values at the edges of every target: integer ranges (+-0.5 and just past), rounding ties and
    overflow thresholds of f16, bf16 and f32, subnormal limits, plus the source's own specials."""
    src = np.dtype(src)
    if src == np.bool_:
        return np.array([False, True, True, False])
    if reference.is_float(src):
        vals: list[float] = [0.5, -0.5, 0.9999, -0.9999, 1.5, -1.5, 2.5, 127.9, -128.9, -129.0, 255.5, 256.0]
        for n in (8, 16, 32, 64):
            h = 2.0 ** (n - 1)
            vals += [h, h - 1, -h, -h - 1, h - 0.5, -h + 0.5, 2.0 * h, 2.0 * h - 1, -h * 1.5]
        vals += [
            65504.0,
            65519.99,
            65520.0,
            65536.0,
            2.0**-24,
            2.0**-25,
            1.5 * 2.0**-25,
            2.0**-25 * (1 + 2.0**-20),
        ]
        vals += [1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-11 + 2.0**-40, 2049.0, 2051.0]
        vals += [1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-30, 257.0, 2.0**30 + 2.0**22 + 2.0**-8]
        vals += [3.3895313892515355e38, 3.3961775292304e38, 3.39e38, 2.0**-133, 2.0**-134, 1.5 * 2.0**-134]
        vals += [1 + 2.0**-24, 1 + 2.0**-24 + 2.0**-50, 2.0**-149, 2.0**-150, 2.0**-150 * 1.5, 3.4028235e38]
        vals += [1e300, -1e300, 2.0**-1074, 16777217.0, 9007199254740993.0]
        return np.concatenate([specials(src), _as(vals, src)])
    ints = [127, 128, -129, 255, 256, 300, -300, 32767, 32768, -32769, 65535, 65536, 2**31 - 1, 2**31]
    ints += [-(2**31) - 1, 2**32 - 1, 2**32, 2**24 + 1, 2**24 + 3, 2**53 + 1, 2**63 - 1, 2**64 - 1, 65519]
    ints += [65520, -65520, 2049, 2051, 257, 259, (1 << 30) + (1 << 22) + 1, (1 << 62) + (1 << 39) + 1]
    ints += [-(2**63), 2**63 + 2**40 + 1, 2**64 - 2**39]
    return np.concatenate([specials(src), reference._wrap(ints, src, (len(ints),))])


def cast_drafts(info: Any) -> Iterator[Draft]:
    forms = opset_forms("Cast", info.since_opset)
    main = forms[-1]
    srcs = [t for t in STORED if t in _types_of(info.input0_types)]
    dsts = [t for t in STORED if t in _types_of(info.other_types)]
    main_pairs = {("float32", "float16"), ("float32", "bfloat16"), ("float32", "int32"), ("int64", "float32")}
    main_pairs |= {("float16", "float32"), ("bfloat16", "float32"), ("float64", "bfloat16")}

    def one(src: np.dtype, dst: np.dtype, opset: int, kind: str, x: np.ndarray) -> Draft | None:
        attrs = {"to": int(helper.np_dtype_to_tensor_dtype(dst))}
        cid = f"Cast/opset{opset}/{src.name}->{dst.name}/{kind}/{_shape_tag([x.shape])}"
        return _own(cid, "Cast", opset, [x], ["x0"], attrs, dst, kind)

    out: list[Draft | None] = []
    for i, src in enumerate(srcs):
        for dst in dsts:
            out.append(one(src, dst, main, "specials", cast_edges(src)))
            lengths = OTHER_LENGTHS if (src.name, dst.name) in main_pairs else [17, 65, 257]
            if (src.name, dst.name) in main_pairs:
                lengths = [*lengths, 255, 256, 511, 513, 1025]
            for n in lengths:
                cid = f"Cast/opset{main}/{src.name}->{dst.name}/length/[{n}]"
                out.append(one(src, dst, main, "length", gen_general(_rng(cid), src, (n,))))
        for k, s in enumerate(SMALL_SHAPES):  # the target rotates
            dst = dsts[(i + 3 * k) % len(dsts)]
            out.append(one(src, dst, main, "small", gen_general(_rng(f"Cast/{src}/{dst}/{s}"), src, s)))
        for k, form in enumerate(forms[:-1]):
            for j in (0, 5):
                dst = dsts[(i + k + j) % len(dsts)]
                x = gen_general(_rng(f"Cast/{form}/{src}/{dst}"), src, (37,))
                out.append(one(src, dst, form, "opset-form", x))
    yield from (d for d in out if d is not None)


def castlike_drafts(info: Any) -> Iterator[Draft]:
    forms = opset_forms("CastLike", info.since_opset)
    main = forms[-1]
    srcs = [t for t in STORED if t in _types_of(info.input0_types)]
    dsts = [t for t in STORED if t in _types_of(info.other_types)]
    out: list[Draft | None] = []

    def one(src: np.dtype, dst: np.dtype, opset: int, kind: str, x: np.ndarray, like_shape: tuple) -> None:
        cid = f"CastLike/opset{opset}/{src.name}->{dst.name}/{kind}/{_shape_tag([x.shape, like_shape])}"
        like = gen_general(_rng(cid), dst, like_shape)  # its values are never read
        out.append(_own(cid, "CastLike", opset, [x, like], ["x0", "x1"], {}, dst, kind, out_shape=x.shape))

    for i, src in enumerate(srcs):
        for j, dst in enumerate(dsts):
            one(src, dst, main, "specials", cast_edges(src), [(3,), (), (1, 2)][(i + j) % 3])
        for k, n in enumerate([17, 257]):
            dst = dsts[(i + 5 * k + 1) % len(dsts)]
            one(src, dst, main, "length", gen_general(_rng(f"CastLike/{src}/{dst}/{n}"), src, (n,)), (n,))
        for k, s in enumerate(SMALL_SHAPES[:3]):
            dst = dsts[(i + 4 * k + 2) % len(dsts)]
            one(src, dst, main, "small", gen_general(_rng(f"CastLike/{src}/{dst}/{s}"), src, s), s)
        for k, form in enumerate(forms[:-1]):
            dst = dsts[(i + 2 * k + 7) % len(dsts)]
            one(src, dst, form, "opset-form", gen_general(_rng(f"CastLike/{form}/{src}"), src, (37,)), (2,))
    yield from (d for d in out if d is not None)


def where_drafts(info: Any) -> Iterator[Draft]:
    forms = opset_forms("Where", info.since_opset)
    main = min(max(MAIN_OPSET_FLOOR, forms[-1]), ORT_MAX_OPSET)
    out: list[Draft | None] = []
    b = np.dtype(np.bool_)

    def one(dt: np.dtype, opset: int, kind: str, c: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
        cid = f"Where/opset{opset}/{dt.name}/{kind}/{_shape_tag([c.shape, x.shape, y.shape])}"
        out.append(_own(cid, "Where", opset, [c, x, y], ["x0", "x1", "x2"], {}, dt, kind))

    def rand(dt: np.dtype, opset: int, kind: str, shapes: Sequence[tuple[int, ...]]) -> None:
        rng = _rng(f"Where/{opset}/{dt.name}/{kind}/{shapes}")
        one(
            dt,
            opset,
            kind,
            gen_general(rng, b, shapes[0]),
            gen_general(rng, dt, shapes[1]),
            gen_general(rng, dt, shapes[2]),
        )

    for dt in [t for t in STORED if t in _types_of(info.other_types)]:
        main_type = dt in (MAIN_FLOAT, np.dtype(np.int32))
        for n in MAIN_LENGTHS if dt == MAIN_FLOAT else OTHER_LENGTHS:
            rand(dt, main, "length", [(n,)] * 3)
        for s in SMALL_SHAPES:
            rand(dt, main, "small", [s] * 3)
        sp = specials(dt)  # every special selected from x and from y, against every other one
        one(
            dt,
            main,
            "specials",
            np.array([True, False]).reshape(2, 1, 1),
            sp.reshape(1, -1, 1),
            sp.reshape(1, 1, -1),
        )
        for shapes in WHERE_SHAPES if main_type or dt == reference.BF16 else WHERE_SHAPES[:5]:
            rand(dt, main, "broadcast", shapes)
        for form in forms:
            if form != main:
                rand(dt, form, "opset-form", [(37,)] * 3)
                rand(dt, form, "opset-form", [(3, 1), (1, 5), ()])
    yield from (d for d in out if d is not None)


def _clip_bounds(dt: np.dtype) -> dict[str, tuple[Any, Any]]:
    """Variant name -> (lo, hi); None is an omitted bound."""
    if reference.is_float(dt):
        lo, hi = -2.5, 3.0
        v: dict[str, tuple[Any, Any]] = {
            "zeros": (0.0, -0.0),
            "infs": (-np.inf, np.inf),
            "tiny": (2.0**-30, 0.1),
        }
    elif dt.kind == "u":
        lo, hi = 2, 20
        ii = np.iinfo(dt)
        v = {"extremes": (int(ii.max) - 1, int(ii.max))}
    else:
        lo, hi = -7, 7
        ii = np.iinfo(dt)
        v = {"extremes": (int(ii.min), int(ii.min) + 1)}
    return {
        "none": (None, None),
        "min": (lo, None),
        "max": (None, hi),
        "both": (lo, hi),
        "inverted": (hi, lo),
        **v,
    }


def clip_drafts(info: Any) -> Iterator[Draft]:
    forms = opset_forms("Clip", info.since_opset)  # 6 (attributes), 11 (inputs), 12 (integers), 13
    main = min(max(MAIN_OPSET_FLOOR, forms[-1]), ORT_MAX_OPSET)
    out: list[Draft | None] = []

    def one(dt: np.dtype, opset: int, variant: str, kind: str, x: np.ndarray, bshape: tuple = ()) -> None:
        lo, hi = _clip_bounds(dt)[variant]
        ins, names = [x], ["x0"]
        for v in (lo, hi):
            if v is None:
                names.append("")
            else:
                names.append(f"x{len(ins)}")
                ins.append(np.full(bshape, v, dtype=dt))
        while names and names[-1] == "":
            names.pop()
        cid = f"Clip[{variant}]/opset{opset}/{dt.name}/{kind}/{_shape_tag([a.shape for a in ins])}"
        out.append(_own(cid, "Clip", opset, ins, names, {}, dt, kind, out_shape=x.shape))

    def one_attr(dt: np.dtype, attrs: dict[str, float], kind: str, x: np.ndarray) -> None:
        cid = f"Clip[{_tag_of(attrs)}]/opset6/{dt.name}/{kind}/{_shape_tag([x.shape])}"
        out.append(_own(cid, "Clip", 6, [x], ["x0"], attrs, dt, kind))

    types = [t for t in STORED if t in _types_of(info.input0_types)]
    for dt in types:
        rng = _rng(f"Clip/{dt.name}")
        for n in MAIN_LENGTHS if dt == MAIN_FLOAT else OTHER_LENGTHS:
            one(dt, main, "both", "length", gen_general(rng, dt, (n,)))
        for s in SMALL_SHAPES:
            one(dt, main, "both", "small", gen_general(rng, dt, s))
        for variant in _clip_bounds(dt):
            one(dt, main, variant, "specials", specials(dt))
            one(dt, main, variant, "random", gen_general(rng, dt, (2, 3, 5)))
        if dt == MAIN_FLOAT:
            one(dt, main, "both", "bound-shape-1", gen_general(rng, dt, (9,)), (1,))
        for form in forms[1:]:
            if form != main:
                one(dt, form, "both", "opset-form", gen_general(rng, dt, (37,)))
                one(dt, form, "none", "opset-form", specials(dt))
        if reference.is_float(dt):  # opset 6: float attributes, defaults the lowest/highest finite FLOAT
            for attrs in (
                {},
                {"min": -2.5},
                {"max": 3.0},
                {"min": -2.5, "max": 3.0},
                {"min": 3.0, "max": -2.5},
            ):
                one_attr(dt, attrs, "specials", specials(dt))
                one_attr(dt, attrs, "opset-form", gen_general(rng, dt, (37,)))
            one_attr(dt, {"min": 0.1, "max": 1e5}, "specials", specials(dt))  # bounds not exact in f16
    yield from (d for d in out if d is not None)


def pow_exponent_specials(dt: np.dtype) -> np.ndarray:
    if reference.is_float(dt):
        more = _as(
            [2.0, -2.0, 0.5, -0.5, -3.0, 1 / 3, 10.0, 100.0, -100.0, 31.0, 2.0**63, 2.0**64, 1e-10], dt
        )
        return np.concatenate([specials(dt), more])
    ii = np.iinfo(dt)
    more = [v for v in (4, 5, 10, 19, 31, 32, 39, 62, 63, 64, 100, -3, -10) if ii.min <= v <= ii.max]
    return np.concatenate([specials(dt), np.array(more, dtype=dt)])


def gen_pow_base(rng: np.random.Generator, dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    if reference.is_float(dt):
        mag = np.exp2(rng.uniform(-20, 20, n))
        vals = np.where(
            rng.random(n) < 0.5, rng.uniform(-4, 4, n), mag * np.where(rng.random(n) < 0.3, -1, 1)
        )
        out = vals.astype(dt)
    else:
        out = np.where(
            rng.random(n) < 0.8, rng.integers(-20, 21, n), rng.integers(-(2**31), 2**31, n)
        ).astype(dt)
    sp = specials(dt)
    pick = rng.random(n) < 1 / 8
    out[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
    return out.reshape(shape)


def gen_pow_exponent(rng: np.random.Generator, dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    if reference.is_float(dt):
        vals = np.where(
            rng.random(n) < 0.5,
            rng.integers(-8, 9, n) / rng.choice([1.0, 2.0, 4.0], n),
            rng.uniform(-12, 12, n),
        )
        out = vals.astype(dt)
    else:
        lo = 0 if dt.kind == "u" else -3
        out = rng.integers(lo, 41, n).astype(dt)
    sp = pow_exponent_specials(dt)
    pick = rng.random(n) < 1 / 8
    out[pick] = sp[rng.integers(0, len(sp), int(pick.sum()))]
    return out.reshape(shape)


def pow_drafts(info: Any) -> Iterator[Draft]:
    forms = opset_forms("Pow", info.since_opset)  # 7 (one type), 12 (exponent types), 13, 15
    main = min(max(MAIN_OPSET_FLOOR, forms[-1]), ORT_MAX_OPSET)
    bases = [t for t in STORED if t in _types_of(info.input0_types)]
    exps = [t for t in STORED if t in _types_of(info.other_types)]
    out: list[Draft | None] = []

    def one(bt: np.dtype, et: np.dtype, opset: int, kind: str, x: np.ndarray, y: np.ndarray) -> None:
        cid = f"Pow/opset{opset}/{bt.name}^{et.name}/{kind}/{_shape_tag([x.shape, y.shape])}"
        out.append(_own(cid, "Pow", opset, [x, y], ["x0", "x1"], {}, bt, kind))

    def rand(bt: np.dtype, et: np.dtype, opset: int, kind: str, sa: tuple, sb: tuple) -> None:
        rng = _rng(f"Pow/{opset}/{bt.name}^{et.name}/{kind}/{sa}x{sb}")
        one(bt, et, opset, kind, gen_pow_base(rng, bt, sa), gen_pow_exponent(rng, et, sb))

    for bt in bases:
        for et in exps:
            main_combo = (bt.name, et.name) in (("float32", "float32"), ("int32", "int32"))
            xs, ys = specials(bt), pow_exponent_specials(et)
            # every base special against every exponent special (-1 against |y| > 2^64 included)
            one(bt, et, main, "specials", xs.reshape(-1, 1), ys.reshape(1, -1))
            for n in MAIN_LENGTHS if (bt.name, et.name) == ("float32", "float32") else [1, 17, 33, 65, 129]:
                rand(bt, et, main, "length", (n,), (n,))
            for s in SMALL_SHAPES:
                rand(bt, et, main, "small", s, s)
            for sa, sb in BROADCAST_SHAPES if main_combo else SHORT_BROADCAST:
                rand(bt, et, main, "broadcast", sa, sb)
            for form in forms:
                wanted = form == 12 or main_combo or (bt == et and form == 7)
                if form != main and wanted:
                    rand(bt, et, form, "opset-form", (37,), (37,))
    yield from (d for d in out if d is not None)


OWN_DRAFTS: dict[str, Callable[[Any], Iterator[Draft]]] = {
    "Cast": cast_drafts,
    "CastLike": castlike_drafts,
    "Where": where_drafts,
    "Clip": clip_drafts,
    "Pow": pow_drafts,
}


# ------------------------------------------------------------------------------------------------ run


def run_session(
    sess: ort.InferenceSession,
    feeds: dict[str, np.ndarray],
    outputs: Sequence[tuple[str, np.dtype, tuple[int, ...]]],
) -> list[np.ndarray]:
    """sess.run, also for bfloat16 (which ORT's Python binding cannot convert): bf16 inputs go in as OrtValues
    over their bits and bf16 outputs are written by ORT into preallocated arrays (io_binding). `outputs`:
    (name, dtype, shape); the shape is used for bf16 outputs only."""
    if all(a.dtype != reference.BF16 for a in feeds.values()) and all(
        o[1] != reference.BF16 for o in outputs
    ):
        return [np.asarray(o) for o in sess.run([o[0] for o in outputs], feeds)]
    bind = sess.io_binding()
    keep = []
    for name, a in feeds.items():
        if a.dtype == reference.BF16:
            bits = np.asarray(a, order="C").view(np.uint16)  # (ascontiguousarray makes rank 0 rank 1)
            keep.append(bits)
            bind.bind_ortvalue_input(
                name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, onnx.TensorProto.BFLOAT16)
            )
        else:
            bind.bind_cpu_input(name, np.asarray(a, order="C"))
    held: dict[str, np.ndarray] = {}
    for name, dt, shape in outputs:
        if dt == reference.BF16:
            buf = np.zeros(shape, dtype=np.uint16)
            held[name] = buf
            bind.bind_ortvalue_output(
                name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(buf, onnx.TensorProto.BFLOAT16)
            )
        else:
            bind.bind_output(name, "cpu")
    sess.run_with_iobinding(bind)
    got = bind.get_outputs()
    res = []
    for k, (name, _, _) in enumerate(outputs):
        res.append(held[name].view(reference.BF16) if name in held else np.asarray(got[k].numpy()))
    return res


def run_ort(model: onnx.ModelProto, inputs: Sequence[np.ndarray]) -> np.ndarray:
    so = ort.SessionOptions()
    so.log_severity_level = 4  # its refusals are recorded in the case's reason
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    out = model.graph.output[0]
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(out.type.tensor_type.elem_type))
    shape = tuple(d.dim_value for d in out.type.tensor_type.shape.dim)
    return run_session(sess, {f"x{i}": a for i, a in enumerate(inputs)}, [("y", dt, shape)])[0]


def run_reference(d: Draft) -> np.ndarray | None:
    """The spec's value of the draft's graph (exact mode), or None when the reference lacks an op."""
    env = {f"x{i}": a for i, a in enumerate(d.inputs)}
    out: np.ndarray | None = None
    for k, (op, ins, attrs) in enumerate(d.nodes):
        try:
            out = reference.evaluate(op, [env[n] if n else None for n in ins], attrs, "exact", d.opset)
        except reference.Unsupported:
            return None
        env["y" if k == len(d.nodes) - 1 else f"t{k}"] = out
    return out


def _describe(mask: np.ndarray, ins: Sequence[np.ndarray], ort_out: np.ndarray, ref: np.ndarray) -> str:
    idx = np.argwhere(mask)
    where = tuple(int(i) for i in idx[0]) if idx.size else ()
    shape = ref.shape
    parts = []
    for a in ins:
        try:
            b = np.broadcast_to(a, shape) if a.shape != shape else a
            parts.append(repr(b[where].item()) if b.size else "?")
        except ValueError:  # CastLike's second input: any shape
            parts.append("...")
    return (
        f"{int(mask.sum())} element(s) differ, e.g. at {list(where)}: inputs ({', '.join(parts)}), "
        f"ORT {ort_out[where].item()!r}, spec {ref[where].item()!r}"
    )


def finish(d: Draft, transcendental: bool, hazard: str | None) -> dict[str, Any]:
    ref = run_reference(d)
    ort_out: np.ndarray | None = None
    reason: str | None = None
    if hazard is not None:
        assert ref is not None, f"{d.id}: ORT cannot run it and the reference lacks the op"
        expected, reason = ref, hazard
    else:
        try:
            ort_out = run_ort(d.model, d.inputs)
        except Exception as exc:  # ORT has no kernel for this type or opset, or refuses the inputs
            if ref is None:
                raise RuntimeError(f"{d.id}: ORT fails and the reference lacks the op: {exc}") from exc
            msg = str(exc).split(" : ")[-1].strip()
            expected, reason = ref, f"ORT {ort.__version__} fails ({msg}); value from the spec"
    if ort_out is not None:
        expected = ort_out
        if ref is not None:
            if ref.shape != ort_out.shape or ref.dtype != ort_out.dtype:
                raise RuntimeError(
                    f"{d.id}: ORT gives {ort_out.dtype}{ort_out.shape}, spec {ref.dtype}{ref.shape}"
                )
            if transcendental:
                err = reference.scaled_error(ort_out, ref)
                if err > 1e-4:
                    with np.errstate(all="ignore"):
                        o64, r64 = ort_out.astype(np.float64), ref.astype(np.float64)
                        bad = ~(
                            (o64 == r64)
                            | (np.isnan(o64) & np.isnan(r64))
                            | (np.abs(o64 - r64) <= 1e-4 * np.maximum(np.abs(r64), 1e-3))
                        )
                    expected = ref
                    reason = (
                        f"spec differs from ORT (scaled error {err:.3g}): "
                        f"{_describe(bad, d.inputs, ort_out, ref)}"
                    )
            elif not reference.same_values(ort_out, ref, zero_sign=True):
                bad = ~_elementwise_same(ort_out, ref)
                expected = ref
                why = f" ({DELIBERATE[d.op]})" if d.op in DELIBERATE else ""
                reason = f"spec differs from ORT{why}: {_describe(bad, d.inputs, ort_out, ref)}"
    case: dict[str, Any] = {
        "id": d.id,
        "op": d.op,
        "opset": d.opset,
        "attributes": d.attributes,
        "tags": d.tags,
        "transcendental": transcendental,
        "model": base64.b64encode(d.model.SerializeToString()).decode(),
        "inputs": [tensor_to_json(a) for a in d.inputs],
        "expected": tensor_to_json(expected),
    }
    if reason is not None:
        case["reason"] = reason
        case["ort"] = tensor_to_json(ort_out) if ort_out is not None else None
    return case


# The spec's deliberate differences from ORT 1.31.1, named in the reasons of the cases they show in.
_CAST_NOTE = (
    "out-of-range float -> integer saturates and NaN gives 0 (ORT wraps, NaN gives INT_MIN); "
    "f64 -> f16/bf16 and integer -> bf16 round once (ORT rounds through f32)"
)
DELIBERATE = {
    "Cast": _CAST_NOTE,
    "CastLike": _CAST_NOTE,
    "Where": "a selected -0 stays -0 (ORT returns +0)",
    "Clip": "an omitted bound is the type's finite extreme, so Clip(+inf) is the type's max",
    "Pow": (
        "Pow(x, 0) = 1 for NaN x; the exponent is first converted to the base's float type; the pow is "
        "correctly rounded (ORT's is not always, and cubes as x*x*x); integer bases saturate, NaN gives 0 "
        "(ORT gives INT_MIN)"
    ),
    "Softsign": (
        "Softsign(+-inf) is +-1, the limit (ORT computes inf/inf = NaN); f32: an IEEE sum and division "
        "(ORT's f32 kernel is up to an ulp off)"
    ),
    "PRelu": "x < 0 with a zero product gives -0, the IEEE product (ORT gives +0 for f16 and f64)",
    "LeakyRelu": "x < 0 with a zero product gives -0, the IEEE product (ORT gives +0 for f64)",
    "Max": "equal operands give the second one",
    "Min": "equal operands give the second one",
}


def _elementwise_same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not reference.is_float(a.dtype):
        return np.asarray(a == b)
    an, bn = np.isnan(a), np.isnan(b)
    with np.errstate(all="ignore"):
        return np.asarray((an & bn) | ((a == b) & (np.signbit(a) == np.signbit(b))))


def build_cases() -> list[dict[str, Any]]:
    from onemodel_ep._lib import F_STRUCT

    # the element-wise ops only (the structured ones, OM_F_STRUCT, have tests of their own)
    table = {op: info for op, info in onemodel_ep.op_table().items() if not info.flags & F_STRUCT}
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(d: Draft, transcendental: bool, hazard: str | None) -> None:
        if d.id in seen:
            return
        seen.add(d.id)
        cases.append(finish(d, transcendental, hazard))

    for op in sorted(table):
        if op in OWN_DRAFTS:
            for d in OWN_DRAFTS[op](table[op]):
                add(d, False, None)
            continue
        spec = spec_for(op, table[op])
        for d in drafts_for_op(op, table[op]):
            assert spec is not None
            hz = spec.hazard(d.inputs, d.attributes) if spec.hazard is not None else None
            add(d, spec.transcendental, hz)
    for d in crafted_drafts(table):
        trans = any(OPS[op].transcendental if op in OPS else False for op, _, _ in d.nodes)
        hz = None
        for op, _, attrs in d.nodes:
            s = OPS.get(op)
            if s is not None and s.hazard is not None and len(d.inputs) >= 2:
                hz = hz or s.hazard(d.inputs[:2], attrs)
        add(d, trans, hz)
    return cases


def write(cases: list[dict[str, Any]], path: Path) -> None:
    doc = {
        "format": FORMAT_VERSION,
        "generator": "tests/reference/ops_elementwise_oracle.py",
        "onnxruntime": ort.__version__,
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "tensor_encoding": "dtype name, shape, raw little-endian bytes in base64",
        "cases": cases,
    }
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        open(path, "wb") as fh,
        gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz,
    ):
        gz.write(raw)


def load(path: Path = OUT) -> dict[str, Any]:
    with gzip.open(path, "rb") as fh:
        doc: dict[str, Any] = json.loads(fh.read())
    return doc


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--check", action="store_true", help="fail if the file on disk differs from a fresh build"
    )
    args = ap.parse_args(argv)
    if ort.__version__ != "1.31.1":
        print(
            f"warning: the cases are pinned to onnxruntime 1.31.1, this is {ort.__version__}", file=sys.stderr
        )
    cases = build_cases()
    if args.check:
        old = load(args.out)["cases"]
        if old != json.loads(json.dumps(cases)):
            rerun = "python -m tests.reference.ops_elementwise_oracle"
            print(f"{args.out} is stale: re-run {rerun}", file=sys.stderr)
            return 1
        print(f"{args.out}: {len(cases)} cases, up to date")
        return 0
    write(cases, args.out)
    by_reason = sum(1 for c in cases if "reason" in c)
    print(
        f"wrote {args.out}: {len(cases)} cases ({by_reason} with a reason), {args.out.stat().st_size} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
