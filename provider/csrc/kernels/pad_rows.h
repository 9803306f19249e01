/* pad_rows.h - the rows of a padded tensor (Pad, docs/shape-ops.md): each output row (the last axis) is either
 * the constant throughout, or, from one input row, the elements a source-index map names, the constant where it
 * names none. Whole elements of 1, 2, 4 or 8 bytes are copied as they are (NaN payloads included); nothing is
 * computed. Knows nothing of nodes or ORT.
 */
#ifndef OM_PAD_ROWS_H
#define OM_PAD_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* The last axis of a padded tensor: output element o of a row is input element map[o] of its input row, or the
 * constant when map[o] < 0. Output elements [mid_begin, mid_begin + mid_len) are input elements mid_src,
 * mid_src + 1, ... (the kept run, copied as one block). */
typedef struct om_pad_row_plan {
  size_t esz;            /* bytes per element: 1, 2, 4 or 8 */
  size_t width;          /* output elements per row */
  const int64_t* map;    /* width entries */
  size_t mid_begin, mid_len;
  int64_t mid_src;
  unsigned char value[8]; /* the constant's bits (esz bytes) */
} om_pad_row_plan;

/* `count` elements of the constant at dst. */
void om_pad_fill(const om_pad_row_plan* plan, void* dst, size_t count);

/* One output row at dst: from the input row src, or the constant throughout when src is NULL. */
void om_pad_row(const om_pad_row_plan* plan, void* dst, const void* src);

#endif
