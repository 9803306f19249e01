"""OneModel EP on a Ray cluster (the optional extra `onemodel-ep[ray]`): Ray Data batch inference and a Ray
Serve deployment. Ray is imported only inside the functions that need it, so this module imports without it.

    import ray
    from onemodel_ep.ray import OneModelPredictor, serve_deployment

    ds = ray.data.from_items(rows)                      # rows: {"input_ids": int64[9], ...}, one example each
    out = ds.map_batches(OneModelPredictor, fn_constructor_kwargs={"model_path": "model.onnx"},
                         batch_size=8, batch_format="numpy", concurrency=2)
    app = serve_deployment("model.onnx", num_replicas=2)   # ray.serve.run(app)

Each actor (or replica) registers OneModel EP and opens its session once, then runs every batch it gets
through it. In exact mode the outputs are the same bits on every node of the cluster, whatever its CPU;
the `digest` column says so row by row (docs/fleet.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from onemodel_ep._lib import kernel_paths
from onemodel_ep.digests import BITS_VERSION, output_digest

__all__ = ["OneModelPredictor", "OneModelServer", "serve_deployment"]

# numpy's names of ORT's tensor element types (bfloat16 and the 8-bit floats have none).
_NUMPY_TYPES = {"float": "float32", "double": "float64"}


def _open(model_path: str | os.PathLike[str], mode: str, kernel_path: str | None, via: str | None,
          threads: int) -> Any:
    import onnxruntime as ort

    from onemodel_ep.session import InferenceSession

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3  # no "nodes not assigned" warning per actor: session.report says it
    return InferenceSession(os.fspath(model_path), so, mode=mode, kernel_path=kernel_path, via=via)


class OneModelPredictor:
    """A callable class for Ray Data's `map_batches(..., batch_format="numpy")`.

    `__init__` opens one onemodel_ep.InferenceSession (`mode`, `kernel_path`, `via` as there; `threads`:
    ORT's intra-op threads, best equal to the actor's num_cpus), once per actor. `__call__` takes a batch
    (column name -> array, the rows along axis 0), runs the model's inputs through it and returns its outputs
    by name, the other columns (ids, labels) passed through, and per row:
      - `digest_column` (default "digest"): the SHA-256 of the row's outputs, which is the digest
        `onemodel verify MODEL --inputs ROW.npz` prints for that row alone (a batch of 1) wherever the rows
        of the model are computed independently, as exact mode's kernels compute them;
      - `kernel_path_column` (default "kernel_path"): the kernel path that computed it.
    Either is left out when set to None; every output must then still have a row per input row.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        mode: str = "exact",
        kernel_path: str | None = None,
        via: str | None = None,
        threads: int = 1,
        digest_column: str | None = "digest",
        kernel_path_column: str | None = "kernel_path",
    ) -> None:
        self.session = _open(model_path, mode, kernel_path, via, threads)
        self.kernel_path = kernel_path or kernel_paths()[0]  # None: the widest this CPU runs
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.outputs = [o.name for o in self.session.get_outputs()]
        for column in (digest_column, kernel_path_column):
            if column is not None and column in self.inputs + self.outputs:
                raise ValueError(f"column {column!r} is an input or output of {model_path}: name another")
        self.digest_column = digest_column
        self.kernel_path_column = kernel_path_column

    def run(self, feeds: Mapping[str, Any]) -> list[np.ndarray]:
        """The model's outputs, in order, for `feeds` (every input of the model, by name)."""
        missing = [name for name in self.inputs if name not in feeds]
        if missing:
            raise KeyError(f"the batch has no column {', '.join(map(repr, missing))} (inputs of the model: "
                           f"{', '.join(self.inputs)}; columns: {', '.join(map(str, feeds))})")
        return list(self.session.run(None, {name: np.ascontiguousarray(feeds[name]) for name in self.inputs}))

    def __call__(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        ys = self.run(batch)
        rows = len(batch[self.inputs[0]]) if self.inputs else 1
        out = {name: column for name, column in batch.items() if name not in self.inputs}
        out.update(zip(self.outputs, ys))
        if self.digest_column is None and self.kernel_path_column is None:
            return out
        for name, y in zip(self.outputs, ys):
            if y.ndim == 0 or y.shape[0] != rows:
                raise ValueError(f"output {name!r} has shape {list(y.shape)}, not one row per input row "
                                 f"({rows}): no digest per row (pass digest_column=None, "
                                 "kernel_path_column=None)")
        if self.digest_column is not None:
            digests = [output_digest([y[i : i + 1] for y in ys]) for i in range(rows)]
            out[self.digest_column] = np.array(digests)
        if self.kernel_path_column is not None:
            out[self.kernel_path_column] = np.full(rows, self.kernel_path)
        return out


def _numpy_type(ort_type: str) -> np.dtype[Any]:
    name = ort_type.removeprefix("tensor(").removesuffix(")")
    try:
        return np.dtype(_NUMPY_TYPES.get(name, name))
    except TypeError:
        raise ValueError(f"input type {ort_type} has no numpy type to read JSON lists as") from None


class OneModelServer:
    """One Ray Serve replica: a OneModelPredictor answering requests.

    A request is a JSON object {"inputs": {input name: nested list}} (a whole batch; the element types are
    the model's). The reply: {"outputs": {output name: nested list}, "digest": "sha256:...", "bits_version",
    "kernel_path"}; the digest covers every output of the request, as `onemodel verify --inputs` of the same
    inputs prints it. Called through a DeploymentHandle, the request is that object itself.
    """

    def __init__(self, model_path: str, mode: str = "exact", kernel_path: str | None = None,
                 via: str | None = None, threads: int = 1) -> None:
        self.predictor = OneModelPredictor(model_path, mode, kernel_path, via, threads, None, None)
        self.types = {i.name: _numpy_type(i.type) for i in self.predictor.session.get_inputs()}

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        inputs = body.get("inputs")
        if not isinstance(inputs, Mapping):
            raise ValueError('expected a JSON object {"inputs": {name: nested list, ...}}')
        feeds = {name: np.asarray(value, dtype=self.types.get(name)) for name, value in inputs.items()}
        ys = self.predictor.run(feeds)
        return {
            "outputs": {name: y.tolist() for name, y in zip(self.predictor.outputs, ys)},
            "digest": f"sha256:{output_digest(ys)}",
            "bits_version": BITS_VERSION,
            "kernel_path": self.predictor.kernel_path,
        }

    async def __call__(self, request: Any) -> dict[str, Any]:
        body = await request.json() if hasattr(request, "json") else request  # HTTP, or a DeploymentHandle
        return self.answer(body)


def serve_deployment(
    model_path: str | os.PathLike[str],
    mode: str = "exact",
    kernel_path: str | None = None,
    via: str | None = None,
    threads: int = 1,
    **deployment_options: Any,
) -> Any:
    """A bound Ray Serve application of OneModelServer replicas for `model_path` (`ray.serve.run(app)`);
    `deployment_options` go to `ray.serve.deployment` (num_replicas, ray_actor_options, ...)."""
    from ray import serve

    deployment = serve.deployment(**deployment_options)(OneModelServer)
    path = os.fspath(model_path)
    return deployment.bind(path, mode=mode, kernel_path=kernel_path, via=via, threads=threads)
