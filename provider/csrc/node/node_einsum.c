/* node_einsum.c - Einsum (opset 12): float, double, int32, int64 (docs/einsum.md states the order precisely).
 *
 * The equation is read once (einsum_eq.c); each call gives every label a size and every input a view (a stride
 * per label: a repeated letter's axes add their strides, the diagonal; a broadcast ellipsis dim of size 1 has
 * stride 0). Then, with cur the view of input 0, for k = 1 .. n-1:
 *
 *   1. the labels of cur in neither input k, a later input nor the output are summed out;
 *   2. the labels of input k in neither cur, a later input nor the output are summed out;
 *   3. cur x input k: batch = the labels of both still needed (a later input or the output), K = the labels of
 *      both not needed, M = cur's others, N = input k's others; cur becomes the [batch, M, N] result.
 *
 * A single input has its labels not in the output summed out. Every product and sum-out is one om_gemm call
 * (gemm/gemm.h: each element one fma chain over k from +0; the K labels flattened row-major in equation order,
 * the first appearance in the equation); a sum-out multiplies by a column of ones, which is the left-to-right
 * sum from +0. int32 and int64 run int_matmul.c (wrapping). Operands are laid out by the strided copy
 * (movement.h) only where their strides cannot be handed to the product as they are. The output is then cur
 * with its axes in the output's order (written in place by the last product where the order already is).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "einsum_eq.h"
#include "gemm/gemm.h"
#include "int_matmul.h"
#include "movement.h"
#include "node_family.h"

#define OM_EIN_VIEW_MAX OM_NODE_MAX_RANK

static const char* om_ein_op(const om_node* node) { return om_op_row(node->op)->name; }

static int om_ein_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_ein_eq* eq = node->impl;
  int t = node->type;
  if (t != OM_T_FLOAT && t != OM_T_DOUBLE && t != OM_T_INT32 && t != OM_T_INT64)
    return om_family_no_kernel(node, err, errlen);
  if (!a->has_equation) OM_FAIL_MSG("node '%s' (op %s): attribute 'equation' is required", node->name, om_ein_op(node));
  char msg[384];
  if (om_ein_parse(a->equation, node->n_inputs, eq, msg, sizeof msg) != 0)
    OM_FAIL_MSG("node '%s' (op %s): %s", node->name, om_ein_op(node), msg);
  return 0;
}

static int om_ein_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_ein_eq* eq = node->impl;
  char msg[384];
  for (size_t k = 0; k < n_inputs && k < eq->n_ops; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && om_ein_rank_fits(eq, k, ranks[k], msg, sizeof msg) != 0)
      OM_FAIL_MSG("node '%s' (op %s): %s", node->name, om_ein_op(node), msg);
  return 0;
}

static int om_ein_dims_io(const om_node* node, const om_node_io* io, om_ein_dims* d) {
  char msg[384];
  if (om_ein_dims_of(node->impl, io->shapes, io->ranks, d, msg, sizeof msg) == 0) return 0;
  snprintf(io->err, io->errlen, "node '%s' (op %s): %s", node->name, om_ein_op(node), msg);
  return -1;
}

static int om_ein_shapes(const om_node* node, const om_node_io* io) {
  om_ein_dims* d = malloc(sizeof *d);
  if (!d) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_ein_op(node));
    return -1;
  }
  int r = om_ein_dims_io(node, io, d);
  if (r == 0) {
    memcpy(io->out_shapes, d->out_shape, d->out_n * sizeof(int64_t));
    io->out_ranks[0] = d->out_n;
  }
  free(d);
  return r;
}

/* A tensor as labels: element (i_l) at data + sum(i_l * stride_l) elements. */
typedef struct om_ein_view {
  const void* data;
  size_t n;
  int label[OM_EIN_VIEW_MAX];
  int64_t stride[OM_EIN_VIEW_MAX];
} om_ein_view;

typedef struct om_ein_ctx {
  const om_node* node;
  const om_node_io* io;
  const om_ein_dims* d;
  size_t esz;
} om_ein_ctx;

