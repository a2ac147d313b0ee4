/* The storage of the DRA objects inside the cluster (internal to src/core: cluster.c and dra.c):
 * the identity maps of the four kinds live with the cluster's others (cluster.c), the arrays
 * and their rules in dra.c. */
#ifndef KP_CORE_DRA_STORE_H
#define KP_CORE_DRA_STORE_H

#include <stdint.h>

#include "core/dra.h"

struct kp_cluster;

/* cluster.c: the identity map of kind. upsert: the slot of (ns, name) in *arr (elements of sz
 * bytes; *n, *cap its count and capacity): a new zeroed one, or before finalize the old one
 * zeroed with the cluster's "appears more than once" warning; NULL when out of memory or, after
 * finalize, when the identity exists. */
void *kp__cluster_dra_upsert(struct kp_cluster *cl, kp_dra_kind kind, void **arr, uint32_t *n,
                             uint32_t *cap, size_t sz, kp_str ns, kp_str name);
long kp__cluster_dra_map_get(const struct kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name);
void kp__cluster_dra_map_del(struct kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name);

/* dra.c: the object counts of each kind (a mark), dropping every object past a mark with its
 * identity, and freeing the arrays (kp_cluster_free). */
void kp__dra_counts(const struct kp_cluster *cl, uint32_t n[KP_DK_KINDS]);
void kp__dra_rollback(struct kp_cluster *cl, const uint32_t n[KP_DK_KINDS]);
void kp__dra_free(struct kp_cluster *cl);
/* The kind the API spells `kind` ("ResourceClaim", ...); false when it is not a DRA kind. */
bool kp__dra_kind_of(const char *kind, kp_dra_kind *out);

#endif
