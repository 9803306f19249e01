/* rnn_act.c - the recurrent ops' activations over the path's element-wise kernels (rnn_act.h). */
#include "rnn_act.h"

#include <ctype.h>

#include "isa/isa.h"
#include "kernels/kernels.h"
#include "onemodel.h"

static const char* const om_rnn_act_names[OM_RNN_ACT_END] = {
    "", "Sigmoid", "Tanh", "Relu", "HardSigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "Elu",
    "Softsign", "Softplus"};

const char* om_rnn_act_name(int kind) { return kind > 0 && kind < OM_RNN_ACT_END ? om_rnn_act_names[kind] : ""; }

/* ONNX Runtime compares the names without regard to case; so do we. */
int om_rnn_activation_code(const char* name) {
  for (int k = 1; k < OM_RNN_ACT_END; k++) {
    const char *a = name, *b = om_rnn_act_names[k];
    while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b)) a++, b++;
    if (!*a && !*b) return k;
  }
  return -1;
}

unsigned om_rnn_act_params(int kind) {
  switch (kind) {
    case OM_RNN_ACT_AFFINE:
    case OM_RNN_ACT_SCALEDTANH:
    case OM_RNN_ACT_HARDSIGMOID: return 3u;
    case OM_RNN_ACT_LEAKYRELU:
    case OM_RNN_ACT_THRESHOLDEDRELU:
    case OM_RNN_ACT_ELU: return 1u;
    default: return 0u;
  }
}

int om_rnn_act_default(int kind, int which, float* value) {
  if (kind == OM_RNN_ACT_LEAKYRELU && which == 0) *value = 0.01f;
  else if (kind == OM_RNN_ACT_HARDSIGMOID) *value = which == 0 ? 0.2f : 0.5f;
  else if (kind == OM_RNN_ACT_ELU && which == 0) *value = 1.0f;
  else return 0;
  return 1;
}

/* One kernel over n floats in place: whole vectors on the path's table, the tail on the one-lane table. The
 * parameters p1, p2 are broadcast operands (bits 1 and 2 of the kernels' bcast). */
enum { OM_RA_UN, OM_RA_BIN, OM_RA_TER };
static void om_rnn_kernel(int path, int form, int k, float* x, size_t n, const float* p1, const float* p2) {
  const om_kernel_table* tab[2] = {om_path_table(path), om_path_table(OM_PATH_SCALAR)};
  size_t done = 0;
  for (int q = 0; q < 2 && done < n; q++) {
    float* at = x + done;
    size_t left = n - done;
    if (form == OM_RA_UN) done += tab[q]->un[k][OM_T_FLOAT](at, at, left, OM_FL_EXACT);
    else if (form == OM_RA_BIN) done += tab[q]->bin[k][OM_T_FLOAT](at, p1, at, left, 2u, OM_FL_EXACT);
    else done += tab[q]->ter[k][OM_T_FLOAT](at, p1, p2, at, left, 6u, OM_FL_EXACT);
  }
}

void om_rnn_act_apply(int path, const om_rnn_act* act, float* x, size_t n) {
  if (n == 0) return;
  const float *a = &act->alpha, *b = &act->beta;
  switch (act->kind) {
    case OM_RNN_ACT_SIGMOID: om_rnn_kernel(path, OM_RA_UN, OM_K_SIGMOID, x, n, NULL, NULL); break;
    case OM_RNN_ACT_TANH: om_rnn_kernel(path, OM_RA_UN, OM_K_TANH, x, n, NULL, NULL); break;
    case OM_RNN_ACT_RELU: om_rnn_kernel(path, OM_RA_UN, OM_K_RELU, x, n, NULL, NULL); break;
    case OM_RNN_ACT_SOFTSIGN: om_rnn_kernel(path, OM_RA_UN, OM_K_SOFTSIGN, x, n, NULL, NULL); break;
    case OM_RNN_ACT_SOFTPLUS: om_rnn_kernel(path, OM_RA_UN, OM_K_SOFTPLUS, x, n, NULL, NULL); break;
    case OM_RNN_ACT_HARDSIGMOID: om_rnn_kernel(path, OM_RA_TER, OM_K_HARDSIGMOID, x, n, a, b); break;
    case OM_RNN_ACT_LEAKYRELU: om_rnn_kernel(path, OM_RA_BIN, OM_K_LEAKYRELU, x, n, a, NULL); break;
    case OM_RNN_ACT_THRESHOLDEDRELU: om_rnn_kernel(path, OM_RA_BIN, OM_K_THRESHOLDED_RELU, x, n, a, NULL); break;
    case OM_RNN_ACT_ELU: om_rnn_kernel(path, OM_RA_BIN, OM_K_ELU, x, n, a, NULL); break;
    case OM_RNN_ACT_AFFINE: /* RN(RN(alpha * x) + beta) */
      om_rnn_kernel(path, OM_RA_BIN, OM_K_MUL, x, n, a, NULL);
      om_rnn_kernel(path, OM_RA_BIN, OM_K_ADD, x, n, b, NULL);
      break;
    case OM_RNN_ACT_SCALEDTANH: /* RN(alpha * tanh(RN(beta * x))) */
      om_rnn_kernel(path, OM_RA_BIN, OM_K_MUL, x, n, b, NULL);
      om_rnn_kernel(path, OM_RA_UN, OM_K_TANH, x, n, NULL, NULL);
      om_rnn_kernel(path, OM_RA_BIN, OM_K_MUL, x, n, a, NULL);
      break;
    default: break;
  }
}
