/* index_input.c - the checked index reads of the gather ops (index_input.h). */
#include "index_input.h"

#include <stdio.h>

#include "core/om_ops.h"

int om_index_out_of_range(const om_node* node, int64_t v, size_t j, int64_t size, const char* what, size_t which,
                          char* err, size_t errlen) {
  snprintf(err, errlen, "node '%s' (op %s): index %lld (element %zu of input 1) is out of range for %s %zu of size "
           "%lld (allowed: %lld to %lld)", node->name, om_op_row(node->op)->name, (long long)v, j, what, which,
           (long long)size, -(long long)size, (long long)size - 1);
  return -1;
}

/* The first of n elements of type IT outside [-size, size - 1], or n. */
#define OM_FIRST_OUT(IT)                                 \
  do {                                                   \
    const IT* p = data;                                  \
    for (j = 0; j < n; j++)                              \
      if ((int64_t)p[j] < -size || (int64_t)p[j] >= size) break; \
  } while (0)

int om_indices_check(const om_node* node, int type, const void* data, size_t n, int64_t size, const char* what,
                     size_t which, char* err, size_t errlen) {
  size_t j;
  if (type == OM_T_INT32) OM_FIRST_OUT(int32_t);
  else OM_FIRST_OUT(int64_t);
  if (j == n) return 0;
  return om_index_out_of_range(node, om_index_at(type, data, j), j, size, what, which, err, errlen);
}
