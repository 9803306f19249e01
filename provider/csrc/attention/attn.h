/* attn.h - the attention kernels of com.microsoft GroupQueryAttention (docs/attention.md): the scores of a
 * group of query heads against a run of keys, the weighted sum of values, and rotary. Each is a fixed sequence of
 * f32 multiplies and adds (no fused multiply-add), so every kernel path gives the same bits; the paths differ only
 * in vector width. Knows nothing of nodes or ORT.
 */
#ifndef OM_ATTENTION_ATTN_H
#define OM_ATTENTION_ATTN_H

#include <stddef.h>

/* d[h * ds + j] = sum16 over i < H of RN(q[h * H + i] * k[j * H + i]), for heads h < G and keys j < n
 * (step 1 of docs/attention.md: 16 partial sums from -0.0, element i into partial i mod 16, then the tree). */
void om_attn_scores(int path, const float* q, size_t G, const float* k, size_t n, size_t H, float* d, size_t ds);

/* o[h * H + i] = sequential sum over j < n of RN(w[h * ws + j] * v[j * H + i]), from -0.0, for heads h < G
 * (step 5 of docs/attention.md). */
void om_attn_values(int path, const float* w, size_t ws, size_t G, const float* v, size_t n, size_t H, float* o);

/* om_attn_values continued: keys j0 .. n-1 added into o (each element's sum goes on in key order: the bits are
 * those of one om_attn_values call over keys 0 .. n-1 whose first j0 keys o already holds). */
void om_attn_values_more(int path, const float* w, size_t ws, size_t G, const float* v, size_t j0, size_t n, size_t H,
                         float* o);

/* Rotary of one head x[H] into y[H] (y may be x) at one position: c and z the position's R/2 cos and sin values
 * (docs/attention.md, "Rotary"); elements R .. H-1 copied. */
void om_attn_rotary(const float* x, float* y, size_t H, size_t R, int interleaved, const float* c, const float* z);

/* x[0 .. n-1]: every NaN made the canonical NaN 0x7fc00000 (exact mode's rule for a NaN result). */
void om_attn_canon(float* x, size_t n);

#endif
