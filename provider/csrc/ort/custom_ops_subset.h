/* custom_ops_subset.h - a custom-op domain holding only the ops a session lists (custom_ops_subset.c). */
#ifndef OM_CUSTOM_OPS_SUBSET_H
#define OM_CUSTOM_OPS_SUBSET_H

#include <stddef.h>

#include "ort_api.h"

/* The session config entry naming the ops to register: their keys (om_ops.def), comma-separated. */
#define OM_CUSTOM_OPS_KEY "onemodel.custom_ops"
/* Distinct lists kept, each with its domain, for the process's life; beyond, the full domain is used. */
#define OM_SUBSET_CACHE_MAX 64

/* Entry j of the full registration: its OrtCustomOp and its op row (*op). */
typedef const OrtCustomOp* (*om_custom_op_entry)(size_t j, int* op);

/* The domain `name` holding the entries 0..n-1 whose op row's key is in `so`'s OM_CUSTOM_OPS_KEY list (every
 * entry of a listed op, in their order; names not in the op table are ignored). *out is NULL when the entry
 * is absent or the cache is full: the caller then registers the full domain. Thread-safe. */
OrtStatus* om_custom_ops_subset(const OrtApi* api, const OrtSessionOptions* so, const char* name, size_t n,
                                om_custom_op_entry entry, OrtCustomOpDomain** out);

#endif
