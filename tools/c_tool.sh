#!/bin/sh
# A C tool built against the library's sources with the library's flags, then run:
#   tools/c_tool.sh NAME [ARGS...]     # builds tools/NAME.c into tools/cr_state/NAME and runs it with ARGS
# TOOL_CC / TOOL_RUN: another compiler (then linked static) and a runner, e.g. aarch64-linux-gnu-gcc and
# qemu-aarch64. Used by tools/rexp_check.sh and tools/red_logf_check.sh.
set -e
cd "$(dirname "$0")/.."
name=$1
shift
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
CC=${TOOL_CC:-gcc}
STATIC=; [ "$CC" = gcc ] || STATIC=-static
$CC $STATIC -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
    -Iprovider/csrc -o "tools/cr_state/$name" "tools/$name.c" \
    $(find provider/csrc -name '*.c') -lm
exec ${TOOL_RUN:-} "tools/cr_state/$name" "$@"
