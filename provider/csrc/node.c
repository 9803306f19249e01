/* node.c - one ONNX node bound to kernels: type checks, output shape, broadcasting and folding.
 *
 * ORT-independent: the ORT glue and the Python tests both drive nodes through onemodel.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h"
#include "kernels/kernels.h"
#include "om_ops.h"

/* Elements per parallel chunk: fixed, so results never depend on the number of threads. */
#define OM_CHUNK ((size_t)1 << 16)

struct om_node {
  int op;
  int type;     /* element type of input 0 */
  int out_type; /* element type of the output */
  size_t n_inputs;
  unsigned kflags;
  int bin; /* binary kernel (OM_K_*), or -1 */
  int un;  /* unary kernel, or -1 */
  const om_kernel_table* wide;
  const om_kernel_table* one;
  char name[128];
};

static void om_type_list(uint32_t mask, char* buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int t = 0; t < 32; t++) {
    if (!(mask & OM_TB(t))) continue;
    int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", om_type_name(t));
    if (w < 0 || (size_t)w >= len - used) return;
    used += (size_t)w;
  }
}

int om_path_count(void) { return OM_PATH_COUNT; }

om_node* om_node_create(const char* node_name, const char* op, size_t n_inputs, const int* input_types,
                        const om_attrs* attrs, char* err, size_t errlen) {
  const char* nn = node_name ? node_name : "";
  int id = om_op_find(op);
  if (id < 0) {
    snprintf(err, errlen, "node '%s' (op %s): not an operator of OneModel EP", nn, op);
    return NULL;
  }
  const om_op_info* row = om_op_row(id);
  if (attrs->onnx_opset > 0 && attrs->onnx_opset < row->since_opset) {
    snprintf(err, errlen, "node '%s' (op %s): opset %d is not served; %s is served from opset %d", nn, op,
             attrs->onnx_opset, op, row->since_opset);
    return NULL;
  }
  if (n_inputs < (size_t)row->min_inputs || n_inputs > (size_t)row->max_inputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu inputs given, expected %d to %d", nn, op, n_inputs,
             row->min_inputs, row->max_inputs);
    return NULL;
  }
  int t0 = input_types[0];
  char list[256];
  if (t0 < 0 || t0 >= 32 || !(row->input0_types & OM_TB(t0))) {
    om_type_list(row->input0_types, list, sizeof list);
    snprintf(err, errlen, "node '%s' (op %s): unsupported element type %s for input 0 (supported: %s)", nn, op,
             om_type_name(t0), list);
    return NULL;
  }
  for (size_t k = 1; k < n_inputs; k++) {
    int tk = input_types[k];
    if (tk == 0 && n_inputs > (size_t)row->min_inputs) continue; /* absent optional input */
    int ok = row->other_types ? (tk >= 0 && tk < 32 && (row->other_types & OM_TB(tk))) : (tk == t0);
    if (!ok) {
      snprintf(err, errlen, "node '%s' (op %s): element type %s of input %zu does not match input 0 (%s)", nn, op,
               om_type_name(tk), k, om_type_name(t0));
      return NULL;
    }
  }
  if (attrs->mode != OM_MODE_EXACT && attrs->mode != OM_MODE_FAST) {
    snprintf(err, errlen, "node '%s' (op %s): unknown mode %d", nn, op, attrs->mode);
    return NULL;
  }
  int path = attrs->path < 0 ? om_path_best() : attrs->path;
  if (path >= OM_PATH_COUNT || !om_path_available(path)) {
    snprintf(err, errlen, "node '%s' (op %s): kernel path '%s' is not available on this CPU", nn, op,
             om_path_name(path));
    return NULL;
  }
  om_node* node = calloc(1, sizeof *node);
  if (!node) {
    snprintf(err, errlen, "node '%s' (op %s): out of memory", nn, op);
    return NULL;
  }
  node->op = id;
  node->type = t0;
  node->out_type = t0;
  node->n_inputs = n_inputs;
  node->kflags = attrs->mode == OM_MODE_EXACT ? OM_FL_EXACT : 0;
  node->wide = om_path_table(path);
  node->one = om_path_table(OM_PATH_SCALAR);
  node->bin = -1;
  node->un = -1;
  snprintf(node->name, sizeof node->name, "%s", nn);
  int is_float = (OM_TS_FLOAT & OM_TB(t0)) != 0;
  switch (id) {
    case OM_OP_ADD: node->bin = OM_K_ADD; break;
    case OM_OP_SUB: node->bin = OM_K_SUB; break;
    case OM_OP_MUL: node->bin = OM_K_MUL; break;
    case OM_OP_DIV: node->bin = OM_K_DIV; break;
    case OM_OP_MOD: {
      int64_t fmod = attrs->has_fmod ? attrs->fmod : 0;
      if (fmod != 0 && fmod != 1) {
        snprintf(err, errlen, "node '%s' (op Mod): attribute fmod must be 0 or 1, got %lld", nn, (long long)fmod);
        free(node);
        return NULL;
      }
      if (fmod == 0 && is_float) {
        snprintf(err, errlen, "node '%s' (op Mod): fmod=0 is not defined for element type %s (use fmod=1)", nn,
                 om_type_name(t0));
        free(node);
        return NULL;
      }
      node->bin = fmod ? OM_K_MODTRUNC : OM_K_MODFLOOR;
      break;
    }
    case OM_OP_NEG: node->un = OM_K_NEG; break;
    case OM_OP_ABS: node->un = OM_K_ABS; break;
    case OM_OP_SIGN: node->un = OM_K_SIGN; break;
    case OM_OP_MAX: node->bin = OM_K_MAX; node->un = OM_K_COPY; break;
    case OM_OP_MIN: node->bin = OM_K_MIN; node->un = OM_K_COPY; break;
    case OM_OP_SUM: node->bin = OM_K_ADD; node->un = OM_K_COPY; break;
    case OM_OP_MEAN: node->bin = OM_K_ADD; node->un = OM_K_COPY; break;
    case OM_OP_EXP: node->un = OM_K_EXP; break;
    case OM_OP_LOG: node->un = OM_K_LOG; break;
    case OM_OP_TANH: node->un = OM_K_TANH; break;
    case OM_OP_SIGMOID: node->un = OM_K_SIGMOID; break;
    case OM_OP_ERF: node->un = OM_K_ERF; break;
    case OM_OP_GELU: node->un = attrs->approximate ? OM_K_GELU_TANH : OM_K_GELU_ERF; break;
    default: break;
  }
  if ((node->bin >= 0 && !node->wide->bin[node->bin][t0]) || (node->un >= 0 && !node->wide->un[node->un][t0])) {
    snprintf(err, errlen, "node '%s' (op %s): no kernel for element type %s", nn, op, om_type_name(t0));
    free(node);
    return NULL;
  }
  return node;
}

