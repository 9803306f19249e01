/* ort_attrs_lists.c - an OrtKernelInfo's list-of-floats and list-of-strings attributes (ort_attrs.h). Knows
 * nothing of math. */
#include <stdio.h>
#include <string.h>

#include "ort_attrs.h"

/* The running ORT's minor version (1.x), 0 when unknown. */
static unsigned om_ort_minor;

void om_attrs_set_runtime(const char* version) {
  unsigned major = 0, minor = 0;
  if (!version || sscanf(version, "%u.%u", &major, &minor) != 2) return;
  om_ort_minor = major > 1 ? 1000u : minor;
}

int om_attrs_strings_readable(void) { return om_ort_minor >= OM_ORT_API_STRINGS_VERSION; }

/* Whether attribute `name` is there as a single int, float or string: then a list getter reports the wrong type. */
static int om_ki_is_scalar(const OrtApi* api, const OrtKernelInfo* info, const char* name) {
  int64_t iv;
  float fv;
  size_t size = 0;
  OrtStatus* st = api->KernelInfoGetAttribute_int64(info, name, &iv);
  if (!st) return 1;
  api->ReleaseStatus(st);
  if (!(st = api->KernelInfoGetAttribute_float(info, name, &fv))) return 1;
  api->ReleaseStatus(st);
  st = api->KernelInfoGetAttribute_string(info, name, NULL, &size);
  if (st) api->ReleaseStatus(st);
  return size > 0;
}

int om_ki_floats(const void* c, const char* name, float* out, size_t cap, size_t* n, char* err, size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  size_t size = 0;
  OrtStatus* st = api->KernelInfoGetAttributeArray_float(k->info, name, NULL, &size);
  if (st) { /* absent, or not a list of floats */
    api->ReleaseStatus(st);
    if (!om_ki_is_scalar(api, k->info, name)) return 1;
    snprintf(err, errlen, "attribute '%s' must be a list of floats", name);
    return -1;
  }
  *n = size;
  if (size == 0 || !out) return 0;
  if (size > cap) size = cap; /* the first cap entries; *n counts them all */
  float all[64];
  size_t got = sizeof all / sizeof all[0];
  if (*n > got) {
    snprintf(err, errlen, "attribute '%s' has %zu entries, more than %zu", name, *n, got);
    return -1;
  }
  st = api->KernelInfoGetAttributeArray_float(k->info, name, all, &got);
  if (st) {
    snprintf(err, errlen, "attribute '%s': %s", name, api->GetErrorMessage(st));
    api->ReleaseStatus(st);
    return -1;
  }
  memcpy(out, all, size * sizeof *out);
  return 0;
}

int om_ki_strings(const void* c, const char* name, char* out, size_t width, size_t cap, size_t* n, char* err,
                  size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  if (!om_attrs_strings_readable()) {
    /* no member 417: absent when the node has no such attribute at all, else (size_t)-1 entries: given but
     * unreadable, which the node refuses (ort_attrs.h) */
    size_t size = 0;
    OrtStatus* st = api->KernelInfoGetAttribute_string(k->info, name, NULL, &size);
    const char* why = st ? api->GetErrorMessage(st) : "";
    int absent = st && strstr(why, "No attribute") != NULL;
    if (st) api->ReleaseStatus(st);
    if (absent) return 1;
    *n = (size_t)-1;
    return 0;
  }
  OrtAllocator* alloc = NULL;
  OrtStatus* st = api->GetAllocatorWithDefaultOptions(&alloc);
  if (st || !alloc) {
    if (st) api->ReleaseStatus(st);
    snprintf(err, errlen, "attribute '%s': no allocator to read it with", name);
    return -1;
  }
  char** list = NULL;
  size_t size = 0;
  st = api->KernelInfoGetAttributeArray_string(k->info, name, alloc, &list, &size);
  if (st) { /* absent, or not a list of strings */
    api->ReleaseStatus(st);
    if (!om_ki_is_scalar(api, k->info, name)) return 1;
    snprintf(err, errlen, "attribute '%s' must be a list of strings", name);
    return -1;
  }
  int r = 0;
  *n = size;
  for (size_t q = 0; q < size; q++) {
    if (r == 0 && q < cap && list[q]) {
      size_t len = strlen(list[q]);
      if (len >= width) {
        snprintf(err, errlen, "attribute '%s': entry %zu is too long (%zu bytes)", name, q, len);
        r = -1;
      } else {
        memcpy(out + q * width, list[q], len + 1);
      }
    }
    if (list[q]) alloc->Free(alloc, list[q]);
  }
  if (list) alloc->Free(alloc, list);
  return r;
}
