/* attention_pattern.c - the attention pattern as one node (attention_pattern.h): per (batch element, block
 * of up to OM_AP_ROWS_MAX query rows), one task runs the members' own om_nodes on that block -- the scores
 * [rows, Skv] into a buffer, the scale and the mask add in place, the Softmax into a second buffer, then
 * P x V straight into the output rows. Each member's element depends only on its own row (MatMul: one
 * element's dot product in the GEMM's fixed order; Div, Mul, Add: one element; Softmax: one row), never on
 * the rows, batch or threads it runs with, so every element is the unfused graph's, bit for bit; no
 * [batch, heads, Sq, Skv] tensor is written. */
#include "attention_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_family.h" /* om_node's name */

/* Query rows per task: about OM_AP_CELLS scores (the two buffers: 2 x 128 KiB of f32, in L2), at least
 * OM_AP_ROWS_MIN rows, at most OM_AP_ROWS_MAX. Speed only: no bit depends on it. */
#define OM_AP_CELLS 32768
#define OM_AP_ROWS_MIN 16
#define OM_AP_ROWS_MAX 256

struct om_attn_pattern {
  om_attn_members m;
  size_t esize; /* bytes of an element (f32, f16) */
};

static void om_ap_free_members(om_attn_members* m) {
  om_node_destroy(m->qk);
  om_node_destroy(m->scale);
  om_node_destroy(m->mask);
  om_node_destroy(m->softmax);
  om_node_destroy(m->pv);
}

om_attn_pattern* om_attn_pattern_create(const om_attn_members* m, char* err, size_t errlen) {
  om_attn_pattern* p = calloc(1, sizeof *p);
  if (!p || !m->qk || !m->softmax || !m->pv) {
    snprintf(err, errlen, p ? "fused attention: a MatMul or the Softmax is missing" : "out of memory");
    om_attn_members own = *m;
    om_ap_free_members(&own);
    free(p);
    return NULL;
  }
  p->m = *m;
  p->esize = om_type_size(om_node_output_type(m->qk));
  return p;
}

void om_attn_pattern_destroy(om_attn_pattern* p) {
  if (!p) return;
  om_ap_free_members(&p->m);
  free(p);
}

