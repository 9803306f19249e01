"""The ONNX Attention (opsets 23, 24) test models shared by test_onnx_attention.py and the two tests written
from docs/attention.md (test_onnx_attention_docs.py, test_onnx_attention_f16_docs.py): the inputs' names and
types, the node's attributes from a reference's Attrs, the one-node model with its feeds, the masks' shapes,
and the docs tests' case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import onnx
from onnx import helper

from tests.nodes import node_sessions as S
from tests.reference import onnx_attention_docs_reference as D

NAMES = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]
OUTS = ("Y", "present_key", "present_value")


class Attrs(Protocol):
    """The attributes of the references' Attrs (each reference has its own class)."""

    @property
    def is_causal(self) -> int: ...
    @property
    def q_num_heads(self) -> int: ...
    @property
    def kv_num_heads(self) -> int: ...
    @property
    def scale(self) -> float | None: ...
    @property
    def softcap(self) -> float: ...


def onnx_type(x: np.ndarray | None) -> int:
    """x's element type; 0 (absent) for None."""
    return 0 if x is None else helper.np_dtype_to_tensor_dtype(x.dtype)


def input_types(ins: list[np.ndarray | None]) -> list[int]:
    """The node's input types, the absent inputs at the end left off."""
    types = [onnx_type(x) for x in ins]
    while types and types[-1] == 0:
        types.pop()
    return types


def node_attrs(at: Attrs) -> dict[str, Any]:
    """The node's attributes: those of `at` set (not 0 or None; 0 or absent is ONNX's default for each)."""
    d: dict[str, Any] = {}
    for f in ("q_num_heads", "kv_num_heads", "is_causal", "scale", "softcap"):
        if getattr(at, f):
            d[f] = getattr(at, f)
    return d


def model(ins: list[np.ndarray | None], at: Attrs, opset: int,
          outs: tuple[str, ...] | list[str] = OUTS) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A model of one Attention node named "attn" over inputs `ins` (None: absent), its outputs `outs` of Q's
    type; and its feeds."""
    used = [n if x is not None else "" for n, x in zip(NAMES, ins)]
    while used and used[-1] == "":
        used.pop()
    feeds = {n: x for n, x in zip(NAMES, ins) if x is not None}
    node = helper.make_node("Attention", used, list(outs), name="attn", **node_attrs(at))
    return S.one_node_model(node, feeds, onnx_type(ins[0]), opset), feeds


def mask_shape(letters: str, B: int, N: int, S: int, T: int) -> tuple[int, ...]:
    """A mask's shape from letters of b, n, s, t (either case) and 1."""
    dims = {"b": B, "n": N, "s": S, "t": T, "1": 1}
    return tuple(dims[ch] for ch in letters.lower())


@dataclass(frozen=True)
class DocsCase:
    """A case of the tests written from docs/attention.md: rank 3 (B, S, heads H) or 4 (B, heads, S, H); a
    mask "", "bool:<letters>" or "float:<letters>" (mask_shape's); nonpad_kv_seqlen (opset 24) when given;
    in test_onnx_attention_f16_docs.py the inputs' magnitudes scale_q (Q, K and past_key) and scale_v (V and
    past_value) (test_onnx_attention_docs.py's inputs are all of magnitude 1.5)."""

    id: str
    at: D.Attrs
    B: int
    S: int
    L: int
    qh: int
    kvh: int
    H: int
    Hv: int
    rank: int = 3
    P: int = 0
    mask: str = ""
    nonpad: tuple[int, ...] = ()
    scale_q: float = 1.5
    scale_v: float = 1.5

    @property
    def opset(self) -> int:
        return 24 if self.nonpad else 23

    def mask_shape(self, letters: str) -> tuple[int, ...]:
        return mask_shape(letters, self.B, self.qh, self.S, self.P + self.L)
