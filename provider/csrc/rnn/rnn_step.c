/* rnn_step.c - one time step of LSTM and GRU for one batch row (rnn_step.h, docs/recurrent.md). */
#include "rnn_step.h"

#include <stdint.h>
#include <string.h>

#include "isa/isa.h"

/* The canonical quiet NaN for a NaN result, x itself otherwise. */
static inline float om_rnn_canon(float x) {
  if (x != x) {
    const uint32_t q = 0x7FC00000u;
    memcpy(&x, &q, sizeof x);
  }
  return x;
}

/* x = min(max(x, -clip), clip); a NaN stays. */
static void om_rnn_clip(float* x, size_t n, const float* clip) {
  if (!clip) return;
  const float hi = *clip, lo = -*clip;
  for (size_t k = 0; k < n; k++) x[k] = x[k] < lo ? lo : (x[k] > hi ? hi : x[k]);
}

/* Activation `act` of the direction in place over n floats. */
static void om_rnn_apply(const om_rnn_acts* acts, const om_rnn_act* act, float* x, size_t n) {
  om_rnn_act_apply(acts->path, act, x, n);
}

void om_rnn_bias_sum(const float* wb, const float* rb, float* bias, size_t n) {
  for (size_t k = 0; k < n; k++) bias[k] = (wb ? wb[k] : 0.0f) + (rb ? rb[k] : 0.0f);
}

/* a[k] = a[k] + xw[k]: the state's product plus the input's (with its bias sum). */
static void om_rnn_add(float* a, const float* xw, size_t n) {
  for (size_t k = 0; k < n; k++) a[k] = a[k] + xw[k];
}

void om_lstm_step(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* p, const float* clip,
                  float* c, float* h, float* tmp) {
  float *ai = a, *ao = a + H, *af = a + 2 * H, *ac = a + 3 * H;
  const int coupled = acts->input_forget;
  om_rnn_add(a, xw, 4 * H);
  if (p) {
    const float *pi = p, *pf = p + 2 * H;
    for (size_t j = 0; j < H; j++) ai[j] = ai[j] + pi[j] * c[j];
    for (size_t j = 0; j < H && !coupled; j++) af[j] = af[j] + pf[j] * c[j];
  }
  if (!p && !coupled) { /* i, o, f in one call (element-wise: the same bits as one call each) */
    om_rnn_clip(a, 4 * H, clip);
    om_rnn_apply(acts, &acts->f, a, 3 * H);
    om_rnn_apply(acts, &acts->g, ac, H);
    for (size_t j = 0; j < H; j++) c[j] = om_rnn_canon(af[j] * c[j] + ai[j] * ac[j]);
    memcpy(tmp, c, H * sizeof *c);
    om_rnn_apply(acts, &acts->h, tmp, H);
    for (size_t j = 0; j < H; j++) h[j] = om_rnn_canon(ao[j] * tmp[j]);
    return;
  }
  om_rnn_clip(ai, H, clip);
  om_rnn_clip(ac, H, clip);
  om_rnn_apply(acts, &acts->f, ai, H);
  if (coupled) {
    for (size_t j = 0; j < H; j++) af[j] = 1.0f - ai[j];
  } else {
    om_rnn_clip(af, H, clip);
    om_rnn_apply(acts, &acts->f, af, H);
  }
  om_rnn_apply(acts, &acts->g, ac, H);
  for (size_t j = 0; j < H; j++) c[j] = om_rnn_canon(af[j] * c[j] + ai[j] * ac[j]);
  if (p) {
    const float* po = p + H;
    for (size_t j = 0; j < H; j++) ao[j] = ao[j] + po[j] * c[j];
  }
  om_rnn_clip(ao, H, clip);
  om_rnn_apply(acts, &acts->f, ao, H);
  memcpy(tmp, c, H * sizeof *c);
  om_rnn_apply(acts, &acts->h, tmp, H);
  for (size_t j = 0; j < H; j++) h[j] = om_rnn_canon(ao[j] * tmp[j]);
}

void om_rnn_plain_step(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* clip, float* h) {
  om_rnn_add(a, xw, H);
  om_rnn_clip(a, H, clip);
  om_rnn_apply(acts, &acts->f, a, H);
  for (size_t j = 0; j < H; j++) h[j] = om_rnn_canon(a[j]);
}

void om_gru_gates(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* clip) {
  om_rnn_add(a, xw, 2 * H);
  om_rnn_clip(a, 2 * H, clip);
  om_rnn_apply(acts, &acts->f, a, 2 * H);
}

void om_gru_reset(size_t H, const float* r, const float* h, float* rh) {
  for (size_t j = 0; j < H; j++) rh[j] = r[j] * h[j];
}

void om_gru_finish(const om_rnn_acts* acts, size_t H, float* hh, const float* xw_h, const float* rb_h, const float* z,
                   const float* r, const float* clip, float* h) {
  if (rb_h)
    for (size_t j = 0; j < H; j++) hh[j] = r[j] * (hh[j] + rb_h[j]) + xw_h[j];
  else
    om_rnn_add(hh, xw_h, H);
  om_rnn_clip(hh, H, clip);
  om_rnn_apply(acts, &acts->g, hh, H);
  for (size_t j = 0; j < H; j++) h[j] = om_rnn_canon((1.0f - z[j]) * hh[j] + z[j] * h[j]);
}
