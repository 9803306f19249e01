/* qgemm.c - om_qgemm (qgemm.h): packing A and B into the kernels' operand layout (qgemm_internal.h), the row
 * and column sums, and the cut into tasks. The arithmetic of a tile is in qgemm_body.inc, one copy per path;
 * how the work is cut never changes a result (every element is an exact integer modulo 2^32). */
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "qgemm_internal.h"

/* ext 0: the path's own kernel; ext e > 0: the first of the path's extension kernels e-1, e, ... the CPU has,
 * else the path's own; NULL for a path this CPU lacks. Each extension's test is asked once (CPUID traps in a
 * virtual machine). */
static const om_qgemm_kern* om_qgemm_kern_for(int path, int ext) {
  static int known[OM_PATH_COUNT][OM_QGEMM_EXTS]; /* 0 unknown, 1 available, 2 not; racing first calls agree */
  const om_isa_path* p = om_isa_path_get(path);
  if (!p || !om_path_available_cached(path)) return NULL;
  for (int e = ext - 1; ext > 0 && e < OM_QGEMM_EXTS && p->qgemm_ext[e]; e++) {
    int v = __atomic_load_n(&known[path][e], __ATOMIC_RELAXED);
    if (!v) {
      v = p->ext_available[e]() ? 1 : 2;
      __atomic_store_n(&known[path][e], v, __ATOMIC_RELAXED);
    }
    if (v == 1) return p->qgemm_ext[e];
  }
  return p->qgemm;
}

/* The kernel for a product of N columns: the path's (om_qgemm_kern_for) or its narrow variant. */
static const om_qgemm_kern* om_qgemm_kern_n(int path, int ext, size_t N) {
  const om_qgemm_kern* k = om_qgemm_kern_for(path, ext);
  return k && k->narrow && N <= k->narrow->nr ? k->narrow : k;
}

const char* om_qgemm_kernel_name(int path, int ext) {
  const om_qgemm_kern* k = om_qgemm_kern_for(path, ext);
  return k ? k->name : NULL;
}

/* ---- B ----------------------------------------------------------------------------------------------------- */
static om_qgemm_packed* om_qgemm_pack_with(const om_qgemm_kern* kern, int b_signed, size_t K, size_t N,
                                           const void* B, ptrdiff_t rs) {
  size_t kq = ((K + 3) / 4 + kern->kq_align - 1) / kern->kq_align * kern->kq_align, nr = kern->nr;
  size_t panels = (N + nr - 1) / nr;
  if (kq && panels > SIZE_MAX / 8 / nr / kq) return NULL;
  size_t bytes = panels * kq * nr * 4;
  om_qgemm_packed* p = calloc(1, sizeof *p);
  int8_t* data = calloc(bytes ? bytes : 1, 1);
  size_t ncols = panels * nr;
  uint32_t* cs = calloc(ncols ? ncols : 1, sizeof *cs);
  if (!p || !data || !cs) {
    free(p);
    free(data);
    free(cs);
    return NULL;
  }
  const uint8_t* b = B;
  uint8_t flip = b_signed ? 0 : 0x80; /* uint8 b to int8 b - 128: the same bits with the top one flipped */
  for (size_t pan = 0; pan < panels; pan++) { /* panel by panel: the writes are sequential */
    size_t j0 = pan * nr, nvalid = N - j0 < nr ? N - j0 : nr;
    int8_t* out = data + pan * kq * nr * 4;
    for (size_t k = 0; k < K; k++) {
      const uint8_t* row = b + (ptrdiff_t)k * rs + j0;
      size_t q = k / 4, t = k % 4;
      for (size_t jj = 0; jj < nvalid; jj++) {
        int8_t v = (int8_t)(row[jj] ^ flip);
        out[(q * nr + jj) * 4 + t] = v;
        cs[j0 + jj] += (uint32_t)(int32_t)v;
      }
    }
  }
  *p = (om_qgemm_packed){kern, K, N, kq, panels, data, cs};
  return p;
}

om_qgemm_packed* om_qgemm_pack_b(int path, int ext, int b_signed, size_t K, size_t N, const void* B, ptrdiff_t rs) {
  const om_qgemm_kern* kern = om_qgemm_kern_n(path, ext, N);
  return kern ? om_qgemm_pack_with(kern, b_signed, K, N, B, rs) : NULL;
}

void om_qgemm_packed_free(om_qgemm_packed* p) {
  if (!p) return;
  free(p->data);
  free(p->cs);
  free(p);
}

/* ---- the call ---------------------------------------------------------------------------------------------- */
/* A task: up to 256 rows (rounded to mr) x 8 panels; within it each panel meets every row, so a BERT-sized B
 * (beyond L2) is read from memory once per 256 rows. */
