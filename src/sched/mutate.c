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

/* A fresh scheduler with s's profiles and options (configuration order; every profile kept). */
static kp_status rebuild(kp_sched *s, kp_sched **out, kp_error *err) {
    kp_sched_config cfg = s->prof[0].cfg;
    kp_sched_config *more = NULL;
    if (s->n_prof > 1) {
        more = kp__malloc((s->n_prof - 1) * sizeof *more);
        if (!more) return kp_error_set(err, KP_ENOMEM, "scheduler: out of memory");
        for (uint32_t k = 1; k < s->n_prof; k++) more[k - 1] = s->prof[k].cfg;
    }
    cfg.more = more;
    cfg.n_more = s->n_prof - 1;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.until_settled = s->until_settled;
    o.protect_pod = s->protect_pod;
    char compat[16];
    if (s->compat != KP_COMPAT_NEWEST) {
        snprintf(compat, sizeof compat, "1.%u", (unsigned)s->compat);
        o.compat = compat;
    }
    kp_status st = kp_sched_new(s->cl, &cfg, &o, out, err);
    kp__free(more);
    return st;
}

/* Moves s's running state into n (the results, the PRNG, the node-search start, time). */
static kp_status carry_over(kp_sched *s, kp_sched *n) {
    n->prng = s->prng;
    n->now = s->now;
    n->next_start = n->n_order ? s->next_start % n->n_order : 0;
    n->seen_deleted = s->cl->n_deleted_log;
    n->gen = s->cl->gen_struct;
    for (uint32_t i = 0; i < n->n_res; i++) { /* kp_sched_new made none; be safe */
        kp__free(n->res[i].victims);
        kp__free(n->res[i].victim_nodes);
        kp__free(n->res[i].message);
    }
    kp__free(n->res);
    n->res = s->res;
    n->n_res = s->n_res;
    n->cap_res = s->cap_res;
    s->res = NULL;
    s->n_res = s->cap_res = 0;
    for (uint32_t i = 0; i < s->n_pods_seen && i < n->n_pods_seen; i++)
        n->res_of_pod[i] = s->res_of_pod[i];
    return KP_OK;
}

kp_status kp_sched_sync(kp_sched *s, kp_error *err) {
    kp_cluster *cl = s->cl;
    /* deletions: deletePodFromCache has moved the pod off its node (kp_cluster_delete_pod);
     * the nominator forgets it */
    for (; s->seen_deleted < cl->n_deleted_log; s->seen_deleted++) {
        uint32_t pod = cl->deleted_log[s->seen_deleted];
        if (pod < s->n_pods_seen && s->nom_of[pod] >= 0) kp__sched_nominate(s, pod, -1);
    }
    if (s->gen == cl->gen_struct) return KP_OK;
    kp_sched *n = NULL;
    kp_status st = rebuild(s, &n, err);
    if (st != KP_OK) return st;
    carry_over(s, n);
    /* swap the contents: s keeps its address (callers hold it), the old state is freed */
    kp_sched tmp = *s;
    *s = *n;
    *n = tmp;
    kp_sched_free(n);
    return KP_OK;
}