void om_node_destroy(om_node* node) { free(node); }

int om_node_output_type(const om_node* node) { return node->out_type; }

int om_node_output_shape(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                         int64_t* out_shape, size_t* out_rank, char* err, size_t errlen) {
  char why[256];
  if (n_inputs != node->n_inputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu inputs at run time, %zu at creation", node->name,
             om_op_row(node->op)->name, n_inputs, node->n_inputs);
    return -1;
  }
  if (om_broadcast_shape(n_inputs, shapes, ranks, out_shape, out_rank, why, sizeof why) != 0) {
    snprintf(err, errlen, "node '%s' (op %s): %s", node->name, om_op_row(node->op)->name, why);
    return -1;
  }
  /* The element count and its size in bytes must fit in size_t. */
  size_t count = 1, esz = om_type_size(node->out_type);
  int zero = 0;
  for (size_t d = 0; d < *out_rank; d++) {
    if (out_shape[d] == 0) zero = 1;
  }
  if (!zero) {
    for (size_t d = 0; d < *out_rank; d++) {
      size_t e = (size_t)out_shape[d];
      if (e != 0 && count > SIZE_MAX / e) goto overflow;
      count *= e;
    }
    if (count > SIZE_MAX / esz || count > (size_t)INT64_MAX / esz) goto overflow;
  }
  return 0;
overflow:
  snprintf(err, errlen, "node '%s' (op %s): output of %zu dimensions has more elements than memory can address",
           node->name, om_op_row(node->op)->name, *out_rank);
  return -1;
}

/* ---- execution ------------------------------------------------------------------------------------------- */

typedef struct om_bin_ctx {
  om_bin_fn wide, one;
  const char* a;
  const char* b;
  char* o;
  size_t esz;
  unsigned fl;
} om_bin_ctx;

