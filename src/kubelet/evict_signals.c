/* Signal observations and threshold evaluation.
 *
 * Upstream: helpers.go (makeSignalObservations, thresholdsMet, hasThreshold,
 * compareThresholdValue), helpers_linux.go (makeMemoryAvailableSignalObservation). Quantities are
 * compared exactly (evict_thresholds.c: kp__ev_value_amount): a threshold may carry fractions
 * (scale down to 10^-9), observations are integers. */
#include <stdio.h>
#include <string.h>

#include "core/summary.h"
#include "kubelet/evict_signals.h"
#include "kubelet/evict_thresholds.h"

static void obs_fs(kp_evict_observation *avail, kp_evict_observation *inodes, const kp__ev_fs *fs) {
    if (!(fs->has & KP__EVF_PRESENT)) return;
    if ((fs->has & KP__EVF_AVAIL) && (fs->has & KP__EVF_CAP)) {
        avail->present = true;
        avail->available = kp__ev_u2i(fs->avail);
        avail->capacity = kp__ev_u2i(fs->cap);
        avail->time_ns = fs->time_ns;
    }
    if ((fs->has & KP__EVF_IFREE) && (fs->has & KP__EVF_INODES)) {
        inodes->present = true;
        inodes->available = kp__ev_u2i(fs->inodes_free);
        inodes->capacity = kp__ev_u2i(fs->inodes);
        inodes->time_ns = fs->time_ns;
    }
}

static void obs_mem(kp_evict_observation *o, const kp__ev_mem *m) {
    if ((m->has & KP__EVM_AVAIL) && (m->has & KP__EVM_WS)) {
        o->present = true;
        o->available = kp__ev_u2i(m->avail);
        o->capacity = kp__ev_u2i(m->avail + m->ws); /* uint64 sum, as upstream */
        o->time_ns = m->time_ns;
    }
}

/* mirrors makeSignalObservations (Linux memory.available) */
void kp__ev_observe(const kp_evict_summary *s, kp_evict_observation obs[KP_EVSIG_COUNT]) {
    memset(obs, 0, sizeof *obs * KP_EVSIG_COUNT);
    obs_mem(&obs[KP_EVSIG_MEMORY_AVAILABLE], &s->node_mem);
    if (s->has_pods_container) obs_mem(&obs[KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE], &s->pods_mem);
    obs_fs(&obs[KP_EVSIG_NODEFS_AVAILABLE], &obs[KP_EVSIG_NODEFS_INODES_FREE], &s->node_fs);
    obs_fs(&obs[KP_EVSIG_IMAGEFS_AVAILABLE], &obs[KP_EVSIG_IMAGEFS_INODES_FREE], &s->imagefs);
    obs_fs(&obs[KP_EVSIG_CONTAINERFS_AVAILABLE], &obs[KP_EVSIG_CONTAINERFS_INODES_FREE],
           &s->containerfs);
    if (s->has_rlimit && s->has_maxpid && s->has_curproc) {
        kp_evict_observation *o = &obs[KP_EVSIG_PID_AVAILABLE];
        o->present = true;
        o->available = s->maxpid - s->curproc;
        o->capacity = s->maxpid;
        o->time_ns = s->rlimit_time_ns;
    }
}

/* mirrors thresholdsMet */
uint32_t kp__ev_thresholds_met(const kp__ev_threshold *th, const uint32_t *idx, uint32_t n,
                               const kp_evict_observation obs[KP_EVSIG_COUNT],
                               bool enforce_min_reclaim, uint32_t *out) {
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        const kp__ev_threshold *t = &th[idx[k]];
        const kp_evict_observation *o = &obs[t->signal];
        if (!o->present || !t->has_op) continue;
        kp__ev_amount q = kp__ev_value_amount(&t->value, o->capacity);
        if (enforce_min_reclaim && t->has_min_reclaim)
            q = kp__ev_amount_add(q, kp__ev_value_amount(&t->min_reclaim, o->capacity));
        if (kp__ev_amount_gt_int(q, o->available)) out[m++] = idx[k];
    }
    return m;
}
