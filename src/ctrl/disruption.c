/* The disruption controller (pkg/controller/disruption/disruption.go, release-1.37):
 * DisruptionController.trySync for one PodDisruptionBudget: getPodsForPdb, getExpectedPodCount
 * with getExpectedScale and its controller finders, countHealthyPods and updatePdbStatus. It
 * reads the cluster and writes the status through core (kp__cluster_pdb_set_status); the
 * readers of that status (preemption's PDB index, the Eviction API of drains) stay in core's
 * fields. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "ctrl/ctrl_internal.h"

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
 * not in the cluster, the generic getScaleController reads the ReplicaSet's own scale. Kinds
 * without a scale subresource (DaemonSet, Job, ...) and controllers not in the cluster are
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

/* getPodsForPdb: the pods the PDB's selector selects, from the manager's cache (rebuilt when
 * the cluster's structure changed: a label, a selector; else the pods added since are looked
 * at); a pod deleted since is skipped by the caller (kp_cluster_pdb_selects). NULL: out of
 * memory. */
static const ctrl_pdb_sel *selected(kp_ctrl *c, kp_index pdb) {
    const kp_cluster *cl = c->cl;
    if ((size_t)pdb >= c->n_pdb_sel) {
        size_t n = cl->n_pdbs;
        ctrl_pdb_sel *v = kp__realloc(c->pdb_sel, n * sizeof *v);
        if (!v) return NULL;
        memset(v + c->n_pdb_sel, 0, (n - c->n_pdb_sel) * sizeof *v);
        c->pdb_sel = v;
        c->n_pdb_sel = n;
    }
    ctrl_pdb_sel *s = &c->pdb_sel[pdb];
    if (!s->built || s->gen != cl->gen_struct) {
        s->n = 0;
        s->scanned = 0;
        s->gen = cl->gen_struct;
        s->built = true;
    }
    for (; s->scanned < cl->n_pods; s->scanned++) {
        if (!kp_cluster_pdb_selects(cl, pdb, (kp_index)s->scanned)) continue;
        if (s->n == s->cap &&
            !kp__grow32((void **)&s->pods, &s->cap, (size_t)s->n + 1, sizeof *s->pods, 16))
            return NULL;
        s->pods[s->n++] = (uint32_t)s->scanned;
    }
    return s;
}

/* mirrors DisruptionController.getExpectedScale: the sum of the scales of the selected pods'
 * controllers, each counted once; pods without a controller are unmanaged and skipped. *ok false:
 * a controller was not found. */
static kp_status expected_scale(const kp_cluster *cl, kp_index pdb, const ctrl_pdb_sel *sel,
                                int32_t *expected, bool *ok, kp_error *err) {
    *expected = 0;
    *ok = true;
    uint8_t *seen = kp__calloc(cl->n_workloads ? cl->n_workloads : 1, 1);
    if (!seen)
        return kp_error_set(err, KP_ENOMEM, "PodDisruptionBudget %s/%s: out of memory",
                            kp__s(cl, cl->pdbs[pdb].ns), kp__s(cl, cl->pdbs[pdb].name));
    int64_t sum = 0;
    for (uint32_t j = 0; j < sel->n && *ok; j++) {
        uint32_t i = sel->pods[j];
        const kp_pod *p = &cl->pods[i];
        if (!kp_cluster_pdb_selects(cl, pdb, (kp_index)i)) continue;
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
kp_status kp_ctrl_disruption_sync(kp_ctrl *c, kp_index pdb, kp_error *err) {
    kp_cluster *cl = c->cl;
    if (pdb < 0 || (size_t)pdb >= cl->n_pdbs)
        return kp_error_set(err, KP_EINVAL, "PodDisruptionBudget index %ld is out of range",
                            (long)pdb);
    const kp_pdb *b = &cl->pdbs[pdb];
    if (b->deleted) return KP_OK; /* the disruption controller syncs only PDBs that exist */
    int32_t n_pods = 0, healthy = 0;
    const ctrl_pdb_sel *sel = selected(c, pdb);
    if (!sel)
        return kp_error_set(err, KP_ENOMEM, "PodDisruptionBudget %s/%s: out of memory",
                            kp__s(cl, b->ns), kp__s(cl, b->name));
    for (uint32_t j = 0; j < sel->n; j++) {
        uint32_t i = sel->pods[j];
        const kp_pod *p = &cl->pods[i];
        if (!kp_cluster_pdb_selects(cl, pdb, (kp_index)i)) continue; /* getPodsForPdb */
        n_pods++;
        /* mirrors countHealthyPods: the Ready pods (podutil.IsPodReady: the Ready condition,
         * kp__pod_ready) without a deletionTimestamp. status.disruptedPods (recently evicted
         * pods) carries no time in kprio; an eviction sets the deletionTimestamp at once, which
         * already excludes them. */
        if (kp__pod_ready(p) && p->deletion_ts == KP_TIME_NONE) healthy++;
    }
    /* getExpectedPodCount */
    int32_t expected = 0, desired = 0;
    bool ok = true;
    kp_status st = KP_OK;
    if (b->has_max_unavailable) {
        st = expected_scale(cl, pdb, sel, &expected, &ok, err);
        int32_t max_un = scaled(kp__s(cl, b->max_unavailable), expected);
        desired = expected - max_un < 0 ? 0 : expected - max_un;
    } else if (b->has_min_available) {
        const char *v = kp__s(cl, b->min_available);
        if (!strchr(v, '%')) {
            desired = scaled(v, 0);
            expected = n_pods;
        } else {
            st = expected_scale(cl, pdb, sel, &expected, &ok, err);
            desired = scaled(v, expected);
        }
    }
    if (st != KP_OK) return st;
    if (!ok) /* trySync failed: failSafe keeps the status but allows no disruption */
        return kp__cluster_pdb_set_status(cl, pdb, NULL);
    /* updatePdbStatus: no disruption while the PDB expects no pods */
    int32_t allowed = healthy - desired;
    kp_pdb_info s = {.current_healthy = healthy,
                     .desired_healthy = desired,
                     .expected_pods = expected,
                     .disruptions_allowed = expected <= 0 || allowed <= 0 ? 0 : allowed};
    return kp__cluster_pdb_set_status(cl, pdb, &s);
}
