/* rnn_step.h - one time step of LSTM, GRU and RNN for one batch row, after the products (docs/recurrent.md).
 *
 * The gate products (the input's, with the bias sum, and the state's) come from om_gemm; these functions do the
 * rest of a step in the order docs/recurrent.md states: each `+` and `*` one rounded f32 operation (the build
 * has -ffp-contract=off), the activations exact element-wise kernels of the node's path (rnn_act.h). A NaN they
 * store is the canonical 0x7FC00000. `clip` NULL: no clip. Knows nothing of shapes or ORT.
 *
 * The _f64 functions are the same steps in binary64 (each `+`, `*` one rounded double operation, in the same
 * order), the activations rnn_act.h's om_rnn_act_apply_f64; a NaN they store is 0x7FF8000000000000.
 */
#ifndef OM_RNN_STEP_H
#define OM_RNN_STEP_H

#include <stddef.h>

#include "rnn_act.h"

/* A direction's activations on kernel path `path`: f (LSTM gates i, o, f; GRU z, r; RNN's one), g (LSTM's cell
 * input, GRU's h gate), h (LSTM's output of the cell); input_forget: LSTM couples f = 1 - i. */
typedef struct om_rnn_acts {
  int path;
  om_rnn_act f, g, h;
  int input_forget;
} om_rnn_acts;

/* bias[k] = wb[k] + rb[k] for k < n (wb, rb NULL: +0); rb NULL alone: bias = wb. */
void om_rnn_bias_sum(const float* wb, const float* rb, float* bias, size_t n);

/* LSTM. a: the 4H state products (gates i, o, f, c), overwritten; xw: the row's input products with the bias
 * sum; p: the 3H peepholes (i, o, f) or NULL; c: the cell, updated; h: the new state; tmp: H floats. */
void om_lstm_step(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* p, const float* clip,
                  float* c, float* h, float* tmp);

/* RNN. a: the H state products, overwritten; xw: the row's input products with the bias sum; h: the new state. */
void om_rnn_plain_step(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* clip, float* h);

/* GRU, first half: a[0, 2H) holds the state products of gates z and r; becomes z, r (xw: the row's 3H input
 * products). */
void om_gru_gates(const om_rnn_acts* acts, size_t H, float* a, const float* xw, const float* clip);
/* GRU, linear_before_reset = 0: rh = r * h, the reset state whose product with R_h is the h gate's. */
void om_gru_reset(size_t H, const float* r, const float* h, float* rh);
/* GRU, second half: hh the h gate's state product (H), overwritten; xw_h the h gate's input products;
 * rb_h: R's h-gate bias for linear_before_reset = 1, NULL for 0; z, r from om_gru_gates; h updated. */
void om_gru_finish(const om_rnn_acts* acts, size_t H, float* hh, const float* xw_h, const float* rb_h, const float* z,
                   const float* r, const float* clip, float* h);

/* binary64: the functions above, element type double. */
void om_rnn_bias_sum_f64(const double* wb, const double* rb, double* bias, size_t n);
void om_lstm_step_f64(const om_rnn_acts* acts, size_t H, double* a, const double* xw, const double* p,
                      const double* clip, double* c, double* h, double* tmp);
void om_rnn_plain_step_f64(const om_rnn_acts* acts, size_t H, double* a, const double* xw, const double* clip,
                           double* h);
void om_gru_gates_f64(const om_rnn_acts* acts, size_t H, double* a, const double* xw, const double* clip);
void om_gru_reset_f64(size_t H, const double* r, const double* h, double* rh);
void om_gru_finish_f64(const om_rnn_acts* acts, size_t H, double* hh, const double* xw_h, const double* rb_h,
                       const double* z, const double* r, const double* clip, double* h);

#endif
