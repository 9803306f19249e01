#!/bin/sh
# Build tools/pow_verify.c with the library's C sources and flags (plus -DOM_TR_STATS for the fallback hook)
# and run it. Usage: tools/pow_verify.sh [-n pairs] [-j workers] [-s seed] [-f] [-H hardfile]
set -e
cd "$(dirname "$0")/.."
BIN=tools/cr_state/pow_verify
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
SRC="tools/pow_verify.c $(find provider/csrc -name '*.c')"
NEWER=$(find provider/csrc tools/pow_verify.c -newer "$BIN" \( -name '*.[ch]*' -o -name '*.inc' \) 2>/dev/null | head -1 || true)
if [ ! -x "$BIN" ] || [ -n "$NEWER" ]; then
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra \
      -DOM_TR_STATS -DOM_POW_STATS -Iprovider/csrc -o "$BIN" $SRC -lmpfr -lgmp -lm
fi
exec "$BIN" "$@"
