/* node_range.c - Range (opset 11): the 1-D tensor start, start + delta, ... up to limit (exclusive) from the
 * scalar inputs start, limit and delta (int32, int64, float or double; each a rank-0 tensor or, as stock ONNX
 * Runtime's kernel reads them, of shape [1]). Read once at creation when an initializer, else per run: the
 * output length depends on their data.
 *
 * The arithmetic:
 *   float:    n = max(ceil((double)(limit - start) / (double)delta), 0), the difference rounded to float first
 *   double:   n = max(ceil((limit - start) / delta), 0)
 *             then y[0] = start, y[i + 1] = y[i] + delta in the element type: a running sum, one rounding per
 *             element (not start + i * delta), on one thread. Stock ONNX Runtime's CPU kernel, bit for bit.
 *   integers: n = max(ceil((limit - start) / delta), 0) and y[i] = start + i * delta, both exact (every y[i]
 *             lies between start and limit). Stock ORT 1.31.1 agrees except where its quotient, computed in
 *             double, rounds (int64 spans above 2^53: 0 to 2^60 + 1 by 2^58 gives it 4 elements, ONNX 5):
 *             ONNX's definition there.
 * delta 0 is an error; so is a float quotient that is NaN or infinite (an infinite or NaN input, or overflow;
 * stock ORT's conversion of it is undefined behaviour), or a count of 2^60 elements or more.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"

#define OM_RANGE_MAX_COUNT ((int64_t)1 << 60)

typedef struct om_range_node {
  int known[3];         /* input k is an initializer: its value is v[k] */
  unsigned char v[3][8]; /* its bits, in the element type */
} om_range_node;

static const char* const om_rg_what[3] = {"start", "limit", "delta"};

static size_t om_rg_size(int type) { return type == OM_T_INT32 || type == OM_T_FLOAT ? 4 : 8; }

static int om_rg_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  (void)node; /* the state is zeroed bytes; the inputs are checked when known */
  (void)a;
  (void)err;
  (void)errlen;
  return 0;
}

static int om_rg_scalar(const om_node* node, size_t k, const int64_t* shape, size_t rank, char* err,
                        size_t errlen) {
  if (rank == 0 || (rank == 1 && shape && shape[0] == 1)) return 0;
  if (rank == 1)
    snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) must be a scalar (rank 0, or shape [1]), it has "
             "shape [%lld]", node->name, om_op_row(node->op)->name, k, om_rg_what[k], (long long)(shape ? shape[0] : 0));
  else
    snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) must be a scalar (rank 0, or shape [1]), it has rank "
             "%zu", node->name, om_op_row(node->op)->name, k, om_rg_what[k], rank);
  return -1;
}

/* Is the delta in bits v zero (+0.0 and -0.0 for the float types)? */
static int om_rg_zero(int type, const unsigned char* v) {
  switch (type) {
    case OM_T_INT32: { int32_t x; memcpy(&x, v, 4); return x == 0; }
    case OM_T_INT64: { int64_t x; memcpy(&x, v, 8); return x == 0; }
    case OM_T_FLOAT: { float x; memcpy(&x, v, 4); return x == 0.0f; }
    default: { double x; memcpy(&x, v, 8); return x == 0.0; }
  }
}

static int om_rg_delta_zero(const om_node* node, char* err, size_t errlen) {
  snprintf(err, errlen, "node '%s' (op %s): input 2 (delta) is 0: the range would never reach limit", node->name,
           om_op_row(node->op)->name);
  return -1;
}

static int om_rg_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  om_range_node* r = node->impl;
  if (k > 2) return 0;
  if (om_rg_scalar(node, k, shape, rank, err, errlen) != 0) return -1;
  memcpy(r->v[k], data, om_rg_size(node->type));
  r->known[k] = 1;
  if (k == 2 && om_rg_zero(node->type, r->v[2])) return om_rg_delta_zero(node, err, errlen);
  return 0;
}

static int om_rg_shape_input(const om_node* node, size_t k) {
  const om_range_node* r = node->impl;
  return k < 3 && !r->known[k];
}

static int om_rg_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  for (size_t k = 0; k < n_inputs && k < 3; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] > 1) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu (%s) must be a scalar, it has rank %zu", node->name,
               om_op_row(node->op)->name, k, om_rg_what[k], ranks[k]);
      return -1;
    }
  return 0;
}

/* The three inputs' bits for the call io into v: 0, or -1 with a message. */
static int om_rg_inputs(const om_node* node, const om_node_io* io, unsigned char v[3][8]) {
  const om_range_node* r = node->impl;
  for (size_t k = 0; k < 3; k++) {
    if (r->known[k]) {
      memcpy(v[k], r->v[k], 8);
      continue;
    }
    if (!io->data || !io->data[k]) {
      snprintf(io->err, io->errlen, "node '%s' (op %s): the output shape needs input %zu (%s)'s data",
               node->name, om_op_row(node->op)->name, k, om_rg_what[k]);
      return -1;
    }
    if (om_rg_scalar(node, k, io->shapes[k], io->ranks[k], io->err, io->errlen) != 0) return -1;
    memcpy(v[k], io->data[k], om_rg_size(node->type));
  }
  if (om_rg_zero(node->type, v[2])) return om_rg_delta_zero(node, io->err, io->errlen);
  return 0;
}

