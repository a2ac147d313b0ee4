/* DynamicResources (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go): a
 * pod's ResourceClaims at PreFilter (they exist, template claims are generated, an allocated
 * claim can be reserved), Filter (an allocated claim's node selector; the structured allocator
 * for the claims to allocate, sched/dra/allocator.h), Score (prioritized lists), PostFilter's
 * message, and Reserve + PreBind at the scheduler's bind: the allocation and the reservation
 * written through core's claim writers (core/dra.h). A pod without claims is skipped, as
 * upstream's PreFilter Skip does. */
#ifndef KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_H
#define KP_SCHED_PLUGINS_DYNAMIC_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dra.h"
#include "sched/framework.h"

/* The Filter reasons (upstream's texts). */
#define KP_REASON_DRA_CANNOT_ALLOCATE "cannot allocate all claims"
#define KP_REASON_DRA_NOT_AVAILABLE "resourceclaim not available on the node"

/* PreFilter: *skip when the pod has no claim to check (its Filter then does not run); a
 * rejection in *pre (UnschedulableAndUnresolvable, upstream's message). KP_ENOMEM. */
kp_status kp__dra_prefilter(kp_cycle *c, kp_node_status *pre, bool *skip);
void kp__dra_filter(const kp_cycle *c, uint32_t node, kp_node_status *st);
/* Score: normalised (DefaultNormalizeScore) prioritized-list scores of the feasible nodes;
 * 0: the pod has no claims to allocate (every score 0). */
int kp__dra_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out);
void kp__dra_fini(kp_cycle *c);
/* For preemption's arithmetic paths (like kp__volume_filters_steady): true when the pod's
 * claims do not stop it on node, a verdict no victim changes (devices are not freed by a
 * preemption in v1.37); false sends the node to the dry run that runs every Filter. */
bool kp__dra_filter_steady(const kp_cycle *c, uint32_t node);
/* KP_ENOMEM when a Filter call ran out of memory. */
kp_status kp__dra_cycle_status(const struct kp_dra_cycle *d);
/* PostFilter's status message (upstream's words): "no new claims to deallocate" for a pod
 * whose PreFilter found no claims, "deallocation of ResourceClaim completed" when an allocated
 * claim that was not available on some node is held by nobody else, else "still not
 * schedulable". */
const char *kp__dra_postfilter(const kp_cycle *c);
/* Reserve + PreBind (bindClaim) once the pod is bound to node: each claim to allocate gets the
 * node's allocation, every claim the pod in reservedFor. KP_ENOMEM, KP_EINVAL (the claims no
 * longer fit: cannot happen within one attempt). */
kp_status kp__dra_bind(kp_cycle *c, uint32_t node);
/* The scheduler's DRA index freed (kp_sched_free). */
void kp__dra_sched_free(kp_sched *s);
/* --explain: why the pod's claims do not fit node ("" when they do or it has none). */
void kp__dra_note(const kp_cycle *c, const kp_node *n, char *buf, size_t cap);

#include "sched/plugins/dynamic_resources_bind.h"

#endif
