"""`onemodel diff`: a model in stock ORT side by side with the same model on OneModel EP kernels.

    import onemodel_ep
    report = onemodel_ep.diff_models("model.onnx", seed=0, per_node=True)
    print(report.format())          # or report.to_dict() / report.to_json()
    report.passed                   # every output within the criteria (atol, rtol, max_ulp)

The modules: run (diff_models), sessions (the model and its ORT sessions), inputs (read or generated),
compare (two tensors, element by element), per_node (the node where the runs part), report (DiffReport, the
JSON document), format (the text), plot (the histograms). The CLI (`onemodel diff MODEL [options]`,
onemodel_ep/cli_diff.py) is a thin layer over `diff_models()`; docs/diff.md documents both and the JSON
schema (`DiffReport.to_dict`).
"""

from __future__ import annotations

from onemodel_ep.diff.compare import Comparison, Criteria
from onemodel_ep.diff.plot import plot
from onemodel_ep.diff.report import SCHEMA_VERSION, DiffReport, NodeDiff, OutputDiff, PathsCheck
from onemodel_ep.diff.run import diff_models
from onemodel_ep.diff.sessions import example_model_path
from onemodel_ep.errors import DiffError

__all__ = [
    "SCHEMA_VERSION",
    "Comparison",
    "Criteria",
    "DiffError",
    "DiffReport",
    "NodeDiff",
    "OutputDiff",
    "PathsCheck",
    "diff_models",
    "example_model_path",
    "plot",
]
