/* ort_api.h - the part of the ONNX Runtime C API that OneModel EP uses.
 *
 * ORT's Python wheels ship no C headers, so this file declares, from the published API layout, exactly what
 * we call. OrtApi is append-only: member N keeps its place in every later release, so a struct that names the
 * members we use and keeps placeholders for the others is binary compatible with every ORT whose
 * GetApi(OM_ORT_API_VERSION) succeeds. The member indices were taken from the official header of API
 * version 21 (ORT 1.21); the comment before each member is its index. OrtCustomOp is versioned: ORT reads the
 * members up to the version we put in OrtCustomOp.version.
 *
 * Only ORT glue code (ort/, ep/) includes this file; kernels never do.
 */
#ifndef OM_ORT_API_H
#define OM_ORT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OM_ORT_API_VERSION 21u
/* GetTensorElementTypeAndShapeDataReference (member 414) came with API version 24 (ORT 1.24): the shape of an
 * input without the OrtTensorTypeAndShapeInfo that GetTensorTypeAndShape allocates and frees per call. Its
 * index is 3312 / 8 in the published layout, and was checked against ORT 1.31.1 by calling it on a tensor
 * made through members 69 and 49 (type FLOAT, shape 2x3x4 read back: tools/verify/ort_api_slot_check.py). */
#define OM_ORT_API_SHAPE_REF_VERSION 24u
/* KernelInfoGetAttributeArray_string (member 417, after 414 and RunOptions{Enable,Disable}Profiling 415-416):
 * a kernel's list-of-strings attribute (RNN's, LSTM's and GRU's `activations`). The published header of API
 * version 30 has it at 3336 / 8; read only on runtimes of API 30 or newer (ORT 1.30+, from the version string:
 * ort_attrs_lists.c), so an older runtime never reads past its table. Checked on ORT 1.31.1 by reading a
 * node's `activations` back through it (tests/nodes/test_rnn_activations.py: a list the kernel could not read
 * would give the defaults' bits, which the tests tell apart). */
#define OM_ORT_API_STRINGS_VERSION 30u

#if defined(_WIN32)
#define OM_ORT_CALL __stdcall
#else
#define OM_ORT_CALL
#endif

/* The library's entry points that ORT looks up by name (the build hides everything else). */
#if defined(_WIN32)
#define OM_EXPORT __declspec(dllexport)
#else
#define OM_EXPORT __attribute__((visibility("default")))
#endif

typedef struct OrtStatus OrtStatus;
typedef struct OrtKernelInfo OrtKernelInfo;
typedef struct OrtKernelContext OrtKernelContext;
typedef struct OrtValue OrtValue;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtCustomOpDomain OrtCustomOpDomain;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtShapeInferContext OrtShapeInferContext;
typedef struct OrtOpAttr OrtOpAttr;
typedef struct OrtCustomOp OrtCustomOp;
/* The head of ORT's allocator interface: ORT fills it; we call Free on what member 417 allocated. */
typedef struct OrtAllocator {
  uint32_t version;
  void*(OM_ORT_CALL* Alloc)(struct OrtAllocator* self, size_t size);
  void(OM_ORT_CALL* Free)(struct OrtAllocator* self, void* p);
} OrtAllocator;
/* The graph API (ORT 1.23+), read by the plugin execution provider (ep_*.c) */
typedef struct OrtValueInfo OrtValueInfo;
typedef struct OrtNode OrtNode;
typedef struct OrtGraph OrtGraph;
typedef struct OrtHardwareDevice OrtHardwareDevice;

typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 = 14,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 = 15,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16
} ONNXTensorElementDataType;

typedef enum ONNXType { ONNX_TYPE_UNKNOWN = 0, ONNX_TYPE_TENSOR = 1 } ONNXType;

typedef enum OrtErrorCode {
  ORT_OK = 0, ORT_FAIL = 1, ORT_INVALID_ARGUMENT = 2, ORT_RUNTIME_EXCEPTION = 6, ORT_NOT_IMPLEMENTED = 9,
  ORT_INVALID_GRAPH = 10
} OrtErrorCode;

typedef enum OrtOpAttrType {
  ORT_OP_ATTR_UNDEFINED = 0, ORT_OP_ATTR_INT = 1, ORT_OP_ATTR_INTS = 2, ORT_OP_ATTR_FLOAT = 3,
  ORT_OP_ATTR_FLOATS = 4, ORT_OP_ATTR_STRING = 5, ORT_OP_ATTR_STRINGS = 6, ORT_OP_ATTR_GRAPH = 7,
  ORT_OP_ATTR_TENSOR = 8
} OrtOpAttrType;

typedef enum OrtMemType { OrtMemTypeDefault = 0 } OrtMemType;

typedef enum OrtHardwareDeviceType {
  OrtHardwareDeviceType_CPU = 0,
  OrtHardwareDeviceType_GPU = 1,
  OrtHardwareDeviceType_NPU = 2
} OrtHardwareDeviceType;

typedef enum OrtCustomOpInputOutputCharacteristic {
  INPUT_OUTPUT_REQUIRED = 0,
  INPUT_OUTPUT_OPTIONAL = 1,
  INPUT_OUTPUT_VARIADIC = 2
} OrtCustomOpInputOutputCharacteristic;

