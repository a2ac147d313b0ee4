/* The scheduler's compact per-pod array for the hot loops (issue 20, item 3): what the spread
 * and affinity counting loops read for every candidate pod, 24 bytes per pod in pod order, apart
 * from the pod records (hundreds of bytes each, mostly cold): with 100,000 pods the records no
 * longer fit in the caches, the compact array does.
 *
 * Kept in step with the cluster by kp__sched_hot_update, which every change of a pod's node or
 * deletionTimestamp made while the scheduler lives must call (bind, preemption's removals and
 * re-adds, actuation, and the state-changing public calls: added / removed / bound / deleted
 * pods). A pod index past the array (a pod added after it was built) marks it stale: the next
 * kp__sched_hot_ensure rebuilds it whole. */
#ifndef KP_SCHED_HOT_H
#define KP_SCHED_HOT_H

#include <stdint.h>

#include "core/labels.h"
#include "kprio/common.h"

typedef struct kp_sched kp_sched;

typedef struct {
    const kp_label *labels; /* the pod's labels (sorted by key id; never change in a run) */
    uint32_t n_labels;
    int32_t node; /* the node it counts on: bound and not terminating, else -1 */
    kp_str ns; /* namespace id */
    int32_t prio; /* priority */
} kp_hot_pod;

/* The array, built (or rebuilt when stale) on demand; NULL on KP_ENOMEM. */
const kp_hot_pod *kp__sched_hot_ensure(kp_sched *s);
/* Refreshes pod's entry from its record (no-op before the array is first built). */
void kp__sched_hot_update(kp_sched *s, uint32_t pod);
/* Pods were added to the cluster (kp_sched_sync without a rebuild): a built array gains their
 * entries (a stale or unbuilt one is left to kp__sched_hot_ensure). KP_ENOMEM. */
kp_status kp__sched_hot_grow(kp_sched *s);
/* Frees the array (kp_sched_free). */
void kp__sched_hot_free(kp_sched *s);

#endif
