/* DRA-backed extended resources (DRAExtendedResource, GA and locked on in v1.37): a pod that
 * requests an extended resource a DeviceClass serves (its spec.extendedResourceName, or the
 * implicit "deviceclass.resource.kubernetes.io/<class>") gets it from DRA on a node that does not
 * advertise the resource in its allocatable, through one claim the scheduler makes for the pod
 * (pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go). A node that
 * advertises it serves it through its device plugin: NodeResourcesFit checks it there, as
 * before.
 *
 * The hooks of NodeResourcesFit (which requests it checks on which node) and of DynamicResources
 * (PreFilter, Filter per node, PostFilter's message, PreBind) live here; dynamic_resources.c
 * calls them. */
#ifndef KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_EXT_H
#define KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_EXT_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/dra/allocator.h"
#include "sched/framework.h"

/* The Filter reasons (upstream's texts). */
#define KP_REASON_DRA_EXT_STALE "cannot schedule extended resource claim"
#define KP_REASON_DRA_EXT_NO_FIT "cannot fit resource"

typedef struct kp_dra_ext kp_dra_ext;

/* (kp__dra_ext_wanted and kp__dra_ext_backed: core/dra.h) */
/* NodeResourcesFit's check of the DRA-backed requests c->fit_dra_* on node n (mirrors
 * shouldDelegateResourceToDRA inside fitsRequest): a node advertising the resource is checked
 * as fitsRequest checks any scalar resource ("Insufficient <name>"); on the others DRA serves it
 * (DynamicResources' Filter). */
void kp__dra_ext_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st);

/* PreFilter (mirrors preFilterExtendedResources): *out NULL when p requests no DRA-backed
 * extended resource; else the pod's state over the claims still to allocate to_alloc[n] (the
 * user's, in the pod's order), the allocator features f. KP_ENOMEM. */
kp_status kp__dra_ext_prefilter(kp_cycle *c, const uint32_t *to_alloc, uint32_t n,
                                const kp_dra_features *f, kp_dra_ext **out);
void kp__dra_ext_free(kp_dra_ext *x);
/* Filter on node (mirrors filterExtendedResources and the choice of the node's claims): false
 * with st set (UnschedulableAndUnresolvable) when the node cannot serve the pod; true with *al
 * the allocator of the node's claims to allocate (the user's, plus the node's variant of the
 * extended-resource claim when DRA serves something there; NULL: nothing to allocate). KP_ENOMEM
 * in *status. */
bool kp__dra_ext_filter(kp_dra_ext *x, const kp_cycle *c, uint32_t node, kp_node_status *st,
                        kp_dra_alloc **al, kp_status *status);
/* PostFilter: true when the pod's extended-resource claim is one a previous attempt created
 * (upstream deletes it: "deletion of ResourceClaim completed"). */
bool kp__dra_ext_stale(const kp_dra_ext *x);
/* PreBind for the node's extended-resource claim whose allocation is a (mirrors bindClaim's
 * createExtendedResourceClaimInAPI and patchPodExtendedResourceClaimStatus): the claim created
 * through core with the generated name "<pod>-extended-resources-" plus 5 characters of the
 * scheduler's seeded PRNG, allocated, reserved for the pod, and the pod's
 * status.extendedResourceClaimStatus written. KP_ENOMEM, KP_EINVAL. */
kp_status kp__dra_ext_bind(kp_dra_ext *x, kp_cycle *c, uint32_t node, const kp_dra_claim_alloc *a);

#endif
