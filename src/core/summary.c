/* The decoded Summary API document: its public accessors (summary.h, include/kprio/eviction.h)
 * and the equality the two decoders are checked by. */
#include <string.h>

#include "base/alloc.h"
#include "core/summary.h"

void kp_evict_summary_free(kp_evict_summary *s) { kp__free(s); }

bool kp_evict_summary_time(const kp_evict_summary *s, int64_t *unix_ns) {
    if (s->has_time) *unix_ns = s->time_ns;
    return s->has_time;
}

size_t kp_evict_summary_pod_count(const kp_evict_summary *s) { return s->n_pods; }

/* ---------------------------------------------------------------- equality */

static bool fs_equal(const kp__ev_fs *a, const kp__ev_fs *b) {
    if (a->has != b->has || a->time_ns != b->time_ns) return false;
    return (!(a->has & KP__EVF_AVAIL) || a->avail == b->avail) &&
           (!(a->has & KP__EVF_CAP) || a->cap == b->cap) &&
           (!(a->has & KP__EVF_USED) || a->used == b->used) &&
           (!(a->has & KP__EVF_IFREE) || a->inodes_free == b->inodes_free) &&
           (!(a->has & KP__EVF_INODES) || a->inodes == b->inodes) &&
           (!(a->has & KP__EVF_IUSED) || a->inodes_used == b->inodes_used);
}

static bool mem_equal(const kp__ev_mem *a, const kp__ev_mem *b) {
    if (a->has != b->has || a->time_ns != b->time_ns) return false;
    return (!(a->has & KP__EVM_AVAIL) || a->avail == b->avail) &&
           (!(a->has & KP__EVM_USAGE) || a->usage == b->usage) &&
           (!(a->has & KP__EVM_WS) || a->ws == b->ws);
}

static bool str_equal(const kp_evict_summary *a, uint32_t ao, uint32_t al,
                      const kp_evict_summary *b, uint32_t bo, uint32_t bl) {
    return al == bl && (al == 0 || memcmp(kp__ev_str(a, ao), kp__ev_str(b, bo), al) == 0);
}

static bool cont_equal(const kp_evict_summary *a, const kp__ev_cstats *x, const kp_evict_summary *b,
                       const kp__ev_cstats *y) {
    if (x->has != y->has) return false;
    if ((x->has & KP__EVC_NAME) && !str_equal(a, x->name, x->name_len, b, y->name, y->name_len))
        return false;
    return (!(x->has & KP__EVC_WS) || x->ws == y->ws) &&
           (!(x->has & KP__EVC_ROOT_USED) || x->root_used == y->root_used) &&
           (!(x->has & KP__EVC_ROOT_IUSED) || x->root_iused == y->root_iused) &&
           (!(x->has & KP__EVC_LOGS_USED) || x->logs_used == y->logs_used) &&
           (!(x->has & KP__EVC_LOGS_IUSED) || x->logs_iused == y->logs_iused);
}

static bool vol_equal(const kp_evict_summary *a, const kp__ev_vstats *x, const kp_evict_summary *b,
                      const kp__ev_vstats *y) {
    if (x->has != y->has) return false;
    if ((x->has & KP__EVV_NAME) && !str_equal(a, x->name, x->name_len, b, y->name, y->name_len))
        return false;
    return (!(x->has & KP__EVV_USED) || x->used == y->used) &&
           (!(x->has & KP__EVV_IUSED) || x->iused == y->iused);
}

static bool pod_equal(const kp_evict_summary *a, const kp__ev_pstats *x, const kp_evict_summary *b,
                      const kp__ev_pstats *y) {
    if (x->has != y->has || x->uid_hash != y->uid_hash || x->n_containers != y->n_containers ||
        x->n_volumes != y->n_volumes)
        return false;
    if (!str_equal(a, x->uid, x->uid_len, b, y->uid, y->uid_len) ||
        !str_equal(a, x->ns, x->ns_len, b, y->ns, y->ns_len) ||
        !str_equal(a, x->name, x->name_len, b, y->name, y->name_len))
        return false;
    if (((x->has & KP__EVP_WS) && x->ws != y->ws) ||
        ((x->has & KP__EVP_PROCS) && x->procs != y->procs) ||
        ((x->has & KP__EVP_EPH_USED) && x->eph_used != y->eph_used) ||
        ((x->has & KP__EVP_EPH_IUSED) && x->eph_iused != y->eph_iused))
        return false;
    for (uint32_t i = 0; i < x->n_containers; i++)
        if (!cont_equal(a, kp__ev_pod_conts(a, x) + i, b, kp__ev_pod_conts(b, y) + i)) return false;
    for (uint32_t i = 0; i < x->n_volumes; i++)
        if (!vol_equal(a, kp__ev_pod_vols(a, x) + i, b, kp__ev_pod_vols(b, y) + i)) return false;
    return true;
}

bool kp__summary_equal(const kp_evict_summary *a, const kp_evict_summary *b) {
    if (a->has_node != b->has_node || a->node_name_len != b->node_name_len ||
        memcmp(kp__ev_str(a, a->node_name), kp__ev_str(b, b->node_name), a->node_name_len) != 0)
        return false;
    if (!mem_equal(&a->node_mem, &b->node_mem) || a->has_pods_container != b->has_pods_container ||
        (a->has_pods_container && !mem_equal(&a->pods_mem, &b->pods_mem)) ||
        !fs_equal(&a->node_fs, &b->node_fs) || !fs_equal(&a->imagefs, &b->imagefs) ||
        !fs_equal(&a->containerfs, &b->containerfs))
        return false;
    if (a->has_rlimit != b->has_rlimit || a->rlimit_time_ns != b->rlimit_time_ns ||
        a->has_maxpid != b->has_maxpid || a->has_curproc != b->has_curproc ||
        (a->has_maxpid && a->maxpid != b->maxpid) || (a->has_curproc && a->curproc != b->curproc) ||
        a->has_time != b->has_time || (a->has_time && a->time_ns != b->time_ns) ||
        a->n_pods != b->n_pods)
        return false;
    for (uint32_t i = 0; i < a->n_pods; i++)
        if (!pod_equal(a, &a->pods[i], b, &b->pods[i])) return false;
    return true;
}

const char *kp_evict_summary_node_name(const kp_evict_summary *s) {
    return s->node_name_len ? kp__ev_str(s, s->node_name) : "";
}
