/* Internal types of the eviction manager (src/kubelet/evict_*.c).
 *
 * evict_config.c   threshold syntax, durations, percentages, ParseThresholdConfig
 * evict_kubeconf.c KubeletConfiguration fields, kubelet flags, defaults
 * evict_summary.c  Summary API parsing into compact structs
 * evict_signals.c  observations, thresholdsMet, threshold quantities (GetThresholdQuantity)
 * evict_rank.c     pod ranking (rankMemoryPressure, rankDiskPressureFunc, rankPIDPressure)
 * evict_manager.c  synchronize, local-storage eviction, messages */
#ifndef KP_KUBELET_EVICT_TYPES_H
#define KP_KUBELET_EVICT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/model.h"
#include "kprio/eviction.h"
#include "kprio/quantity.h"

#define KP__NS_PER_SEC INT64_C(1000000000)

/* ---------------------------------------------------------------- thresholds */

/* evictionapi.ThresholdValue: a quantity or a float32 percentage of capacity. */
typedef struct {
    bool is_pct;
    float pct;       /* fraction (0.1 for "10%"), float32 as upstream */
    kp_quantity q;
    char str[KP_QUANTITY_STR_MAX]; /* q.String(): the text as written when ParseQuantity keeps it */
} kp__ev_value;

/* evictionapi.Threshold. has_op false = empty Operator (containerfs copy of an absent
 * threshold), never met. */
typedef struct {
    kp_evict_signal signal;
    bool has_op;
    kp__ev_value value;
    bool has_min_reclaim;
    kp__ev_value min_reclaim;
    int64_t grace_ns;
    char value_text[48];
    char mr_text[48];
} kp__ev_threshold;

/* Exact non-negative-or-negative amount: whole units plus nanos (0..999999999). Whole saturates
 * at int64 limits. Enough to compare quantities (scale >= -9) with integer observations. */
typedef struct {
    int64_t whole;
    int32_t nanos;
} kp__ev_amount;

kp__ev_amount kp__ev_value_amount(const kp__ev_value *v, int64_t capacity);
kp__ev_amount kp__ev_amount_add(kp__ev_amount a, kp__ev_amount b);
/* a > v (v an integer). */
bool kp__ev_amount_gt_int(kp__ev_amount a, int64_t v);
/* Upstream text of GetThresholdQuantity(value, capacity).String(). */
void kp__ev_threshold_quantity_str(const kp__ev_value *v, int64_t capacity, char *buf, size_t cap);
/* compareThresholdValue. */
bool kp__ev_value_equal(const kp__ev_value *a, const kp__ev_value *b);
/* hasThreshold's notion of equality (signal, operator, grace, value; not min-reclaim). */
bool kp__ev_threshold_same(const kp__ev_threshold *a, const kp__ev_threshold *b);

/* ---------------------------------------------------------------- configuration */

typedef struct {
    char *key;
    char *val;
} kp__ev_kv;

typedef struct {
    kp__ev_kv *items;
    uint32_t n, cap;
    bool is_set;     /* non-nil map (config field present or flag given) */
    bool flag_set;   /* a flag already replaced the map (later flags add) */
} kp__ev_map;

struct kp_evict_config {
    kp__ev_map hard, soft, grace, minreclaim;
    int64_t transition_ns;
    int64_t max_pod_grace;
    bool enforce_pods;
    bool merge_defaults;
    bool local_storage_isolation;
    kp_evict_fs_layout layout;
    bool has_reclaimable[KP_EVSIG_COUNT];
    int64_t reclaimable[KP_EVSIG_COUNT];
    kp__ev_threshold *th;
    uint32_t n_th;
    bool finished;
    char source[256]; /* KubeletConfiguration file, for errors ("" = none) */
};

/* Go's strconv.Quote for plain strings. */
void kp__ev_go_quote(const char *s, size_t len, char *buf, size_t cap);
/* Adds the default evictionHard entries missing from a set evictionHard map. */
kp_status kp__ev_merge_default_hard(kp_evict_config *c, kp_error *err);
/* Go time.ParseDuration. Error text as Go's ("time: invalid duration \"x\""). */
kp_status kp__ev_parse_duration(const char *s, size_t len, int64_t *out_ns, kp_error *err);
/* parsePercentage: strconv.ParseFloat(trimmed, 32) / 100 in float32. */
kp_status kp__ev_parse_percentage(const char *s, size_t len, float *out, kp_error *err);
/* parseThresholdStatement: *ignored set for "0%" / "100%". */
kp_status kp__ev_parse_threshold(const char *signal, const char *val, kp__ev_threshold *out,
                                 bool *ignored, kp_error *err);
