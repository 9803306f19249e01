#!/bin/sh
# Build tools/tr_digest.c with the library's C sources and compile flags (as tools/cr_verify.sh) and run it.
# Usage: tools/tr_digest.sh [tr_digest options] FUNC...      (see tools/tr_digest.c)
# The binary goes to tools/cr_state/tr_digest-$(uname -m), so an x86 and an arm64 build can share a checkout.
set -e
cd "$(dirname "$0")/.."
BIN=tools/cr_state/tr_digest-$(uname -m)
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
# Every .c under provider/csrc, as provider/build_ffi.py compiles them: the kernel tables refer to other files.
SRC="tools/tr_digest.c $(find provider/csrc -name '*.c' | sort)"
NEWER=$(find provider/csrc tools/tr_digest.c -newer "$BIN" -name '*.[ch]*' 2>/dev/null | head -1 || true)
if [ ! -x "$BIN" ] || [ -n "$NEWER" ]; then
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
      -Iprovider/csrc -o "$BIN" $SRC -lm
fi
exec "$BIN" "$@"
