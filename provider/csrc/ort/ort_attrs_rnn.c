/* ort_attrs_rnn.c - RNN's, LSTM's and GRU's string and list attributes into om_attrs (ort_attrs.h). Knows nothing
 * of math: the activations' codes are om_rnn_activation_code's (onemodel.h). */
#include <stdio.h>
#include <string.h>

#include "ort_attrs.h"

enum { OM_RNN_ACT_WIDTH = 32, OM_RNN_ACT_CAP = sizeof(((om_attrs*)0)->rnn_acts) / sizeof(int) };

int om_attrs_read_rnn(const om_attr_source* src, om_attrs* attrs, char* err, size_t errlen) {
  static const char* const directions[] = {"forward", "reverse", "bidirectional"};
  char sval[64];
  int r = src->get_string(src->ctx, "direction", sval, sizeof sval, err, errlen);
  if (r < 0) return -1;
  if (r == 0) {
    attrs->rnn_direction = -1;
    for (int q = 0; q < 3; q++)
      if (strcmp(sval, directions[q]) == 0) attrs->rnn_direction = q;
    if (attrs->rnn_direction < 0) {
      snprintf(err, errlen, "attribute 'direction' must be forward, reverse or bidirectional, got \"%s\"", sval);
      return -1;
    }
  }
  char names[OM_RNN_ACT_CAP][OM_RNN_ACT_WIDTH];
  size_t n = 0;
  r = src->get_strings(src->ctx, "activations", &names[0][0], OM_RNN_ACT_WIDTH, OM_RNN_ACT_CAP, &n, err, errlen);
  if (r < 0) return -1;
  if (r == 0 && n == (size_t)-1) attrs->n_rnn_acts = n; /* unreadable on this runtime */
  else if (r == 0) {
    attrs->n_rnn_acts = n;
    for (size_t q = 0; q < n && q < OM_RNN_ACT_CAP; q++) attrs->rnn_acts[q] = om_rnn_activation_code(names[q]);
  }
  r = src->get_floats(src->ctx, "activation_alpha", attrs->rnn_act_alpha, OM_RNN_ACT_CAP, &attrs->n_rnn_act_alpha,
                      err, errlen);
  if (r < 0) return -1;
  r = src->get_floats(src->ctx, "activation_beta", attrs->rnn_act_beta, OM_RNN_ACT_CAP, &attrs->n_rnn_act_beta, err,
                      errlen);
  return r < 0 ? -1 : 0;
}
