#!/bin/sh
# The Softmax/LogSoftmax kernel timed alone (tools/softmax_bench.c), built from the working tree with the
# library's flags:  tools/softmax_bench.sh TOTAL N [PATH [LOG [CHUNK]]]
#   tools/softmax_bench.sh 1048576 1024 0 0 8192     # rows of 1024, 512 path, Softmax, the node's 8K chunks
set -e
cd "$(dirname "$0")/.."
mkdir -p tools/cr_state && echo "*" > tools/cr_state/.gitignore  # build outputs: never committed
b=tools/cr_state/softmax_bench
if [ ! -x "$b" ] || [ -n "$(find provider/csrc tools/softmax_bench.c -newer "$b" -print -quit)" ]; then
  gcc -std=gnu11 -O3 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -fno-math-errno -Wall -Wextra \
      -Iprovider/csrc -o "$b" tools/softmax_bench.c \
      $(find provider/csrc -name '*.c') -lm
fi
exec "$b" "$@"
