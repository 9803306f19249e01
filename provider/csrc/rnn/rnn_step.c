/* rnn_step.c - one time step of LSTM, GRU and RNN for one batch row (rnn_step.h, docs/recurrent.md): the body
 * rnn_step_body.inc instantiated for float (the f32 and f16 nodes) and double. */
#include "rnn_step.h"

#include <stdint.h>
#include <string.h>

/* The canonical quiet NaN for a NaN result, x itself otherwise. */
static inline float om_rnn_canon(float x) {
  if (x != x) {
    const uint32_t q = 0x7FC00000u;
    memcpy(&x, &q, sizeof x);
  }
  return x;
}
static inline double om_rnn_canon_f64(double x) {
  if (x != x) {
    const uint64_t q = 0x7FF8000000000000u;
    memcpy(&x, &q, sizeof x);
  }
  return x;
}

#define OM_RT float
#define OM_RSFX
#define OM_RCANON om_rnn_canon
#define OM_RACT(acts, act, x, n) om_rnn_act_apply((acts)->path, (act), (x), (n))
#include "rnn_step_body.inc"
#undef OM_RT
#undef OM_RSFX
#undef OM_RCANON
#undef OM_RACT

#define OM_RT double
#define OM_RSFX _f64
#define OM_RCANON om_rnn_canon_f64
#define OM_RACT(acts, act, x, n) om_rnn_act_apply_f64((act), (x), (n))
#include "rnn_step_body.inc"
