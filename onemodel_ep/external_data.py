"""Models whose tensors live in external data files, and models too large for one protobuf message (2 GiB).

The rewriter touches nodes only, so a model read with `onnx.load(path, load_external_data=False)` (the graph,
without the weights) is all it needs; the weights stay in their files. Where the rewritten model is written
to another folder, it needs its data beside it (ORT refuses a location outside the model's folder), so each
data file is copied there (data_files: a reflink where the file system has them; never a hard link, which
onnx refuses), after its location is checked as ORT and onnx check it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Union

import onnx
from onnx.external_data_helper import uses_external_data

from onemodel_ep import data_files

# Tensors larger than this are left out of the copy that shape inference reads (their type and dims suffice).
_SKELETON_BYTES = 1 << 20
# Above this, a model cannot be serialised for in-memory shape inference (protobuf's limit is 2 GiB).
SERIALISABLE_BYTES = (1 << 31) - (1 << 24)
# A skeleton for shape inference keeps initializers up to this size (the shape tensors that Reshape, Expand or
# Slice read) and leaves out the data of larger ones (weights), so inference never copies them.
SHAPE_BYTES = 1 << 16
_FOUR_BIT = {getattr(onnx.TensorProto, n) for n in ("INT4", "UINT4", "FLOAT4E2M1")
             if hasattr(onnx.TensorProto, n)}


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


PathArg = Union[str, "os.PathLike[str]"]


def place_beside(model: onnx.ModelProto, src_dir: PathArg, dst_dir: PathArg) -> None:
    """Check the external data files of `model` (read from a file in `src_dir`) and make them available to
    the same model written to `dst_dir`.

    Every location must name a regular file inside `src_dir` with symbolic links followed, not itself a
    link (data_files.resolve: ValueError, FileNotFoundError). In the same folder nothing more is done; in
    another each file is copied to the same relative location there. A different file already at that
    place is an error (FileExistsError)."""
    src, dst = Path(src_dir).resolve(), Path(dst_dir).resolve()
    files = data_paths(model, src)
    if src == dst:
        return
    for loc, path in files.items():
        data_files.place(path, dst, loc)


def data_paths(model: onnx.ModelProto, folder: PathArg) -> dict[str, Path]:
    """Each external data location of `model` (read from a file in `folder`) -> the file it names, every
    location checked as ORT and onnx check it (data_files.resolve: ValueError, FileNotFoundError)."""
    return {loc: data_files.resolve(Path(folder), loc) for loc in locations(model)}


Message = Union[onnx.ModelProto, onnx.GraphProto]


def _tensor_bytes(t: onnx.TensorProto) -> int:
    """A tensor's serialised size, from its dims and type where it holds raw data (TensorProto.ByteSize and
    len(t.raw_data) would each copy the data first)."""
    if t.HasField("raw_data") and t.data_type != onnx.TensorProto.STRING:
        n = 1
        for d in t.dims:
            n *= d
        if t.data_type in _FOUR_BIT:
            bits = 4
        else:
            bits = 8 * onnx.helper.tensor_dtype_to_np_dtype(t.data_type).itemsize
        return (n * bits + 7) // 8 + 64
    return t.ByteSize()


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


def skeleton(model: onnx.ModelProto, keep_bytes: int = _SKELETON_BYTES) -> onnx.ModelProto:
    """A copy of `model` without the data of its main-graph initializers over `keep_bytes` (their names, types
    and dims stay): what shape inference needs, small enough to serialise whatever the model's size."""
    out = onnx.ModelProto()
    _copy_fields(out, model, "graph")
    _copy_fields(out.graph, model.graph, "initializer")
    for t in model.graph.initializer:
        if _tensor_bytes(t) > keep_bytes:
            out.graph.initializer.add(name=t.name, data_type=t.data_type, dims=t.dims)
        else:
            out.graph.initializer.add().CopyFrom(t)
    return out


def save_beside(model: onnx.ModelProto, src: PathArg, dst: PathArg) -> None:
    """Write `model`, read from the file `src` without its external data, to `dst`, with its data files
    available beside it (place_beside)."""
    place_beside(model, os.path.dirname(os.path.abspath(src)), os.path.dirname(os.path.abspath(dst)))
    onnx.save(model, os.fspath(dst))


def inline_bytes(model: onnx.ModelProto) -> int:
    """Bytes of the main graph's initializers held in the model itself (ModelProto.ByteSize would serialise
    the whole model to find out)."""
    return sum(_tensor_bytes(t) for t in model.graph.initializer if not uses_external_data(t))


def offload(model: onnx.ModelProto, folder: PathArg, location: str, min_bytes: int = 1024) -> None:
    """Move the raw data of the main graph's initializers of at least `min_bytes` into the file `location`
    under `folder`, one tensor at a time, each tensor then naming its place in that file: the model shrinks
    to its graph without a second copy of its weights ever existing (onnx.save_model's external-data path
    holds more)."""
    path = Path(folder) / data_files.relative(location)
    with open(path, "wb") as f:
        for t in model.graph.initializer:
            if uses_external_data(t) or not t.HasField("raw_data") or len(t.raw_data) < min_bytes:
                continue
            data = t.raw_data
            offset = f.tell()
            f.write(data)
            t.ClearField("raw_data")
            del data
            t.data_location = onnx.TensorProto.EXTERNAL
            del t.external_data[:]
            for k, v in (("location", location), ("offset", str(offset)), ("length", str(f.tell() - offset))):
                t.external_data.add(key=k, value=v)
