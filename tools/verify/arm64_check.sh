#!/bin/bash
# arm64_check.sh - this checkout built and tested as AArch64 under qemu-user 10, and its outputs compared with
# this (x86-64) machine's bit for bit. See docs/exact-mode.md, "ARM64", for what it runs and the last results.
#
#   tools/verify/arm64_check.sh                 # everything below
#   ARM64_STEPS="build tests" tools/verify/arm64_check.sh
#   ARM64_TESTS="tests/kernels/test_platform_rules.py" ARM64_STEPS="build tests" tools/verify/arm64_check.sh
#
# Steps (ARM64_STEPS, in this order):
#   build   copy the checkout (tracked and untracked, not ignored, files) to the root's /build/src and
#           `pip install -e .` it there with ONEMODEL_WERROR=1; check kernel_paths() is ['128', 'scalar']
#   xbuild  instead of build: copy the checkout likewise and compile onemodel_ep/_native.abi3.so on this
#           machine with aarch64-linux-gnu-gcc (GCC 12.2, the root's compiler) and the flags setuptools uses in
#           the root (its sysconfig CFLAGS, CCSHARED, LDSHARED, then provider/build_ffi.py's): the same library
#           in minutes instead of the emulated compiler's tens of minutes; then the same kernel_paths() check
#   tests   python -m pytest on ARM64_TESTS (default: the subset below) inside the root
#   digests tools/verify/cross_cpu_check.py in exact and fast mode inside the root and natively, then compared: exact
#           mode every path of both machines; fast mode the f32 transcendentals of AArch64's 128 path against
#           x86's 256 path (the same FMA bodies)
#   sample  tools/c_tool.py tr_digest on every ARM64_STRIDE-th f32 input (default 1021) of every f32 transcendental,
#           AArch64 128 against x86 512, exact mode, and fast mode against x86 256; compared with diff
# Results and logs go to ARM64_OUT (default tools/cr_state/arm64, ignored by git); the script exits non-zero at
# the first failing step.
#
# Needs: the arm64 root of shared/tools/arm64 (its setup.sh makes it; ARM64_DIR as there, default
# ${TMPDIR:-/tmp}/arm64; ARM64_TOOLS the folder of setup.sh and nsrun.sh, default ../shared/tools/arm64 beside
# this checkout, else /work/shared/tools/arm64), and the native venv .venv of this checkout with the library
# built (X86_PY to use another python). The test wheels the root lacks (gmpy2, hypothesis, from
# requirements-test.txt) are fetched once with pip download for manylinux aarch64.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
TOOLS=${ARM64_TOOLS:-$REPO/../shared/tools/arm64}
[ -x "$TOOLS/nsrun.sh" ] || TOOLS=/work/shared/tools/arm64
export ARM64_DIR=${ARM64_DIR:-${TMPDIR:-/tmp}/arm64}
ROOT=$ARM64_DIR/root
OUT=${ARM64_OUT:-$REPO/tools/cr_state/arm64}
X86_PY=${X86_PY:-$REPO/.venv/bin/python}
STEPS=${ARM64_STEPS:-build tests digests sample}  # or xbuild in place of build
STRIDE=${ARM64_STRIDE:-1021}
# The subset (docs/exact-mode.md, "ARM64", has its measured time: 47 minutes emulated on a loaded 2-core machine).
TESTS=${ARM64_TESTS:-tests/kernels/test_platform_rules.py tests/ep/test_fpenv.py tests/kernels/test_transcendentals.py
  tests/kernels/test_transcendentals_fast.py tests/kernels/test_transcendentals_16.py tests/kernels/test_cast_matrix.py tests/kernels/test_fuzz.py
  tests/kernels/test_gemm_kernel.py tests/nodes/test_matmul_node.py tests/nodes/test_oracle_cases.py}
# Every ORACLE_EVERY-th oracle case (tests/nodes/test_oracle_cases.py, ONEMODEL_ORACLE_EVERY); 1 runs them all.
ORACLE_EVERY=${ARM64_ORACLE_EVERY:-10}
mkdir -p "$OUT" tools/cr_state && echo "*" > tools/cr_state/.gitignore

[ -x "$ROOT/opt/venv/bin/python" ] || "$TOOLS/setup.sh"
# PYTHONPATH: the checkout's onemodel_ep also when the root has no editable install of it (xbuild).
in_root() { "$TOOLS/nsrun.sh" chroot "$ROOT" /bin/sh -c "export PYTHONPATH=/build/src; $1"; }
stamp() { date -u +%H:%M:%S; }
has() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# gmpy2 and hypothesis at the versions the tests pin.
if ! in_root '/opt/venv/bin/python -c "import gmpy2, hypothesis"' 2>/dev/null; then
  mkdir -p "$ROOT/wheels-test"
  pins=$(grep -E '^(gmpy2|hypothesis)==' requirements-test.txt | tr '\n' ' ')
  pip download -q --platform manylinux2014_aarch64 --platform manylinux_2_17_aarch64 \
    --platform manylinux_2_28_aarch64 --only-binary=:all: --python-version 3.11 -d "$ROOT/wheels-test" $pins
  in_root "/opt/venv/bin/pip install -q --no-index --find-links /wheels-test --find-links /wheels $pins"
fi

copy_checkout() {
  echo "[$(stamp)] $1: copying the checkout to $ROOT/build/src"
  rm -rf "$ROOT/build/src" && mkdir -p "$ROOT/build/src"
  git ls-files -z --cached --others --exclude-standard \
    | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$ROOT/build/src"
}

if has build; then
  copy_checkout build
  t0=$(date +%s)
  in_root 'cd /build/src && ONEMODEL_WERROR=1 /opt/venv/bin/pip install -q --no-build-isolation --no-index \
    --find-links /wheels -e . >/build/pip.log 2>&1 || { cat /build/pip.log; exit 1; }'
  echo "[$(stamp)] build: $(( $(date +%s) - t0 )) s emulated"
