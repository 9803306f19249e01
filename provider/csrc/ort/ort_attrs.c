/* ort_attrs.c - node attributes into om_attrs (see ort_attrs.h). Knows nothing of math. */
#include "ort_attrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void om_attrs_defaults(om_attrs* attrs) {
  memset(attrs, 0, sizeof *attrs);
  attrs->mode = OM_MODE_EXACT;
  attrs->path = -1;
}

int om_attrs_mode(const char* s, int* out, char* err, size_t errlen) {
  if (strcmp(s, "exact") == 0) *out = OM_MODE_EXACT;
  else if (strcmp(s, "fast") == 0) *out = OM_MODE_FAST;
  else {
    snprintf(err, errlen, "attribute 'mode' must be \"exact\" or \"fast\", got \"%s\"", s);
    return -1;
  }
  return 0;
}

int om_attrs_path(const char* s, int* out, char* err, size_t errlen) {
  for (int q = 0; q < om_path_count(); q++)
    if (strcmp(s, om_path_name(q)) == 0) {
      *out = q;
      return 0;
    }
  snprintf(err, errlen, "attribute 'kernel_path' must be one of 512, 256, 128, scalar; got \"%s\"", s);
  return -1;
}

/* ONNX lets axes name an axis more than once (stock ORT reduces it once): read the whole list and keep its
 * distinct values (at most `room`: 2 * 64 of them are in range for any rank), so that a long list with repeats is
 * served rather than claimed and then refused. As a getter: 0, 1 (absent) or -1 with a message. */
static int om_attrs_read_axes(const om_attr_source* src, const char* name, int64_t* axes, size_t room, size_t* n_axes,
                              size_t* n_listed, char* err, size_t errlen) {
  size_t n = 0, m = 0;
  int r = src->get_ints(src->ctx, name, NULL, 0, &n, err, errlen); /* the length first */
  if (r != 0) return r;
  int64_t* all = n ? malloc(n * sizeof *all) : NULL;
  if (n && !all) {
    snprintf(err, errlen, "out of memory reading attribute '%s' (%zu entries)", name, n);
    return -1;
  }
  if (n) r = src->get_ints(src->ctx, name, all, n, &n, err, errlen);
  for (size_t i = 0; r == 0 && i < n; i++) {
    size_t j = 0;
    while (j < m && axes[j] != all[i]) j++;
    if (j < m) continue;
    if (m == room) {
      snprintf(err, errlen, "attribute '%s' names %zu distinct axes or more, more than any rank allows", name, m + 1);
      r = -1;
    } else {
      axes[m++] = all[i];
    }
  }
  free(all);
  if (r == 0) {
    *n_axes = m;
    *n_listed = n;
  }
  return r;
}

/* Which ops read a row of core/om_attrs.def, and what its value is. */
enum { OM_AS_ANY, OM_AS_STRUCT, OM_AS_CONV };
enum { OM_AK_INT, OM_AK_FLOAT, OM_AK_INTS, OM_AK_AXES };

typedef struct om_attr_field {
  const char* name;
  int kind;  /* OM_AK_* */
  int scope; /* OM_AS_* */
  void* value;
  size_t cap;        /* lists: the most entries */
  size_t* n;         /* lists: the entries read (AXES: the distinct ones) */
  size_t* n_listed;  /* AXES: the entries as given */
  int* has;
} om_attr_field;

/* Gelu's approximate and Conv's auto_pad: a string among `names`, into its index. 0, 1 (absent) or -1. */
static int om_attrs_read_choice(const om_attr_source* src, const char* name, const char* const* names, size_t count,
                                const char* accepted, int* out, char* err, size_t errlen) {
  char sval[64];
  int r = src->get_string(src->ctx, name, sval, sizeof sval, err, errlen);
  if (r != 0) return r;
  for (size_t q = 0; q < count; q++)
    if (strcmp(sval, names[q]) == 0) {
      *out = (int)q;
      return 0;
    }
  snprintf(err, errlen, "attribute '%s' must be %s, got \"%s\"", name, accepted, sval);
  return -1;
}

