#!/bin/sh
# tools/verify/cr_verify.c over a comma-separated list of functions, one after the other with the same options:
#   tools/verify/cr_verify.sh [cr_verify options] FUNC[,FUNC...]      (see tools/verify/cr_verify.c)
# e.g. -j 16 sin,cos. Built by tools/c_tool.py; the exit status is nonzero if any function fails.
set -e
cd "$(dirname "$0")/../.."
BIN=$(python3 tools/c_tool.py --build-only cr_verify)
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
