/* rnn_act.h - the activations of RNN, LSTM and GRU (`activations`, `activation_alpha`, `activation_beta`), each
 * an exact element-wise kernel of the node's path (docs/recurrent.md, "Activations"). Knows nothing of shapes or
 * ORT. The codes are om_rnn_activation_code's (onemodel.h), which om_attrs.rnn_acts holds. */
#ifndef OM_RNN_ACT_H
#define OM_RNN_ACT_H

#include <stddef.h>

enum {
  OM_RNN_ACT_SIGMOID = 1,
  OM_RNN_ACT_TANH,
  OM_RNN_ACT_RELU,
  OM_RNN_ACT_HARDSIGMOID,
  OM_RNN_ACT_AFFINE,
  OM_RNN_ACT_LEAKYRELU,
  OM_RNN_ACT_THRESHOLDEDRELU,
  OM_RNN_ACT_SCALEDTANH,
  OM_RNN_ACT_ELU,
  OM_RNN_ACT_SOFTSIGN,
  OM_RNN_ACT_SOFTPLUS,
  OM_RNN_ACT_END /* one past the last code */
};

/* One activation: its code and its alpha, beta (those it takes). */
typedef struct om_rnn_act {
  int kind;
  float alpha, beta;
} om_rnn_act;

/* What kind takes: bit 0 alpha, bit 1 beta. */
unsigned om_rnn_act_params(int kind);
/* The default of a parameter a list leaves out (ONNX's operator defaults, which ONNX Runtime's CPU kernel
 * shares): 1 with *value set for LeakyRelu's alpha (0.01), HardSigmoid's alpha and beta (0.2, 0.5) and Elu's
 * alpha (1.0); 0 where ONNX and ONNX Runtime disagree (Affine, ThresholdedRelu, ScaledTanh), which the node
 * refuses. which: 0 alpha, 1 beta. */
int om_rnn_act_default(int kind, int which, float* value);
/* The activation's name as ONNX spells it ("" for an unknown code). */
const char* om_rnn_act_name(int kind);

/* x[k] = act(x[k]) for k < n, in place, on kernel path `path` (whole vectors there, the tail on one lane). */
void om_rnn_act_apply(int path, const om_rnn_act* act, float* x, size_t n);

/* binary64 (rnn_act_f64.c): 1 when kind has a binary64 kernel here (docs/recurrent.md's double table), 0 for
 * those refused for double (Elu, Softplus: no correctly rounded binary64 expm1 / log1p in the library). */
int om_rnn_act_f64_served(int kind);
/* x[k] = act(x[k]) for k < n in binary64, one lane at a time (the same bits on every path); alpha and beta are
 * the f32 attributes widened exactly; a NaN result is 0x7FF8000000000000. */
void om_rnn_act_apply_f64(const om_rnn_act* act, double* x, size_t n);

#endif
