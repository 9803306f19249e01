"""The command line of the bench-model writers (constant_of_shape_models.py, index_norm_models.py): `python
tools/bench/X.py OUT_DIR` writes each model as OUT_DIR/NAME.onnx and prints its path. Scripts run from
tools/bench/ import it by name (Python puts a script's folder first on sys.path)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable

import onnx


def write_models(description: str, models: Iterable[tuple[str, Callable[[], onnx.ModelProto]]]) -> None:
    """Parse OUT_DIR from the command line (`description`: the script's --help line), then build and write
    each (name, make) of `models` as OUT_DIR/name.onnx, printing each path."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("out_dir")
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name, make in models:
        path = os.path.join(args.out_dir, name + ".onnx")
        onnx.save(make(), path)
        print(path)
