#!/bin/sh
# Build tools/cr_verify.c with the kernel sources (the library's compile flags) and run it.
# Usage: tools/cr_verify.sh [cr_verify options] FUNC      (see tools/cr_verify.c)
set -e
cd "$(dirname "$0")/.."
BIN=tools/cr_state/cr_verify
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
# All of the library's C sources (as provider/build_ffi.py compiles them): the kernel tables refer to other files.
SRC="tools/cr_verify.c $(ls provider/csrc/*.c provider/csrc/kernels/*.c)"
NEWER=$(find provider/csrc tools/cr_verify.c -newer "$BIN" -name '*.[ch]*' 2>/dev/null | head -1 || true)
if [ ! -x "$BIN" ] || [ -n "$NEWER" ]; then
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra \
      -DOM_TR_STATS -Iprovider/csrc -o "$BIN" $SRC -lmpfr -lgmp -lm
fi
exec "$BIN" "$@"
