#!/bin/sh
# Build tools/cr_verify.c with the kernel sources (the library's compile flags) and run it.
# Usage: tools/cr_verify.sh [cr_verify options] FUNC[,FUNC...]      (see tools/cr_verify.c)
# A comma-separated list runs the functions one after the other with the same options (e.g. -j 16 sin,cos);
# the exit status is nonzero if any of them fails.
set -e
cd "$(dirname "$0")/.."
BIN=tools/cr_state/cr_verify
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs and state: never committed
# Every C source of the library, subfolders included (as provider/build_ffi.py compiles them).
SRC="tools/cr_verify.c $(find provider/csrc -name '*.c' | sort)"
NEWER=$(find provider/csrc tools/cr_verify.c -newer "$BIN" \( -name '*.[ch]*' -o -name '*.inc' \) 2>/dev/null | head -1 || true)
if [ ! -x "$BIN" ] || [ -n "$NEWER" ]; then
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra \
      -DOM_TR_STATS -Iprovider/csrc -o "$BIN" $SRC -lmpfr -lgmp -lm
fi
# The last argument is the function list; the others are options.
n=$#
i=1
opts=""
funcs=""
for a in "$@"; do
  if [ $i -eq $n ]; then funcs="$a"; else opts="$opts '$(printf "%s" "$a" | sed "s/'/'\\\\''/g")'"; fi
  i=$((i + 1))
done
rc=0
for f in $(echo "$funcs" | tr ',' ' '); do
  eval "\"$BIN\" $opts \"$f\"" || rc=1
done
exit $rc
