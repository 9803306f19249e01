/* index_input.h - the index tensors of the gather ops (GatherElements, GatherND): elements of an int32 or int64
 * input read as 64-bit integers and checked against the size of the dimension they index, with errors naming
 * node and op. Knows nothing of ORT.
 */
#ifndef OM_NODE_INDEX_INPUT_H
#define OM_NODE_INDEX_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/om_types.h"
#include "node_family.h"

/* Element j of an int32 (type OM_T_INT32) or int64 tensor as a 64-bit integer. */
static inline int64_t om_index_at(int type, const void* data, size_t j) {
  if (type == OM_T_INT32) {
    int32_t v;
    memcpy(&v, (const char*)data + j * sizeof v, sizeof v);
    return v;
  }
  int64_t v;
  memcpy(&v, (const char*)data + j * sizeof v, sizeof v);
  return v;
}

/* 0 when every one of the n elements of input 1 (type `type`) lies in [-size, size - 1], else -1 with "index v
 * (element j of input 1) is out of range for <what> <which> of size <size> (allowed: -size to size - 1)" naming
 * node and op in err, for the first that does not. */
int om_indices_check(const om_node* node, int type, const void* data, size_t n, int64_t size, const char* what,
                     size_t which, char* err, size_t errlen);

/* The same message for element j, of value v, alone: returns -1. */
int om_index_out_of_range(const om_node* node, int64_t v, size_t j, int64_t size, const char* what, size_t which,
                          char* err, size_t errlen);

#endif
