/* node_conv_shape.c - Conv's attributes and shapes: the checks of create, the padding auto_pad resolves
 * (ONNX's rules) and the output shape O_i = floor((D_i + p_i + q_i - d_i*(K_i-1) - 1) / s_i) + 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "gemm/gemm.h"
#include "node_conv.h"

static const char* const om_conv_pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};

static const char* om_conv_op(const om_node* node) { return om_op_row(node->op)->name; }

/* One list attribute: its length agrees with the others' (c->axes), its values >= lo. */
int om_conv_list(const om_node* node, om_conv* c, const char* name, const int64_t* v, size_t n, size_t per,
                        int64_t lo, int64_t* dst, char* err, size_t errlen) {
  if (n % per != 0 || n / per < 1 || n / per > OM_CONV_MAX_AXES) {
    snprintf(err, errlen, "node '%s' (op %s): attribute %s has %zu entries; %s over 1 to %d spatial axes takes "
             "%s", node->name, om_conv_op(node), name, n, om_conv_op(node), OM_CONV_MAX_AXES,
             per == 2 ? "2 per axis (begins, then ends)" : "1 per axis");
    return -1;
  }
  if (c->axes && c->axes != n / per) {
    snprintf(err, errlen, "node '%s' (op %s): attribute %s has %zu entries for %zu spatial axes, which the other "
             "attributes give", node->name, om_conv_op(node), name, n, c->axes);
    return -1;
  }
  c->axes = n / per;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < lo) {
      snprintf(err, errlen, "node '%s' (op %s): attribute %s must be %s, got %lld at entry %zu", node->name,
               om_conv_op(node), name, lo == 0 ? ">= 0" : ">= 1", (long long)v[i], i);
      return -1;
    }
    if (v[i] > ((int64_t)1 << 40)) {
      snprintf(err, errlen, "node '%s' (op %s): attribute %s entry %zu is %lld, too large", node->name,
               om_conv_op(node), name, i, (long long)v[i]);
      return -1;
    }
    dst[i] = v[i];
  }
  return 0;
}

int om_conv_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_conv* c = node->impl;
  c->group = a->has_group ? a->group : 1;
  if (c->group < 1) {
    snprintf(err, errlen, "node '%s' (op %s): attribute group must be >= 1, got %lld", node->name,
             om_conv_op(node), (long long)c->group);
    return -1;
  }
  c->auto_pad = a->auto_pad;
  if (c->auto_pad < 0 || c->auto_pad > 3) {
    snprintf(err, errlen, "node '%s' (op %s): attribute auto_pad out of range (%d)", node->name, om_conv_op(node),
             c->auto_pad);
    return -1;
  }
  if ((c->has_kernel = a->has_kernel_shape) &&
      om_conv_list(node, c, "kernel_shape", a->kernel_shape, a->n_kernel_shape, 1, 1, c->kernel, err, errlen) != 0)
    return -1;
  if ((c->has_strides = a->has_strides) &&
      om_conv_list(node, c, "strides", a->strides, a->n_strides, 1, 1, c->strides, err, errlen) != 0)
    return -1;
  if ((c->has_dilations = a->has_dilations) &&
      om_conv_list(node, c, "dilations", a->dilations, a->n_dilations, 1, 1, c->dilations, err, errlen) != 0)
    return -1;
  /* auto_pad other than NOTSET decides the pads itself (ONNX: pads is not to be given with it; ORT ignores it) */
  if ((c->has_pads = a->has_pads && c->auto_pad == 0) &&
      om_conv_list(node, c, "pads", a->pads, a->n_pads, 2, 0, c->pads, err, errlen) != 0)
    return -1;
  return 0;
}

