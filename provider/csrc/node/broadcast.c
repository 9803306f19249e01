#include "broadcast.h"

#include <stdio.h>

int om_broadcast_shape(size_t n, const int64_t* const* shapes, const size_t* ranks, int64_t* out_shape,
                       size_t* out_rank, char* err, size_t errlen) {
  size_t r = 0;
  for (size_t k = 0; k < n; k++) {
    if (!shapes[k]) continue; /* absent optional operand */
    if (ranks[k] > OM_MAX_RANK) {
      snprintf(err, errlen, "rank %zu of input %zu exceeds the supported maximum of %d", ranks[k], k, OM_MAX_RANK);
      return -1;
    }
    if (ranks[k] > r) r = ranks[k];
  }
  for (size_t d = 0; d < r; d++) {
    int64_t dim = 1;
    for (size_t k = 0; k < n; k++) {
      if (!shapes[k]) continue;
      size_t lead = r - ranks[k];
      if (d < lead) continue;
      int64_t e = shapes[k][d - lead];
      if (e < 0) {
        snprintf(err, errlen, "input %zu has a negative dimension %lld", k, (long long)e);
        return -1;
      }
      if (e == dim || e == 1) continue;
      if (dim == 1) {
        dim = e;
        continue;
      }
      snprintf(err, errlen, "shapes cannot be broadcast: dimension %zu of the output is %lld but input %zu has %lld",
               d, (long long)dim, k, (long long)e);
      return -1;
    }
    out_shape[d] = dim;
  }
  *out_rank = r;
  return 0;
}

void om_plan_make(om_plan* plan, size_t n, const int64_t* const* shapes, const size_t* ranks,
                  const int64_t* out_shape, size_t out_rank) {
  int64_t dims[OM_MAX_RANK];
  int64_t stride[OM_MAX_OPERANDS][OM_MAX_RANK];
  size_t m = 0;
  int64_t full[OM_MAX_OPERANDS];
  for (size_t k = 0; k < n; k++) full[k] = 1;
  /* From the innermost dimension out: keep dimensions of size > 1 with each operand's stride (0 if broadcast). */
  for (size_t i = out_rank; i-- > 0;) {
    int64_t od = out_shape[i];
    int64_t st[OM_MAX_OPERANDS];
    for (size_t k = 0; k < n; k++) {
      size_t lead = out_rank - ranks[k];
      int64_t e = (i < lead) ? 1 : shapes[k][i - lead];
      st[k] = (e == 1) ? 0 : full[k];
      full[k] *= e;
    }
    if (od == 1) continue;
    dims[m] = od;
    for (size_t k = 0; k < n; k++) stride[k][m] = st[k];
    m++;
  }
  /* dims[] is innermost-first here; merge neighbours walked contiguously by every operand. */
  plan->n_operands = n;
  size_t r = 0;
  for (size_t j = 0; j < m; j++) {
    if (r > 0) {
      int mergeable = 1;
      for (size_t k = 0; k < n; k++)
        if (stride[k][j] != plan->stride[k][r - 1] * plan->dims[r - 1]) mergeable = 0; /* merged run */
      if (mergeable) {
        plan->dims[r - 1] *= dims[j];
        continue;
      }
    }
    plan->dims[r] = dims[j];
    for (size_t k = 0; k < n; k++) plan->stride[k][r] = stride[k][j];
    r++;
  }
  if (r == 0) { /* every dimension is 1: a single element */
    plan->dims[0] = 1;
    for (size_t k = 0; k < n; k++) plan->stride[k][0] = 0;
    r = 1;
  }
  /* Store outermost-first. */
  for (size_t a = 0, b = r - 1; a < b; a++, b--) {
    int64_t t = plan->dims[a];
    plan->dims[a] = plan->dims[b];
    plan->dims[b] = t;
    for (size_t k = 0; k < n; k++) {
      t = plan->stride[k][a];
      plan->stride[k][a] = plan->stride[k][b];
      plan->stride[k][b] = t;
    }
  }
  plan->rank = r;
}

void om_plan_walk(const om_plan* plan, size_t start, size_t end, om_run_fn run, void* ctx) {
  const size_t r = plan->rank, n = plan->n_operands;
  int64_t idx[OM_MAX_RANK];
  size_t rem = start;
  for (size_t d = r; d-- > 0;) {
    idx[d] = (int64_t)(rem % (size_t)plan->dims[d]);
    rem /= (size_t)plan->dims[d];
  }
  unsigned bcast = 0;
  for (size_t k = 0; k < n; k++)
    if (plan->stride[k][r - 1] == 0) bcast |= 1u << k;
  size_t pos = start;
  while (pos < end) {
    int64_t off[OM_MAX_OPERANDS];
    for (size_t k = 0; k < n; k++) {
      int64_t o = 0;
      for (size_t d = 0; d < r; d++) o += idx[d] * plan->stride[k][d];
      off[k] = o;
    }
    size_t len = (size_t)(plan->dims[r - 1] - idx[r - 1]);
    if (len > end - pos) len = end - pos;
    run(ctx, off, bcast, pos, len);
    pos += len;
    idx[r - 1] += (int64_t)len;
    for (size_t d = r - 1; d > 0 && idx[d] == plan->dims[d]; d--) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}