static int om_ein_find(const om_ein_view* v, int l) {
  for (size_t i = 0; i < v->n; i++)
    if (v->label[i] == l) return (int)i;
  return -1;
}

static int64_t om_ein_stride(const om_ein_view* v, int l) {
  int i = om_ein_find(v, l);
  return i < 0 ? 0 : v->stride[i];
}

/* The layout key of a label: output labels in output order, then the others in equation order. */
static int om_ein_key(const om_ein_dims* d, int l) {
  return d->out_pos[l] >= 0 ? d->out_pos[l] : OM_EIN_MAX_LABELS + d->order[l];
}

/* Sort ls[0 .. n) by layout key (by_key) or by equation order. */
static void om_ein_sort(const om_ein_dims* d, int* ls, size_t n, int by_key) {
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0; j--) {
      int a = by_key ? om_ein_key(d, ls[j - 1]) : d->order[ls[j - 1]];
      int b = by_key ? om_ein_key(d, ls[j]) : d->order[ls[j]];
      if (a <= b) break;
      int t = ls[j];
      ls[j] = ls[j - 1];
      ls[j - 1] = t;
    }
}

static size_t om_ein_count(const om_ein_dims* d, const int* ls, size_t n) {
  size_t c = 1;
  for (size_t i = 0; i < n; i++) c *= (size_t)d->size[ls[i]];
  return c;
}

/* 1 when v walks labels ls[0 .. n) (row-major) as one axis of step *stride. */
static int om_ein_flat(const om_ein_dims* d, const om_ein_view* v, const int* ls, size_t n, ptrdiff_t* stride) {
  int64_t want = 0;
  int first = 1;
  *stride = 1;
  for (size_t i = n; i-- > 0;) {
    int64_t sz = d->size[ls[i]], st = om_ein_stride(v, ls[i]);
    if (sz == 1) continue;
    if (!first && st != want) return 0;
    if (first) *stride = (ptrdiff_t)st;
    first = 0;
    want = st * sz;
  }
  return 1;
}

/* v's labels ls[0 .. n) copied row-major into a new buffer (returned; NULL: out of memory), *out its view. */
static void* om_ein_lay_out(const om_ein_ctx* c, const om_ein_view* v, const int* ls, size_t n, om_ein_view* out) {
  int64_t dims[OM_EIN_VIEW_MAX], stride[OM_EIN_VIEW_MAX];
  size_t count = om_ein_count(c->d, ls, n);
  void* buf = malloc((count ? count : 1) * c->esz);
  if (!buf) return NULL;
  for (size_t i = 0; i < n; i++) {
    dims[i] = c->d->size[ls[i]];
    stride[i] = om_ein_stride(v, ls[i]);
  }
  if (n == 0) memcpy(buf, v->data, c->esz);
  else om_movement_copy_into(c->node, c->io, buf, v->data, n, dims, stride);
  out->data = buf;
  out->n = n;
  memcpy(out->label, ls, n * sizeof(int));
  om_row_major_strides(dims, n, out->stride);
  return buf;
}

static int om_ein_oom(const om_ein_ctx* c) {
  snprintf(c->io->err, c->io->errlen, "node '%s' (op %s): out of memory", c->node->name, om_ein_op(c->node));
  return -1;
}

/* The label groups of one product: batch, M, K (equation order), N. */
typedef struct om_ein_groups {
  int l[4][OM_EIN_VIEW_MAX];
  size_t n[4];
} om_ein_groups;
enum { OM_EIN_B, OM_EIN_M, OM_EIN_K, OM_EIN_N };

static const float om_ein_one_f = 1.0f;
static const double om_ein_one_d = 1.0;
static const int32_t om_ein_one_i32 = 1;
static const int64_t om_ein_one_i64 = 1;

/* dst (contiguous, labels batch, M, N) = the product of a [batch, M, K] and b [batch, K, N] (b NULL: a column of
 * ones, N empty). 0, or -1 with a message in io->err. */
