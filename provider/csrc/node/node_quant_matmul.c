/* node_quant_matmul.c - the quantized matrix products with a float step after the exact int32 sum
 * (docs/quantized-matmul.md): com.microsoft MatMulIntegerToFloat and DynamicQuantizeMatMul (to float) and ONNX's
 * QLinearMatMul (requantised to 8 bits). The int32 product is MatMulInteger's (qmatmul.h, on quant/qgemm.h);
 * DynamicQuantizeMatMul quantizes A first as DynamicQuantizeLinear does (dynamic_quantize.h); the float step is
 * quant/qoutput.h's, row by row in fixed chunks of rows. Knows nothing of ORT.
 *
 * Parameters served: a_scale, a_zero_point, y_scale, y_zero_point with one element; b_scale and b_zero_point
 * with one element or 1-D of N (per column of B); bias 1-D of N. Another shape is an error naming node, op and
 * input: at creation for a constant one-element parameter, otherwise at the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "dynamic_quantize.h"
#include "node_family.h"
#include "parallel.h"
#include "qmatmul.h"
#include "quant/qoutput.h"

enum { OM_QMM_NONE = -1 };

/* Where each input of an op is, and what type it must have: 'Q' uint8 or int8, 'F' float, 'A' / 'B' the type of
 * A / B (a zero point). */
typedef struct om_qmm_layout {
  int b, a_scale, b_scale, a_zp, b_zp, bias, y_scale, y_zp;
  const char* kinds;
  const char* names[8];
} om_qmm_layout;

static const om_qmm_layout om_qmm_to_float = {1, 2, 3, 4, 5, 6, OM_QMM_NONE, OM_QMM_NONE, "QQFFABF",
                                              {"A", "B", "a_scale", "b_scale", "a_zero_point", "b_zero_point",
                                               "bias"}};
static const om_qmm_layout om_qmm_dynamic = {1, OM_QMM_NONE, 2, OM_QMM_NONE, 3, 4, OM_QMM_NONE, OM_QMM_NONE, "FQFBF",
                                             {"A", "B", "b_scale", "b_zero_point", "bias"}};
static const om_qmm_layout om_qmm_qlinear = {3, 1, 4, 2, 5, OM_QMM_NONE, 6, 7, "QFAQFBFQ",
                                             {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point",
                                              "y_scale", "y_zero_point"}};

typedef struct om_qmm {
  om_qmatmul q; /* first: om_qmatmul_node_destroy */
  const om_qmm_layout* l;
  int has[8];   /* input k given */
  int y_signed; /* QLinearMatMul: y int8 */
} om_qmm;

#define OM_QMM_ROWS_ELEMS ((size_t)1 << 14) /* output elements per parallel chunk of rows (at least one row) */

static const char* om_qmm_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_qmm_type_ok(char kind, int t, const int* types, const om_qmm_layout* l) {
  switch (kind) {
    case 'Q': return t == OM_T_UINT8 || t == OM_T_INT8;
    case 'F': return t == OM_T_FLOAT;
    case 'A': return t == types[0];
    default: return t == types[l->b];
  }
}

static int om_qmm_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qmm* m = node->impl;
  const int* types = node->input_types;
  (void)a;
  m->l = node->op == OM_OP_QLINEAR_MATMUL ? &om_qmm_qlinear
       : node->op == OM_OP_DYNAMIC_QUANTIZE_MATMUL ? &om_qmm_dynamic : &om_qmm_to_float;
  const om_qmm_layout* l = m->l;
  for (size_t k = 0; k < node->n_inputs && l->kinds[k]; k++) {
    m->has[k] = types[k] != 0;
    if (!types[k] || om_qmm_type_ok(l->kinds[k], types[k], types, l)) continue;
    const char* want = l->kinds[k] == 'Q' ? "uint8 or int8" : l->kinds[k] == 'F' ? "float"
                     : om_type_name(types[l->kinds[k] == 'A' ? 0 : l->b]);
    OM_FAIL_MSG("node '%s' (op %s): %s has element type %s; it must be %s", node->name, om_qmm_op(node), l->names[k],
                om_type_name(types[k]), want);
  }
  m->q.a_signed = types[0] == OM_T_INT8;
  m->q.b_signed = types[l->b] == OM_T_INT8;
  if (l->y_zp != OM_QMM_NONE) {
    m->y_signed = types[l->y_zp] == OM_T_INT8;
    node->out_types[0] = types[l->y_zp];
  } else {
    node->out_types[0] = OM_T_FLOAT;
  }
  return 0;
}

static int om_qmm_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_qmm* m = node->impl;
  const om_qmm_layout* l = m->l;
  const int ki = (int)k;
  if (ki == l->b) return om_qmatmul_pack_constant(node, &m->q, data, shape, rank, err, errlen);
  if (ki == l->a_scale || ki == l->a_zp || ki == l->y_scale || ki == l->y_zp)
    return om_qparam_one(node, l->names[k], shape, rank, err, errlen);
  return 0;
}

/* The strides of the parameters (0: one for all, 1: per column) and the check of their shapes. */
typedef struct om_qmm_strides {
  size_t b_scale, b_zp, bias;
} om_qmm_strides;

