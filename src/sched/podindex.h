/* Pod index for the InterPodAffinity / PodTopologySpread PreFilter (internal to src/sched/).
 *
 * Lists of pods by namespace and by (label key, value), plus the pods carrying required
 * anti-affinity. Every pod of the cluster is indexed, bound or not: labels, namespaces and
 * affinity never change during a run, only a pod's node does, so the lists never need updating
 * when the scheduler binds a pod or preemption removes / re-adds one. Readers check pod->node
 * (>= 0: on a node now) themselves. The index is built on first use. Pods added to the cluster
 * later (the simulator's) join growable lists of the same keys (the tail), read with the built
 * lists; the index is rebuilt whole once the tail passes a quarter of the built pods (or the pod
 * count went down). */
#ifndef KP_SCHED_PODINDEX_H
#define KP_SCHED_PODINDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/labels.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/pairmap.h"

/* A growable pod list of the tail. */
typedef struct {
    uint32_t *v;
    uint32_t n, cap;
} kp_ix_vec;

typedef struct {
    bool built;
    uint32_t n_pods; /* pods indexed: cl->n_pods when built or last grown */
    uint32_t n_built; /* pods in the built lists; [n_built, n_pods) are in the tail */
    kp_pairmap ns_map; /* namespace id -> list number + 1 */
    uint32_t *ns_off; /* list k: ns_pods[ns_off[k] .. ns_off[k+1]) */
    uint32_t *ns_pods;
    kp_pairmap lbl_map; /* kp__pair(key, value) -> list number + 1 */
    uint32_t *lbl_off;
    uint32_t *lbl_pods;
    uint32_t *anti_pods; /* pods with required anti-affinity, in pod order */
    uint32_t n_anti, cap_anti;
    kp_pairmap t_ns_map, t_lbl_map; /* the tail's keys -> tail list number + 1 */
    kp_ix_vec *t_lists;
    uint32_t n_t_lists, cap_t_lists;
} kp_podindex;

/* The most value lists a plan unions. rule 8: not a limit on an answer: a selector value set
 * larger than this is not used to narrow the plan, which then falls back to another option or
 * to every pod; a plan is only a superset, every candidate is still matched in full. */
#define KP_IX_MAX_LISTS 16

/* A superset of the pods a selector can match: the union of n_lists disjoint pod lists (a built
 * list and the tail's list of the same key, per key), or every pod of the cluster (all). Pods
 * appear at most once. */
typedef struct {
    bool all;
    uint32_t n_lists;
    const uint32_t *pods[2 * KP_IX_MAX_LISTS];
    uint32_t n[2 * KP_IX_MAX_LISTS];
} kp_ix_plan;

/* Iteration over a plan's candidates: kp_ix_iter it = {plan, cl->n_pods, 0, 0};
 * while (kp__ix_next(&it, &pod)) ... */
typedef struct {
    const kp_ix_plan *p;
    uint32_t n_all; /* cluster pod count (for `all`) */
    uint32_t list, pos;
} kp_ix_iter;

static inline bool kp__ix_next(kp_ix_iter *it, uint32_t *pod) {
    if (it->p->all) {
        if (it->pos >= it->n_all) return false;
        *pod = it->pos++;
        return true;
    }
    while (it->list < it->p->n_lists) {
        if (it->pos < it->p->n[it->list]) {
            *pod = it->p->pods[it->list][it->pos++];
            return true;
        }
        it->list++;
        it->pos = 0;
    }
    return false;
}

/* Builds the index if needed (KP_ENOMEM on allocation failure; the index is then unusable). */
kp_status kp__podindex_ensure(kp_podindex *ix, const kp_cluster *cl);
void kp__podindex_fini(kp_podindex *ix);

/* Candidates for a label selector (plus extra `key In (value)` requirements) restricted to the
 * namespaces ns[0..n_ns) (n_ns == 0: any namespace). Picks the smallest of the lists the
 * requirements allow. A nil selector yields an empty plan (it matches nothing). */
void kp__podindex_plan(const kp_podindex *ix, const kp_label_selector *sel, const kp_label *extra,
                       uint16_t n_extra, const kp_str *ns, uint16_t n_ns, kp_ix_plan *out);

/* Candidates for a v1 PodAffinityTerm owned by owner (its namespaces / namespaceSelector). */
void kp__podindex_plan_term(const kp_podindex *ix, const kp_pod_affinity_term *t,
                            const kp_pod *owner, kp_ix_plan *out);

/* Number of candidate pods of a plan (cluster pod count for `all`). */
uint64_t kp__podindex_plan_size(const kp_ix_plan *p, const kp_cluster *cl);

#endif
