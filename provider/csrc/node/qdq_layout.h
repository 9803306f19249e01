/* qdq_layout.h - which scale and zero point each element of a QuantizeLinear / DequantizeLinear input uses
 * (docs/quantized.md: per tensor, per axis, blocked), as runs of consecutive elements for quant/qdq.h's
 * kernels. Knows nothing of ORT. */
#ifndef OM_NODE_QDQ_LAYOUT_H
#define OM_NODE_QDQ_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "node_family.h"

enum { OM_QDQ_TENSOR, OM_QDQ_AXIS, OM_QDQ_BLOCKED };

typedef struct om_qdq_layout {
  int kind;                 /* OM_QDQ_* */
  size_t n;                 /* elements of x */
  size_t outer, d, inner;   /* x as [outer, d, inner] around the axis */
  size_t block;             /* OM_QDQ_BLOCKED: elements of the axis per scale */
  size_t n_params;          /* elements of the scale (and of the zero point) */
} om_qdq_layout;

/* The attributes the layout depends on: axis (1 unless given) and block_size (0 unless given). */
typedef struct om_qdq_attrs {
  int64_t axis;
  int64_t block_size;
} om_qdq_attrs;

/* Read axis and block_size from a for node (checking block_size >= 0); 0, or -1 with a message naming node and
 * op. */
int om_qdq_attrs_read(const om_node* node, const om_attrs* a, om_qdq_attrs* q, char* err, size_t errlen);

/* The layout of x (input 0) against the scale (input 1) and the zero point (input 2, when io has it and it is
 * present: `has_zp`); 0, or -1 with a message in io->err naming node, op, input and shape. */
int om_qdq_layout_of(const om_node* node, const om_qdq_attrs* q, const om_node_io* io, int has_zp,
                     om_qdq_layout* l);

/* The run of elements from flat index i (i < l->n), at most `limit` long, that the kernels take in one call: its
 * length; *param the index (into the scale and zero point) of its first element's parameters, *ps 0 when the
 * run shares them, 1 when each element takes the next. */
size_t om_qdq_run(const om_qdq_layout* l, size_t i, size_t limit, size_t* param, size_t* ps);

/* The zero point of n elements of integer type t (OM_T_UINT8 ... OM_T_INT32, OM_T_UINT4 and OM_T_INT4 packed two
 * a byte) widened to int32 into out. */
void om_qdq_widen(const void* zp, int t, size_t n, int32_t* out);

#endif
