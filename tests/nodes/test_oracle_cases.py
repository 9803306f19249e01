"""Every crafted case of testdata/ops-elementwise/cases.json.gz, on every kernel path, in both modes.

Each case's model is rewritten with onemodel_ep.rewrite and run in a plain onnxruntime.InferenceSession built
with onemodel_ep.session_options(). Checks (spec, "Verification"):
  - every node the op table serves was moved to ai.onemodel (no silent pass on stock ORT);
  - pure IEEE / integer operators: equal values (scaled error 0; NaN matches NaN, signed zeros must match),
    and in exact mode the very bits of the expected value with canonical NaNs;
  - transcendentals (and graphs containing one): scaled error at most 1e-4;
  - exact mode: bit-identical outputs across kernel paths.
"""

from __future__ import annotations

import base64
import os
import re
from functools import lru_cache

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep._lib import F_MODES, F_STRUCT, MODES
from tests.reference import reference
from tests.reference.ops_elementwise_oracle import NOT_YET, OUT, load, run_session, tensor_from_json

PATHS = onemodel_ep.kernel_paths()
# The element-wise ops (the structured ones, OM_F_STRUCT, have their own tests: test_matmul_node.py, ...).
TABLE = {op: info for op, info in onemodel_ep.op_table().items() if not info.flags & F_STRUCT}
TRANSCENDENTAL_TOL = 1e-4

POW_ULPS = 1  # Pow results: within 1 ulp of the expected value (spec: the library uses its own pow)

# Library bugs found by these cases: case-id regex -> reason (xfail, strict). Empty when the library is clean.
KNOWN_BUGS: dict[str, str] = {}


@lru_cache(maxsize=1)
def _doc() -> dict:
    return load(OUT)


# ONEMODEL_ORACLE_EVERY=N runs every Nth case only (tools/verify/arm64_check.sh: the whole set does not fit
# in its time under emulation); the default runs them all.
EVERY = int(os.environ.get("ONEMODEL_ORACLE_EVERY", "1"))


def _cases() -> list:
    params = []
    for c in _doc()["cases"][::EVERY]:
        marks = [
            pytest.mark.xfail(strict=True, reason=r)
            for pat, r in KNOWN_BUGS.items()
            if re.search(pat, c["id"])
        ]
        params.append(pytest.param(c, id=c["id"], marks=marks))
    return params


@lru_cache(maxsize=1)
def _session_options() -> ort.SessionOptions:
    so = onemodel_ep.session_options()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return so


def _must_move(node: onnx.NodeProto, types: dict[str, int], opset: int) -> bool:
    """Whether the op table serves this node (op, opset, input types, fmod rule)."""
    info = TABLE.get(node.op_type)
    if info is None or opset < info.since_opset:
        return False
    in_types = [types[n] for n in node.input if n]
    if not info.min_inputs <= len(in_types) <= info.max_inputs:
        return False
    if in_types[0] not in info.input0_types:
        return False
    others = info.other_types or frozenset({in_types[0]})
    if any(t not in others for t in in_types[1:]):
        return False
    fmod = next((onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == "fmod"), 0)
    float_types = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE}
    return not (node.op_type == "Mod" and fmod == 0 and in_types[0] in float_types)


def _run_all(model: onnx.ModelProto, feeds: dict, expected: np.ndarray) -> dict:
    """(mode, path) -> (output, report) for every mode and kernel path, from ONE session.

    Each (mode, path) gets its own rewrite of the case's model (onemodel_ep.rewrite, as a user would call it);
    the rewritten graphs are then placed side by side in one model, their values renamed apart, so a single
    plain ORT session (with onemodel_ep.session_options()) runs them all. This keeps the whole suite fast.
    """
    merged = onnx.ModelProto()
    merged.CopyFrom(model)
    del merged.graph.node[:]
    del merged.graph.output[:]
    del merged.graph.value_info[:]
    reports = {}
    graph_inputs = {i.name for i in model.graph.input}
    for mode in MODES:
        for path in PATHS:
            rep = onemodel_ep.RewriteReport(mode, path)
            r = onemodel_ep.rewrite(model, mode=mode, kernel_path=path, report=rep)
            suffix = f"__{mode}_{path}"
            for node in r.graph.node:
                node.name += suffix
                for k, name in enumerate(node.input):
                    if name and name not in graph_inputs:
                        node.input[k] = name + suffix
                for k, name in enumerate(node.output):
                    node.output[k] = name + suffix
                merged.graph.node.append(node)
            out = onnx.ValueInfoProto()
            out.CopyFrom(r.graph.output[0])
            out.name += suffix
            merged.graph.output.append(out)
            for imp in r.opset_import:
                if not any(i.domain == imp.domain for i in merged.opset_import):
                    merged.opset_import.append(imp)
            reports[(mode, path)] = (out.name, rep)
    sess = ort.InferenceSession(
        merged.SerializeToString(), sess_options=_session_options(), providers=["CPUExecutionProvider"]
    )
    outs = run_session(sess, feeds, [(reports[k][0], expected.dtype, expected.shape) for k in reports])
    return {k: (np.asarray(o), reports[k][1]) for k, o in zip(reports, outs)}


