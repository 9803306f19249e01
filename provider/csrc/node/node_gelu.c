/* node_gelu.c - com.microsoft's Gelu family (docs/transformer-ops.md): Gelu (the erf form), BiasGelu (A + B,
 * then Gelu), FastGelu (the tanh form, with an optional bias added first) and QuickGelu (x * Sigmoid(alpha * x)),
 * each a fixed sequence of the path's element-wise kernels (kernels/kernels.h: the add and multiply rounded once,
 * the correctly rounded Gelu and Sigmoid of math/), so every path gives the same bits.
 *
 * The bias (BiasGelu's B, FastGelu's bias) is a 1-D tensor as long as X's last dimension, added to each row of X.
 * One pass over the output in fixed chunks (elements [i * chunk, (i + 1) * chunk)): within a chunk the bias sum is
 * written to the output row segment by row segment, then the function runs on the chunk in place while it is
 * still in cache; no extra buffer, no second pass over memory. No result depends on the chunking or the threads.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"
#include "parallel.h"

/* Elements per parallel chunk: the element-wise family's for the costly f32 kernels (elementwise.c), 8K in exact
 * mode and 16K in fast mode. */
#define OM_GELU_CHUNK ((size_t)1 << 13)
#define OM_GELU_CHUNK_FAST ((size_t)1 << 14)

enum { OM_GELU_PLAIN, OM_GELU_BIAS, OM_GELU_QUICK };

typedef struct om_gelu_node {
  int form;       /* OM_GELU_PLAIN, _BIAS (input 1 added first), _QUICK */
  int fn;         /* the unary kernel: OM_K_GELU_ERF, OM_K_GELU_TANH or OM_K_SIGMOID */
  float alpha;    /* QuickGelu */
  size_t chunk;
} om_gelu_node;

static int om_gelu_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_gelu_node* g = node->impl;
  int bias = node->n_inputs > 1 && node->input_types[1] != 0;
  switch (node->op) {
    case OM_OP_MS_GELU: g->form = OM_GELU_PLAIN; g->fn = OM_K_GELU_ERF; break;
    case OM_OP_BIAS_GELU: g->form = OM_GELU_BIAS; g->fn = OM_K_GELU_ERF; break;
    case OM_OP_FAST_GELU: g->form = bias ? OM_GELU_BIAS : OM_GELU_PLAIN; g->fn = OM_K_GELU_TANH; break;
    case OM_OP_QUICK_GELU: /* alpha is an f32 operand: f32 only (the row's type) */
      g->form = OM_GELU_QUICK;
      g->fn = OM_K_SIGMOID;
      g->alpha = a->has_alpha ? a->alpha : 1.702f;
      memcpy(node->param[0], &g->alpha, sizeof g->alpha); /* the multiply's broadcast operand */
      break;
    default: return om_family_no_kernel(node, err, errlen);
  }
  int t = node->type;
  if (!node->wide->un[g->fn][t] || !node->wide->bin[OM_K_ADD][t] || !node->wide->bin[OM_K_MUL][t])
    return om_family_no_kernel(node, err, errlen);
  g->chunk = node->mode == OM_MODE_FAST ? OM_GELU_CHUNK_FAST : OM_GELU_CHUNK;
  node->out_types[0] = t;
  return 0;
}

static int om_gelu_has_bias(const om_node* node, const om_node_io* io) {
  const om_gelu_node* g = node->impl;
  return g->form == OM_GELU_BIAS && io->n_inputs > 1 && io->shapes[1] != NULL;
}

static int om_gelu_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_gelu_node* g = node->impl;
  if (g->form != OM_GELU_BIAS || n_inputs < 2 || ranks[1] == OM_RANK_UNKNOWN) return 0;
  if (ranks[1] != 1)
    OM_FAIL_MSG("node '%s' (op %s): input 1 (bias) has rank %zu; it must be 1-D, as long as input 0's last dimension",
                node->name, om_op_row(node->op)->key, ranks[1]);
  if (ranks[0] == 0)
    OM_FAIL_MSG("node '%s' (op %s): input 0 is a scalar; with a bias it needs a last dimension", node->name,
                om_op_row(node->op)->key);
  return 0;
}

