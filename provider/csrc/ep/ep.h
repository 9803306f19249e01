/* ep.h - the OneModel plugin execution provider's own types (factory, EP, per-op kernel state), shared by every
 * file of ep/. Declares no function: each .c file of ep/ has its own header (ep_kernels.h, ep_capability.h,
 * ep_compile.h, ep_error.h). Knows nothing of math. */
#ifndef OM_EP_H
#define OM_EP_H

#include "core/om_ops.h"
#include "ep_error.h" /* om_ep_error, for every file of ep/ */
#include "onemodel.h"
#include "ort/ort_ep_api.h"

#define OM_EP_NAME "OneModelExecutionProvider"
#define OM_EP_VENDOR "OneModel"
/* Kernels are registered for opsets 1 to this (inclusive): ORT matches a versioned range against a node's since
 * version, while an open range (INT_MAX) matches only its first version. om_node_create decides the opset. */
#define OM_EP_MAX_OPSET 1000

typedef struct om_ep_factory {
  OrtEpFactory base; /* first member: ORT passes &base back to us */
  const OrtApi* api;
  const OrtEpApi* ep_api;
} om_ep_factory;

struct om_ep;
typedef struct om_ep_kernel_state {
  const struct om_ep* ep;
  int op;    /* row of the op table */
  int opset; /* 0, or the opset om_node_create reads the node as (om_op_semantics_split: the kernel's range) */
} om_ep_kernel_state;

typedef struct om_ep {
  OrtEp base; /* first member */
  const OrtApi* api;
  const OrtEpApi* ep_api;
  int mode; /* OM_MODE_EXACT or OM_MODE_FAST, from the session option `mode` */
  int path; /* kernel path index, or -1 for the widest, from `kernel_path` */
  int compile; /* session option `dispatch`: 0 "registry" (kernels), 1 "compile" (each node a compiled node) */
  int fuse;    /* session option `fuse`: 1 (default) chains of element-wise nodes become one fused node each */
  int qdq_groups; /* session option `qdq_groups`: 1 (default) QDQ groups run as one QLinear node each (ep_qdq.c);
                   * "0" (onemodel diff --per-node, to save the graph ORT runs) leaves their nodes apart */
  int fold;    /* session option `fold`: 1 (default) nodes whose inputs are all constant are computed once, at
                * session creation (ep_const_fold.c, ep_compile_fold.c) */
  int strict; /* session option `strict`: 1 "1", GetCapability refuses a graph whose computing nodes it leaves */
  char* strict_lines; /* strict mode: the nodes refused so far, one "\n  node ..." line each (subgraphs first) */
  int strict_due;     /* strict mode: the main graph is done and strict_lines is the refusal Compile returns */
  OrtKernelRegistry* registry;
  om_ep_kernel_state states[2 * OM_OP_COUNT]; /* [op], and [OM_OP_COUNT + op] for a split's later range */
} om_ep;

#endif