typedef struct OrtApi {
  /*   0 */ OrtStatus*(OM_ORT_CALL* CreateStatus)(OrtErrorCode code, const char* msg);
  /*   1 */ OrtErrorCode(OM_ORT_CALL* GetErrorCode)(const OrtStatus* status);
  /*   2 */ const char*(OM_ORT_CALL* GetErrorMessage)(const OrtStatus* status);
  /*   3 */ void* unused_3; /* CreateEnv */
  /*   4 */ void* unused_4; /* CreateEnvWithCustomLogger */
  /*   5 */ void* unused_5; /* EnableTelemetryEvents */
  /*   6 */ void* unused_6; /* DisableTelemetryEvents */
  /*   7 */ void* unused_7; /* CreateSession */
  /*   8 */ void* unused_8; /* CreateSessionFromArray */
  /*   9 */ void* unused_9; /* Run */
  /*  10 */ void* unused_10; /* CreateSessionOptions */
  /*  11 */ void* unused_11; /* SetOptimizedModelFilePath */
  /*  12 */ void* unused_12; /* CloneSessionOptions */
  /*  13 */ void* unused_13; /* SetSessionExecutionMode */
  /*  14 */ void* unused_14; /* EnableProfiling */
  /*  15 */ void* unused_15; /* DisableProfiling */
  /*  16 */ void* unused_16; /* EnableMemPattern */
  /*  17 */ void* unused_17; /* DisableMemPattern */
  /*  18 */ void* unused_18; /* EnableCpuMemArena */
  /*  19 */ void* unused_19; /* DisableCpuMemArena */
  /*  20 */ void* unused_20; /* SetSessionLogId */
  /*  21 */ void* unused_21; /* SetSessionLogVerbosityLevel */
  /*  22 */ void* unused_22; /* SetSessionLogSeverityLevel */
  /*  23 */ void* unused_23; /* SetSessionGraphOptimizationLevel */
  /*  24 */ void* unused_24; /* SetIntraOpNumThreads */
  /*  25 */ void* unused_25; /* SetInterOpNumThreads */
  /*  26 */ OrtStatus*(OM_ORT_CALL* CreateCustomOpDomain)(const char* domain, OrtCustomOpDomain** out);
  /*  27 */ OrtStatus*(OM_ORT_CALL* CustomOpDomain_Add)(OrtCustomOpDomain* domain, const OrtCustomOp* op);
  /*  28 */ OrtStatus*(OM_ORT_CALL* AddCustomOpDomain)(OrtSessionOptions* options, OrtCustomOpDomain* domain);
  /*  29 */ void* unused_29; /* RegisterCustomOpsLibrary */
  /*  30 */ void* unused_30; /* SessionGetInputCount */
  /*  31 */ void* unused_31; /* SessionGetOutputCount */
  /*  32 */ void* unused_32; /* SessionGetOverridableInitializerCount */
  /*  33 */ void* unused_33; /* SessionGetInputTypeInfo */
  /*  34 */ void* unused_34; /* SessionGetOutputTypeInfo */
  /*  35 */ void* unused_35; /* SessionGetOverridableInitializerTypeInfo */
  /*  36 */ void* unused_36; /* SessionGetInputName */
  /*  37 */ void* unused_37; /* SessionGetOutputName */
  /*  38 */ void* unused_38; /* SessionGetOverridableInitializerName */
  /*  39 */ void* unused_39; /* CreateRunOptions */
  /*  40 */ void* unused_40; /* RunOptionsSetRunLogVerbosityLevel */
  /*  41 */ void* unused_41; /* RunOptionsSetRunLogSeverityLevel */
  /*  42 */ void* unused_42; /* RunOptionsSetRunTag */
  /*  43 */ void* unused_43; /* RunOptionsGetRunLogVerbosityLevel */
  /*  44 */ void* unused_44; /* RunOptionsGetRunLogSeverityLevel */
  /*  45 */ void* unused_45; /* RunOptionsGetRunTag */
  /*  46 */ void* unused_46; /* RunOptionsSetTerminate */
  /*  47 */ void* unused_47; /* RunOptionsUnsetTerminate */
  /*  48 */ void* unused_48; /* CreateTensorAsOrtValue */
  /*  49 */ void* unused_49; /* CreateTensorWithDataAsOrtValue */
  /*  50 */ void* unused_50; /* IsTensor */
  /*  51 */ OrtStatus*(OM_ORT_CALL* GetTensorMutableData)(OrtValue* value, void** out);
  /*  52 */ void* unused_52; /* FillStringTensor */
  /*  53 */ void* unused_53; /* GetStringTensorDataLength */
  /*  54 */ void* unused_54; /* GetStringTensorContent */
  /*  55 */ OrtStatus*(OM_ORT_CALL* CastTypeInfoToTensorInfo)(const OrtTypeInfo* type_info, const OrtTensorTypeAndShapeInfo** out);
  /*  56 */ OrtStatus*(OM_ORT_CALL* GetOnnxTypeFromTypeInfo)(const OrtTypeInfo* type_info, ONNXType* out);
  /*  57 */ OrtStatus*(OM_ORT_CALL* CreateTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo** out);
  /*  58 */ OrtStatus*(OM_ORT_CALL* SetTensorElementType)(OrtTensorTypeAndShapeInfo* info, ONNXTensorElementDataType type);
  /*  59 */ OrtStatus*(OM_ORT_CALL* SetDimensions)(OrtTensorTypeAndShapeInfo* info, const int64_t* dim_values, size_t dim_count);
  /*  60 */ OrtStatus*(OM_ORT_CALL* GetTensorElementType)(const OrtTensorTypeAndShapeInfo* info, ONNXTensorElementDataType* out);
  /*  61 */ OrtStatus*(OM_ORT_CALL* GetDimensionsCount)(const OrtTensorTypeAndShapeInfo* info, size_t* out);
  /*  62 */ OrtStatus*(OM_ORT_CALL* GetDimensions)(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values, size_t dim_values_length);
  /*  63 */ OrtStatus*(OM_ORT_CALL* GetSymbolicDimensions)(const OrtTensorTypeAndShapeInfo* info, const char* dim_params[], size_t dim_params_length);
  /*  64 */ OrtStatus*(OM_ORT_CALL* GetTensorShapeElementCount)(const OrtTensorTypeAndShapeInfo* info, size_t* out);
  /*  65 */ OrtStatus*(OM_ORT_CALL* GetTensorTypeAndShape)(const OrtValue* value, OrtTensorTypeAndShapeInfo** out);
  /*  66 */ void* unused_66; /* GetTypeInfo */
  /*  67 */ void* unused_67; /* GetValueType */
  /*  68 */ void* unused_68; /* CreateMemoryInfo */
  /*  69 */ void* unused_69; /* CreateCpuMemoryInfo */
  /*  70 */ void* unused_70; /* CompareMemoryInfo */
  /*  71 */ void* unused_71; /* MemoryInfoGetName */
  /*  72 */ void* unused_72; /* MemoryInfoGetId */
  /*  73 */ void* unused_73; /* MemoryInfoGetMemType */
  /*  74 */ void* unused_74; /* MemoryInfoGetType */
  /*  75 */ void* unused_75; /* AllocatorAlloc */
  /*  76 */ void* unused_76; /* AllocatorFree */
  /*  77 */ void* unused_77; /* AllocatorGetInfo */
  /*  78 */ OrtStatus*(OM_ORT_CALL* GetAllocatorWithDefaultOptions)(OrtAllocator** out);
  /*  79 */ void* unused_79; /* AddFreeDimensionOverride */
  /*  80 */ void* unused_80; /* GetValue */
  /*  81 */ void* unused_81; /* GetValueCount */
  /*  82 */ void* unused_82; /* CreateValue */
  /*  83 */ void* unused_83; /* CreateOpaqueValue */
  /*  84 */ void* unused_84; /* GetOpaqueValue */
  /*  85 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttribute_float)(const OrtKernelInfo* info, const char* name, float* out);
  /*  86 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttribute_int64)(const OrtKernelInfo* info, const char* name, int64_t* out);
  /*  87 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttribute_string)(const OrtKernelInfo* info, const char* name, char* out, size_t* size);
  /*  88 */ OrtStatus*(OM_ORT_CALL* KernelContext_GetInputCount)(const OrtKernelContext* context, size_t* out);
  /*  89 */ OrtStatus*(OM_ORT_CALL* KernelContext_GetOutputCount)(const OrtKernelContext* context, size_t* out);
  /*  90 */ OrtStatus*(OM_ORT_CALL* KernelContext_GetInput)(const OrtKernelContext* context, size_t index, const OrtValue** out);
  /*  91 */ OrtStatus*(OM_ORT_CALL* KernelContext_GetOutput)(OrtKernelContext* context, size_t index, const int64_t* dim_values, size_t dim_count, OrtValue** out);
  /*  92 */ void* unused_92; /* ReleaseEnv */
  /*  93 */ void(OM_ORT_CALL* ReleaseStatus)(OrtStatus* input);
  /*  94 */ void* unused_94; /* ReleaseMemoryInfo */
  /*  95 */ void* unused_95; /* ReleaseSession */
  /*  96 */ void(OM_ORT_CALL* ReleaseValue)(OrtValue* input);
  /*  97 */ void* unused_97; /* ReleaseRunOptions */
  /*  98 */ void(OM_ORT_CALL* ReleaseTypeInfo)(OrtTypeInfo* input);
  /*  99 */ void(OM_ORT_CALL* ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo* input);
  /* 100 */ void* unused_100; /* ReleaseSessionOptions */
  /* 101 */ void(OM_ORT_CALL* ReleaseCustomOpDomain)(OrtCustomOpDomain* input);
  /* 102 */ void* unused_102; /* GetDenotationFromTypeInfo */
  /* 103 */ void* unused_103; /* CastTypeInfoToMapTypeInfo */
  /* 104 */ void* unused_104; /* CastTypeInfoToSequenceTypeInfo */
  /* 105 */ void* unused_105; /* GetMapKeyType */
  /* 106 */ void* unused_106; /* GetMapValueType */
  /* 107 */ void* unused_107; /* GetSequenceElementType */
  /* 108 */ void* unused_108; /* ReleaseMapTypeInfo */
  /* 109 */ void* unused_109; /* ReleaseSequenceTypeInfo */
  /* 110 */ void* unused_110; /* SessionEndProfiling */
  /* 111 */ void* unused_111; /* SessionGetModelMetadata */
  /* 112 */ void* unused_112; /* ModelMetadataGetProducerName */
  /* 113 */ void* unused_113; /* ModelMetadataGetGraphName */
  /* 114 */ void* unused_114; /* ModelMetadataGetDomain */
  /* 115 */ void* unused_115; /* ModelMetadataGetDescription */
  /* 116 */ void* unused_116; /* ModelMetadataLookupCustomMetadataMap */
  /* 117 */ void* unused_117; /* ModelMetadataGetVersion */
  /* 118 */ void* unused_118; /* ReleaseModelMetadata */
  /* 119 */ void* unused_119; /* CreateEnvWithGlobalThreadPools */
  /* 120 */ void* unused_120; /* DisablePerSessionThreads */
  /* 121 */ void* unused_121; /* CreateThreadingOptions */
  /* 122 */ void* unused_122; /* ReleaseThreadingOptions */
  /* 123 */ void* unused_123; /* ModelMetadataGetCustomMetadataMapKeys */
  /* 124 */ void* unused_124; /* AddFreeDimensionOverrideByName */
  /* 125 */ void* unused_125; /* GetAvailableProviders */
  /* 126 */ void* unused_126; /* ReleaseAvailableProviders */
  /* 127 */ void* unused_127; /* GetStringTensorElementLength */
  /* 128 */ void* unused_128; /* GetStringTensorElement */
  /* 129 */ void* unused_129; /* FillStringTensorElement */
  /* 130 */ void* unused_130; /* AddSessionConfigEntry */
  /* 131 */ void* unused_131; /* CreateAllocator */
  /* 132 */ void* unused_132; /* ReleaseAllocator */
  /* 133 */ void* unused_133; /* RunWithBinding */
  /* 134 */ void* unused_134; /* CreateIoBinding */
  /* 135 */ void* unused_135; /* ReleaseIoBinding */
  /* 136 */ void* unused_136; /* BindInput */
  /* 137 */ void* unused_137; /* BindOutput */
  /* 138 */ void* unused_138; /* BindOutputToDevice */
  /* 139 */ void* unused_139; /* GetBoundOutputNames */
  /* 140 */ void* unused_140; /* GetBoundOutputValues */
  /* 141 */ void* unused_141; /* ClearBoundInputs */
  /* 142 */ void* unused_142; /* ClearBoundOutputs */
  /* 143 */ void* unused_143; /* TensorAt */
  /* 144 */ void* unused_144; /* CreateAndRegisterAllocator */
  /* 145 */ void* unused_145; /* SetLanguageProjection */
  /* 146 */ void* unused_146; /* SessionGetProfilingStartTimeNs */
  /* 147 */ void* unused_147; /* SetGlobalIntraOpNumThreads */
  /* 148 */ void* unused_148; /* SetGlobalInterOpNumThreads */
  /* 149 */ void* unused_149; /* SetGlobalSpinControl */
  /* 150 */ void* unused_150; /* AddInitializer */
  /* 151 */ void* unused_151; /* CreateEnvWithCustomLoggerAndGlobalThreadPools */
  /* 152 */ void* unused_152; /* SessionOptionsAppendExecutionProvider_CUDA */
  /* 153 */ void* unused_153; /* SessionOptionsAppendExecutionProvider_ROCM */
  /* 154 */ void* unused_154; /* SessionOptionsAppendExecutionProvider_OpenVINO */
  /* 155 */ void* unused_155; /* SetGlobalDenormalAsZero */
  /* 156 */ void* unused_156; /* CreateArenaCfg */
  /* 157 */ void* unused_157; /* ReleaseArenaCfg */
  /* 158 */ void* unused_158; /* ModelMetadataGetGraphDescription */
  /* 159 */ void* unused_159; /* SessionOptionsAppendExecutionProvider_TensorRT */
  /* 160 */ void* unused_160; /* SetCurrentGpuDeviceId */
  /* 161 */ void* unused_161; /* GetCurrentGpuDeviceId */
  /* 162 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttributeArray_float)(const OrtKernelInfo* info, const char* name, float* out, size_t* size);
  /* 163 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttributeArray_int64)(const OrtKernelInfo* info, const char* name, int64_t* out, size_t* size);
  /* 164 */ void* unused_164; /* CreateArenaCfgV2 */
  /* 165 */ void* unused_165; /* AddRunConfigEntry */
  /* 166 */ void* unused_166; /* CreatePrepackedWeightsContainer */
  /* 167 */ void* unused_167; /* ReleasePrepackedWeightsContainer */
  /* 168 */ void* unused_168; /* CreateSessionWithPrepackedWeightsContainer */
  /* 169 */ void* unused_169; /* CreateSessionFromArrayWithPrepackedWeightsContainer */
  /* 170 */ void* unused_170; /* SessionOptionsAppendExecutionProvider_TensorRT_V2 */
  /* 171 */ void* unused_171; /* CreateTensorRTProviderOptions */
  /* 172 */ void* unused_172; /* UpdateTensorRTProviderOptions */
  /* 173 */ void* unused_173; /* GetTensorRTProviderOptionsAsString */
  /* 174 */ void* unused_174; /* ReleaseTensorRTProviderOptions */
  /* 175 */ void* unused_175; /* EnableOrtCustomOps */
  /* 176 */ void* unused_176; /* RegisterAllocator */
  /* 177 */ void* unused_177; /* UnregisterAllocator */
  /* 178 */ void* unused_178; /* IsSparseTensor */
  /* 179 */ void* unused_179; /* CreateSparseTensorAsOrtValue */
  /* 180 */ void* unused_180; /* FillSparseTensorCoo */
  /* 181 */ void* unused_181; /* FillSparseTensorCsr */
  /* 182 */ void* unused_182; /* FillSparseTensorBlockSparse */
  /* 183 */ void* unused_183; /* CreateSparseTensorWithValuesAsOrtValue */
  /* 184 */ void* unused_184; /* UseCooIndices */
  /* 185 */ void* unused_185; /* UseCsrIndices */
  /* 186 */ void* unused_186; /* UseBlockSparseIndices */
  /* 187 */ void* unused_187; /* GetSparseTensorFormat */
  /* 188 */ void* unused_188; /* GetSparseTensorValuesTypeAndShape */
  /* 189 */ void* unused_189; /* GetSparseTensorValues */
  /* 190 */ void* unused_190; /* GetSparseTensorIndicesTypeShape */
  /* 191 */ void* unused_191; /* GetSparseTensorIndices */
  /* 192 */ void* unused_192; /* HasValue */
  /* 193 */ void* unused_193; /* KernelContext_GetGPUComputeStream */
  /* 194 */ void* unused_194; /* GetTensorMemoryInfo */
  /* 195 */ void* unused_195; /* GetExecutionProviderApi */
  /* 196 */ void* unused_196; /* SessionOptionsSetCustomCreateThreadFn */
  /* 197 */ void* unused_197; /* SessionOptionsSetCustomThreadCreationOptions */
  /* 198 */ void* unused_198; /* SessionOptionsSetCustomJoinThreadFn */
  /* 199 */ void* unused_199; /* SetGlobalCustomCreateThreadFn */
  /* 200 */ void* unused_200; /* SetGlobalCustomThreadCreationOptions */
  /* 201 */ void* unused_201; /* SetGlobalCustomJoinThreadFn */
  /* 202 */ void* unused_202; /* SynchronizeBoundInputs */
  /* 203 */ void* unused_203; /* SynchronizeBoundOutputs */
  /* 204 */ void* unused_204; /* SessionOptionsAppendExecutionProvider_CUDA_V2 */
  /* 205 */ void* unused_205; /* CreateCUDAProviderOptions */
  /* 206 */ void* unused_206; /* UpdateCUDAProviderOptions */
  /* 207 */ void* unused_207; /* GetCUDAProviderOptionsAsString */
  /* 208 */ void* unused_208; /* ReleaseCUDAProviderOptions */
  /* 209 */ void* unused_209; /* SessionOptionsAppendExecutionProvider_MIGraphX */
  /* 210 */ void* unused_210; /* AddExternalInitializers */
  /* 211 */ void* unused_211; /* CreateOpAttr */
  /* 212 */ void* unused_212; /* ReleaseOpAttr */
  /* 213 */ void* unused_213; /* CreateOp */
  /* 214 */ void* unused_214; /* InvokeOp */
  /* 215 */ void* unused_215; /* ReleaseOp */
  /* 216 */ void* unused_216; /* SessionOptionsAppendExecutionProvider */
  /* 217 */ void* unused_217; /* CopyKernelInfo */
  /* 218 */ void* unused_218; /* ReleaseKernelInfo */
  /* 219 */ void* unused_219; /* GetTrainingApi */
  /* 220 */ void* unused_220; /* SessionOptionsAppendExecutionProvider_CANN */
  /* 221 */ void* unused_221; /* CreateCANNProviderOptions */
  /* 222 */ void* unused_222; /* UpdateCANNProviderOptions */
  /* 223 */ void* unused_223; /* GetCANNProviderOptionsAsString */
  /* 224 */ void* unused_224; /* ReleaseCANNProviderOptions */
  /* 225 */ void* unused_225; /* MemoryInfoGetDeviceType */
  /* 226 */ void* unused_226; /* UpdateEnvWithCustomLogLevel */
  /* 227 */ void* unused_227; /* SetGlobalIntraOpThreadAffinity */
  /* 228 */ void* unused_228; /* RegisterCustomOpsLibrary_V2 */
  /* 229 */ void* unused_229; /* RegisterCustomOpsUsingFunction */
  /* 230 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetInputCount)(const OrtKernelInfo* info, size_t* out);
  /* 231 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetOutputCount)(const OrtKernelInfo* info, size_t* out);
  /* 232 */ void* unused_232; /* KernelInfo_GetInputName */
  /* 233 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetOutputName)(const OrtKernelInfo* info, size_t index, char* out, size_t* size);
  /* 234 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetInputTypeInfo)(const OrtKernelInfo* info, size_t index, OrtTypeInfo** type_info);
  /* 235 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetOutputTypeInfo)(const OrtKernelInfo* info, size_t index, OrtTypeInfo** type_info);
  /* 236 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttribute_tensor)(const OrtKernelInfo* info, const char* name, OrtAllocator* allocator, OrtValue** out);
  /* 237 */ OrtStatus*(OM_ORT_CALL* HasSessionConfigEntry)(const OrtSessionOptions* options, const char* key, int* out);
  /* 238 */ OrtStatus*(OM_ORT_CALL* GetSessionConfigEntry)(const OrtSessionOptions* options, const char* key, char* value, size_t* size);
  /* 239 */ void* unused_239; /* SessionOptionsAppendExecutionProvider_Dnnl */
  /* 240 */ void* unused_240; /* CreateDnnlProviderOptions */
  /* 241 */ void* unused_241; /* UpdateDnnlProviderOptions */
  /* 242 */ void* unused_242; /* GetDnnlProviderOptionsAsString */
  /* 243 */ void* unused_243; /* ReleaseDnnlProviderOptions */
  /* 244 */ OrtStatus*(OM_ORT_CALL* KernelInfo_GetNodeName)(const OrtKernelInfo* info, char* out, size_t* size);
  /* 245 */ void* unused_245; /* KernelInfo_GetLogger */
  /* 246 */ void* unused_246; /* KernelContext_GetLogger */
  /* 247 */ void* unused_247; /* Logger_LogMessage */
  /* 248 */ void* unused_248; /* Logger_GetLoggingSeverityLevel */
  /* 249 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetConstantInput_tensor)(const OrtKernelInfo* info, size_t index, int* is_constant, const OrtValue** out);
  /* 250 */ void* unused_250; /* CastTypeInfoToOptionalTypeInfo */
  /* 251 */ void* unused_251; /* GetOptionalContainedTypeInfo */
  /* 252 */ void* unused_252; /* GetResizedStringTensorElementBuffer */
  /* 253 */ void* unused_253; /* KernelContext_GetAllocator */
  /* 254 */ void* unused_254; /* GetBuildInfoString */
  /* 255 */ void* unused_255; /* CreateROCMProviderOptions */
  /* 256 */ void* unused_256; /* UpdateROCMProviderOptions */
  /* 257 */ void* unused_257; /* GetROCMProviderOptionsAsString */
  /* 258 */ void* unused_258; /* ReleaseROCMProviderOptions */
  /* 259 */ void* unused_259; /* CreateAndRegisterAllocatorV2 */
  /* 260 */ void* unused_260; /* RunAsync */
  /* 261 */ void* unused_261; /* UpdateTensorRTProviderOptionsWithValue */
  /* 262 */ void* unused_262; /* GetTensorRTProviderOptionsByName */
  /* 263 */ void* unused_263; /* UpdateCUDAProviderOptionsWithValue */
  /* 264 */ void* unused_264; /* GetCUDAProviderOptionsByName */
  /* 265 */ void* unused_265; /* KernelContext_GetResource */
  /* 266 */ void* unused_266; /* SetUserLoggingFunction */
  /* 267 */ OrtStatus*(OM_ORT_CALL* ShapeInferContext_GetInputCount)(const OrtShapeInferContext* context, size_t* out);
  /* 268 */ OrtStatus*(OM_ORT_CALL* ShapeInferContext_GetInputTypeShape)(const OrtShapeInferContext* context, size_t index, OrtTensorTypeAndShapeInfo** info);
  /* 269 */ OrtStatus*(OM_ORT_CALL* ShapeInferContext_GetAttribute)(const OrtShapeInferContext* context, const char* attr_name, const OrtOpAttr** attr);
  /* 270 */ OrtStatus*(OM_ORT_CALL* ShapeInferContext_SetOutputTypeShape)(const OrtShapeInferContext* context, size_t index, const OrtTensorTypeAndShapeInfo* info);
  /* 271 */ OrtStatus*(OM_ORT_CALL* SetSymbolicDimensions)(OrtTensorTypeAndShapeInfo* info, const char* dim_params[], size_t dim_params_length);
  /* 272 */ OrtStatus*(OM_ORT_CALL* ReadOpAttr)(const OrtOpAttr* op_attr, OrtOpAttrType type, void* data, size_t len, size_t* out);
  /* 273 */ void* unused_273; /* SetDeterministicCompute */
  /* 274 */ OrtStatus*(OM_ORT_CALL* KernelContext_ParallelFor)(const OrtKernelContext* context, void (*fn)(void*, size_t), size_t total, size_t num_batch, void* usr_data);
  /* 275 */ void* unused_275; /* SessionOptionsAppendExecutionProvider_OpenVINO_V2 */
  /* 276 */ void* unused_276; /* SessionOptionsAppendExecutionProvider_VitisAI */
  /* 277 */ void* unused_277; /* KernelContext_GetScratchBuffer */
  /* 278 */ void* unused_278; /* KernelInfoGetAllocator */
  /* 279 */ void* unused_279; /* AddExternalInitializersFromFilesInMemory */
  /* 280 */ void* unused_280; /* CreateLoraAdapter */
  /* 281 */ void* unused_281; /* CreateLoraAdapterFromArray */
  /* 282 */ void* unused_282; /* ReleaseLoraAdapter */
  /* 283 */ void* unused_283; /* RunOptionsAddActiveLoraAdapter */
  /* 284 */ void* unused_284; /* SetEpDynamicOptions */
  /* The members below exist only in newer runtimes: 285-368 from API version 22/23 (ORT 1.22, 1.23; the graph
   * and execution-provider API, indices from the published layout of API version 30 and checked against ORT
   * 1.31.1 by tools/verify/ort_api_slot_check.py), 414 from API 24. Read them only after checking the runtime's
   * version (custom_ops.c, om_runtime_has_shape_ref; ep_factory.c). */
  /* 285-288 */ void* unused_285_288[4];
  /* 289 */ OrtStatus*(OM_ORT_CALL* GetValueInfoName)(const OrtValueInfo* value_info, const char** name);
  /* 290 */ OrtStatus*(OM_ORT_CALL* GetValueInfoTypeInfo)(const OrtValueInfo* value_info, const OrtTypeInfo** type_info);
  /* 291-306 */ void* unused_291_306[16];
  /* 307 */ OrtHardwareDeviceType(OM_ORT_CALL* HardwareDevice_Type)(const OrtHardwareDevice* device);
  /* 308-316 */ void* unused_308_316[9];
  /* 317 */ const struct OrtEpApi*(OM_ORT_CALL* GetEpApi)(void);
  /* 318-322 */ void* unused_318_322[5];
  /* 323 */ void* unused_323; /* ValueInfo_GetValueProducer */
  /* 324 */ OrtStatus*(OM_ORT_CALL* ValueInfo_GetValueNumConsumers)(const OrtValueInfo* value_info, size_t* num_consumers);
  /* 325 */ OrtStatus*(OM_ORT_CALL* ValueInfo_GetValueConsumers)(const OrtValueInfo* value_info, const OrtNode** nodes, int64_t* input_indices, size_t num_consumers);
  /* 326 */ OrtStatus*(OM_ORT_CALL* ValueInfo_GetInitializerValue)(const OrtValueInfo* value_info, const OrtValue** initializer_value);
  /* 327-329 */ void* unused_327_329[3];
  /* 330 */ OrtStatus*(OM_ORT_CALL* ValueInfo_IsGraphOutput)(const OrtValueInfo* value_info, bool* is_graph_output);
  /* 331 */ OrtStatus*(OM_ORT_CALL* ValueInfo_IsConstantInitializer)(const OrtValueInfo* value_info, bool* is_constant_initializer);
  /* 332-335 */ void* unused_332_335[4];
  /* 336 */ OrtStatus*(OM_ORT_CALL* Graph_GetNumOperatorSets)(const OrtGraph* graph, size_t* num_operator_sets);
  /* 337 */ OrtStatus*(OM_ORT_CALL* Graph_GetOperatorSets)(const OrtGraph* graph, const char** domains, int64_t* opset_versions, size_t num_operator_sets);
  /* 338-343 */ void* unused_338_343[6];
  /* 344 */ OrtStatus*(OM_ORT_CALL* Graph_GetNumNodes)(const OrtGraph* graph, size_t* num_nodes);
  /* 345 */ OrtStatus*(OM_ORT_CALL* Graph_GetNodes)(const OrtGraph* graph, const OrtNode** nodes, size_t num_nodes);
  /* 346 */ OrtStatus*(OM_ORT_CALL* Graph_GetParentNode)(const OrtGraph* graph, const OrtNode** node);
  /* 347-348 */ void* unused_347_348[2];
  /* 349 */ OrtStatus*(OM_ORT_CALL* Node_GetName)(const OrtNode* node, const char** node_name);
  /* 350 */ OrtStatus*(OM_ORT_CALL* Node_GetOperatorType)(const OrtNode* node, const char** operator_type);
  /* 351 */ OrtStatus*(OM_ORT_CALL* Node_GetDomain)(const OrtNode* node, const char** domain_name);
  /* 352 */ OrtStatus*(OM_ORT_CALL* Node_GetSinceVersion)(const OrtNode* node, int* since_version);
  /* 353 */ OrtStatus*(OM_ORT_CALL* Node_GetNumInputs)(const OrtNode* node, size_t* num_inputs);
  /* 354 */ OrtStatus*(OM_ORT_CALL* Node_GetInputs)(const OrtNode* node, const OrtValueInfo** inputs, size_t num_inputs);
  /* 355 */ OrtStatus*(OM_ORT_CALL* Node_GetNumOutputs)(const OrtNode* node, size_t* num_outputs);
  /* 356 */ OrtStatus*(OM_ORT_CALL* Node_GetOutputs)(const OrtNode* node, const OrtValueInfo** outputs, size_t num_outputs);
  /* 357-360 */ void* unused_357_360[4];
  /* 361 */ OrtStatus*(OM_ORT_CALL* Node_GetAttributeByName)(const OrtNode* node, const char* attribute_name, const OrtOpAttr** attribute);
  /* 362 */ OrtStatus*(OM_ORT_CALL* OpAttr_GetTensorAttributeAsOrtValue)(const OrtOpAttr* attribute, OrtValue** attr_tensor);
  /* 363 */ OrtStatus*(OM_ORT_CALL* OpAttr_GetType)(const OrtOpAttr* attribute, OrtOpAttrType* type);
  /* 364-413 */ void* unused_364_413[50];
  /* 414 */ OrtStatus*(OM_ORT_CALL* GetTensorElementTypeAndShapeDataReference)(const OrtValue* value, ONNXTensorElementDataType* elem_type, const int64_t** shape_data, size_t* shape_data_count);
  /* 415-416 */ void* unused_415_416[2]; /* RunOptionsEnableProfiling, RunOptionsDisableProfiling */
  /* 417 */ OrtStatus*(OM_ORT_CALL* KernelInfoGetAttributeArray_string)(const OrtKernelInfo* info, const char* name, OrtAllocator* allocator, char*** out, size_t* size);
} OrtApi;

