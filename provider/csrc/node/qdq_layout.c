/* qdq_layout.c - per tensor, per axis and blocked scales of QuantizeLinear / DequantizeLinear (qdq_layout.h). */
#include "qdq_layout.h"

#include <stdio.h>

#include "core/om_ops.h"
#include "matmul_shape.h"

int om_qdq_attrs_read(const om_node* node, const om_attrs* a, om_qdq_attrs* q, char* err, size_t errlen) {
  q->axis = a->has_axis ? a->axis : 1;
  q->block_size = a->has_block_size ? a->block_size : 0;
  if (q->block_size < 0) {
    snprintf(err, errlen, "node '%s' (op %s): attribute 'block_size' must be 0 or more, got %lld", node->name,
             om_op_row(node->op)->name, (long long)q->block_size);
    return -1;
  }
  return 0;
}

static int om_qdq_bad_shape(const om_node* node, const om_node_io* io, size_t k, const char* what) {
  char s[160], xs[160];
  static const char* const names[3] = {"x", "scale", "zero point"};
  om_shape_str(io->shapes[k], io->ranks[k], s, sizeof s);
  om_shape_str(io->shapes[0], io->ranks[0], xs, sizeof xs);
  snprintf(io->err, io->errlen, "node '%s' (op %s): input %zu (%s) of shape %s %s (x has shape %s)", node->name,
           om_op_row(node->op)->name, k, names[k], s, what, xs);
  return -1;
}

int om_qdq_layout_of(const om_node* node, const om_qdq_attrs* q, const om_node_io* io, int has_zp,
                     om_qdq_layout* l) {
  const int64_t* xs = io->shapes[0];
  const size_t r = io->ranks[0];
  const int64_t* ss = io->shapes[1];
  const size_t sr = io->ranks[1];
  l->n = om_shape_count(xs, r);
  l->n_params = om_shape_count(ss, sr);
  l->kind = OM_QDQ_TENSOR;
  l->outer = l->d = 1;
  l->inner = l->n;
  l->block = 0;
  if (has_zp) { /* the zero point has the scale's shape (per tensor: one element) */
    const size_t zr = io->ranks[2];
    int same = zr == sr;
    for (size_t d = 0; same && d < sr; d++) same = io->shapes[2][d] == ss[d];
    if (!same && !(l->n_params == 1 && sr <= 1 && zr <= 1 && om_shape_count(io->shapes[2], zr) == 1))
      return om_qdq_bad_shape(node, io, 2, "does not have the scale's shape");
  }
  if (q->block_size == 0 && sr <= 1 && l->n_params == 1) return 0;
  int64_t a = q->axis < 0 ? q->axis + (int64_t)r : q->axis;
  if (a < 0 || a >= (int64_t)r) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): attribute 'axis' %lld is out of range for x of rank %zu",
             node->name, om_op_row(node->op)->name, (long long)q->axis, r);
    return -1;
  }
  l->outer = 1;
  l->inner = 1;
  for (int64_t d = 0; d < a; d++) l->outer *= (size_t)xs[d];
  for (size_t d = (size_t)a + 1; d < r; d++) l->inner *= (size_t)xs[d];
  l->d = (size_t)xs[a];
  if (q->block_size == 0) {
    if (sr != 1 || ss[0] != xs[a])
      return om_qdq_bad_shape(node, io, 1, "must have one element, or be 1-D with one per element of the axis");
    l->kind = OM_QDQ_AXIS;
    return 0;
  }
  const size_t b = (size_t)q->block_size;
  int ok = sr == r;
  for (size_t d = 0; ok && d < r; d++)
    ok = d == (size_t)a ? (size_t)ss[d] == (l->d + b - 1) / b : ss[d] == xs[d];
  if (!ok) return om_qdq_bad_shape(node, io, 1, "must have x's shape but ceil(x.shape[axis] / block_size) on the axis");
  l->kind = OM_QDQ_BLOCKED;
  l->block = b;
  return 0;
}

static size_t om_min_size(size_t a, size_t b) { return a < b ? a : b; }

size_t om_qdq_run(const om_qdq_layout* l, size_t i, size_t limit, size_t* param, size_t* ps) {
  *param = 0;
  *ps = 0;
  if (l->kind == OM_QDQ_TENSOR) return limit;
  const size_t o = i / (l->d * l->inner), rem = i % (l->d * l->inner), k = rem / l->inner, j = rem % l->inner;
  if (l->kind == OM_QDQ_AXIS) {
    *param = k;
    if (l->inner > 1) return om_min_size(limit, l->inner - j);
    *ps = 1;
    return om_min_size(limit, l->d - k);
  }
  const size_t nb = (l->d + l->block - 1) / l->block;
  if (l->inner > 1) {
    *param = (o * nb + k / l->block) * l->inner + j;
    *ps = 1;
    return om_min_size(limit, l->inner - j);
  }
  *param = o * nb + k / l->block;
  return om_min_size(om_min_size(limit, l->block - k % l->block), l->d - k);
}

void om_qdq_widen(const void* zp, int t, size_t n, int32_t* out) {
  for (size_t i = 0; i < n; i++) switch (t) {
      case OM_T_UINT4: case OM_T_INT4: { /* element i: byte i / 2, its low four bits for even i */
        const int v = (((const uint8_t*)zp)[i / 2] >> (4 * (i & 1))) & 0xf;
        out[i] = t == OM_T_INT4 && v >= 8 ? v - 16 : v;
        break;
      }
      case OM_T_UINT8: out[i] = ((const uint8_t*)zp)[i]; break;
      case OM_T_INT8: out[i] = ((const int8_t*)zp)[i]; break;
      case OM_T_UINT16: out[i] = ((const uint16_t*)zp)[i]; break;
      case OM_T_INT16: out[i] = ((const int16_t*)zp)[i]; break;
      default: out[i] = ((const int32_t*)zp)[i]; break;
    }
}
