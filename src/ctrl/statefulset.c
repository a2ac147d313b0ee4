/* The StatefulSet controller (pkg/controller/statefulset): pods named NAME-ORDINAL, created in
 * place of the old pod of their name once it is gone, OrderedReady one at a time or Parallel,
 * the ordinals past spec.replicas deleted highest first; a changed template rolled out
 * (RollingUpdate: the highest ordinal not at the update revision first, at most maxUnavailable
 * at a time, none below partition; OnDelete: only pods deleted by something else). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/labels.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

/* The ordinal of a pod named SET-N (getParentNameAndOrdinal: the set's name, "-", a decimal);
 * -1 when the name has no ordinal of this set. */
static int64_t ordinal_of(const char *pod, const char *set) {
    size_t n = strlen(set);
    if (strncmp(pod, set, n) != 0 || pod[n] != '-' || !pod[n + 1]) return -1;
    int64_t v = 0;
    for (const char *c = pod + n + 1; *c; c++) {
        if (*c < '0' || *c > '9' || v > INT32_MAX) return -1;
        v = v * 10 + (*c - '0');
    }
    return v;
}

static kp_status delete_condemned(kp_ctrl *c, const kp_workload_info *in, uint32_t pod,
                                  const kp_ctrl_sink *sink, kp_error *err) {
    char msg[700];
    snprintf(msg, sizeof msg, "delete Pod %s in StatefulSet %s successful",
             kp_cluster_pod_name(c->cl, pod), in->name);
    return kp__ctrl_delete_pod(c, in, pod, msg, sink, err); /* scaled down: nothing replaces it */
}

/* mirrors StatefulSetControl.processCondemned: pods whose ordinal is outside [lo, hi) go,
 * the highest ordinal first. Parallel: all at once. OrderedReady (monotonic): one at a time,
 * only once the one before is gone and while every other pod of the set is running and ready
 * (Ready and not terminating: isHealthy); the next sync (a pod of the set gone or Ready) goes
 * on. */
static kp_status scale_down(kp_ctrl *c, kp_index w, const kp_workload_info *in, int64_t lo,
                            int64_t hi, const kp_ctrl_sink *sink, kp_error *err) {
    for (;;) {
        const ctrl_wl *wl = &c->wls[w];
        long target = -1;
        int64_t tord = -1;
        bool unhealthy = false, target_unhealthy = false;
        for (uint32_t i = 0; i < wl->n; i++) {
            uint32_t q = wl->pods[i];
            kp_pod_info pi;
            kp_cluster_pod_info(c->cl, q, &pi);
            int64_t ord = ordinal_of(kp_cluster_pod_name(c->cl, q), in->name);
            if (pi.deleted || pi.terminal || ord < 0) continue;
            bool bad = !pi.ready || pi.deletion_ts != KP_TIME_UNSET; /* !isHealthy */
            bool condemned = ord < lo || ord >= hi;
            if (in->parallel_pods && condemned && pi.deletion_ts != KP_TIME_UNSET) continue;
            if (condemned && ord > tord) {
                if (target >= 0) unhealthy |= target_unhealthy;
                target = q, tord = ord, target_unhealthy = bad;
            } else {
                unhealthy |= bad;
            }
        }
        if (target < 0) return KP_OK;
        if (!in->parallel_pods) {
            kp_pod_info pi;
            kp_cluster_pod_info(c->cl, target, &pi);
            if (pi.deletion_ts != KP_TIME_UNSET || unhealthy) return KP_OK; /* wait */
            return delete_condemned(c, in, (uint32_t)target, sink, err);
        }
        kp_status st = delete_condemned(c, in, (uint32_t)target, sink, err);
        if (st != KP_OK) return st;
    }
}

/* Whether pod is available now (isRunningAndAvailable: Ready, minReadySeconds passed); a Ready
 * pod not available yet asks for a resync when it will be (the informer's AddAfter of a pod
 * becoming available, kp_ctrl_sink.resync_at). */
