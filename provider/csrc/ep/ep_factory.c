/* ep_factory.c - the library as an ONNX Runtime plugin execution-provider library: CreateEpFactories /
 * ReleaseEpFactory, one factory offering the EP `OneModelExecutionProvider` on the CPU device, and the EP itself
 * (its options `mode`, `kernel_path`, `dispatch`: its kernel registry, or compiled nodes, ep_compile.c;
 * `fuse`: chains of element-wise nodes as one fused node each, ep_fuse.c; `fold`: constant groups computed once at
 * session creation, ep_const_fold.c; and `strict`: "1" refuses a graph
 * with a computing node it does not claim, ep_capability.c).
 * ORT 1.24 or newer (kernel registries); an older runtime is told so when it loads the library. Knows nothing of math. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep.h"
#include "ep_capability.h"
#include "ep_compile.h"
#include "ep_kernels.h"
#include "ort/ort_attrs.h"

/* ---- the EP -------------------------------------------------------------------------------------------------- */
static const char* OM_ORT_CALL om_ep_get_name(const OrtEp* this_ptr) {
  (void)this_ptr;
  return OM_EP_NAME;
}

static OrtStatus* OM_ORT_CALL om_ep_get_registry(OrtEp* this_ptr, const OrtKernelRegistry** registry) {
  *registry = ((om_ep*)this_ptr)->registry;
  return NULL;
}

/* Session option `key` of this EP: ORT stores the options given with the EP as "ep.<name>.<key>", the name in
 * lower case (the spelling as registered is tried too). 0 found, 1 absent, -1 too long. */
static int om_ep_option(const OrtApi* api, const OrtSessionOptions* so, const char* key, char* out, size_t cap) {
  char lower[sizeof OM_EP_NAME];
  for (size_t i = 0; i < sizeof lower; i++) lower[i] = (char)tolower((unsigned char)OM_EP_NAME[i]);
  const char* names[2] = {lower, OM_EP_NAME};
  for (int k = 0; k < 2; k++) {
    char full[160];
    snprintf(full, sizeof full, "ep.%s.%s", names[k], key);
    int has = 0;
    OrtStatus* st = api->HasSessionConfigEntry(so, full, &has);
    if (st) {
      api->ReleaseStatus(st);
      continue;
    }
    if (!has) continue;
    size_t size = cap;
    st = api->GetSessionConfigEntry(so, full, out, &size);
    if (st) {
      api->ReleaseStatus(st);
      return -1;
    }
    return 0;
  }
  return 1;
}

/* A session option with two values: absent, *out keeps its default; `first` sets 0, `second` 1; anything else
 * is an error naming the option and both values. */
static OrtStatus* om_ep_choice(const OrtApi* api, const OrtSessionOptions* so, const char* name, const char* first,
                               const char* second, int* out) {
  char val[64], msg[400];
  int r = so ? om_ep_option(api, so, name, val, sizeof val) : 1;
  if (r < 0) {
    snprintf(msg, sizeof msg, "session option '%s' is too long", name);
    return om_ep_error(api, ORT_INVALID_ARGUMENT, msg);
  }
  if (r != 0) return NULL;
  if (strcmp(val, first) == 0) *out = 0;
  else if (strcmp(val, second) == 0) *out = 1;
  else {
    snprintf(msg, sizeof msg, "%s option '%s' must be \"%s\" or \"%s\", got \"%s\"", OM_EP_NAME, name, first,
             second, val);
    return om_ep_error(api, ORT_INVALID_ARGUMENT, msg);
  }
  return NULL;
}