static int om_ein_product(const om_ein_ctx* c, const om_ein_view* a, const om_ein_view* b, const om_ein_groups* gr,
                          void* dst) {
  const om_ein_dims* d = c->d;
  const om_node* node = c->node;
  om_ein_view ta, tb;
  void *own_a = NULL, *own_b = NULL;
  ptrdiff_t rsa, csa, rsb = 0, csb = 0;
  int lab[3 * OM_EIN_VIEW_MAX];
  if (!om_ein_flat(d, a, gr->l[OM_EIN_M], gr->n[OM_EIN_M], &rsa) ||
      !om_ein_flat(d, a, gr->l[OM_EIN_K], gr->n[OM_EIN_K], &csa)) {
    size_t n = 0;
    for (int g = OM_EIN_B; g <= OM_EIN_K; g++)
      for (size_t i = 0; i < gr->n[g]; i++) lab[n++] = gr->l[g][i];
    if (!(own_a = om_ein_lay_out(c, a, lab, n, &ta))) return om_ein_oom(c);
    a = &ta;
    (void)om_ein_flat(d, a, gr->l[OM_EIN_M], gr->n[OM_EIN_M], &rsa);
    (void)om_ein_flat(d, a, gr->l[OM_EIN_K], gr->n[OM_EIN_K], &csa);
  }
  /* Without batch labels, leading N labels that b's strides do not walk as one axis with the others run as the
   * GEMM's batch instead of being copied (a stride 0 in a; C's batch stride the inner N): the same chains. */
  size_t n_out = 0; /* leading N labels run as batch */
  const int* nl = gr->l[OM_EIN_N];
  size_t nn = gr->n[OM_EIN_N];
  if (b && gr->n[OM_EIN_B] == 0 && om_ein_flat(d, b, gr->l[OM_EIN_K], gr->n[OM_EIN_K], &rsb) &&
      !om_ein_flat(d, b, nl, nn, &csb)) {
    n_out = nn;
    while (n_out > 0 && om_ein_flat(d, b, nl + n_out - 1, nn - n_out + 1, &csb)) n_out--;
  }
  if (b && (!om_ein_flat(d, b, gr->l[OM_EIN_K], gr->n[OM_EIN_K], &rsb) ||
            !om_ein_flat(d, b, nl + n_out, nn - n_out, &csb))) {
    size_t n = 0;
    const int order[3] = {OM_EIN_B, OM_EIN_K, OM_EIN_N};
    for (int g = 0; g < 3; g++)
      for (size_t i = 0; i < gr->n[order[g]]; i++) lab[n++] = gr->l[order[g]][i];
    if (!(own_b = om_ein_lay_out(c, b, lab, n, &tb))) {
      free(own_a);
      return om_ein_oom(c);
    }
    b = &tb;
    (void)om_ein_flat(d, b, gr->l[OM_EIN_K], gr->n[OM_EIN_K], &rsb);
    (void)om_ein_flat(d, b, gr->l[OM_EIN_N], gr->n[OM_EIN_N], &csb);
  }
  int64_t bdims[OM_EIN_VIEW_MAX], a_bs[OM_EIN_VIEW_MAX], b_bs[OM_EIN_VIEW_MAX];
  const int* bl = n_out ? nl : gr->l[OM_EIN_B];
  size_t nb = n_out ? n_out : gr->n[OM_EIN_B];
  for (size_t q = 0; q < nb; q++) {
    int l = bl[q];
    bdims[q] = d->size[l];
    a_bs[q] = n_out ? 0 : om_ein_stride(a, l);
    b_bs[q] = b ? om_ein_stride(b, l) : 0;
  }
  om_gemm_args g;
  memset(&g, 0, sizeof g);
  g.path = node->path;
  g.type = node->type;
  g.mode = node->mode;
  g.batch = om_ein_count(d, bl, nb);
  g.M = om_ein_count(d, gr->l[OM_EIN_M], gr->n[OM_EIN_M]);
  g.K = om_ein_count(d, gr->l[OM_EIN_K], gr->n[OM_EIN_K]);
  g.N = om_ein_count(d, nl + n_out, nn - n_out);
  g.A = a->data;
  g.rsa = rsa;
  g.csa = csa;
  if (b) {
    g.B = b->data;
    g.rsb = rsb;
    g.csb = csb;
  } else {
    g.B = node->type == OM_T_FLOAT    ? (const void*)&om_ein_one_f
          : node->type == OM_T_DOUBLE ? (const void*)&om_ein_one_d
          : node->type == OM_T_INT32  ? (const void*)&om_ein_one_i32
                                      : (const void*)&om_ein_one_i64;
  }
  g.alpha = 1.0;
  g.C = dst;
  g.ldc = (ptrdiff_t)(g.N * om_ein_count(d, nl, n_out)); /* C is [batch, M, N] with every N label */
  g.c_batch_stride = n_out ? g.N : g.M * g.N;
  if (nb > 0) {
    g.batch_rank = nb;
    g.batch_dims = bdims;
    g.a_bstride = a_bs;
    g.b_bstride = b_bs;
  }
  int rc = 0;
  size_t total = g.batch * g.M * g.N;
  if (total && g.K == 0) memset(dst, 0, total * c->esz); /* an empty sum: +0 */
  else if (total)
    rc = node->type == OM_T_INT32 || node->type == OM_T_INT64 ? om_int_matmul(&g, c->io->parallel_for, c->io->host_ctx)
                                                               : om_gemm(&g, c->io->parallel_for, c->io->host_ctx);
  free(own_a);
  free(own_b);
  if (rc == -1) return om_ein_oom(c);
  if (rc != 0) {
    snprintf(c->io->err, c->io->errlen, "node '%s' (op %s): internal error: the matrix product refused its arguments",
             node->name, om_ein_op(node));
    return -1;
  }
  return 0;
}