static kp_status available(kp_ctrl *c, kp_index w, const kp_workload_info *in, uint32_t pod,
                           bool *out, const kp_ctrl_sink *sink, kp_error *err) {
    int64_t now_s = kp__ctrl_now_s(c);
    *out = kp_cluster_pod_available(c->cl, (kp_index)pod, in->min_ready_seconds, now_s);
    if (*out || !kp_cluster_pod_ready(c->cl, (kp_index)pod)) return KP_OK;
    int64_t at =
        (kp_cluster_pod_ready_time(c->cl, (kp_index)pod) + in->min_ready_seconds - c->epoch) * 1000;
    if (at <= c->now || c->wls[w].resync_at == at) return KP_OK;
    c->wls[w].resync_at = at;
    if (!sink || !sink->resync_at) return KP_OK;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_WORKLOAD, w, at, err);
}

/* The live (not terminal, not deleted) pod of ordinal ord, -1 when none */
static kp_index replica_pod(const kp_ctrl *c, const kp_workload_info *in, int64_t ord) {
    char ref[800];
    snprintf(ref, sizeof ref, "%s/%s-%lld", in->ns, in->name, (long long)ord);
    kp_index p = kp_cluster_find_pod(c->cl, ref);
    kp_pod_info pi;
    if (p < 0 || kp_cluster_pod_info(c->cl, p, &pi) != KP_OK || pi.terminal || pi.deleted)
        return -1;
    return p;
}

/* getStatefulSetMaxUnavailable: spec.updateStrategy.rollingUpdate.maxUnavailable scaled against
 * spec.replicas rounding down, at least 1 (default 1) */
static int64_t max_unavailable(const kp_workload *wl) {
    const kp_int_or_percent *m = &wl->strategy.max_unavailable;
    int64_t v = !m->set ? 1 : m->percent ? (int64_t)m->value * wl->replicas / 100 : m->value;
    return v < 1 ? 1 : v;
}

/* mirrors updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet, beta and on by
 * default since v1.35): the replicas [lo, hi) unavailable (missing, not Ready, terminating, or
 * Ready for less than minReadySeconds: isUnavailable) counted; past maxUnavailable nothing; else
 * up to maxUnavailable minus that many pods not at the update revision and not terminating are
 * deleted ("delete Pod NAME in StatefulSet SET successful"), from the highest ordinal down to
 * ordinals.start + partition. The deleted pod is made again at the next sync under its name
 * from the update revision's template (core's kp_cluster_create_pod). */
static kp_status rolling_update(kp_ctrl *c, kp_index w, const kp_workload_info *in, int64_t lo,
                                int64_t hi, const kp_ctrl_sink *sink, kp_error *err) {
    const kp_workload *wl = &c->cl->workloads[w];
    int64_t unavailable = 0, max = max_unavailable(wl);
    for (int64_t ord = lo; ord < hi; ord++) {
        kp_index p = replica_pod(c, in, ord);
        bool ok = false;
        kp_status st = p >= 0 ? available(c, w, in, (uint32_t)p, &ok, sink, err) : KP_OK;
        if (st != KP_OK) return st;
        if (p < 0 || !ok || !kp__ctrl_active(c, (uint32_t)p)) unavailable++;
    }
    if (unavailable > max) return KP_OK;
    int64_t left = max - unavailable, floor = lo + wl->strategy.partition;
    for (int64_t ord = hi - 1; ord >= floor && left > 0; ord--) {
        kp_index p = replica_pod(c, in, ord);
        if (p < 0 || !kp__ctrl_active(c, (uint32_t)p)) continue;
        wl = &c->cl->workloads[w];
        if (kp__pod_at_revision(c->cl, &c->cl->pods[p], wl, wl->tmpl_rev)) continue;
        kp_status st = delete_condemned(c, in, (uint32_t)p, sink, err);
        if (st != KP_OK) return st;
        c->pods[p].replaced = false; /* its successor under its name links to it */
        left--;
    }
    return KP_OK;
}

