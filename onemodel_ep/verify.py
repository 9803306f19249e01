"""`onemodel verify`: a proof a user can check. Runs a model through OneModel EP (or the rewrite) on given
or seeded inputs and reports the bits version, the library version, whether every computing node ran on
OneModel's kernels, and the SHA-256 digest of the outputs (onemodel_ep.digests.output_digest). Two machines
that print the same digest for the same model, inputs and bits version computed the same bits."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx

from onemodel_ep import cli_args
from onemodel_ep.diff.inputs import InputSpec, check_inputs, model_inputs
from onemodel_ep.digests import BITS_VERSION, output_digest
from onemodel_ep.errors import DiffError, UsageError, one_line
from onemodel_ep.report import NodeReport
from onemodel_ep.version import __version__

# Ops whose outputs are copies or selections of their inputs' bits, or integer shape arithmetic: the same bits
# whichever provider runs them, so they do not count against "every computing node on OneModel EP".
DATA_MOVEMENT_OPS = frozenset(
    {
        "Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
        "ScatterND", "ScatterElements", "Unsqueeze", "Squeeze", "Expand", "Tile", "Shape", "Size", "Flatten",
        "Identity", "Constant", "ConstantOfShape", "DepthToSpace", "SpaceToDepth", "NonZero", "Trilu",
        "SequenceAt", "SequenceConstruct", "SplitToSequence", "ConcatFromSequence", "SequenceEmpty",
        "SequenceInsert", "SequenceLength", "If", "Loop", "Scan", "Optional", "OptionalGetElement",
        "OptionalHasElement", "Dropout",
    }
)  # fmt: skip
# Ops that are index arithmetic when every input is an integer (Range over int64 makes position ids).
INTEGER_INDEX_OPS = frozenset({"Range"})

# Seeded inputs: a symbolic or unknown dimension has this size; values come from PCG64's raw 64-bit stream
# (which numpy keeps fixed across versions and machines) mapped by integer and exact float arithmetic only.
SEEDED_DIM = 4
FLOAT_SPAN = 4.0  # floats uniform in [-FLOAT_SPAN, FLOAT_SPAN), rounded once to the input's type
INT_VALUES = 100  # integers in [0, INT_VALUES): valid token ids of any vocabulary of 100 or more
MASK_VALUES = 2  # integers of an input whose name holds "mask": 0 or 1


def computes(node: NodeReport) -> bool:
    """Whether the node computes values (False: it only moves or selects bits, or does index arithmetic)."""
    if node.op in DATA_MOVEMENT_OPS:
        return False
    ints = node.input_types and all(t.startswith(("int", "uint")) for t in node.input_types)
    return not (node.op in INTEGER_INDEX_OPS and ints)


@dataclass
class VerifyResult:
    bits_version: int
    library_version: str
    via: str
    kernel_path: str | None
    digest: str
    on_onemodel: int
    left: list[str] = field(default_factory=list)  # computing nodes that ran outside OneModel EP, with why

    @property
    def strict(self) -> bool:
        return not self.left

    def lines(self) -> list[str]:
        out = [
            f"bits version    {self.bits_version}",
            f"library version {self.library_version}",
            f"via             {self.via} (kernel path {self.kernel_path or 'auto'})",
            f"computing nodes {self.on_onemodel} on OneModel EP, {len(self.left)} elsewhere: "
            + ("every computing node on OneModel EP" if self.strict else "NOT every computing node"),
        ]
        out += [f"  not on OneModel EP: {n}" for n in self.left]
        out.append(f"digest          sha256:{self.digest}")
        return out


def _fill(spec: InputSpec, shape: list[int], seed: int, index: int) -> np.ndarray:
    size = int(np.prod(shape, dtype=np.int64))
    raw = np.random.PCG64([seed, index]).random_raw(size).astype(np.uint64)
    dtype = spec.dtype
    if dtype.kind == "b":
        return (raw >> np.uint64(63)).astype(bool).reshape(shape)
    if dtype.kind == "f":
        unit = (raw >> np.uint64(11)).astype(np.float64) * 2.0**-53  # exact: 53-bit integers times 2^-53
        return ((unit * 2.0 - 1.0) * FLOAT_SPAN).astype(dtype).reshape(shape)
    if dtype.kind in "iu":
        n = MASK_VALUES if "mask" in spec.name.lower() else INT_VALUES
        return (raw % np.uint64(n)).astype(dtype).reshape(shape)
    raise UsageError(f"input {spec.name!r}: cannot seed values of type {dtype}; pass --inputs FILE.npz")


def seeded_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Deterministic inputs from the model's input metadata: the same arrays on every machine."""
    try:
        specs = model_inputs(model)
    except DiffError as e:
        raise UsageError(str(e)) from None
    feeds: dict[str, np.ndarray] = {}
    for k, s in enumerate(specs):
        if s.dims is None:
            raise UsageError(f"input {s.name!r} has no declared shape; pass --inputs FILE.npz")
        shape = [d if isinstance(d, int) else SEEDED_DIM for d in s.dims]
        feeds[s.name] = _fill(s, shape, seed, k)
    return feeds


def checked_inputs(model: onnx.ModelProto, given: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Given inputs checked against the model (names, element types, ranks); a UsageError if not."""
    try:
        return check_inputs(model_inputs(model), given)
    except DiffError as e:
        raise UsageError(f"--inputs: {e}") from None


def result_of(sess: Any, outputs: list[Any], kernel_path: str | None) -> VerifyResult:
    """The VerifyResult of a OneModel session (onemodel_ep.InferenceSession) and its outputs."""
    report = sess.report
    left = [f"{n.op} {n.name or '(unnamed)'} ({n.category}: {n.reason})" for n in report.stayed
            if computes(n)]  # fmt: skip
    digest = output_digest(outputs)
    return VerifyResult(BITS_VERSION, __version__, sess.via, kernel_path, digest, len(report.moved), left)


def verify(
    model_path: str | os.PathLike[str],
    feeds: Mapping[str, np.ndarray] | None = None,
    via: str | None = None,
    kernel_path: str | None = None,
    seed: int = 0,
) -> VerifyResult:
    """Run the model in exact mode on `feeds` (default: seeded_inputs): what ran where, and the digest."""
    import onnxruntime as ort

    from onemodel_ep.session import InferenceSession

    path = os.fspath(model_path)
    graph = onnx.load(path, load_external_data=False)
    inputs = seeded_inputs(graph, seed) if feeds is None else checked_inputs(graph, feeds)
    so = ort.SessionOptions()
    so.log_severity_level = cli_args.ort_session_log_level()  # the result lists nodes left to the CPU EP
    try:
        sess = InferenceSession(path, so, mode="exact", kernel_path=kernel_path, via=via)
    except Exception as e:  # ORT's errors are plain Exception subclasses
        raise UsageError(f"cannot load {path}: {one_line(e)}") from None
    try:
        outputs = sess.run(None, inputs)
    except Exception as e:  # shapes the model cannot take, or a kernel's error
        raise UsageError(f"cannot run {path}: {one_line(e)}") from None
    return result_of(sess, outputs, kernel_path)
