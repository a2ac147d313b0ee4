/* The Summary API document (internal): /stats/summary (k8s.io/kubelet/pkg/apis/stats/v1alpha1)
 * as the plain, compact types that src/io decodes (decode_summary.c, decode_summary_tree.c) and
 * the kubelet's eviction engine reads. Only the fields eviction reads are kept; every numeric
 * field is optional (a `has` bit), as the Go types are pointers. */
#ifndef KP_CORE_SUMMARY_H
#define KP_CORE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/eviction.h"

#ifndef KP__NS_PER_SEC
#define KP__NS_PER_SEC INT64_C(1000000000)
#endif

enum {
    KP__EVF_PRESENT = 1 << 0, /* the object itself was present */
    KP__EVF_AVAIL = 1 << 1,
    KP__EVF_CAP = 1 << 2,
    KP__EVF_USED = 1 << 3,
    KP__EVF_IFREE = 1 << 4,
    KP__EVF_INODES = 1 << 5,
    KP__EVF_IUSED = 1 << 6
};
typedef struct {
    uint8_t has;
    int64_t time_ns; /* 0 when absent */
    uint64_t avail, cap, used, inodes_free, inodes, inodes_used;
} kp__ev_fs;

enum {
    KP__EVM_PRESENT = 1 << 0,
    KP__EVM_AVAIL = 1 << 1,
    KP__EVM_USAGE = 1 << 2,
    KP__EVM_WS = 1 << 3
};
typedef struct {
    uint8_t has;
    int64_t time_ns;
    uint64_t avail, usage, ws;
} kp__ev_mem;

/* The pod-side stats are kept compact: only the fields eviction reads, strings as offsets into
 * the summary's string bytes (kp__ev_str), containers and volumes as index ranges into the
 * summary-wide arrays. A parsed summary is one allocation (kp__ev_build_finish): the struct, then
 * pods, containers, volumes and strings, each contiguous, so a step's join and ranking stream
 * through a few kilobytes instead of chasing pointers. */
enum {
    KP__EVC_NAME = 1 << 0, /* name present (possibly "") */
    KP__EVC_WS = 1 << 1, /* memory.workingSetBytes */
    KP__EVC_ROOT_USED = 1 << 2, /* rootfs.usedBytes */
    KP__EVC_ROOT_IUSED = 1 << 3, /* rootfs.inodesUsed */
    KP__EVC_LOGS_USED = 1 << 4, /* logs.usedBytes */
    KP__EVC_LOGS_IUSED = 1 << 5 /* logs.inodesUsed */
};
typedef struct {
    uint32_t name, name_len; /* name: offset in the summary's strings */
    uint8_t has; /* KP__EVC_* */
    uint64_t ws, root_used, root_iused, logs_used, logs_iused;
} kp__ev_cstats;

enum { KP__EVV_NAME = 1 << 0, KP__EVV_USED = 1 << 1, KP__EVV_IUSED = 1 << 2 };
typedef struct {
    uint32_t name, name_len;
    uint8_t has; /* KP__EVV_* */
    uint64_t used, iused;
} kp__ev_vstats;

enum {
    KP__EVP_MEM = 1 << 0, /* memory object present */
    KP__EVP_WS = 1 << 1, /* memory.workingSetBytes */
    KP__EVP_PROCS = 1 << 2, /* process_stats.process_count */
    KP__EVP_EPH_USED = 1 << 3, /* ephemeral-storage.usedBytes */
    KP__EVP_EPH_IUSED = 1 << 4 /* ephemeral-storage.inodesUsed (kept for the encoder) */
};
typedef struct {
    /* the join and memory / pid ranking read the first 40 bytes */
    uint32_t uid_hash; /* kp__ev_hash of uid, computed while parsing (uid_len 0: no uid) */
    uint32_t uid_len;
    uint32_t uid; /* offset in the summary's strings */
    uint8_t has; /* KP__EVP_* */
    uint64_t ws, procs, eph_used;
    uint32_t ns, ns_len, name, name_len;
    uint32_t c0, n_containers; /* containers: the summary's conts[c0 .. c0 + n_containers) */
    uint32_t v0, n_volumes; /* volumes: vols[v0 .. v0 + n_volumes) */
    uint64_t eph_iused; /* ephemeral-storage.inodesUsed: eviction does not read it */
} kp__ev_pstats;

struct kp_evict_summary {
    bool has_node; /* a "node" object: what makes the document a Summary */
    uint32_t node_name, node_name_len; /* node.nodeName (offset in strs; len 0: absent) */
    kp__ev_mem node_mem;
    kp__ev_mem pods_mem; /* systemContainers[name=pods].memory */
    bool has_pods_container;
    kp__ev_fs node_fs, imagefs, containerfs;
    bool has_rlimit;
    int64_t rlimit_time_ns;
    bool has_maxpid, has_curproc;
    int64_t maxpid, curproc;
    bool has_time;
    int64_t time_ns;
    uint32_t n_pods, n_conts, n_vols, strs_len;
    /* in the same allocation as the struct (NULL when empty) */
    const kp__ev_pstats *pods;
    const kp__ev_cstats *conts;
    const kp__ev_vstats *vols;
    const char *strs; /* NUL-terminated strings, back to back */
};

static inline const char *kp__ev_str(const kp_evict_summary *s, uint32_t off) {
    return s->strs + off;
}
static inline const kp__ev_cstats *kp__ev_pod_conts(const kp_evict_summary *s,
                                                    const kp__ev_pstats *p) {
    return s->conts ? s->conts + p->c0 : NULL; /* NULL + 0 is undefined */
}
static inline const kp__ev_vstats *kp__ev_pod_vols(const kp_evict_summary *s,
                                                   const kp__ev_pstats *p) {
    return s->vols ? s->vols + p->v0 : NULL;
}

/* int64(uint64) as Go converts it (two's complement wrap). */
static inline int64_t kp__ev_u2i(uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) return (int64_t)v;
    return (int64_t)(v - (uint64_t)INT64_MAX - 1) + INT64_MIN;
}

/* Same content (every field whose `has` bit is set, strings by content): the check of the
 * differential pair of decoders (io/decode_summary.h, io/decode_summary_tree.h). */
bool kp__summary_equal(const kp_evict_summary *a, const kp_evict_summary *b);

/* The hash that joins pod stats to pods: FNV-1a plus a finalizer (the low bits of plain FNV
 * cluster badly on short similar keys, "u1", "u2", ..., and the tables index by low bits).
 * Decoders store it with each pod's uid (kp__ev_pstats.uid_hash); the manager hashes the pods
 * of the cluster the same way. Inline: both use it per pod. */
static inline uint32_t kp__ev_fnv(const char *s, size_t n, uint32_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}
#define KP__EV_FNV_BASIS 2166136261u
static inline uint32_t kp__ev_mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}
static inline uint32_t kp__ev_hash(const char *s, size_t n) {
    return kp__ev_mix(kp__ev_fnv(s, n, KP__EV_FNV_BASIS));
}

#endif