/* Each named member sits at the index its comment gives (a wrong placeholder count fails the build). */
_Static_assert(offsetof(OrtApi, ReadOpAttr) == 272 * sizeof(void*), "OrtApi layout: ReadOpAttr is member 272");
_Static_assert(offsetof(OrtApi, GetEpApi) == 317 * sizeof(void*), "OrtApi layout: GetEpApi is member 317");
_Static_assert(offsetof(OrtApi, ValueInfo_GetValueConsumers) == 325 * sizeof(void*), "OrtApi: member 325");
_Static_assert(offsetof(OrtApi, ValueInfo_IsGraphOutput) == 330 * sizeof(void*), "OrtApi: member 330");
_Static_assert(offsetof(OrtApi, ValueInfo_IsConstantInitializer) == 331 * sizeof(void*), "OrtApi: member 331");
_Static_assert(offsetof(OrtApi, Node_GetOutputs) == 356 * sizeof(void*), "OrtApi: member 356");
_Static_assert(offsetof(OrtApi, OpAttr_GetType) == 363 * sizeof(void*), "OrtApi layout: OpAttr_GetType is member 363");
_Static_assert(offsetof(OrtApi, GetTensorElementTypeAndShapeDataReference) == 414 * sizeof(void*),
               "OrtApi layout: GetTensorElementTypeAndShapeDataReference is member 414");
