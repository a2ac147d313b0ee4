/* The scheduler over a cluster that changes between attempts (the simulator's use): virtual
 * time, and catching up with the cluster's changes as upstream's informers keep the scheduler's
 * cache and queue in step (eventhandlers.go: deletePodFromCache and the nominator's delete on a
 * pod delete; addNodeToCache / updateNodeInCache on node events).
 *
 * A deleted pod is cheap: it leaves the nominator (its node already dropped it). A created pod
 * or node, or a changed node, rebuilds every structure derived from the cluster (node order,
 * indexes, reasons, per-node caches) by creating a fresh scheduler with the same profiles and
 * options and moving the running state across: the PRNG, the round-robin start of the node
 * search (nextStartNodeIndex), the virtual time and the results. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/compat.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/preempt/preempt.h"

void kp_sched_set_time(kp_sched *s, int64_t now) { s->now = now; }

const kp_sched_pod_result *kp_sched_result_of(const kp_sched *s, kp_index pod) {
    if (pod < 0 || (size_t)pod >= s->n_pods_seen || s->res_of_pod[pod] < 0) return NULL;
    return &s->res[s->res_of_pod[pod]].pub;
}

bool kp_sched_serves(const kp_sched *s, kp_index pod) {
    if (pod < 0 || (size_t)pod >= s->cl->n_pods) return false;
    return kp__sched_profile_of(s, &s->cl->pods[pod]) >= 0;
}