static OrtStatus* om_ep_read_options(const OrtApi* api, const OrtSessionOptions* so, int* mode, int* path,
                                     int* compile, int* fuse, int* fold, int* strict, int* qdq_groups) {
  char val[64], err[256], msg[400];
  *mode = OM_MODE_EXACT;
  *path = -1;
  *compile = 0;
  *fuse = 1;
  *fold = 1;
  *strict = 0;
  *qdq_groups = 1;
  OrtStatus* st = om_ep_choice(api, so, "fuse", "0", "1", fuse);
  if (!st) st = om_ep_choice(api, so, "qdq_groups", "0", "1", qdq_groups);
  if (!st) st = om_ep_choice(api, so, "fold", "0", "1", fold);
  if (!st) st = om_ep_choice(api, so, "strict", "0", "1", strict);
  if (!st) st = om_ep_choice(api, so, "dispatch", "registry", "compile", compile);
  if (st) return st;
  int r = so ? om_ep_option(api, so, "mode", val, sizeof val) : 1;
  if (r < 0) return om_ep_error(api, ORT_INVALID_ARGUMENT, "session option 'mode' is too long");
  if (r == 0 && om_attrs_mode(val, mode, err, sizeof err) != 0) {
    snprintf(msg, sizeof msg, "%s option %s", OM_EP_NAME, err + strlen("attribute "));
    return om_ep_error(api, ORT_INVALID_ARGUMENT, msg);
  }
  r = so ? om_ep_option(api, so, "kernel_path", val, sizeof val) : 1;
  if (r < 0) return om_ep_error(api, ORT_INVALID_ARGUMENT, "session option 'kernel_path' is too long");
  if (r == 0) {
    if (om_attrs_path(val, path, err, sizeof err) != 0) {
      snprintf(msg, sizeof msg, "%s option %s", OM_EP_NAME, err + strlen("attribute "));
      return om_ep_error(api, ORT_INVALID_ARGUMENT, msg);
    }
    if (!om_path_available(*path)) {
      snprintf(msg, sizeof msg, "%s option 'kernel_path': this CPU has no %s path", OM_EP_NAME, val);
      return om_ep_error(api, ORT_INVALID_ARGUMENT, msg);
    }
  }
  return NULL;
}

/* ---- the factory --------------------------------------------------------------------------------------------- */
static const char* OM_ORT_CALL om_factory_get_name(const OrtEpFactory* f) {
  (void)f;
  return OM_EP_NAME;
}
static const char* OM_ORT_CALL om_factory_get_vendor(const OrtEpFactory* f) {
  (void)f;
  return OM_EP_VENDOR;
}
static uint32_t OM_ORT_CALL om_factory_get_vendor_id(const OrtEpFactory* f) {
  (void)f;
  return 0;
}
static const char* OM_ORT_CALL om_factory_get_version(const OrtEpFactory* f) {
  (void)f;
  return "0.1.0";
}
static bool OM_ORT_CALL om_factory_is_stream_aware(const OrtEpFactory* f) {
  (void)f;
  return false;
}
static OrtStatus* OM_ORT_CALL om_factory_create_data_transfer(OrtEpFactory* f, void** data_transfer) {
  (void)f;
  *data_transfer = NULL; /* CPU memory only: ORT copies nothing for us */
  return NULL;
}

static OrtStatus* OM_ORT_CALL om_factory_get_supported_devices(OrtEpFactory* this_ptr,
                                                               const OrtHardwareDevice* const* devices,
                                                               size_t num_devices, OrtEpDevice** ep_devices,
                                                               size_t max_ep_devices, size_t* num_ep_devices) {
  om_ep_factory* f = (om_ep_factory*)this_ptr;
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices && *num_ep_devices < max_ep_devices; i++) {
    if (f->api->HardwareDevice_Type(devices[i]) != OrtHardwareDeviceType_CPU) continue;
    OrtEpDevice* d = NULL;
    OrtStatus* st = f->ep_api->CreateEpDevice(this_ptr, devices[i], NULL, NULL, &d);
    if (st) return st;
    ep_devices[(*num_ep_devices)++] = d;
    break; /* one CPU device: the EP's kernels run on the host */
  }
  return NULL;
}

static OrtStatus* OM_ORT_CALL om_factory_create_ep(OrtEpFactory* this_ptr, const OrtHardwareDevice* const* devices,
                                                   const OrtKeyValuePairs* const* ep_metadata_pairs,
                                                   size_t num_devices, const OrtSessionOptions* session_options,
                                                   const OrtLogger* logger, OrtEp** out) {
  (void)devices;
  (void)ep_metadata_pairs;
  (void)num_devices;
  (void)logger;
  om_ep_factory* f = (om_ep_factory*)this_ptr;
  *out = NULL;
  int mode, path, compile, fuse, fold, strict, qdq_groups;
  OrtStatus* st =
      om_ep_read_options(f->api, session_options, &mode, &path, &compile, &fuse, &fold, &strict, &qdq_groups);
  if (st) return st;
  om_ep* ep = calloc(1, sizeof *ep);
  if (!ep) return om_ep_error(f->api, ORT_FAIL, "out of memory");
  ep->base.ort_version_supported = OM_EP_ORT_VERSION;
  ep->base.GetName = om_ep_get_name;
  ep->base.GetCapability = om_ep_get_capability;
  /* compiled nodes: fused chains, strict mode's refusal and (dispatch=compile) every other claimed node; the
   * kernel registry for the nodes claimed alone in registry dispatch */
  ep->base.Compile = om_ep_compile;
  ep->base.ReleaseNodeComputeInfos = om_ep_release_compute_infos;
  if (!compile) ep->base.GetKernelRegistry = om_ep_get_registry;
  ep->api = f->api;
  ep->ep_api = f->ep_api;
  ep->mode = mode;
  ep->path = path;
  ep->compile = compile;
  ep->fuse = fuse;
  ep->qdq_groups = qdq_groups;
  ep->fold = fold;
  ep->strict = strict;
  st = compile ? NULL : om_ep_registry_create(ep);
  if (st) {
    free(ep);
    return st;
  }
  *out = &ep->base;
  return NULL;
}

