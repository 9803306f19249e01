/* ort_ep_api.h - the part of ONNX Runtime's plugin execution-provider ABI (onnxruntime_ep_c_api.h) that the
 * OneModel execution provider uses.
 *
 * As ort_api.h does for OrtApi, this declares from the published layout exactly what we call or implement:
 *   - OrtEpApi (returned by OrtApi::GetEpApi, member 317) is append-only like OrtApi; members 0-41 as of API
 *     version 24 (ORT 1.24), the first with kernel registries. The comment before each member is its index.
 *   - OrtEpFactory and OrtEp are structs that we fill in and ORT calls. Both are versioned: ORT reads only the
 *     members that existed in the version we put in ort_version_supported (OM_EP_ORT_VERSION, 24), and treats
 *     a NULL optional member as "not implemented". Members after those we implement are kept NULL, with room
 *     for more (a runtime that read one past our struct would otherwise read our own fields as a function).
 *   - OrtKernelImpl (version 24) is one kernel instance; ORT calls Compute per run and Release at the end.
 *   - OrtNodeComputeInfo (version 23) is one compiled node (the EP's `dispatch=compile`, ep_compile.c):
 *     OrtEp::Compile fills one per fused node, OrtEpApi member 2 (EpGraphSupportInfo_AddNodesToFuse, with
 *     no fusion options) claims the nodes for it.
 * Layout taken from ORT's header of API version 30 (whose members 0-41 and struct prefixes are those of 24) and
 * checked against ORT 1.31.1 by tools/verify/ort_api_slot_check.py (OrtEpApi members 18-37 and 40 called and their
 * results read back) and by tests/ep/test_ep.py (every member the EP uses, end to end).
 *
 * Only the execution-provider glue (ep_*.c) includes this file.
 */
#ifndef OM_ORT_EP_API_H
#define OM_ORT_EP_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ort_api.h"

/* The OrtEp / OrtEpFactory / OrtKernelImpl versions we implement, and the oldest runtime that has every
 * OrtEpApi member we call (kernel registries came with 1.24). */
#define OM_EP_ORT_VERSION 24u

typedef struct OrtEp OrtEp;
typedef struct OrtEpFactory OrtEpFactory;
typedef struct OrtEpDevice OrtEpDevice;
typedef struct OrtEpGraphSupportInfo OrtEpGraphSupportInfo;
typedef struct OrtKeyValuePairs OrtKeyValuePairs;
typedef struct OrtLogger OrtLogger;
typedef struct OrtKernelRegistry OrtKernelRegistry;
typedef struct OrtKernelDefBuilder OrtKernelDefBuilder;
typedef struct OrtKernelDef OrtKernelDef;
typedef struct OrtDataType OrtDataType;
typedef struct OrtKernelImpl OrtKernelImpl;

struct OrtKernelImpl {
  uint32_t ort_version_supported;
  OrtStatus*(OM_ORT_CALL* Compute)(OrtKernelImpl* this_ptr, OrtKernelContext* context);
  void(OM_ORT_CALL* Release)(OrtKernelImpl* this_ptr);
  void* later[16]; /* later optional members (weight pre-packing, ...): NULL */
};

/* The compute functions of one compiled (fused) node, as of version 23; ORT calls CreateState once, Compute per
 * run, ReleaseState at the end, and OrtEp::ReleaseNodeComputeInfos to free the struct. */
typedef struct OrtNodeComputeContext OrtNodeComputeContext;
typedef struct OrtNodeComputeInfo OrtNodeComputeInfo;
struct OrtNodeComputeInfo {
  uint32_t ort_version_supported;
  OrtStatus*(OM_ORT_CALL* CreateState)(OrtNodeComputeInfo* this_ptr, OrtNodeComputeContext* compute_context,
                                       void** compute_state);
  OrtStatus*(OM_ORT_CALL* Compute)(OrtNodeComputeInfo* this_ptr, void* compute_state,
                                   OrtKernelContext* kernel_context);
  void(OM_ORT_CALL* ReleaseState)(OrtNodeComputeInfo* this_ptr, void* compute_state);
};

typedef OrtStatus*(OM_ORT_CALL* OrtKernelCreateFunc)(void* kernel_create_func_state, const OrtKernelInfo* info,
                                                     OrtKernelImpl** kernel_out);

