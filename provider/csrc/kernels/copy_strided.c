/* copy_strided.c - the strided element copy of copy_strided.h. */
#include "copy_strided.h"

#include <string.h>

void om_copy_plan_make(om_copy_plan* plan, size_t esz, size_t rank, const int64_t* dims, const int64_t* stride) {
  size_t r = 0;
  plan->esz = esz;
  for (size_t d = 0; d < rank; d++) {
    if (dims[d] == 0) { /* nothing to copy */
      plan->rank = 1;
      plan->dims[0] = 0;
      plan->stride[0] = 0;
      return;
    }
    if (dims[d] == 1) continue;
    if (r && plan->stride[r - 1] == stride[d] * dims[d]) { /* the outer one steps over the inner one whole */
      plan->dims[r - 1] *= dims[d];
      plan->stride[r - 1] = stride[d];
      continue;
    }
    plan->dims[r] = dims[d];
    plan->stride[r++] = stride[d];
  }
  if (!r) { /* every dimension 1 (or rank 0): one element */
    plan->dims[0] = 1;
    plan->stride[0] = 1;
    r = 1;
  }
  plan->rank = r;
}

/* n elements of esz bytes, stride s (elements) in the source, contiguous in the destination. */
#define OM_COPY_RUN(W) \
  for (size_t k = 0; k < n; k++) memcpy(dst + k * (W), src + (int64_t)k * s * (W), (W))

static void om_copy_line(char* dst, const char* src, size_t esz, size_t n, int64_t s) {
  if (s == 1) {
    memcpy(dst, src, n * esz);
    return;
  }
  switch (esz) {
    case 1: OM_COPY_RUN(1); break;
    case 2: OM_COPY_RUN(2); break;
    case 4: OM_COPY_RUN(4); break;
    default: OM_COPY_RUN(8); break;
  }
}

void om_copy_run(const om_copy_plan* plan, void* dst, const void* src, size_t begin, size_t end) {
  if (begin >= end) return;
  const size_t r = plan->rank, esz = plan->esz;
  const int64_t inner = plan->dims[r - 1];
  int64_t idx[OM_COPY_MAX_RANK];
  int64_t off = 0;
  size_t rest = begin;
  for (size_t d = r; d-- > 0;) { /* the multi-index of begin */
    idx[d] = (int64_t)(rest % (size_t)plan->dims[d]);
    rest /= (size_t)plan->dims[d];
    off += idx[d] * plan->stride[d];
  }
  char* out = (char*)dst + begin * esz;
  const char* in = src;
  size_t pos = begin;
  while (pos < end) {
    size_t n = (size_t)(inner - idx[r - 1]);
    if (n > end - pos) n = end - pos;
    om_copy_line(out, in + off * (int64_t)esz, esz, n, plan->stride[r - 1]);
    out += n * esz;
    pos += n;
    off += (int64_t)n * plan->stride[r - 1];
    idx[r - 1] += (int64_t)n;
    for (size_t d = r - 1; idx[d] == plan->dims[d] && d > 0; d--) { /* carry into the outer dimensions */
      off -= plan->dims[d] * plan->stride[d];
      idx[d] = 0;
      off += plan->stride[d - 1];
      idx[d - 1]++;
    }
  }
}
