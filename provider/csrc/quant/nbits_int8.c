/* nbits_int8.c - MatMulNBits' accuracy_level 4: the weights' int8 panels, A's per-block quantization, and the
 * product's per-path dispatch (nbits_int8.h; docs/quantized.md, "accuracy_level 4: the int8 contract"). */
#include "nbits_int8.h"

#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "isa/target.h"

/* Quantized value j of a packed row (bits 4: two per byte, the even one in the low nibble), as nbits.c reads B. */
static inline uint8_t om_nbi8_q(const uint8_t* row, size_t bits, size_t j) {
  if (bits == 8) return row[j];
  uint8_t b = row[j >> 1];
  return (j & 1) ? (uint8_t)(b >> 4) : (uint8_t)(b & 0x0F);
}

om_nbits_int8* om_nbits_int8_make(const om_nbits_layout* l, size_t N, const uint8_t* B, const float* scales,
                                  const void* zp) {
  if ((l->bits != 4 && l->bits != 8) || l->zp_kind == OM_NBITS_ZP_FLOAT || l->block_size % 8) return NULL;
  om_nbits_int8* w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->l = *l;
  w->N = N;
  w->panels = (N + OM_NBI8_NC - 1) / OM_NBI8_NC;
  w->kpad = l->k_blocks * l->block_size;
  const size_t kb_n = l->k_blocks, per = w->panels * kb_n * OM_NBI8_NC;
  w->q = calloc(w->panels * w->kpad * OM_NBI8_NC * l->bits / 8 + 1, 1);
  w->s = calloc(per + 1, sizeof *w->s);
  w->z = calloc(per + 1, sizeof *w->z);
  if (!w->q || !w->s || !w->z) {
    om_nbits_int8_free(w);
    return NULL;
  }
  const int32_t z_default = 1 << (l->bits - 1);
  const size_t group = l->bits == 8 ? 4 : 8; /* k per 64-byte group */
  for (size_t n = 0; n < N; n++) {
    const size_t pn = n / OM_NBI8_NC, c = n % OM_NBI8_NC;
    uint8_t* qp = w->q + pn * w->kpad * OM_NBI8_NC * l->bits / 8;
    for (size_t kb = 0; kb < kb_n; kb++) {
      const uint8_t* blob = B + (n * kb_n + kb) * l->blob_size;
      const size_t k0 = kb * l->block_size, len = l->K - k0 < l->block_size ? l->K - k0 : l->block_size;
      for (size_t j = 0; j < len; j++) {
        const size_t k = k0 + j, g = k / group, in = k % group;
        uint8_t v = om_nbi8_q(blob, l->bits, j);
        uint8_t* dst = qp + g * 64 + c * 4 + in % 4;
        *dst = (uint8_t)(in >= 4 ? (*dst | (uint8_t)(v << 4)) : (*dst | v)); /* bits 8: in < 4 always */
      }
      const size_t at = (pn * kb_n + kb) * OM_NBI8_NC + c;
      w->s[at] = scales[n * kb_n + kb];
      w->z[at] = l->zp_kind == OM_NBITS_ZP_UINT8 ? om_nbi8_q((const uint8_t*)zp + n * l->zp_bytes, l->bits, kb)
                                                 : z_default;
    }
  }
  return w;
}

void om_nbits_int8_free(om_nbits_int8* w) {
  if (!w) return;
  free(w->q);
  free(w->s);
  free(w->z);
  free(w);
}

int om_nbits_qa_alloc(om_nbits_qa* q, const om_nbits_layout* l, size_t M) {
  q->M = M;
  q->k_blocks = l->k_blocks;
  q->kpad = l->k_blocks * l->block_size;
  q->qa = malloc(M * q->kpad + 64);
  q->sa = malloc(M * q->k_blocks * sizeof *q->sa + 1);
  q->asum = malloc(M * q->k_blocks * sizeof *q->asum + 1);
  if (q->qa && q->sa && q->asum) return 0;
  om_nbits_qa_free(q);
  return -1;
}

void om_nbits_qa_free(om_nbits_qa* q) {
  free(q->qa);
  free(q->sa);
  free(q->asum);
  q->qa = NULL;
  q->sa = NULL;
  q->asum = NULL;
}

/* One block of a row (len valid values, the rest of the block's bs padded with q = 0), the contract's steps:
 * amax = max |a| (compared as the bit patterns of |a|: exact, and a NaN or infinity shows as >= 0x7F800000);
 * non-finite amax: scale NaN, q = 0; else scale = fl32(amax / 127), and for scale = 0 q = 0, else
 * q = clamp(rne(fl32(a / scale)), -127, 127). */
static void om_nbi8_block(const float* a, size_t len, size_t bs, int8_t* q, float* scale, int32_t* sum) {
  uint32_t m = 0;
  for (size_t j = 0; j < len; j++) {
    uint32_t u;
    memcpy(&u, a + j, sizeof u);
    u &= 0x7FFFFFFFu;
    m = u > m ? u : m;
  }
  memset(q, 0, bs);
  *sum = 0;
  if (m >= 0x7F800000u) {
    *scale = __builtin_nanf("");
    return;
  }
  float amax;
  memcpy(&amax, &m, sizeof amax);
  const float s = amax / 127.0f;
  *scale = s;
  if (s == 0.0f) return;
  int32_t t = 0;
  for (size_t j = 0; j < len; j++) {
    float x = a[j] / s;
    float r = (x + 0x1.8p23f) - 0x1.8p23f; /* round half to even: |x| <= 127 * 1.5 < 2^22 */
    r = r > 127.0f ? 127.0f : r < -127.0f ? -127.0f : r;
    q[j] = (int8_t)r;
    t += q[j];
  }
  *sum = t;
}

void om_nbits_quantize_rows(const om_nbits_layout* l, const float* A, size_t r0, size_t r1, om_nbits_qa* q) {
  const size_t K = l->K, bs = l->block_size, kb_n = l->k_blocks;
  for (size_t r = r0; r < r1; r++)
    for (size_t kb = 0; kb < kb_n; kb++) {
      const size_t k0 = kb * bs, len = K - k0 < bs ? K - k0 : bs;
      om_nbi8_block(A + r * K + k0, len, bs, q->qa + r * q->kpad + k0, q->sa + r * kb_n + kb, q->asum + r * kb_n + kb);
    }
}

#define OM_NBI8_DECL(P) \
  void om_nbits_int8_##P(const om_nbits_int8*, size_t, const om_nbits_qa*, const float*, int, float*, size_t);
OM_NBI8_DECL(scalar)
#if OM_ISA_X86
OM_NBI8_DECL(512vnni)
OM_NBI8_DECL(512)
OM_NBI8_DECL(256)
#endif
#if OM_ISA_X86 || OM_ISA_NEON
OM_NBI8_DECL(128)
#endif

om_nbits_int8_fn om_nbits_int8_of(int path, int ext) {
  (void)ext; /* only the x86 512 path has an extension kernel */
  switch (path) {
#if OM_ISA_X86
    case OM_PATH_512: return ext && om_cpu_has_avx512vnni() ? om_nbits_int8_512vnni : om_nbits_int8_512;
    case OM_PATH_256: return om_nbits_int8_256;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
    case OM_PATH_128: return om_nbits_int8_128;
#endif
    default: return om_nbits_int8_scalar;
  }
}