_Static_assert(offsetof(OrtApi, GetAllocatorWithDefaultOptions) == 78 * sizeof(void*), "OrtApi: member 78");
_Static_assert(offsetof(OrtApi, KernelInfo_GetOutputName) == 233 * sizeof(void*), "OrtApi: member 233");
_Static_assert(offsetof(OrtApi, KernelInfoGetAttributeArray_float) == 162 * sizeof(void*), "OrtApi: member 162");
_Static_assert(offsetof(OrtApi, KernelInfoGetAttributeArray_string) == 417 * sizeof(void*), "OrtApi: member 417");
_Static_assert(offsetof(OrtApi, ReleaseValue) == 96 * sizeof(void*), "OrtApi: member 96");
_Static_assert(offsetof(OrtApi, KernelInfoGetAttribute_tensor) == 236 * sizeof(void*), "OrtApi: member 236");
_Static_assert(offsetof(OrtApi, OpAttr_GetTensorAttributeAsOrtValue) == 362 * sizeof(void*), "OrtApi: member 362");

typedef struct OrtApiBase {
  const OrtApi*(OM_ORT_CALL* GetApi)(uint32_t version);
  const char*(OM_ORT_CALL* GetVersionString)(void);
} OrtApiBase;

/* OrtCustomOp as of API version 21; ORT reads members up to `version`. */
struct OrtCustomOp {
  uint32_t version;
  void*(OM_ORT_CALL* CreateKernel)(const struct OrtCustomOp* op, const OrtApi* api, const OrtKernelInfo* info);
  const char*(OM_ORT_CALL* GetName)(const struct OrtCustomOp* op);
  const char*(OM_ORT_CALL* GetExecutionProviderType)(const struct OrtCustomOp* op);
  ONNXTensorElementDataType(OM_ORT_CALL* GetInputType)(const struct OrtCustomOp* op, size_t index);
  size_t(OM_ORT_CALL* GetInputTypeCount)(const struct OrtCustomOp* op);
  ONNXTensorElementDataType(OM_ORT_CALL* GetOutputType)(const struct OrtCustomOp* op, size_t index);
  size_t(OM_ORT_CALL* GetOutputTypeCount)(const struct OrtCustomOp* op);
  void(OM_ORT_CALL* KernelCompute)(void* op_kernel, OrtKernelContext* context);
  void(OM_ORT_CALL* KernelDestroy)(void* op_kernel);
  OrtCustomOpInputOutputCharacteristic(OM_ORT_CALL* GetInputCharacteristic)(const struct OrtCustomOp* op, size_t index);
  OrtCustomOpInputOutputCharacteristic(OM_ORT_CALL* GetOutputCharacteristic)(const struct OrtCustomOp* op, size_t index);
  OrtMemType(OM_ORT_CALL* GetInputMemoryType)(const struct OrtCustomOp* op, size_t index);
  int(OM_ORT_CALL* GetVariadicInputMinArity)(const struct OrtCustomOp* op);
  int(OM_ORT_CALL* GetVariadicInputHomogeneity)(const struct OrtCustomOp* op);
  int(OM_ORT_CALL* GetVariadicOutputMinArity)(const struct OrtCustomOp* op);
  int(OM_ORT_CALL* GetVariadicOutputHomogeneity)(const struct OrtCustomOp* op);
  OrtStatus*(OM_ORT_CALL* CreateKernelV2)(const struct OrtCustomOp* op, const OrtApi* api, const OrtKernelInfo* info,
                                          void** kernel);
  OrtStatus*(OM_ORT_CALL* KernelComputeV2)(void* op_kernel, OrtKernelContext* context);
  OrtStatus*(OM_ORT_CALL* InferOutputShapeFn)(const struct OrtCustomOp* op, OrtShapeInferContext* ctx);
  int(OM_ORT_CALL* GetStartVersion)(const struct OrtCustomOp* op);
  int(OM_ORT_CALL* GetEndVersion)(const struct OrtCustomOp* op);
  size_t(OM_ORT_CALL* GetMayInplace)(int** input_index, int** output_index);
  void(OM_ORT_CALL* ReleaseMayInplace)(int* input_index, int* output_index);
  size_t(OM_ORT_CALL* GetAliasMap)(int** input_index, int** output_index);
  void(OM_ORT_CALL* ReleaseAliasMap)(int* input_index, int* output_index);
};

#endif
