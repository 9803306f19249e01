"""`onemodel diff --plot`: one ulp-error histogram per output, drawn with matplotlib (optional:
pip install 'onemodel-ep[plot]')."""

from __future__ import annotations

import os
from pathlib import Path

from onemodel_ep.diff.report import DiffReport
from onemodel_ep.errors import DiffError


def _short_bucket(label: str) -> str:
    """'1024-2047' -> '2^10' (the bucket [2^10, 2^11)) for the plot's axis."""
    lo, sep, _ = label.partition("-")
    if sep and lo.isdigit() and int(lo) >= 16:
        return f"2^{int(lo).bit_length() - 1}"
    return label


def plot(report: DiffReport, path: str | os.PathLike[str]) -> None:
    """One ulp-error histogram per output, into a PNG (needs matplotlib: pip install 'onemodel-ep[plot]')."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise DiffError("--plot needs matplotlib: pip install 'onemodel-ep[plot]'") from None
    outs = report.outputs
    fig, axes = plt.subplots(len(outs), 1, figsize=(8, 2.6 * max(len(outs), 1)), squeeze=False)
    for ax, o in zip(axes[:, 0], outs):
        c = o.comparison
        labels = [_short_bucket(str(h[0])) for h in c.histogram] or ["-"]
        counts = [int(h[1]) for h in c.histogram] or [0]
        colors = [
            "tab:green" if lab == "0" else "tab:red" if "mismatch" in lab else "tab:orange" for lab in labels
        ]
        ax.bar(range(len(labels)), counts, color=colors)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_yscale("symlog")
        unit = {"float": "ulp distance", "int": "exact difference", "bool": ""}.get(c.kind, "")
        ax.set_title(f"{o.name}: {c.dtype} {c.shape} - {'PASS' if c.passed else 'FAIL'}", fontsize=10)
        ax.set_xlabel(unit, fontsize=8)
        ax.set_ylabel("elements", fontsize=8)
    fig.suptitle(f"onemodel diff: {Path(report.model).name} (mode {report.mode})", fontsize=11)
    fig.tight_layout()
    try:
        fig.savefig(os.fspath(path), dpi=100)
    except OSError as e:
        raise DiffError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
