/* ort_attrs.c - node attributes into om_attrs (see ort_attrs.h). Knows nothing of math. */
#include "ort_attrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest `axes` list read (its entries may repeat). */
#define OM_ATTR_MAX_AXES_LIST ((size_t)1 << 16)

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
  if (r >= 0) {
    r = src->get_int(src->ctx, "fmod", &ival, err, errlen);
    if (r == 0) {
      attrs->fmod = ival;
      attrs->has_fmod = 1;
    }
  }
  struct {
    const char* name;
    int64_t* value;
    int* has;
  } ew_ints[] = {{"detect_positive", &attrs->detect_positive, &attrs->has_detect_positive}, /* IsInf */
                 {"detect_negative", &attrs->detect_negative, &attrs->has_detect_negative}};
  for (size_t f = 0; r >= 0 && f < sizeof ew_ints / sizeof ew_ints[0]; f++) {
    r = src->get_int(src->ctx, ew_ints[f].name, ew_ints[f].value, err, errlen);
    if (r == 0) *ew_ints[f].has = 1;
  }
  if (r >= 0) {
    r = src->get_int(src->ctx, "to", &ival, err, errlen);
    if (r == 0) {
      attrs->to = ival;
      attrs->has_to = 1;
    }
  }
  struct {
    const char* name;
    int64_t* value;
    int* has;
  } ints[] = {{"transA", &attrs->trans_a, &attrs->has_trans_a},
              {"transB", &attrs->trans_b, &attrs->has_trans_b},
              {"axis", &attrs->axis, &attrs->has_axis},
              {"stash_type", &attrs->stash_type, &attrs->has_stash_type},
              {"keepdims", &attrs->keepdims, &attrs->has_keepdims},
              {"noop_with_empty_axes", &attrs->noop_with_empty_axes, &attrs->has_noop_with_empty_axes}};
  for (size_t f = 0; r >= 0 && structured && f < sizeof ints / sizeof ints[0]; f++) {
    r = src->get_int(src->ctx, ints[f].name, ints[f].value, err, errlen);
    if (r == 0) *ints[f].has = 1;
  }
  if (r >= 0 && structured) {
    /* ONNX lets axes name an axis more than once (stock ORT reduces it once): read the whole list, keep its
     * distinct values (at most 2 * 64 of them are in range for any rank), so that a long list with repeats is
     * served rather than claimed and then refused. */
    size_t n = 0, cap = OM_ATTR_MAX_AXES_LIST;
    int64_t* all = malloc(cap * sizeof *all);
    if (!all) {
      snprintf(err, errlen, "out of memory reading attribute 'axes'");
      return -1;
    }
    r = src->get_ints(src->ctx, "axes", all, cap, &n, err, errlen);
    if (r == 0) {
      size_t m = 0, room = sizeof attrs->axes / sizeof attrs->axes[0];
      for (size_t i = 0; r == 0 && i < n; i++) {
        size_t j = 0;
        while (j < m && attrs->axes[j] != all[i]) j++;
        if (j < m) continue;
        if (m == room) {
          snprintf(err, errlen, "attribute 'axes' names %zu distinct axes or more, more than any rank allows", m + 1);
          r = -1;
          break;
        }
        attrs->axes[m++] = all[i];
      }
      attrs->n_axes = m;
      attrs->has_axes = r == 0;
    }
    free(all);
  }
  struct {
    const char* name;
    float* value;
    int* has;
  } floats[] = {{"alpha", &attrs->alpha, &attrs->has_alpha},
                {"beta", &attrs->beta, &attrs->has_beta},
                {"gamma", &attrs->gamma, &attrs->has_gamma},
                {"min", &attrs->min, &attrs->has_min},
                {"max", &attrs->max, &attrs->has_max},
                {"epsilon", &attrs->epsilon, &attrs->has_epsilon}};
  for (size_t f = 0; r >= 0 && f < sizeof floats / sizeof floats[0]; f++) {
    r = src->get_float(src->ctx, floats[f].name, floats[f].value, err, errlen);
    if (r == 0) *floats[f].has = 1;
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
  return r < 0 ? -1 : 0;
}

/* ---- OrtKernelInfo ------------------------------------------------------------------------------------------ */
static int om_ki_string(const void* c, const char* name, char* out, size_t cap, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  size_t size = cap;
  OrtStatus* st = api->KernelInfoGetAttribute_string(k->info, name, out, &size);
  if (!st) return 0;
  api->ReleaseStatus(st);
  int64_t iv;
  float fv;
  st = api->KernelInfoGetAttribute_int64(k->info, name, &iv);
  if (!st) {
    snprintf(err, errlen, "attribute '%s' must be a string", name);
    return -1;
  }
  api->ReleaseStatus(st);
  st = api->KernelInfoGetAttribute_float(k->info, name, &fv);
  if (!st) {
    snprintf(err, errlen, "attribute '%s' must be a string", name);
    return -1;
  }
  api->ReleaseStatus(st);
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
  const OrtApi* api = k->api;
  OrtStatus* st = api->KernelInfoGetAttribute_int64(k->info, name, out);
  if (!st) return 0;
  api->ReleaseStatus(st);
  float fv;
  char sv[64];
  size_t size = sizeof sv;
  st = api->KernelInfoGetAttribute_float(k->info, name, &fv);
  if (!st) goto wrong;
  api->ReleaseStatus(st);
  st = api->KernelInfoGetAttribute_string(k->info, name, sv, &size);
  if (!st) goto wrong;
  api->ReleaseStatus(st);
  size = 0;
  st = api->KernelInfoGetAttribute_string(k->info, name, NULL, &size);
  if (st) api->ReleaseStatus(st);
  if (size > 0) goto wrong;
  return 1;
wrong:
  snprintf(err, errlen, "attribute '%s' must be an integer", name);
  return -1;
}

static int om_ki_float(const void* c, const char* name, float* out, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  OrtStatus* st = api->KernelInfoGetAttribute_float(k->info, name, out);
  if (!st) return 0;
  api->ReleaseStatus(st);
  int64_t iv;
  st = api->KernelInfoGetAttribute_int64(k->info, name, &iv);
  if (!st) {
    snprintf(err, errlen, "attribute '%s' must be a float", name);
    return -1;
  }
  api->ReleaseStatus(st);
  size_t size = 0;
  st = api->KernelInfoGetAttribute_string(k->info, name, NULL, &size);
  if (st) api->ReleaseStatus(st);
  if (size > 0) {
    snprintf(err, errlen, "attribute '%s' must be a float", name);
    return -1;
  }
  return 1;
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
  if (size > cap) {
    snprintf(err, errlen, "attribute '%s' has %zu entries, more than the maximum rank (%zu)", name, size, cap);
    return -1;
  }
  if (size > 0) {
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