/* The view of the contiguous [batch, M, N] result of gr at data. */
static void om_ein_result_view(const om_ein_dims* d, const om_ein_groups* gr, const void* data, om_ein_view* v) {
  int64_t dims[OM_EIN_VIEW_MAX];
  const int order[3] = {OM_EIN_B, OM_EIN_M, OM_EIN_N};
  v->data = data;
  v->n = 0;
  for (int g = 0; g < 3; g++)
    for (size_t i = 0; i < gr->n[order[g]]; i++) {
      dims[v->n] = d->size[gr->l[order[g]][i]];
      v->label[v->n++] = gr->l[order[g]][i];
    }
  om_row_major_strides(dims, v->n, v->stride);
}

/* Whether the [batch, M, N] result of gr is the output, axis for axis. */
static int om_ein_is_output(const om_ein_dims* d, const om_ein_groups* gr) {
  const int order[3] = {OM_EIN_B, OM_EIN_M, OM_EIN_N};
  size_t o = 0;
  for (int g = 0; g < 3; g++)
    for (size_t i = 0; i < gr->n[order[g]]; i++, o++)
      if (o >= d->out_n || d->out_label[o] != gr->l[order[g]][i]) return 0;
  return o == d->out_n;
}

/* Run one product into a buffer of its own (*own; the output's when `last` and the layout is the output's), and
 * make *v its result. */
