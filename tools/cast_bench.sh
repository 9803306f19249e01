#!/bin/sh
# Throughput of the vector Cast kernels per path (tools/cast_bench.c). Usage: tools/cast_bench.sh
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -Iprovider/csrc \
    -o tools/cr_state/cast_bench tools/cast_bench.c $(find provider/csrc -name '*.c') -lm
exec tools/cr_state/cast_bench "$@"