/* W's shape against the attributes and the group: 0, or -1 with a message (dimensions < 0: not known yet). */
static int om_conv_check_w(const om_node* node, const om_conv* c, const int64_t* w, size_t rank, char* err,
                           size_t errlen) {
  char sw[160]; /* W's shape, formatted only for a message */
  const char* op = om_conv_op(node);
  if (rank < 3 || rank > OM_CONV_MAX_AXES + 2 || (c->axes && rank != c->axes + 2)) {
    om_shape_text(w, rank, sw, sizeof sw);
    snprintf(err, errlen, "node '%s' (op %s): W %s must have rank %s (M, C/group, kernel...)", node->name, op, sw,
             c->axes ? (c->axes == 1 ? "3" : c->axes == 2 ? "4" : "5") : "3 to 5");
    return -1;
  }
  for (size_t i = 0; i < rank; i++)
    if (w[i] < 0) return 0; /* a dimension not known yet */
  if (w[0] % c->group != 0) {
    om_shape_text(w, rank, sw, sizeof sw);
    snprintf(err, errlen, "node '%s' (op %s): W %s has %lld output channels, not divisible by group %lld",
             node->name, op, sw, (long long)w[0], (long long)c->group);
    return -1;
  }
  for (size_t i = 0; c->has_kernel && i + 2 < rank; i++)
    if (w[i + 2] != c->kernel[i]) {
      char sk[160];
      om_shape_text(c->kernel, c->axes, sk, sizeof sk);
      om_shape_text(w, rank, sw, sizeof sw);
      snprintf(err, errlen, "node '%s' (op %s): attribute kernel_shape %s does not match W %s", node->name, op, sk,
               sw);
      return -1;
    }
  for (size_t i = 2; i < rank; i++)
    if (w[i] < 1) {
      om_shape_text(w, rank, sw, sizeof sw);
      snprintf(err, errlen, "node '%s' (op %s): W %s has an empty kernel", node->name, op, sw);
      return -1;
    }
  return 0;
}

int om_conv_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank, char* err,
                         size_t errlen) {
  (void)data;
  if (k != 1) return 0;
  if (om_conv_check_w(node, node->impl, shape, rank, err, errlen) != 0) return -1;
  ((om_conv*)node->impl)->w_const = 1;
  return 0;
}

void om_conv_destroy(om_node* node) {
  om_conv* c = node->impl;
  if (c) {
    om_gemm_packed_free(c->packed_wt);
    free(c->dw_weights);
    free(c->direct_w);
  }
  free(c);
}

int om_conv_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  const om_conv* c = node->impl;
  size_t want = c->axes ? c->axes + 2 : 0;
  for (size_t k = 0; k < 2 && k < n_inputs; k++) {
    size_t r = ranks[k];
    if (r == OM_RANK_UNKNOWN) continue;
    if (r < 3 || r > OM_CONV_MAX_AXES + 2 || (want && r != want)) {
      snprintf(err, errlen, "node '%s' (op %s): %s has rank %zu; %s takes rank %s (N, C, then 1 to 3 spatial "
               "axes, as many as the attributes give)", node->name, om_conv_op(node), k ? "W" : "X", r, om_conv_op(node),
               want == 3 ? "3" : want == 4 ? "4" : want == 5 ? "5" : "3 to 5");
      return -1;
    }
    want = r;
  }
  if (n_inputs > 2 && ranks[2] != OM_RANK_UNKNOWN && ranks[2] != 1) {
    snprintf(err, errlen, "node '%s' (op %s): B has rank %zu, must be 1 ([M])", node->name, om_conv_op(node),
             ranks[2]);
    return -1;
  }
  return 0;
}

int om_conv_axis_of(const om_node* node, const om_conv* c, size_t i, int64_t D, int64_t K, int ceil_mode,
                    const char* kernel_text, const char* x_text, om_conv_axis* ax, char* err, size_t errlen) {
  int64_t s = c->has_strides ? c->strides[i] : 1, dil = c->has_dilations ? c->dilations[i] : 1;
  int64_t dk = dil * (K - 1) + 1, pb = 0, pe = 0, O;
  if (c->auto_pad == 1 || c->auto_pad == 2) { /* SAME_*: O = ceil(D / s), the pad split, the odd one at the end
                                               * (UPPER) or the begin (LOWER) */
    O = (D + s - 1) / s;
    int64_t total = (O - 1) * s + dk - D;
    if (total < 0) total = 0;
    pb = c->auto_pad == 1 ? total / 2 : total - total / 2;
    pe = total - pb;
  } else {
    if (c->has_pads) {
      pb = c->pads[i];
      pe = c->pads[c->axes + i];
    }
    if (D + pb + pe < dk) {
      snprintf(err, errlen, "node '%s' (op %s): spatial axis %zu: the kernel spans %lld (%s), more than the padded "
               "input's %lld (X %s, pads %lld + %lld, auto_pad %s)", node->name, om_conv_op(node), i, (long long)dk,
               kernel_text, (long long)(D + pb + pe), x_text, (long long)pb, (long long)pe,
               om_conv_pad_names[c->auto_pad]);
      return -1;
    }
    int64_t L = D + pb + pe - dk;
    O = (ceil_mode ? (L + s - 1) / s : L / s) + 1;
    if (ceil_mode && (O - 1) * s >= D + pb) O--; /* no last window that starts in the end padding */
  }
  ax->out = O;
  ax->pad_begin = pb;
  ax->pad_end = pe;
  return 0;
}

