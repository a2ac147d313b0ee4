/* The ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers
 * (replication_controller.go wraps it): it keeps spec.replicas active pods, creating the missing
 * ones with generated names and deleting the surplus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

/* a deletion candidate: getPodsToDelete's first keys (ActivePodsWithRanks): unassigned before
 * assigned, then the newest (the highest index) first */
typedef struct {
    uint32_t pod;
    bool assigned;
} rs_victim;

static int victim_cmp(const void *a, const void *b) {
    const rs_victim *x = a, *y = b;
    if (x->assigned != y->assigned) return x->assigned ? 1 : -1;
    return x->pod < y->pod ? 1 : x->pod > y->pod ? -1 : 0;
}

/* mirrors getPodsToDelete: the active pods ranked once, the first `n` deleted (each deletion
 * leaves the others' ranks as they were: one sort, not a search per deletion) */
static kp_status delete_surplus(kp_ctrl *c, kp_index w, const kp_workload_info *in, int64_t n,
                                const kp_ctrl_sink *sink, kp_error *err) {
    const ctrl_wl *wl = &c->wls[w];
    rs_victim *v = kp__malloc((size_t)(wl->n ? wl->n : 1) * sizeof *v);
    if (!v) return kp__ctrl_nomem(err);
    size_t nv = 0;
    for (uint32_t i = kp__ctrl_active_from(c, w); i < wl->n; i++) {
        uint32_t q = wl->pods[i];
        c->looked++;
        if (!kp__ctrl_active(c, q)) continue;
        v[nv++] = (rs_victim){q, kp_cluster_pod_node(c->cl, q) >= 0};
    }
    qsort(v, nv, sizeof *v, victim_cmp);
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < nv && (int64_t)i < n; i++)
        st = kp__ctrl_delete_pod(c, in, v[i].pod, NULL, sink, err);
    kp__free(v);
    return st;
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
    for (uint32_t i = kp__ctrl_active_from(c, w); i < c->wls[w].n; i++, c->looked++)
        have += kp__ctrl_active(c, c->wls[w].pods[i]);
    char base[300], name[400];
    snprintf(base, sizeof base, "%s-", in.name);
    for (; have < in.replicas; have++) {
        kp_cluster_generate_pod_name(c->cl, in.ns, base, c->wls[w].name_seq++, name, sizeof name);
        kp_status st = kp__ctrl_create_pod(c, w, &in, name, -1, sink, err);
        if (st != KP_OK) return st;
    }
    if (have > in.replicas) return delete_surplus(c, w, &in, have - in.replicas, sink, err);
    return KP_OK;
}