static int om_ap_same(const int64_t* a, size_t ra, const int64_t* b, size_t rb) {
  if (ra != rb) return 0;
  for (size_t i = 0; i < ra; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The output shape of binary member `node` with the scores (shape s) at input `at` and x the other input; 0
 * when it equals s, else -1 with a message. */
static int om_ap_keeps(const om_node* node, int at, const int64_t* s, size_t sr, const int64_t* x, size_t xr,
                       const char* what, char* err, size_t errlen) {
  const int64_t* shapes[2] = {at == 0 ? s : x, at == 0 ? x : s};
  size_t ranks[2] = {at == 0 ? sr : xr, at == 0 ? xr : sr};
  int64_t o[OM_NODE_MAX_RANK];
  size_t orank = 0;
  if (om_node_output_shape(node, 2, shapes, ranks, o, &orank, err, errlen) != 0) return -1;
  if (!om_ap_same(o, orank, s, sr)) {
    snprintf(err, errlen, "node '%s' in a fused attention: the %s widens the scores; not served (EP option fuse=\"0\" "
             "runs it)", node->name, what);
    return -1;
  }
  return 0;
}

int om_attn_pattern_output_shape(const om_attn_pattern* p, const int64_t* const* shapes, const size_t* ranks,
                                 int64_t* out_shape, size_t* out_rank, char* err, size_t errlen) {
  const om_attn_members* m = &p->m;
  if (ranks[OM_AP_Q] < 2 || ranks[OM_AP_K] < 2 || ranks[OM_AP_V] < 2) {
    snprintf(err, errlen, "fused attention: Q, K and V must have rank 2 or more (ranks %zu, %zu, %zu)",
             ranks[OM_AP_Q], ranks[OM_AP_K], ranks[OM_AP_V]);
    return -1;
  }
  int64_t s[OM_NODE_MAX_RANK];
  size_t sr = 0;
  const int64_t* qk[2] = {shapes[OM_AP_Q], shapes[OM_AP_K]};
  size_t qkr[2] = {ranks[OM_AP_Q], ranks[OM_AP_K]};
  if (om_node_output_shape(m->qk, 2, qk, qkr, s, &sr, err, errlen) != 0) return -1;
  if (m->scale && om_ap_keeps(m->scale, m->scale_at, s, sr, shapes[OM_AP_SCALE], ranks[OM_AP_SCALE], "scale",
                              err, errlen) != 0)
    return -1;
  if (m->mask &&
      om_ap_keeps(m->mask, m->mask_at, s, sr, shapes[OM_AP_MASK], ranks[OM_AP_MASK], "mask", err, errlen) != 0)
    return -1;
  const int64_t* pv[2] = {s, shapes[OM_AP_V]};
  size_t pvr[2] = {sr, ranks[OM_AP_V]};
  if (om_node_output_shape(m->pv, 2, pv, pvr, out_shape, out_rank, err, errlen) != 0) return -1;
  if (*out_rank != sr || !om_ap_same(out_shape, sr - 2, s, sr - 2)) {
    snprintf(err, errlen, "node '%s' in a fused attention: V's batch dimensions widen the scores'; not served (EP "
             "option fuse=\"0\" runs it)", m->pv->name);
    return -1;
  }
  return 0;
}

/* Offset (elements) of batch element bi of the scores' batch dimensions `bd` (nb of them) in a tensor of shape
 * x (rank xr, its last `tail` dimensions not batch), broadcasting x's batch dimensions (right-aligned). */
static size_t om_ap_batch_offset(size_t bi, const int64_t* bd, size_t nb, const int64_t* x, size_t xr, size_t tail) {
  size_t xb = xr > tail ? xr - tail : 0; /* x's batch dimensions */
  size_t stride = 1, off = 0;
  for (size_t k = xr; k > xb; k--) stride *= (size_t)x[k - 1];
  for (size_t k = nb; k > 0; k--) {
    size_t idx = bi % (size_t)bd[k - 1];
    bi /= (size_t)bd[k - 1];
    size_t dist = nb - k; /* from the right */
    if (dist >= xb) continue;
    size_t xk = xb - 1 - dist;
    if (x[xk] != 1) off += idx * stride;
    stride *= (size_t)x[xk];
  }
  return off;
}

typedef struct om_ap_run {
  const om_attn_pattern* p;
  const void* const* data;
  const int64_t* const* shapes;
  const size_t* ranks;
  const int64_t* s; /* the scores' shape */
  size_t sr, nb, Sq, Skv, D, Dv, rows, blocks;
  unsigned char* out;
  int failed;
  char* err;
  size_t errlen;
} om_ap_run;

static void om_ap_fail(om_ap_run* r, const char* msg) {
  if (__atomic_exchange_n(&r->failed, 1, __ATOMIC_ACQ_REL) == 0) snprintf(r->err, r->errlen, "%s", msg);
}

static void om_ap_task(void* ctx, size_t t) {
  om_ap_run* r = ctx;
  if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE)) return;
  const om_attn_members* m = &r->p->m;
  size_t es = r->p->esize, bi = t / r->blocks, r0 = (t % r->blocks) * r->rows;
  size_t rows = r->Sq - r0 < r->rows ? r->Sq - r0 : r->rows, nbd = r->sr - 2;
  size_t cells = rows * r->Skv;
  unsigned char* buf = malloc(2 * (cells ? cells : 1) * es);
  char err[512];
  if (!buf) {
    om_ap_fail(r, "fused attention: out of memory");
    return;
  }
  unsigned char *sc = buf, *pr = buf + cells * es;
  const int64_t *qs = r->shapes[OM_AP_Q], *ks = r->shapes[OM_AP_K], *vs = r->shapes[OM_AP_V];
  size_t qr = r->ranks[OM_AP_Q], kr = r->ranks[OM_AP_K], vr = r->ranks[OM_AP_V];
  const unsigned char* q = (const unsigned char*)r->data[OM_AP_Q] +
                           (om_ap_batch_offset(bi, r->s, nbd, qs, qr, 2) + r0 * r->D) * es;
  const unsigned char* k = (const unsigned char*)r->data[OM_AP_K] + om_ap_batch_offset(bi, r->s, nbd, ks, kr, 2) * es;
  const unsigned char* v = (const unsigned char*)r->data[OM_AP_V] + om_ap_batch_offset(bi, r->s, nbd, vs, vr, 2) * es;
  int64_t q2[2] = {(int64_t)rows, (int64_t)r->D}, k2[2] = {(int64_t)r->D, (int64_t)r->Skv};
  int64_t p2[2] = {(int64_t)rows, (int64_t)r->Skv}, v2[2] = {(int64_t)r->Skv, (int64_t)r->Dv};
  int64_t o2[2] = {(int64_t)rows, (int64_t)r->Dv};
  size_t two[2] = {2, 2};
  /* the block's scores in the scores' full rank: [1, .., 1, rows, Skv] (the Softmax's axis reads as given) */
  int64_t sl[OM_NODE_MAX_RANK];
  for (size_t i = 0; i < nbd; i++) sl[i] = 1;
  sl[nbd] = (int64_t)rows;
  sl[nbd + 1] = (int64_t)r->Skv;
  const void* in[2] = {q, k};
  const int64_t* sh[2] = {q2, k2};
  int rc = om_node_run(m->qk, 2, in, sh, two, sc, p2, 2, NULL, NULL, err, sizeof err);
  if (rc == 0 && m->scale) {
    int a = m->scale_at;
    in[a] = sc;
    sh[a] = sl;
    in[1 - a] = r->data[OM_AP_SCALE];
    sh[1 - a] = r->shapes[OM_AP_SCALE];
    size_t rk[2] = {a == 0 ? r->sr : r->ranks[OM_AP_SCALE], a == 0 ? r->ranks[OM_AP_SCALE] : r->sr};
    rc = om_node_run(m->scale, 2, in, sh, rk, sc, sl, r->sr, NULL, NULL, err, sizeof err);
  }
  if (rc == 0 && m->mask) {
    const int64_t* ms = r->shapes[OM_AP_MASK];
    size_t mr = r->ranks[OM_AP_MASK];
    /* the mask's rows of this block: its batch element, then row r0 where it has a row dimension */
    int64_t msl[OM_NODE_MAX_RANK];
    for (size_t i = 0; i < mr; i++) msl[i] = i + 2 < mr ? 1 : ms[i];
    size_t moff = om_ap_batch_offset(bi, r->s, nbd, ms, mr, 2);
    if (mr >= 2 && ms[mr - 2] != 1) {
      msl[mr - 2] = (int64_t)rows;
      moff += r0 * (size_t)ms[mr - 1];
    }
    int a = m->mask_at;
    in[a] = sc;
    sh[a] = sl;
    in[1 - a] = (const unsigned char*)r->data[OM_AP_MASK] + moff * es;
    sh[1 - a] = msl;
    size_t rk[2] = {a == 0 ? r->sr : mr, a == 0 ? mr : r->sr};
    rc = om_node_run(m->mask, 2, in, sh, rk, sc, sl, r->sr, NULL, NULL, err, sizeof err);
  }
  if (rc == 0) {
    const void* x[1] = {sc};
    const int64_t* xs[1] = {sl};
    rc = om_node_run(m->softmax, 1, x, xs, &r->sr, pr, sl, r->sr, NULL, NULL, err, sizeof err);
  }
  if (rc == 0) {
    in[0] = pr;
    in[1] = v;
    sh[0] = p2;
    sh[1] = v2;
    rc = om_node_run(m->pv, 2, in, sh, two, r->out + (bi * r->Sq + r0) * r->Dv * es, o2, 2, NULL, NULL, err,
                     sizeof err);
  }
  free(buf);
  if (rc != 0) om_ap_fail(r, err);
}

