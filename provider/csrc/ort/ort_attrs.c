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
 * distinct values (at most 2 * 64 of them are in range for any rank), so that a long list with repeats is served
 * rather than claimed and then refused. As a getter: 0, 1 (absent) or -1 with a message. */
static int om_attrs_read_axes(const om_attr_source* src, const char* name, om_attrs* attrs, char* err,
                              size_t errlen) {
  size_t n = 0, m = 0, room = sizeof attrs->axes / sizeof attrs->axes[0];
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
    while (j < m && attrs->axes[j] != all[i]) j++;
    if (j < m) continue;
    if (m == room) {
      snprintf(err, errlen, "attribute '%s' names %zu distinct axes or more, more than any rank allows", name, m + 1);
      r = -1;
    } else {
      attrs->axes[m++] = all[i];
    }
  }
  free(all);
  if (r == 0) {
    attrs->n_axes = m;
    attrs->n_axes_listed = n;
  }
  return r;
}

int om_attrs_read(const om_attr_source* src, const om_op_info* row, unsigned flags, om_attrs* attrs, char* err,
                  size_t errlen) {
  const char* op = row->name;
  const int structured = (row->flags & OM_F_STRUCT) != 0;
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
  enum { OM_AK_INT, OM_AK_AXES, OM_AK_FLOAT };
  struct {
    const char* name;
    int kind;            /* OM_AK_*: what value points to */
    int structured_only; /* read for OM_F_STRUCT ops only */
    void* value;
    int* has;
  } fields[] = {{"fmod", OM_AK_INT, 0, &attrs->fmod, &attrs->has_fmod},
                {"detect_positive", OM_AK_INT, 0, &attrs->detect_positive, &attrs->has_detect_positive}, /* IsInf */
                {"detect_negative", OM_AK_INT, 0, &attrs->detect_negative, &attrs->has_detect_negative},
                {"to", OM_AK_INT, 0, &attrs->to, &attrs->has_to},
                {"transA", OM_AK_INT, 1, &attrs->trans_a, &attrs->has_trans_a},
                {"transB", OM_AK_INT, 1, &attrs->trans_b, &attrs->has_trans_b},
                {"axis", OM_AK_INT, 1, &attrs->axis, &attrs->has_axis},
                {"stash_type", OM_AK_INT, 1, &attrs->stash_type, &attrs->has_stash_type},
                {"keepdims", OM_AK_INT, 1, &attrs->keepdims, &attrs->has_keepdims},
                {"noop_with_empty_axes", OM_AK_INT, 1, &attrs->noop_with_empty_axes, &attrs->has_noop_with_empty_axes},
                {"axes", OM_AK_AXES, 1, attrs->axes, &attrs->has_axes},
                {"training_mode", OM_AK_INT, 1, &attrs->training_mode, &attrs->has_training_mode},
                {"ceil_mode", OM_AK_INT, 1, &attrs->ceil_mode, &attrs->has_ceil_mode}, /* the windowed pools */
                {"storage_order", OM_AK_INT, 1, &attrs->storage_order, &attrs->has_storage_order},
                {"count_include_pad", OM_AK_INT, 1, &attrs->count_include_pad, &attrs->has_count_include_pad},
                {"allowzero", OM_AK_INT, 1, &attrs->allowzero, &attrs->has_allowzero},
                {"start", OM_AK_INT, 1, &attrs->start, &attrs->has_start},
                {"end", OM_AK_INT, 1, &attrs->end, &attrs->has_end},
                {"alpha", OM_AK_FLOAT, 0, &attrs->alpha, &attrs->has_alpha},
                {"beta", OM_AK_FLOAT, 0, &attrs->beta, &attrs->has_beta},
                {"gamma", OM_AK_FLOAT, 0, &attrs->gamma, &attrs->has_gamma},
                {"min", OM_AK_FLOAT, 0, &attrs->min, &attrs->has_min},
                {"max", OM_AK_FLOAT, 0, &attrs->max, &attrs->has_max},
                {"epsilon", OM_AK_FLOAT, 0, &attrs->epsilon, &attrs->has_epsilon},
                {"group", OM_AK_INT, 1, &attrs->group, &attrs->has_group}}; /* Conv */
  for (size_t f = 0; r >= 0 && f < sizeof fields / sizeof fields[0]; f++) {
    if (fields[f].structured_only && !structured) continue;
    const char* name = fields[f].name;
    if (fields[f].kind == OM_AK_INT) r = src->get_int(src->ctx, name, fields[f].value, err, errlen);
    else if (fields[f].kind == OM_AK_FLOAT) r = src->get_float(src->ctx, name, fields[f].value, err, errlen);
    else
      r = om_attrs_read_axes(src, name, attrs, err, errlen);
    if (r == 0) *fields[f].has = 1;
  }
  struct { /* lists of at most 64 entries (the data-movement ops) */
    const char* name;
    int64_t* value;
    size_t* n;
    int* has;
  } lists[] = {{"perm", attrs->perm, &attrs->n_perm, &attrs->has_perm},
               {"starts", attrs->starts, &attrs->n_starts, &attrs->has_starts},
               {"ends", attrs->ends, &attrs->n_ends, &attrs->has_ends}};
  for (size_t f = 0; structured && r >= 0 && f < sizeof lists / sizeof lists[0]; f++) {
    r = src->get_ints(src->ctx, lists[f].name, lists[f].value, sizeof attrs->perm / sizeof attrs->perm[0], lists[f].n,
                      err, errlen);
    if (r == 0) *lists[f].has = 1;
  }
  if (r >= 0 && strcmp(op, "Gelu") == 0) {
    r = src->get_string(src->ctx, "approximate", sval, sizeof sval, err, errlen);
    if (r == 0) {
      if (strcmp(sval, "tanh") == 0) attrs->approximate = 1;
      else if (strcmp(sval, "none") != 0) {
        snprintf(err, errlen, "attribute 'approximate' must be \"none\" or \"tanh\", got \"%s\"", sval);
        r = -1;
      }
    }
  }
  if (r >= 0 && (strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0)) {
    struct {
      const char* name;
      int64_t* value;
      size_t cap;
      size_t* n;
      int* has;
    } lists[] = {
        {"kernel_shape", attrs->kernel_shape, sizeof attrs->kernel_shape / sizeof(int64_t), &attrs->n_kernel_shape,
         &attrs->has_kernel_shape},
        {"strides", attrs->strides, sizeof attrs->strides / sizeof(int64_t), &attrs->n_strides, &attrs->has_strides},
        {"dilations", attrs->dilations, sizeof attrs->dilations / sizeof(int64_t), &attrs->n_dilations,
         &attrs->has_dilations},
        {"pads", attrs->pads, sizeof attrs->pads / sizeof(int64_t), &attrs->n_pads, &attrs->has_pads}};
    for (size_t f = 0; r >= 0 && f < sizeof lists / sizeof lists[0]; f++) {
      r = src->get_ints(src->ctx, lists[f].name, lists[f].value, lists[f].cap, lists[f].n, err, errlen);
      if (r == 0) *lists[f].has = 1;
    }
    static const char* const pad_modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    if (r >= 0) r = src->get_string(src->ctx, "auto_pad", sval, sizeof sval, err, errlen);
    if (r == 0) {
      attrs->auto_pad = -1;
      for (int q = 0; q < 4; q++)
        if (strcmp(sval, pad_modes[q]) == 0) attrs->auto_pad = q;
      if (attrs->auto_pad < 0) {
        snprintf(err, errlen, "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"%s\"",
                 sval);
        r = -1;
      }
    }
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
  om_attr_source s = {ctx, om_ki_int, om_ki_float, om_ki_string, om_ki_ints};
  return s;
}
