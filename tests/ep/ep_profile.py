"""Which nodes ORT ran, from its profile: a profile file prefix no two test processes share, and the events
of a profiled session read back (the file removed)."""

from __future__ import annotations

import itertools
import json
import os
import tempfile

import onnxruntime as ort

_PROFILES = itertools.count()


def profile_prefix() -> str:
    """A profile file prefix no other test process shares (ORT names profiles by the millisecond only)."""
    return os.path.join(tempfile.gettempdir(), f"om_profile_{os.getpid()}_{next(_PROFILES)}")


def profile_events(sess: ort.InferenceSession) -> list[dict[str, object]]:
    """The events of a session made with enable_profiling, which ends its profiling; the file is removed."""
    path = sess.end_profiling()
    try:
        with open(path) as fh:
            events: list[dict[str, object]] = json.load(fh)
    finally:
        os.remove(path)
    return events


def op_names_run(sess: ort.InferenceSession) -> list[str]:
    """The names of the nodes a profiled session ran, sorted, each once (a fused node: after the EP)."""
    events = profile_events(sess)
    return sorted({e["args"]["op_name"] for e in events if e.get("cat") == "Node"})  # type: ignore[index]
