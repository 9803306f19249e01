/* elementwise.c - the element-wise family: an element-wise node bound to kernels (attributes, parameters),
 * its output shape (NumPy broadcasting), and its run (folding, parameters as operands, fixed chunks). A node has
 * a kind
 * that says how its kernels are walked over the broadcast output:
 *   UNARY    out = f(x)                    (un table)
 *   BINARY   out = f(a, b)                 (bin table; LeakyRelu and ThresholdedRelu pass alpha as a broadcast
 *                                          operand; PRelu's slope broadcasts to X's shape, never beyond it)
 *   FOLD     out = f(...f(f(x0, x1), x2)...) (Max, Min, Sum, Mean: left to right; Mean then divides by n)
 *   COMPARE  out(bool) = f(a, b)           (cmp table)
 *   TERNARY  out = f(a, b, c)              (ter table; Clip and HardSigmoid pass parameters as operands)
 *   CAST     out(to) = cast(x)             (cast.c)
 *   POW      out = pow(base, exponent)     (pow.c)
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "core/om_ops.h"
#include "elementwise.h"
#include "kernels/cast.h"
#include "kernels/kernels.h"
#include "kernels/pow.h"
#include "math/om_half.h"
#include "node_family.h"
#include "parallel.h"

/* Elements per parallel chunk: fixed per node (never from the thread count; and every kernel computes each
 * element on its own, so no result depends on where a chunk boundary falls). Cheap kernels (a few
 * instructions per element, memory-bound beyond the caches) take 32K-element chunks, whose hand-off to a
 * thread costs far less than the chunk, and which split a 64K tensor over two threads (with 64K chunks such
 * a tensor ran on one thread while ORT's own node used two: Sqrt 64K at two threads 26.6 -> 20.0 us, at one
 * thread within the noise, tools/bench/profile_node.py); the f32/f64 transcendentals and Pow cost tens of
 * instructions per element, so they take 8K-element chunks, but for the f32 transcendentals in fast mode
 * (3 to 10 times cheaper per element than exact) 16K: at 64K with two threads a call took 1-4% less
 * (Exp 10.1-10.4 -> 9.9-10.2 us, Tanh 12.1-12.6 -> 12.0-12.2, Sigmoid 13.3-14.3 -> 12.7-13.1, Erf 13.1 ->
 * 12.6-12.9, Gelu 17.4-17.6 -> 16.8-17.0, Log 15.3 -> 15.1; stock ORT's Exp 10.0), and at 1M the same within
 * the noise (tools/bench/profile_node.py OP 64K|1M fast --threads 0, a temporary build reading the chunk size from
 * the environment, three processes each). */
#define OM_CHUNK ((size_t)1 << 15)
#define OM_CHUNK_COSTLY ((size_t)1 << 13)
#define OM_CHUNK_FAST_TR ((size_t)1 << 14)

enum { OM_KIND_UNARY, OM_KIND_BINARY, OM_KIND_FOLD, OM_KIND_COMPARE, OM_KIND_TERNARY, OM_KIND_CAST, OM_KIND_POW };

/* Write a float parameter as a scalar of element type t (f16/f32/f64). */
static void om_param_from_double(unsigned char* dst, int t, double v) {
  if (t == OM_T_FLOAT) {
    float f = (float)v;
    memcpy(dst, &f, sizeof f);
  } else if (t == OM_T_DOUBLE) {
    memcpy(dst, &v, sizeof v);
  } else if (t == OM_T_FLOAT16) {
    uint16_t h = om_double_to_small(v, 10, 5);
    memcpy(dst, &h, sizeof h);
  }
}

/* The largest value of element type t (f16/f32/f64) not above v: x > v and x > that value agree for every x
 * of type t (ThresholdedRelu's alpha, a float attribute, against an f16 input). */
static void om_param_round_down(unsigned char* dst, int t, double v) {
  if (t != OM_T_FLOAT16) {
    om_param_from_double(dst, t, v);
    return;
  }
  uint16_t h = om_double_to_small(v, 10, 5);
  if (om_f16_to_f64(h) > v) h = h == 0 ? 0x8001u : (h & 0x8000u) ? (uint16_t)(h + 1) : (uint16_t)(h - 1);
  memcpy(dst, &h, sizeof h);
}

