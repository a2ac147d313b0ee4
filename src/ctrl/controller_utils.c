/* What the controllers share (src/ctrl/, ctrl_internal.h), as upstream's controller_utils.go:
 * the manager's bookkeeping (pods by controller, the queue), FilterActivePods, RealPodControl's
 * creation and deletion of a pod with their events, and the pod a new one replaces. Below every
 * controller file; the manager (ctrl.c) is above them. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/selector.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

kp_status kp__ctrl_nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "controllers: out of memory");
}

int64_t kp__ctrl_now_s(const kp_ctrl *c) { return c->epoch + c->now / 1000; }

static ctrl_kind kind_of(const char *k) {
    if (strcmp(k, "ReplicaSet") == 0 || strcmp(k, "ReplicationController") == 0)
        return CTRL_KIND_REPLICASET;
    if (strcmp(k, "Deployment") == 0) return CTRL_KIND_DEPLOYMENT;
    if (strcmp(k, "StatefulSet") == 0) return CTRL_KIND_STATEFULSET;
    if (strcmp(k, "DaemonSet") == 0) return CTRL_KIND_DAEMONSET;
    if (strcmp(k, "Job") == 0) return CTRL_KIND_JOB;
    if (strcmp(k, "CronJob") == 0) return CTRL_KIND_CRONJOB;
    return CTRL_KIND_OTHER;
}

void kp__ctrl_mark(kp_ctrl *c, kp_index w) {
    if (w < 0 || (size_t)w >= c->n_wls) return;
    c->wls[w].dirty = true;
    c->any_dirty = true;
}

static kp_status wl_add_pod(ctrl_wl *w, ctrl_pod *p, uint32_t pod) {
    if (w->n == w->cap &&
        !kp__grow32((void **)&w->pods, &w->cap, (size_t)w->n + 1, sizeof *w->pods, 8))
        return KP_ENOMEM;
    p->wl_pos = w->n;
    w->pods[w->n++] = pod;
    return KP_OK;
}

void kp__ctrl_pod_left(kp_ctrl *c, uint32_t pod) {
    const ctrl_pod *p = &c->pods[pod];
    if (p->workload < 0 || (size_t)p->workload >= c->n_wls) return;
    ctrl_wl *w = &c->wls[p->workload];
    if (p->wl_pos < w->lost_from) w->lost_from = p->wl_pos;
}

ctrl_pod_state kp__ctrl_seen_state(const kp_pod_info *pi) {
    if (pi->deleted) return CTRL_POD_DELETED;
    if (pi->terminal)
        return pi->phase == KP_POD_PHASE_SUCCEEDED ? CTRL_POD_SUCCEEDED : CTRL_POD_FAILED;
    if (pi->deletion_ts != KP_TIME_UNSET) return CTRL_POD_TERMINATING;
    return CTRL_POD_ACTIVE;
}

/* Pods [c->n_pods, upto) join: indexed under their controller, their state as loaded. */
kp_status kp__ctrl_index_pods(kp_ctrl *c, size_t upto) {
    if (upto <= c->n_pods) return KP_OK;
    if (upto > c->cap_pods && !kp__grow((void **)&c->pods, &c->cap_pods, upto, sizeof *c->pods, 64))
        return KP_ENOMEM;
    for (size_t i = c->n_pods; i < upto; i++) {
        ctrl_pod *p = &c->pods[i];
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, (kp_index)i, &pi);
        p->workload = kp_cluster_pod_workload(c->cl, (kp_index)i);
        p->replaced = false;
        p->state = (uint8_t)kp__ctrl_seen_state(&pi);
        p->node = pi.node;
        p->ready = pi.ready;
        p->terminating_ms = p->gone_ms = -1;
        p->taint_planned = false;
        p->taint_since = -1;
        if (p->workload >= 0 && (size_t)p->workload < c->n_wls &&
            wl_add_pod(&c->wls[p->workload], p, (uint32_t)i) != KP_OK)
            return KP_ENOMEM;
        if (p->workload < 0 && strcmp(pi.owner_kind, "ReplicaSet") == 0) c->lost_rs_pods = true;
        if (p->workload < 0 && !*pi.owner_kind && !pi.deleted && !pi.terminal) { /* an orphan */
            if (c->n_orphans == c->cap_orphans &&
                !kp__grow((void **)&c->orphans, &c->cap_orphans, c->n_orphans + 1,
                          sizeof *c->orphans, 16))
                return KP_ENOMEM;
            c->orphans[c->n_orphans++] = (uint32_t)i;
        }
        c->n_pods = i + 1;
    }
    return KP_OK;
}

