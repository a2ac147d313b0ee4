/* The Deployment controller (pkg/controller/deployment): syncDeployment over a Deployment's
 * ReplicaSets: the new one (the one whose template is the Deployment's, FindNewReplicaSet; made
 * when missing, NAME-HASH with the pod-template-hash label), the old ones scaled down as the
 * strategy says (deployment_rollout.c: RollingUpdate within maxSurge / maxUnavailable, Recreate),
 * the status and its Available and Progressing conditions (calculateStatus, syncRolloutStatus)
 * with the progress deadline checked in virtual time (requeueStuckDeployment). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/workload_ctrl.h"
#include "ctrl/deployment_internal.h"


static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* ---------------------------------------------------------------- status */

static kp_status calculate_status(dep_sync *x, kp_deploy_status *s) {
    *s = x->c->cl->workloads[x->d].dstatus;
    s->replicas = x->lost;
    s->updated = x->lost;
    s->ready = x->lost_ready;
    s->available = x->lost_available;
    int32_t total = x->lost;
    for (size_t i = 0; i < x->n; i++) {
        s->replicas += x->rs[i].actual;
        s->ready += x->rs[i].ready;
        s->available += x->rs[i].available;
        total += x->rs[i].spec;
    }
    if (x->nw >= 0) s->updated += x->rs[x->nw].actual;
    s->unavailable = max32(total - s->available, 0);
    int32_t want = x->in.replicas - kp__deploy_max_unavailable(&x->dw);
    if (s->available >= want)
        return kp__dep_set_cond(x, &s->available_cond, 1, KP_DEPLOY_MIN_AVAILABLE,
                                "Deployment has minimum availability.");
    return kp__dep_set_cond(x, &s->available_cond, 0, KP_DEPLOY_MIN_UNAVAILABLE,
                            "Deployment does not have minimum availability.");
}

static bool same_status(const kp_deploy_status *a, const kp_deploy_status *b) {
    const kp_wl_condition *ca[2] = {&a->available_cond, &a->progressing};
    const kp_wl_condition *cb[2] = {&b->available_cond, &b->progressing};
    for (int k = 0; k < 2; k++)
        if (ca[k]->set != cb[k]->set || ca[k]->status != cb[k]->status ||
            ca[k]->reason != cb[k]->reason || ca[k]->message != cb[k]->message ||
            ca[k]->last_update != cb[k]->last_update ||
            ca[k]->last_transition != cb[k]->last_transition)
            return false;
    return a->written && a->replicas == b->replicas && a->updated == b->updated &&
           a->ready == b->ready && a->available == b->available &&
           a->unavailable == b->unavailable && a->revision == b->revision;
}


/* The resyncs a rollout needs in virtual time: when a Ready pod becomes available
 * (minReadySeconds: the ReplicaSet controller's AddAfter), and the progress check
 * (requeueStuckDeployment: lastUpdateTime + progressDeadlineSeconds, one second later, on a
 * timer that does not keep a run going). */
static kp_status plan_resyncs(dep_sync *x, const kp_deploy_status *s) {
    ctrl_wl *wl = &x->c->wls[x->d];
    const kp_ctrl_sink *sink = x->sink;
    if (!sink || !sink->resync_at) return KP_OK;
    int64_t epoch = x->c->epoch;
    if (x->dw.min_ready_seconds > 0) {
        int64_t first = -1;
        for (size_t i = 0; i < x->n; i++) {
            const ctrl_wl *rw = &x->c->wls[x->rs[i].w];
            for (uint32_t k = 0; k < rw->n; k++) {
                int64_t rt = kp_cluster_pod_ready_time(x->c->cl, (kp_index)rw->pods[k]);
                if (rt == KP_TIME_UNSET || !kp__ctrl_active(x->c, rw->pods[k])) continue;
                int64_t at = rt + x->dw.min_ready_seconds;
                if (at > x->now_s && (first < 0 || at < first)) first = at;
            }
        }
        int64_t t_ms = first < 0 ? -1 : (first - epoch) * 1000;
        if (t_ms > x->c->now && t_ms != wl->avail_at) {
            wl->avail_at = t_ms;
            kp_status st = sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD, x->d, t_ms, x->err);
            if (st != KP_OK) return st;
        }
    }
    const kp_wl_condition *p = &s->progressing;
    const kp_cluster *cl = x->c->cl;
    if (!kp__dep_has_deadline(x) || !p->set || kp__deploy_complete(x->in.replicas, s) ||
        strcmp(kp__s(cl, p->reason), KP_DEPLOY_TIMED_OUT) == 0)
        return KP_OK;
    int64_t t_ms = (p->last_update + x->dw.progress_deadline_seconds + 1 - epoch) * 1000;
    if (t_ms <= x->c->now || t_ms == wl->deadline_at) return KP_OK;
    wl->deadline_at = t_ms;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD_IDLE, x->d, t_ms, x->err);
}

static kp_status write_status(dep_sync *x, kp_deploy_status *s) {
    if (!same_status(&x->c->cl->workloads[x->d].dstatus, s) &&
        kp__cluster_deployment_status_set(x->c->cl, x->d, s) != KP_OK)
        return kp_error_set(x->err, KP_EINVAL, "deployment sync: %ld is not a Deployment",
                            (long)x->d);
    return plan_resyncs(x, s);
}

