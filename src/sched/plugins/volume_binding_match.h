/* VolumeBinding for claims not bound yet (WaitForFirstConsumer): a matching available PV or
 * dynamic provisioning on the node (binder.go FindPodVolumes' unbound part). */
#ifndef KP_SCHED_PLUGINS_VOLUME_BINDING_MATCH_H
#define KP_SCHED_PLUGINS_VOLUME_BINDING_MATCH_H

#include <stdbool.h>

#include "core/node.h"
#include "core/volume.h"
#include "sched/framework.h"

/* From c->vb_unbound: the claims to match sorted by requested size, the candidate PVs of their
 * classes (GetPodVolumeClaims' unboundVolumesDelayBinding) and the Filter's scratch, in c->vb.
 * KP_ENOMEM when out of memory. */
kp_status kp__vb_prepare(kp_cycle *c);
/* FindPodVolumes' verdict on the unbound claims: fits, unboundVolumesSatisfied false
 * (ErrReasonBindConflict) or sufficientStorage false (ErrReasonNotEnoughSpace). */
typedef enum { KP_VB_FITS = 0, KP_VB_NO_MATCH, KP_VB_NO_SPACE } kp_vb_verdict;
/* The unbound claims on node n: the verdict, with *n_chosen PVs chosen for claims and *n_prov
 * claims to provision, each with the CSIStorageCapacity that admits it (scratch in c->vb, valid
 * until the next call). */
kp_vb_verdict kp__vb_unbound(const kp_cycle *c, const kp_node *n, uint32_t *n_chosen,
                             uint32_t *n_prov);
/* The PV FindMatchingVolume picks on n for the k-th claim to match (c->vb, by size), among its
 * candidates not in chosen, or NULL. */
const kp_pv *kp__vb_find_matching(const kp_cycle *c, uint32_t k, const kp_node *n,
                                  const kp_pv *const *chosen, uint32_t n_chosen);

/* mirrors VolumeBinding.Score (StorageCapacityScoring, from v1.37): 1 and out[n] per node, 0 when
 * skipped, KP_ENOMEM (< 0). */
int kp__volume_binding_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out);
/* mirrors GetEligibleNodes: the bound claims' local PVs pinned to hostnames narrow c->allowed
 * (merged with NodeAffinity's); no node left rejects the pod in *pre. KP_ENOMEM. */
kp_status kp__vb_eligible_nodes(kp_cycle *c, kp_node_status *pre);

#endif