/* Formats a duration as Go's Duration.String() ("2m0s", "1.5s", "0s"). */
void kp__ev_format_duration(int64_t ns, char *buf, size_t cap);
/* UpdateContainerFsThresholds: rewrites th (capacity *cap, count *n, both updated) for the
 * layout; replaced[i] set for indices whose user containerfs threshold was overwritten.
 * Returns KP_ENOMEM on allocation failure. */
kp_status kp__ev_update_containerfs(kp__ev_threshold **th, uint32_t *n, bool imagefs, bool split,
                                    bool *replaced, uint32_t replaced_cap);

/* ---------------------------------------------------------------- summary */

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

enum { KP__EVM_PRESENT = 1 << 0, KP__EVM_AVAIL = 1 << 1, KP__EVM_USAGE = 1 << 2, KP__EVM_WS = 1 << 3 };
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
    KP__EVC_NAME = 1 << 0,       /* name present (possibly "") */
    KP__EVC_WS = 1 << 1,         /* memory.workingSetBytes */
    KP__EVC_ROOT_USED = 1 << 2,  /* rootfs.usedBytes */
    KP__EVC_ROOT_IUSED = 1 << 3, /* rootfs.inodesUsed */
    KP__EVC_LOGS_USED = 1 << 4,  /* logs.usedBytes */
    KP__EVC_LOGS_IUSED = 1 << 5  /* logs.inodesUsed */
};
typedef struct {
    uint32_t name, name_len; /* name: offset in the summary's strings */
    uint8_t has;             /* KP__EVC_* */
    uint64_t ws, root_used, root_iused, logs_used, logs_iused;
} kp__ev_cstats;

enum { KP__EVV_NAME = 1 << 0, KP__EVV_USED = 1 << 1, KP__EVV_IUSED = 1 << 2 };
typedef struct {
    uint32_t name, name_len;
    uint8_t has; /* KP__EVV_* */
    uint64_t used, iused;
} kp__ev_vstats;

enum {
    KP__EVP_MEM = 1 << 0,      /* memory object present */
    KP__EVP_WS = 1 << 1,       /* memory.workingSetBytes */
    KP__EVP_PROCS = 1 << 2,    /* process_stats.process_count */
    KP__EVP_EPH_USED = 1 << 3  /* ephemeral-storage.usedBytes */
};
typedef struct {
    /* the join and memory / pid ranking read the first 40 bytes */
    uint32_t uid_hash; /* kp__ev_hash of uid, computed while parsing (uid_len 0: no uid) */
    uint32_t uid_len;
    uint32_t uid;      /* offset in the summary's strings */
    uint8_t has;       /* KP__EVP_* */
    uint64_t ws, procs, eph_used;
    uint32_t ns, ns_len, name, name_len;
    uint32_t c0, n_containers; /* containers: the summary's conts[c0 .. c0 + n_containers) */
    uint32_t v0, n_volumes;    /* volumes: vols[v0 .. v0 + n_volumes) */
} kp__ev_pstats;