typedef struct OrtEpApi {
  /*  0 */ OrtStatus*(OM_ORT_CALL* CreateEpDevice)(OrtEpFactory* ep_factory, const OrtHardwareDevice* hardware_device,
                                                  const OrtKeyValuePairs* ep_metadata,
                                                  const OrtKeyValuePairs* ep_options, OrtEpDevice** ep_device);
  /*  1 */ void(OM_ORT_CALL* ReleaseEpDevice)(OrtEpDevice* input);
  /*  2 */ OrtStatus*(OM_ORT_CALL* EpGraphSupportInfo_AddNodesToFuse)(OrtEpGraphSupportInfo* graph_support_info,
                                                                     const OrtNode* const* nodes, size_t num_nodes,
                                                                     const void* node_fusion_options);
  /*  3 */ OrtStatus*(OM_ORT_CALL* EpGraphSupportInfo_AddSingleNode)(OrtEpGraphSupportInfo* graph_support_info,
                                                                    const OrtNode* node);
  /*  4-17 */ void* unused_4_17[14]; /* NodeComputeContext_NodeName ... ReleaseHardwareDevice */
  /* 18 */ OrtStatus*(OM_ORT_CALL* CreateKernelRegistry)(OrtKernelRegistry** kernel_registry);
  /* 19 */ void(OM_ORT_CALL* ReleaseKernelRegistry)(OrtKernelRegistry* input);
  /* 20 */ OrtStatus*(OM_ORT_CALL* KernelRegistry_AddKernel)(OrtKernelRegistry* kernel_registry,
                                                            const OrtKernelDef* kernel_def,
                                                            OrtKernelCreateFunc kernel_create_func,
                                                            void* kernel_create_func_state);
  /* 21 */ OrtStatus*(OM_ORT_CALL* CreateKernelDefBuilder)(OrtKernelDefBuilder** kernel_def_builder_out);
  /* 22 */ void(OM_ORT_CALL* ReleaseKernelDefBuilder)(OrtKernelDefBuilder* input);
  /* 23 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_SetOperatorType)(OrtKernelDefBuilder* b, const char* op_type);
  /* 24 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_SetDomain)(OrtKernelDefBuilder* b, const char* domain);
  /* 25 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_SetSinceVersion)(OrtKernelDefBuilder* b, int start, int end);
  /* 26 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_SetExecutionProvider)(OrtKernelDefBuilder* b, const char* ep_name);
  /* 27 */ void* unused_27; /* KernelDefBuilder_SetInputMemType */
  /* 28 */ void* unused_28; /* KernelDefBuilder_SetOutputMemType */
  /* 29 */ void* unused_29; /* KernelDefBuilder_AddTypeConstraint */
  /* 30 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_AddInputOutputAliases)(OrtKernelDefBuilder* b,
                                                                          const int* input_indices,
                                                                          const int* output_indices,
                                                                          size_t num_io_indices);
  /* 31 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_AddInputOutputMutableAliases)(OrtKernelDefBuilder* b,
                                                                                 const int* input_indices,
                                                                                 const int* output_indices,
                                                                                 size_t num_io_indices);
  /* 32 */ OrtStatus*(OM_ORT_CALL* KernelDefBuilder_Build)(OrtKernelDefBuilder* b, OrtKernelDef** kernel_def_out);
  /* 33 */ void(OM_ORT_CALL* ReleaseKernelDef)(OrtKernelDef* input);
  /* 34 */ const char*(OM_ORT_CALL* KernelDef_GetOperatorType)(const OrtKernelDef* kernel_def);
  /* 35 */ const char*(OM_ORT_CALL* KernelDef_GetDomain)(const OrtKernelDef* kernel_def);
  /* 36 */ OrtStatus*(OM_ORT_CALL* KernelDef_GetSinceVersion)(const OrtKernelDef* kernel_def, int* start, int* end);
  /* 37 */ const char*(OM_ORT_CALL* KernelDef_GetExecutionProvider)(const OrtKernelDef* kernel_def);
  /* 38 */ void* unused_38; /* KernelDef_GetInputMemType */
  /* 39 */ void* unused_39; /* KernelDef_GetOutputMemType */
  /* 40 */ OrtStatus*(OM_ORT_CALL* GetTensorDataType)(ONNXTensorElementDataType elem_type, const OrtDataType** out);
  /* 41 */ OrtStatus*(OM_ORT_CALL* EpGraphSupportInfo_LookUpKernel)(OrtEpGraphSupportInfo* graph_support_info,
                                                                   const OrtNode* node,
                                                                   const OrtKernelDef** out_kernel_def);
} OrtEpApi;

