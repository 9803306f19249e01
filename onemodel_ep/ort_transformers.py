"""ONNX Runtime's level-1 graph transformers, each with what OneModel EP does about it and why.

ORT runs its level-1 transformers on the whole graph before it asks any execution provider for its
capability (level 2 and 3 run afterwards and only on the CPU EP's nodes, so they never touch a node of ours).
A level-1 transformer that computes a value with a stock kernel, or that replaces a sequence of served ops
by one op of other arithmetic, would make the EP path's bits differ from the rewrite path's (where ORT cannot
see into ai.onemodel nodes): those are disabled for sessions that use the EP (`ep.NUMERIC_OPTIMIZERS`, read
from this table). The rest only move, share or remove nodes without changing a value, and stay on.

The names are those ORT 1.31.1 logs at verbose level ("Applying graph transformer <name>"), and for the
rules of `Level1_RuleBasedTransformer` (which the log does not list one by one) the names ORT's
`optimization.disable_specified_optimizers` matches. tests/ep/test_ort_transformers.py reads the running
ORT's list from its log, fails on a name this table does not classify, and runs one small graph per
value-changing pattern through both paths, bit for bit. docs/architecture.md has the table in prose.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["LEVEL1", "Transformer", "disabled_names"]


class Transformer(NamedTuple):
    name: str
    rule: bool  # a rule of Level1_RuleBasedTransformer (disabled by its own name), else a transformer
    disabled: bool  # disabled for sessions that use the EP
    why: str


_KEEP_MOVE = "moves, shares or removes nodes; every value stays what the unmodified graph computes"

LEVEL1: tuple[Transformer, ...] = (
    # Rules of Level1_RuleBasedTransformer.
    Transformer("EliminateIdentity", True, False, _KEEP_MOVE),
    Transformer("EliminateSlice", True, False, "removes a Slice that selects everything: a copy"),
    Transformer("UnsqueezeElimination", True, False, "unsqueezes an initializer in place: a copy"),
    Transformer("EliminateDropout", True, False, "removes an inference Dropout: the identity"),
    Transformer("ExpandElimination", True, False, "removes an Expand to the input's own shape: a copy"),
    Transformer("CastElimination", True, False, "removes a Cast to the input's own type: the identity"),
    Transformer("PreShapeNodeElimination", True, False, "removes a Cast in front of Shape: shapes only"),
    Transformer("NoopElimination", True, True,
                "removes x+0, x-0, x*1, x/1: x+0 is not x for x = -0, and the node would be ours"),
    Transformer("DivMulFusion", True, True, "rewrites 1/x*y as y/x: two roundings become one"),
    Transformer("FuseReluClip", True, False,
                "Relu then Clip becomes one Clip with min raised to 0: max(min(max(x, 0), hi), lo) and "
                "min(max(x, max(lo, 0)), hi) are the same value for every x, NaN and -0 included "
                "(tests/ep/test_ort_transformers.py)"),
    Transformer("GemmSumFusion", True, True,
                "adds a Sum's other operand into Gemm's C: another order of adds"),
    Transformer("GemmTransposeFusion", True, False,
                "folds a Transpose into Gemm's transA/transB: our Gemm sums each product in k order "
                "whatever the operand layout, so the same bits"),
    Transformer("NotWhereFusion", True, False,
                "Not then Where becomes Where with its branches swapped: a select"),
    Transformer("ConvAddFusion", True, True, "adds a constant into Conv's bias with a stock Add"),
    Transformer("ConvMulFusion", True, True, "multiplies a constant into Conv's weights with a stock Mul"),
    Transformer("ConvBNFusion", True, True,
                "folds BatchNormalization into Conv's weights with stock arithmetic"),
    Transformer("Pad_Fusion", True, False,
                "a constant-0 Pad before Conv or a pool becomes the node's pads: our Conv and pools read a "
                "padded position as the same +0 an explicit Pad writes"),
    Transformer("MatMul_BatchNormalization_Fusion", True, True,
                "folds BatchNormalization into a Gemm's weights and bias with stock arithmetic"),
    Transformer("LabelEncoderFusion", True, False, "merges LabelEncoders (ai.onnx.ml): not an op we serve"),
    # Transformers.
    Transformer("Level1_RuleBasedTransformer", False, False, "runs the rules above; disabled ones by name"),
    Transformer("DoubleQDQPairsRemover", False, False,
                "removes Q->DQ->Q->DQ pairs with the same scale and zero point: the values are the same"),
    Transformer("ConstantSharing", False, False, _KEEP_MOVE),
    Transformer("CommonSubexpressionElimination", False, False,
                "computes equal nodes once: our kernels give equal inputs equal bits"),
    Transformer("ConstantFolding", False, True,
                "computes constant nodes with stock kernels; onemodel_ep.fold does it with ours"),
    Transformer("MatMulAddFusion", False, False,
                "MatMul then Add becomes a Gemm: our Gemm with alpha = beta = 1 rounds the product and then "
                "adds C once, the MatMul's and the Add's roundings"),
    Transformer("ReshapeFusion", False, False, "merges the shape computations of a Reshape: shapes only"),
    Transformer("FreeDimensionOverrideTransformer", False, False, "fixes symbolic dimensions: shapes only"),
    Transformer("SliceConcatToSpaceToDepthFusion", False, False,
                "Slice/Concat patterns become SpaceToDepth: a copy either way"),
    Transformer("GeluFusionL1", False, True,
                "replaces the erf form of Gelu (Div, Erf, Add, Mul, Mul) by one com.microsoft Gelu of its "
                "own arithmetic"),
    Transformer("LayerNormFusionL1", False, True,
                "replaces ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add by one "
                "LayerNormalization, whose arithmetic differs from the sequence's"),
    Transformer("QDQPropagationTransformer", False, True,
                "moves Q/DQ pairs across Transpose, Reshape and the like, above DISABLE_ALL only: the EP's "
                "QDQ groups (docs/quantized.md) would differ between optimisation levels"),
    Transformer("WeightBiasQuantization", False, True,
                "quantizes a float weight and bias with stock code and its own scale"),
    Transformer("EnsureUniqueDQForNodeUnit", False, False,
                "duplicates a shared DequantizeLinear: a copy. ORT also runs it once before partitioning "
                "at every level (unless session.disable_quant_qdq), so the EP's QDQ groups see the same "
                "graph at every level; onemodel_ep.qdq_unique does the same copying for both ways in"),
    Transformer("WhereDummyDq", False, False,
                "gives Where's constant branch a DequantizeLinear whose value is that constant"),
    Transformer("RocmBlasAltImpl", False, False, "ROCm EP only"),
    Transformer("TransposeOptimizer", False, False,
                "moves and cancels Transposes through layout-agnostic ops: copies"),
)

# Earlier ORT releases' names of the same transformers (ORT ignores a name it does not know).
_FORMER_NAMES = {"GeluFusionL1": "GeluFusion", "LayerNormFusionL1": "LayerNormFusion"}


def disabled_names() -> tuple[str, ...]:
    """What `optimization.disable_specified_optimizers` lists for a session that uses OneModel EP."""
    names: list[str] = []
    for t in LEVEL1:
        if t.disabled:
            names.append(t.name)
            if t.name in _FORMER_NAMES:
                names.append(_FORMER_NAMES[t.name])
    return tuple(names)
