/* ort_status.h - the error status every ORT-facing file (ort/, ep/) returns: "OneModel EP: " + the message. */
#ifndef OM_ORT_STATUS_H
#define OM_ORT_STATUS_H

#include "ort_api.h"

/* An OrtStatus with code and "OneModel EP: " + msg. */
OrtStatus* om_ort_error(const OrtApi* api, OrtErrorCode code, const char* msg);

#endif
