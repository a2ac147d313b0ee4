/* Workload expansion (`--expand-workloads`, kp_ctrl_expand in kprio/ctrl.h): the controllers'
 * pass at t = 0 over a loaded snapshot, before finalize: the snapshot's pods indexed once
 * (expand_index.c), then each workload's controller makes the pending pods it would create now
 * (kp__ctrl_*_expand in replicaset.c, statefulset.c, daemonset.c, job.c, cronjob.c), and the
 * Deployments' new ReplicaSets. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "ctrl/expand_index.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

static kp_status expand_all(kp__expand *x, uint32_t *deps, uint32_t *n_deps, uint32_t *n_cron) {
    kp_cluster *cl = x->cl;
    uint32_t n_wl = cl->n_workloads;
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < n_wl && st == KP_OK; i++) {
        bool made = false;
        switch (cl->workloads[i].kind) {
        case KP_WL_RC:
        case KP_WL_RS:
        case KP_WL_DEPLOY: st = kp__ctrl_replicaset_expand(x, i, &made); break;
        case KP_WL_STS: st = kp__ctrl_statefulset_expand(x, i); break;
        case KP_WL_DS: st = kp__ctrl_daemonset_expand(x, i); break;
        case KP_WL_JOB:
            st = kp__ctrl_job_expand(x, i, kp__s(cl, cl->workloads[i].name), false);
            break;
        case KP_WL_CRONJOB:
            if (x->flags & KP_EXPAND_CRONJOBS) st = kp__ctrl_cronjob_expand(x, i);
            else (*n_cron)++;
            break;
        case KP_WL_SERVICE:
        case KP_WL_KINDS: break;
        }
        if (made) deps[(*n_deps)++] = i;
    }
    return st;
}

kp_status kp_ctrl_expand(kp_cluster *cl, kp_error *err) {
    if (!(cl->expand_flags & (KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS)) || cl->finalized)
        return KP_OK;
    unsigned flags = cl->expand_flags;
    /* once: templates still decode for what is loaded next */
    cl->expand_flags = KP_WORKLOAD_TEMPLATES;
    /* finalize's first check comes first, as when finalize expanded */
    kp_status vst = kp__cluster_validate_classes(cl, err);
    if (vst != KP_OK) return vst;
    kp__expand x;
    memset(&x, 0, sizeof x);
    x.cl = cl;
    x.err = err;
    x.now = KP_TIME_NONE;
    x.flags = flags;
    x.s_apps_v1 = kp__expand_intern(cl, "apps/v1");
    x.s_batch_v1 = kp__expand_intern(cl, "batch/v1");
    x.s_v1 = kp__expand_intern(cl, "v1");
    x.s_rs = kp__expand_intern(cl, "ReplicaSet");
    uint32_t *deps = kp__malloc(((size_t)cl->n_workloads + 1) * sizeof *deps), n_deps = 0;
    uint32_t n_cron = 0;
    kp_status st = KP_OK;
    if (!deps || x.s_apps_v1 == UINT32_MAX || x.s_batch_v1 == UINT32_MAX || x.s_v1 == UINT32_MAX ||
        x.s_rs == UINT32_MAX || kp__expand_index_pods(&x) != KP_OK)
        st = kp__expand_nomem(&x);
    if (st == KP_OK) st = expand_all(&x, deps, &n_deps, &n_cron);
    for (uint32_t i = 0; i < n_deps && st == KP_OK; i++) {
        uint32_t rs;
        if (kp__workload_new_replicaset(cl, deps[i], &rs) != KP_OK) st = kp__expand_nomem(&x);
    }
    if (st == KP_OK && n_cron &&
        kp__cluster_warn(cl,
                         "%u CronJob(s) not expanded: a CronJob has no pods until its schedule "
                         "fires (--expand-cronjobs fires each once now)",
                         n_cron) != KP_OK)
        st = kp__expand_nomem(&x);
    kp__free(deps);
    kp__free(x.keys);
    kp__free(x.wl);
    kp__free(x.scaled);
    kp__free(x.orphans);
    kp__free(x.adopted);
    return st;
}
