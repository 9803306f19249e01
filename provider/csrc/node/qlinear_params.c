/* qlinear_params.c - the inputs of the QOperator nodes (qlinear_params.h; docs/quantized-elementwise.md). */
#include "qlinear_params.h"

#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "isa/isa.h"
#include "matmul_shape.h"
#include "parallel.h"
#include "quant/qdq.h"

static const char* om_qlin_op(const om_node* node) { return om_op_row(node->op)->name; }

int om_qlin_check_inputs(const om_node* node, const char* kinds, const char* const* names, int t, unsigned* has,
                         char* err, size_t errlen) {
  const int* types = node->input_types;
  *has = 0;
  for (size_t k = 0; kinds[k]; k++) {
    const int tk = k < node->n_inputs ? types[k] : 0;
    if (!tk) {
      if (kinds[k] == 't') continue;
      OM_FAIL_MSG("node '%s' (op %s): input %zu (%s) is missing; it is required", node->name, om_qlin_op(node), k,
                  names[k]);
    }
    *has |= 1u << k;
    const int want = kinds[k] == 'F' ? OM_T_FLOAT : t;
    if (tk != want)
      OM_FAIL_MSG("node '%s' (op %s): %s has element type %s; it must be %s", node->name, om_qlin_op(node),
                  names[k], om_type_name(tk), om_type_name(want));
  }
  return 0;
}

static int om_qlin_one(const om_node* node, const om_node_io* io, size_t k, const char* name) {
  if (om_shape_count(io->shapes[k], io->ranks[k]) == 1) return 0;
  char s[160];
  om_shape_str(io->shapes[k], io->ranks[k], s, sizeof s);
  snprintf(io->err, io->errlen, "node '%s' (op %s): %s of shape %s must have one element (only per-tensor is "
           "served)", node->name, om_qlin_op(node), name, s);
  return -1;
}

int om_qlin_scale(const om_node* node, const om_node_io* io, size_t k, const char* name, float* v) {
  if (om_qlin_one(node, io, k, name) != 0) return -1;
  memcpy(v, io->data[k], sizeof *v);
  return 0;
}

/* The parameter names of each family's inputs, for om_qlin_set_constant_one's message ("" for data). */
static const char* om_qlin_param_name(int op, size_t k) {
  static const char* const bin[8] = {"", "A_scale", "A_zero_point", "", "B_scale", "B_zero_point", "C_scale",
                                     "C_zero_point"};
  static const char* const un[5] = {"", "X_scale", "X_zero_point", "Y_scale", "Y_zero_point"};
  static const char* const pool[5] = {"", "x_scale", "x_zero_point", "y_scale", "y_zero_point"};
  if (op == OM_OP_QLINEAR_ADD || op == OM_OP_QLINEAR_MUL) return k < 8 ? bin[k] : "";
  if (op == OM_OP_QLINEAR_GLOBAL_AVERAGE_POOL || op == OM_OP_QLINEAR_AVERAGE_POOL) return k < 5 ? pool[k] : "";
  if (op == OM_OP_QLINEAR_CONCAT) return k < 2 ? (k ? "Y_zero_point" : "Y_scale") : (k - 2) % 3 ? "a scale or zero point" : "";
  return k < 5 ? un[k] : "";
}

int om_qlin_set_constant_one(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                             size_t errlen) {
  const char* name = om_qlin_param_name(node->op, k);
  (void)data;
  if (!name[0] || om_shape_count(shape, rank) == 1) return 0;
  char s[160];
  om_shape_str(shape, rank, s, sizeof s);
  OM_FAIL_MSG("node '%s' (op %s): %s of shape %s must have one element (only per-tensor is served)", node->name,
              om_qlin_op(node), name, s);
}

int32_t om_qlin_int(const void* p, int t) {
  return t == OM_T_INT8 ? (int32_t) * (const int8_t*)p : (int32_t) * (const uint8_t*)p;
}

int om_qlin_zero_point(const om_node* node, const om_node_io* io, size_t k, const char* name, int t, int given,
                       int32_t* z) {
  *z = 0;
  if (!given) return 0;
  if (om_qlin_one(node, io, k, name) != 0) return -1;
  *z = om_qlin_int(io->data[k], t);
  return 0;
}

typedef struct om_qlin_table_job {
  int t;
  float sx, sy;
  int32_t zx, zy;
  om_qlin_fn f;
  const void* ctx;
  uint8_t* table;
} om_qlin_table_job;

static void om_qlin_table_run(void* arg, size_t i) {
  const om_qlin_table_job* j = arg;
  const om_qdq_kern* k = om_qdq_kern_of(OM_PATH_SCALAR);
  uint8_t x[256];
  float v[256];
  (void)i;
  for (int b = 0; b < 256; b++) x[b] = (uint8_t)b; /* an int8 x's byte b is the value (int8_t)b */
  k->dequantize(x, j->t, 256, &j->sx, &j->zx, 0, v);
  if (j->f) j->f(j->ctx, v, 256);
  k->quantize(v, 256, &j->sy, &j->zy, 0, j->t, j->table);
}

void om_qlin_table(int t, float sx, int32_t zx, om_qlin_fn f, const void* ctx, float sy, int32_t zy,
                   uint8_t table[256]) {
  om_qlin_table_job j = {t, sx, sy, zx, zy, f, ctx, table};
  om_parallel_ieee(NULL, NULL, 1, om_qlin_table_run, &j); /* here, under the IEEE default environment */
}
