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

/* ---------------------------------------------------------------- the ReplicaSets */

/* an active pod counted into r (calculateStatus of the ReplicaSet controller) */
static void count_pod(const dep_sync *x, uint32_t q, int32_t *actual, int32_t *ready,
                      int32_t *available, int32_t *running) {
    kp_pod_info pi;
    kp_cluster_pod_info(x->c->cl, (kp_index)q, &pi);
    if (pi.deleted || pi.terminal) return;
    (*running)++;
    if (pi.deletion_ts != KP_TIME_UNSET) return;
    (*actual)++;
    *ready += kp_cluster_pod_ready(x->c->cl, (kp_index)q);
    *available +=
        kp_cluster_pod_available(x->c->cl, (kp_index)q, x->dw.min_ready_seconds, x->now_s);
}

static void count_rs(dep_sync *x, dep_rs *r) {
    const ctrl_wl *wl = &x->c->wls[r->w];
    const kp_workload *w = &x->c->cl->workloads[r->w];
    r->spec = w->replicas;
    r->revision = w->revision;
    r->actual = r->ready = r->available = r->running = 0;
    for (uint32_t i = 0; i < wl->n; i++)
        count_pod(x, wl->pods[i], &r->actual, &r->ready, &r->available, &r->running);
}

/* The pods of a ReplicaSet of d the cluster lacks (a snapshot without the object): named after
 * it ("NAME-HASH"). kprio cannot tell their template: they count as the new revision's, as
 * before rollouts were modelled (the new ReplicaSet takes the replicas they do not cover). */
static void count_lost(dep_sync *x) {
    x->lost = x->lost_ready = x->lost_available = 0;
    if (!x->c->lost_rs_pods) return;
    size_t dn = strlen(x->in.name);
    int32_t running = 0;
    for (size_t q = 0; q < x->c->n_pods; q++) {
        if (x->c->pods[q].workload >= 0) continue;
        kp_pod_info pi;
        kp_cluster_pod_info(x->c->cl, (kp_index)q, &pi);
        if (strcmp(pi.owner_kind, "ReplicaSet") != 0 || strcmp(pi.ns, x->in.ns) != 0) continue;
        const char *dash = strrchr(pi.owner_name, '-');
        if (!dash || (size_t)(dash - pi.owner_name) != dn ||
            strncmp(pi.owner_name, x->in.name, dn) != 0)
            continue;
        count_pod(x, (uint32_t)q, &x->lost, &x->lost_ready, &x->lost_available, &running);
    }
}

/* mirrors getReplicaSetsForDeployment, FindNewReplicaSet and FindOldReplicaSets: the live
 * ReplicaSets controlled by d, oldest first; the new one the oldest whose template equals d's
 * (EqualIgnoreHash, by the templates' identity) */
static kp_status gather(dep_sync *x) {
    kp_ctrl *c = x->c;
    const kp_cluster *cl = c->cl;
    x->n = 0;
    x->nw = -1;
    for (size_t i = 0; i < cl->n_workloads && i < c->n_wls; i++) {
        const kp_workload *w = &cl->workloads[i];
        if (w->deleted || w->kind != KP_WL_RS || w->ns != x->dw.ns || w->owner_name != x->dw.name ||
            kp__ctrl_rs_deployment(c, (kp_index)i) != x->d)
            continue;
        if (x->n == c->cap_dep_rs &&
            !kp__grow(&c->dep_rs, &c->cap_dep_rs, x->n + 1, sizeof(dep_rs), 8))
            return kp__ctrl_nomem(x->err);
        x->rs = c->dep_rs;
        dep_rs *r = &x->rs[x->n];
        r->w = (kp_index)i;
        count_rs(x, r);
        if (x->nw < 0 && w->template_fp == x->dw.template_fp) x->nw = (long)x->n;
        x->n++;
    }
    x->rs = c->dep_rs;
    count_lost(x);
    x->dw.replicas = max32(x->dw.replicas - x->lost, 0);
    return KP_OK;
}

int32_t kp__dep_sum_spec(const dep_sync *x) {
    int32_t n = 0;
    for (size_t i = 0; i < x->n; i++) n += x->rs[i].spec;
    return n;
}

static int64_t max_old_revision(const dep_sync *x) {
    int64_t m = 0;
    for (size_t i = 0; i < x->n; i++)
        if ((long)i != x->nw && x->rs[i].revision > m) m = x->rs[i].revision;
    return m;
}

/* ---------------------------------------------------------------- status */

