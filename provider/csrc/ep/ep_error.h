/* ep_error.h - the EP's error status: every file of ep/ reports through it, and it calls none of them. */
#ifndef OM_EP_ERROR_H
#define OM_EP_ERROR_H

#include "ort/ort_api.h"

/* An OrtStatus with code and "OneModel EP: " + msg. */
OrtStatus* om_ep_error(const OrtApi* api, OrtErrorCode code, const char* msg);

#endif
