/* attention_pattern.h - the attention pattern MatMul -> [Div|Mul by a scalar] -> [Add mask] -> Softmax(last axis)
 * -> MatMul as one node (attention_pattern.c, docs/attention.md "The attention pattern fused"): the members' own
 * om_nodes run on blocks of query rows, the scores of a block kept in a small buffer, so the result is the
 * unfused graph's, bit for bit. Knows nothing of ORT. */
#ifndef OM_NODE_ATTENTION_PATTERN_H
#define OM_NODE_ATTENTION_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"

typedef struct om_attn_pattern om_attn_pattern;

/* The members, owned by the pattern from om_attn_pattern_create on (destroyed by it, also when it fails). */
typedef struct om_attn_members {
  om_node* qk;       /* MatMul(Q, K): the scores */
  om_node* scale;    /* Div or Mul of the scores by a scalar, or NULL */
  int scale_at;      /* the scores' input index of `scale` (0 or 1) */
  om_node* mask;     /* Add of the scores and a mask, or NULL */
  int mask_at;       /* the scores' input index of `mask` */
  om_node* softmax;  /* Softmax along the last axis */
  om_node* pv;       /* MatMul(P, V), P the Softmax's output as its input 0 */
} om_attn_members;

/* The pattern's inputs, in this order (an absent one: data and shape NULL). */
enum { OM_AP_Q, OM_AP_K, OM_AP_SCALE, OM_AP_MASK, OM_AP_V, OM_AP_INPUTS };

om_attn_pattern* om_attn_pattern_create(const om_attn_members* m, char* err, size_t errlen);
void om_attn_pattern_destroy(om_attn_pattern* p);

/* The output shape for the inputs' shapes (each member's shape rules, then the fused form's conditions: ranks of
 * Q, K and V at least 2, the mask and the scalar not widening the scores, V's batch dimensions not widening P's).
 * 0, or -1 with a message. */
int om_attn_pattern_output_shape(const om_attn_pattern* p, const int64_t* const* shapes, const size_t* ranks,
                                 int64_t* out_shape, size_t* out_rank, char* err, size_t errlen);

/* Compute the output (allocated with om_attn_pattern_output_shape's shape): 0, or -1 with a message. */
int om_attn_pattern_run(const om_attn_pattern* p, const void* const* data, const int64_t* const* shapes,
                        const size_t* ranks, void* out, om_parallel_for_fn parallel_for, void* host_ctx, char* err,
                        size_t errlen);

#endif