kp_status kp__ctrl_grow_workloads(kp_ctrl *c) {
    size_t n = kp_cluster_workload_count(c->cl);
    if (n <= c->n_wls) return KP_OK;
    if (n > c->cap_wls && !kp__grow((void **)&c->wls, &c->cap_wls, n, sizeof *c->wls, 16))
        return KP_ENOMEM;
    memset(c->wls + c->n_wls, 0, (n - c->n_wls) * sizeof *c->wls);
    size_t from = c->n_wls;
    c->n_wls = n; /* first: kp__ctrl_mark ignores indices past n_wls */
    for (size_t w = from; w < n; w++) {
        c->wls[w].desired_replicas = -1;
        c->wls[w].owner_dep = -2;
        c->wls[w].deadline_at = c->wls[w].avail_at = -1;
        kp_workload_info in;
        c->wls[w].kind =
            (uint8_t)(kp_cluster_workload_info(c->cl, (kp_index)w, &in) == KP_OK ? kind_of(in.kind)
                                                                                 : CTRL_KIND_OTHER);
        kp__ctrl_mark(c, (kp_index)w);
    }
    return KP_OK;
}

kp_status kp__ctrl_grow(kp_ctrl *c) {
    if (kp__ctrl_grow_workloads(c) != KP_OK) return KP_ENOMEM;
    return kp__ctrl_index_pods(c, kp_cluster_pod_count(c->cl));
}

/* w's selector selects labels l (ClaimPods' match; an empty or unset selector: nothing) */
static bool selects(const kp_cluster *cl, const kp_workload *w, const kp_labels *l) {
    if (w->kind == KP_WL_RC) { /* a ReplicationController's map selector */
        if (!w->has_map || w->map.n == 0) return false;
        for (uint32_t k = 0; k < w->map.n; k++) {
            kp_str v;
            if (!kp__labels_get(l, w->map.items[k].key, &v) || v != w->map.items[k].val)
                return false;
        }
        return true;
    }
    if (!w->sel.is_set || (w->sel.match_labels.n == 0 && w->sel.n_exprs == 0)) return false;
    return kp__selector_matches(cl, &w->sel, l);
}

kp_status kp__ctrl_claim_pods(kp_ctrl *c, kp_index w) {
    const kp_cluster *cl = c->cl;
    if (w < 0 || (size_t)w >= c->n_wls || (size_t)w >= cl->n_workloads) return KP_OK;
    const kp_workload *wl = &cl->workloads[w];
    if (wl->deleted || (wl->kind != KP_WL_RC && wl->kind != KP_WL_RS && wl->kind != KP_WL_STS &&
                        wl->kind != KP_WL_DS && wl->kind != KP_WL_JOB))
        return KP_OK;
    size_t keep = 0;
    for (size_t i = 0; i < c->n_orphans; i++) {
        uint32_t q = c->orphans[i];
        const kp_pod *p = &cl->pods[q];
        if (c->pods[q].workload >= 0 || p->deleted || kp__pod_is_terminal(p)) continue; /* gone */
        /* ClaimObject: a pod being deleted is not adopted */
        if (p->ns == wl->ns && p->deletion_ts == KP_TIME_NONE && selects(cl, wl, &p->labels)) {
            if (wl_add_pod(&c->wls[w], &c->pods[q], q) != KP_OK) return KP_ENOMEM;
            c->pods[q].workload = w;
            continue;
        }
        c->orphans[keep++] = q;
    }
    c->n_orphans = keep;
    return KP_OK;
}

