/* act_f64.c - the double Tanh and Sigmoid kernels (act_f64.h): a loop over the correctly rounded scalar functions.
 * Fast mode is exact mode here (flags unused); NaN gives the canonical NaN in both. */
#include "act_f64.h"

#include "math/om_f64_act.h"

size_t om_tanh_f64_loop(const void* a, void* out, size_t n, unsigned flags) {
  const double* x = (const double*)a;
  double* y = (double*)out;
  (void)flags;
  for (size_t i = 0; i < n; i++) y[i] = om_f64_tanh(x[i]);
  return n;
}

size_t om_sigmoid_f64_loop(const void* a, void* out, size_t n, unsigned flags) {
  const double* x = (const double*)a;
  double* y = (double*)out;
  (void)flags;
  for (size_t i = 0; i < n; i++) y[i] = om_f64_sigmoid(x[i]);
  return n;
}
