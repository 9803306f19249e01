/* node_conv.h - what the Conv family's two files share: the node's attributes as create checked them
 * (node_conv_shape.c) and the problem a call's shapes make of them, which node_conv.c runs. */
#ifndef OM_NODE_CONV_H
#define OM_NODE_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "conv/im2col.h"
#include "node_family.h"

#define OM_CONV_MAX_AXES 3 /* spatial axes served: Conv 1-D, 2-D, 3-D */

typedef struct om_conv {
  int64_t group;
  int auto_pad;   /* 0 NOTSET, 1 SAME_UPPER, 2 SAME_LOWER, 3 VALID */
  size_t axes;    /* spatial axes the attributes fix (their lists' lengths), 0 when none is given */
  int has_kernel, has_strides, has_dilations, has_pads;
  int64_t kernel[OM_CONV_MAX_AXES], strides[OM_CONV_MAX_AXES], dilations[OM_CONV_MAX_AXES];
  int64_t pads[2 * OM_CONV_MAX_AXES]; /* begins, then ends */
} om_conv;

/* One call's problem. */
typedef struct om_conv_dims {
  int64_t N, C, M, G;  /* batch, input channels, output channels, groups */
  size_t axes;         /* spatial axes */
  om_conv_geom geom;   /* per group, over three spatial axes (leading ones of size 1) */
  int64_t out_shape[OM_CONV_MAX_AXES + 2];
  size_t out_rank;
} om_conv_dims;

/* create: the attributes checked into node->impl (an om_conv); 0, or -1 with a message naming node, op and
 * problem (a value out of range, lists of different lengths, more than three spatial axes). */
int om_conv_create(om_node* node, const om_attrs* a, char* err, size_t errlen);
/* set_constant: a constant W's shape, checked against the attributes and the group now rather than at the
 * first run (W itself needs no preparing: the GEMM reads it in place). */
int om_conv_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                         size_t errlen);
/* check_ranks: X and W of rank 3 to 5 and equal, agreeing with the attributes' lists. */
int om_conv_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen);
/* The problem of X, W and B (shapes[2] NULL: no bias) with the output shape; 0, or -1 with a message. */
int om_conv_dims_of(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                    om_conv_dims* d, char* err, size_t errlen);

#endif