enum { OM_QG_ROWS = 256, OM_QG_PANELS = 8 };

typedef struct om_qgemm_run {
  const om_qgemm_kern* kern;
  const om_qgemm_packed* pb;
  const uint8_t* a;    /* packed A, lda bytes a row */
  size_t lda, M, rows; /* rows per task, a multiple of mr */
  const uint32_t *za, *r, *zb, *cs; /* cs: the panels' column sums (or qgemm's col_add fold of them) */
  uint32_t* C;
  size_t ldc, row_tasks;
} om_qgemm_run;

static void om_qgemm_task(void* v, size_t t) {
  const om_qgemm_run* x = v;
  const om_qgemm_kern* k = x->kern;
  const om_qgemm_packed* pb = x->pb;
  size_t i0 = (t % x->row_tasks) * x->rows, p0 = (t / x->row_tasks) * OM_QG_PANELS;
  size_t i1 = i0 + x->rows < x->M ? i0 + x->rows : x->M;
  size_t p1 = p0 + OM_QG_PANELS < pb->panels ? p0 + OM_QG_PANELS : pb->panels;
  if (k->task_begin) k->task_begin();
  for (size_t p = p0; p < p1; p++) {
    size_t j0 = p * k->nr, nvalid = pb->N - j0 < k->nr ? pb->N - j0 : k->nr;
    const int8_t* panel = pb->data + p * pb->kq * k->nr * 4;
    for (size_t i = i0; i < i1; i += k->mr)
      k->tile(pb->kq, x->a + i * x->lda, x->lda, panel, x->cs + j0, x->zb + j0, x->za + i, x->r + i,
              x->C + i * x->ldc + j0, x->ldc, i1 - i < k->mr ? i1 - i : k->mr, nvalid);
  }
  if (k->task_end) k->task_end();
}

static uint32_t om_qz(const void* z, size_t i, int is_signed) {
  if (!z) return 0;
  return is_signed ? (uint32_t)(int32_t)((const int8_t*)z)[i] : (uint32_t)((const uint8_t*)z)[i];
}

/* The bytes of A's shifted copy (mpad rows of lda) and of the sums (2 * mpad + 2 * npad uint32), A's first. */
static size_t om_qgemm_scratch_of(const om_qgemm_kern* kern, size_t M, size_t N, size_t K, size_t* a_bytes,
                                  size_t* sums_count) {
  size_t kq = ((K + 3) / 4 + kern->kq_align - 1) / kern->kq_align * kern->kq_align, mr = kern->mr;
  size_t mpad = (M + mr - 1) / mr * mr, npad = (N + kern->nr - 1) / kern->nr * kern->nr;
  if (kq && mpad > SIZE_MAX / 8 / kq) return 0;
  *a_bytes = (mpad * kq * 4 + 3) / 4 * 4;
  *sums_count = 2 * mpad + 2 * npad;
  return *a_bytes + *sums_count * sizeof(uint32_t);
}

size_t om_qgemm_scratch(const om_qgemm_args* g) {
  const om_qgemm_kern* kern = om_qgemm_kern_n(g->path, g->ext, g->N);
  size_t a_bytes, sums_count;
  return kern ? om_qgemm_scratch_of(kern, g->M, g->N, g->K, &a_bytes, &sums_count) : 0;
}

size_t om_qgemm_a_layout(const om_qgemm_args* g, size_t* rows) {
  const om_qgemm_kern* kern = om_qgemm_kern_n(g->path, g->ext, g->N);
  *rows = 0;
  if (!kern) return 0;
  *rows = (g->M + kern->mr - 1) / kern->mr * kern->mr;
  return ((g->K + 3) / 4 + kern->kq_align - 1) / kern->kq_align * kern->kq_align * 4;
}