static int om_gelu_shapes(const om_node* node, const om_node_io* io) {
  size_t r = io->ranks[0];
  char* err = io->err;
  size_t errlen = io->errlen;
  if (om_gelu_has_bias(node, io)) {
    if (om_gelu_check_ranks(node, io->n_inputs, io->ranks, err, errlen) != 0) return -1;
    if (io->shapes[1][0] != io->shapes[0][r - 1]) {
      char xs[160];
      om_shape_text(io->shapes[0], r, xs, sizeof xs);
      OM_FAIL_MSG("node '%s' (op %s): input 1 (bias) has %lld elements; it must have input 0's last dimension, "
                  "%lld (input 0 %s)", node->name, om_op_row(node->op)->key, (long long)io->shapes[1][0],
                  (long long)io->shapes[0][r - 1], xs);
    }
  }
  memcpy(io->out_shapes, io->shapes[0], r * sizeof(int64_t));
  io->out_ranks[0] = r;
  return 0;
}

typedef struct om_gelu_task {
  const om_node* node;
  const char* x;
  const char* bias; /* NULL: none */
  char* y;
  size_t n, cols, esz;
} om_gelu_task;

/* y = f(a) on n elements: the path's vector kernel, then its one-lane kernel for the tail. */
static void om_gelu_un(const om_node* node, int k, const char* a, char* y, size_t n, size_t esz) {
  size_t done = node->wide->un[k][node->type](a, y, n, node->kflags);
  if (done < n) node->one->un[k][node->type](a + done * esz, y + done * esz, n - done, node->kflags);
}

/* y = f(a, b) on n elements (bcast bit 1: b is one value). */
static void om_gelu_bin(const om_node* node, int k, const char* a, const char* b, char* y, size_t n, unsigned bcast,
                        size_t esz) {
  size_t done = node->wide->bin[k][node->type](a, b, y, n, bcast, node->kflags);
  if (done < n)
    node->one->bin[k][node->type](a + done * esz, (bcast & 2u) ? b : b + done * esz, y + done * esz, n - done, bcast,
                                  node->kflags);
}

static int om_gelu_range(const void* vt, size_t s, size_t e) {
  const om_gelu_task* t = vt;
  const om_node* node = t->node;
  const om_gelu_node* g = node->impl;
  size_t esz = t->esz;
  const char* x = t->x + s * esz;
  char* y = t->y + s * esz;
  size_t n = e - s;
  if (g->form == OM_GELU_QUICK) { /* y = RN(x * Sigmoid(RN(alpha * x))), y holding the intermediate */
    om_gelu_bin(node, OM_K_MUL, x, (const char*)node->param[0], y, n, 2u, esz);
    om_gelu_un(node, g->fn, y, y, n, esz);
    om_gelu_bin(node, OM_K_MUL, x, y, y, n, 0u, esz);
    return 0;
  }
  if (t->bias) { /* y = RN(x + bias) per row segment, then f(y) in place */
    for (size_t p = s; p < e;) {
      size_t c = p % t->cols, len = t->cols - c < e - p ? t->cols - c : e - p;
      om_gelu_bin(node, OM_K_ADD, t->x + p * esz, t->bias + c * esz, t->y + p * esz, len, 0u, esz);
      p += len;
    }
    x = y;
  }
  om_gelu_un(node, g->fn, x, y, n, esz);
  return 0;
}

static int om_gelu_run(const om_node* node, const om_node_io* io) {
  const om_gelu_node* g = node->impl;
  size_t r = io->ranks[0];
  size_t n = om_shape_count(io->shapes[0], r);
  if (!n || !io->outs[0]) return 0;
  om_gelu_task t = {node, io->data[0], om_gelu_has_bias(node, io) ? io->data[1] : NULL, io->outs[0], n,
                    r ? (size_t)io->shapes[0][r - 1] : 1, om_type_size(node->type)};
  return om_parallel_ranges(io->parallel_for, io->host_ctx, n, g->chunk, om_gelu_range, &t);
}

const om_family om_family_gelu = {sizeof(om_gelu_node), om_gelu_create, om_gelu_shapes, om_gelu_run, NULL, NULL,
                                  NULL, om_gelu_check_ranks};