bool kp__ctrl_active(const kp_ctrl *c, uint32_t pod) {
    /* the pod's own fields, not kp_cluster_pod_info's copy of all of them: every sync asks */
    const kp_pod *p = &c->cl->pods[pod];
    return !p->deleted && !kp__pod_is_terminal(p) && p->deletion_ts == KP_TIME_NONE;
}

uint32_t kp__ctrl_active_from(kp_ctrl *c, kp_index w) {
    ctrl_wl *wl = &c->wls[w];
    while (wl->active_from < wl->n && !kp__ctrl_active(c, wl->pods[wl->active_from])) {
        wl->active_from++;
        c->looked++;
    }
    return wl->active_from;
}

kp_status kp__ctrl_event(kp_ctrl *c, const kp_ctrl_sink *sink, bool warning, const char *reason,
                         const kp_workload_info *in, const char *message, kp_index pod,
                         kp_index node, kp_index cause_pod, kp_error *err) {
    (void)c;
    if (!sink || !sink->event) return KP_OK;
    kp_ctrl_event ev = {warning, reason, in->kind, in->ns, in->name, message, pod, node, cause_pod};
    return sink->event(sink->ctx, &ev, err);
}

kp_index kp__ctrl_lost_pod(kp_ctrl *c, kp_index w, kp_index node) {
    ctrl_wl *wl = &c->wls[w];
    if (node < 0) { /* from the cursor on: a pod seen leaving since lowered it */
        for (; wl->lost_from < wl->n; wl->lost_from++) {
            uint32_t q = wl->pods[wl->lost_from];
            c->looked++;
            if (kp__ctrl_active(c, q) || c->pods[q].replaced) continue;
            c->pods[q].replaced = true;
            wl->lost_from++;
            return (kp_index)q;
        }
        return -1;
    }
    for (uint32_t i = 0; i < wl->n; i++) {
        uint32_t q = wl->pods[i];
        c->looked++;
        if (kp__ctrl_active(c, q) || c->pods[q].replaced) continue;
        if (node >= 0 && c->pods[q].node != node && kp_cluster_pod_target_node(c->cl, q) != node)
            continue;
        c->pods[q].replaced = true;
        return (kp_index)q;
    }
    return -1;
}

kp_status kp__ctrl_create_pod(kp_ctrl *c, kp_index w, const kp_workload_info *in, const char *name,
                              kp_index node, const kp_ctrl_sink *sink, kp_error *err) {
    const ctrl_wl *wl = &c->wls[w];
    kp_index like = -1;
    if (!in->has_template)
        for (uint32_t i = 0; i < wl->n && like < 0; i++) like = (kp_index)wl->pods[i];
    kp_index idx = -1;
    kp_error e2;
    kp_error_clear(&e2);
    int64_t now = kp__ctrl_now_s(c);
    kp_status st = node >= 0 ? kp_cluster_create_daemon_pod(c->cl, w, node, name, now, &idx, &e2)
                             : kp_cluster_create_pod(c->cl, in->has_template ? w : -1, like, name,
                                                     now, &idx, &e2);
    if (st == KP_ENOMEM) return kp__ctrl_nomem(err);
    if (st != KP_OK) /* the controller's FailedCreate event; it tries again on its next sync */
        return kp__ctrl_event(c, sink, true, "FailedCreate", in, e2.msg, -1, -1, -1, err);
    kp_index replaces = kp__ctrl_lost_pod(c, w, node);
    if (kp__ctrl_index_pods(c, (size_t)idx + 1) != KP_OK) return kp__ctrl_nomem(err);
    char msg[600];
    if (strcmp(in->kind, "StatefulSet") == 0)
        snprintf(msg, sizeof msg, "create Pod %s in StatefulSet %s successful", name, in->name);
    else snprintf(msg, sizeof msg, "Created pod: %s", name);
    if (!sink || !sink->pod_created) return KP_OK;
    kp_ctrl_event ev = {false,   "SuccessfulCreate", in->kind, in->ns, in->name, msg, idx, -1,
                        replaces};
    return sink->pod_created(sink->ctx, idx, replaces, &ev, err);
}

