#!/bin/sh
# Throughput of the f32 transcendental kernels per path and mode (tools/tr_bench.c). Usage: tools/tr_bench.sh [op# [N]]
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -DOM_TR_STATS -Iprovider/csrc \
    -o tools/cr_state/tr_bench tools/tr_bench.c $(find provider/csrc -name '*.c') -lm
exec tools/cr_state/tr_bench "$@"