int om_conv_dims_of(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                    om_conv_dims* d, char* err, size_t errlen) {
  const om_conv* c = node->impl;
  const char* op = om_conv_op(node);
  size_t rank_list[3] = {ranks[0], ranks[1], n_inputs > 2 && shapes[2] ? ranks[2] : OM_RANK_UNKNOWN};
  if (om_conv_check_ranks(node, 3, rank_list, err, errlen) != 0) return -1;
  const int64_t *x = shapes[0], *w = shapes[1];
  size_t rank = ranks[0];
  if (ranks[1] != rank) {
    snprintf(err, errlen, "node '%s' (op %s): X has rank %zu and W rank %zu; they must be equal", node->name, op,
             rank, ranks[1]);
    return -1;
  }
  if (om_conv_check_w(node, c, w, rank, err, errlen) != 0) return -1;
  char sx[160], sw[160]; /* X's and W's shapes, formatted only for a message */
  memset(d, 0, sizeof *d);
  d->N = x[0];
  d->C = x[1];
  d->M = w[0];
  d->G = c->group;
  d->axes = rank - 2;
  if (d->C % d->G != 0) {
    om_shape_text(x, rank, sx, sizeof sx);
    snprintf(err, errlen, "node '%s' (op %s): X %s has %lld channels, not divisible by group %lld", node->name, op,
             sx, (long long)d->C, (long long)d->G);
    return -1;
  }
  if (w[1] != d->C / d->G) {
    om_shape_text(x, rank, sx, sizeof sx);
    om_shape_text(w, rank, sw, sizeof sw);
    snprintf(err, errlen, "node '%s' (op %s): W %s has %lld input channels per group; X %s with group %lld has "
             "C/group = %lld", node->name, op, sw, (long long)w[1], sx, (long long)d->G, (long long)(d->C / d->G));
    return -1;
  }
  if (n_inputs > 2 && shapes[2] && shapes[2][0] != d->M) {
    om_shape_text(w, rank, sw, sizeof sw);
    snprintf(err, errlen, "node '%s' (op %s): B has %lld entries, W %s has M = %lld output channels", node->name,
             op, (long long)shapes[2][0], sw, (long long)d->M);
    return -1;
  }
  om_conv_geom* g = &d->geom;
  g->channels = (size_t)(d->C / d->G);
  size_t lead = OM_CONV_MAX_AXES - d->axes; /* axes of size 1 in front */
  for (size_t i = 0; i < OM_CONV_MAX_AXES; i++) {
    g->in[i] = g->out[i] = g->kernel[i] = g->stride[i] = g->dilation[i] = 1;
    g->pad[i] = 0;
  }
  d->out_shape[0] = d->N;
  d->out_shape[1] = d->M;
  d->out_rank = rank;
  for (size_t i = 0; i < d->axes; i++) {
    om_conv_axis ax;
    if (om_conv_axis_of(node, c, i, x[2 + i], w[2 + i], 0, "", "", &ax, err, errlen) != 0) {
      char what[200]; /* the error: again, with the texts of the message */
      om_shape_text(x, rank, sx, sizeof sx);
      om_shape_text(w, rank, sw, sizeof sw);
      snprintf(what, sizeof what, "W %s, dilation %lld", sw, (long long)(c->has_dilations ? c->dilations[i] : 1));
      return om_conv_axis_of(node, c, i, x[2 + i], w[2 + i], 0, what, sx, &ax, err, errlen);
    }
    d->out_shape[2 + i] = ax.out;
    g->in[lead + i] = x[2 + i];
    g->out[lead + i] = ax.out;
    g->kernel[lead + i] = w[2 + i];
    g->stride[lead + i] = c->has_strides ? c->strides[i] : 1;
    g->dilation[lead + i] = c->has_dilations ? c->dilations[i] : 1;
    g->pad[lead + i] = ax.pad_begin;
  }
  return 0;
}
