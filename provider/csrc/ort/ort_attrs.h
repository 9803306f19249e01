/* ort_attrs.h - a node's attributes read into om_attrs, from any source ORT gives them through: the kernel info of a
 * custom op or an execution-provider kernel (OrtKernelInfo), or a graph node (OrtNode, in GetCapability). One
 * reader, so the rewrite path and the execution-provider path accept and refuse the same attributes. */
#ifndef OM_ORT_ATTRS_H
#define OM_ORT_ATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"
#include "ort_api.h"

/* One source of attributes. Each getter returns 0 when the attribute is present (value written), 1 when absent,
 * -1 (with a message in err) when present with another type or too long. */
typedef struct om_attr_source {
  const void* ctx;
  int (*get_int)(const void* ctx, const char* name, int64_t* out, char* err, size_t errlen);
  int (*get_float)(const void* ctx, const char* name, float* out, char* err, size_t errlen);
  int (*get_string)(const void* ctx, const char* name, char* out, size_t cap, char* err, size_t errlen);
  /* a list of ints: *n set to its length (at most cap entries written; more is an error); out NULL: its length
   * only */
  int (*get_ints)(const void* ctx, const char* name, int64_t* out, size_t cap, size_t* n, char* err, size_t errlen);
  /* a list of floats, as get_ints */
  int (*get_floats)(const void* ctx, const char* name, float* out, size_t cap, size_t* n, char* err, size_t errlen);
  /* a list of strings: *n set to its length, its first min(n, cap) entries written to out, entry k at
   * out + k * width, each NUL-terminated (one longer than width - 1 bytes is an error) */
  int (*get_strings)(const void* ctx, const char* name, char* out, size_t width, size_t cap, size_t* n, char* err,
                     size_t errlen);
  /* a tensor: its element type into *type, its element count into *n and, when *n >= 1 and the element has a
   * size of at most 8 bytes (not a string), its first element's bytes into bytes (8 bytes, the rest zeroed) */
  int (*get_tensor1)(const void* ctx, const char* name, int* type, int64_t* n, unsigned char* bytes, char* err,
                     size_t errlen);
} om_attr_source;

/* What om_attrs_read reads besides the operator's own attributes: OneModel's node attributes `mode`,
 * `kernel_path` and `onnx_opset`, which the rewriter adds (the execution provider takes them from its options). */
enum { OM_ATTRS_ONEMODEL = 1 };

/* attrs with exact mode, the widest kernel path and no attribute given. */
void om_attrs_defaults(om_attrs* attrs);

/* Read the attributes of a node of op-table row `row` into attrs (which keeps what is absent); structured rows
 * (OM_F_STRUCT) also read transA/B, axis, stash_type, keepdims, noop_with_empty_axes, axes, and Conv's group,
 * kernel_shape, strides, dilations, pads and auto_pad. Returns 0, or -1
 * with a message naming the attribute and the problem. */
int om_attrs_read(const om_attr_source* src, const om_op_info* row, unsigned flags, om_attrs* attrs, char* err,
                  size_t errlen);

/* Resize's and Upsample's string attributes into attrs' resize_* fields (its `mode` is `onnx_mode` after the
 * rewrite, flags OM_ATTRS_ONEMODEL): 0, or -1 with a message (ort_attrs_resize.c). */
int om_attrs_read_resize(const om_attr_source* src, unsigned flags, om_attrs* attrs, char* err, size_t errlen);

/* RNN's, LSTM's and GRU's attributes direction, activations, activation_alpha and activation_beta into attrs'
 * rnn_* fields: 0, or -1 with a message (ort_attrs_rnn.c). */
int om_attrs_read_rnn(const om_attr_source* src, om_attrs* attrs, char* err, size_t errlen);

/* The attributes of an OrtKernelInfo (custom-op and execution-provider kernels). ctx must outlive the source. */
typedef struct om_kernel_info_ctx {
  const OrtApi* api;
  const OrtKernelInfo* info;
} om_kernel_info_ctx;
om_attr_source om_kernel_info_attrs(const om_kernel_info_ctx* ctx);
/* Its list getters (ort_attrs_lists.c): floats (member 162), strings (member 417, on runtimes of API
 * OM_ORT_API_STRINGS_VERSION or newer; on an older one a list that is there gives *n = (size_t)-1, which
 * om_node_create refuses, and the execution provider's node source does the same, so both leave the node to
 * stock ORT). */
int om_ki_floats(const void* ctx, const char* name, float* out, size_t cap, size_t* n, char* err, size_t errlen);
int om_ki_strings(const void* ctx, const char* name, char* out, size_t width, size_t cap, size_t* n, char* err,
                  size_t errlen);
/* A kernel's tensor attribute (member 236; ort_attrs_tensor.c), as get_tensor1. */
int om_ki_tensor1(const void* ctx, const char* name, int* type, int64_t* n, unsigned char* bytes, char* err,
                  size_t errlen);
/* A tensor attribute ORT gave as the OrtValue v: its element type, count and first element's bytes, as
 * get_tensor1 (ort_attrs_tensor.c; the execution provider's node source shares it). 0, or -1 with a message. */
int om_ort_tensor1(const OrtApi* api, const char* name, OrtValue* v, int* type, int64_t* n, unsigned char* bytes,
                   char* err, size_t errlen);
/* The running ORT's version string, told by RegisterCustomOps and CreateEpFactories (NULL: unknown). */
void om_attrs_set_runtime(const char* version);
/* Whether that runtime reads a kernel's list of strings (member 417). */
int om_attrs_strings_readable(void);

/* A mode or kernel path name as an om_attrs value: 0 with *out set, or -1 with a message. */
int om_attrs_mode(const char* s, int* out, char* err, size_t errlen);
int om_attrs_path(const char* s, int* out, char* err, size_t errlen);

#endif
