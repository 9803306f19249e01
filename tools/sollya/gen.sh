#!/bin/sh
# Regenerate provider/csrc/math/om_tr_consts.h from the Sollya script (about 1.5 minutes).
set -e
cd "$(dirname "$0")/../.."
sollya tools/sollya/om_tr_consts.sollya > provider/csrc/math/om_tr_consts.h
echo "wrote provider/csrc/math/om_tr_consts.h"
