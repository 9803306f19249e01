/* reduce_test.c - om_test_reduce (onemodel.h): the reduction kernels driven directly, for tests and benches. */
#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
#include <string.h>

#include "kernels/kernels.h"
#include "onemodel_test.h"
#include "reduce.h"

/* Units [begin, end) in chunks of `chunk` (0: one call), first to last or last to first. */
typedef int (*om_red_range_fn)(void* ctx, size_t begin, size_t end);
static int om_red_chunked(om_red_range_fn fn, void* ctx, size_t units, size_t chunk, int reverse) {
  if (chunk == 0 || chunk >= units) return fn(ctx, 0, units);
  size_t count = (units + chunk - 1) / chunk;
  for (size_t t = 0; t < count; t++) {
    size_t i = reverse ? count - 1 - t : t;
    size_t e = (i + 1) * chunk < units ? (i + 1) * chunk : units;
    if (fn(ctx, i * chunk, e) != 0) return -1;
  }
  return 0;
}

typedef struct om_red_test_ctx {
  int kind, op, path, type, mode;
  om_reduce_plan plan;
  size_t outer, n, inner;
  double epsilon;
  const void *x, *scale, *bias;
  void *y, *mean, *inv_std;
} om_red_test_ctx;

static int om_red_test_range(void* vctx, size_t b, size_t e) {
  om_red_test_ctx* c = vctx;
  switch (c->kind) {
    case 0: return om_reduce_plan_run(&c->plan, c->path, c->op, c->type, c->mode, b, e, c->x, c->y);
    case 1:
    case 2: return om_softmax(c->path, c->type, c->mode, c->kind == 2, c->outer, c->n, c->inner, b, e, c->x, c->y);
    default:
      return om_layernorm(c->path, c->type, c->mode, 0, c->n, b, e, c->x, c->scale, c->bias, c->epsilon, c->y, c->mean,
                          c->inv_std);
  }
}

int om_test_reduce(const char* op, int path, int type, int mode, size_t rank, const int64_t* dims,
                   const uint8_t* mask, size_t chunk, int reverse, double epsilon, const void* x, const void* scale,
                   const void* bias, void* y, void* mean, void* inv_std) {
  om_red_test_ctx c;
  memset(&c, 0, sizeof c);
  if (!op || path < 0 || path >= OM_PATH_COUNT || !om_path_available_cached(path) || rank > OM_RED_MAX_RANK) return -1;
  c.path = path;
  c.type = type;
  c.mode = mode;
  c.epsilon = epsilon;
  c.x = x;
  c.scale = scale;
  c.bias = bias;
  c.y = y;
  c.mean = mean;
  c.inv_std = inv_std;
  size_t units;
  if ((c.op = om_reduce_op_from_name(op)) >= 0) {
    if (om_reduce_plan_make(rank, dims, mask, &c.plan) != 0) return -1;
    units = c.plan.units;
  } else {
    c.kind = strcmp(op, "Softmax") == 0 ? 1 : strcmp(op, "LogSoftmax") == 0 ? 2
             : strcmp(op, "LayerNormalization") == 0 ? 3 : -1;
    if (c.kind < 0) return -1;
    /* the masked axes: one run [a, b) */
    size_t a = 0, b;
    while (a < rank && !mask[a]) a++;
    b = a;
    while (b < rank && mask[b]) b++;
    for (size_t d = b; d < rank; d++)
      if (mask[d]) return -1;
    if (c.kind == 3 && b != rank) return -1;
    c.outer = c.n = c.inner = 1;
    for (size_t d = 0; d < rank; d++) {
      size_t e = (size_t)dims[d];
      if (d < a) c.outer *= e;
      else if (d < b) c.n *= e;
      else c.inner *= e;
    }
    units = c.kind == 3 ? c.outer : c.outer * c.inner;
  }
  return om_red_chunked(om_red_test_range, &c, units, chunk, reverse);
}

int om_test_rexp(int path, const float* x, float* y, size_t n) {
  if (path < 0 || path >= OM_PATH_COUNT || !om_path_available_cached(path)) return -1;
  if (y != x) memmove(y, x, n * sizeof(float));
  om_red_path_get(path)->rexp_f32(y, n);
  return 0;
}
#endif
