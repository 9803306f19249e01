/* custom_ops_subset.c - the custom-op domain of the ops a session lists (session config entry
 * "onemodel.custom_ops"): ORT builds a schema and a kernel registration for each op of a registered domain in
 * every session, so a session registering the ~750 entries of every op costs ~38 ms to create, one
 * registering the few its model uses ~1 ms. A domain must outlive the sessions that use it, so each distinct
 * set of ops gets one domain, kept for the process's life (OM_SUBSET_CACHE_MAX of them, under a lock; why a
 * bound and no freeing: custom_ops_subset.h, docs/architecture.md).
 */
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "custom_ops_subset.h"

#if defined(_WIN32)
#include <windows.h>
static SRWLOCK om_subset_lock = SRWLOCK_INIT;
#define OM_SUBSET_LOCK() AcquireSRWLockExclusive(&om_subset_lock)
#define OM_SUBSET_UNLOCK() ReleaseSRWLockExclusive(&om_subset_lock)
#else
#include <pthread.h>
static pthread_mutex_t om_subset_lock = PTHREAD_MUTEX_INITIALIZER;
#define OM_SUBSET_LOCK() pthread_mutex_lock(&om_subset_lock)
#define OM_SUBSET_UNLOCK() pthread_mutex_unlock(&om_subset_lock)
#endif

#define OM_ROW_BYTES ((OM_OP_COUNT + 7) / 8)

/* A set of op rows, one bit a row: the cache's key, whatever the list's order, repeats or unknown names. */
typedef struct om_subset {
  unsigned char rows[OM_ROW_BYTES];
  OrtCustomOpDomain* domain;
} om_subset;

static om_subset om_subsets[OM_SUBSET_CACHE_MAX];
static int om_n_subsets;

static int om_has_row(const unsigned char* rows, int op) { return (rows[op / 8] >> (op % 8)) & 1; }

/* Marks in `rows` the row of each comma-separated name of `list` (spaces around a name are ignored). */
static void om_parse_list(char* list, unsigned char* rows) {
  memset(rows, 0, OM_ROW_BYTES);
  for (char* name = list; name;) {
    char* comma = strchr(name, ',');
    if (comma) *comma = '\0';
    while (*name == ' ') name++;
    for (size_t len = strlen(name); len && name[len - 1] == ' '; len--) name[len - 1] = '\0';
    int op = om_op_find(name);
    if (op >= 0) rows[op / 8] |= (unsigned char)(1u << (op % 8));
    name = comma ? comma + 1 : NULL;
  }
}

/* The rows `so` lists (*has 1), or *has 0 when it has no OM_CUSTOM_OPS_KEY entry. */
static OrtStatus* om_read_rows(const OrtApi* api, const OrtSessionOptions* so, unsigned char* rows, int* has) {
  int present = 0;
  *has = 0;
  OrtStatus* st = api->HasSessionConfigEntry(so, OM_CUSTOM_OPS_KEY, &present);
  if (st || !present) return st;
  size_t size = 0; /* with no buffer, ORT answers the size the value needs, its terminating NUL included */
  if ((st = api->GetSessionConfigEntry(so, OM_CUSTOM_OPS_KEY, NULL, &size))) return st;
  char* list = malloc(size + 1);
  if (!list) return api->CreateStatus(ORT_FAIL, "OneModel EP: out of memory reading " OM_CUSTOM_OPS_KEY);
  if (!(st = api->GetSessionConfigEntry(so, OM_CUSTOM_OPS_KEY, list, &size))) {
    list[size < 1 ? 0 : size - 1] = '\0';
    om_parse_list(list, rows);
    *has = 1;
  }
  free(list);
  return st;
}

static OrtStatus* om_make_domain(const OrtApi* api, const char* name, const unsigned char* rows, size_t n,
                                 om_custom_op_entry entry, OrtCustomOpDomain** out) {
  OrtCustomOpDomain* domain = NULL;
  OrtStatus* st = api->CreateCustomOpDomain(name, &domain);
  for (size_t j = 0; !st && j < n; j++) {
    int op = 0;
    const OrtCustomOp* c = entry(j, &op);
    if (om_has_row(rows, op)) st = api->CustomOpDomain_Add(domain, c);
  }
  if (st && domain) api->ReleaseCustomOpDomain(domain);
  *out = st ? NULL : domain;
  return st;
}

OrtStatus* om_custom_ops_subset(const OrtApi* api, const OrtSessionOptions* so, const char* name, size_t n,
                                om_custom_op_entry entry, OrtCustomOpDomain** out) {
  unsigned char rows[OM_ROW_BYTES];
  int has = 0;
  *out = NULL;
  OrtStatus* st = om_read_rows(api, so, rows, &has);
  if (st || !has) return st;
  OM_SUBSET_LOCK();
  for (int k = 0; k < om_n_subsets && !*out; k++)
    if (memcmp(om_subsets[k].rows, rows, OM_ROW_BYTES) == 0) *out = om_subsets[k].domain;
  if (!*out && om_n_subsets < OM_SUBSET_CACHE_MAX && !(st = om_make_domain(api, name, rows, n, entry, out))) {
    memcpy(om_subsets[om_n_subsets].rows, rows, OM_ROW_BYTES);
    om_subsets[om_n_subsets++].domain = *out;
  }
  OM_SUBSET_UNLOCK();
  return st;
}
