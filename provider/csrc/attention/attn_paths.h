/* attn_paths.h - the per-path instantiations of attn_body.inc that attn.c chooses from (x86-64: attn_256.c,
 * attn_512.c; the baseline one, attn.c's own, serves the 128 and scalar paths). Arguments as attn.h's, less the
 * path. */
#ifndef OM_ATTENTION_ATTN_PATHS_H
#define OM_ATTENTION_ATTN_PATHS_H

#include <stddef.h>

#include "isa/target.h"

#define OM_ATTN_DECLARE(SUF)                                                                                  \
  void om_attn_scores_##SUF(const float* q, size_t G, const float* k, size_t n, size_t H, float* d, size_t ds); \
  void om_attn_values_##SUF(const float* w, size_t ws, size_t G, const float* v, size_t n, size_t H, float* o); \
  void om_attn_values_more_##SUF(const float* w, size_t ws, size_t G, const float* v, size_t j0, size_t n,      \
                                 size_t H, float* o);

OM_ATTN_DECLARE(base)
#if OM_ISA_X86
OM_ATTN_DECLARE(256)
OM_ATTN_DECLARE(512)
#endif

#endif
