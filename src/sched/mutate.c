/* The scheduler over a cluster that changes between attempts (the simulator's use): virtual
 * time, and catching up with the cluster's changes as upstream's informers keep the scheduler's
 * cache and queue in step (eventhandlers.go: deletePodFromCache and the nominator's delete on a
 * pod delete; addPodToSchedulingQueue on a pod add; addNodeToCache / updateNodeInCache on node
 * events).
 *
 * A deleted pod is cheap: it leaves the nominator (its node already dropped it). Created pending
 * pods grow the per-pod state and a cordoned or tainted node makes the taint reasons again
 * (kp__sched_catch_up). A created or deleted node, or any other object added, rebuilds every
 * structure derived from the cluster (node order, indexes, reasons, per-node caches) by creating a
 * fresh scheduler with the same profiles and options and moving the running state across: the PRNG,
 * the round-robin start of the node search (nextStartNodeIndex), the virtual time and the results.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/compat.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/plugins/pod_topology_spread_default.h"
#include "sched/preempt/preempt.h"
#include "sched/reasons.h"

void kp_sched_set_time(kp_sched *s, int64_t now) { s->now = now; }

const kp_sched_pod_result *kp_sched_result_of(const kp_sched *s, kp_index pod) {
    if (pod < 0 || (size_t)pod >= s->n_pods_seen || s->res_of_pod[pod] < 0) return NULL;
    return &s->res[s->res_of_pod[pod]].pub;
}

bool kp_sched_serves(const kp_sched *s, kp_index pod) {
    if (pod < 0 || (size_t)pod >= s->cl->n_pods) return false;
    return kp__sched_profile_of(s, &s->cl->pods[pod]) >= 0;
}

kp_index kp_sched_deallocated_claim(const kp_sched *s) { return s->dra_deallocated; }

size_t kp_sched_cleared_nominations(const kp_sched *s, const kp_index **pods) {
    *pods = s->cleared_nom;
    return s->n_cleared_nom;
}

/* Since the scheduler was built or last caught up, pending pods were added and existing nodes
 * were cordoned, uncordoned, tainted or untainted, and nothing else changed: the derived state
 * grows and the node reasons are made again instead of a rebuild (kp_sched_sync). A rebuild would
 * find the same: the node order and the image counts read only which nodes exist and their
 * labels and images; the per-node caches key on the nodes' pod lists; of a node's taints only the
 * taint reasons are kept (reasons.c), and they are made again; the new pods are not bound and
 * not nominated, so the nominator, the anti-affinity count and the affinity pod list stay; names a
 * rebuild looks up are looked up again (profiles, default spreading); the per-pod arrays grow
 * with the new entries as a rebuild sets them (no result, no nomination). The caches that key on
 * the pod count (pod index, PDB index) rebuild themselves. *done false: something else changed
 * (a node added or deleted, another object, a new pod bound or nominated): rebuild. */
kp_status kp__sched_catch_up(kp_sched *s, bool *done) {
    kp_cluster *cl = s->cl;
    *done = false;
    kp__cluster_mark m;
    kp__cluster_mark_get(cl, &m);
    const kp__cluster_mark *o = &s->seen_mark;
    /* every move of gen_struct is one of the two kinds caught up with here (a change of another
     * kind, or one a later version adds, moves gen_struct alone: rebuild) */
    if (cl->gen_struct - s->gen !=
        (cl->gen_pods - s->seen_gen_pods) + (cl->gen_nodes - s->seen_gen_nodes))
        return KP_OK;
    if (cl->n_nodes_deleted != s->seen_nodes_deleted || cl->n_res != s->seen_n_res ||
        m.n_nodes != s->n_nodes_seen || m.n_pods < s->n_pods_seen || m.n_classes != o->n_classes ||
        m.n_pdbs != o->n_pdbs || m.n_namespaces != o->n_namespaces ||
        m.n_workloads < o->n_workloads || memcmp(m.n_vol, o->n_vol, sizeof m.n_vol) != 0)
        return KP_OK;
    /* new workloads: only Jobs and CronJobs, which no plugin reads (default spreading reads
     * Services, ReplicationControllers, ReplicaSets, StatefulSets) */
    for (uint32_t i = o->n_workloads; i < m.n_workloads; i++)
        if (cl->workloads[i].kind != KP_WL_JOB && cl->workloads[i].kind != KP_WL_CRONJOB)
            return KP_OK;
    uint32_t old = s->n_pods_seen, np = cl->n_pods;
    for (uint32_t i = old; i < np; i++)
        if (cl->pods[i].node >= 0 || cl->pods[i].nominated_node) return KP_OK;
    kp_status st = KP_OK;
    if (cl->gen_nodes != s->seen_gen_nodes) { /* taints or cordons: the taint reasons again */
        kp__reasons_free(s);
        if ((st = kp__reasons_init(s)) != KP_OK) return st;
        s->seen_gen_nodes = cl->gen_nodes;
    }
    int32_t *nom_of = kp__realloc(s->nom_of, (np + 1) * sizeof *nom_of);
    if (!nom_of) return KP_ENOMEM;
    s->nom_of = nom_of;
    int32_t *res_of = kp__realloc(s->res_of_pod, (np + 1) * sizeof *res_of);
    if (!res_of) return KP_ENOMEM;
    s->res_of_pod = res_of;
    for (uint32_t i = old; i <= np; i++) nom_of[i] = res_of[i] = -1;
    uint32_t cur = s->cur;
    for (uint32_t k = 0; k < s->n_prof && st == KP_OK; k++) {
        kp_sched_profile *p = &s->prof[k];
        p->name = kp__intern_find(&cl->strs, p->cfg.scheduler_name, strlen(p->cfg.scheduler_name));
        s->cfg = p->cfg; /* kp__spread_defaults_grow reads the profile being grown */
        s->def = p->def;
        st = kp__spread_defaults_grow(s, old);
    }
    s->cur = UINT32_MAX; /* kp__sched_activate copies the profile's fields in again */
    kp__sched_activate(s, cur < s->n_prof ? cur : 0);
    if (st != KP_OK) return st;
    if ((st = kp__sched_hot_grow(s)) != KP_OK) return st;
    s->n_pods_seen = np;
    s->seen_gen_pods = cl->gen_pods;
    s->seen_mark = m;
    s->gen = cl->gen_struct;
    *done = true;
    return KP_OK;
}
