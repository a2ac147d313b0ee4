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
#include "core/kubelet_config.h"
#include "core/summary.h"
#include "core/model.h"
#include "kprio/eviction.h"
#include "kprio/quantity.h"

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
typedef struct kp__ev_threshold {
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

/* parsePercentage: strconv.ParseFloat(trimmed, 32) / 100 in float32. */
kp_status kp__ev_parse_percentage(const char *s, size_t len, float *out, kp_error *err);
/* parseThresholdStatement: *ignored set for "0%" / "100%". */
kp_status kp__ev_parse_threshold(const char *signal, const char *val, kp__ev_threshold *out,
                                 bool *ignored, kp_error *err);
/* UpdateContainerFsThresholds: rewrites th (capacity *cap, count *n, both updated) for the
 * layout; replaced[i] set for indices whose user containerfs threshold was overwritten.
 * Returns KP_ENOMEM on allocation failure. */
kp_status kp__ev_update_containerfs(kp__ev_threshold **th, uint32_t *n, bool imagefs, bool split,
                                    bool *replaced, uint32_t replaced_cap);

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

/* Saturating addition (inline: the rank keys use it per pod). */
static inline int64_t kp__ev_sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
/* Quantity.String() of a quantity parsed from text[0..len): the text itself when ParseQuantity
 * keeps it (kp_quantity_parse_keeps_string), else the canonical form. */
void kp__ev_quantity_string(const kp_quantity *q, const char *text, size_t len, char *buf, size_t cap);
/* Text of a spec quantity held only as an integer (no original spelling known): BinarySI when
 * a multiple of 1024, else DecimalSI. */
void kp__ev_format_spec_qty(int64_t v, char *buf, size_t cap);

#endif
