/* gemm.c - om_gemm: argument checks, the cut into tasks, B packing, scratch memory and the FP environment.
 * The arithmetic is in gemm_body.inc (one copy per path); how a task is chosen never changes a result (each
 * element's chain is the same whatever the blocking), only the speed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "gemm_internal.h"
#include "isa/fpenv.h"
#include "isa/isa.h"

const om_gemm_kern* om_gemm_kern_get(int path, int acc64) {
  const om_isa_path* p = om_isa_path_get(path);
  return p ? (acc64 ? p->gemm_f64 : p->gemm_f32) : NULL;
}

static size_t om_gemm_esize(int type) {
  switch (type) {
    case OM_T_FLOAT: return 4;
    case OM_T_DOUBLE: return 8;
    case OM_T_FLOAT16: return 2;
    default: return 0;
  }
}

static const om_gemm_kern* om_gemm_kern_for(int path, int type) {
  if (!om_gemm_esize(type) || path < 0 || path >= OM_PATH_COUNT || !om_path_available_cached(path)) return NULL;
  return om_gemm_kern_get(path, type == OM_T_DOUBLE);
}

/* ---- packed B -------------------------------------------------------------------------------------------- */
om_gemm_packed* om_gemm_pack_b(int path, int type, size_t K, size_t N, const void* B, ptrdiff_t rs, ptrdiff_t cs) {
  const om_gemm_kern* kern = om_gemm_kern_for(path, type);
  if (!kern) return NULL;
  size_t acc = type == OM_T_DOUBLE ? 8 : 4, panels = (N + kern->nr - 1) / kern->nr;
  size_t elems = panels ? (panels - 1) * kern->nr * K + om_gemm_panel_w(N, kern->nr, kern->vl, panels - 1) * K : 0;
  if (K && elems / K < (panels ? panels - 1 : 0) * kern->nr) return NULL; /* overflow */
  size_t head = (sizeof(om_gemm_packed) + 63) / 64 * 64;
  unsigned char* mem = aligned_alloc(64, (head + elems * acc + 63) / 64 * 64);
  if (!mem) return NULL;
  om_gemm_packed* p = (om_gemm_packed*)(void*)mem;
  p->path = path;
  p->type = type;
  p->K = K;
  p->N = N;
  p->nr = kern->nr;
  p->vl = kern->vl;
  p->data = mem + head;
  for (size_t q = 0; q < panels; q++) {
    size_t j0 = q * kern->nr, nvalid = N - j0 < kern->nr ? N - j0 : kern->nr;
    kern->pack_b_panel(type, B, rs, cs, 0, K, j0, nvalid, om_gemm_panel_w(N, kern->nr, kern->vl, q),
                       (unsigned char*)p->data + q * kern->nr * K * acc);
  }
  return p;
}

void om_gemm_packed_free(om_gemm_packed* p) { free(p); }

size_t om_gemm_panel_cols(int path, int type) {
  const om_gemm_kern* kern = om_gemm_kern_for(path, type);
  return kern ? kern->nr : 0;
}

/* ---- per-thread scratch ----------------------------------------------------------------------------------
 * A task needs a few hundred KiB at most (the plan bounds it). Each thread keeps one buffer, grown on demand and
 * freed when the thread exits, so a call allocates nothing in the steady state (fresh memory would cost page
 * faults on every call). */
#if defined(_WIN32)
static void* om_gemm_scratch_get(size_t n) { return malloc(n); }
static void om_gemm_scratch_put(void* p) { free(p); }
#else
#include <pthread.h>
typedef struct om_gemm_buf {
  void* p;
  size_t n;
} om_gemm_buf;
static pthread_key_t om_gemm_key;
static pthread_once_t om_gemm_once = PTHREAD_ONCE_INIT;
static int om_gemm_key_ok;
static void om_gemm_buf_free(void* v) {
  om_gemm_buf* b = v;
  free(b->p);
  free(b);
}
static void om_gemm_key_init(void) { om_gemm_key_ok = pthread_key_create(&om_gemm_key, om_gemm_buf_free) == 0; }
static void* om_gemm_scratch_get(size_t n) {
  pthread_once(&om_gemm_once, om_gemm_key_init);
  if (!om_gemm_key_ok) return malloc(n);
  om_gemm_buf* b = pthread_getspecific(om_gemm_key);
  if (!b) {
    b = calloc(1, sizeof *b);
    if (!b) return NULL;
    if (pthread_setspecific(om_gemm_key, b) != 0) {
      free(b);
      return NULL;
    }
  }
  if (b->n < n) {
    free(b->p);
    b->n = 0;
    b->p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!b->p) return NULL;
    b->n = n;
  }
  return b->p;
}
static void om_gemm_scratch_put(void* p) {
  if (!om_gemm_key_ok) free(p);
}
/* When the library is unloaded (a host may dlclose a custom-op library) no thread may later run the key's
 * destructor, whose code would be gone: delete the key (other threads' buffers are then leaked, not freed). */
