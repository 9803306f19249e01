#!/bin/sh
# Build and run tools/pow_eps_check.c (the f32 Pow first pass's error bound against MPFR; scalar path
# instantiated with the library's flags; -p 512: the 512 path's FMA first pass). Usage:
# tools/pow_eps_check.sh [-p 512] [pairs] [seed]
set -e
cd "$(dirname "$0")/.."
DEF=""
if [ "$1" = "-p" ]; then
  [ "$2" = 512 ] || { echo "pow_eps_check.sh: only -p 512" >&2; exit 2; }
  DEF="-DOM_EPS_512"
  shift 2
fi
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra $DEF \
    -Iprovider/csrc -Iprovider/csrc/kernels -o tools/cr_state/pow_eps_check tools/pow_eps_check.c \
    $(find provider/csrc -name '*.c') -lmpfr -lgmp -lm
exec tools/cr_state/pow_eps_check "$@"
