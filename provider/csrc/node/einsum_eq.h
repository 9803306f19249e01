/* einsum_eq.h - Einsum's equation (docs/einsum.md): read once at node creation into terms of letters and an
 * ellipsis, then, per call, the labels those terms give the inputs' axes and the size of each label. Knows
 * nothing of ORT or of the arithmetic (node_einsum.c).
 */
#ifndef OM_NODE_EINSUM_EQ_H
#define OM_NODE_EINSUM_EQ_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"

#define OM_EIN_MAX_OPERANDS 32 /* more inputs: the node is left to stock ONNX Runtime */
#define OM_EIN_LETTERS 52      /* label ids 0 .. 25: 'A' .. 'Z', 26 .. 51: 'a' .. 'z' (alphabetical = id order) */
#define OM_EIN_MAX_LABELS (OM_EIN_LETTERS + OM_NODE_MAX_RANK) /* then the ellipsis dims, 52 .. 52 + E - 1 */
#define OM_EIN_ELL (-1)        /* the ellipsis' place in a term */

/* One side of the equation's "->", or one comma-separated input term. */
typedef struct om_ein_term {
  size_t n;                                /* symbols */
  signed char sym[OM_NODE_MAX_RANK + 1];   /* letter ids, OM_EIN_ELL at most once */
  int has_ell;
  size_t n_letters;
} om_ein_term;

typedef struct om_ein_eq {
  size_t n_ops;
  om_ein_term in[OM_EIN_MAX_OPERANDS];
  int explicit_out; /* "->" present */
  om_ein_term out;  /* explicit output only */
} om_ein_eq;

/* Parse `text` (spaces ignored) for a node of n_inputs inputs: 0, or -1 with a message (no node prefix). */
int om_ein_parse(const char* text, size_t n_inputs, om_ein_eq* eq, char* msg, size_t len);

/* 0 when input k of this rank (OM_NODE_MAX_RANK + 1 or more: unknown, not checked) fits its term, else -1 with a
 * message (no node prefix). */
int om_ein_rank_fits(const om_ein_eq* eq, size_t k, size_t rank, char* msg, size_t len);

/* One call's labels. */
typedef struct om_ein_dims {
  size_t E;                               /* ellipsis dims after broadcasting */
  int64_t size[OM_EIN_MAX_LABELS];        /* each used label's size; -1: unused */
  int order[OM_EIN_MAX_LABELS];           /* each used label's equation order (first appearance), from 0 */
  int last_use[OM_EIN_MAX_LABELS];        /* the last input using it */
  int out_pos[OM_EIN_MAX_LABELS];         /* its axis in the output, -1: not there */
  size_t out_n;
  int out_label[OM_NODE_MAX_RANK];        /* the output's axes */
  int64_t out_shape[OM_NODE_MAX_RANK];
  int axis_label[OM_EIN_MAX_OPERANDS][OM_NODE_MAX_RANK]; /* each input axis' label */
} om_ein_dims;

/* The labels of a call with these input shapes: 0, or -1 with a message (no node prefix) for a rank that does
 * not fit its term, a letter of two sizes, or ellipsis dims that do not broadcast. */
int om_ein_dims_of(const om_ein_eq* eq, const int64_t* const* shapes, const size_t* ranks, om_ein_dims* d,
                   char* msg, size_t len);

#endif
