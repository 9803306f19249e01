#!/bin/sh
# Regenerate provider/csrc/math/om_tr_consts.h (exact mode, about 3 minutes), om_trig_consts.h (Sin, Cos) and
# om_fast_consts.h (fast mode,
# a few seconds) from the Sollya scripts. The scripts run with verbosity 1, so Sollya's warnings (a syntax error,
# a bound it could not compute) land in its output, and Sollya goes on after them: any warning, error message or
# value printed as "error" fails the run and leaves the header as it was. With verbosity 0 two syntax errors once
# went unnoticed and dropped a check from a bound (docs/exact-transcendentals.md, "After the eighth session's
# Erf change").
set -e
cd "$(dirname "$0")/../../.."
gen() {
  out="$1"
  shift
  tmp="$out.tmp"
  sollya "$@" > "$tmp" 2> "$tmp.err" || { cat "$tmp.err" >&2; rm -f "$tmp" "$tmp.err"; exit 1; }
  # a failed evaluation prints the word "error" where a number should be
  if [ -s "$tmp.err" ] || grep -q -E "Warning|(^|[ ,(])error([,)]|$)" "$tmp"; then
    echo "gen.sh: Sollya reported problems for $out:" >&2
    grep -n -E "Warning|(^|[ ,(])error([,)]|$)" "$tmp" >&2
    cat "$tmp.err" >&2
    rm -f "$tmp" "$tmp.err"
    exit 1
  fi
  rm -f "$tmp.err"
  mv "$tmp" "$out"
  echo "wrote $out"
}
gen provider/csrc/math/om_tr_consts.h tools/gen/sollya/om_tr_consts.sollya
gen provider/csrc/math/om_fast_consts.h tools/gen/sollya/om_fast_consts.sollya
gen provider/csrc/math/om_trig_consts.h tools/gen/sollya/om_trig_consts.sollya
