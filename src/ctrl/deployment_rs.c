/* The deployment controller's view of a Deployment's ReplicaSets (deployment_internal.h): their
 * sizes and pods' counts (getReplicaSetsForDeployment, FindNewReplicaSet), the scaling of one
 * with its event, the new one made (getNewReplicaSet) and the conditions it writes. Below the
 * sync (deployment.c) and the strategies (deployment_rollout.c). */
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
kp_status kp__dep_gather(dep_sync *x) {
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

/* ---------------------------------------------------------------- conditions */

/* mirrors NewDeploymentCondition + SetDeploymentCondition: the same status and reason change
 * nothing; the same status keeps lastTransitionTime */
kp_status kp__dep_set_cond(dep_sync *x, kp_wl_condition *cur, int8_t status, const char *reason,
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
bool kp__dep_has_deadline(const dep_sync *x) {
    return x->dw.progress_deadline_seconds != INT32_MAX;
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
kp_status kp__dep_progressing_for_new(dep_sync *x, bool created) {
    const kp_cluster *cl = x->c->cl;
    kp_deploy_status s = cl->workloads[x->d].dstatus;
    if (!kp__dep_has_deadline(x) || (!created && s.progressing.set)) return KP_OK;
    char msg[600];
    snprintf(msg, sizeof msg,
             created ? "Created new replica set \"%s\"" : "Found new replica set \"%s\"",
             kp__s(cl, cl->workloads[x->rs[x->nw].w].name));
    kp_status st = kp__dep_set_cond(
        x, &s.progressing, 1, created ? KP_DEPLOY_NEW_RS_CREATED : KP_DEPLOY_FOUND_NEW_RS, msg);
    if (st == KP_OK && kp__cluster_deployment_status_set(x->c->cl, x->d, &s) != KP_OK)
        st = kp__ctrl_nomem(x->err);
    return st;
}

/* mirrors getNewReplicaSet's revision sync: the new ReplicaSet's revision is the oldest ones'
 * largest plus one, the Deployment's is the new one's */
kp_status kp__dep_sync_revision(dep_sync *x) {
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
    if ((st = kp__dep_sync_revision(x)) != KP_OK) return st;
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
    return created ? kp__dep_progressing_for_new(x, true) : KP_OK;
}

/* mirrors isScalingEvent: an active ReplicaSet whose desired-replicas annotation is not
 * spec.replicas */
