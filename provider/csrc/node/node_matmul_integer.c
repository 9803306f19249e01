/* node_matmul_integer.c - MatMulInteger nodes (opset 10): A and B uint8 or int8, optional zero points, an int32
 * output of MatMul's shapes (matmul_shape.h), onto om_qgemm (quant/qgemm.h): exact integers modulo 2^32.
 *
 * a_zero_point: a scalar (or one element), or 1-D with one per row of A (M); b_zero_point: a scalar (or one
 * element), or 1-D with one per column of B (N); each of its operand's type. Zero points of rank 2 or more are
 * refused at creation (ONNX allows [..., M, 1] and [..., 1, N]; not served). A constant B of rank 1 or 2 is packed
 * once at creation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "matmul_shape.h"
#include "node_family.h"
#include "quant/qgemm.h"

typedef struct om_matmul_integer {
  int a_signed, b_signed;
  int has_zp[4]; /* inputs 2 and 3 given */
  om_qgemm_packed* packed_b;
  int64_t packed_k, packed_n;
} om_matmul_integer;

static const char* const om_mi_inputs[4] = {"A", "B", "a_zero_point", "b_zero_point"};

static int om_mi_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  const size_t n_inputs = node->n_inputs;
  const int* types = node->input_types;
  (void)a;
  for (size_t k = 2; k < n_inputs; k++)
    if (types[k] && types[k] != types[k - 2]) {
      snprintf(err, errlen, "node '%s' (op MatMulInteger): %s has element type %s, %s has %s: they must match",
               node->name, om_mi_inputs[k], om_type_name(types[k]), om_mi_inputs[k - 2], om_type_name(types[k - 2]));
      return -1;
    }
  om_matmul_integer* m = node->impl;
  m->a_signed = types[0] == OM_T_INT8;
  m->b_signed = types[1] == OM_T_INT8;
  for (size_t k = 2; k < n_inputs; k++) m->has_zp[k] = types[k] != 0;
  node->out_types[0] = OM_T_INT32;
  return 0;
}

static void om_mi_destroy(om_node* node) {
  om_matmul_integer* m = node->impl;
  if (m) om_qgemm_packed_free(m->packed_b);
  free(m);
}

static int om_mi_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  for (size_t k = 2; k < n_inputs; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] > 1) {
      snprintf(err, errlen,
               "node '%s' (op MatMulInteger): %s of rank %zu is not served (a scalar, or 1-D: one per %s)",
               node->name, om_mi_inputs[k], ranks[k], k == 2 ? "row of A" : "column of B");
      return -1;
    }
  return 0;
}

/* The zero point k's stride (0: one for all, 1: one per row / column) from its shape; -1 with a message. */
static int om_mi_zp_stride(const om_node* node, const om_node_io* io, size_t k, int64_t want, size_t* stride) {
  const om_matmul_integer* m = node->impl;
  *stride = 0;
  if (k >= io->n_inputs || !m->has_zp[k]) return 0;
  size_t count = om_shape_count(io->shapes[k], io->ranks[k]);
  if (io->ranks[k] <= 1 && count == 1) return 0;
  if (io->ranks[k] == 1 && (int64_t)count == want) {
    *stride = 1;
    return 0;
  }
  char s[160];
  om_shape_str(io->shapes[k], io->ranks[k], s, sizeof s);
  snprintf(io->err, io->errlen,
           "node '%s' (op MatMulInteger): %s of shape %s must be a scalar or 1-D of %lld elements (one per %s)",
           node->name, om_mi_inputs[k], s, (long long)want, k == 2 ? "row of A" : "column of B");
  return -1;
}

static int om_mi_shapes(const om_node* node, const om_node_io* io) {
  om_mm_dims d;
  size_t sa, sb;
  if (om_matmul_dims(node->name, "MatMulInteger", io->shapes, io->ranks, &d, io->err, io->errlen) != 0 ||
      om_mi_zp_stride(node, io, 2, d.M, &sa) != 0 || om_mi_zp_stride(node, io, 3, d.N, &sb) != 0)
    return -1;
  om_matmul_out_shape(&d, io->out_shapes, &io->out_ranks[0]);
  return 0;
}

