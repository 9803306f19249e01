/* ort_attrs_tensor.c - a tensor attribute (ConstantOfShape's `value`) into its element type, element count and
 * first element's bytes: from an OrtKernelInfo (KernelInfoGetAttribute_tensor, member 236 of OrtApi) and, for the
 * execution provider's node source (ep_capability.c), from the OrtValue ORT gives for an OrtOpAttr. Knows nothing
 * of math. */
#include <stdio.h>
#include <string.h>

#include "ort_attrs.h"

int om_ort_tensor1(const OrtApi* api, const char* name, OrtValue* v, int* type, int64_t* n, unsigned char* bytes,
                   char* err, size_t errlen) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  ONNXTensorElementDataType t = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t count = 0;
  void* data = NULL;
  OrtStatus* st = api->GetTensorTypeAndShape(v, &info);
  if (!st) st = api->GetTensorElementType(info, &t);
  if (!st) st = api->GetTensorShapeElementCount(info, &count);
  if (info) api->ReleaseTensorTypeAndShapeInfo(info);
  size_t esz = (int)t > 0 && (int)t < 32 ? om_type_size((int)t) : 0;
  if (!st && count >= 1 && esz >= 1 && esz <= 8) st = api->GetTensorMutableData(v, &data);
  if (st) {
    snprintf(err, errlen, "attribute '%s': %s", name, api->GetErrorMessage(st));
    api->ReleaseStatus(st);
    return -1;
  }
  *type = (int)t; /* a type of no fixed element size here (string): no bytes, refused by the node */
  *n = (int64_t)count;
  memset(bytes, 0, 8);
  if (data) memcpy(bytes, data, esz);
  return 0;
}

int om_ki_tensor1(const void* c, const char* name, int* type, int64_t* n, unsigned char* bytes, char* err,
                  size_t errlen) {
  const om_kernel_info_ctx* k = c;
  const OrtApi* api = k->api;
  OrtAllocator* alloc = NULL;
  OrtValue* v = NULL;
  OrtStatus* st = api->GetAllocatorWithDefaultOptions(&alloc);
  if (!st) st = api->KernelInfoGetAttribute_tensor(k->info, name, alloc, &v);
  if (st) { /* absent ("No attribute with name ..."), or there and unreadable: then the node is not served */
    int absent = strstr(api->GetErrorMessage(st), "No attribute") != NULL;
    if (!absent) snprintf(err, errlen, "attribute '%s': %s", name, api->GetErrorMessage(st));
    api->ReleaseStatus(st);
    return absent ? 1 : -1;
  }
  if (!v) return 1;
  int r = om_ort_tensor1(api, name, v, type, n, bytes, err, errlen);
  api->ReleaseValue(v);
  return r;
}