static void om_bin_run(void* vctx, const int64_t* off, unsigned bcast, size_t pos, size_t len) {
  const om_bin_ctx* c = vctx;
  const char* a = c->a + (size_t)off[0] * c->esz;
  const char* b = c->b + (size_t)off[1] * c->esz;
  char* o = c->o + pos * c->esz;
  size_t done = c->wide(a, b, o, len, bcast, c->fl);
  if (done < len) {
    size_t sa = (bcast & 1u) ? 0 : done * c->esz, sb = (bcast & 2u) ? 0 : done * c->esz;
    c->one(a + sa, b + sb, o + done * c->esz, len - done, bcast, c->fl);
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

static void om_job_range(const om_job* j, size_t s, size_t e) {
  const om_node* node = j->node;
  size_t esz = om_type_size(node->type);
  unsigned fl = node->kflags;
  if (node->bin < 0 || j->n == 1) { /* unary, or a variadic op with one input: same shape as the output */
    om_un_fn wide = node->wide->un[node->un][node->type], one = node->one->un[node->un][node->type];
    const char* a = (const char*)j->data[0] + s * esz;
    char* o = j->out + s * esz;
    size_t done = wide(a, o, e - s, fl);
    if (done < e - s) one(a + done * esz, o + done * esz, e - s - done, fl);
  } else {
    om_bin_ctx c = {node->wide->bin[node->bin][node->type], node->one->bin[node->bin][node->type], 0, 0, j->out,
                    esz, fl};
    for (size_t k = 1; k < j->n; k++) {
      /* Fold left to right: out = in0 op in1, then out = out op in_k. */
      const int64_t* sh[2] = {k == 1 ? j->shapes[0] : j->out_shape, j->shapes[k]};
      size_t rk[2] = {k == 1 ? j->ranks[0] : j->out_rank, j->ranks[k]};
      om_plan plan;
      om_plan_make(&plan, 2, sh, rk, j->out_shape, j->out_rank);
      c.a = k == 1 ? (const char*)j->data[0] : j->out;
      c.b = (const char*)j->data[k];
      om_plan_walk(&plan, s, e, om_bin_run, &c);
    }
  }
  if (node->op == OM_OP_MEAN) {
    om_bin_ctx c = {node->wide->bin[OM_K_DIV][node->type], node->one->bin[OM_K_DIV][node->type], j->out,
                    (const char*)&j->divisor, j->out, esz, fl};
    int64_t off[2] = {(int64_t)s, 0};
    om_bin_run(&c, off, 2u, s, e - s);
  }
}

static void om_job_chunk(void* vjob, size_t i) {
  const om_job* j = vjob;
  size_t s = i * OM_CHUNK, e = s + OM_CHUNK;
  if (e > j->total) e = j->total;
  om_job_range(j, s, e);
}

static uint64_t om_count_as_type(size_t n, int type) {
  uint64_t bits = 0;
  if (type == OM_T_FLOAT) {
    float f = (float)n;
    memcpy(&bits, &f, sizeof f);
  } else if (type == OM_T_DOUBLE) {
    double d = (double)n;
    memcpy(&bits, &d, sizeof d);
  } else if (type == OM_T_FLOAT16) {
    /* n <= 2048 is exact in half; larger counts round, and beyond 65504 the mean is 0 or inf/nan anyway. */
    float f = (float)n;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f >= 65520.0f) bits = 0x7c00;
    else {
      uint32_t odd = (u >> 13) & 1u;
      bits = ((u + ((uint32_t)(15 - 127) << 23) + 0xfffu + odd) >> 13) & 0xffffu;
    }
  }
  return bits;
}

int om_node_run(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen) {
  int64_t expect[OM_MAX_RANK];
  size_t expect_rank = 0;
  if (om_node_output_shape(node, n_inputs, shapes, ranks, expect, &expect_rank, err, errlen) != 0) return -1;
  if (expect_rank != out_rank || memcmp(expect, out_shape, out_rank * sizeof(int64_t)) != 0) {
    snprintf(err, errlen, "node '%s' (op %s): output buffer shape does not match the broadcast shape", node->name,
             om_op_row(node->op)->name);
    return -1;
  }
  size_t total = 1;
  for (size_t d = 0; d < out_rank; d++) total *= (size_t)out_shape[d];
  if (total == 0) return 0;
  for (size_t k = 0; k < n_inputs; k++) {
    if (!data[k]) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu has no data", node->name, om_op_row(node->op)->name, k);
      return -1;
    }
  }
  om_job job = {node, n_inputs, data, shapes, ranks, out, out_shape, out_rank, total,
                om_count_as_type(n_inputs, node->type)};
  size_t chunks = (total + OM_CHUNK - 1) / OM_CHUNK;
  if (parallel_for && chunks > 1) parallel_for(host_ctx, om_job_chunk, chunks, &job);
  else om_job_range(&job, 0, total);
  return 0;
}
