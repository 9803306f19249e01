/* qmatmul.c - the exact int32 product the quantized matrix-product nodes share (qmatmul.h). */
#include "qmatmul.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/om_ops.h"

static const char* om_qmm_op(const om_node* node) { return om_op_row(node->op)->name; }

int om_qmatmul_dims(const om_node* node, const om_node_io* io, size_t ib, om_mm_dims* d) {
  const int64_t* shapes[2] = {io->shapes[0], io->shapes[ib]};
  const size_t ranks[2] = {io->ranks[0], io->ranks[ib]};
  return om_matmul_dims(node->name, om_qmm_op(node), shapes, ranks, d, io->err, io->errlen);
}

int om_qmatmul_pack_constant(om_node* node, om_qmatmul* m, const void* data, const int64_t* shape, size_t rank,
                             char* err, size_t errlen) {
  if (rank < 1 || rank > 2) return 0; /* batched B: read at run time */
  int64_t K = shape[0], N = rank == 2 ? shape[1] : 1;
  if (K == 0 || N == 0) return 0;
  m->packed_k = K;
  m->packed_n = N;
  m->packed_b = om_qgemm_pack_b(node->path, 1, m->b_signed, (size_t)K, (size_t)N, data, (ptrdiff_t)N);
  if (m->packed_b) return 0;
  snprintf(err, errlen, "node '%s' (op %s): out of memory packing the constant B", node->name, om_qmm_op(node));
  return -1;
}

int om_qmatmul_product(const om_node* node, const om_qmatmul* m, const om_mm_dims* d, const om_node_io* io,
                       size_t ib, const om_qmatmul_operands* op, int32_t* C) {
  size_t batch = 1;
  for (size_t k = 0; k < d->batch_rank; k++) batch *= (size_t)d->batch[k];
  if (batch == 0 || d->M == 0 || d->N == 0) return 0;
  const int64_t* shapes[2] = {io->shapes[0], io->shapes[ib]};
  const size_t ranks[2] = {io->ranks[0], io->ranks[ib]};
  int64_t a_bstride[OM_MAX_RANK], b_bstride[OM_MAX_RANK];
  om_matmul_batch_strides(d, shapes, ranks, a_bstride, b_bstride);
  int b_shared = 1; /* one B for every batch element: packed once */
  for (size_t q = 0; q < d->batch_rank; q++) b_shared &= b_bstride[q] == 0;
  om_qgemm_packed* own = NULL;
  const om_qgemm_packed* pb = NULL;
  if (m->packed_b && m->packed_k == d->K && m->packed_n == d->N && io->ranks[ib] <= 2) pb = m->packed_b;
  else if (b_shared && batch > 1 && d->K > 0 &&
           !(pb = own = om_qgemm_pack_b(node->path, 1, m->b_signed, (size_t)d->K, (size_t)d->N, io->data[ib],
                                        (ptrdiff_t)d->N))) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_qmm_op(node));
    return -1;
  }
  int rc = 0;
  for (size_t b = 0; b < batch && rc == 0; b++) {
    int64_t ao, bo;
    om_matmul_batch_offsets(d, a_bstride, b_bstride, b, &ao, &bo);
    om_qgemm_args g = {node->path, 1, m->a_signed, m->b_signed, (size_t)d->M, (size_t)d->N, (size_t)d->K,
                       (const uint8_t*)op->a + ao, (size_t)d->K, (const uint8_t*)io->data[ib] + bo,
                       (size_t)d->N, pb, op->za, op->za_stride, op->zb, op->zb_stride,
                       C + b * (size_t)(d->M * d->N), (size_t)d->N, NULL, 0, 0, NULL};
    rc = om_qgemm(&g, io->parallel_for, io->host_ctx);
  }
  om_qgemm_packed_free(own);
  if (rc != 0) {
    snprintf(io->err, io->errlen,
             rc == -2 ? "node '%s' (op %s): internal error: om_qgemm refused its arguments"
                      : "node '%s' (op %s): out of memory",
             node->name, om_qmm_op(node));
    return -1;
  }
  return 0;
}

int om_qparam_stride(const om_node* node, const om_node_io* io, size_t k, const char* name, const char* per,
                     int64_t n, size_t* stride) {
  *stride = 0;
  size_t count = om_shape_count(io->shapes[k], io->ranks[k]);
  if (count == 1) return 0;
  if (per && io->ranks[k] == 1 && (int64_t)count == n) {
    *stride = 1;
    return 0;
  }
  char s[160];
  om_shape_str(io->shapes[k], io->ranks[k], s, sizeof s);
  if (per)
    snprintf(io->err, io->errlen, "node '%s' (op %s): %s of shape %s must be a scalar or 1-D of %lld elements (one "
             "per %s)", node->name, om_qmm_op(node), name, s, (long long)n, per);
  else
    snprintf(io->err, io->errlen, "node '%s' (op %s): %s of shape %s must have one element (only per-tensor is "
             "served)", node->name, om_qmm_op(node), name, s);
  return -1;
}

int om_qparam_one(const om_node* node, const char* name, const int64_t* shape, size_t rank, char* err,
                  size_t errlen) {
  if (om_shape_count(shape, rank) == 1) return 0;
  char s[160];
  om_shape_str(shape, rank, s, sizeof s);
  snprintf(err, errlen, "node '%s' (op %s): %s of shape %s must have one element (only per-tensor is served)",
           node->name, om_qmm_op(node), name, s);
  return -1;
}

int32_t om_qint8_value(const void* p, int type) {
  return type == OM_T_INT8 ? (int32_t) * (const int8_t*)p : (int32_t) * (const uint8_t*)p;
}

void om_qmatmul_node_destroy(om_node* node) {
  om_qmatmul* m = node->impl;
  if (m) om_qgemm_packed_free(m->packed_b);
  free(m);
}
