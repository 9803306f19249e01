#!/bin/sh
# Build and run tools/pow_eps_check.c (the f32 Pow first pass's error bound against MPFR; scalar path
# instantiated with the library's flags). Usage: tools/pow_eps_check.sh [pairs] [seed]
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra \
    -Iprovider/csrc -Iprovider/csrc/kernels -o tools/cr_state/pow_eps_check tools/pow_eps_check.c \
    $(ls provider/csrc/*.c provider/csrc/kernels/*.c) -lmpfr -lgmp -lm
exec tools/cr_state/pow_eps_check "$@"
