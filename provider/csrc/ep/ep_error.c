/* ep_error.c - the EP's error status (ep_error.h). */
#include "ep_error.h"

#include <stdio.h>

OrtStatus* om_ep_error(const OrtApi* api, OrtErrorCode code, const char* msg) {
  char buf[768];
  snprintf(buf, sizeof buf, "OneModel EP: %s", msg);
  return api->CreateStatus(code, buf);
}