/* mirrors completeRollingUpdate (updateStatefulSetStatus): with RollingUpdate, once every
 * replica runs, is Ready and is at the update revision (updatedReplicas == readyReplicas ==
 * replicas), status.currentRevision becomes the update revision (core's
 * kp__workload_rollout_done): from then on a deleted pod below the partition is made again from
 * the new template too. */
static void complete_rollout(kp_ctrl *c, kp_index w, const kp_workload_info *in, int64_t lo,
                             int64_t hi) {
    kp_workload *wl = &c->cl->workloads[w];
    if (wl->strategy.type != KP_WL_STRATEGY_ROLLING || wl->cur_rev == wl->tmpl_rev) return;
    for (int64_t ord = lo; ord < hi; ord++) {
        kp_index p = replica_pod(c, in, ord);
        if (p < 0 || !kp__ctrl_active(c, (uint32_t)p) || !kp_cluster_pod_ready(c->cl, p) ||
            !kp__pod_at_revision(c->cl, &c->cl->pods[p], wl, wl->tmpl_rev))
            return;
    }
    kp__workload_rollout_done(wl);
}

/* mirrors StatefulSetControl.UpdateStatefulSet (processReplica, runForAll) for pods
 * NAME-ORDINAL, ordinals from spec.ordinals.start: a missing ordinal is created once the old pod
 * of that name is gone (a terminating one blocks it; a Succeeded or Failed one is deleted first),
 * from the template of its revision (newVersionedStatefulSetPod, core's kp_cluster_create_pod);
 * ordinals outside the range go (scale_down). OrderedReady (monotonic): the ordinals in
 * increasing order, one at a time: after a creation, or at a pod terminating or not running and
 * available (Ready for minReadySeconds: isRunningAndAvailable), the sync stops; the pod's
 * readiness, availability or deletion syncs again. Parallel: every missing ordinal at once. Then
 * the rolling update (RollingUpdate; OnDelete does nothing more) and completeRollingUpdate. */
kp_status kp_ctrl_statefulset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                   kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_STATEFULSET ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "statefulset sync: %ld is not a StatefulSet", (long)w);
    c->now = now_ms;
    if (kp__ctrl_claim_pods(c, w) != KP_OK) return kp__ctrl_nomem(err);
    int64_t lo = in.ordinals_start, hi = lo + in.replicas;
    bool monotonic = !in.parallel_pods;
    for (int64_t ord = lo; ord < hi; ord++) {
        char name[400], ref[800];
        snprintf(name, sizeof name, "%s-%lld", in.name, (long long)ord);
        snprintf(ref, sizeof ref, "%s/%s", in.ns, name);
        kp_index cur = kp_cluster_find_pod(c->cl, ref);
        if (cur >= 0) {
            kp_pod_info pi;
            kp_cluster_pod_info(c->cl, cur, &pi);
            if (!pi.terminal) { /* running, pending or still terminating */
                bool ok = false;
                kp_status st = available(c, w, &in, (uint32_t)cur, &ok, sink, err);
                if (st != KP_OK) return st;
                if (monotonic && (!ok || pi.deletion_ts != KP_TIME_UNSET)) return KP_OK;
                continue;
            }
            /* a Succeeded / Failed pod is deleted before its replacement (no event) */
            kp_status st = kp__ctrl_pod_deleted(c, (uint32_t)cur, NULL, sink, err);
            if (st != KP_OK) return st;
        }
        kp_status st = kp__ctrl_create_pod(c, w, &in, name, -1, sink, err);
        if (st != KP_OK || monotonic) return st; /* monotonic: wait for it to be ready */
    }
    kp_status st = scale_down(c, w, &in, lo, hi, sink, err);
    if (st != KP_OK) return st;
    if (c->cl->workloads[w].strategy.type == KP_WL_STRATEGY_ROLLING &&
        (st = rolling_update(c, w, &in, lo, hi, sink, err)) != KP_OK)
        return st;
    complete_rollout(c, w, &in, lo, hi);
    return KP_OK;
}
