"""`onemodel diff`'s text output: DiffReport as the lines it prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from onemodel_ep._lib import DOMAIN, kernel_paths
from onemodel_ep.diff.compare import Comparison, show_value

if TYPE_CHECKING:  # report.py imports this module (DiffReport.format)
    from onemodel_ep.diff.report import DiffReport


def _g(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, float):
        if not np.isfinite(x):
            return str(x)
        if x == int(x) and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.3g}"
    return str(x)


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.1f}%" if n else "-"


def _show(value: Any, bits: str | None, dtype: str) -> str:
    """A worst-element value as text: floats rebuilt from their bits, in their own precision."""
    if bits is None:
        return str(value)
    dt = np.dtype(dtype)
    raw = np.array([int(bits, 16)], dtype=f"u{dt.itemsize}").view(dt)[0]
    return show_value(raw)


def _format_comparison(c: Comparison, indent: str) -> list[str]:
    if c.error:
        return [f"{indent}{c.error}"]
    lines = [
        f"{indent}bit-identical {c.identical}/{c.elements} ({_pct(c.identical, c.elements)}), "
        f"failing {c.failing}"
    ]
    if c.kind == "float":
        lines.append(
            f"{indent}max abs {_g(c.max_abs)}  max rel {_g(c.max_rel)}  ulp max {_g(c.max_ulp)} "
            f"median {_g(c.median_ulp)} (median over differing {_g(c.median_ulp_differing)})"
        )
        lines.append(
            f"{indent}NaN mismatches {c.nan_mismatches}  inf mismatches {c.inf_mismatches}  "
            f"signed-zero mismatches {c.signed_zero_mismatches}"
            + (f"  NaN payloads differ {c.nan_payload_differs}" if c.nan_payload_differs else "")
        )
    elif c.kind == "int":
        lines.append(
            f"{indent}exact difference max {_g(c.max_ulp)} median {_g(c.median_ulp)} "
            f"(median over differing {_g(c.median_ulp_differing)})  max rel {_g(c.max_rel)}"
        )
    elif c.kind == "bool":
        lines.append(f"{indent}mismatches {c.elements - c.identical}")
    w = c.worst
    if w is not None:
        extra = ""
        if c.kind in ("float", "int"):
            extra = f"  abs {_g(w.get('abs'))}" + (
                f"  ulp {w['ulp']}" if c.kind == "float" and w.get("ulp") is not None else ""
            )
        ort_v = _show(w["ort"], w.get("ort_bits"), c.dtype)
        om_v = _show(w["onemodel"], w.get("onemodel_bits"), c.dtype)
        lines.append(f"{indent}worst {w['index']}: ort {ort_v}  onemodel {om_v}{extra}")
        src = w.get("inputs")
        if src:
            lines.append(
                f"{indent}  from " + ", ".join(f"{k}{v['index']} = {v['text']}" for k, v in src.items())
            )
    return lines


def format_report(r: DiffReport) -> str:
    L: list[str] = []
    L.append(f"onemodel diff: {r.model}")
    L.append(
        f"  mode {r.mode}, kernel path {r.kernel_path or 'auto'} (this machine: {', '.join(kernel_paths())});"
        f" onnxruntime {r.versions.get('onnxruntime', '?')}"
    )
    where = (
        f"execution provider: {len(r.rewrite.moved)} node(s) on OneModelExecutionProvider"
        if r.via == "ep"
        else f"rewrite: {len(r.rewrite.moved)} node(s) moved to {DOMAIN}"
    )
    L.append(
        f"  {where}, {len(r.rewrite.stayed)} left to stock ORT"
        + (
            ": " + ", ".join(sorted({f"{n.op} ({n.category})" for n in r.rewrite.stayed}))
            if r.rewrite.stayed
            else ""
        )
    )
    c = r.criteria
    L.append(f"  criteria: atol {_g(c.atol)}, rtol {_g(c.rtol)}, max ulp {c.max_ulp}")
    for i in r.inputs:
        rng = f" in [{_g(i.get('min'))}, {_g(i.get('max'))}]" if "min" in i else ""
        spec = f", {i['nan']} NaN, {i['inf']} inf" if i.get("nan") or i.get("inf") else ""
        L.append(f"  input {i['name']}: {i['dtype']} {i['shape']} {i['source']}{rng}{spec}")
    if r.generation:
        L.append(
            f"  generated with seed {r.generation['seed']}"
            + (f", special {r.generation['special']}" if r.generation["special"] else "")
        )
    for o in r.outputs:
        oc = o.comparison
        L.append("")
        L.append(f"output {o.name}: {oc.dtype} {oc.shape}  {'PASS' if oc.passed else 'FAIL'}")
        L += _format_comparison(oc, "  ")
    if r.all_paths is not None:
        ap = r.all_paths
        L.append("")
        verdict = "bit-identical on every output" if ap.identical else "NOT bit-identical"
        L.append(f"kernel paths ({ap.mode} mode): {', '.join(ap.paths)}: {verdict}")
        for e in ap.outputs:
            fd = e["first_difference"]
            if fd is not None:
                vals = ", ".join(f"{p} {v}" for p, v in fd.get("bits", fd["values"]).items())
                L.append(f"  {e['name']}: first difference at {fd['index']}: {vals}")
    if r.per_node is not None:
        L.append("")
        pn = r.per_node
        L.append(
            f"per node: {len(r.nodes)} node(s) of the main graph compared, {pn['exposed']} intermediate "
            "value(s) exposed" + (f", {len(pn['untyped'])} of unknown type skipped" if pn["untyped"] else "")
        )
        first = r.first_divergence
        if first is None:
            L.append("  no node's output fails the criteria")
        else:
            L.append(
                f"  first divergence: node {first.name!r} ({first.op}, #{first.index}, "
                f"{'OneModel EP' if first.retargeted else 'stock ORT'}), output {first.output!r}"
            )
            if first.inside:
                L.append("    inside: " + " > ".join(first.inside))
            if first.reason:
                L.append(f"    why: {first.reason}")
            for inp in first.inputs:
                s = f"{inp.get('dtype', '?')} {inp.get('shape', '?')}"
                if "min" in inp:
                    s += f" in [{_g(inp['min'])}, {_g(inp['max'])}]"
                if inp.get("nan") or inp.get("inf"):
                    s += f", {inp.get('nan', 0)} NaN, {inp.get('inf', 0)} inf"
                same = "identical in both runs" if inp.get("identical") else "DIFFERS between runs"
                L.append(f"    input {inp['name']}: {s}, {same}")
            L += _format_comparison(first.comparison, "    ")
        top = r.top(int(pn.get("top_k", 5)))
        if top:
            L.append(f"  top {len(top)} node(s) by error:")
            wn = max([20] + [len(n.name) for n in top])  # names whole
            wo = max([12] + [len(n.op) for n in top])
            L.append(
                f"    {'#':>4}  {'node':<{wn}} {'op':<{wo}} {'failing':>9} {'identical':>9} {'max ulp':>10} "
                f"{'max abs':>10}"
            )
            for n in top:
                nc = n.comparison
                L.append(
                    f"    {n.index:>4}  {n.name:<{wn}} {n.op:<{wo}} {nc.failing:>9} "
                    f"{_pct(nc.identical, nc.elements):>9} {_g(nc.max_ulp):>10} {_g(nc.max_abs):>10}"
                )
    L.append("")
    failing = [o.name for o in r.outputs if not o.comparison.passed]
    if r.passed:
        L.append(f"PASS: all {len(r.outputs)} output(s) within the criteria")
    else:
        why = []
        if failing:
            why.append(
                f"{len(failing)} of {len(r.outputs)} output(s) outside the criteria ({', '.join(failing)})"
            )
        if r.all_paths is not None and r.all_paths.mode == "exact" and not r.all_paths.identical:
            why.append("exact-mode outputs differ across kernel paths")
        L.append("FAIL: " + "; ".join(why))
    return "\n".join(L)