static void OM_ORT_CALL om_factory_release_ep(OrtEpFactory* this_ptr, OrtEp* e) {
  om_ep_factory* f = (om_ep_factory*)this_ptr;
  om_ep* ep = (om_ep*)e;
  if (!ep) return;
  if (ep->registry) f->ep_api->ReleaseKernelRegistry(ep->registry);
  free(ep->strict_lines);
  free(ep);
}

/* The runtime's version from its version string ("1.24.0" and later have kernel registries); asking GetApi for a
 * version the runtime lacks prints a message on its standard error, so the string is read instead. */
static int om_version_at_least(const char* v, unsigned want_minor) {
  unsigned major = 0, minor = 0;
  if (!v || sscanf(v, "%u.%u", &major, &minor) != 2) return 0;
  return major > 1 || (major == 1 && minor >= want_minor);
}

OM_EXPORT OrtStatus* OM_ORT_CALL CreateEpFactories(const char* registered_name, const OrtApiBase* api_base,
                                                   const OrtLogger* default_logger, OrtEpFactory** factories,
                                                   size_t max_factories, size_t* num_factories) {
  (void)registered_name;
  (void)default_logger;
  *num_factories = 0;
  if (!api_base) return NULL;
  const char* version = api_base->GetVersionString ? api_base->GetVersionString() : NULL;
  if (!om_version_at_least(version, OM_EP_ORT_VERSION)) {
    const OrtApi* old = api_base->GetApi(1); /* CreateStatus is member 0 of every version */
    char msg[300];
    snprintf(msg, sizeof msg,
             "OneModel EP: the plugin execution provider needs ONNX Runtime 1.%u or newer (plugin kernel "
             "registries); this runtime is %s. Use the rewrite path (onemodel_ep.rewrite, "
             "InferenceSession(..., via=\"rewrite\")) instead",
             OM_EP_ORT_VERSION, version ? version : "older");
    return old ? old->CreateStatus(ORT_NOT_IMPLEMENTED, msg) : NULL;
  }
  om_attrs_set_runtime(version);
  const OrtApi* api = api_base->GetApi(OM_EP_ORT_VERSION);
  if (!api) return NULL;
  const OrtEpApi* ep_api = api->GetEpApi();
  if (!ep_api) return om_ep_error(api, ORT_FAIL, "this runtime has no execution-provider API");
  if (max_factories < 1) return om_ep_error(api, ORT_INVALID_ARGUMENT, "no room for a factory");
  om_ep_factory* f = calloc(1, sizeof *f);
  if (!f) return om_ep_error(api, ORT_FAIL, "out of memory");
  f->base.ort_version_supported = OM_EP_ORT_VERSION;
  f->base.GetName = om_factory_get_name;
  f->base.GetVendor = om_factory_get_vendor;
  f->base.GetSupportedDevices = om_factory_get_supported_devices;
  f->base.CreateEp = om_factory_create_ep;
  f->base.ReleaseEp = om_factory_release_ep;
  f->base.GetVendorId = om_factory_get_vendor_id;
  f->base.GetVersion = om_factory_get_version;
  f->base.CreateDataTransfer = om_factory_create_data_transfer;
  f->base.IsStreamAware = om_factory_is_stream_aware;
  f->api = api;
  f->ep_api = ep_api;
  factories[0] = &f->base;
  *num_factories = 1;
  return NULL;
}

OM_EXPORT OrtStatus* OM_ORT_CALL ReleaseEpFactory(OrtEpFactory* factory) {
  free((om_ep_factory*)factory);
  return NULL;
}