/* The finite extreme of type t (hi != 0: highest, else lowest) as a scalar of that type. */
static void om_param_extreme(unsigned char* dst, int t, int hi) {
  switch (t) {
    case OM_T_FLOAT: case OM_T_DOUBLE: om_param_from_double(dst, t, hi ? (t == OM_T_FLOAT ? FLT_MAX : DBL_MAX)
                                                                        : (t == OM_T_FLOAT ? -FLT_MAX : -DBL_MAX));
      break;
    case OM_T_FLOAT16: om_param_from_double(dst, t, hi ? 65504.0 : -65504.0); break;
    case OM_T_INT8: { int8_t v = hi ? INT8_MAX : INT8_MIN; memcpy(dst, &v, 1); break; }
    case OM_T_INT16: { int16_t v = hi ? INT16_MAX : INT16_MIN; memcpy(dst, &v, 2); break; }
    case OM_T_INT32: { int32_t v = hi ? INT32_MAX : INT32_MIN; memcpy(dst, &v, 4); break; }
    case OM_T_INT64: { int64_t v = hi ? INT64_MAX : INT64_MIN; memcpy(dst, &v, 8); break; }
    case OM_T_UINT8: { uint8_t v = hi ? UINT8_MAX : 0; memcpy(dst, &v, 1); break; }
    case OM_T_UINT16: { uint16_t v = hi ? UINT16_MAX : 0; memcpy(dst, &v, 2); break; }
    case OM_T_UINT32: { uint32_t v = hi ? UINT32_MAX : 0; memcpy(dst, &v, 4); break; }
    case OM_T_UINT64: { uint64_t v = hi ? UINT64_MAX : 0; memcpy(dst, &v, 8); break; }
    default: break;
  }
}

#define OM_FAIL(...)                    \
  do {                                  \
    snprintf(err, errlen, __VA_ARGS__); \
    return -1;                          \
  } while (0)

