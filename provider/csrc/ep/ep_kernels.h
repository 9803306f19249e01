/* ep_kernels.h - the kernel registry of dispatch=registry (ep_kernels.c): one kernel per row of the op
 * table. */
#ifndef OM_EP_KERNELS_H
#define OM_EP_KERNELS_H

#include "ep.h"

/* One kernel per row of the op table, for ep (into ep->registry). */
OrtStatus* om_ep_registry_create(om_ep* ep);

#endif
