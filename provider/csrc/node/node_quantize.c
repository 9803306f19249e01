/* node_quantize.c - QuantizeLinear and DequantizeLinear nodes (ONNX opsets 10-23 and com.microsoft's), onto
 * quant/qdq.h; which scale each element uses: qdq_layout.h. docs/quantized.md states each element's steps.
 *
 * Served: QuantizeLinear of float x and scale to uint8, int8, int16, uint16 (the zero point's type, else
 * output_dtype, else uint8); DequantizeLinear of uint8, int8, int16, uint16, int32 x with a float scale to float.
 * The 16-bit types need ONNX opset 21 (com.microsoft has them from its opset 1). Both domains also serve int4 and
 * uint4 (ONNX's from opset 21, com.microsoft's from its opset 1: two elements a byte, unpacked to a byte each per
 * chunk); ONNX's nodes the four float8 types too (opset 19 on: math/om_f8.h, zero points that must be 0,
 * `saturate`; com.microsoft's schema has no float8). The rewriter adds an input 3, an
 * empty tensor of y's type from which ONNX Runtime infers the custom op's output type; it carries no data. The
 * work is split into fixed chunks of elements (om_parallel_ieee); an element's result depends on nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qdq_layout.h"
#include "quant/qdq.h"

#define OM_QDQ_CHUNK ((size_t)1 << 14) /* elements per parallel chunk */

typedef struct om_qdq_node {
  om_qdq_attrs q;
  int quantize; /* QuantizeLinear (else DequantizeLinear) */
  int int_type; /* the integer type: y's (QuantizeLinear) or x's (DequantizeLinear) */
  int has_zp;   /* input 2 given (for float8: checked to be 0, then ignored) */
  int saturate; /* float8 QuantizeLinear: the attribute (default 1) */
  int scale_known;    /* the scale is a constant of scale_rank, scale_count elements */
  size_t scale_rank, scale_count;
} om_qdq_node;

static int om_qdq_fail(const om_node* node, char* err, size_t errlen, const char* what, long long v) {
  snprintf(err, errlen, "node '%s' (op %s): ", node->name, om_op_row(node->op)->name);
  size_t used = strlen(err);
  if (used < errlen) snprintf(err + used, errlen - used, what, v);
  return -1;
}

static int om_qdq_is_f8(int t) { return t >= OM_T_FLOAT8E4M3FN && t <= OM_T_FLOAT8E5M2FNUZ; }
static int om_qdq_is_int4(int t) { return t == OM_T_UINT4 || t == OM_T_INT4; }

/* The zero point's or output_dtype's quantized type t, at the node's opset: 0, or -1 with a message. */
static int om_qdq_type_ok(const om_node* node, int onnx, int t, const char* what, char* err, size_t errlen) {
  int32_t lo, hi;
  const int narrow = om_qdq_is_f8(t) || om_qdq_is_int4(t);
  if ((om_qdq_range(t, &lo, &hi) != 0 && !om_qdq_is_f8(t) &&
       !(t == OM_T_INT32 && !((om_qdq_node*)node->impl)->quantize)) ||
      (om_qdq_is_f8(t) && !onnx)) {
    snprintf(err, errlen, "node '%s' (op %s): %s of element type %s is not served (uint8, int8, uint16, int16%s%s)",
             node->name, om_op_row(node->op)->name, what, om_type_name(t),
             ((om_qdq_node*)node->impl)->quantize ? "" : ", int32",
             onnx ? ", int4, uint4, float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz" : ", int4, uint4");
    return -1;
  }
  const int need = om_qdq_is_f8(t) ? 19 : (t == OM_T_UINT16 || t == OM_T_INT16 || narrow) ? 21 : 0;
  if (onnx && node->opset > 0 && node->opset < need) {
    snprintf(err, errlen, "node '%s' (op %s): element type %s needs opset %d or later (opset %d)", node->name,
             om_op_row(node->op)->name, om_type_name(t), need, node->opset);
    return -1;
  }
  return 0;
}

/* A float8 zero point must be 0 (ONNX): every code of zero magnitude (0x00; 0x80, -0, where it is not NaN). */
static int om_qdq_f8_zero_ok(const om_node* node, int t, const uint8_t* z, size_t n, char* err, size_t errlen) {
  for (size_t i = 0; i < n; i++)
    if ((z[i] & 0x7fu) != 0 || (z[i] == 0x80u && (t == OM_T_FLOAT8E4M3FNUZ || t == OM_T_FLOAT8E5M2FNUZ))) {
      snprintf(err, errlen, "node '%s' (op %s): a %s zero point must be 0, element %zu is 0x%02x", node->name,
               om_op_row(node->op)->name, om_type_name(t), i, (unsigned)z[i]);
      return -1;
    }
  return 0;
}

