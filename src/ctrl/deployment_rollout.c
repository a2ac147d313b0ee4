/* The deployment controller's strategies (pkg/controller/deployment rolling.go, recreate.go) and
 * the scaling of a Deployment whose spec.replicas changed (sync.go scale), over one sync's view
 * of its ReplicaSets (deployment_internal.h). The status is synced by the caller. */
#include <string.h>

#include "core/cluster.h"
#include "ctrl/deployment_internal.h"

static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

/* ---------------------------------------------------------------- RollingUpdate */

/* mirrors reconcileNewReplicaSet: the new ReplicaSet at spec.replicas, down to it when above,
 * else up by NewRSNewReplicas (within maxSurge) */
static kp_status reconcile_new(dep_sync *x, bool *scaled) {
    dep_rs *nw = &x->rs[x->nw];
    if (nw->spec == x->dw.replicas) return KP_OK;
    if (nw->spec > x->dw.replicas)
        return kp__dep_scale_rs(x, (size_t)x->nw, x->dw.replicas, scaled);
    int32_t to = kp__deploy_new_rs_replicas(&x->dw, kp__dep_sum_spec(x), nw->spec);
    return kp__dep_scale_rs(x, (size_t)x->nw, to, scaled);
}

/* mirrors cleanupUnhealthyReplicas: old ReplicaSets, oldest first, lose their unavailable
 * replicas first, at most max in all */
static kp_status cleanup_unhealthy(dep_sync *x, int32_t max, int32_t *done) {
    *done = 0;
    for (size_t i = 0; i < x->n && *done < max; i++) {
        dep_rs *r = &x->rs[i];
        if ((long)i == x->nw || r->spec == 0 || r->spec == r->available) continue;
        int32_t down = min32(max - *done, r->spec - r->available);
        kp_status st = kp__dep_scale_rs(x, i, r->spec - down, NULL);
        if (st != KP_OK) return st;
        *done += down;
    }
    return KP_OK;
}

/* mirrors scaleDownOldReplicaSetsForRollingUpdate: the available pods above spec.replicas -
 * maxUnavailable go, from the oldest ReplicaSets first */
static kp_status scale_down_old(dep_sync *x, int32_t *done) {
    *done = 0;
    int32_t min_available = x->dw.replicas - kp__deploy_max_unavailable(&x->dw);
    int32_t available = kp__dep_sum_available(x);
    if (available <= min_available) return KP_OK;
    int32_t total = available - min_available;
    for (size_t i = 0; i < x->n && *done < total; i++) {
        dep_rs *r = &x->rs[i];
        if ((long)i == x->nw || r->spec == 0) continue;
        int32_t down = min32(r->spec, total - *done);
        kp_status st = kp__dep_scale_rs(x, i, r->spec - down, NULL);
        if (st != KP_OK) return st;
        *done += down;
    }
    return KP_OK;
}

/* mirrors reconcileOldReplicaSets: how far the old ReplicaSets may shrink (all pods less the
 * minimum available less the new ReplicaSet's unavailable ones), the unhealthy ones first */
static kp_status reconcile_old(dep_sync *x, bool *scaled) {
    int32_t old = 0;
    for (size_t i = 0; i < x->n; i++)
        if ((long)i != x->nw) old += x->rs[i].spec;
    if (old == 0) return KP_OK;
    int32_t min_available = x->dw.replicas - kp__deploy_max_unavailable(&x->dw);
    const dep_rs *nw = &x->rs[x->nw];
    int32_t max_down = kp__dep_sum_spec(x) - min_available - (nw->spec - nw->available);
    if (max_down <= 0) return KP_OK;
    int32_t cleaned = 0, down = 0;
    kp_status st = cleanup_unhealthy(x, max_down, &cleaned);
    if (st == KP_OK) st = scale_down_old(x, &down);
    if (cleaned + down > 0) *scaled = true;
    return st;
}

/* mirrors rolloutRolling: the new ReplicaSet made if missing, scaled up if it can be, else the
 * old ones scaled down if they can be */
kp_status kp__dep_rollout_rolling(dep_sync *x) {
    kp_status st = x->nw < 0 ? kp__dep_create_new(x) : KP_OK;
    bool up = false, down = false;
    if (st == KP_OK) st = reconcile_new(x, &up);
    if (st != KP_OK || up) return st;
    return reconcile_old(x, &down);
}

/* ---------------------------------------------------------------- Recreate */

/* mirrors oldPodsRunning: an old ReplicaSet still counts active pods, or any pod of one has not
 * ended (a terminating one included) */
static bool old_pods_running(const dep_sync *x) {
    for (size_t i = 0; i < x->n; i++)
        if ((long)i != x->nw && (x->rs[i].actual > 0 || x->rs[i].running > 0)) return true;
    return false;
}

/* mirrors rolloutRecreate: every old ReplicaSet scaled to 0 (scaleDownOldReplicaSetsForRecreate);
 * while an old pod runs nothing more; then the new ReplicaSet made (at spec.replicas) or scaled
 * up (scaleUpNewReplicaSetForRecreate) */
kp_status kp__dep_rollout_recreate(dep_sync *x) {
    bool down = false;
    for (size_t i = 0; i < x->n; i++) {
        if ((long)i == x->nw || x->rs[i].spec == 0) continue;
        kp_status st = kp__dep_scale_rs(x, i, 0, &down);
        if (st != KP_OK) return st;
    }
    if (down || old_pods_running(x)) return KP_OK;
    if (x->nw < 0) {
        kp_status st = kp__dep_create_new(x);
        if (st != KP_OK) return st;
    }
    return kp__dep_scale_rs(x, (size_t)x->nw, x->dw.replicas, NULL);
}

/* ---------------------------------------------------------------- scaling events */

/* mirrors FindActiveOrLatest: the one active ReplicaSet; with none, the new one or the newest
 * old one; -1 when several are active */
static long active_or_latest(const dep_sync *x) {
    long active = -1;
    int n = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->rs[i].spec > 0) active = (long)i, n++;
    if (n == 1) return active;
    if (n > 1) return -1;
    if (x->nw >= 0) return x->nw;
    return x->n ? (long)x->n - 1 : -1;
}

/* mirrors scale: a Deployment with one active ReplicaSet scales it to spec.replicas; a saturated
 * new ReplicaSet (IsSaturated) takes the old ones to 0; otherwise (a rollout under way) the
 * rollout's own steps resize them at the next sync (kprio does not split the difference
 * proportionally: docs/scenario.md) */
kp_status kp__dep_scale(dep_sync *x) {
    long one = active_or_latest(x);
    if (one >= 0) return kp__dep_scale_rs(x, (size_t)one, x->dw.replicas, NULL);
    if (x->nw < 0) return KP_OK;
    const dep_rs *nw = &x->rs[x->nw];
    bool saturated = nw->spec == x->dw.replicas && nw->available == x->dw.replicas;
    if (!saturated) {
        /* the desired-replicas annotation follows, so the next sync is no scaling event */
        for (size_t i = 0; i < x->n; i++) x->c->wls[x->rs[i].w].desired_replicas = x->in.replicas;
        kp__ctrl_mark(x->c, x->d);
        return KP_OK;
    }
    for (size_t i = 0; i < x->n; i++) {
        if ((long)i == x->nw || x->rs[i].spec == 0) continue;
        kp_status st = kp__dep_scale_rs(x, i, 0, NULL);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}
