/* The ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers
 * (replication_controller.go wraps it): it keeps spec.replicas active pods, creating the missing
 * ones with generated names and deleting the surplus. */
#include <stdio.h>
#include <string.h>

#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"
#include "ctrl/expand_index.h"

/* mirrors getPodsToDelete's first keys (ActivePodsWithRanks): unassigned before assigned, then
 * the newest first */
static long pick_to_delete(const kp_ctrl *c, const ctrl_wl *w) {
    long best = -1;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        if (!kp__ctrl_active(c, q)) continue;
        if (best < 0) {
            best = q;
            continue;
        }
        bool qa = kp_cluster_pod_node(c->cl, q) >= 0, ba = kp_cluster_pod_node(c->cl, best) >= 0;
        if (qa != ba) {
            if (!qa) best = q;
            continue;
        }
        if (q > (uint32_t)best) best = q; /* created later */
    }
    return best;
}

/* mirrors ReplicaSetController.syncReplicaSet / manageReplicas: the active pods
 * (FilterActivePods) against spec.replicas; the missing ones created (NAME-xxxxx, generateName),
 * each replacing the earliest lost pod not replaced yet; the surplus deleted (getPodsToDelete).
 * No expectations: the manager sees each creation and deletion at once. */
kp_status kp_ctrl_replicaset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_REPLICASET ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "replicaset sync: %ld is not a ReplicaSet", (long)w);
    c->now = now_ms;
    int64_t have = 0;
    for (uint32_t i = 0; i < c->wls[w].n; i++) have += kp__ctrl_active(c, c->wls[w].pods[i]);
    char base[300], name[400];
    snprintf(base, sizeof base, "%s-", in.name);
    for (; have < in.replicas; have++) {
        kp_cluster_generate_pod_name(c->cl, in.ns, base, c->wls[w].name_seq++, name, sizeof name);
        kp_status st = kp__ctrl_create_pod(c, w, &in, name, -1, sink, err);
        if (st != KP_OK) return st;
    }
    for (; have > in.replicas; have--) {
        long victim = pick_to_delete(c, &c->wls[w]);
        if (victim < 0) break;
        kp_status st = kp__ctrl_delete_pod(c, &in, (uint32_t)victim, NULL, sink, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- --expand-workloads (t = 0) */

/* mirrors ReplicaSetController.manageReplicas (ReplicaSet, ReplicationController) and, for a
 * Deployment, the deployment controller scaling its new ReplicaSet: replicas less the active
 * pods (FilterActivePods) already there. */
kp_status kp__ctrl_replicaset_expand(kp__expand *x, uint32_t wi, bool *made) {
    kp_cluster *cl = x->cl;
    const kp_workload *w = &cl->workloads[wi];
    if (w->kind == KP_WL_RS && w->owner_kind &&
        strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0 &&
        kp__expand_find_workload(x, KP_WL_DEPLOY, w->ns, w->owner_name) >= 0)
        return KP_OK; /* its Deployment decides how many pods it has */
    uint64_t have = kp__expand_count_keys(x, w->kind, w->ns, w->name, 0);
    have += kp__expand_adopt(x, w, 0);
    if (have >= (uint64_t)w->replicas) return KP_OK;
    kp_status st = kp__expand_check_template(x, w);
    if (st != KP_OK) return st;
    char hash[256], owner[400], base[420], name[480];
    kp_labels labels;
    kp_str okind = kp__expand_intern(cl, kp__workload_kind_name(w->kind)), oname = w->name;
    kp_str api = w->kind == KP_WL_RC ? x->s_v1 : x->s_apps_v1;
    bool new_rs = false;
    if (w->kind == KP_WL_DEPLOY) {
        long rs = kp__expand_deployment_rs(x, w, hash, sizeof hash);
        new_rs = rs < 0;
        if (new_rs) kp__workload_template_hash(cl, w, hash);
        snprintf(owner, sizeof owner, "%s", new_rs ? "" : kp__s(cl, cl->workloads[rs].name));
        if (new_rs) snprintf(owner, sizeof owner, "%s-%s", kp__s(cl, w->name), hash);
        okind = x->s_rs;
        oname = kp__expand_intern(cl, owner);
        st = kp__expand_pod_labels(x, w, &labels, "pod-template-hash", hash);
    } else {
        snprintf(owner, sizeof owner, "%s", kp__s(cl, w->name));
        st = kp__expand_pod_labels(x, w, &labels, NULL, NULL);
    }
    if (st != KP_OK || okind == UINT32_MAX || oname == UINT32_MAX) return kp__expand_nomem(x);
    snprintf(base, sizeof base, "%s-", owner);
    for (uint64_t i = 0; have + i < (uint64_t)w->replicas; i++) {
        uint32_t idx;
        kp__workload_generate_name(cl, w->ns, base, i, name, sizeof name);
        if ((st = kp__expand_make_pod(x, w, name, -1, okind, oname, api, &idx)) != KP_OK)
            return st == KP_ENOMEM ? kp__expand_nomem(x) : st;
        w = &cl->workloads[wi];
        cl->pods[idx].labels = labels;
    }
    *made = new_rs;
    return KP_OK;
}