int om_elementwise_create(om_node* node, const om_attrs* attrs, const int* input_types, char* err, size_t errlen) {
  const char* nn = node->name;
  int id = node->op;
  const char* op = om_op_row(id)->name;
  int opset = node->opset;
  size_t n_inputs = node->n_inputs;
  int t0 = node->type;
  node->kind = OM_KIND_UNARY;
  node->kernel = -1;
  int is_float = (OM_TS_FLOAT & OM_TB(t0)) != 0;
  int ktype = t0; /* the element type that indexes the kernel table */
  switch (id) {
    case OM_OP_ADD: node->kind = OM_KIND_BINARY; node->kernel = OM_K_ADD; break;
    case OM_OP_SUB: node->kind = OM_KIND_BINARY; node->kernel = OM_K_SUB; break;
    case OM_OP_MUL: node->kind = OM_KIND_BINARY; node->kernel = OM_K_MUL; break;
    case OM_OP_DIV: node->kind = OM_KIND_BINARY; node->kernel = OM_K_DIV; break;
    case OM_OP_MOD: {
      int64_t fmod = attrs->has_fmod ? attrs->fmod : 0;
      if (fmod != 0 && fmod != 1) OM_FAIL("node '%s' (op Mod): attribute fmod must be 0 or 1, got %lld", nn, (long long)fmod);
      if (fmod == 0 && is_float)
        OM_FAIL("node '%s' (op Mod): fmod=0 is not defined for element type %s (use fmod=1)", nn, om_type_name(t0));
      node->kind = OM_KIND_BINARY;
      node->kernel = fmod ? OM_K_MODTRUNC : OM_K_MODFLOOR;
      break;
    }
    case OM_OP_AND: node->kind = OM_KIND_BINARY; node->kernel = OM_K_AND; break;
    case OM_OP_OR: node->kind = OM_KIND_BINARY; node->kernel = OM_K_OR; break;
    case OM_OP_XOR: node->kind = OM_KIND_BINARY; node->kernel = OM_K_XOR; break;
    case OM_OP_LEAKY_RELU:
      node->kind = OM_KIND_BINARY;
      node->kernel = t0 == OM_T_FLOAT16 ? OM_K_LEAKYRELU_A32 : OM_K_LEAKYRELU;
      node->param_operand = 1;
      /* f16: alpha stays f32 (the kernel rounds the product once); f32, f64: alpha in the element type */
      om_param_from_double(node->param[0], t0 == OM_T_FLOAT16 ? OM_T_FLOAT : t0,
                           attrs->has_alpha ? attrs->alpha : 0.01f);
      break;
    case OM_OP_PRELU: node->kind = OM_KIND_BINARY; node->kernel = OM_K_LEAKYRELU; break;
    case OM_OP_THRESHOLDED_RELU:
      node->kind = OM_KIND_BINARY;
      node->kernel = OM_K_THRESHOLDED_RELU;
      node->param_operand = 1;
      om_param_round_down(node->param[0], t0, attrs->has_alpha ? attrs->alpha : 1.0f);
      break;
    case OM_OP_ELU:
    case OM_OP_SELU:
    case OM_OP_CELU: {
      /* operand b: the f32 alpha, then (Selu) the f32 gamma, for every element type (elu_f32.inc, tr16.c) */
      float prm[2] = {attrs->has_alpha ? attrs->alpha : id == OM_OP_SELU ? 1.67326319217681884765625f : 1.0f,
                      attrs->has_gamma ? attrs->gamma : 1.05070102214813232421875f};
      if (!(prm[0] - prm[0] == 0) || !(prm[1] - prm[1] == 0))
        OM_FAIL("node '%s' (op %s): attribute %s must be finite, got %g", nn, op,
                prm[0] - prm[0] == 0 ? "gamma" : "alpha", (double)(prm[0] - prm[0] == 0 ? prm[1] : prm[0]));
      if (id == OM_OP_CELU && prm[0] == 0)
        OM_FAIL("node '%s' (op Celu): attribute alpha must not be 0 (Celu divides by it)", nn);
      node->kind = OM_KIND_BINARY;
      node->kernel = id == OM_OP_ELU ? OM_K_ELU : id == OM_OP_SELU ? OM_K_SELU : OM_K_CELU;
      node->param_operand = 1;
      memcpy(node->param[0], prm, sizeof prm);
      break;
    }
    case OM_OP_RELU: node->kernel = OM_K_RELU; break;
    case OM_OP_SOFTPLUS: node->kernel = OM_K_SOFTPLUS; break;
    case OM_OP_MISH: node->kernel = OM_K_MISH; break;
    case OM_OP_SOFTSIGN: node->kernel = OM_K_SOFTSIGN; break;
    case OM_OP_IS_NAN: node->kernel = OM_K_ISNAN; node->out_type = OM_T_BOOL; break;
    case OM_OP_IS_INF: {
      int64_t dp = attrs->has_detect_positive ? attrs->detect_positive : 1;
      int64_t dn = attrs->has_detect_negative ? attrs->detect_negative : 1;
      if (dp != 0 && dp != 1)
        OM_FAIL("node '%s' (op IsInf): attribute detect_positive must be 0 or 1, got %lld", nn, (long long)dp);
      if (dn != 0 && dn != 1)
        OM_FAIL("node '%s' (op IsInf): attribute detect_negative must be 0 or 1, got %lld", nn, (long long)dn);
      node->kernel = OM_K_ISINF;
      node->out_type = OM_T_BOOL;
      node->kflags |= (dp ? OM_FL_INF_POS : 0u) | (dn ? OM_FL_INF_NEG : 0u);
      break;
    }
    case OM_OP_NEG: node->kernel = OM_K_NEG; break;
    case OM_OP_ABS: node->kernel = OM_K_ABS; break;
    case OM_OP_SIGN: node->kernel = OM_K_SIGN; break;
    case OM_OP_NOT: node->kernel = OM_K_NOT; break;
    case OM_OP_RECIPROCAL: node->kernel = OM_K_RECIPROCAL; break;
    case OM_OP_SQRT: node->kernel = OM_K_SQRT; break;
    case OM_OP_FLOOR: node->kernel = OM_K_FLOOR; break;
    case OM_OP_CEIL: node->kernel = OM_K_CEIL; break;
    case OM_OP_ROUND: node->kernel = OM_K_ROUND; break;
    case OM_OP_HARD_SWISH: node->kernel = OM_K_HARDSWISH; break;
    case OM_OP_EXP: node->kernel = OM_K_EXP; break;
    case OM_OP_LOG: node->kernel = OM_K_LOG; break;
    case OM_OP_TANH: node->kernel = OM_K_TANH; break;
    case OM_OP_SIGMOID: node->kernel = OM_K_SIGMOID; break;
    case OM_OP_ERF: node->kernel = OM_K_ERF; break;
    case OM_OP_GELU: node->kernel = attrs->approximate ? OM_K_GELU_TANH : OM_K_GELU_ERF; break;
    case OM_OP_SIN: node->kernel = OM_K_SIN; break;
    case OM_OP_COS: node->kernel = OM_K_COS; break;
    case OM_OP_MAX: node->kind = OM_KIND_FOLD; node->kernel = OM_K_MAX; break;
    case OM_OP_MIN: node->kind = OM_KIND_FOLD; node->kernel = OM_K_MIN; break;
    case OM_OP_SUM: node->kind = OM_KIND_FOLD; node->kernel = OM_K_ADD; break;
    case OM_OP_MEAN: node->kind = OM_KIND_FOLD; node->kernel = OM_K_ADD; break;
    case OM_OP_EQUAL: node->kind = OM_KIND_COMPARE; node->kernel = OM_K_EQ; node->out_type = OM_T_BOOL; break;
    case OM_OP_LESS: node->kind = OM_KIND_COMPARE; node->kernel = OM_K_LT; node->out_type = OM_T_BOOL; break;
    case OM_OP_GREATER: node->kind = OM_KIND_COMPARE; node->kernel = OM_K_GT; node->out_type = OM_T_BOOL; break;
    case OM_OP_LESS_EQUAL: node->kind = OM_KIND_COMPARE; node->kernel = OM_K_LE; node->out_type = OM_T_BOOL; break;
    case OM_OP_GREATER_EQUAL:
      node->kind = OM_KIND_COMPARE;
      node->kernel = OM_K_GE;
      node->out_type = OM_T_BOOL;
      break;
    case OM_OP_WHERE:
      node->kind = OM_KIND_TERNARY;
      node->kernel = OM_K_WHERE;
      node->out_type = ktype = input_types[1];
      break;
    case OM_OP_HARD_SIGMOID:
      node->kind = OM_KIND_TERNARY;
      node->kernel = OM_K_HARDSIGMOID;
      om_param_from_double(node->param[0], t0, attrs->has_alpha ? attrs->alpha : 0.2f);
      om_param_from_double(node->param[1], t0, attrs->has_beta ? attrs->beta : 0.5f);
      break;
    case OM_OP_CLIP: {
      node->kind = OM_KIND_TERNARY;
      node->kernel = OM_K_CLIP;
      int attr_form = (opset > 0 && opset < 11) || ((attrs->has_min || attrs->has_max) && n_inputs == 1);
      if (((opset > 0 && opset < 12) || attr_form) && !is_float)
        OM_FAIL("node '%s' (op Clip): element type %s needs opset 12 or later (opset %d)", nn, om_type_name(t0), opset);
      if (attr_form) {
        if (n_inputs > 1) OM_FAIL("node '%s' (op Clip): before opset 11 the bounds are attributes, not inputs", nn);
        /* Attribute defaults are the lowest and highest finite float, whatever the element type. */
        om_param_from_double(node->param[0], t0, attrs->has_min ? attrs->min : -FLT_MAX);
        om_param_from_double(node->param[1], t0, attrs->has_max ? attrs->max : FLT_MAX);
      } else {
        node->bound_inputs = 1;
        om_param_extreme(node->param[0], t0, 0);
        om_param_extreme(node->param[1], t0, 1);
      }
      break;
    }
    case OM_OP_CAST:
    case OM_OP_CAST_LIKE: {
      /* Cast's target is its attribute `to`; the rewritten form also carries an empty tensor of that type as
       * input 1 (the type witness ORT infers the output type from); CastLike's target is input 1's type. */
      int witness = n_inputs > 1 ? input_types[1] : 0;
      if (id == OM_OP_CAST && !attrs->has_to) OM_FAIL("node '%s' (op Cast): attribute 'to' is missing", nn);
      if (id == OM_OP_CAST && (attrs->to < 0 || attrs->to > 1000))
        OM_FAIL("node '%s' (op Cast): attribute 'to' is not an ONNX element type (%lld)", nn, (long long)attrs->to);
      if (id == OM_OP_CAST && witness && witness != attrs->to)
        OM_FAIL("node '%s' (op Cast): input 1 has element type %s but attribute 'to' says %s", nn,
                om_type_name(witness), om_type_name((int)attrs->to));
      int to = id == OM_OP_CAST ? (int)attrs->to : witness;
      if (!om_cast_supported(t0, to))
        OM_FAIL("node '%s' (op %s): cast from %s to %s is not supported (unsupported element type %s)", nn, op,
                om_type_name(t0), om_type_name(to), om_type_name(om_cast_supported(t0, t0) ? to : t0));
      node->kind = OM_KIND_CAST;
      node->out_type = to;
      break;
    }
    case OM_OP_POW: node->kind = OM_KIND_POW; break;
    default: OM_FAIL("node '%s' (op %s): no kernel", nn, op);
  }
  const om_kernel_table* w = node->wide;
  int have = 1;
  switch (node->kind) {
    case OM_KIND_UNARY: have = w->un[node->kernel][ktype] != NULL; break;
    case OM_KIND_BINARY: have = w->bin[node->kernel][ktype] != NULL; break;
    case OM_KIND_FOLD: have = w->bin[node->kernel][ktype] && w->un[OM_K_COPY][ktype]; break;
    case OM_KIND_COMPARE: have = w->cmp[node->kernel][ktype] != NULL; break;
    case OM_KIND_TERNARY: have = w->ter[node->kernel][ktype] != NULL; break;
    default: break;
  }
  if (!have) OM_FAIL("node '%s' (op %s): no kernel for element type %s", nn, op, om_type_name(ktype));
  node->chunk = OM_CHUNK;
  if (node->kind == OM_KIND_POW ||
      (node->kind == OM_KIND_UNARY && (node->type == OM_T_FLOAT || node->type == OM_T_DOUBLE) &&
       (node->kernel == OM_K_EXP || node->kernel == OM_K_LOG || node->kernel == OM_K_TANH ||
        node->kernel == OM_K_SIGMOID || node->kernel == OM_K_ERF || node->kernel == OM_K_GELU_ERF ||
        node->kernel == OM_K_GELU_TANH || node->kernel == OM_K_SIN || node->kernel == OM_K_COS ||
        node->kernel == OM_K_SOFTPLUS || node->kernel == OM_K_MISH)) ||
      (node->kind == OM_KIND_BINARY && node->type == OM_T_FLOAT &&
       (node->kernel == OM_K_ELU || node->kernel == OM_K_SELU || node->kernel == OM_K_CELU)))
    node->chunk = node->kind != OM_KIND_POW && node->type == OM_T_FLOAT && !(node->kflags & OM_FL_EXACT)
                      ? OM_CHUNK_FAST_TR
                      : OM_CHUNK_COSTLY;
  return 0;
}