static int om_qdq_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qdq_node* m = node->impl;
  const int* t = node->input_types;
  const int onnx = node->op == OM_OP_QUANTIZE_LINEAR || node->op == OM_OP_DEQUANTIZE_LINEAR;
  m->quantize = node->op == OM_OP_QUANTIZE_LINEAR || node->op == OM_OP_COM_QUANTIZE_LINEAR;
  m->has_zp = node->n_inputs > 2 && t[2] != 0;
  if (om_qdq_attrs_read(node, a, &m->q, err, errlen) != 0) return -1;
  if (m->q.block_size && (!onnx || (node->opset > 0 && node->opset < 21)))
    return om_qdq_fail(node, err, errlen, "attribute 'block_size' (%lld) needs ONNX opset 21 or later",
                       (long long)m->q.block_size);
  if (t[1] != OM_T_FLOAT) {
    snprintf(err, errlen, "node '%s' (op %s): a scale of element type %s is not served (float only)", node->name,
             om_op_row(node->op)->name, om_type_name(t[1]));
    return -1;
  }
  int y;
  if (m->quantize) {
    y = m->has_zp ? t[2] : 0;
    if (y && om_qdq_type_ok(node, onnx, y, "a zero point", err, errlen) != 0) return -1;
    if (a->has_output_dtype && a->output_dtype != 0) {
      if (om_qdq_type_ok(node, onnx, (int)a->output_dtype, "output_dtype", err, errlen) != 0) return -1;
      if (y && y != a->output_dtype)
        return om_qdq_fail(node, err, errlen, "attribute 'output_dtype' (%lld) differs from the zero point's type",
                           (long long)a->output_dtype);
      y = (int)a->output_dtype;
    }
    if (!y) y = OM_T_UINT8;
    if (a->has_precision && a->precision != 0 && a->precision != OM_T_FLOAT)
      return om_qdq_fail(node, err, errlen, "attribute 'precision' %lld is not served (0 or 1: float)",
                         (long long)a->precision);
    m->saturate = a->has_saturate ? a->saturate != 0 : 1;
    m->int_type = y;
    node->out_types[0] = y;
  } else {
    if (om_qdq_type_ok(node, onnx, node->type, "x", err, errlen) != 0) return -1;
    if (m->has_zp && t[2] != node->type) {
      snprintf(err, errlen, "node '%s' (op %s): the zero point has element type %s, x has %s: they must match",
               node->name, om_op_row(node->op)->name, om_type_name(t[2]), om_type_name(node->type));
      return -1;
    }
    if (a->has_output_dtype && a->output_dtype != 0 && a->output_dtype != OM_T_FLOAT)
      return om_qdq_fail(node, err, errlen, "attribute 'output_dtype' %lld is not served (0 or 1: float)",
                         (long long)a->output_dtype);
    m->int_type = node->type;
    node->out_types[0] = OM_T_FLOAT;
  }
  if (node->n_inputs > 3 && t[3] != node->out_types[0]) {
    snprintf(err, errlen, "node '%s' (op %s): input 3 (the output type's witness) has element type %s, y has %s",
             node->name, om_op_row(node->op)->name, om_type_name(t[3]), om_type_name(node->out_types[0]));
    return -1;
  }
  return 0;
}

