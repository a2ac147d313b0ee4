/* Pod classification and naming (mirrors pkg/kubelet/types). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/meta.h"
#include "core/pod.h"

bool kp__pod_is_terminal(const kp_pod *p) {
    return p->phase == KP_PHASE_SUCCEEDED || p->phase == KP_PHASE_FAILED;
}

bool kp__pod_has_condition(const kp_cluster *cl, const kp_pod *p, const char *type,
                           const char *status, const char *reason) {
    for (uint16_t i = 0; i < p->n_conditions; i++) {
        const kp_condition *c = &p->conditions[i];
        if (strcmp(kp__s(cl, c->type), type) != 0) continue;
        /* upstream reads the first condition of that type */
        return (!status || strcmp(kp__s(cl, c->status), status) == 0) &&
               (!reason || strcmp(kp__s(cl, c->reason), reason) == 0);
    }
    return false;
}

void kp__pod_ready_default(kp_pod *p) {
    if (p->has_ready_cond) return;
    p->ready = p->node_name && (p->phase == KP_PHASE_RUNNING || p->phase == KP_PHASE_UNKNOWN);
    p->ready_ts = !p->ready                       ? KP_TIME_NONE
                  : p->start_time != KP_TIME_NONE ? p->start_time
                                                  : p->creation_ts;
}

bool kp__pod_ready(const kp_pod *p) { return p->ready && !p->deleted && !kp__pod_is_terminal(p); }

/* mirrors podutil.IsPodAvailable (the newest line: lastTransitionTime + minReadySeconds at or
 * before now, Compare <= 0; older lines required strictly before) */
bool kp__pod_available(const kp_pod *p, int32_t min_ready, int64_t now) {
    if (!kp__pod_ready(p)) return false;
    if (min_ready <= 0) return true;
    if (p->ready_ts == KP_TIME_NONE) return !p->has_ready_cond; /* a zero time is never before */
    return p->ready_ts + min_ready <= now;
}

const char *kp__pod_ref(const kp_cluster *cl, const kp_pod *p, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp__s(cl, p->ns), kp__s(cl, p->name));
    return buf;
}