/* mirrors syncRolloutStatus: calculateStatus, then the Progressing condition unless the rollout
 * completed before: NewReplicaSetAvailable once complete, ReplicaSetUpdated while it progresses
 * (its lastUpdateTime moves), ProgressDeadlineExceeded past the deadline */
static kp_status sync_rollout_status(dep_sync *x) {
    kp_deploy_status s;
    kp_status st = calculate_status(x, &s);
    if (st != KP_OK) return st;
    const kp_cluster *cl = x->c->cl;
    const kp_deploy_status *old = &cl->workloads[x->d].dstatus;
    if (!kp__dep_has_deadline(x)) s.progressing.set = false;
    const kp_wl_condition *cur = &old->progressing;
    bool was_complete = s.replicas == s.updated && cur->set &&
                        strcmp(kp__s(cl, cur->reason), KP_DEPLOY_NEW_RS_AVAILABLE) == 0;
    char msg[600];
    const char *rs = x->nw >= 0 ? kp__s(cl, cl->workloads[x->rs[x->nw].w].name) : NULL;
    if (kp__dep_has_deadline(x) && !was_complete) {
        if (kp__deploy_complete(x->in.replicas, &s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" has successfully progressed.", rs);
            else
                snprintf(msg, sizeof msg, "Deployment \"%s\" has successfully progressed.",
                         x->in.name);
            st = kp__dep_set_cond(x, &s.progressing, 1, KP_DEPLOY_NEW_RS_AVAILABLE, msg);
        } else if (kp__deploy_progressing(old, &s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" is progressing.", rs);
            else snprintf(msg, sizeof msg, "Deployment \"%s\" is progressing.", x->in.name);
            /* the same reason again: lastUpdateTime moves, lastTransitionTime stays while True */
            kp_wl_condition keep = s.progressing;
            s.progressing.set = false;
            st = kp__dep_set_cond(x, &s.progressing, 1, KP_DEPLOY_RS_UPDATED, msg);
            if (keep.set && keep.status > 0) s.progressing.last_transition = keep.last_transition;
        } else if (kp__deploy_timed_out(x->dw.progress_deadline_seconds,
                                        s.progressing.set ? kp__s(cl, s.progressing.reason) : NULL,
                                        s.progressing.last_update, x->now_s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" has timed out progressing.", rs);
            else
                snprintf(msg, sizeof msg, "Deployment \"%s\" has timed out progressing.",
                         x->in.name);
            st = kp__dep_set_cond(x, &s.progressing, 0, KP_DEPLOY_TIMED_OUT, msg);
        }
    }
    return st == KP_OK ? write_status(x, &s) : st;
}

/* mirrors syncDeploymentStatus (a paused Deployment, a scaling event): the counts, the
 * Available condition, no progress estimated */
static kp_status sync_status(dep_sync *x) {
    kp_deploy_status s;
    kp_status st = calculate_status(x, &s);
    return st == KP_OK ? write_status(x, &s) : st;
}

static bool scaling_event(const dep_sync *x) {
    for (size_t i = 0; i < x->n; i++) {
        int32_t want = x->c->wls[x->rs[i].w].desired_replicas;
        if (x->rs[i].spec > 0 && want >= 0 && want != x->in.replicas) return true;
    }
    return false;
}

/* mirrors DeploymentController.syncDeployment: the Deployment's ReplicaSets and revision, then
 * a paused Deployment or a scaling event is scaled (sync), any other rolls out by its strategy */
kp_status kp_ctrl_deployment_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    dep_sync x;
    memset(&x, 0, sizeof x);
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_DEPLOYMENT ||
        kp_cluster_workload_info(c->cl, w, &x.in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "deployment sync: %ld is not a Deployment", (long)w);
    c->now = now_ms;
    if (!x.in.has_template) return KP_OK;
    x.c = c;
    x.sink = sink;
    x.err = err;
    x.d = w;
    x.dw = c->cl->workloads[w];
    x.now_s = kp__ctrl_now_s(c);
    kp_status st = kp__dep_gather(&x);
    if (st == KP_OK) st = kp__dep_sync_revision(&x);
    if (st == KP_OK && x.nw >= 0) st = kp__dep_progressing_for_new(&x, false);
    if (st != KP_OK) return st;
    if (x.dw.paused || scaling_event(&x)) {
        if ((st = kp__dep_scale(&x)) != KP_OK) return st;
        return sync_status(&x);
    }
    st = x.dw.strategy.type == KP_WL_STRATEGY_RECREATE ? kp__dep_rollout_recreate(&x)
                                                       : kp__dep_rollout_rolling(&x);
    return st == KP_OK ? sync_rollout_status(&x) : st;
}

/* mirrors DeploymentController.scale for Deployment w, whose spec.replicas changed: it syncs at
 * once (a scaling event: kp_ctrl_deployment_sync holds the rule) */
kp_status kp__ctrl_deployment_scale(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink,
                                    kp_error *err) {
    return kp_ctrl_deployment_sync(c, w, c->now, sink, err);
}