/* mirrors NewDeploymentCondition + SetDeploymentCondition: the same status and reason change
 * nothing; the same status keeps lastTransitionTime */
static kp_status set_cond(dep_sync *x, kp_wl_condition *cur, int8_t status, const char *reason,
                          const char *msg) {
    const kp_cluster *cl = x->c->cl;
    if (cur->set && cur->status == status && strcmp(kp__s(cl, cur->reason), reason) == 0)
        return KP_OK;
    kp_wl_condition n = {true,
                         status,
                         kp__cluster_intern_str(x->c->cl, reason),
                         kp__cluster_intern_str(x->c->cl, msg),
                         x->now_s,
                         x->now_s};
    if (n.reason == UINT32_MAX || n.message == UINT32_MAX) return kp__ctrl_nomem(x->err);
    if (cur->set && cur->status == status) n.last_transition = cur->last_transition;
    *cur = n;
    return KP_OK;
}

/* mirrors calculateStatus: counts over every ReplicaSet (the pods of lost ones as updated ones)
 * and the Available condition against spec.replicas - maxUnavailable */
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
        return set_cond(x, &s->available_cond, 1, KP_DEPLOY_MIN_AVAILABLE,
                        "Deployment has minimum availability.");
    return set_cond(x, &s->available_cond, 0, KP_DEPLOY_MIN_UNAVAILABLE,
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

static bool has_deadline(const dep_sync *x) { return x->dw.progress_deadline_seconds != INT32_MAX; }

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
    if (!has_deadline(x) || !p->set || kp__deploy_complete(x->in.replicas, s) ||
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
    if (!has_deadline(x)) s.progressing.set = false;
    const kp_wl_condition *cur = &old->progressing;
    bool was_complete = s.replicas == s.updated && cur->set &&
                        strcmp(kp__s(cl, cur->reason), KP_DEPLOY_NEW_RS_AVAILABLE) == 0;
    char msg[600];
    const char *rs = x->nw >= 0 ? kp__s(cl, cl->workloads[x->rs[x->nw].w].name) : NULL;
    if (has_deadline(x) && !was_complete) {
        if (kp__deploy_complete(x->in.replicas, &s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" has successfully progressed.", rs);
            else
                snprintf(msg, sizeof msg, "Deployment \"%s\" has successfully progressed.",
                         x->in.name);
            st = set_cond(x, &s.progressing, 1, KP_DEPLOY_NEW_RS_AVAILABLE, msg);
        } else if (kp__deploy_progressing(old, &s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" is progressing.", rs);
            else snprintf(msg, sizeof msg, "Deployment \"%s\" is progressing.", x->in.name);
            /* the same reason again: lastUpdateTime moves, lastTransitionTime stays while True */
            kp_wl_condition keep = s.progressing;
            s.progressing.set = false;
            st = set_cond(x, &s.progressing, 1, KP_DEPLOY_RS_UPDATED, msg);
            if (keep.set && keep.status > 0) s.progressing.last_transition = keep.last_transition;
        } else if (kp__deploy_timed_out(x->dw.progress_deadline_seconds,
                                        s.progressing.set ? kp__s(cl, s.progressing.reason) : NULL,
                                        s.progressing.last_update, x->now_s)) {
            if (rs) snprintf(msg, sizeof msg, "ReplicaSet \"%s\" has timed out progressing.", rs);
            else
                snprintf(msg, sizeof msg, "Deployment \"%s\" has timed out progressing.",
                         x->in.name);
            st = set_cond(x, &s.progressing, 0, KP_DEPLOY_TIMED_OUT, msg);
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

/* ---------------------------------------------------------------- scaling */

/* mirrors scaleReplicaSetAndRecordEvent / scaleReplicaSet: spec.replicas and the
 * desired-replicas annotation written, the event ScalingReplicaSet "Scaled up|down replica set
 * NAME from A to B" when the size changed; the ReplicaSet is queued */
kp_status kp__dep_scale_rs(dep_sync *x, size_t i, int32_t to, bool *scaled) {
    dep_rs *r = &x->rs[i];
    x->c->wls[r->w].desired_replicas = x->in.replicas;
    if (r->spec == to) return KP_OK;
    kp_status st = kp_cluster_workload_scale(x->c->cl, r->w, to, x->err);
    if (st != KP_OK) return st;
    char msg[600];
    snprintf(msg, sizeof msg, "Scaled %s replica set %s from %d to %d",
             r->spec < to ? "up" : "down", kp__s(x->c->cl, x->c->cl->workloads[r->w].name), r->spec,
             to);
    r->spec = to;
    if (scaled) *scaled = true;
    kp__ctrl_mark(x->c, r->w);
    return kp__ctrl_event(x->c, x->sink, false, "ScalingReplicaSet", &x->in, msg, -1, -1, -1,
                          x->err);
}

/* the Progressing condition the new ReplicaSet's creation or discovery writes (getNewReplicaSet) */
static kp_status progressing_for_new(dep_sync *x, bool created) {
    const kp_cluster *cl = x->c->cl;
    kp_deploy_status s = cl->workloads[x->d].dstatus;
    if (!has_deadline(x) || (!created && s.progressing.set)) return KP_OK;
    char msg[600];
    snprintf(msg, sizeof msg,
             created ? "Created new replica set \"%s\"" : "Found new replica set \"%s\"",
             kp__s(cl, cl->workloads[x->rs[x->nw].w].name));
    kp_status st = set_cond(x, &s.progressing, 1,
                            created ? KP_DEPLOY_NEW_RS_CREATED : KP_DEPLOY_FOUND_NEW_RS, msg);
    if (st == KP_OK && kp__cluster_deployment_status_set(x->c->cl, x->d, &s) != KP_OK)
        st = kp__ctrl_nomem(x->err);
    return st;
}

/* mirrors getNewReplicaSet's revision sync: the new ReplicaSet's revision is the oldest ones'
 * largest plus one, the Deployment's is the new one's */
static kp_status sync_revision(dep_sync *x) {
    if (x->nw < 0) return KP_OK;
    dep_rs *r = &x->rs[x->nw];
    int64_t want = max_old_revision(x) + 1;
    if (r->revision < want) {
        r->revision = want;
        if (kp__cluster_replicaset_revision_set(x->c->cl, r->w, want) != KP_OK)
            return kp__ctrl_nomem(x->err);
    }
    kp_deploy_status s = x->c->cl->workloads[x->d].dstatus;
    if (s.revision == r->revision) return KP_OK;
    s.revision = r->revision;
    (void)kp__cluster_deployment_status_set(x->c->cl, x->d, &s);
    return KP_OK;
}

/* mirrors getNewReplicaSet with createIfNotExisted: the new ReplicaSet NAME-HASH (core's
 * kp__cluster_deployment_new_replicaset), its size NewRSNewReplicas, "Scaled up replica set NAME
 * from 0 to N" when N > 0, the Progressing condition NewReplicaSetCreated */
kp_status kp__dep_create_new(dep_sync *x) {
    kp_ctrl *c = x->c;
    size_t n0 = kp_cluster_workload_count(c->cl);
    kp_index w = -1;
    kp_status st = kp__cluster_deployment_new_replicaset(c->cl, x->d, &w, x->err);
    if (st != KP_OK) return st;
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(x->err);
    bool created = kp_cluster_workload_count(c->cl) != n0;
    if (x->n == c->cap_dep_rs && !kp__grow(&c->dep_rs, &c->cap_dep_rs, x->n + 1, sizeof(dep_rs), 8))
        return kp__ctrl_nomem(x->err);
    x->rs = c->dep_rs;
    dep_rs *r = &x->rs[x->n];
    r->w = w;
    count_rs(x, r);
    r->spec = 0; /* created at 0, then sized (Replicas: new(int32)) */
    x->nw = (long)x->n++;
    if ((st = sync_revision(x)) != KP_OK) return st;
    int32_t want = kp__deploy_new_rs_replicas(&x->dw, kp__dep_sum_spec(x), 0);
    if ((st = kp_cluster_workload_scale(c->cl, w, want, x->err)) != KP_OK) return st;
    r->spec = want;
    c->wls[w].desired_replicas = x->in.replicas;
    kp__ctrl_mark(c, w);
    if (created && want > 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "Scaled up replica set %s from 0 to %d",
                 kp__s(c->cl, c->cl->workloads[w].name), want);
        st =
            kp__ctrl_event(c, x->sink, false, "ScalingReplicaSet", &x->in, msg, -1, -1, -1, x->err);
        if (st != KP_OK) return st;
    }
    return created ? progressing_for_new(x, true) : KP_OK;
}

/* mirrors isScalingEvent: an active ReplicaSet whose desired-replicas annotation is not
 * spec.replicas */
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
    kp_status st = gather(&x);
    if (st == KP_OK) st = sync_revision(&x);
    if (st == KP_OK && x.nw >= 0) st = progressing_for_new(&x, false);
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
