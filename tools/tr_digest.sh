#!/bin/sh
# Build tools/tr_digest.c with the library's C sources and compile flags (as tools/cr_verify.sh) and run it.
# Usage: tools/tr_digest.sh [tr_digest options] FUNC...      (see tools/tr_digest.c)
# The binary goes to tools/cr_state/tr_digest-ARCH (ARCH from the compiler's target), so an x86 and an arm64
# build can share a checkout.
#
# A cross build, run by qemu-user without an arm64 root (docs/exact-mode.md, "ARM64"):
#   TR_DIGEST_CC=aarch64-linux-gnu-gcc TR_DIGEST_RUN=/path/to/qemu-aarch64 tools/tr_digest.sh -p 128 tanh
# TR_DIGEST_CC set links statically (tools/cr_state/tr_digest-ARCH-static); TR_DIGEST_RUN prefixes the run.
set -e
cd "$(dirname "$0")/.."
CC=${TR_DIGEST_CC:-gcc}
ARCH=$("$CC" -dumpmachine | cut -d- -f1)
STATIC=
[ -n "${TR_DIGEST_CC:-}" ] && STATIC=-static
BIN=tools/cr_state/tr_digest-$ARCH${STATIC}
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
# Every .c under provider/csrc, as provider/build_ffi.py compiles them: the kernel tables refer to other files.
SRC="tools/tr_digest.c $(find provider/csrc -name '*.c' | sort)"
NEWER=$(find provider/csrc tools/tr_digest.c -newer "$BIN" \( -name '*.[ch]*' -o -name '*.inc' \) 2>/dev/null | head -1 || true)
if [ ! -x "$BIN" ] || [ -n "$NEWER" ]; then
  "$CC" $STATIC -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
      -Iprovider/csrc -o "$BIN" $SRC -lm
fi
exec ${TR_DIGEST_RUN:-} "$BIN" "$@"