int om_elementwise_output_shape(const om_node* node, size_t n_inputs, const int64_t* const* shapes,
                                const size_t* ranks, int64_t* out_shape, size_t* out_rank, char* err, size_t errlen) {
  char why[256];
  const char* opn = om_op_row(node->op)->name;
  if (n_inputs != node->n_inputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu inputs at run time, %zu at creation", node->name, opn, n_inputs,
             node->n_inputs);
    return -1;
  }
  size_t n_shaped = n_inputs;
  if (node->op == OM_OP_CLIP || node->op == OM_OP_CAST_LIKE || node->op == OM_OP_CAST) {
    /* Clip's bounds must be single values; the second input of Cast and CastLike gives only a type. None of
     * them shapes the output. */
    n_shaped = 1;
    for (size_t k = 1; node->op == OM_OP_CLIP && k < n_inputs; k++) {
      if (!shapes[k]) continue;
      int64_t count = 1;
      for (size_t d = 0; d < ranks[k]; d++) count *= shapes[k][d];
      if (count != 1) {
        snprintf(err, errlen, "node '%s' (op Clip): input %zu (%s) must hold a single value, it has %lld", node->name,
                 k, k == 1 ? "min" : "max", (long long)count);
        return -1;
      }
    }
  }
  if (om_broadcast_shape(n_shaped, shapes, ranks, out_shape, out_rank, why, sizeof why) != 0) {
    snprintf(err, errlen, "node '%s' (op %s): %s", node->name, opn, why);
    return -1;
  }
  if (node->op == OM_OP_PRELU &&
      (*out_rank != ranks[0] || memcmp(out_shape, shapes[0], ranks[0] * sizeof(int64_t)) != 0)) {
    snprintf(err, errlen, "node '%s' (op PRelu): slope (input 1) must broadcast to the shape of X (input 0), not "
             "beyond it", node->name);
    return -1;
  }
  /* The element count and its size in bytes must fit in size_t and int64. */
  size_t count = 1, esz = om_type_size(node->out_type);
  for (size_t d = 0; d < *out_rank; d++)
    if (out_shape[d] == 0) return 0;
  for (size_t d = 0; d < *out_rank; d++) {
    size_t e = (size_t)out_shape[d];
    if (count > SIZE_MAX / e) goto overflow;
    count *= e;
  }
  if (count > SIZE_MAX / esz || count > (size_t)INT64_MAX / esz) goto overflow;
  return 0;
