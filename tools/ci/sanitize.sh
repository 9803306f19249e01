#!/usr/bin/env bash
# Sanitizer run: build the C library with AddressSanitizer + UndefinedBehaviorSanitizer into a separate
# directory (the normal build in onemodel_ep/ is left alone) and run the kernel tests under it, on every
# kernel path this CPU has. Exits non-zero on any sanitizer report or test failure.
#
#   bash tools/ci/sanitize.sh                   # uses $VENV (default .venv, then /work/venv) for python
#   PYTHON=/path/to/python bash tools/ci/sanitize.sh
#   SANITIZE_BUILD=/tmp/om-san bash tools/ci/sanitize.sh   # build directory (default build/sanitize)
#   SANITIZE_TESTS="tests/kernels/test_fuzz.py" bash tools/ci/sanitize.sh   # a subset
#   SANITIZE_STRIDE=1 bash tools/ci/sanitize.sh   # every case of the big parametrized files (default: 1 in 4)
#   SANITIZE_WORKERS=1 bash tools/ci/sanitize.sh  # pytest-xdist workers (default 2; 1: one process)
#
# Bounded for CI: the fuzzer's sweep runs every op x type x kernel path and the seeded fuzz profile runs in
# full; the big case files (oracle cases, direct op tests, cast matrix) run a deterministic 1-in-N sample of
# their cases (each case still on every kernel path and mode), so the whole run takes a few minutes on 2 cores.
#
# How it works: gcc -fsanitize=address,undefined -fno-sanitize-recover=undefined, so any UB aborts the
# process; ASan reports abort it too. Python and ORT are not instrumented, so the ASan runtime is
# LD_PRELOADed and leak checking is off (CPython "leaks" by design). The instrumented package is a shadow
# copy of onemodel_ep/ under the build directory, put first on PYTHONPATH; pytest runs from that directory
# so the repository's own onemodel_ep/ (normal build) cannot be imported by accident, and the script checks
# which library was loaded. Needs gcc (or clang: CC=clang) and the normal test venv; installs nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"

if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
elif [ -n "${VENV:-}" ]; then
  PY="$VENV/bin/python"
elif [ -x "$ROOT/.venv/bin/python" ]; then
  PY="$ROOT/.venv/bin/python"
else
  PY="$(command -v python3)"
fi
CC="${CC:-gcc}"
BUILD="${SANITIZE_BUILD:-$ROOT/build/sanitize}"
TIMEOUT_S="${SANITIZE_TIMEOUT:-900}"
STRIDE="${SANITIZE_STRIDE:-4}"
WORKERS="${SANITIZE_WORKERS:-2}"
SAMPLED="test_oracle_cases.py test_ops_direct.py test_cast_matrix.py"

asan_rt="$("$CC" -print-file-name=libasan.so)"
if [ ! -e "$asan_rt" ]; then
  echo "sanitize.sh: $CC has no libasan.so ($asan_rt); install the compiler's sanitizer runtime" >&2
  exit 2
fi
asan_rt="$(readlink -f "$asan_rt")"
# Python is not linked against libstdc++, so ASan's __cxa_throw interceptor finds no real function when ORT
# throws its first C++ exception ("CHECK failed ... real___cxa_throw"): preload libstdc++ right after ASan.
cxx_rt="$(readlink -f "$("$CC" -print-file-name=libstdc++.so)")"

echo "== sanitize: python $PY, compiler $CC, build dir $BUILD"
rm -rf "$BUILD"
mkdir -p "$BUILD/pkg/onemodel_ep" "$BUILD/tmp"

# Build: the project's own flags (build_ffi.py) plus the sanitizers. -O1 keeps the build quick and the
# stack traces readable; -fno-omit-frame-pointer for the traces. -fno-wrapv: CPython passes its own -fwrapv to
# every extension build, which defines signed overflow and so hides it from UBSan; the kernels must not rely
# on it (integer arithmetic wraps on the unsigned types by design), so the sanitizer build takes it away.
export ONEMODEL_EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -fno-wrapv -O1 -g"
export ONEMODEL_EXTRA_LDFLAGS="-fsanitize=address,undefined"
export ONEMODEL_TEST_ENTRIES=1  # the kernel tests call om_test_* (onemodel_test.h)
export CC
t0=$(date +%s)
"$PY" - "$BUILD" <<'EOF'
import os, shutil, sys
from pathlib import Path

build = Path(sys.argv[1])
root = Path.cwd()
sys.path.insert(0, str(root / "provider"))
import build_ffi  # noqa: E402  (reads ONEMODEL_EXTRA_CFLAGS at import)

# cffi compiles in tmpdir; the sources are given relative to the project root, so link them in.
tmp = build / "tmp"
for rel in ("provider",):
    os.symlink(root / rel, tmp / rel)