static int om_qmm_check(const om_node* node, const om_node_io* io, om_mm_dims* d, om_qmm_strides* s) {
  const om_qmm* m = node->impl;
  const om_qmm_layout* l = m->l;
  size_t one;
  *s = (om_qmm_strides){0, 0, 0};
  if (om_qmatmul_dims(node, io, (size_t)l->b, d) != 0) return -1;
  const int singles[4] = {l->a_scale, l->a_zp, l->y_scale, l->y_zp};
  for (int q = 0; q < 4; q++)
    if (singles[q] != OM_QMM_NONE && m->has[singles[q]] &&
        om_qparam_stride(node, io, (size_t)singles[q], l->names[singles[q]], NULL, 0, &one) != 0)
      return -1;
  if (om_qparam_stride(node, io, (size_t)l->b_scale, l->names[l->b_scale], "column of B", d->N, &s->b_scale) ||
      (m->has[l->b_zp] &&
       om_qparam_stride(node, io, (size_t)l->b_zp, l->names[l->b_zp], "column of B", d->N, &s->b_zp)))
    return -1;
  if (l->bias != OM_QMM_NONE && m->has[l->bias]) {
    const size_t k = (size_t)l->bias;
    if (io->ranks[k] != 1 || io->shapes[k][0] != d->N) {
      char sh[160];
      om_shape_str(io->shapes[k], io->ranks[k], sh, sizeof sh);
      snprintf(io->err, io->errlen, "node '%s' (op %s): bias of shape %s must be 1-D of %lld (one per column of B)",
               node->name, om_qmm_op(node), sh, (long long)d->N);
      return -1;
    }
    s->bias = 1;
  }
  return 0;
}

static int om_qmm_shapes(const om_node* node, const om_node_io* io) {
  om_mm_dims d;
  om_qmm_strides s;
  if (om_qmm_check(node, io, &d, &s) != 0) return -1;
  om_matmul_out_shape(&d, io->out_shapes, &io->out_ranks[0]);
  return 0;
}

/* The float step over rows [begin, end) of the output (N elements each). */
typedef struct om_qmm_step {
  const int32_t* acc;
  size_t n;
  const float* m;
  size_t ms;
  const float* bias;
  size_t bs;
  int requant, y_signed;
  int32_t y_zp;
  void* y;
} om_qmm_step;

static int om_qmm_step_rows(const void* args, size_t begin, size_t end) {
  const om_qmm_step* t = args;
  for (size_t r = begin; r < end; r++) {
    if (t->requant)
      om_qout_requantize(t->acc + r * t->n, t->n, t->m, t->ms, t->y_zp, t->y_signed,
                         (uint8_t*)t->y + r * t->n);
    else
      om_qout_to_float(t->acc + r * t->n, t->n, t->m, t->ms, t->bias, t->bs, (float*)t->y + r * t->n);
  }
  return 0;
}

static int om_qmm_run(const om_node* node, const om_node_io* io) {
  const om_qmm* m = node->impl;
  const om_qmm_layout* l = m->l;
  om_mm_dims d;
  om_qmm_strides s;
  if (om_qmm_check(node, io, &d, &s) != 0) return -1;
  const size_t rows = om_shape_count(io->out_shapes, io->out_ranks[0]) / (d.N ? (size_t)d.N : 1);
  const size_t total = rows * (size_t)d.N;
  if (total == 0) return 0;
  const int requant = l->y_zp != OM_QMM_NONE;
  om_qmatmul_operands op = {io->data[0], NULL, 0, m->has[l->b_zp] ? io->data[l->b_zp] : NULL, s.b_zp};
  float a_scale;
  uint8_t a_zp_dyn = 0;
  uint8_t* qa = NULL;
  int32_t* scratch = NULL;
  float* mult = malloc((s.b_scale ? (size_t)d.N : 1) * sizeof(float));
  int rc = mult ? 0 : -1;
  if (rc == 0 && l->a_scale == OM_QMM_NONE) { /* DynamicQuantizeMatMul: A quantized as DynamicQuantizeLinear */
    const size_t na = om_shape_count(io->shapes[0], io->ranks[0]);
    int32_t zp = 0;
    qa = malloc(na ? na : 1);
    rc = qa ? om_dynamic_quantize_u8(node->path, io->data[0], na, io->parallel_for, io->host_ctx, qa, &a_scale, &zp)
            : -1;
    a_zp_dyn = (uint8_t)zp;
    op.a = qa;
    op.za = &a_zp_dyn;
  } else if (rc == 0) {
    memcpy(&a_scale, io->data[l->a_scale], sizeof a_scale);
    op.za = m->has[l->a_zp] ? io->data[l->a_zp] : NULL;
  }
  int32_t* acc = (int32_t*)io->outs[0]; /* to float: the int32 sums in y's own memory, then scaled in place */
  if (rc == 0 && requant) acc = scratch = malloc(total * sizeof(int32_t));
  if (rc != 0 || !acc) {
    free(mult);
    free(qa);
    free(scratch);
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qmm_op(node));
    return -1;
  }
  om_qout_multipliers(a_scale, io->data[l->b_scale], s.b_scale, requant ? io->data[l->y_scale] : NULL,
                      s.b_scale ? (size_t)d.N : 1, mult);
  rc = om_qmatmul_product(node, &m->q, &d, io, (size_t)l->b, &op, acc);
  if (rc == 0) {
    om_qmm_step t = {acc, (size_t)d.N, mult, s.b_scale, l->bias != OM_QMM_NONE && m->has[l->bias] ? io->data[l->bias]
                                                                                                  : NULL,
                     s.bias, requant, m->y_signed, requant ? om_qint8_value(io->data[l->y_zp], node->out_types[0]) : 0,
                     io->outs[0]};
    size_t chunk = OM_QMM_ROWS_ELEMS / (size_t)d.N;
    rc = om_parallel_ranges(io->parallel_for, io->host_ctx, rows, chunk ? chunk : 1, om_qmm_step_rows, &t);
  }
  free(mult);
  free(qa);
  free(scratch);
  return rc;
}

const om_family om_family_quant_matmul = {sizeof(om_qmm), om_qmm_create, om_qmm_shapes, om_qmm_run,
                                          om_qmm_set_constant, NULL, om_qmatmul_node_destroy, NULL};