overflow:
  snprintf(err, errlen, "node '%s' (op %s): the output of %zu dimensions has more elements than memory can address",
           node->name, opn, *out_rank);
  return -1;
}

/* ---- execution ------------------------------------------------------------------------------------------- */

/* One walk over the broadcast output with up to three operands. */
typedef struct om_walk {
  const om_node* node;
  int kind;
  union {
    om_bin_fn bin;
    om_ter_fn ter;
  } wide, one;
  const char* in[3];
  size_t isz[3];
  char* o;
  size_t osz;
  unsigned fl;
} om_walk;

static void om_walk_run(void* vctx, const int64_t* off, unsigned bcast, size_t pos, size_t len) {
  const om_walk* c = vctx;
  const char* p[3];
  for (int k = 0; k < 3; k++) p[k] = c->in[k] ? c->in[k] + (size_t)off[k] * c->isz[k] : NULL;
  char* o = c->o + pos * c->osz;
  if (c->kind == OM_KIND_POW) {
    om_pow_run(c->node->type, c->node->type1, (c->fl & OM_FL_EXACT) != 0, p[0], p[1], o, len, bcast, c->node->wide,
               c->node->one);
    return;
  }
  size_t done = c->kind == OM_KIND_TERNARY ? c->wide.ter(p[0], p[1], p[2], o, len, bcast, c->fl)
                                            : c->wide.bin(p[0], p[1], o, len, bcast, c->fl);
  if (done < len) {
    for (int k = 0; k < 3; k++)
      if (p[k] && !(bcast & (1u << k))) p[k] += done * c->isz[k];
    o += done * c->osz;
    if (c->kind == OM_KIND_TERNARY) c->one.ter(p[0], p[1], p[2], o, len - done, bcast, c->fl);
    else c->one.bin(p[0], p[1], o, len - done, bcast, c->fl);
  }
}

