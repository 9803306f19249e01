#!/bin/sh
# The working tree's f32 transcendental kernels against those of a git revision, in one process
# (tools/ab_kernels.c):
#   tools/ab_kernels.sh speed REV [OPS [N [PAIRS [PATH]]]]   per-call alternation, median pair ratio (B = tree)
#   tools/ab_kernels.sh bits REV [OPS [PATH]]                 every f32 input, exact and fast: bit differences
# OPS: digits 0-6 (Exp Log Tanh Sigmoid Erf GeluErf = Gelu none, GeluTanh; default all), PATH 0 = 512 (default), 1 = 256.
# Both builds use the library's flags. Build outputs go to tools/cr_state/ab (never committed).
set -e
cd "$(dirname "$0")/.."
mode=${1:?usage: tools/ab_kernels.sh speed|bits REV [OPS ...]}
rev=${2:?usage: tools/ab_kernels.sh speed|bits REV [OPS ...]}
shift 2
ops=${1:-0123456}
[ $# -gt 0 ] && shift
st=tools/cr_state/ab
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore
rm -rf "$st" && mkdir -p "$st/base"
git archive "$rev" provider/csrc | tar -x -C "$st/base"
build() {
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -shared -fPIC \
      -I"$1/provider/csrc" -o "$2" $(find "$1"/provider/csrc -name '*.c') -lm
}
build "$st/base" "$st/A.so" &
pid=$!
build . "$st/B.so"
wait "$pid"
gcc -std=gnu11 -O2 -Wall -Wextra -Iprovider/csrc -o "$st/ab_kernels" tools/ab_kernels.c -ldl
exec "$st/ab_kernels" "$mode" "$st/A.so" "$st/B.so" "$ops" "$@"
