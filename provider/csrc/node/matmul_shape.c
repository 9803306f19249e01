/* matmul_shape.c - ONNX MatMul's shapes and batch broadcasting (matmul_shape.h). */
#include "matmul_shape.h"

#include <stdio.h>
#include <string.h>

void om_shape_str(const int64_t* s, size_t r, char* buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (size_t d = 0; d < r && used < len; d++)
    used += (size_t)snprintf(buf + used, len - used, "%s%lld", d ? ", " : "", (long long)s[d]);
  if (used < len) snprintf(buf + used, len - used, "]");
}

int om_matmul_dims(const char* node, const char* opn, const int64_t* const* shapes, const size_t* ranks,
                   om_mm_dims* d, char* err, size_t errlen) {
  char sa[160], sb[160]; /* the operands' shapes, formatted only for a message (this runs on every call) */
  memset(d, 0, sizeof *d);
  if (ranks[0] == 0 || ranks[1] == 0) {
    om_shape_str(shapes[0], ranks[0], sa, sizeof sa);
    om_shape_str(shapes[1], ranks[1], sb, sizeof sb);
    snprintf(err, errlen, "node '%s' (op %s): operands must have rank 1 or more, got A %s and B %s", node, opn,
             sa, sb);
    return -1;
  }
  d->a_vec = ranks[0] == 1;
  d->b_vec = ranks[1] == 1;
  d->M = d->a_vec ? 1 : shapes[0][ranks[0] - 2];
  d->K = shapes[0][ranks[0] - 1];
  int64_t kb = d->b_vec ? shapes[1][0] : shapes[1][ranks[1] - 2];
  d->N = d->b_vec ? 1 : shapes[1][ranks[1] - 1];
  if (kb != d->K) {
    om_shape_str(shapes[0], ranks[0], sa, sizeof sa);
    om_shape_str(shapes[1], ranks[1], sb, sizeof sb);
    snprintf(err, errlen, "node '%s' (op %s): inner dimensions do not match: A %s has K = %lld, B %s has K = %lld",
             node, opn, sa, (long long)d->K, sb, (long long)kb);
    return -1;
  }
  size_t bra = d->a_vec ? 0 : ranks[0] - 2, brb = d->b_vec ? 0 : ranks[1] - 2;
  const int64_t* bs[2] = {shapes[0], shapes[1]};
  size_t br[2] = {bra, brb};
  char why[256];
  if (om_broadcast_shape(2, bs, br, d->batch, &d->batch_rank, why, sizeof why) != 0) {
    om_shape_str(shapes[0], ranks[0], sa, sizeof sa);
    om_shape_str(shapes[1], ranks[1], sb, sizeof sb);
    snprintf(err, errlen, "node '%s' (op %s): batch dimensions of A %s and B %s do not broadcast: %s", node, opn,
             sa, sb, why);
    return -1;
  }
  return 0;
}

void om_matmul_out_shape(const om_mm_dims* d, int64_t* out, size_t* rank) {
  size_t r = 0;
  for (size_t k = 0; k < d->batch_rank; k++) out[r++] = d->batch[k];
  if (!d->a_vec) out[r++] = d->M;
  if (!d->b_vec) out[r++] = d->N;
  *rank = r;
}

void om_matmul_batch_strides(const om_mm_dims* d, const int64_t* const* shapes, const size_t* ranks,
                             int64_t* a_bstride, int64_t* b_bstride) {
  size_t bra = d->a_vec ? 0 : ranks[0] - 2, brb = d->b_vec ? 0 : ranks[1] - 2;
  int64_t sa = d->a_vec ? d->K : d->M * d->K, sb = d->b_vec ? d->K : d->K * d->N;
  for (size_t q = 0; q < d->batch_rank; q++) { /* from the innermost batch dim outwards */
    size_t dim = d->batch_rank - 1 - q;
    a_bstride[dim] = b_bstride[dim] = 0;
    if (q < bra) {
      int64_t e = shapes[0][bra - 1 - q];
      if (e != 1) a_bstride[dim] = sa;
      sa *= e;
    }
    if (q < brb) {
      int64_t e = shapes[1][brb - 1 - q];
      if (e != 1) b_bstride[dim] = sb;
      sb *= e;
    }
  }
}

void om_matmul_batch_offsets(const om_mm_dims* d, const int64_t* a_bstride, const int64_t* b_bstride, size_t b,
                             int64_t* a_off, int64_t* b_off) {
  int64_t ao = 0, bo = 0;
  for (size_t q = d->batch_rank; q-- > 0;) {
    int64_t i = (int64_t)(b % (size_t)d->batch[q]);
    b /= (size_t)d->batch[q];
    ao += i * a_bstride[q];
    bo += i * b_bstride[q];
  }
  *a_off = ao;
  *b_off = bo;
}
