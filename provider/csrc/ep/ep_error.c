/* ep_error.c - the EP's error status (ep_error.h): ort/'s status, which the custom ops and om_kernel return too. */
#include "ep_error.h"

#include "ort/ort_status.h"

OrtStatus* om_ep_error(const OrtApi* api, OrtErrorCode code, const char* msg) { return om_ort_error(api, code, msg); }
