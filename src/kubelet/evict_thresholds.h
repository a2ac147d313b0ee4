/* Eviction thresholds (internal): evictionapi.Threshold and its value, ParseThresholdConfig over
 * the decoded settings (core/kubelet_config.h), threshold quantities (GetThresholdQuantity) and
 * the containerfs derivation (UpdateContainerFsThresholds).
 *
 * The kubelet's eviction modules, one header each:
 *   evict_thresholds  thresholds, their values and quantities (this file)
 *   evict_signals     observations (makeSignalObservations), thresholdsMet
 *   evict_rank        pod ranking (rankMemoryPressure, rankDiskPressureFunc, rankPIDPressure)
 *   evict_spec        spec quantities as the pod spelled them (messages)
 *   evict_local_storage  localStorageEviction and PodLimits[ephemeral-storage]
 *   evict_message     evictionMessage
 *   evict_manager     synchronize */
#ifndef KP_KUBELET_EVICT_THRESHOLDS_H
#define KP_KUBELET_EVICT_THRESHOLDS_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/eviction.h"
#include "kprio/quantity.h"

/* ---------------------------------------------------------------- thresholds */

/* evictionapi.ThresholdValue: a quantity or a float32 percentage of capacity. */
typedef struct {
    bool is_pct;
    float pct; /* fraction (0.1 for "10%"), float32 as upstream */
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
    const char *origin; /* where it came from, for evict --explain (a static string) */
    kp_evict_threshold_info info; /* the public view (kp__ev_threshold_info), filled on access */
} kp__ev_threshold;

/* Threshold t as kp_evict_config_threshold / kp_evict_manager_threshold return it: t->info,
 * refreshed (its strings point into t). */
const kp_evict_threshold_info *kp__ev_threshold_info(const kp__ev_threshold *t);

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
/* UpdateContainerFsThresholds: rewrites th (count *n, updated; reallocated with room for 8 more)
 * for the layout; replaced[i] set for indices whose user containerfs threshold was overwritten.
 * go_cap is cap() of upstream's slice (kp__ev_go_append_cap): stale[i] is set for an overwrite
 * that happened after an append outgrew it, so that it went to a new backing array and the
 * caller's old slice, which the first synchronize evaluates, still holds the user's threshold.
 * replaced and stale may be NULL. Returns KP_ENOMEM on allocation failure. */
kp_status kp__ev_update_containerfs(kp__ev_threshold **th, uint32_t *n, bool imagefs, bool split,
                                    uint32_t go_cap, bool *replaced, bool *stale,
                                    uint32_t flags_cap);
/* cap() of a Go slice of evictionapi.Threshold (64 bytes, with pointers) of capacity cap after
 * appending `more` elements to `len` (runtime growslice: nextslicecap, then roundupsize with the
 * size classes and the malloc header of objects over 512 bytes). */
uint32_t kp__ev_go_append_cap(uint32_t len, uint32_t cap, uint32_t more);

/* Saturating addition (inline: the rank keys use it per pod). */
static inline int64_t kp__ev_sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
/* Quantity.String() of a quantity parsed from text[0..len): the text itself when ParseQuantity
 * keeps it (kp_quantity_parse_keeps_string), else the canonical form. */
void kp__ev_quantity_string(const kp_quantity *q, const char *text, size_t len, char *buf,
                            size_t cap);
/* Text of a spec quantity held only as an integer (no original spelling known): BinarySI when
 * a multiple of 1024, else DecimalSI. */
void kp__ev_format_spec_qty(int64_t v, char *buf, size_t cap);

#endif