/* The exact count for integers: ceil((limit - start) / delta) when positive, else 0. */
static uint64_t om_rg_count_int(int64_t start, int64_t limit, int64_t delta) {
  uint64_t span, step;
  if (delta > 0 && limit > start) {
    span = (uint64_t)limit - (uint64_t)start;
    step = (uint64_t)delta;
  } else if (delta < 0 && limit < start) {
    span = (uint64_t)start - (uint64_t)limit;
    step = 0u - (uint64_t)delta;
  } else {
    return 0;
  }
  return span / step + (span % step != 0);
}

/* ceil(c) for a finite c, exactly (no libm). */
static double om_rg_ceil(double c) {
  if (c >= 4503599627370496.0 || c <= -4503599627370496.0) return c; /* |c| >= 2^52: an integer */
  double t = (double)(int64_t)c;                                      /* toward zero */
  return t < c ? t + 1.0 : t;
}

static int om_rg_too_many(const om_node* node, char* err, size_t errlen) {
  snprintf(err, errlen, "node '%s' (op %s): the range has 2^60 elements or more", node->name,
           om_op_row(node->op)->name);
  return -1;
}

/* The count from the quotient q = (limit - start) / delta of the float types: 0 with *n, or -1 with a message. */
static int om_rg_count_float(const om_node* node, double q, int64_t* n, char* err, size_t errlen) {
  if (q != q || q - q != 0.0) { /* NaN, or an infinity (q - q is NaN) */
    snprintf(err, errlen, "node '%s' (op %s): (limit - start) / delta is %s (an input is infinite or NaN, or the "
             "quotient overflows): no element count", node->name, om_op_row(node->op)->name,
             q != q ? "NaN" : "infinite");
    return -1;
  }
  double c = om_rg_ceil(q);
  if (c >= (double)OM_RANGE_MAX_COUNT) return om_rg_too_many(node, err, errlen);
  *n = c > 0.0 ? (int64_t)c : 0;
  return 0;
}

/* The element count for the inputs v: 0 with *n set, or -1 with a message. */
static int om_rg_count(const om_node* node, const unsigned char v[3][8], int64_t* n, char* err, size_t errlen) {
  switch (node->type) {
    case OM_T_INT32: {
      int32_t x[3];
      for (int k = 0; k < 3; k++) memcpy(&x[k], v[k], 4);
      *n = (int64_t)om_rg_count_int(x[0], x[1], x[2]); /* below 2^32 */
      return 0;
    }
    case OM_T_INT64: {
      int64_t x[3];
      for (int k = 0; k < 3; k++) memcpy(&x[k], v[k], 8);
      uint64_t u = om_rg_count_int(x[0], x[1], x[2]);
      if (u >= (uint64_t)OM_RANGE_MAX_COUNT) return om_rg_too_many(node, err, errlen);
      *n = (int64_t)u;
      return 0;
    }
    case OM_T_FLOAT: {
      float f[3];
      for (int k = 0; k < 3; k++) memcpy(&f[k], v[k], 4);
      float span = f[1] - f[0]; /* rounded to float, as stock ORT's T arithmetic */
      return om_rg_count_float(node, (double)span / (double)f[2], n, err, errlen);
    }
    default: {
      double d[3];
      for (int k = 0; k < 3; k++) memcpy(&d[k], v[k], 8);
      return om_rg_count_float(node, (d[1] - d[0]) / d[2], n, err, errlen);
    }
  }
}

static int om_rg_shapes(const om_node* node, const om_node_io* io) {
  unsigned char v[3][8];
  int64_t n;
  if (om_rg_inputs(node, io, v) != 0 || om_rg_count(node, v, &n, io->err, io->errlen) != 0) return -1;
  io->out_shapes[0] = n;
  io->out_ranks[0] = 1;
  return 0;
}

static int om_rg_run(const om_node* node, const om_node_io* io) {
  unsigned char v[3][8];
  if (om_rg_inputs(node, io, v) != 0) return -1;
  size_t n = (size_t)io->out_shapes[0];
  void* out = io->outs[0];
  if (!out) return 0;
  switch (node->type) {
    case OM_T_INT32: {
      int32_t s, d;
      memcpy(&s, v[0], 4);
      memcpy(&d, v[2], 4);
      for (size_t i = 0; i < n; i++) ((int32_t*)out)[i] = (int32_t)((int64_t)s + (int64_t)i * d);
      break;
    }
    case OM_T_INT64: {
      uint64_t s, d; /* modular: every y[i] is in range, the products wrap back to it */
      memcpy(&s, v[0], 8);
      memcpy(&d, v[2], 8);
      for (size_t i = 0; i < n; i++) {
        uint64_t y = s + (uint64_t)i * d;
        memcpy((int64_t*)out + i, &y, 8);
      }
      break;
    }
    case OM_T_FLOAT: {
      float y, d;
      memcpy(&y, v[0], 4);
      memcpy(&d, v[2], 4);
      for (size_t i = 0; i < n; i++, y += d) ((float*)out)[i] = y;
      break;
    }
    default: {
      double y, d;
      memcpy(&y, v[0], 8);
      memcpy(&d, v[2], 8);
      for (size_t i = 0; i < n; i++, y += d) ((double*)out)[i] = y;
      break;
    }
  }
  return 0;
}

const om_family om_family_range = {sizeof(om_range_node), om_rg_create, om_rg_shapes, om_rg_run, om_rg_set_constant,
                                   om_rg_shape_input, NULL,         om_rg_check_ranks};
