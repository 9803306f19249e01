/* act_f64.h - the double Tanh and Sigmoid kernels (act_f64.c): y[i] = om_f64_tanh(x[i]) / om_f64_sigmoid(x[i])
 * (math/om_f64_act.h, correctly rounded), one scalar loop compiled once and registered on every kernel path in
 * both modes (transcendental.inc's OM_REG_TRANSCENDENTAL): the same bits everywhere by construction. */
#ifndef OM_ACT_F64_H
#define OM_ACT_F64_H

#include <stddef.h>

size_t om_tanh_f64_loop(const void* a, void* out, size_t n, unsigned flags);
size_t om_sigmoid_f64_loop(const void* a, void* out, size_t n, unsigned flags);

#endif