int om_qgemm(const om_qgemm_args* g, om_parallel_for_fn pf, void* host_ctx) {
  const om_qgemm_kern* kern = om_qgemm_kern_n(g->path, g->ext, g->N);
  if (!kern) return -2;
  if (g->packed_b && (g->packed_b->kern != kern || g->packed_b->K != g->K || g->packed_b->N != g->N)) return -2;
  if (g->M == 0 || g->N == 0) return 0;
  if (g->K == 0) { /* every sum is empty: +0 (and col_add) */
    for (size_t i = 0; i < g->M; i++)
      for (size_t j = 0; j < g->N; j++) g->C[i * g->ldc + j] = g->col_add ? g->col_add[j] : 0;
    return 0;
  }
  om_qgemm_packed* own = NULL;
  const om_qgemm_packed* pb = g->packed_b;
  if (!pb && !(pb = own = om_qgemm_pack_with(kern, g->b_signed, g->K, g->N, g->B, (ptrdiff_t)g->ldb))) return -1;
  size_t kq = pb->kq, lda = kq * 4, mr = kern->mr, mpad = (g->M + mr - 1) / mr * mr, npad = pb->panels * kern->nr;
  uint8_t* a = NULL;
  uint32_t* sums = NULL;
  size_t a_bytes = 0, sums_count = 0;
  const size_t need = om_qgemm_scratch_of(kern, g->M, g->N, g->K, &a_bytes, &sums_count);
  const int given = g->scratch && need && g->scratch_bytes >= need;
  /* A read in place (qgemm.h's a_ready): the caller's rows are the packed layout already */
  const int in_place = g->a_ready && !g->a_signed && g->lda >= lda && g->lda % 4 == 0;
  if (given) { /* the caller's block: zeroed where calloc would have left zeros that the loops below keep */
    a = g->scratch;
    sums = (uint32_t*)(void*)(a + a_bytes);
    for (size_t i = 0; !in_place && i < g->M; i++) memset(a + i * lda + g->K, 0, lda - g->K);
    if (!in_place) memset(a + g->M * lda, 0, (mpad - g->M) * lda);
    memset(sums, 0, sums_count * sizeof *sums);
  } else {
    if (mpad <= SIZE_MAX / lda) a = in_place ? malloc(1) : calloc(mpad * lda, 1);
    sums = calloc(2 * mpad + 2 * npad, sizeof *sums);
  }
  if (!a || !sums) {
    free(a);
    free(sums);
    om_qgemm_packed_free(own);
    return -1;
  }
  uint32_t *za = sums, *r = sums + mpad, *zb = sums + 2 * mpad;
  /* ZB = zb - 128 for uint8 B; 0 past N */
  uint32_t zb_any = 0;
  for (size_t j = 0; j < g->N; j++) {
    zb[j] = om_qz(g->zb, j * g->zb_stride, g->b_signed) - (g->b_signed ? 0u : 128u);
    zb_any |= zb[j];
  }
  /* A to uint8 (int8 a + 128: the top bit flipped), its row sums, ZA = za + 128 for int8 A, r = K*ZA - sum.
   * r only meets ZB (the tile's zb[j] * r[i]): with every ZB 0 (int8 B, zero points 0) an A read in place
   * needs no pass for its sums, r = 0 (the term is 0 either way). */
  uint8_t flip = g->a_signed ? 0x80 : 0;
  const size_t K = g->K;
  const int sums_needed = !in_place || zb_any;
  if (sums_needed) /* r: the row sums for now */
    kern->prep_a((const uint8_t*)g->A, g->lda, g->M, K, flip, in_place ? NULL : a, lda, r);
  for (size_t i = 0; i < g->M; i++) {
    za[i] = om_qz(g->za, i * g->za_stride, g->a_signed) + (g->a_signed ? 128u : 0u);
    r[i] = sums_needed ? (uint32_t)K * za[i] - r[i] : 0;
  }
  /* col_add with one ZA for all rows: folded into the tile's za[i] * cs[j] term, cs'[j] = ZA * cs[j] - col_add[j]
   * and za[i] = 1 (the same integer modulo 2^32); per-row ZA: added after the product. */
  const uint32_t* cs = pb->cs;
  const int fold = g->col_add && g->za_stride == 0;
  if (fold) {
    uint32_t* cadj = zb + npad; /* 0 past N, as cs is */
    for (size_t j = 0; j < g->N; j++) cadj[j] = za[0] * pb->cs[j] - (uint32_t)g->col_add[j];
    for (size_t i = 0; i < g->M; i++) za[i] = 1;
    cs = cadj;
  }
  size_t rows = (OM_QG_ROWS + mr - 1) / mr * mr;
  om_qgemm_run x = {kern, pb,  in_place ? (const uint8_t*)g->A : a, in_place ? g->lda : lda, g->M, rows, za, r,
                    zb,   cs, (uint32_t*)g->C, g->ldc, (g->M + rows - 1) / rows};
  size_t tasks = x.row_tasks * ((pb->panels + OM_QG_PANELS - 1) / OM_QG_PANELS);
  if (pf && tasks > 1) pf(host_ctx, om_qgemm_task, tasks, &x);
  else
    for (size_t t = 0; t < tasks; t++) om_qgemm_task(&x, t);
  for (size_t i = 0; g->col_add && !fold && i < g->M; i++) {
    int32_t* c = g->C + i * g->ldc;
    for (size_t j = 0; j < g->N; j++) c[j] = (int32_t)((uint32_t)c[j] + (uint32_t)g->col_add[j]);
  }
  if (!given) {
    free(a);
    free(sums);
  }
  om_qgemm_packed_free(own);
  return 0;
}
