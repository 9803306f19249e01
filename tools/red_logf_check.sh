#!/bin/sh
# LogSoftmax's one-row log (om_red_logf) against the Log kernel of every kernel path of this CPU on every f32
# bit pattern (or every STRIDE-th: tools/red_logf_check.sh STRIDE; tools/red_logf_check.c). REXP_CC / REXP_RUN
# as for tools/rexp_check.sh: another compiler (built static) and a runner, e.g. aarch64-linux-gnu-gcc and
# qemu-aarch64.
TOOL_CC=${REXP_CC:-gcc} TOOL_RUN=${REXP_RUN:-} exec "$(dirname "$0")/c_tool.sh" red_logf_check "$@"
