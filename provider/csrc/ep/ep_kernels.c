/* ep_kernels.c - the execution provider's kernel registry: one kernel per row of the op table, each an om_kernel
 * (ort_kernel.h, the code the custom-op path runs) created from ORT's kernel info with the EP's mode and kernel
 * path. Knows nothing of math. */
#include <stdio.h>
#include <stdlib.h>

#include "ep_kernels.h"
#include "node/node_family.h"
#include "ort/ort_attrs.h"
#include "ort/ort_kernel.h"

typedef struct om_ep_kernel {
  OrtKernelImpl base; /* first member */
  om_kernel* kernel;
} om_ep_kernel;

static OrtStatus* OM_ORT_CALL om_ep_kernel_compute(OrtKernelImpl* this_ptr, OrtKernelContext* ctx) {
  return om_kernel_compute(((om_ep_kernel*)this_ptr)->kernel, ctx);
}

static void OM_ORT_CALL om_ep_kernel_release(OrtKernelImpl* this_ptr) {
  om_ep_kernel* k = (om_ep_kernel*)this_ptr;
  if (!k) return;
  om_kernel_destroy(k->kernel);
  free(k);
}

static OrtStatus* OM_ORT_CALL om_ep_kernel_create(void* state, const OrtKernelInfo* info, OrtKernelImpl** out) {
  const om_ep_kernel_state* s = state;
  const om_ep* ep = s->ep;
  *out = NULL;
  om_attrs preset;
  om_attrs_defaults(&preset);
  preset.mode = ep->mode;
  preset.path = ep->path;
  /* onnx_opset: GetCapability checked the model's opset before claiming the node; an op whose meaning changes
   * with the opset has one kernel per range, which says which reading the node has */
  preset.onnx_opset = s->opset;
  om_kernel* k = NULL;
  OrtStatus* st = om_kernel_create(ep->api, info, s->op, 0, &preset, 1, &k);
  if (st) return st;
  om_ep_kernel* w = calloc(1, sizeof *w);
  if (!w) {
    om_kernel_destroy(k);
    return om_ep_error(ep->api, ORT_FAIL, "out of memory");
  }
  w->base.ort_version_supported = OM_EP_ORT_VERSION;
  w->base.Compute = om_ep_kernel_compute;
  w->base.Release = om_ep_kernel_release;
  w->kernel = k;
  *out = &w->base;
  return NULL;
}

/* Whether output 0 may be input 0's own buffer, as for stock ORT's Reshape, Unsqueeze, Squeeze, Flatten and
 * Identity (node_reshape.c copies nothing then): ORT then hands the kernel X's buffer as Y wherever it can. */
static int om_ep_output_aliases_input(int op) {
  return op == OM_OP_RESHAPE || op == OM_OP_UNSQUEEZE || op == OM_OP_SQUEEZE || op == OM_OP_FLATTEN ||
         op == OM_OP_IDENTITY;
}

/* The kernel of op for the node since-versions [start, end], created as a node of opset `opset` (0: unknown). */
static OrtStatus* om_ep_add_kernel(om_ep* ep, int op, int start, int end, int opset, om_ep_kernel_state* state) {
  const OrtEpApi* e = ep->ep_api;
  const om_op_info* row = om_op_row(op);
  OrtKernelDefBuilder* b = NULL;
  OrtKernelDef* def = NULL;
  OrtStatus* st = e->CreateKernelDefBuilder(&b);
  if (!st) st = e->KernelDefBuilder_SetOperatorType(b, row->name);
  if (!st) st = e->KernelDefBuilder_SetDomain(b, row->domain);
  if (!st) st = e->KernelDefBuilder_SetSinceVersion(b, start, end);
  if (!st) st = e->KernelDefBuilder_SetExecutionProvider(b, OM_EP_NAME);
  if (!st && (row->flags & OM_F_INPLACE)) { /* as stock ORT's element-wise kernels: output 0 may reuse input 0 */
    static const int zero = 0;
    st = e->KernelDefBuilder_AddInputOutputMutableAliases(b, &zero, &zero, 1);
  }
  if (!st && om_ep_output_aliases_input(op)) {
    static const int zero = 0;
    st = e->KernelDefBuilder_AddInputOutputAliases(b, &zero, &zero, 1);
  }
  if (!st) st = e->KernelDefBuilder_Build(b, &def);
  state->ep = ep;
  state->op = op;
  state->opset = opset;
  if (!st) st = e->KernelRegistry_AddKernel(ep->registry, def, om_ep_kernel_create, state);
  if (def) e->ReleaseKernelDef(def);
  if (b) e->ReleaseKernelDefBuilder(b);
  return st;
}

OrtStatus* om_ep_registry_create(om_ep* ep) {
  OrtStatus* st = ep->ep_api->CreateKernelRegistry(&ep->registry);
  for (int op = 0; !st && op < OM_OP_COUNT; op++) {
    int split = om_op_semantics_split(op);
    if (!split) {
      st = om_ep_add_kernel(ep, op, 1, OM_EP_MAX_OPSET, 0, &ep->states[op]);
      continue;
    }
    st = om_ep_add_kernel(ep, op, 1, split - 1, split - 1, &ep->states[op]);
    if (!st) st = om_ep_add_kernel(ep, op, split, OM_EP_MAX_OPSET, split, &ep->states[OM_OP_COUNT + op]);
  }
  if (st && ep->registry) {
    ep->ep_api->ReleaseKernelRegistry(ep->registry);
    ep->registry = NULL;
  }
  return st;
}
