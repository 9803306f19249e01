/* node_conv.h - what the Conv family's two files share: the node's attributes as create checked them
 * (node_conv_shape.c) and the problem a call's shapes make of them, which node_conv.c runs. The windowed pools
 * (node_window_pool.c) read their kernel_shape, strides, dilations, pads and auto_pad with the same create and
 * om_conv_axis_of. */
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
  int w_const;                        /* Conv: W is a constant (set_constant saw it) */
  /* Conv, group 1, constant W: W^T [T, M] packed as the GEMM's B by the first run that takes the transposed
   * product (node_conv.c), published once with an atomic compare-and-swap; freed by om_conv_destroy. */
  struct om_gemm_packed* packed_wt;
  /* Conv, constant W, depthwise by channels (conv/dwconv.h): the filters interleaved for the node's path by
   * the first run, published the same way; freed by om_conv_destroy. */
  void* dw_weights;
  /* Conv f32, constant W, the direct path (conv/convdirect.h): the filters packed for the node's path by the
   * first run, published the same way; freed by om_conv_destroy. */
  float* direct_w;
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
 * first run; W itself is read in place (the GEMM's A), or packed transposed by the first run over a small
 * output plane. */
int om_conv_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                         size_t errlen);
/* One list attribute `name` (n values, `per` per spatial axis) into dst: its length agrees with the lists read
 * before (c->axes, which it sets), its values are >= lo; 0, or -1 with a message naming node, op and list. */
int om_conv_list(const om_node* node, om_conv* c, const char* name, const int64_t* v, size_t n, size_t per,
                 int64_t lo, int64_t* dst, char* err, size_t errlen);
/* destroy: the packed W^T, the interleaved filters, then the state. */
void om_conv_destroy(om_node* node);
/* check_ranks: X and W of rank 3 to 5 and equal, agreeing with the attributes' lists. */
int om_conv_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen);
/* One spatial axis i of the attributes c (Conv's, or a windowed pool's: node_window_pool.c) over an input of D
 * elements with a kernel of K: the output size and the pads (auto_pad resolved; ONNX's rules), ceil_mode 1
 * rounding the window count up as the pools' attribute does (a last window that would start in the end
 * padding dropped). 0, or -1 with a message naming node, op, axis and the numbers (kernel_text: what gives the
 * kernel, "W [..], dilation d"; x_text: X's shape) when the kernel spans more than the padded input. */
typedef struct om_conv_axis {
  int64_t out, pad_begin, pad_end;
} om_conv_axis;
int om_conv_axis_of(const om_node* node, const om_conv* c, size_t i, int64_t D, int64_t K, int ceil_mode,
                    const char* kernel_text, const char* x_text, om_conv_axis* ax, char* err, size_t errlen);
/* The problem of X, W and B (shapes[2] NULL: no bias) with the output shape; 0, or -1 with a message. */
int om_conv_dims_of(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                    om_conv_dims* d, char* err, size_t errlen);

#endif
