/* The deployment controller's arithmetic (pkg/controller/deployment/util/deployment_util.go and
 * intstr): surge and unavailability of a rolling update, the new ReplicaSet's next size, and the
 * three tests of a rollout's progress. Pure functions of their arguments (ctrl_internal.h). */
#include <string.h>

#include "core/workload.h"
#include "ctrl/ctrl_internal.h"

/* mirrors intstr.GetScaledValueFromIntOrPercent: a count as it is, a percentage of total
 * rounded up or down (no float: the percentages are whole numbers) */
int32_t kp__deploy_scaled(const kp_int_or_percent *v, int32_t total, bool round_up) {
    if (!v->set) return 0;
    if (!v->percent) return v->value;
    int64_t x = (int64_t)v->value * total;
    return (int32_t)(round_up ? (x + 99) / 100 : x / 100);
}

/* mirrors ResolveFenceposts: maxSurge rounded up, maxUnavailable rounded down (unset: 0); both
 * 0 makes maxUnavailable 1 (surge might not work, e.g. for quota) */
void kp__deploy_fenceposts(const kp_int_or_percent *max_surge,
                           const kp_int_or_percent *max_unavailable, int32_t desired,
                           int32_t *surge, int32_t *unavailable) {
    *surge = kp__deploy_scaled(max_surge, desired, true);
    *unavailable = kp__deploy_scaled(max_unavailable, desired, false);
    if (*surge == 0 && *unavailable == 0) *unavailable = 1;
}

/* mirrors MaxSurge: 0 unless RollingUpdate */
int32_t kp__deploy_max_surge(const kp_workload *d) {
    if (d->strategy.type != KP_WL_STRATEGY_ROLLING) return 0;
    int32_t s, u;
    kp__deploy_fenceposts(&d->strategy.max_surge, &d->strategy.max_unavailable, d->replicas, &s,
                          &u);
    return s;
}

/* mirrors MaxUnavailable: 0 unless RollingUpdate with replicas; at most spec.replicas */
int32_t kp__deploy_max_unavailable(const kp_workload *d) {
    if (d->strategy.type != KP_WL_STRATEGY_ROLLING || d->replicas == 0) return 0;
    int32_t s, u;
    kp__deploy_fenceposts(&d->strategy.max_surge, &d->strategy.max_unavailable, d->replicas, &s,
                          &u);
    return u > d->replicas ? d->replicas : u;
}

/* mirrors NewRSNewReplicas: Recreate, spec.replicas; RollingUpdate, the new ReplicaSet grows by
 * what maxSurge leaves above the ReplicaSets' spec.replicas sum (all_replicas), up to
 * spec.replicas */
int32_t kp__deploy_new_rs_replicas(const kp_workload *d, int32_t all_replicas,
                                   int32_t new_replicas) {
    if (d->strategy.type != KP_WL_STRATEGY_ROLLING) return d->replicas;
    int32_t max_total = d->replicas + kp__deploy_max_surge(d);
    if (all_replicas >= max_total) return new_replicas;
    int32_t up = max_total - all_replicas;
    if (up > d->replicas - new_replicas) up = d->replicas - new_replicas;
    return new_replicas + up;
}

/* mirrors DeploymentComplete: every replica updated, available, and no old one left */
bool kp__deploy_complete(int32_t replicas, const kp_deploy_status *s) {
    return s->updated == replicas && s->replicas == replicas && s->available == replicas;
}

/* mirrors DeploymentProgressing: more updated, fewer old, more ready or more available than the
 * status before */
bool kp__deploy_progressing(const kp_deploy_status *old, const kp_deploy_status *nw) {
    int32_t old_old = old->replicas - old->updated, new_old = nw->replicas - nw->updated;
    return nw->updated > old->updated || new_old < old_old || nw->ready > old->ready ||
           nw->available > old->available;
}

/* mirrors DeploymentTimedOut: the Progressing condition's lastUpdateTime plus
 * progressDeadlineSeconds is before now (unix seconds); a complete rollout never times out, one
 * timed out stays so */
bool kp__deploy_timed_out(int32_t deadline_s, const char *reason, int64_t last_update,
                          int64_t now_s) {
    if (deadline_s == INT32_MAX || !reason) return false;
    if (strcmp(reason, KP_DEPLOY_NEW_RS_AVAILABLE) == 0) return false;
    if (strcmp(reason, KP_DEPLOY_TIMED_OUT) == 0) return true;
    return last_update + deadline_s < now_s;
}

/* mirrors reconcileOldReplicaSets with cleanupUnhealthyReplicas and
 * scaleDownOldReplicaSetsForRollingUpdate, on numbers: the old ReplicaSets (oldest first) spec[i]
 * / available[i], the new one new_spec / new_available. How far the old ones may shrink: all
 * pods less minAvailable (spec.replicas - maxUnavailable) less the new one's unavailable ones;
 * first their unavailable replicas go, oldest ReplicaSet first, then available ones above
 * minAvailable. The steps (ReplicaSet i to size to), in order, go to steps (room for 2 n);
 * spec[] is updated. Returns the number of steps. */
size_t kp__deploy_old_scale_down(const struct kp_workload *d, int32_t new_spec,
                                 int32_t new_available, size_t n, int32_t *spec,
                                 const int32_t *available, kp_deploy_step *steps) {
    int32_t old = 0, all = new_spec, avail = new_available;
    for (size_t i = 0; i < n; i++) old += spec[i], all += spec[i];
    if (old == 0) return 0;
    int32_t min_available = d->replicas - kp__deploy_max_unavailable(d);
    int32_t max_down = all - min_available - (new_spec - new_available);
    if (max_down <= 0) return 0;
    size_t k = 0;
    int32_t done = 0;
    for (size_t i = 0; i < n && done < max_down; i++) { /* cleanupUnhealthyReplicas */
        if (spec[i] == 0 || spec[i] == available[i]) continue;
        int32_t down = spec[i] - available[i];
        if (down > max_down - done) down = max_down - done;
        if (down <= 0) continue; /* more available than spec: nothing unhealthy to take */
        spec[i] -= down;
        done += down;
        steps[k++] = (kp_deploy_step){i, spec[i]};
    }
    for (size_t i = 0; i < n; i++) avail += available[i]; /* status, as before the cleanup */
    if (avail <= min_available) return k; /* scaleDownOldReplicaSetsForRollingUpdate */
    int32_t total = avail - min_available;
    done = 0;
    for (size_t i = 0; i < n && done < total; i++) {
        if (spec[i] == 0) continue;
        int32_t down = spec[i] < total - done ? spec[i] : total - done;
        spec[i] -= down;
        done += down;
        steps[k++] = (kp_deploy_step){i, spec[i]};
    }
    return k;
}
