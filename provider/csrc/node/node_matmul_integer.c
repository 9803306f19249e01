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
#include "node_family.h"
#include "qmatmul.h"

typedef struct om_matmul_integer {
  om_qmatmul q; /* first: om_qmatmul_node_destroy */
  int has_zp[4]; /* inputs 2 and 3 given */
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
  m->q.a_signed = types[0] == OM_T_INT8;
  m->q.b_signed = types[1] == OM_T_INT8;
  for (size_t k = 2; k < n_inputs; k++) m->has_zp[k] = types[k] != 0;
  node->out_types[0] = OM_T_INT32;
  return 0;
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
  return om_qparam_stride(node, io, k, om_mi_inputs[k], k == 2 ? "row of A" : "column of B", want, stride);
}

static int om_mi_shapes(const om_node* node, const om_node_io* io) {
  om_mm_dims d;
  size_t sa, sb;
  if (om_qmatmul_dims(node, io, 1, &d) != 0 || om_mi_zp_stride(node, io, 2, d.M, &sa) != 0 ||
      om_mi_zp_stride(node, io, 3, d.N, &sb) != 0)
    return -1;
  om_matmul_out_shape(&d, io->out_shapes, &io->out_ranks[0]);
  return 0;
}

static int om_mi_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_matmul_integer* m = node->impl;
  return k == 1 ? om_qmatmul_pack_constant(node, &m->q, data, shape, rank, err, errlen) : 0;
}

static int om_mi_run(const om_node* node, const om_node_io* io) {
  const om_matmul_integer* m = node->impl;
  om_mm_dims d;
  om_qmatmul_operands op = {io->data[0], m->has_zp[2] ? io->data[2] : NULL, 0, m->has_zp[3] ? io->data[3] : NULL, 0};
  if (om_qmatmul_dims(node, io, 1, &d) != 0 || om_mi_zp_stride(node, io, 2, d.M, &op.za_stride) != 0 ||
      om_mi_zp_stride(node, io, 3, d.N, &op.zb_stride) != 0)
    return -1;
  return om_qmatmul_product(node, &m->q, &d, io, 1, &op, io->outs[0]);
}

const om_family om_family_matmul_integer = {sizeof(om_matmul_integer), om_mi_create, om_mi_shapes, om_mi_run, om_mi_set_constant, NULL,
                                            om_qmatmul_node_destroy, om_mi_check_ranks};