def test_case_file_is_big_enough():
    doc = _doc()
    assert doc["onnxruntime"] == "1.31.1"
    assert len(doc["cases"]) >= 700
    assert OUT.stat().st_size < 8 * 2**20
    ops = {c["op"] for c in doc["cases"]}
    missing = set(TABLE) - ops - NOT_YET  # NOT_YET: ops whose oracle rows are still to be written
    assert not missing, f"ops without cases: {missing}; run python -m tests.reference.ops_elementwise_oracle"


@pytest.mark.parametrize("case", _cases())
def test_case(case):
    model = onnx.load_model_from_string(base64.b64decode(case["model"]))
    inputs = [tensor_from_json(t) for t in case["inputs"]]
    feeds = {f"x{i}": a for i, a in enumerate(inputs)}
    expected = tensor_from_json(case["expected"])
    types = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input}
    opset = case["opset"]
    # intermediate values of the element-wise chains have the type of x0
    for node in model.graph.node:
        for o in node.output:
            types.setdefault(o, types["x0"])
    served = [n.op_type for n in model.graph.node if _must_move(n, types, opset)]
    is_pow = any(n.op_type == "Pow" for n in model.graph.node)
    loose = case["transcendental"] or any(
        TABLE[n.op_type].flags & F_MODES
        for n in model.graph.node
        if n.op_type in TABLE and n.op_type != "Pow"
    )

    exact_outputs: dict[str, np.ndarray] = {}
    results = _run_all(model, feeds, expected)
    for mode in MODES:
        for path in PATHS:
            got, rep = results[(mode, path)]
            moved = [n.op for n in rep.moved]
            # The transcendentals may be listed before their kernels land: then they stay with stock ORT.
            must = [op for op in served if op not in reference.TRANSCENDENTAL]
            assert sorted(op for op in moved if op not in reference.TRANSCENDENTAL) == sorted(must), (
                f"{mode}/{path}: moved {moved}, table serves {served}\n{rep.summary()}"
            )
            assert set(moved) <= set(served), f"{mode}/{path}: moved {moved}, table serves only {served}"
            served_here = bool(moved)
            ref = expected
            if not served_here and case.get("ort") is not None:
                ref = tensor_from_json(case["ort"])  # nothing moved: stock ORT's own output
            where = f"{case['id']} mode={mode} path={path}"
            assert got.dtype == ref.dtype and got.shape == ref.shape, f"{where}: {got.dtype}{got.shape}"
            if is_pow and not loose:  # our own pow in exact mode, the platform's in fast mode
                ok = reference.pow_within(got, ref, POW_ULPS)
                assert ok.all(), f"{where}: Pow beyond {POW_ULPS} ulp\n{_diff(got, ref, inputs, ~ok)}"
            elif loose:
                err = reference.scaled_error(got, ref)
                assert err <= TRANSCENDENTAL_TOL, (
                    f"{where}: scaled error {err:.3g}\n{_diff(got, ref, inputs)}"
                )
            elif mode == "exact" and served_here:
                want = reference.canonicalize(ref)
                assert (reference.bits(got) == reference.bits(want)).all(), (
                    f"{where}:\n{_diff(got, want, inputs)}"
                )
            else:
                assert reference.same_values(got, ref), f"{where}:\n{_diff(got, ref, inputs)}"
            if mode == "exact" and served_here:
                assert reference.nan_bits_canonical(got), f"{where}: NaN not canonical"
                exact_outputs[path] = got
    if exact_outputs:
        first_path, first = next(iter(exact_outputs.items()))
        for path, got in exact_outputs.items():
            assert (reference.bits(got) == reference.bits(first)).all(), (
                f"{case['id']}: exact mode differs between paths {first_path} and {path}\n"
                f"{_diff(got, first, inputs)}"
            )


def _diff(got: np.ndarray, want: np.ndarray, inputs: list, mask: np.ndarray | None = None) -> str:
    """The first few elements whose bits differ (or that `mask` marks), with the inputs there."""
    if got.shape != want.shape:
        return f"shape {got.shape} vs {want.shape}"
    bad = np.argwhere(reference.bits(got) != reference.bits(want) if mask is None else mask)
    lines = []
    for idx in bad[:6]:
        where = tuple(int(i) for i in idx)
        ins = [np.broadcast_to(a, got.shape)[where].item() if _fits(a, got) else "..." for a in inputs]
        lines.append(
            f"  at {list(where)}: inputs {ins}: got {got[where].item()!r} "
            f"(0x{int(reference.bits(got)[where]):x}), want {want[where].item()!r} "
            f"(0x{int(reference.bits(want)[where]):x})"
        )
    return f"{len(bad)} element(s) differ\n" + "\n".join(lines)


def _fits(a: np.ndarray, out: np.ndarray) -> bool:
    """Whether an input broadcasts to the output's shape (CastLike's second input need not)."""
    try:
        np.broadcast_to(a, out.shape)
    except ValueError:
        return False
    return True
