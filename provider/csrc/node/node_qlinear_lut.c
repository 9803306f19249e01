/* node_qlinear_lut.c - com.microsoft QLinearSigmoid and QLinearLeakyRelu (docs/quantized-elementwise.md): X and Y
 * of one 8-bit type, per-tensor scales and zero points (zero points optional). Each of the 256 values of X maps
 * to one Y: a table of DequantizeLinear, the float function (the exact Sigmoid of the scalar path, or LeakyRelu
 * with alpha) and QuantizeLinear (qlinear_params.h), built once when the four parameters are constants and per
 * run otherwise; the run looks every element up in fixed chunks. Knows nothing of ORT.
 */
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"
#include "qlinear_params.h"
#include "quant/qlinear.h"

enum { OM_QU_X, OM_QU_X_SCALE, OM_QU_X_ZP, OM_QU_Y_SCALE, OM_QU_Y_ZP };

static const char* const om_qu_names[5] = {"X", "X_scale", "X_zero_point", "Y_scale", "Y_zero_point"};

#define OM_QU_CHUNK ((size_t)1 << 16) /* elements per parallel chunk */

typedef struct om_qlut {
  unsigned has;       /* bit k: input k given */
  unsigned constants; /* bit k: input k's constant value is in cval */
  float alpha;        /* LeakyRelu */
  float cval[5];      /* the constant scales (and zero points, as floats) */
  int ready;          /* table holds the constant parameters' table */
  uint8_t table[256];
} om_qlut;

static void om_qu_sigmoid(const void* ctx, float* v, size_t n) {
  const om_node* node = ctx;
  om_un_fn f = node->one->un[OM_K_SIGMOID][OM_T_FLOAT];
  size_t done = 0;
  while (done < n) done += f(v + done, v + done, n - done, OM_FL_EXACT);
}

static void om_qu_leaky(const void* ctx, float* v, size_t n) {
  const float alpha = ((const om_qlut*)((const om_node*)ctx)->impl)->alpha;
  for (size_t i = 0; i < n; i++) v[i] = v[i] < 0.0f ? alpha * v[i] : v[i]; /* one binary32 product */
}

static void om_qu_build(const om_node* node, float sx, int32_t zx, float sy, int32_t zy, uint8_t table[256]) {
  om_qlin_table(node->type, sx, zx, node->op == OM_OP_QLINEAR_SIGMOID ? om_qu_sigmoid : om_qu_leaky, node, sy, zy,
                table);
}

static int om_qu_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_qlut* m = node->impl;
  m->alpha = a->has_alpha ? a->alpha : 0.01f;
  return om_qlin_check_inputs(node, "TFtFt", om_qu_names, node->type, &m->has, err, errlen);
}

/* A constant parameter: kept; once every given parameter is, the table is built here. */
static int om_qu_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                              size_t errlen) {
  om_qlut* m = node->impl;
  if (om_qlin_set_constant_one(node, k, data, shape, rank, err, errlen) != 0) return -1;
  if (k == OM_QU_X || k > OM_QU_Y_ZP) return 0;
  if (k == OM_QU_X_SCALE || k == OM_QU_Y_SCALE) memcpy(&m->cval[k], data, sizeof(float));
  else m->cval[k] = (float)om_qlin_int(data, node->type);
  m->constants |= 1u << k;
  const unsigned params = m->has & ~1u;
  if ((m->constants & params) == params)
    om_qu_build(node, m->cval[OM_QU_X_SCALE], (int32_t)m->cval[OM_QU_X_ZP], m->cval[OM_QU_Y_SCALE],
                (int32_t)m->cval[OM_QU_Y_ZP], m->table);
  m->ready = (m->constants & params) == params;
  return 0;
}

static int om_qu_shapes(const om_node* node, const om_node_io* io) {
  (void)node;
  memcpy(io->out_shapes, io->shapes[0], io->ranks[0] * sizeof(int64_t));
  io->out_ranks[0] = io->ranks[0];
  return 0;
}

typedef struct om_qu_job {
  const uint8_t* table;
  const uint8_t* x;
  uint8_t* y;
} om_qu_job;

static int om_qu_range(const void* args, size_t begin, size_t end) {
  const om_qu_job* j = args;
  om_qlin_lookup(j->x + begin, end - begin, j->table, j->y + begin);
  return 0;
}

static int om_qu_run(const om_node* node, const om_node_io* io) {
  const om_qlut* m = node->impl;
  float sx, sy;
  int32_t zx, zy;
  if (om_qlin_scale(node, io, OM_QU_X_SCALE, om_qu_names[OM_QU_X_SCALE], &sx) ||
      om_qlin_scale(node, io, OM_QU_Y_SCALE, om_qu_names[OM_QU_Y_SCALE], &sy) ||
      om_qlin_zero_point(node, io, OM_QU_X_ZP, om_qu_names[OM_QU_X_ZP], node->type, (m->has >> OM_QU_X_ZP) & 1u, &zx) ||
      om_qlin_zero_point(node, io, OM_QU_Y_ZP, om_qu_names[OM_QU_Y_ZP], node->type, (m->has >> OM_QU_Y_ZP) & 1u, &zy))
    return -1;
  const size_t n = om_shape_count(io->shapes[0], io->ranks[0]);
  if (n == 0 || !io->outs[0]) return 0;
  uint8_t local[256];
  const uint8_t* table = m->table;
  if (!m->ready) {
    om_qu_build(node, sx, zx, sy, zy, local);
    table = local;
  }
  om_qu_job j = {table, io->data[OM_QU_X], io->outs[0]};
  return om_parallel_ranges(io->parallel_for, io->host_ctx, n, OM_QU_CHUNK, om_qu_range, &j);
}

const om_family om_family_qlinear_lut = {sizeof(om_qlut), om_qu_create, om_qu_shapes, om_qu_run, om_qu_set_constant,
                                         NULL, NULL, NULL};
