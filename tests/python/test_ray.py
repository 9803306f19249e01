"""A fleet on Ray: OneModel EP actors pinned to different kernel paths (stand-ins for unlike CPUs) compute
the same bits as one process, row by row, and Ray Serve replies with the digest `onemodel verify` prints.

A local Ray cluster on loopback only, started once for the module and always shut down; every wait is
bounded. Skipped only where ray is not installed (requirements-test.txt installs it)."""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'onemodel-ep[ray]')")
pytest.importorskip("ray.data", reason="Ray Data is not installed (pip install 'ray[data]')")

from onemodel_ep import kernel_paths  # noqa: E402
from onemodel_ep.digests import output_digest  # noqa: E402
from onemodel_ep.ray import OneModelPredictor, OneModelServer, serve_deployment  # noqa: E402
from onemodel_ep.session import InferenceSession  # noqa: E402
from onemodel_ep.verify import verify  # noqa: E402

pytestmark = pytest.mark.slow  # a local Ray cluster: 1-2.5 min on 2 cores; CI runs it (-m slow)

MODEL = Path(__file__).resolve().parents[2] / "testdata" / "models" / "bert_tiny.onnx"
ROWS = 16
WAIT_S = 240  # a bound on each Ray job; a loaded 2-core machine takes well under a minute


def rows() -> list[dict[str, np.ndarray]]:
    """16 examples of token ids and a padding mask (int64 [9] each; Ray Data batches them to [n, 9])."""
    rng = np.random.default_rng(38)
    out = []
    for i in range(ROWS):
        mask = np.ones(9, dtype=np.int64)
        mask[9 - i % 4 :] = 0
        out.append({"id": i, "input_ids": rng.integers(0, 256, 9, dtype=np.int64), "attention_mask": mask})
    return out


def reference() -> list[list[np.ndarray]]:
    """Every row's outputs in one process, the 16 rows as one batch, on the default kernel path."""
    sess = InferenceSession(str(MODEL), mode="exact")
    batch = {k: np.stack([r[k] for r in rows()]) for k in ("input_ids", "attention_mask")}
    ys = sess.run(None, batch)
    return [[y[i : i + 1] for y in ys] for i in range(ROWS)]


@pytest.fixture(scope="module")
def cluster():
    temp = tempfile.mkdtemp(prefix="omray")  # short: Ray's socket paths must fit 107 characters
    saved = os.environ.get("RAY_USAGE_STATS_ENABLED")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    try:
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
                 _temp_dir=temp, configure_logging=False)
        yield ray
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("RAY_USAGE_STATS_ENABLED", None)
        else:
            os.environ["RAY_USAGE_STATS_ENABLED"] = saved
        shutil.rmtree(temp, ignore_errors=True)


def bounded(fn, *args):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result(timeout=WAIT_S)


def test_actors_on_every_kernel_path_match_one_process(cluster):
    paths = kernel_paths()  # widest first; "scalar" on every machine
    assert len(paths) >= 2 and paths[-1] == "scalar"
    data = rows()
    shard = -(-ROWS // len(paths))
    parts = []
    for k, path in enumerate(paths):  # one actor pool per kernel path, each on its own share of the rows
        ds = cluster.data.from_items(data[k * shard : (k + 1) * shard])
        parts.append(ds.map_batches(OneModelPredictor, fn_constructor_kwargs={"model_path": str(MODEL),
                                    "kernel_path": path}, batch_size=3, batch_format="numpy", concurrency=1,
                                    num_cpus=2 / len(paths)))  # fmt: skip
    fleet = parts[0].union(*parts[1:])
    got = sorted(bounded(fleet.take_all), key=lambda r: int(r["id"]))
    assert [int(r["id"]) for r in got] == list(range(ROWS))
    assert [r["kernel_path"] for r in got] == [paths[i // shard] for i in range(ROWS)]
    for i, (row, want) in enumerate(zip(got, reference())):
        for name, w in zip(("last_hidden_state", "pooler_output"), want):
            where = f"row {i} {name} on {row['kernel_path']}"
            assert np.asarray(row[name]).tobytes() == w[0].tobytes(), where
        assert row["digest"] == output_digest(want), f"row {i}"
    # The digest of a row is what `onemodel verify --inputs ROW.npz` prints for it, on any kernel path.
    for i in (0, ROWS - 1):
        feeds = {k: data[i][k][None, :] for k in ("input_ids", "attention_mask")}
        assert verify(MODEL, feeds, kernel_path="scalar").digest == got[i]["digest"]


def test_predictor_keeps_other_columns_and_refuses_clashing_ones():
    p = OneModelPredictor(MODEL, kernel_path="scalar")
    batch = {k: np.stack([r[k] for r in rows()[:2]]) for k in ("id", "input_ids", "attention_mask")}
    out = p(batch)
    assert list(out["id"]) == [0, 1] and list(out["kernel_path"]) == ["scalar", "scalar"]
    with pytest.raises(KeyError, match="no column 'attention_mask'"):
        p({"input_ids": batch["input_ids"]})
    with pytest.raises(ValueError, match="column 'pooler_output' is an input or output"):
        OneModelPredictor(MODEL, digest_column="pooler_output")


def test_serve_replica_replies_with_the_verify_digest(cluster):
    serve = pytest.importorskip("ray.serve", reason="Ray Serve is not installed (pip install 'ray[serve]')")
    data = rows()[:4]
    inputs = {k: np.stack([r[k] for r in data]) for k in ("input_ids", "attention_mask")}
    want = verify(MODEL, inputs, kernel_path="scalar").digest
    serve.start(proxy_location="Disabled")  # no HTTP server: requests come through the handle
    try:
        handle = serve.run(serve_deployment(MODEL, kernel_path="scalar", num_replicas=1,
                                            ray_actor_options={"num_cpus": 0.5}),
                           name="onemodel", route_prefix=None)  # fmt: skip
        reply = handle.remote({"inputs": {k: v.tolist() for k, v in inputs.items()}}).result(timeout_s=WAIT_S)
    finally:
        serve.shutdown()
    assert reply["digest"] == f"sha256:{want}" and reply["kernel_path"] == "scalar"
    local = OneModelServer(str(MODEL)).answer({"inputs": {k: v.tolist() for k, v in inputs.items()}})
    assert local["outputs"] == reply["outputs"] and local["digest"] == reply["digest"]
    out = np.asarray(reply["outputs"]["pooler_output"], dtype=np.float32)
    assert output_digest([np.asarray(reply["outputs"]["last_hidden_state"], dtype=np.float32), out]) == want
