"""`onemodel verify`: the command line of onemodel_ep.verify. Exit status 0: ran (and the digest matched
--expect); 1: the digest differs from --expect; 2: bad usage, inputs or model."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from onemodel_ep import cli_args
from onemodel_ep._lib import PATH_NAMES

# `onemodel verify --help`: the summary in the list of commands, the description and the exit statuses.
_SUMMARY = "bits version, what ran on OneModel EP, and the SHA-256 digest of a model's outputs"
_DESCRIPTION = (
    "Run MODEL in exact mode on OneModel EP (or the rewrite) and print the bits version, the library "
    "version, whether every computing node ran on OneModel EP (data movement such as Reshape, Transpose, "
    "Gather does not count) and the SHA-256 digest of the outputs. Machines that print the same digest "
    "computed the same bits."
)
_EXITS = "0 ran, 1 the digest differs from --expect, 2 bad usage, inputs or model"


def _digest(text: str) -> str:
    d = text.strip().lower().removeprefix("sha256:")
    if len(d) != 64 or any(c not in "0123456789abcdef" for c in d):
        raise argparse.ArgumentTypeError(f"expected a SHA-256 digest (64 hex digits), got {text!r}")
    return d


def cmd_verify(args: argparse.Namespace) -> int:
    from onemodel_ep.verify import verify

    cli_args.load_model(args.model, load_external_data=False)  # a readable ONNX model, or one clear line
    feeds = cli_args.read_inputs(args.inputs) if args.inputs else None
    result = verify(args.model, feeds, via=args.via, kernel_path=args.kernel_path, seed=args.seed)
    print("\n".join(result.lines()))
    if args.expect is not None and result.digest != args.expect:
        print(f"onemodel verify: digest mismatch: expected sha256:{args.expect}, got sha256:{result.digest}",
              file=sys.stderr)  # fmt: skip
        return 1
    if args.expect is not None:
        print("expected digest: match")
    return 0


def add_subparser(sub: Any) -> argparse.ArgumentParser:
    """Add `verify` to the `onemodel` command line (cli.py calls this)."""
    v = cli_args.add_command(sub, "verify", _SUMMARY, _DESCRIPTION, exits=_EXITS)
    v.add_argument("model")
    v.add_argument("--inputs", metavar="FILE.npz", help="inputs, names as keys (default: seeded, see --seed)")
    v.add_argument("--seed", type=cli_args.number(int), default=0, help="seed of the default inputs (>= 0)")
    v.add_argument("--via", choices=("ep", "rewrite"), default=None, help="default: ep where ORT supports it")
    v.add_argument("--kernel-path", choices=PATH_NAMES, default=None)
    v.add_argument("--expect", type=_digest, default=None, metavar="DIGEST", help="exit 1 unless equal")
    v.set_defaults(func=cmd_verify)
    return v