typedef struct om_job {
  const om_node* node;
  size_t n;
  const void* const* data;
  const int64_t* const* shapes;
  const size_t* ranks;
  char* out;
  const int64_t* out_shape;
  size_t out_rank;
  size_t total;
  uint64_t divisor; /* Mean: the input count in the element type */
} om_job;

static const int64_t om_scalar_shape[1] = {1};
static const size_t om_scalar_rank = 0;

static void om_walk_plan(const om_job* j, om_walk* w, size_t n, const int64_t* const* sh, const size_t* rk, size_t s,
                         size_t e) {
  om_plan plan;
  om_plan_make(&plan, n, sh, rk, j->out_shape, j->out_rank);
  om_plan_walk(&plan, s, e, om_walk_run, w);
}

static void om_job_range(const om_job* j, size_t s, size_t e) {
  const om_node* node = j->node;
  size_t esz = om_type_size(node->type), osz = om_type_size(node->out_type);
  unsigned fl = node->kflags;
  om_walk w;
  memset(&w, 0, sizeof w);
  w.node = node;
  w.kind = node->kind;
  w.o = j->out;
  w.osz = osz;
  w.fl = fl;
  switch (node->kind) {
    case OM_KIND_UNARY:
    case OM_KIND_FOLD:
      if (node->kind == OM_KIND_UNARY || j->n == 1) {
        int k = node->kind == OM_KIND_UNARY ? node->kernel : OM_K_COPY;
        om_un_fn wide = node->wide->un[k][node->type], one = node->one->un[k][node->type];
        const char* a = (const char*)j->data[0] + s * esz;
        char* o = j->out + s * osz;
        size_t done = wide(a, o, e - s, fl);
        if (done < e - s) one(a + done * esz, o + done * osz, e - s - done, fl);
      } else {
        w.kind = OM_KIND_BINARY;
        w.wide.bin = node->wide->bin[node->kernel][node->type];
        w.one.bin = node->one->bin[node->kernel][node->type];
        w.isz[0] = w.isz[1] = esz;
        for (size_t k = 1; k < j->n; k++) { /* out = in0 op in1, then out = out op in_k */
          const int64_t* sh[2] = {k == 1 ? j->shapes[0] : j->out_shape, j->shapes[k]};
          size_t rk[2] = {k == 1 ? j->ranks[0] : j->out_rank, j->ranks[k]};
          w.in[0] = k == 1 ? (const char*)j->data[0] : j->out;
          w.in[1] = (const char*)j->data[k];
          om_walk_plan(j, &w, 2, sh, rk, s, e);
        }
      }
      if (node->op == OM_OP_MEAN) {
        om_walk d = w;
        d.kind = OM_KIND_BINARY;
        d.wide.bin = node->wide->bin[OM_K_DIV][node->type];
        d.one.bin = node->one->bin[OM_K_DIV][node->type];
        d.in[0] = j->out;
        d.in[1] = (const char*)&j->divisor;
        d.isz[0] = d.isz[1] = esz;
        int64_t off[3] = {(int64_t)s, 0, 0};
        om_walk_run(&d, off, 2u, s, e - s);
      }
      return;
    case OM_KIND_BINARY:
    case OM_KIND_COMPARE:
    case OM_KIND_POW: {
      const om_kernel_table* wt = node->wide;
      const om_kernel_table* ot = node->one;
      if (node->kind == OM_KIND_BINARY) {
        w.wide.bin = wt->bin[node->kernel][node->type];
        w.one.bin = ot->bin[node->kernel][node->type];
      } else if (node->kind == OM_KIND_COMPARE) {
        w.wide.bin = wt->cmp[node->kernel][node->type];
        w.one.bin = ot->cmp[node->kernel][node->type];
      }
      w.in[0] = (const char*)j->data[0];
      w.isz[0] = esz;
      if (node->param_operand) { /* alpha as a broadcast second operand */
        w.in[1] = (const char*)node->param[0];
        w.isz[1] = esz;
        const int64_t* sh[2] = {j->shapes[0], om_scalar_shape};
        size_t rk[2] = {j->ranks[0], om_scalar_rank};
        om_walk_plan(j, &w, 2, sh, rk, s, e);
      } else {
        w.in[1] = (const char*)j->data[1];
        w.isz[1] = node->kind == OM_KIND_POW ? om_type_size(node->type1) : esz;
        om_walk_plan(j, &w, 2, j->shapes, j->ranks, s, e);
      }
      return;
    }
    case OM_KIND_TERNARY: {
      int kt = node->op == OM_OP_WHERE ? node->out_type : node->type;
      w.wide.ter = node->wide->ter[node->kernel][kt];
      w.one.ter = node->one->ter[node->kernel][kt];
      const int64_t* sh[3];
      size_t rk[3];
      for (int k = 0; k < 3; k++) {
        w.isz[k] = om_type_size(k == 0 ? node->type : kt);
        if (node->op == OM_OP_WHERE) {
          w.in[k] = (const char*)j->data[k];
          sh[k] = j->shapes[k];
          rk[k] = j->ranks[k];
        } else if (k == 0) {
          w.in[0] = (const char*)j->data[0];
          sh[0] = j->shapes[0];
          rk[0] = j->ranks[0];
        } else {
          /* Clip bounds from inputs 1/2 when present (single values), else the node's parameters. */
          int from_input = node->bound_inputs && (size_t)k < j->n && j->data[k];
          w.in[k] = from_input ? (const char*)j->data[k] : (const char*)node->param[k - 1];
          sh[k] = om_scalar_shape;
          rk[k] = om_scalar_rank;
        }
      }
      om_walk_plan(j, &w, 3, sh, rk, s, e);
      return;
    }
    case OM_KIND_CAST: {
      /* Vector kernel for the common pairs (whole vectors), cast.c for the rest and the tail: same rules. */
      const char* a = (const char*)j->data[0] + s * esz;
      char* o = j->out + s * osz;
      om_un_fn vec = node->wide->cast[node->type][node->out_type];
      size_t done = vec ? vec(a, o, e - s, fl) : 0;
      om_cast(a + done * esz, node->type, o + done * osz, node->out_type, e - s - done);
      return;
    }
    default: return;
  }
}