static int om_mi_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_matmul_integer* m = node->impl;
  if (k != 1 || rank < 1 || rank > 2) return 0; /* batched B: read at run time */
  int64_t K = shape[0], N = rank == 2 ? shape[1] : 1;
  if (K == 0 || N == 0) return 0;
  m->packed_k = K;
  m->packed_n = N;
  m->packed_b = om_qgemm_pack_b(node->path, 1, m->b_signed, (size_t)K, (size_t)N, data, (ptrdiff_t)N);
  if (m->packed_b) return 0;
  snprintf(err, errlen, "node '%s' (op MatMulInteger): out of memory packing the constant B", node->name);
  return -1;
}

static int om_mi_run(const om_node* node, const om_node_io* io) {
  const om_matmul_integer* m = node->impl;
  om_mm_dims d;
  size_t za_stride, zb_stride;
  if (om_matmul_dims(node->name, "MatMulInteger", io->shapes, io->ranks, &d, io->err, io->errlen) != 0 ||
      om_mi_zp_stride(node, io, 2, d.M, &za_stride) != 0 || om_mi_zp_stride(node, io, 3, d.N, &zb_stride) != 0)
    return -1;
  size_t batch = 1;
  for (size_t k = 0; k < d.batch_rank; k++) batch *= (size_t)d.batch[k];
  if (batch == 0 || d.M == 0 || d.N == 0) return 0;
  int64_t a_bstride[OM_MAX_RANK], b_bstride[OM_MAX_RANK];
  om_matmul_batch_strides(&d, io->shapes, io->ranks, a_bstride, b_bstride);
  int b_shared = 1; /* one B for every batch element: packed once */
  for (size_t q = 0; q < d.batch_rank; q++) b_shared &= b_bstride[q] == 0;
  om_qgemm_packed* own = NULL;
  const om_qgemm_packed* pb = NULL;
  if (m->packed_b && m->packed_k == d.K && m->packed_n == d.N && io->ranks[1] <= 2) pb = m->packed_b;
  else if (b_shared && batch > 1 && d.K > 0 &&
           !(pb = own = om_qgemm_pack_b(node->path, 1, m->b_signed, (size_t)d.K, (size_t)d.N, io->data[1],
                                        (ptrdiff_t)d.N))) {
    snprintf(io->err, io->errlen, "node '%s' (op MatMulInteger): out of memory", node->name);
    return -1;
  }
  int rc = 0;
  for (size_t b = 0; b < batch && rc == 0; b++) {
    int64_t ao, bo;
    om_matmul_batch_offsets(&d, a_bstride, b_bstride, b, &ao, &bo);
    om_qgemm_args g = {node->path, 1, m->a_signed, m->b_signed, (size_t)d.M, (size_t)d.N, (size_t)d.K,
                       (const uint8_t*)io->data[0] + ao, (size_t)d.K, (const uint8_t*)io->data[1] + bo,
                       (size_t)d.N, pb, m->has_zp[2] ? io->data[2] : NULL, za_stride,
                       m->has_zp[3] ? io->data[3] : NULL, zb_stride,
                       (int32_t*)io->outs[0] + b * (size_t)(d.M * d.N), (size_t)d.N};
    rc = om_qgemm(&g, io->parallel_for, io->host_ctx);
  }
  om_qgemm_packed_free(own);
  if (rc != 0) {
    snprintf(io->err, io->errlen, rc == -2 ? "node '%s' (op MatMulInteger): internal error: om_qgemm refused its arguments"
                                           : "node '%s' (op MatMulInteger): out of memory",
             node->name);
    return -1;
  }
  return 0;
}

const om_family om_family_matmul_integer = {sizeof(om_matmul_integer), om_mi_create, om_mi_shapes, om_mi_run, om_mi_set_constant, NULL,
                                            om_mi_destroy, om_mi_check_ranks};
