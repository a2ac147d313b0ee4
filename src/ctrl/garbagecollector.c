/* The garbage collector (pkg/controller/garbagecollector), as far as kprio models it: the
 * background cascading deletion of a workload (kp_ctrl_delete_workload in kprio/ctrl.h): the
 * workload goes, then its pods and the workloads it controls, each with theirs. Below the
 * controllers that delete what they own (the CronJob controller's Replace) and the manager. */
#include <string.h>

#include "ctrl/ctrl_internal.h"

/* mirrors GarbageCollector.attemptToDeleteItem for the dependents of an owner deleted with
 * propagationPolicy Background (the owner first, then every object whose controller it is) */
kp_status kp_ctrl_delete_workload(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].deleted) return KP_OK;
    c->now = now_ms;
    c->wls[w].deleted = true;
    kp_status st = kp_cluster_delete_workload(c->cl, w, err);
    if (st != KP_OK) return st;
    for (uint32_t i = 0; i < c->wls[w].n; i++) {
        uint32_t p = c->wls[w].pods[i];
        c->pods[p].replaced = true;
        if ((st = kp__ctrl_pod_deleting(c, p, NULL, sink, err)) != KP_OK) return st;
    }
    kp_workload_info in;
    if (kp_cluster_workload_info(c->cl, w, &in) != KP_OK) return KP_OK;
    for (size_t o = 0; o < c->n_wls; o++) {
        kp_workload_info oi;
        if ((kp_index)o == w || kp_cluster_workload_info(c->cl, (kp_index)o, &oi) != KP_OK ||
            strcmp(oi.ns, in.ns) != 0 || strcmp(oi.owner_kind, in.kind) != 0 ||
            strcmp(oi.owner_name, in.name) != 0)
            continue;
        if ((st = kp_ctrl_delete_workload(c, (kp_index)o, now_ms, sink, err)) != KP_OK) return st;
    }
    return KP_OK;
}