_Static_assert(offsetof(OrtEpApi, EpGraphSupportInfo_AddNodesToFuse) == 2 * sizeof(void*), "OrtEpApi: member 2");
_Static_assert(offsetof(OrtEpApi, CreateKernelRegistry) == 18 * sizeof(void*), "OrtEpApi: member 18");
_Static_assert(offsetof(OrtEpApi, EpGraphSupportInfo_LookUpKernel) == 41 * sizeof(void*), "OrtEpApi: member 41");

/* OrtEp as of version 24. */
struct OrtEp {
  uint32_t ort_version_supported;
  const char*(OM_ORT_CALL* GetName)(const OrtEp* this_ptr);
  OrtStatus*(OM_ORT_CALL* GetCapability)(OrtEp* this_ptr, const OrtGraph* graph, OrtEpGraphSupportInfo* info);
  /* Compile and ReleaseNodeComputeInfos: optional since 24 for an EP with a kernel registry (NULL there) */
  OrtStatus*(OM_ORT_CALL* Compile)(OrtEp* this_ptr, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                   size_t count, OrtNodeComputeInfo** node_compute_infos,
                                   OrtNode** ep_context_nodes);
  void(OM_ORT_CALL* ReleaseNodeComputeInfos)(OrtEp* this_ptr, OrtNodeComputeInfo** node_compute_infos,
                                             size_t num_node_compute_infos);
  void* GetPreferredDataLayout;           /* optional */
  void* ShouldConvertDataLayoutForOp;     /* optional */
  void* SetDynamicOptions;                /* optional */
  void* OnRunStart;                       /* optional */
  void* OnRunEnd;                         /* optional */
  void* CreateAllocator;                  /* optional */
  void* CreateSyncStreamForDevice;        /* optional */
  void* GetCompiledModelCompatibilityInfo; /* optional */
  OrtStatus*(OM_ORT_CALL* GetKernelRegistry)(OrtEp* this_ptr, const OrtKernelRegistry** kernel_registry);
  /* Later members (IsConcurrentRunSupported, Sync, CreateProfiler, graph capture, ...), all optional: NULL. */
  void* later[32];
};

/* OrtEpFactory as of version 24. */
struct OrtEpFactory {
  uint32_t ort_version_supported;
  const char*(OM_ORT_CALL* GetName)(const OrtEpFactory* this_ptr);
  const char*(OM_ORT_CALL* GetVendor)(const OrtEpFactory* this_ptr);
  OrtStatus*(OM_ORT_CALL* GetSupportedDevices)(OrtEpFactory* this_ptr, const OrtHardwareDevice* const* devices,
                                               size_t num_devices, OrtEpDevice** ep_devices, size_t max_ep_devices,
                                               size_t* num_ep_devices);
  OrtStatus*(OM_ORT_CALL* CreateEp)(OrtEpFactory* this_ptr, const OrtHardwareDevice* const* devices,
                                    const OrtKeyValuePairs* const* ep_metadata_pairs, size_t num_devices,
                                    const OrtSessionOptions* session_options, const OrtLogger* logger, OrtEp** ep);
  void(OM_ORT_CALL* ReleaseEp)(OrtEpFactory* this_ptr, OrtEp* ep);
  uint32_t(OM_ORT_CALL* GetVendorId)(const OrtEpFactory* this_ptr);
  const char*(OM_ORT_CALL* GetVersion)(const OrtEpFactory* this_ptr);
  void* ValidateCompiledModelCompatibilityInfo; /* optional */
  void* CreateAllocator;                        /* not called: no device memory of our own */
  void* ReleaseAllocator;
  OrtStatus*(OM_ORT_CALL* CreateDataTransfer)(OrtEpFactory* this_ptr, void** data_transfer);
  bool(OM_ORT_CALL* IsStreamAware)(const OrtEpFactory* this_ptr);
  void* CreateSyncStreamForDevice; /* not called: not stream aware */
  /* Later members (GetHardwareDeviceIncompatibilityDetails, CreateExternalResourceImporterForDevice,
   * GetNumCustomOpDomains, GetCustomOpDomains, ...), all optional: kept NULL, with room to spare, so that a runtime
   * reading a member of a later version than ours finds "not implemented" and never our own fields. */
  void* later[32];
};

#endif