int om_attrs_read(const om_attr_source* src, const om_op_info* row, unsigned flags, om_attrs* attrs, char* err,
                  size_t errlen) {
  const char* op = row->name;
  const int windowed = strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0 || strcmp(op, "LpPool") == 0 ||
                         strcmp(op, "ConvTranspose") == 0 || strcmp(op, "ConvInteger") == 0 ||
                         strcmp(op, "QLinearConv") == 0 || strcmp(op, "QLinearAveragePool") == 0;
  const int in_scope[] = {1, (row->flags & OM_F_STRUCT) != 0, windowed}; /* by OM_AS_* */
  char sval[64];
  int64_t ival;
  int r = 0;
  if (flags & OM_ATTRS_ONEMODEL) {
    r = src->get_string(src->ctx, "mode", sval, sizeof sval, err, errlen);
    if (r == 0) r = om_attrs_mode(sval, &attrs->mode, err, errlen);
    if (r >= 0) {
      r = src->get_string(src->ctx, "kernel_path", sval, sizeof sval, err, errlen);
      if (r == 0) r = om_attrs_path(sval, &attrs->path, err, errlen);
    }
    if (r >= 0) {
      r = src->get_int(src->ctx, "onnx_opset", &ival, err, errlen);
      if (r == 0) attrs->onnx_opset = (ival > 0 && ival < 100000) ? (int)ival : 0;
    }
  }
#define OM_ATTR_INT(f, name, scope) {name, OM_AK_INT, OM_AS_##scope, &attrs->f, 0, NULL, NULL, &attrs->has_##f},
#define OM_ATTR_FLOAT(f, name, scope) {name, OM_AK_FLOAT, OM_AS_##scope, &attrs->f, 0, NULL, NULL, &attrs->has_##f},
#define OM_ATTR_INTS(f, name, cap, scope) \
  {name, OM_AK_INTS, OM_AS_##scope, attrs->f, cap, &attrs->n_##f, NULL, &attrs->has_##f},
#define OM_ATTR_AXES(f, name, cap, scope) \
  {name, OM_AK_AXES, OM_AS_##scope, attrs->f, cap, &attrs->n_##f, &attrs->n_##f##_listed, &attrs->has_##f},
  const om_attr_field fields[] = {
#include "core/om_attrs.def"
  };
#undef OM_ATTR_INT
#undef OM_ATTR_FLOAT
#undef OM_ATTR_INTS
#undef OM_ATTR_AXES
  for (size_t q = 0; r >= 0 && q < sizeof fields / sizeof fields[0]; q++) {
    const om_attr_field* f = &fields[q];
    if (!in_scope[f->scope]) continue;
    if (f->kind == OM_AK_INT) r = src->get_int(src->ctx, f->name, f->value, err, errlen);
    else if (f->kind == OM_AK_FLOAT) r = src->get_float(src->ctx, f->name, f->value, err, errlen);
    else if (f->kind == OM_AK_INTS) r = src->get_ints(src->ctx, f->name, f->value, f->cap, f->n, err, errlen);
    else
      r = om_attrs_read_axes(src, f->name, f->value, f->cap, f->n, f->n_listed, err, errlen);
    if (r == 0) *f->has = 1;
  }
  static const char* const approximations[] = {"none", "tanh"};
  static const char* const pad_modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  if (r >= 0 && strcmp(op, "Gelu") == 0)
    r = om_attrs_read_choice(src, "approximate", approximations, 2, "\"none\" or \"tanh\"", &attrs->approximate, err,
                             errlen);
  if (r >= 0 && strcmp(op, "Pad") == 0) { /* its `mode` is ours after the rewrite: the rewriter renames it */
    r = src->get_string(src->ctx, (flags & OM_ATTRS_ONEMODEL) ? "onnx_mode" : "mode", sval, sizeof sval, err, errlen);
    if (r == 0) {
      static const char* const pad_fill_modes[] = {"constant", "reflect", "edge", "wrap"};
      attrs->pad_mode = -1;
      for (int q = 0; q < 4; q++)
        if (strcmp(sval, pad_fill_modes[q]) == 0) attrs->pad_mode = q;
      attrs->has_pad_mode = 1;
    }
  }
  if (r >= 0 && strcmp(op, "DepthToSpace") == 0) { /* its `mode`, renamed by the rewriter as Pad's */
    r = src->get_string(src->ctx, (flags & OM_ATTRS_ONEMODEL) ? "onnx_mode" : "mode", sval, sizeof sval, err, errlen);
    if (r == 0) {
      attrs->depth_mode = strcmp(sval, "DCR") == 0 ? 0 : strcmp(sval, "CRD") == 0 ? 1 : -1;
      attrs->has_depth_mode = 1;
    }
  }
  if (r >= 0 && (strcmp(op, "ScatterElements") == 0 || strcmp(op, "ScatterND") == 0)) {
    r = src->get_string(src->ctx, "reduction", sval, sizeof sval, err, errlen);
    if (r == 0) {
      static const char* const reductions[] = {"none", "add", "mul", "max", "min"}; /* scatter_apply.h's codes */
      attrs->scatter_reduction = -1;
      for (int q = 0; q < 5; q++)
        if (strcmp(sval, reductions[q]) == 0) attrs->scatter_reduction = q;
      attrs->has_scatter_reduction = 1;
    }
  }
  if (r >= 0 && strcmp(op, "Einsum") == 0) {
    r = src->get_string(src->ctx, "equation", attrs->equation, sizeof attrs->equation, err, errlen);
    if (r == 0) attrs->has_equation = 1;
  }
  if (r >= 0 && (strcmp(op, "Resize") == 0 || strcmp(op, "Upsample") == 0))
    r = om_attrs_read_resize(src, flags, attrs, err, errlen);
  if (r >= 0 && strcmp(op, "ConstantOfShape") == 0) {
    r = src->get_tensor1(src->ctx, "value", &attrs->value_type, &attrs->value_n, attrs->value_bytes, err, errlen);
    if (r == 0) attrs->has_value = 1;
  }
  if (r >= 0 && (strcmp(op, "LSTM") == 0 || strcmp(op, "GRU") == 0 || strcmp(op, "RNN") == 0))
    r = om_attrs_read_rnn(src, attrs, err, errlen);
  if (r >= 0 && in_scope[OM_AS_CONV]) {
    r = om_attrs_read_choice(src, "auto_pad", pad_modes, 4, "NOTSET, SAME_UPPER, SAME_LOWER or VALID", &attrs->auto_pad,
                             err, errlen);
  }
  return r < 0 ? -1 : 0;
}

/* ---- OrtKernelInfo ------------------------------------------------------------------------------------------ */
/* Whether attribute `name` is there as another kind than `asked` (0 int, 1 float, 2 string): a wrong type. */
static int om_ki_other_kind(const om_kernel_info_ctx* k, const char* name, int asked) {
  const OrtApi* api = k->api;
  OrtStatus* st;
  int64_t iv;
  float fv;
  size_t size = 0;
  if (asked != 0 && !(st = api->KernelInfoGetAttribute_int64(k->info, name, &iv))) return 1;
  if (asked != 0) api->ReleaseStatus(st);
  if (asked != 1 && !(st = api->KernelInfoGetAttribute_float(k->info, name, &fv))) return 1;
  if (asked != 1) api->ReleaseStatus(st);
  if (asked == 2) return 0;
  st = api->KernelInfoGetAttribute_string(k->info, name, NULL, &size); /* sets size for any string */
  if (st) api->ReleaseStatus(st);
  return size > 0;
}

/* After reading attribute `name` as kind `asked` gave st: 0 (read), 1 (absent), or -1 with "must be <what>" when
 * the attribute has another kind. */
static int om_ki_read(const om_kernel_info_ctx* k, OrtStatus* st, const char* name, int asked, const char* what,
                      char* err, size_t errlen) {
  if (!st) return 0;
  k->api->ReleaseStatus(st);
  if (!om_ki_other_kind(k, name, asked)) return 1;
  snprintf(err, errlen, "attribute '%s' must be %s", name, what);
  return -1;
}

static int om_ki_string(const void* c, const char* name, char* out, size_t cap, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  size_t size = cap;
  OrtStatus* st = api->KernelInfoGetAttribute_string(k->info, name, out, &size);
  int r = om_ki_read(k, st, name, 2, "a string", err, errlen);
  if (r <= 0) return r;
  size = 0; /* a string longer than cap also fails the first call: ask its size */
  st = api->KernelInfoGetAttribute_string(k->info, name, NULL, &size);
  if (st) api->ReleaseStatus(st);
  if (size > cap) {
    snprintf(err, errlen, "attribute '%s' is too long", name);
    return -1;
  }
  return 1;
}

static int om_ki_int(const void* c, const char* name, int64_t* out, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  return om_ki_read(k, k->api->KernelInfoGetAttribute_int64(k->info, name, out), name, 0, "an integer", err, errlen);
}
static int om_ki_float(const void* c, const char* name, float* out, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  return om_ki_read(k, k->api->KernelInfoGetAttribute_float(k->info, name, out), name, 1, "a float", err, errlen);
}

/* A list of ints (`axes` of Reduce ops before the axes input). */
static int om_ki_ints(const void* c, const char* name, int64_t* out, size_t cap, size_t* n, char* err,
                      size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  size_t size = 0;
  OrtStatus* st = api->KernelInfoGetAttributeArray_int64(k->info, name, NULL, &size);
  if (st) { /* absent, or not a list of ints */
    api->ReleaseStatus(st);
    int64_t one;
    st = api->KernelInfoGetAttribute_int64(k->info, name, &one);
    if (!st) {
      snprintf(err, errlen, "attribute '%s' must be a list of integers", name);
      return -1;
    }
    api->ReleaseStatus(st);
    return 1;
  }
  if (out && size > cap) {
    snprintf(err, errlen, "attribute '%s' has %zu entries, more than the %zu expected", name, size, cap);
    return -1;
  }
  if (out && size > 0) {
    st = api->KernelInfoGetAttributeArray_int64(k->info, name, out, &size);
    if (st) {
      snprintf(err, errlen, "attribute '%s': %s", name, api->GetErrorMessage(st));
      api->ReleaseStatus(st);
      return -1;
    }
  }
  *n = size;
  return 0;
}

om_attr_source om_kernel_info_attrs(const om_kernel_info_ctx* ctx) {
  om_attr_source s = {ctx, om_ki_int, om_ki_float, om_ki_string, om_ki_ints, om_ki_floats, om_ki_strings, om_ki_tensor1};
  return s;
}