__attribute__((destructor)) static void om_gemm_scratch_unload(void) {
  if (!om_gemm_key_ok) return;
  om_gemm_buf* b = pthread_getspecific(om_gemm_key);
  pthread_key_delete(om_gemm_key);
  if (b) om_gemm_buf_free(b);
}
#endif

/* ---- tasks ------------------------------------------------------------------------------------------------ */
static void om_gemm_run_task(void* ctx, size_t t) {
  om_gemm_plan* pl = ctx;
  void* s = om_gemm_scratch_get(pl->scratch);
  if (!s) {
    __atomic_store_n(&pl->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  om_fpenv env = om_fpenv_enter();
  size_t end = (t + 1) * pl->group < pl->tasks ? (t + 1) * pl->group : pl->tasks;
  for (size_t u = t * pl->group; u < end; u++) pl->kern->task(pl, u, s);
  om_fpenv_leave(env);
  om_gemm_scratch_put(s);
}

/* Multiply-adds a task aims at: about 10 us on one core at the FMA peak, large against a parallel-for's
 * per-task cost. The cut depends on the shape and path only, never on the thread count. */
#define OM_GEMM_TASK_MACS ((size_t)1 << 21)
#define OM_GEMM_MAX_ROW_TILES 8
#define OM_GEMM_MATRIX_COST 64 /* a task's fixed cost (offsets, loops, epilogue set-up), in multiply-adds */
#define OM_GEMM_MAX_PART ((size_t)1 << 16) /* elements of a task's block-sum levels, all together */

static size_t om_gemm_ceil(size_t a, size_t b) { return (a + b - 1) / b; }

static void om_gemm_cut(om_gemm_plan* pl, const om_gemm_args* g) {
  const om_gemm_kern* k = pl->kern;
  size_t kk = g->K ? g->K : 1;
  pl->nk = g->K ? om_gemm_ceil(g->K, OM_GEMM_KB) : 1;
  pl->kc = g->K < OM_GEMM_KB ? g->K : OM_GEMM_KB; /* the last block may be shorter */
  pl->levels = 0;
  for (size_t x = pl->nk - 1; x; x >>= 1) pl->levels++;
  size_t tiles_m = om_gemm_ceil(g->M, k->mr), panels = om_gemm_ceil(g->N, k->nr);
  /* Rows: blocks of up to OM_GEMM_MAX_ROW_TILES tiles, equal in size (each B panel, loaded once into L1, serves
   * every tile of the block). Columns: then cut so that a task is about OM_GEMM_TASK_MACS. */
  size_t max_tm = g->b_fill && g->b_fill_rows ? tiles_m : OM_GEMM_MAX_ROW_TILES;
  size_t tm = tiles_m < max_tm ? tiles_m : max_tm;
  pl->nbm = om_gemm_ceil(tiles_m, tm);
  tm = om_gemm_ceil(tiles_m, pl->nbm);
  size_t task_work = tm * k->mr * g->N * kk, want = om_gemm_ceil(task_work, OM_GEMM_TASK_MACS);
  size_t tn = om_gemm_ceil(panels, want < panels ? want : panels);
  if (pl->nk > 1) {
    size_t cap = OM_GEMM_MAX_PART / (tm * k->mr) / k->nr / pl->levels;
    if (cap < 1) cap = 1;
    if (tn > cap) tn = cap;
  }
  pl->nbn = om_gemm_ceil(panels, tn);
  tn = om_gemm_ceil(panels, pl->nbn);
  pl->mc = tm * k->mr;
  pl->nc = tn * k->nr;
  size_t acc = g->type == OM_T_DOUBLE ? 8 : 4;
  pl->scratch = (pl->mc * pl->kc + (g->packed_b ? 0 : pl->kc * k->nr) + pl->levels * pl->mc * pl->nc) * acc;
  if (pl->scratch == 0) pl->scratch = 64;
  /* Tasks smaller than OM_GEMM_TASK_MACS (whole small matrices, one per batch element) go in groups of about that
   * much work, so that a huge batch of tiny matrices costs no parallel-for call, scratch look-up or FP
   * environment switch per matrix. Each still computes its elements alone: the grouping changes no bit. */
  size_t per_task = (g->M < pl->mc ? g->M : pl->mc) * (g->N < pl->nc ? g->N : pl->nc) * kk + OM_GEMM_MATRIX_COST;
  pl->tasks = g->batch * pl->nbm * pl->nbn;
  pl->group = per_task < OM_GEMM_TASK_MACS ? OM_GEMM_TASK_MACS / per_task : 1;
}

/* The most elements of a B shared by a batch that om_gemm packs once per call. */
#define OM_GEMM_SHARED_B_PACK ((size_t)1 << 20)

/* 1 when every batch element reads the same B. */
static int om_gemm_b_shared(const om_gemm_args* g) {
  for (size_t q = 0; q < g->batch_rank; q++)
    if (g->b_bstride[q] != 0) return 0;
  for (size_t b = 1; g->batch_rank == 0 && g->b_off && b < g->batch; b++)
    if (g->b_off[b] != g->b_off[0]) return 0;
  return 1;
}

/* 1 when the batch is one product of batch * M rows: B shared, A's and C's matrices one after the other
 * (batch element b's rows follow b - 1's at the row strides) and Cin the same for every row. Each output
 * element's chain is then the same as batch by batch, so are its bits. */
static int om_gemm_batch_folds(const om_gemm_args* g) {
  if (g->batch_rank == 0 || (g->Cin && g->rsc_in != 0) || g->c_batch_stride != g->M * (size_t)g->ldc) return 0;
  int64_t want = (int64_t)g->M * g->rsa;
  for (size_t q = g->batch_rank; q-- > 0;) {
    if (g->batch_dims[q] == 1) continue; /* index 0 only: its strides are never used */
    if (g->b_bstride[q] != 0 || g->a_bstride[q] != want) return 0;
    want *= g->batch_dims[q];
  }
  return 1;
}

static int om_gemm_run(const om_gemm_args* g, const om_gemm_kern* kern, om_parallel_for_fn pf, void* host_ctx);

int om_gemm(const om_gemm_args* g, om_parallel_for_fn pf, void* host_ctx) {
  const om_gemm_kern* kern = om_gemm_kern_for(g->path, g->type);
  if (!kern) return -2;
  if (g->packed_b) {
    const om_gemm_packed* p = g->packed_b;
    if (p->path != g->path || p->type != g->type || p->K != g->K || p->N != g->N) return -2;
  }
  if (g->b_fill && (g->packed_b || g->B || g->batch != 1 || g->type != OM_T_FLOAT)) return -2;
  if (g->batch == 0 || g->M == 0 || g->N == 0) return 0;
  if (g->b_fill) return om_gemm_run(g, kern, pf, host_ctx);
  if (om_gemm_batch_folds(g)) { /* one product of batch * M rows: no per-matrix cost at all */
    om_gemm_args rows = *g;
    rows.M = g->M * g->batch;
    rows.batch = 1;
    rows.batch_rank = 0;
    return om_gemm_run(&rows, kern, pf, host_ctx);
  }
  if (g->packed_b || g->batch == 1 || g->K == 0 || g->K * g->N > OM_GEMM_SHARED_B_PACK || !om_gemm_b_shared(g))
    return om_gemm_run(g, kern, pf, host_ctx);
  /* One small B for the whole batch: packed once here rather than panel by panel in every task (the same
   * panels, so the same bits); where that memory is not to be had, the tasks pack as usual. */
  int64_t oa, ob;
  om_gemm_batch_offsets(g, 0, &oa, &ob);
  om_gemm_packed* own = om_gemm_pack_b(g->path, g->type, g->K, g->N,
                                       (const char*)g->B + ob * (ptrdiff_t)om_gemm_esize(g->type), g->rsb, g->csb);
  if (!own) return om_gemm_run(g, kern, pf, host_ctx);
  om_gemm_args with = *g;
  with.packed_b = own;
  int rc = om_gemm_run(&with, kern, pf, host_ctx);
  om_gemm_packed_free(own);
  return rc;
}

static int om_gemm_run(const om_gemm_args* g, const om_gemm_kern* kern, om_parallel_for_fn pf, void* host_ctx) {
  om_gemm_plan pl;
  memset(&pl, 0, sizeof pl);
  pl.g = g;
  pl.kern = kern;
  pl.esize = om_gemm_esize(g->type);
  om_gemm_cut(&pl, g);
  om_gemm_ep* ep = &pl.ep;
  ep->type = g->type;
  ep->exact = g->mode == OM_MODE_EXACT;
  ep->scale = g->alpha != 1.0;
  ep->beta_one = g->beta == 1.0;
  ep->alpha_f = (float)g->alpha;
  ep->beta_f = (float)g->beta;
  ep->alpha_d = g->alpha;
  ep->beta_d = g->beta;
  ep->cin = g->Cin;
  ep->rsc = g->rsc_in;
  ep->csc = g->csc_in;
  ep->c = g->C;
  ep->ldc = g->ldc;
  ep->direct = g->type != OM_T_FLOAT16 && g->Cin == NULL;
  ep->cin_vec = g->type != OM_T_FLOAT16 && g->Cin != NULL && g->csc_in == 1;
  size_t tasks = (pl.tasks + pl.group - 1) / pl.group;
  if (pf && tasks > 1) pf(host_ctx, om_gemm_run_task, tasks, &pl);
  else
    for (size_t t = 0; t < tasks; t++) om_gemm_run_task(&pl, t);
  return __atomic_load_n(&pl.failed, __ATOMIC_RELAXED) ? -1 : 0;
}
