#!/bin/sh
# Softmax's row exponential on every f32 input in [-104, 0], every kernel path of this CPU (tools/rexp_check.c).
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
    -Iprovider/csrc -o tools/cr_state/rexp_check tools/rexp_check.c \
    $(ls provider/csrc/*.c provider/csrc/kernels/*.c provider/csrc/reduce/*.c provider/csrc/gemm/*.c) -lm
exec tools/cr_state/rexp_check "$@"
