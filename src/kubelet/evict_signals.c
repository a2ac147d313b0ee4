/* Signal observations and threshold evaluation.
 *
 * Upstream: helpers.go (makeSignalObservations, thresholdsMet, hasThreshold,
 * compareThresholdValue), helpers_linux.go (makeMemoryAvailableSignalObservation) and
 * api/types.go (GetThresholdQuantity). Quantities are compared exactly: a threshold may carry
 * fractions (scale down to 10^-9), observations are integers. */
#include <stdio.h>
#include <string.h>

#include "kubelet/evict_thresholds.h"

static kp__ev_amount quantity_amount(const kp_quantity *q) {
    kp__ev_amount a = {0, 0};
    if (q->scale >= 0) {
        int64_t v = q->mant;
        for (int32_t i = 0; i < q->scale; i++) {
            if (v > INT64_MAX / 10) { a.whole = INT64_MAX; return a; }
            if (v < INT64_MIN / 10) { a.whole = INT64_MIN; return a; }
            v *= 10;
        }
        a.whole = v;
        return a;
    }
    int64_t div = 1, mul = 1;
    for (int32_t i = 0; i < -q->scale && i < 9; i++) div *= 10;
    for (int32_t i = 0; i < 9 + q->scale; i++) mul *= 10;
    int64_t whole = q->mant / div, rem = q->mant % div;
    if (rem < 0) { whole -= 1; rem += div; }
    a.whole = whole;
    a.nanos = (int32_t)(rem * mul);
    return a;
}

/* mirrors GetThresholdQuantity: float32 percentage times the capacity in float64, truncated */
kp__ev_amount kp__ev_value_amount(const kp__ev_value *v, int64_t capacity) {
    if (v->is_pct) {
        kp__ev_amount a = {(int64_t)((double)capacity * (double)v->pct), 0};
        return a;
    }
    return quantity_amount(&v->q);
}

kp__ev_amount kp__ev_amount_add(kp__ev_amount a, kp__ev_amount b) {
    kp__ev_amount r;
    r.whole = kp__ev_sat_add(a.whole, b.whole);
    r.nanos = a.nanos + b.nanos;
    if (r.nanos >= 1000000000) { r.nanos -= 1000000000; r.whole = kp__ev_sat_add(r.whole, 1); }
    return r;
}

bool kp__ev_amount_gt_int(kp__ev_amount a, int64_t v) {
    return a.whole > v || (a.whole == v && a.nanos > 0);
}

void kp__ev_threshold_quantity_str(const kp__ev_value *v, int64_t capacity, char *buf, size_t cap) {
    if (v->is_pct) {
        kp__ev_amount a = kp__ev_value_amount(v, capacity);
        kp_quantity_format_int(a.whole, KP_QFMT_BINARY_SI, buf, cap);
    } else {
        snprintf(buf, cap, "%s", v->str); /* DeepCopy keeps the cached string */
    }
}

void kp__ev_quantity_string(const kp_quantity *q, const char *text, size_t len, char *buf, size_t cap) {
    if (text && len < cap && kp_quantity_parse_keeps_string(text, len)) {
        memcpy(buf, text, len);
        buf[len] = 0;
        return;
    }
    kp_quantity_format(q, buf, cap);
}

/* mirrors compareThresholdValue */
bool kp__ev_value_equal(const kp__ev_value *a, const kp__ev_value *b) {
    if (!a->is_pct) return !b->is_pct && kp_quantity_cmp(&a->q, &b->q) == 0;
    if (!b->is_pct) return false;
    return a->pct == b->pct;
}

/* mirrors hasThreshold's comparison */
bool kp__ev_threshold_same(const kp__ev_threshold *a, const kp__ev_threshold *b) {
    return a->grace_ns == b->grace_ns && a->has_op == b->has_op && a->signal == b->signal &&
           kp__ev_value_equal(&a->value, &b->value);
}

void kp__ev_format_spec_qty(int64_t v, char *buf, size_t cap) {
    kp_qformat f = (v != 0 && v % 1024 == 0) ? KP_QFMT_BINARY_SI : KP_QFMT_DECIMAL_SI;
    kp_quantity_format_int(v, f, buf, cap);
}

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
    obs_fs(&obs[KP_EVSIG_CONTAINERFS_AVAILABLE], &obs[KP_EVSIG_CONTAINERFS_INODES_FREE], &s->containerfs);
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
