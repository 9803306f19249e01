#!/bin/sh
# tools/bench/pow_bench.c against the pow.c of git revision REV (path-independent "before" figures; the current
# figures: tools/c_tool.py pow_bench). Usage: tools/bench/pow_bench_old.sh REV [PATH_OF_POW_C_IN_REV]
# (default provider/csrc/pow.c).
set -e
cd "$(dirname "$0")/../.."
rev=${1:?usage: tools/bench/pow_bench_old.sh REV [PATH_OF_POW_C_IN_REV]}
mkdir -p build/c_tool
# every om_pow_* symbol of the old file renamed om_powold_*, so it links next to the current pow.c
git show "$rev:${2:-provider/csrc/pow.c}" \
  | sed 's/om_pow_/om_powold_/g; s/#include "pow.h"/#include "pow.h"\n#include <stddef.h>/' > build/c_tool/pow_old.c
exec python3 tools/c_tool.py -DOM_POW_BENCH_OLD --src build/c_tool/pow_old.c pow_bench
