#!/usr/bin/env bash
# Fill examples/triton/model_repository for Triton's ONNX Runtime backend: version 1 of bert_tiny_onemodel is
# testdata/models/bert_tiny.onnx rewritten to OneModel EP's custom ops (`onemodel rewrite`, exact mode), and
# the custom-op library is the installed onemodel_ep's shared object (onemodel_ep.get_library_path()).
# Usage: bash examples/triton/prepare.sh [MODEL.onnx]   (run with the Python that has onemodel-ep installed)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
model="${1:-$here/../../testdata/models/bert_tiny.onnx}"
dest="$here/model_repository/bert_tiny_onemodel"
python=${PYTHON:-python3}
mkdir -p "$dest/1"
onemodel rewrite "$model" "$dest/1/model.onnx" > /dev/null
cp "$("$python" -c 'import onemodel_ep; print(onemodel_ep.get_library_path())')" "$dest/libonemodel_ep.so"
"$python" -m onemodel_ep.cli verify "$dest/1/model.onnx" --via rewrite | tail -1
echo "model repository ready: $here/model_repository"