kp_status kp__ctrl_pod_deleting(kp_ctrl *c, uint32_t pod, const kp_ctrl_event *ev,
                                const kp_ctrl_sink *sink, kp_error *err) {
    kp_pod_info pi;
    kp_cluster_pod_info(c->cl, pod, &pi);
    if (!pi.deleted && !pi.terminal && pi.node >= 0 && pi.deletion_ts == KP_TIME_UNSET) {
        /* the API server's deletionTimestamp; a pod on no node is deleted at once instead */
        kp_status st = kp_cluster_mark_terminating(c->cl, pod, kp__ctrl_now_s(c), NULL, err);
        if (st != KP_OK) return st;
    }
    if (sink && sink->pod_deleting) return sink->pod_deleting(sink->ctx, pod, "deleted", ev, err);
    /* no runner: the API server deletes a pod on no node at once; a running one stays
     * terminating (nobody plays its grace period) */
    return pi.node < 0 && !pi.deleted ? kp_cluster_delete_pod(c->cl, pod, err) : KP_OK;
}

kp_status kp__ctrl_pod_deleted(kp_ctrl *c, uint32_t pod, const kp_ctrl_event *ev,
                               const kp_ctrl_sink *sink, kp_error *err) {
    if (sink && sink->pod_deleted) return sink->pod_deleted(sink->ctx, pod, ev, err);
    return kp_cluster_delete_pod(c->cl, pod, err);
}

kp_status kp__ctrl_delete_pod(kp_ctrl *c, const kp_workload_info *in, uint32_t pod, const char *msg,
                              const kp_ctrl_sink *sink, kp_error *err) {
    char buf[400];
    if (!msg) {
        snprintf(buf, sizeof buf, "Deleted pod: %s", kp_cluster_pod_name(c->cl, pod));
        msg = buf;
    }
    kp_ctrl_event ev = {false, "SuccessfulDelete", in->kind, in->ns, in->name, msg, pod, -1, -1};
    c->pods[pod].replaced = true;
    kp_pod_info pi;
    kp_cluster_pod_info(c->cl, pod, &pi);
    if (!pi.terminal) return kp__ctrl_pod_deleting(c, pod, &ev, sink, err);
    return kp__ctrl_pod_deleted(c, pod, &ev, sink, err);
}


kp_index kp__ctrl_rs_deployment(kp_ctrl *c, kp_index rs) {
    if (rs < 0 || (size_t)rs >= c->n_wls || c->wls[rs].kind != CTRL_KIND_REPLICASET) return -1;
    if (c->wls[rs].owner_dep != -2) return c->wls[rs].owner_dep;
    const kp_cluster *cl = c->cl;
    const kp_workload *w = &cl->workloads[rs];
    kp_index found = -1;
    if (w->kind == KP_WL_RS && w->owner_kind && strcmp(kp__s(cl, w->owner_kind), "Deployment") == 0)
        for (size_t i = 0; i < cl->n_workloads && found < 0; i++)
            if (cl->workloads[i].kind == KP_WL_DEPLOY && !cl->workloads[i].deleted &&
                cl->workloads[i].ns == w->ns && cl->workloads[i].name == w->owner_name)
                found = (kp_index)i;
    c->wls[rs].owner_dep = found;
    return found;
}
