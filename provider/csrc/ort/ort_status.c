/* ort_status.c - the error status of ort/ and ep/ (ort_status.h). */
#include "ort_status.h"

#include <stdio.h>

OrtStatus* om_ort_error(const OrtApi* api, OrtErrorCode code, const char* msg) {
  char buf[768];
  snprintf(buf, sizeof buf, "OneModel EP: %s", msg);
  return api->CreateStatus(code, buf);
}
