#!/bin/sh
# LogSoftmax's one-row log (om_red_logf) against the Log kernel on every f32 (or every STRIDE-th: tools/red_logf_check.sh STRIDE)
# on every kernel path of this CPU (tools/red_logf_check.c). REXP_CC / REXP_RUN: another compiler (built static) and a
# runner, e.g. aarch64-linux-gnu-gcc and qemu-aarch64.
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
CC=${REXP_CC:-gcc}
STATIC=; [ "$CC" = gcc ] || STATIC=-static
$CC $STATIC -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
    -Iprovider/csrc -o tools/cr_state/red_logf_check tools/red_logf_check.c \
    $(ls provider/csrc/*.c provider/csrc/kernels/*.c provider/csrc/reduce/*.c provider/csrc/gemm/*.c) -lm
exec ${REXP_RUN:-} tools/cr_state/red_logf_check "$@"