struct kp_evict_summary {
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

static inline const char *kp__ev_str(const kp_evict_summary *s, uint32_t off) { return s->strs + off; }
static inline const kp__ev_cstats *kp__ev_pod_conts(const kp_evict_summary *s, const kp__ev_pstats *p) {
    return s->conts + p->c0;
}
static inline const kp__ev_vstats *kp__ev_pod_vols(const kp_evict_summary *s, const kp__ev_pstats *p) {
    return s->vols + p->v0;
}

/* Builds a summary's compact form while a decoder reads it (evict_summary.c). Elements and
 * strings go to growable scratch vectors; kp__ev_build_finish copies them, once, into the
 * summary's single allocation. */
typedef struct {
    char *p;
    uint32_t n, cap; /* elements (bytes for strs) */
} kp__ev_vec;
typedef struct {
    kp_evict_summary head; /* node-level fields, filled in place by the decoder */
    kp__ev_vec pods, conts, vols, strs;
    bool oom;
} kp__ev_builder;

void kp__ev_build_init(kp__ev_builder *b);
void kp__ev_build_fini(kp__ev_builder *b);
/* A zeroed element appended to v (b->pods, b->conts or b->vols; size sz); NULL (b->oom set) on
 * allocation failure. Pointers into v are valid until the next push onto v. */
void *kp__ev_build_push(kp__ev_builder *b, kp__ev_vec *v, size_t sz);
/* Appends s[0..len) and a NUL to the strings; false (b->oom set) on allocation failure. */
bool kp__ev_build_str(kp__ev_builder *b, const char *s, size_t len, uint32_t *off);
/* The summary: head plus the vectors, in one allocation; NULL on allocation failure. The builder
 * still needs kp__ev_build_fini. */
kp_evict_summary *kp__ev_build_finish(kp__ev_builder *b);
/* Final touches shared by both decoders: the step time from the node-level times. */
void kp__ev_summary_times(kp_evict_summary *s);

/* The compact fields of one pod-side memory or filesystem object. A decoder reads the object
 * into a full kp__ev_mem / kp__ev_fs seeded with kp__ev_sink_load (so a repeated key updates
 * what the first occurrence set, as decoding in place did) and keeps it with kp__ev_sink_store.
 * rec: the kp__ev_pstats (POD_*), kp__ev_cstats (CONT_*) or kp__ev_vstats (VOL). */
typedef enum {
    KP__EVSINK_POD_MEM,
    KP__EVSINK_POD_EPH,
    KP__EVSINK_CONT_MEM,
    KP__EVSINK_CONT_ROOT,
    KP__EVSINK_CONT_LOGS,
    KP__EVSINK_VOL
} kp__ev_sink;
void kp__ev_sink_load(kp__ev_sink k, const void *rec, kp__ev_mem *mem, kp__ev_fs *fs);
void kp__ev_sink_store(kp__ev_sink k, void *rec, const kp__ev_mem *mem, const kp__ev_fs *fs);

/* Observations from a summary (makeSignalObservations). */
void kp__ev_observe(const kp_evict_summary *s, kp_evict_observation obs[KP_EVSIG_COUNT]);
/* thresholdsMet over th[idx[k]] for k < n; writes met indices into out (capacity n), returns the
 * count. */
uint32_t kp__ev_thresholds_met(const kp__ev_threshold *th, const uint32_t *idx, uint32_t n,
                               const kp_evict_observation obs[KP_EVSIG_COUNT],
                               bool enforce_min_reclaim, uint32_t *out);

/* ---------------------------------------------------------------- ranking */

/* What the rank functions need to know about one active pod in one step. */
typedef struct {
    uint32_t pod;             /* cluster pod index */
    int32_t priority;
    int64_t mem_req, eph_req; /* GetResourceRequestQuantity */
    const kp__ev_pstats *st;  /* NULL when the summary has no stats for it */
} kp__ev_rank_pod;

typedef enum { KP__EVRANK_MEMORY, KP__EVRANK_PID, KP__EVRANK_DISK } kp__ev_rank_kind;
enum { KP__EVFS_ROOT = 1, KP__EVFS_LOGS = 2, KP__EVFS_LOCALVOL = 4, KP__EVFS_IMAGES = 8 };

typedef struct {
    kp__ev_rank_kind kind;
    unsigned fs_types;  /* KP__EVFS_* for disk */
    bool inodes;        /* disk resource inodes instead of ephemeral-storage */
} kp__ev_rank_fn;

/* buildSignalToRankFunc for a layout. */
kp__ev_rank_fn kp__ev_rank_fn_for(kp_evict_signal sig, bool imagefs, bool split);
/* podDiskUsage for resource bytes (inodes=false) or inodes. */
int64_t kp__ev_pod_disk_usage(const kp_cluster *cl, const kp_pod *p, const kp_evict_summary *s,
                              const kp__ev_pstats *st, unsigned fs_types, bool inodes);
/* Sorts pods (n entries, stats from summary s) into eviction order; stable on the input order.
 * keys (2n entries) and tmp (n entries) are scratch arrays. A key is the rank function's
 * comparator chain packed into two unsigned words compared in order (hi, lo). */
typedef struct {
    uint64_t hi, lo;
    uint32_t pos;
} kp__ev_rank_key;
void kp__ev_rank(const kp_cluster *cl, const kp_evict_summary *s, const kp__ev_rank_fn *fn,
                 kp__ev_rank_pod *pods, uint32_t n, kp__ev_rank_key *keys, kp__ev_rank_pod *tmp);

/* Hash used to join pod stats to pods (FNV-1a with a finalizer). */
uint32_t kp__ev_hash(const char *s, size_t n);

/* Saturating addition (inline: the rank keys use it per pod). */
static inline int64_t kp__ev_sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
/* int64(uint64) as Go converts it (two's complement wrap). */
static inline int64_t kp__ev_u2i(uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) return (int64_t)v;
    return (int64_t)(v - (uint64_t)INT64_MAX - 1) + INT64_MIN;
}
/* Quantity.String() of a quantity parsed from text[0..len): the text itself when ParseQuantity
 * keeps it (kp_quantity_parse_keeps_string), else the canonical form. */
void kp__ev_quantity_string(const kp_quantity *q, const char *text, size_t len, char *buf, size_t cap);
/* Text of a spec quantity held only as an integer (no original spelling known): BinarySI when
 * a multiple of 1024, else DecimalSI. */
void kp__ev_format_spec_qty(int64_t v, char *buf, size_t cap);

#endif
