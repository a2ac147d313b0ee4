/* The ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers
 * (replication_controller.go wraps it): it keeps spec.replicas active pods, creating the missing
 * ones with generated names and deleting the surplus. */
#include <stdio.h>
#include <string.h>

#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

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
    if (kp__ctrl_claim_pods(c, w) != KP_OK) return kp__ctrl_nomem(err);
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
