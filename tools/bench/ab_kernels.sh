#!/bin/sh
# The working tree's f32 transcendental kernels against those of a git revision, in one process
# (tools/bench/ab_kernels.c):
#   tools/bench/ab_kernels.sh speed REV [OPS [N [PAIRS [PATH]]]]   per-call alternation, median pair ratio (B = tree)
#   tools/bench/ab_kernels.sh bits REV [OPS [PATH]]                 every f32 input, exact and fast: bit differences
# OPS: digits 0-6 (Exp Log Tanh Sigmoid Erf GeluErf = Gelu none, GeluTanh; default all), PATH 0 = 512 (default), 1 = 256.
# Both builds use the library's flags. Build outputs go to tools/cr_state/ab (never committed).
set -e
cd "$(dirname "$0")/../.."
mode=${1:?usage: tools/bench/ab_kernels.sh speed|bits REV [OPS ...]}
rev=${2:?usage: tools/bench/ab_kernels.sh speed|bits REV [OPS ...]}
shift 2
ops=${1:-0123456}
[ $# -gt 0 ] && shift
st=tools/cr_state/ab
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore
rm -rf "$st" && mkdir -p "$st/base"
git archive "$rev" provider/csrc | tar -x -C "$st/base"
# Both libraries with the recipe's flags (tools/c_tool.py --shared-lib), every C source of each tree.
python3 tools/c_tool.py --shared-lib "$st/base" "$st/A.so" &
pid=$!
python3 tools/c_tool.py --shared-lib . "$st/B.so"
wait "$pid"
exec python3 tools/c_tool.py ab_kernels "$mode" "$st/A.so" "$st/B.so" "$ops" "$@"