static int om_qdq_shapes(const om_node* node, const om_node_io* io) {
  const om_qdq_node* m = node->impl;
  om_qdq_layout l;
  if (om_qdq_layout_of(node, &m->q, io, m->has_zp, &l) != 0) return -1;
  memcpy(io->out_shapes, io->shapes[0], io->ranks[0] * sizeof(int64_t));
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_qdq_task {
  const om_qdq_node* m;
  const om_node_io* io;
  const om_qdq_layout* l;
  const int32_t* z; /* the zero points widened, NULL: none */
  const om_qdq_kern* k;
} om_qdq_task;

/* A chunk of int4 / uint4 (unpacked to a byte each: a chunk starts at an even element, so on a byte) or float8. */
static void om_qdq_chunk_narrow(const om_qdq_task* t, size_t i, size_t end) {
  const int ty = t->m->int_type, f8 = om_qdq_is_f8(ty);
  const size_t i0 = i;
  uint8_t buf[OM_QDQ_CHUNK];
  const int8_t is_signed = ty == OM_T_INT4;
  float wide[256]; /* float8 DequantizeLinear: each code's value */
  if (!t->m->quantize && !f8) om_qdq_unpack4(t->io->data[0], i0, end - i0, is_signed, buf);
  if (!t->m->quantize && f8) om_qdq_f8_table(ty, wide);
  while (i < end) {
    size_t p, ps, len = om_qdq_run(t->l, i, end - i, &p, &ps);
    const float* s = (const float*)t->io->data[1] + p;
    const int32_t* z = t->z ? t->z + p : NULL;
    if (t->m->quantize && f8)
      om_qdq_quantize_f8((const float*)t->io->data[0] + i, len, s, ps, ty, t->m->saturate,
                         (uint8_t*)t->io->outs[0] + i);
    else if (t->m->quantize)
      t->k->quantize((const float*)t->io->data[0] + i, len, s, z, ps, ty, buf + (i - i0));
    else if (f8)
      om_qdq_dequantize_f8((const uint8_t*)t->io->data[0] + i, wide, len, s, ps, (float*)t->io->outs[0] + i);
    else
      t->k->dequantize(buf + (i - i0), is_signed ? OM_T_INT8 : OM_T_UINT8, len, s, z, ps, (float*)t->io->outs[0] + i);
    i += len;
  }
  if (t->m->quantize && !f8) om_qdq_pack4(buf, end - i0, (uint8_t*)t->io->outs[0] + i0 / 2);
}

static void om_qdq_chunk(void* ctx, size_t c) {
  const om_qdq_task* t = ctx;
  if (om_qdq_is_f8(t->m->int_type) || om_qdq_is_int4(t->m->int_type)) {
    size_t end, i = om_chunk_begin(c, OM_QDQ_CHUNK, t->l->n, &end);
    om_qdq_chunk_narrow(t, i, end);
    return;
  }
  const size_t esize = om_type_size(t->m->int_type);
  size_t end, i = om_chunk_begin(c, OM_QDQ_CHUNK, t->l->n, &end);
  while (i < end) {
    size_t p, ps, len = om_qdq_run(t->l, i, end - i, &p, &ps);
    const float* s = (const float*)t->io->data[1] + p;
    const int32_t* z = t->z ? t->z + p : NULL;
    if (t->m->quantize)
      t->k->quantize((const float*)t->io->data[0] + i, len, s, z, ps, t->m->int_type,
                     (char*)t->io->outs[0] + i * esize);
    else
      t->k->dequantize((const char*)t->io->data[0] + i * esize, t->m->int_type, len, s, z, ps,
                       (float*)t->io->outs[0] + i);
    i += len;
  }
}

static int om_qdq_run_node(const om_node* node, const om_node_io* io) {
  const om_qdq_node* m = node->impl;
  om_qdq_layout l;
  if (om_qdq_layout_of(node, &m->q, io, m->has_zp, &l) != 0) return -1;
  if (l.n == 0 || !io->outs[0]) return 0;
  int32_t one = 0, *z = NULL;
  if (m->has_zp && om_qdq_is_f8(m->int_type)) {
    if (om_qdq_f8_zero_ok(node, m->int_type, io->data[2], l.n_params, io->err, io->errlen) != 0) return -1;
  } else if (m->has_zp) {
    z = l.n_params > 1 ? malloc(l.n_params * sizeof *z) : &one;
    if (!z) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_op_row(node->op)->name);
      return -1;
    }
    om_qdq_widen(io->data[2], m->int_type, l.n_params, z);
  }
  om_qdq_task t = {m, io, &l, z, om_qdq_kern_of(node->path)};
  om_parallel_ieee(io->parallel_for, io->host_ctx, (l.n + OM_QDQ_CHUNK - 1) / OM_QDQ_CHUNK, om_qdq_chunk, &t);
  if (z != &one) free(z);
  return 0;
}

static int om_qdq_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_qdq_node* m = node->impl;
  if (k == 2 && data && m->has_zp && om_qdq_is_f8(m->int_type)) /* a constant float8 zero point: 0, checked now */
    return om_qdq_f8_zero_ok(node, m->int_type, data, om_shape_count(shape, rank), err, errlen);
  if (k == 1) {
    m->scale_known = 1;
    m->scale_rank = rank;
    m->scale_count = om_shape_count(shape, rank);
  }
  return 0;
}

/* At creation, with a constant scale and x's declared rank: the axis in range and a blocked scale of x's rank. */
static int om_qdq_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_qdq_node* m = node->impl;
  (void)n_inputs;
  if (!m->scale_known || ranks[0] == OM_RANK_UNKNOWN) return 0;
  if (m->q.block_size == 0 && m->scale_rank <= 1 && m->scale_count == 1) return 0; /* per tensor */
  const int64_t r = (int64_t)ranks[0], a = m->q.axis < 0 ? m->q.axis + r : m->q.axis;
  if (a < 0 || a >= r) {
    snprintf(err, errlen, "node '%s' (op %s): attribute 'axis' %lld is out of range for x of rank %lld", node->name,
             om_op_row(node->op)->name, (long long)m->q.axis, (long long)r);
    return -1;
  }
  if (m->q.block_size > 0 && m->scale_rank != ranks[0]) {
    snprintf(err, errlen, "node '%s' (op %s): a blocked scale must have x's rank %zu, it has rank %zu", node->name,
             om_op_row(node->op)->name, ranks[0], m->scale_rank);
    return -1;
  }
  return 0;
}

const om_family om_family_qdq = {sizeof(om_qdq_node), om_qdq_create, om_qdq_shapes, om_qdq_run_node,
                                 om_qdq_set_constant, NULL, NULL, om_qdq_check_ranks};
