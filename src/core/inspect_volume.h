/* The volume part of `kprio inspect` (core/inspect_volume.c). */
#ifndef KP_CORE_INSPECT_VOLUME_H
#define KP_CORE_INSPECT_VOLUME_H

#include <stddef.h>

#include "core/cluster.h"
#include "kprio/inspect.h"

/* Attach-limit rows for the nodes of rows[0..n) (sorted by name): *out kp__malloc'd (NULL when
 * there is none). KP_ENOMEM. */
kp_status kp__inspect_attach_rows(const kp_cluster *cl, const kp_inspect_node *rows, size_t n,
                                  kp_inspect_attach **out, size_t *n_out);
/* Claim rows of the pending pods; rows (sorted by name) give each claim's first node. KP_ENOMEM. */
kp_status kp__inspect_claim_rows(const kp_cluster *cl, const kp_inspect_node *rows, size_t n,
                                 kp_inspect_claim **out, size_t *n_out);

#endif
