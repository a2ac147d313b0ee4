/* PodDisruptionBudgets for the simulator: what a PDB selects, and the disruption controller's
 * recount of its status (include/kprio/cluster.h, "The simulator's view"), after the disruption
 * controller (pkg/controller/disruption/disruption.go, release-1.37): getPodsForPdb,
 * getExpectedPodCount, getExpectedScale with its controller finders, countHealthyPods and
 * updatePdbStatus. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/selector.h"
#include "core/workload.h"
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

/* intstr.GetScaledValueFromIntOrPercent(v, total, roundUp true); the decoder accepted only an
 * integer or "N%" with 0 <= N <= 100. */
static int32_t scaled(const char *v, int32_t total) {
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*end != '%') return (int32_t)n;
    return (int32_t)((n * total + 99) / 100);
}

/* The scale of the pod's controller as the finders see it, keyed by the controller that owns
 * the scale (*key: a workload index). getPodReplicaSet skips a ReplicaSet a Deployment controls,
 * and getPodDeployment answers for it with the Deployment's replicas; when that Deployment is
 * not in the snapshot, the generic getScaleController reads the ReplicaSet's own scale. Kinds
 * without a scale subresource (DaemonSet, Job, ...) and controllers not in the snapshot are
 * errors ("found no controllers for pod"). A uid that does not match is not that controller. */
static bool controller_scale(const kp_cluster *cl, const kp_pod *p, const kp_owner_ref *o,
                             long *key, int32_t *scale) {
    static const kp_workload_kind scalable[] = {KP_WL_RS, KP_WL_RC, KP_WL_STS, KP_WL_DEPLOY};
    const char *kind = kp__s(cl, o->kind);
    for (size_t k = 0; k < sizeof scalable / sizeof *scalable; k++) {
        if (strcmp(kind, kp__workload_kind_name(scalable[k])) != 0) continue;
        long i = kp__cluster_find_workload(cl, scalable[k], p->ns, o->name);
        if (i < 0) return false;
        const kp_workload *w = &cl->workloads[i];
        if (o->uid && w->uid && o->uid != w->uid) return false;
        if (scalable[k] == KP_WL_RS && w->owner_kind &&
            strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0) {
            long d = kp__cluster_find_workload(cl, KP_WL_DEPLOY, w->ns, w->owner_name);
            if (d >= 0) i = d;
        }
        *key = i;
        *scale = cl->workloads[i].replicas;
        return true;
    }
    return false;
}

/* mirrors DisruptionController.getExpectedScale: the sum of the scales of the selected pods'
 * controllers, each counted once; pods without a controller are unmanaged and skipped. *ok false: a
 * controller was not found. */
static kp_status expected_scale(const kp_cluster *cl, const kp_pdb *b, int32_t *expected, bool *ok,
                                kp_error *err) {
    *expected = 0;
    *ok = true;
    uint8_t *seen = kp__calloc(cl->n_workloads ? cl->n_workloads : 1, 1);
    if (!seen)
        return kp_error_set(err, KP_ENOMEM, "PodDisruptionBudget %s/%s: out of memory",
                            kp__s(cl, b->ns), kp__s(cl, b->name));
    int64_t sum = 0;
    for (uint32_t i = 0; i < cl->n_pods && *ok; i++) {
        const kp_pod *p = &cl->pods[i];
        if (!selects(cl, b, p)) continue;
        const kp_owner_ref *o = NULL;
        for (uint16_t k = 0; k < p->n_owners && !o; k++)
            if (p->owners[k].controller) o = &p->owners[k];
        if (!o) continue;
        long key;
        int32_t scale;
        if (!controller_scale(cl, p, o, &key, &scale)) *ok = false;
        else if (!seen[key]) {
            seen[key] = 1;
            sum += scale;
        }
    }
    kp__free(seen);
    *expected = sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
    return KP_OK;
}

/* mirrors DisruptionController.trySync (getPodsForPdb, getExpectedPodCount, countHealthyPods,
 * updatePdbStatus; failSafe when a controller is not found). */
kp_status kp_cluster_pdb_recount(kp_cluster *cl, kp_index pdb, kp_error *err) {
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs)
        return kp_error_set(err, KP_EINVAL, "PodDisruptionBudget index %ld is out of range", pdb);
    kp_pdb *b = &cl->pdbs[pdb];
    if (b->deleted) return KP_OK; /* the disruption controller syncs only PDBs that exist */
    int32_t n_pods = 0, healthy = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (!selects(cl, b, p)) continue;
        n_pods++;
        /* countHealthyPods counts the Ready pods without a deletionTimestamp. kprio keeps no
         * Ready condition: a pod counts as Ready while it is bound to a node and not terminal
         * (finished pods leave their node), as the simulator's pods are running from their
         * binding on. status.disruptedPods (recently evicted pods) carries no time in kprio;
         * an eviction sets the deletionTimestamp at once, which already excludes them. */
        if (p->node >= 0 && !kp__pod_is_terminal(p) && p->deletion_ts == KP_TIME_NONE) healthy++;
    }
    /* getExpectedPodCount */
    int32_t expected = 0, desired = 0;
    bool ok = true;
    kp_status st = KP_OK;
    if (b->has_max_unavailable) {
        st = expected_scale(cl, b, &expected, &ok, err);
        int32_t max_un = scaled(kp__s(cl, b->max_unavailable), expected);
        desired = expected - max_un < 0 ? 0 : expected - max_un;
    } else if (b->has_min_available) {
        const char *v = kp__s(cl, b->min_available);
        if (!strchr(v, '%')) {
            desired = scaled(v, 0);
            expected = n_pods;
        } else {
            st = expected_scale(cl, b, &expected, &ok, err);
            desired = scaled(v, expected);
        }
    }
    if (st != KP_OK) return st;
    b->has_status = true;
    cl->gen_pdb_status++;
    if (!ok) { /* trySync failed: failSafe keeps the status but allows no disruption */
        b->disruptions_allowed = 0;
        return KP_OK;
    }
    /* updatePdbStatus: no disruption while the PDB expects no pods */
    int32_t allowed = healthy - desired;
    b->current_healthy = healthy;
    b->desired_healthy = desired;
    b->expected_pods = expected;
    b->disruptions_allowed = expected <= 0 || allowed <= 0 ? 0 : allowed;
    return KP_OK;
}
