#!/bin/sh
# Throughput of the f32 transcendental kernels per path and mode (tools/tr_bench.c). Usage: tools/tr_bench.sh [op#]
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -DOM_TR_STATS -Iprovider/csrc \
    -o tools/cr_state/tr_bench tools/tr_bench.c provider/csrc/kernels/kernels_512.c \
    provider/csrc/kernels/kernels_256.c provider/csrc/kernels/kernels_128.c provider/csrc/kernels/kernels_scalar.c \
    provider/csrc/kernels/paths.c -lm
exec tools/cr_state/tr_bench "$@"
