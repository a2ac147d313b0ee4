/* Resource names and sparse resource lists (internal).
 *
 * Resource amounts are exact int64 in upstream's integer units: cpu in millicores (MilliValue),
 * everything else Value() rounded up (bytes, counts). Resource names are registered once per
 * cluster in cl->res_names (KP_RES_CPU.. fixed first) so per-node aggregates are small dense
 * arrays indexed by resource. */
#ifndef KP_CORE_RESOURCES_H
#define KP_CORE_RESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "kprio/cluster.h"

#define KP_MAX_RES 32 /* distinct resource names per cluster (cpu, memory, ... extended) */

/* The longest valid resource name: resource names are qualified names (IsQualifiedName, as the
 * API server's validateResourceName checks them): an optional DNS-subdomain prefix of at most 253
 * characters, '/', and a name part of at most 63. The decoder rejects longer names with
 * upstream's message, so texts built from resource names have a known bound.
 * rule 8: upstream's bound, enforced as an error by kp__d_resources. */
#define KP_RESOURCE_NAME_MAX (253 + 1 + 63)
enum { KP_RES_CPU = 0, KP_RES_MEM = 1, KP_RES_EPH = 2, KP_RES_PODS = 3, KP_RES_FIXED = 4 };

/* Sparse resource list (pod-side): entries sorted by resource index. */
typedef struct {
    uint8_t res; /* index into cl->res_names */
    kp_str text; /* the quantity as written ("" when derived): messages print upstream's
                  * Quantity.String(), which depends on the spelling ("1Gi" vs "1073741824") */
    int64_t v;
} kp_resent;
typedef struct {
    uint16_t n;
    kp_resent *e;
} kp_resv;

/* Resource index for name (registered if new). -1 if the per-cluster limit (KP_MAX_RES) is
 * exceeded, -2 if the name cannot be stored (out of memory). */
int kp__res_index(kp_cluster *cl, const char *name, size_t len);
/* Value of resource r in a sparse vector (0 if absent). */
int64_t kp__resv_get(const kp_resv *v, int r);

#endif
