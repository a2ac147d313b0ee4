/* The DRA part of `kprio inspect` (core/inspect_dra.c). */
#ifndef KP_CORE_INSPECT_DRA_H
#define KP_CORE_INSPECT_DRA_H

#include <stddef.h>

#include "core/cluster.h"
#include "kprio/inspect.h"

/* The device rows and the unallocated claims' rows; their strings live in *pool (one
 * kp__malloc'd block the caller frees with the rows). KP_ENOMEM. */
kp_status kp__inspect_dra_rows(const kp_cluster *cl, kp_inspect_device **devs, size_t *n_devs,
                               kp_inspect_dra_claim **claims, size_t *n_claims, char **pool);

#endif
