/* om_exec.h - how a computation runs, below every layer that computes: the mode (exact or fast) and the host's
 * parallel-for. onemodel.h (the public API) includes it, and Python reads it with onemodel.h as its cffi
 * declarations (provider/build_ffi.py: preprocessor lines and comments stripped), so it holds plain C only. */
#ifndef OM_EXEC_H
#define OM_EXEC_H

#include <stddef.h>

enum { OM_MODE_EXACT = 0, OM_MODE_FAST = 1 };

/* A parallel-for provided by the host: calls fn(fn_ctx, i) for i in [0, total), in any order and on any
 * thread. NULL runs everything on the calling thread. */
typedef void (*om_parallel_for_fn)(void* host_ctx, void (*fn)(void*, size_t), size_t total, void* fn_ctx);

#endif
