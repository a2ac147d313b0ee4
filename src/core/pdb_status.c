/* PodDisruptionBudgets for the simulator and the controllers (include/kprio/cluster.h, "The
 * simulator's view"): what a PDB selects (getPodsForPdb), deleting one, and the writer of its
 * status. The disruption controller that computes the status is src/ctrl/disruption.c. */
#include <string.h>

#include "core/cluster.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/selector.h"
#include "kprio/cluster.h"

size_t kp_cluster_pdb_count(const kp_cluster *cl) { return cl->n_pdbs; }

kp_status kp_cluster_pdb_info(const kp_cluster *cl, kp_index pdb, kp_pdb_info *out) {
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs) return KP_EINVAL;
    const kp_pdb *b = &cl->pdbs[pdb];
    *out = (kp_pdb_info){kp__s(cl, b->ns),   kp__s(cl, b->name), b->current_healthy,
                         b->desired_healthy, b->expected_pods,   b->disruptions_allowed,
                         b->deleted};
    return KP_OK;
}

kp_index kp_cluster_find_pdb(const kp_cluster *cl, const char *ns, const char *name) {
    kp_str nsid = kp__intern_find(&cl->strs, ns, strlen(ns));
    kp_str nid = kp__intern_find(&cl->strs, name, strlen(name));
    if (nsid == UINT32_MAX || nid == UINT32_MAX) return -1;
    return kp__cluster_find_object(cl, "PodDisruptionBudget", nsid, nid);
}

kp_status kp_cluster_delete_pdb(kp_cluster *cl, kp_index pdb, kp_error *err) {
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs)
        return kp_error_set(err, KP_EINVAL, "PodDisruptionBudget index %ld is out of range", pdb);
    kp_pdb *b = &cl->pdbs[pdb];
    if (b->deleted) return KP_OK;
    b->deleted = true;
    /* its name is free again (a later create makes a new PDB), and every reader of budgets
     * rereads them (the preemption's PDB index: a deleted PDB protects nothing) */
    kp__cluster_forget_identity(cl, "PodDisruptionBudget", b->ns, b->name);
    cl->gen_pdb_status++;
    return KP_OK;
}

/* getPodsForPdb: the pods of the PDB's namespace its selector matches
 * (metav1.LabelSelectorAsSelector: nil selects nothing, empty everything); deleted pods are gone
 * from the API. Terminal pods are listed too, as the pod lister does. */
static bool selects(const kp_cluster *cl, const kp_pdb *b, const kp_pod *p) {
    if (b->deleted || p->deleted || p->ns != b->ns || !b->selector.is_set) return false;
    return kp__selector_matches(cl, &b->selector, &p->labels);
}

bool kp_cluster_pdb_selects(const kp_cluster *cl, kp_index pdb, kp_index pod) {
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs || pod < 0 || (size_t)pod >= cl->n_pods) return false;
    return selects(cl, &cl->pdbs[pdb], &cl->pods[pod]);
}

bool kp_cluster_pdb_selected(const kp_cluster *cl, kp_index pdb, kp_index pod) {
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs || pod < 0 || (size_t)pod >= cl->n_pods) return false;
    const kp_pdb *b = &cl->pdbs[pdb];
    const kp_pod *p = &cl->pods[pod];
    return p->ns == b->ns && b->selector.is_set &&
           kp__selector_matches(cl, &b->selector, &p->labels);
}

kp_status kp__cluster_pdb_set_status(kp_cluster *cl, kp_index pdb, const kp_pdb_info *s) {
    kp_pdb *b = &cl->pdbs[pdb];
    b->has_status = true;
    cl->gen_pdb_status++; /* every reader of budgets rereads them */
    if (!s) { /* failSafe: the status stays, no disruption allowed */
        b->disruptions_allowed = 0;
        return KP_OK;
    }
    b->current_healthy = s->current_healthy;
    b->desired_healthy = s->desired_healthy;
    b->expected_pods = s->expected_pods;
    b->disruptions_allowed = s->disruptions_allowed;
    return KP_OK;
}

/* ---- the Eviction API (pkg/registry/core/pod/storage/eviction.go) ---- */

/* selector.Empty(): no requirement (a nil selector too) */
static bool selector_empty(const kp_label_selector *sel) {
    return !sel->is_set || (sel->match_labels.n == 0 && sel->n_exprs == 0);
}

/* mirrors EvictionREST.Create's PDB checks: canIgnorePDB (a Succeeded, Failed or Pending pod, or
 * one being deleted: no PDB is read); getPodDisruptionBudgets (the PDBs of the pod's namespace
 * whose selector matches it; a PDB with an empty selector matches nothing here); more than one:
 * refused (500); a pod that is not Ready passes without spending a disruption under
 * unhealthyPodEvictionPolicy AlwaysAllow, and under IfHealthyBudget (the default) while
 * currentHealthy >= desiredHealthy > 0; else checkAndDecrement: 429 while disruptionsAllowed is
 * 0. The decrement itself is the caller's deletion request: the disruption controller's next
 * count no longer holds the pod healthy. */
kp_evict_verdict kp_cluster_evict_check(const kp_cluster *cl, kp_index pod, kp_index *pdb_out) {
    *pdb_out = -1;
    if (pod < 0 || (size_t)pod >= cl->n_pods) return KP_EVICT_ALLOWED;
    const kp_pod *p = &cl->pods[pod];
    if (p->deleted || kp__pod_is_terminal(p) || p->phase == KP_PHASE_PENDING ||
        p->deletion_ts != KP_TIME_NONE)
        return KP_EVICT_ALLOWED; /* canIgnorePDB */
    kp_index found = -1;
    for (size_t i = 0; i < cl->n_pdbs; i++) {
        const kp_pdb *b = &cl->pdbs[i];
        if (b->deleted || selector_empty(&b->selector) ||
            !kp_cluster_pdb_selects(cl, (kp_index)i, pod))
            continue;
        if (found >= 0) {
            *pdb_out = found;
            return KP_EVICT_MULTIPLE_PDBS;
        }
        found = (kp_index)i;
    }
    *pdb_out = found;
    if (found < 0) return KP_EVICT_ALLOWED;
    const kp_pdb *b = &cl->pdbs[found];
    if (!kp__pod_ready(p) &&
        (b->always_allow || (b->current_healthy >= b->desired_healthy && b->desired_healthy > 0)))
        return KP_EVICT_ALLOWED_UNHEALTHY;
    return b->disruptions_allowed > 0 ? KP_EVICT_ALLOWED : KP_EVICT_TOO_MANY_REQUESTS;
}