int om_attn_pattern_run(const om_attn_pattern* p, const void* const* data, const int64_t* const* shapes,
                        const size_t* ranks, void* out, om_parallel_for_fn parallel_for, void* host_ctx, char* err,
                        size_t errlen) {
  int64_t o[OM_NODE_MAX_RANK], s[OM_NODE_MAX_RANK];
  size_t orank = 0, sr = 0;
  if (om_attn_pattern_output_shape(p, shapes, ranks, o, &orank, err, errlen) != 0) return -1;
  const int64_t* qk[2] = {shapes[OM_AP_Q], shapes[OM_AP_K]};
  size_t qkr[2] = {ranks[OM_AP_Q], ranks[OM_AP_K]};
  if (om_node_output_shape(p->m.qk, 2, qk, qkr, s, &sr, err, errlen) != 0) return -1;
  om_ap_run r = {.p = p, .data = data, .shapes = shapes, .ranks = ranks, .s = s, .sr = sr, .out = out,
                 .err = err, .errlen = errlen};
  r.nb = 1;
  for (size_t i = 0; i + 2 < sr; i++) r.nb *= (size_t)s[i];
  r.Sq = (size_t)s[sr - 2];
  r.Skv = (size_t)s[sr - 1];
  r.D = (size_t)shapes[OM_AP_Q][ranks[OM_AP_Q] - 1];
  r.Dv = (size_t)o[orank - 1];
  if (r.nb == 0 || r.Sq == 0 || r.Dv == 0) return 0;
  r.rows = OM_AP_CELLS / (r.Skv ? r.Skv : 1);
  r.rows = r.rows < OM_AP_ROWS_MIN ? OM_AP_ROWS_MIN : r.rows > OM_AP_ROWS_MAX ? OM_AP_ROWS_MAX : r.rows;
  r.blocks = (r.Sq + r.rows - 1) / r.rows;
  size_t tasks = r.nb * r.blocks;
  if (parallel_for && tasks > 1)
    parallel_for(host_ctx, om_ap_task, tasks, &r);
  else
    for (size_t t = 0; t < tasks; t++) om_ap_task(&r, t);
  return r.failed ? -1 : 0;
}
