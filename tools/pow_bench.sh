#!/bin/sh
# Throughput of f32 Pow per path and mode (tools/pow_bench.c), built with the library's flags.
# Usage: tools/pow_bench.sh [--old REV]   (--old: the pow.c of git revision REV instead, path-independent)
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
FLAGS="-std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -DOM_TR_STATS -DOM_POW_STATS -Iprovider/csrc"
if [ "$1" = "--old" ]; then
  # every om_pow_* symbol of the old file renamed om_powold_*, so it links next to the current pow.c
  { git show "$2:provider/csrc/kernels/pow.c" 2>/dev/null || git show "$2:provider/csrc/pow.c"; } | sed 's/om_pow_/om_powold_/g; s/#include "pow.h"/#include "pow.h"\n#include <stddef.h>/' \
      > tools/cr_state/pow_old.c
  gcc $FLAGS -Iprovider/csrc/kernels -Iprovider/csrc/core -DOM_POW_BENCH_OLD -o tools/cr_state/pow_bench_old tools/pow_bench.c tools/cr_state/pow_old.c \
      $(find provider/csrc -name '*.c') -lm
  exec tools/cr_state/pow_bench_old
fi
gcc $FLAGS -o tools/cr_state/pow_bench tools/pow_bench.c $(find provider/csrc -name '*.c') -lm
exec tools/cr_state/pow_bench
