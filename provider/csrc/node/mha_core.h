/* mha_core.h - the attention that com.microsoft MultiHeadAttention (node_mha.c), com.microsoft Attention
 * (node_attention.c) and ONNX's Attention (node_onnx_attention.c) share (docs/attention.md): the key and value
 * rows of each (batch row, kv head) gathered into one cache (past rows, then the new rows with their bias), then
 * each query row's scores against the cached keys it attends, the softcap, the masks, the attention bias, the
 * Softmax and the weighted sum of values, on the kernels of attention/attn.h and reduce/'s Softmax. Knows
 * nothing of the ops' inputs.
 */
#ifndef OM_NODE_MHA_CORE_H
#define OM_NODE_MHA_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "node_family.h"

/* A strided view of a (batch, rows, heads, W) tensor: element (b, t, n, i) at base[b*sb + t*st + n*sn + i];
 * bias NULL, or each element is first RN(x + bias[n*W + i]). */
typedef struct om_mha_view {
  const float* base;
  size_t sb, st, sn;
  const float* bias;
} om_mha_view;

/* The key mask (int32): none; OM_MHA_MASK_END (B): key j of batch row b masked where j >= mask[b];
 * OM_MHA_MASK_END_START (2 B): also where j < mask[B + b]; OM_MHA_MASK_KEYS (B, T): where mask[b*T + j] <= 0;
 * OM_MHA_MASK_ROWS (B, S, T): for query row s where mask[(b*S + s)*T + j] <= 0. */
enum { OM_MHA_MASK_NONE, OM_MHA_MASK_END, OM_MHA_MASK_END_START, OM_MHA_MASK_KEYS, OM_MHA_MASK_ROWS };

typedef struct om_mha_call {
  const om_node* node;
  size_t B, N, S, H, Hv; /* batch, query heads, query rows, query/key and value head sizes */
  size_t KH;             /* key/value heads (0: N); query head n reads kv head n / (N / KH) */
  size_t past, T;        /* cached rows before the new ones; keys T = past + new rows */
  om_mha_view q;         /* (B, S, N, H) */
  om_mha_view k, v;      /* the new rows: (B, T - past, KH, H) and (.., Hv) */
  const float *past_k, *past_v;  /* (B, KH, past, H) and (.., Hv), NULL when past = 0 or when the caller has
                                  * written the past rows into the caches itself (ONNX Attention's f16) */
  float *cache_k, *cache_v;      /* written: (B, KH, T, H) and (.., Hv) (present, or scratch) */
  int mask_kind;
  const int32_t* mask;
  /* NULL, or element (b, n, s, j) at attn_bias[b*bias_sb + n*bias_sn + s*bias_ss + j*bias_sj] */
  const float* attn_bias;
  const unsigned char* keep; /* NULL, or a bool mask at attn_bias' strides: key j excluded where 0 */
  size_t bias_sb, bias_sn, bias_ss, bias_sj;
  int unidirectional;     /* rows s < S - 1: key j > past + s shifted by -FLT_MAX */
  int causal;             /* keys j > s + offset excluded (offset: past, or nonpad[b] - S) */
  const int64_t* nonpad;  /* NULL, or (B): keys j >= nonpad[b] excluded */
  float scale, filter;    /* the score scale a, mask_filter_value f */
  float softcap;          /* 0: none; else c: t = RN(c * tanh(RN(t / c))) before the masks */
  int onnx_rows;          /* ONNX's rules: a row whose scores are all -inf, or with no key, is +0; NaN canonical */
  int out_bnsh;           /* the output is (B, N, S, Hv), not (B, S, N Hv) */
  float* out;             /* NULL: only the caches are written */
} om_mha_call;

/* snprintf "node '<name>' (op <op>): " and the message into the enclosing function's err / errlen (node in
 * scope), then return -1 from it. */
#define OM_MHA_FAIL_AS(op, ...)                                                               \
  do {                                                                                        \
    int n_ = snprintf(err, errlen, "node '%s' (op %s): ", node->name, op);                    \
    if (n_ >= 0 && (size_t)n_ < errlen) snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
    return -1;                                                                                \
  } while (0)

/* At creation: each given input k (node->input_types[k] != 0) must be below `served` and f32, int32 for
 * input mask_k; present[k] (served entries) is whether input k is given. 0, or -1 naming input and type. */
int om_mha_input_types(const om_node* node, const char* op, const char* const* names, size_t served, size_t mask_k,
                       int* present, char* err, size_t errlen);

/* The attributes both ops share: num_heads (required, 1 to 65536), unidirectional (0 or 1), scale (0: the
 * default), mask_filter_value (default -10000). 0, or -1 with a message naming node, op and attribute. */
typedef struct om_mha_attrs {
  size_t N;
  int unidirectional;
  float scale, filter;
} om_mha_attrs;
int om_mha_attrs_read(const om_node* node, const om_attrs* a, const char* op, om_mha_attrs* out, char* err,
                      size_t errlen);

/* Into c (B, N, S, H, T set): the attributes' unidirectional, filter and scale, the key mask from input mask_k
 * (int32 (B): OM_MHA_MASK_END; (B, T): OM_MHA_MASK_KEYS; with all_forms also (2 B) and (B, S, T)) and the
 * attention bias from input bias_k ((B or 1, N or 1, S, T)), either absent where io has no shape for it. 0, or
 * -1 with a message naming node, op and input in io->err. */
int om_mha_masks(om_mha_call* c, const om_mha_attrs* a, const om_node_io* io, size_t mask_k, size_t bias_k,
                 int all_forms, const char* op);

/* The scale of the scores: `scale` when non-zero, else RN(1 / RN(sqrt(H))). */
float om_mha_scale(float scale, size_t H);

/* The softcap of n scores in place (docs/attention.md): t = RN(c * tanh(RN(t / c))), tanh the path's exact-mode
 * f32 Tanh (correctly rounded). Shared with GroupQueryAttention (node_gqa.c). */
void om_attn_softcap(const om_node* node, float c, float* t, size_t n);

/* Fill the caches, then the output: 0, or -1 when out of memory. */
int om_mha_compute(const om_mha_call* c, om_parallel_for_fn parallel_for, void* host_ctx);

/* The output shapes of call c into io: output 0 (B, S, N Hv), or (B, N, S, Hv) when out_bnsh; the present key
 * and value (outputs 1 and 2, those the node has) (B, KH, T, H) and (B, KH, T, Hv). Shared by
 * MultiHeadAttention (node_mha.c) and ONNX Attention (node_onnx_attention.c). */
void om_mha_output_shapes(const om_mha_call* c, const om_node_io* io);

/* Run call c into io's outputs (om_mha_compute): the caches are the present key and value outputs where the node
 * has them, else scratch freed after. 0, or -1 when out of memory. */
int om_mha_run_outputs(om_mha_call* c, const om_node_io* io);

#endif
