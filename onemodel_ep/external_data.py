"""Models whose tensors live in external data files, and models too large for one protobuf message (2 GiB).

The rewriter touches nodes only, so a model read with `onnx.load(path, load_external_data=False)` (the graph,
without the weights) is all it needs; the weights stay in their files. Where the rewritten model is written
to another folder, it needs its data beside it (ORT refuses a location outside the model's folder), so each
data file is hard-linked there (copied where the file system cannot link).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Union

import onnx
from onnx.external_data_helper import uses_external_data

# Tensors larger than this are left out of the copy that shape inference reads (their type and dims suffice).
_SKELETON_BYTES = 1 << 20
# Above this, a model cannot be serialised for in-memory shape inference (protobuf's limit is 2 GiB).
SERIALISABLE_BYTES = (1 << 31) - (1 << 24)


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    yield from graph.initializer
    for sp in graph.sparse_initializer:
        yield sp.values
        yield sp.indices
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _graph_tensors(attr.g)
            for g in attr.graphs:
                yield from _graph_tensors(g)


def locations(model: onnx.ModelProto) -> list[str]:
    """The external data files the model's tensors name (relative to the model's folder), first use first."""
    found: dict[str, None] = {}
    for t in _graph_tensors(model.graph):
        if uses_external_data(t):
            loc = next((e.value for e in t.external_data if e.key == "location"), "")
            found[loc] = None
    return list(found)


def _checked(location: str) -> Path:
    p = Path(location)
    if not location or p.is_absolute() or ".." in p.parts:
        raise ValueError(f"external data location {location!r} is not a path inside the model's folder")
    return p


PathArg = Union[str, "os.PathLike[str]"]


def place_beside(model: onnx.ModelProto, src_dir: PathArg, dst_dir: PathArg) -> None:
    """Make the external data files of `model` (read from a file in `src_dir`) available to the same model
    written to `dst_dir`: nothing to do in the same folder, else each file is hard-linked (or copied) to the
    same relative location there. A different file already at that place is an error (FileExistsError)."""
    src, dst = Path(src_dir).resolve(), Path(dst_dir).resolve()
    if src == dst:
        return
    for loc in locations(model):
        rel = _checked(loc)
        s, d = src / rel, dst / rel
        if not s.is_file():
            raise FileNotFoundError(f"external data file {s} (location {loc!r}) does not exist")
        if d.exists():
            if os.path.samefile(s, d):
                continue
            raise FileExistsError(f"{d} exists and is not the external data file {s} (remove it)")
        d.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(s, d)
        except OSError:  # another file system, or one without hard links
            shutil.copyfile(s, d)


Message = Union[onnx.ModelProto, onnx.GraphProto]


def _copy_fields(dst: Message, src: Message, skip: str) -> None:
    for f, v in src.ListFields():
        if f.name == skip:
            continue
        if hasattr(v, "extend"):  # a repeated field
            getattr(dst, f.name).extend(v)
        elif hasattr(v, "CopyFrom"):  # a message
            getattr(dst, f.name).CopyFrom(v)
        else:
            setattr(dst, f.name, v)


def skeleton(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` without the data of its large main-graph initializers (their names, types and dims
    stay): what shape inference needs, small enough to serialise whatever the model's size."""
    out = onnx.ModelProto()
    _copy_fields(out, model, "graph")
    _copy_fields(out.graph, model.graph, "initializer")
    for t in model.graph.initializer:
        if t.ByteSize() > _SKELETON_BYTES:
            out.graph.initializer.add(name=t.name, data_type=t.data_type, dims=t.dims)
        else:
            out.graph.initializer.add().CopyFrom(t)
    return out


def save_beside(model: onnx.ModelProto, src: PathArg, dst: PathArg) -> None:
    """Write `model`, read from the file `src` without its external data, to `dst`, with its data files
    available beside it (place_beside)."""
    place_beside(model, os.path.dirname(os.path.abspath(src)), os.path.dirname(os.path.abspath(dst)))
    onnx.save(model, os.fspath(dst))
