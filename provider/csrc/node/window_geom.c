/* window_geom.c - the windowed pools' attribute checks and geometry (window_geom.h). */
#include "window_geom.h"

#include <stdio.h>

#include "broadcast.h"
#include "core/om_ops.h"

static const char* om_window_op(const om_node* node) { return om_op_row(node->op)->name; }

int om_window_check(const om_node* node, const om_conv* c, int max_log2, char* err, size_t errlen) {
  if (!c->has_kernel) {
    snprintf(err, errlen, "node '%s' (op %s): attribute kernel_shape is required", node->name, om_window_op(node));
    return -1;
  }
  int64_t taps = 1;
  for (size_t i = 0; i < c->axes; i++) {
    taps *= c->kernel[i];
    if (c->has_pads && (c->pads[i] >= c->kernel[i] || c->pads[c->axes + i] >= c->kernel[i])) {
      snprintf(err, errlen, "node '%s' (op %s): pads %lld and %lld of spatial axis %zu must both be smaller than "
               "kernel_shape's %lld", node->name, om_window_op(node), (long long)c->pads[i],
               (long long)c->pads[c->axes + i], i, (long long)c->kernel[i]);
      return -1;
    }
    if ((c->auto_pad == 1 || c->auto_pad == 2) && c->has_dilations && c->dilations[i] != 1) {
      snprintf(err, errlen, "node '%s' (op %s): auto_pad SAME_UPPER or SAME_LOWER with dilation %lld is not served "
               "(stock ONNX Runtime's output shape there is not ONNX's)", node->name, om_window_op(node),
               (long long)c->dilations[i]);
      return -1;
    }
    if (taps > ((int64_t)1 << max_log2)) {
      snprintf(err, errlen, "node '%s' (op %s): kernel_shape holds more than 2^%d taps, which is not served",
               node->name, om_window_op(node), max_log2);
      return -1;
    }
  }
  return 0;
}

int om_window_geom_of(const om_node* node, const om_conv* c, int ceil_mode, const int64_t* x, size_t rank,
                      size_t spatial0, om_wpool_geom* g, int64_t* out, char* err, size_t errlen) {
  size_t lead = 3 - c->axes;
  for (size_t a = 0; a < 3; a++) {
    g->in[a] = g->out[a] = g->kernel[a] = g->stride[a] = g->dilation[a] = 1;
    g->pad_begin[a] = g->pad_end[a] = 0;
  }
  for (size_t i = 0; i < c->axes; i++) {
    om_conv_axis ax;
    if (om_conv_axis_of(node, c, i, x[spatial0 + i], c->kernel[i], ceil_mode, "", "", &ax, err, errlen) != 0) {
      char sx[160], sk[160], what[200]; /* the error: again, with the texts of the message */
      om_shape_text(x, rank, sx, sizeof sx);
      om_shape_text(c->kernel, c->axes, sk, sizeof sk);
      snprintf(what, sizeof what, "kernel_shape %s, dilation %lld", sk,
               (long long)(c->has_dilations ? c->dilations[i] : 1));
      om_conv_axis_of(node, c, i, x[spatial0 + i], c->kernel[i], ceil_mode, what, sx, &ax, err, errlen);
      return -1;
    }
    out[i] = ax.out;
    g->in[lead + i] = (size_t)x[spatial0 + i];
    g->out[lead + i] = (size_t)ax.out;
    g->kernel[lead + i] = (size_t)c->kernel[i];
    g->stride[lead + i] = (size_t)(c->has_strides ? c->strides[i] : 1);
    g->dilation[lead + i] = (size_t)(c->has_dilations ? c->dilations[i] : 1);
    g->pad_begin[lead + i] = (size_t)ax.pad_begin;
    g->pad_end[lead + i] = (size_t)ax.pad_end;
  }
  return 0;
}
