#!/bin/sh
# Build and run tools/trig_reduce_scan.c (the library's flags, MPFR): the smallest reduced argument of Sin and Cos
# over every f32, and the reduction checked against MPFR.
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore
gcc -std=gnu11 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Iprovider/csrc -o tools/cr_state/trig_reduce_scan \
    tools/trig_reduce_scan.c -lmpfr -lgmp -lm
exec tools/cr_state/trig_reduce_scan
