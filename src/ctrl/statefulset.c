/* The StatefulSet controller (pkg/controller/statefulset): pods named NAME-ORDINAL, created in
 * place of the old pod of their name once it is gone, OrderedReady one at a time or Parallel,
 * the ordinals past spec.replicas deleted highest first. */
#include <stdio.h>
#include <string.h>

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

/* mirrors StatefulSetControl.UpdateStatefulSet (processReplica, runForAll) for pods
 * NAME-ORDINAL, ordinals from spec.ordinals.start: a missing ordinal is created once the old pod
 * of that name is gone (a terminating one blocks it; a Succeeded or Failed one is deleted first);
 * ordinals outside the range go (scale_down). OrderedReady (monotonic): the ordinals in
 * increasing order, one at a time: after a creation, or at a pod terminating or not running and
 * ready (its Ready condition), the sync stops; the pod's readiness or deletion syncs again.
 * Parallel: every missing ordinal at once. */
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
                /* isRunningAndReady (the Ready condition, kp_cluster_pod_ready) */
                if (monotonic && (!pi.ready || pi.deletion_ts != KP_TIME_UNSET)) return KP_OK;
                continue;
            }
            /* a Succeeded / Failed pod is deleted before its replacement (no event) */
            kp_status st = kp__ctrl_pod_deleted(c, (uint32_t)cur, NULL, sink, err);
            if (st != KP_OK) return st;
        }
        kp_status st = kp__ctrl_create_pod(c, w, &in, name, -1, sink, err);
        if (st != KP_OK || monotonic) return st; /* monotonic: wait for it to be ready */
    }
    return scale_down(c, w, &in, lo, hi, sink, err);
}
