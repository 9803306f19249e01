#!/bin/sh
# Softmax's row exponential on every f32 input in [-104, 0] (or every STRIDE-th: tools/rexp_check.sh STRIDE),
# every kernel path of this CPU (tools/rexp_check.c). REXP_CC / REXP_RUN: another compiler (built static) and a
# runner, e.g. aarch64-linux-gnu-gcc and qemu-aarch64.
TOOL_CC=${REXP_CC:-gcc} TOOL_RUN=${REXP_RUN:-} exec "$(dirname "$0")/c_tool.sh" rexp_check "$@"