so = build_ffi.ffibuilder.compile(tmpdir=str(tmp), verbose=False)
pkg = build / "pkg" / "onemodel_ep"
for p in (root / "onemodel_ep").iterdir():
    if p.is_dir() and (p / "__init__.py").exists():  # a subpackage (onemodel_ep.diff)
        shutil.copytree(p, pkg / p.name, ignore=shutil.ignore_patterns("__pycache__"))
    elif p.suffix == ".py" or p.name in ("py.typed", "examples"):
        (shutil.copytree if p.is_dir() else shutil.copy2)(p, pkg / p.name)
shutil.copy2(so, pkg / Path(so).name)
print(f"built {pkg / Path(so).name}")
EOF
# A pytest plugin that keeps every STRIDE-th test of the big parametrized files (deterministic).
cat >"$BUILD/sanitize_sample.py" <<'EOF'
import os


def pytest_collection_modifyitems(config, items):
    stride = max(int(os.environ.get("SANITIZE_STRIDE", "1")), 1)
    sampled = set(os.environ.get("SANITIZE_SAMPLED", "").split())
    seen, keep, drop = {}, [], []
    for item in items:
        f = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
        if f in sampled:
            seen[f] = seen.get(f, 0) + 1
            (keep if (seen[f] - 1) % stride == 0 else drop).append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
EOF
t1=$(date +%s)
echo "== sanitize: build took $((t1 - t0)) s"

export LD_PRELOAD="$asan_rt:$cxx_rt${LD_PRELOAD:+:$LD_PRELOAD}"
# Reports: ASan writes files (one per process); UBSan ignores log_path when ASan is in, so pytest runs with
# --capture=sys (fd 2 stays the terminal: an aborting process would lose what pytest held of it).
mkdir -p "$BUILD/reports"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:log_path=$BUILD/reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$BUILD/reports/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export PYTHONPATH="$BUILD/pkg${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
export ONEMODEL_SANITIZE=1 # tests may shrink their heaviest loops under the sanitizers
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
export SANITIZE_STRIDE="$STRIDE" SANITIZE_SAMPLED="$SAMPLED"

# The library the tests will load must be the instrumented one.
loaded="$(cd "$BUILD" && "$PY" -c 'import onemodel_ep; print(onemodel_ep.library_path())')"
case "$loaded" in
  "$BUILD/pkg/"*) echo "== sanitize: tests load $loaded" ;;
  *) echo "sanitize.sh: tests would load $loaded, not the sanitizer build" >&2; exit 2 ;;
esac

if [ -n "${SANITIZE_TESTS:-}" ]; then
  read -r -a tests <<<"$SANITIZE_TESTS"
else
  tests=()
  for t in tests/kernels/test_fuzz.py tests/kernels/test_fuzz_linalg.py tests/kernels/test_ops_direct.py tests/kernels/test_cast_matrix.py tests/nodes/test_oracle_cases.py \
           tests/ep/test_hostile.py tests/ep/test_concurrency.py tests/ep/test_ep.py; do
    [ -f "$t" ] && tests+=("$t")
  done
fi
abs_tests=()
for t in "${tests[@]}"; do abs_tests+=("$ROOT/$t"); done
echo "== sanitize: running ${tests[*]}"

set +e
xdist=()
[ "$WORKERS" -gt 1 ] && xdist=(-n "$WORKERS") # the workers inherit LD_PRELOAD and the options above
(cd "$BUILD" && timeout "$TIMEOUT_S" "$PY" -m pytest -q -p no:cacheprovider -p sanitize_sample --capture=sys --rootdir="$ROOT" \
  -c "$ROOT/pyproject.toml" "${xdist[@]}" "${abs_tests[@]}" 2>&1) | tee "$BUILD/pytest.log"
rc=${PIPESTATUS[0]}
set -e
t2=$(date +%s)
echo "== sanitize: tests took $((t2 - t1)) s, exit $rc"

# Any report, from the test process or a child process the tests started, fails the run.
reports=("$BUILD"/reports/*)
if [ -e "${reports[0]}" ]; then
  for r in "${reports[@]}"; do
    echo "==== $r" >&2
    head -c 20000 "$r" >&2
  done
  echo "sanitize.sh: ${#reports[@]} sanitizer report(s) in $BUILD/reports" >&2
  exit 1
fi
if grep -E -q "ERROR: AddressSanitizer|runtime error:|UndefinedBehaviorSanitizer" "$BUILD/pytest.log"; then
  echo "sanitize.sh: sanitizer report found (see $BUILD/pytest.log)" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  echo "sanitize.sh: tests failed under the sanitizers (exit $rc)" >&2
  exit "$rc"
fi
echo "== sanitize: clean"
