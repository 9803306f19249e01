/* rnn_act_f64.c - the recurrent ops' activations in binary64 (rnn_act.h, docs/recurrent.md "double"): one lane at
 * a time, each `*`, `+`, `/` one rounded double operation (-ffp-contract=off), Sigmoid and Tanh the correctly
 * rounded binary64 kernels of math/om_f64_act.h. Elu and Softplus are not served for double. */
#include <stdint.h>
#include <string.h>

#include "math/om_f64_act.h"
#include "rnn_act.h"

int om_rnn_act_f64_served(int kind) {
  switch (kind) {
    case OM_RNN_ACT_RELU:
    case OM_RNN_ACT_LEAKYRELU:
    case OM_RNN_ACT_THRESHOLDEDRELU:
    case OM_RNN_ACT_HARDSIGMOID:
    case OM_RNN_ACT_AFFINE:
    case OM_RNN_ACT_SOFTSIGN:
    case OM_RNN_ACT_SIGMOID:
    case OM_RNN_ACT_TANH:
    case OM_RNN_ACT_SCALEDTANH: return 1;
    default: return 0;
  }
}

/* One element: docs/recurrent.md's table, in binary64. */
static double om_rnn_act_one_f64(int kind, double x, double a, double b) {
  switch (kind) {
    case OM_RNN_ACT_SIGMOID: return om_f64_sigmoid(x);
    case OM_RNN_ACT_TANH: return om_f64_tanh(x);
    case OM_RNN_ACT_SCALEDTANH: return a * om_f64_tanh(b * x); /* RN(alpha * tanh(RN(beta * x))) */
    case OM_RNN_ACT_RELU: return x < 0 ? 0.0 : x;
    case OM_RNN_ACT_LEAKYRELU: return x < 0 ? a * x : x;
    case OM_RNN_ACT_THRESHOLDEDRELU: return x != x ? x : (x > a ? x : 0.0);
    case OM_RNN_ACT_HARDSIGMOID: {
      double r = a * x + b;
      return r < 0 ? 0.0 : (r > 1 ? 1.0 : r);
    }
    case OM_RNN_ACT_AFFINE: return a * x + b;
    case OM_RNN_ACT_SOFTSIGN: {
      if (x == 1.0 / 0.0) return 1.0;
      if (x == -1.0 / 0.0) return -1.0;
      return x / (1.0 + (x < 0 ? -x : x));
    }
    default: return x;
  }
}

void om_rnn_act_apply_f64(const om_rnn_act* act, double* x, size_t n) {
  const double a = (double)act->alpha, b = (double)act->beta;
  const uint64_t q = 0x7FF8000000000000u;
  for (size_t k = 0; k < n; k++) {
    double y = om_rnn_act_one_f64(act->kind, x[k], a, b);
    if (y != y) memcpy(&y, &q, sizeof y);
    x[k] = y;
  }
}