static int om_ein_step(const om_ein_ctx* c, const om_ein_view* a, const om_ein_view* b, const om_ein_groups* gr,
                       int last, void** own, om_ein_view* v) {
  void* dst;
  *own = NULL;
  if (gr->n[OM_EIN_B] + gr->n[OM_EIN_M] + gr->n[OM_EIN_N] > OM_EIN_VIEW_MAX) {
    snprintf(c->io->err, c->io->errlen, "node '%s' (op %s): an intermediate result would have more than %d axes",
             c->node->name, om_ein_op(c->node), OM_EIN_VIEW_MAX);
    return -1;
  }
  if (last && om_ein_is_output(c->d, gr)) dst = c->io->outs[0];
  else {
    /* the element count, checked: an intermediate may be larger than any input or the output */
    size_t count = 1, bytes;
    int zero = 0, over = 0;
    const int order[3] = {OM_EIN_B, OM_EIN_M, OM_EIN_N};
    for (int g = 0; g < 3; g++)
      for (size_t i = 0; i < gr->n[order[g]]; i++) {
        int64_t sz = c->d->size[gr->l[order[g]][i]];
        zero |= sz == 0;
        over |= sz > 0 && __builtin_mul_overflow(count, (size_t)sz, &count);
      }
    if (zero) count = 0;
    if (!zero && (over || __builtin_mul_overflow(count, c->esz, &bytes))) {
      snprintf(c->io->err, c->io->errlen, "node '%s' (op %s): an intermediate result would be too large",
               c->node->name, om_ein_op(c->node));
      return -1;
    }
    if (!(dst = *own = malloc((count ? count : 1) * c->esz))) return om_ein_oom(c);
  }
  if (om_ein_product(c, a, b, gr, dst) != 0) {
    free(*own);
    *own = NULL;
    return -1;
  }
  om_ein_result_view(c->d, gr, dst, v);
  return 0;
}

/* v with the labels `drop` marks summed out: kept labels in layout-key order (the longest run of them the
 * product can walk as one axis as M, those before it as batch), the summed ones as K in equation order. */
static int om_ein_sum_out(const om_ein_ctx* c, const om_ein_view* v, const int* drop, int last, void** own,
                          om_ein_view* out) {
  om_ein_groups gr;
  int kept[OM_EIN_VIEW_MAX];
  size_t nk = 0;
  memset(gr.n, 0, sizeof gr.n);
  for (size_t i = 0; i < v->n; i++) {
    if (drop[v->label[i]]) gr.l[OM_EIN_K][gr.n[OM_EIN_K]++] = v->label[i];
    else kept[nk++] = v->label[i];
  }
  om_ein_sort(c->d, kept, nk, 1);
  om_ein_sort(c->d, gr.l[OM_EIN_K], gr.n[OM_EIN_K], 0);
  size_t split = nk;
  ptrdiff_t s;
  while (split > 0 && om_ein_flat(c->d, v, kept + split - 1, nk - split + 1, &s)) split--;
  memcpy(gr.l[OM_EIN_B], kept, split * sizeof(int));
  gr.n[OM_EIN_B] = split;
  memcpy(gr.l[OM_EIN_M], kept + split, (nk - split) * sizeof(int));
  gr.n[OM_EIN_M] = nk - split;
  return om_ein_step(c, v, NULL, &gr, last, own, out);
}

/* Input k's view. */
static void om_ein_input_view(const om_ein_ctx* c, size_t k, om_ein_view* v) {
  const om_ein_dims* d = c->d;
  size_t r = c->io->ranks[k];
  int64_t stride[OM_NODE_MAX_RANK];
  om_row_major_strides(c->io->shapes[k], r, stride);
  v->data = c->io->data[k];
  v->n = 0;
  for (size_t a = 0; a < r; a++) {
    int l = d->axis_label[k][a];
    int64_t st = c->io->shapes[k][a] == 1 && d->size[l] != 1 ? 0 : stride[a]; /* a broadcast ellipsis dim */
    int i = om_ein_find(v, l);
    if (i >= 0) v->stride[i] += st; /* a repeated letter: the diagonal */
    else {
      v->label[v->n] = l;
      v->stride[v->n++] = st;
    }
  }
}

static int om_ein_needed(const om_ein_dims* d, int l, size_t k) {
  return d->out_pos[l] >= 0 || d->last_use[l] > (int)k;
}

