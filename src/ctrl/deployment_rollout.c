/* The deployment controller's strategies (pkg/controller/deployment rolling.go, recreate.go) and
 * the scaling of a Deployment whose spec.replicas changed (sync.go scale), over one sync's view
 * of its ReplicaSets (deployment_internal.h). The status is synced by the caller. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "ctrl/deployment_internal.h"

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

/* mirrors reconcileOldReplicaSets (cleanupUnhealthyReplicas, then
 * scaleDownOldReplicaSetsForRollingUpdate): kp__deploy_old_scale_down's steps applied, each a
 * ScalingReplicaSet */
static kp_status reconcile_old(dep_sync *x, bool *scaled) {
    size_t n = 0;
    for (size_t i = 0; i < x->n; i++) n += (long)i != x->nw;
    if (n == 0) return KP_OK;
    size_t *idx = kp__malloc(n * sizeof *idx);
    int32_t *spec = kp__malloc(n * sizeof *spec), *avail = kp__malloc(n * sizeof *avail);
    kp_deploy_step *steps = kp__malloc(2 * n * sizeof *steps);
    kp_status st = idx && spec && avail && steps ? KP_OK : kp__ctrl_nomem(x->err);
    for (size_t i = 0, k = 0; st == KP_OK && i < x->n; i++) {
        if ((long)i == x->nw) continue;
        idx[k] = i;
        spec[k] = x->rs[i].spec;
        avail[k++] = x->rs[i].available;
    }
    const dep_rs *nw = &x->rs[x->nw];
    size_t n_steps = st == KP_OK ? kp__deploy_old_scale_down(&x->dw, nw->spec, nw->available, n,
                                                             spec, avail, steps)
                                 : 0;
    for (size_t s = 0; st == KP_OK && s < n_steps; s++)
        st = kp__dep_scale_rs(x, idx[steps[s].rs], steps[s].to, scaled);
    kp__free(idx);
    kp__free(spec);
    kp__free(avail);
    kp__free(steps);
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