fi

if has xbuild; then
  copy_checkout xbuild
  t0=$(date +%s)
  XCC=${ARM64_CC:-aarch64-linux-gnu-gcc}
  # The root's python: its compile and link flags (LDSHARED without its compiler word) and its headers.
  pycflags=$(in_root '/opt/venv/bin/python -c "import sysconfig as s; print(s.get_config_var(\"CFLAGS\"), s.get_config_var(\"CCSHARED\"))"')
  pyldflags=$(in_root '/opt/venv/bin/python -c "import sysconfig as s; print(s.get_config_var(\"LDSHARED\").split(None, 1)[1])"')
  pyinc=$(in_root '/opt/venv/bin/python -c "import sysconfig as s; print(s.get_config_var(\"INCLUDEPY\"))"')
  obj=$ROOT/build/xobj && rm -rf "$obj" && mkdir -p "$obj"
  # The cffi module's C source and build_ffi's flags and sources, from this checkout's build script.
  (cd "$ROOT/build/src" && "$X86_PY" -c "
import sys; sys.path.insert(0, 'provider'); import build_ffi as b
b.ffibuilder.emit_c_code('$obj/_native.c')
open('$obj/cflags', 'w').write(' '.join(b.CFLAGS)); open('$obj/sources', 'w').write(' '.join(b.SOURCES))")
  objs=()
  for src in "$obj/_native.c" $(cat "$obj/sources"); do
    o=$obj/$(basename "$src" .c)_$(echo "$src" | cksum | cut -d' ' -f1).o
    (cd "$ROOT/build/src" && $XCC $pycflags -Iprovider/csrc -I"$ROOT$pyinc" -idirafter "$ROOT/usr/include" \
      -c "$src" -o "$o" $(cat "$obj/cflags") -Werror)
    objs+=("$o")
  done
  $XCC -shared $pyldflags "${objs[@]}" -o "$ROOT/build/src/onemodel_ep/_native.abi3.so" -lm
  echo "[$(stamp)] xbuild: $(( $(date +%s) - t0 )) s ($XCC on this machine)"
fi

if has build || has xbuild; then
  paths=$(in_root 'cd /build/src && /opt/venv/bin/python -c "import onemodel_ep; print(onemodel_ep.kernel_paths())"')
  echo "[$(stamp)] kernel_paths() on aarch64: $paths"
  [ "$paths" = "['128', 'scalar']" ] || { echo "expected ['128', 'scalar']"; exit 1; }
fi

if has tests; then
  echo "[$(stamp)] tests: $(echo $TESTS)"
  t0=$(date +%s)
  set +e
  in_root "cd /build/src && ONEMODEL_ORACLE_EVERY=$ORACLE_EVERY /opt/venv/bin/python -m pytest -q -p no:cacheprovider --durations=15 $(echo $TESTS)" \
    > "$OUT/tests.log" 2>&1
  rc=$?
  set -e
  tail -40 "$OUT/tests.log"
  echo "[$(stamp)] tests: $(( $(date +%s) - t0 )) s emulated, exit $rc"
  [ "$rc" = 0 ] || exit 1
fi

if has digests; then
  t0=$(date +%s)
  for mode in exact fast; do
    in_root "cd /build/src && /opt/venv/bin/python tools/verify/cross_cpu_check.py --mode $mode --out /build/arm64_$mode.json"
    cp "$ROOT/build/arm64_$mode.json" "$OUT/arm64_$mode.json"
    "$X86_PY" tools/verify/cross_cpu_check.py --mode $mode --out "$OUT/x86_$mode.json"
  done
  echo "[$(stamp)] digests: $(( $(date +%s) - t0 )) s (both machines)"
  "$X86_PY" tools/verify/cross_cpu_check.py --compare "$OUT/x86_exact.json" "$OUT/arm64_exact.json" | tee "$OUT/digests_exact.txt"
  in_root "cd /build/src && /opt/venv/bin/python tools/verify/cross_cpu_check.py --golden" | tee "$OUT/golden_arm64.txt"
  "$X86_PY" tools/verify/cross_cpu_check.py --keys '^(Exp|Log|Tanh|Sigmoid|Erf|Gelu)\(1\)' \
    --compare "$OUT/x86_fast.json:256" "$OUT/arm64_fast.json:128" | tee "$OUT/digests_fast.txt"
fi

if has sample; then
  FUNCS="exp log tanh sigmoid erf gelu_erf gelu_tanh sin cos softplus mish elu selu celu"
  for mode in exact fast; do
    flag=; x86path=512
    [ $mode = fast ] && flag=-f && x86path=256
    t0=$(date +%s)
    in_root "cd /build/src && /opt/venv/bin/python tools/c_tool.py tr_digest -p 128 -j 2 $flag -t $STRIDE $FUNCS" > "$OUT/sample_arm64_$mode.txt"
    echo "[$(stamp)] sample $mode: $(( $(date +%s) - t0 )) s emulated"
    "$X86_PY" tools/c_tool.py tr_digest -p $x86path -j 2 $flag -t "$STRIDE" $FUNCS > "$OUT/sample_x86_$mode.txt"
    if diff "$OUT/sample_x86_$mode.txt" "$OUT/sample_arm64_$mode.txt" > "$OUT/sample_$mode.diff"; then
      echo "sample $mode: every ${STRIDE}th f32 input, $FUNCS: the same digests (aarch64 128 = x86 $x86path)"
    else
      echo "sample $mode: DIFFER (see $OUT/sample_$mode.diff)"
      exit 1
    fi
  done
fi
echo "[$(stamp)] arm64_check: done"