static int om_ein_contract(const om_ein_ctx* c, size_t n_ops, om_ein_view* cur, void** cur_own) {
  const om_ein_dims* d = c->d;
  for (size_t k = 1; k < n_ops; k++) {
    om_ein_view right, t;
    void *right_own = NULL, *own;
    int drop[OM_EIN_MAX_LABELS] = {0}, any = 0;
    om_ein_input_view(c, k, &right);
    for (size_t i = 0; i < cur->n; i++) { /* 1. cur's own labels */
      int l = cur->label[i];
      if (om_ein_find(&right, l) < 0 && !om_ein_needed(d, l, k)) any = drop[l] = 1;
    }
    if (any) {
      if (om_ein_sum_out(c, cur, drop, 0, &own, &t) != 0) return -1;
      free(*cur_own);
      *cur_own = own;
      *cur = t;
    }
    any = 0;
    memset(drop, 0, sizeof drop);
    for (size_t i = 0; i < right.n; i++) { /* 2. input k's own labels */
      int l = right.label[i];
      if (om_ein_find(cur, l) < 0 && !om_ein_needed(d, l, k)) any = drop[l] = 1;
    }
    if (any) {
      if (om_ein_sum_out(c, &right, drop, 0, &right_own, &t) != 0) return -1;
      right = t;
    }
    om_ein_groups gr; /* 3. the product */
    memset(gr.n, 0, sizeof gr.n);
    for (size_t i = 0; i < cur->n; i++) {
      int l = cur->label[i], g = om_ein_find(&right, l) < 0 ? OM_EIN_M : om_ein_needed(d, l, k) ? OM_EIN_B : OM_EIN_K;
      gr.l[g][gr.n[g]++] = l;
    }
    for (size_t i = 0; i < right.n; i++)
      if (om_ein_find(cur, right.label[i]) < 0) gr.l[OM_EIN_N][gr.n[OM_EIN_N]++] = right.label[i];
    om_ein_sort(d, gr.l[OM_EIN_B], gr.n[OM_EIN_B], 1);
    om_ein_sort(d, gr.l[OM_EIN_M], gr.n[OM_EIN_M], 1);
    om_ein_sort(d, gr.l[OM_EIN_K], gr.n[OM_EIN_K], 0);
    om_ein_sort(d, gr.l[OM_EIN_N], gr.n[OM_EIN_N], 1);
    int rc = om_ein_step(c, cur, &right, &gr, k == n_ops - 1, &own, &t);
    free(right_own);
    if (rc != 0) return -1;
    free(*cur_own);
    *cur_own = own;
    *cur = t;
  }
  return 0;
}

static int om_ein_run(const om_node* node, const om_node_io* io) {
  const om_ein_eq* eq = node->impl;
  om_ein_dims* d = malloc(sizeof *d);
  om_ein_ctx c = {node, io, d, om_type_size(node->type)};
  if (!d) return om_ein_oom(&c);
  int rc = om_ein_dims_io(node, io, d);
  if (rc != 0 || !io->outs[0] || om_shape_count(d->out_shape, d->out_n) == 0) {
    free(d);
    return rc;
  }
  om_ein_view cur;
  void* cur_own = NULL;
  om_ein_input_view(&c, 0, &cur);
  if (eq->n_ops > 1) rc = om_ein_contract(&c, eq->n_ops, &cur, &cur_own);
  else {
    int drop[OM_EIN_MAX_LABELS] = {0}, any = 0;
    for (size_t i = 0; i < cur.n; i++)
      if (d->out_pos[cur.label[i]] < 0) any = drop[cur.label[i]] = 1;
    om_ein_view t;
    if (any && (rc = om_ein_sum_out(&c, &cur, drop, 1, &cur_own, &t)) == 0) cur = t;
  }
  if (rc == 0 && cur.data != io->outs[0]) { /* the output's order */
    int64_t stride[OM_NODE_MAX_RANK];
    for (size_t o = 0; o < d->out_n; o++) stride[o] = om_ein_stride(&cur, d->out_label[o]);
    if (d->out_n == 0) memcpy(io->outs[0], cur.data, c.esz);
    else om_movement_copy_into(node, io, io->outs[0], cur.data, d->out_n, d->out_shape, stride);
  }
  free(cur_own);
  free(d);
  return rc;
}

const om_family om_family_einsum = {.state_size = sizeof(om_ein_eq), .create = om_ein_create, .shapes = om_ein_shapes,
                                    .run = om_ein_run, .check_ranks = om_ein_check_ranks};
