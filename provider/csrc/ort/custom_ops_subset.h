/* custom_ops_subset.h - a custom-op domain holding only the ops a session lists (custom_ops_subset.c). */
#ifndef OM_CUSTOM_OPS_SUBSET_H
#define OM_CUSTOM_OPS_SUBSET_H

#include <stddef.h>

#include "ort_api.h"

/* The session config entry naming the ops to register: their keys (om_ops.def), comma-separated. */
#define OM_CUSTOM_OPS_KEY "onemodel.custom_ops"
/* Distinct lists kept, each with its domain, for the process's life; beyond, the full domain is used. Nothing
 * can be freed: ORT keeps a raw pointer to a domain in every OrtSessionOptions it was added to (and reads it for
 * each session made from them) and tells a custom-op library neither when a session nor when its options are
 * released, so no reference count could ever drop. The bound caps what a process that makes ever new lists
 * holds: a domain is ORT's name string and one pointer per entry, so 1024 of them hold at most ~6 MB (every op
 * listed in each) and ~0.3 MB for lists of a few ops; finding a list compares at most 1024 keys of one bit an
 * op row (20 bytes). */
#define OM_SUBSET_CACHE_MAX 1024

/* Entry j of the full registration: its OrtCustomOp and its op row (*op). */
typedef const OrtCustomOp* (*om_custom_op_entry)(size_t j, int* op);

/* The domain `name` holding the entries 0..n-1 whose op row's key is in `so`'s OM_CUSTOM_OPS_KEY list (every
 * entry of a listed op, in their order; names not in the op table are ignored). *out is NULL when the entry
 * is absent or the cache is full: the caller then registers the full domain. Thread-safe. */
OrtStatus* om_custom_ops_subset(const OrtApi* api, const OrtSessionOptions* so, const char* name, size_t n,
                                om_custom_op_entry entry, OrtCustomOpDomain** out);

#endif