static void om_job_chunk(void* vjob, size_t i) {
  const om_job* j = vjob;
  size_t e, s = om_chunk_begin(i, j->node->chunk, j->total, &e);
  om_job_range(j, s, e);
}

static uint64_t om_count_as_type(size_t n, int type) {
  uint64_t bits = 0;
  om_param_from_double((unsigned char*)&bits, type, (double)n);
  return bits;
}

int om_elementwise_inputs_present(const om_node* node, size_t n_inputs, const void* const* data, char* err,
                                   size_t errlen) {
  for (size_t k = 0; k < n_inputs; k++) {
    int optional = node->op == OM_OP_CLIP && k > 0;
    int type_only = om_node_input_type_only(node, k);
    if (!data[k] && !optional && !type_only) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu has no data", node->name, om_op_row(node->op)->name, k);
      return -1;
    }
  }
  return 0;
}

void om_elementwise_run_tile(const om_node* node, size_t n_inputs, const void* const* data,
                             const int64_t* const* shapes, const size_t* ranks, void* out, size_t len) {
  int64_t out_shape[1] = {(int64_t)len};
  om_job job = {node, n_inputs, data, shapes, ranks, out, out_shape, 1, len, om_count_as_type(n_inputs, node->type)};
  if (len) om_job_range(&job, 0, len);
}

int om_elementwise_run(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                       const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                       om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen) {
  size_t total = 1;
  for (size_t d = 0; d < out_rank; d++) total *= (size_t)out_shape[d];
  if (total == 0) return 0;
  if (om_elementwise_inputs_present(node, n_inputs, data, err, errlen) != 0) return -1;
  om_job job = {node, n_inputs, data, shapes, ranks, out, out_shape, out_rank, total,
                om_count_as_type(n_inputs, node->type)};
  size_t chunks = (total + node->chunk - 1) / node->chunk;
  om_parallel_ieee(parallel_for, host_ctx, chunks, om_job_chunk, &job);
  return 0;
}

