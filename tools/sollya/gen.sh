#!/bin/sh
# Regenerate provider/csrc/math/om_tr_consts.h (exact mode, about 3 minutes) and om_fast_consts.h (fast mode,
# a few seconds) from the Sollya scripts.
set -e
cd "$(dirname "$0")/../.."
sollya tools/sollya/om_tr_consts.sollya > provider/csrc/math/om_tr_consts.h
echo "wrote provider/csrc/math/om_tr_consts.h"
sollya tools/sollya/om_fast_consts.sollya > provider/csrc/math/om_fast_consts.h
echo "wrote provider/csrc/math/om_fast_consts.h"
