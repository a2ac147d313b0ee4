/* Eviction configuration: threshold syntax (ParseThresholdConfig and friends), float32
 * percentages and the containerfs threshold derivation, over the decoded settings of
 * core/kubelet_config.h (flags and KubeletConfiguration documents are decoded in
 * src/io/decode_kubelet_config.c; Go durations are base/gosyntax.c's).
 *
 * Upstream: pkg/kubelet/eviction/helpers.go (ParseThresholdConfig, parseThresholdStatement,
 * parsePercentage, parseGracePeriods, parseMinimumReclaims, addAllocatableThresholds,
 * UpdateContainerFsThresholds), pkg/kubelet/apis/config/v1beta1/defaults_linux.go,
 * k8s.io/component-base/cli/flag (MapStringString, LangleSeparatedMapStringString) and Go's
 * time.ParseDuration / Duration.String. Go map order is random; kprio keeps the order in which
 * entries were written (file order, flag order), which is one of the orders upstream may use. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gosyntax.h"
#include "core/kubelet_config.h"
#include "core/quantity.h"
#include "kubelet/evict_thresholds.h"

/* mirrors signalToResource */
const char *kp_evict_signal_resource(kp_evict_signal s) {
    switch (s) {
    case KP_EVSIG_MEMORY_AVAILABLE:
    case KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE: return "memory";
    case KP_EVSIG_NODEFS_AVAILABLE:
    case KP_EVSIG_IMAGEFS_AVAILABLE:
    case KP_EVSIG_CONTAINERFS_AVAILABLE: return "ephemeral-storage";
    case KP_EVSIG_NODEFS_INODES_FREE:
    case KP_EVSIG_IMAGEFS_INODES_FREE:
    case KP_EVSIG_CONTAINERFS_INODES_FREE: return "inodes";
    case KP_EVSIG_PID_AVAILABLE: return "pids";
    case KP_EVSIG_COUNT: break;
    }
    return "";
}

kp_duration_str kp_duration_string(int64_t ns) {
    kp_duration_str d = {{0}};
    kp__go_format_duration(ns, d.s, sizeof d.s);
    return d;
}

/* ---------------------------------------------------------------- percentages, statements */

/* mirrors parsePercentage */
kp_status kp__ev_parse_percentage(const char *s, size_t len, float *out, kp_error *err) {
    while (len > 0 && s[len - 1] == '%') len--;
    char msg[KP_ERR_MSG_CAP];
    float v;
    kp_status st = kp__go_parse_float32(s, len, &v, msg, sizeof msg);
    if (st != KP_OK) return kp_error_set(err, st, "%s", msg);
    *out = (float)(v / 100.0f);
    return KP_OK;
}

/* The value's display text: a percentage as written, a quantity as String() prints it. */
static void value_text(kp__ev_value *v, const char *orig, char *buf, size_t cap) {
    if (v->is_pct) {
        snprintf(buf, cap, "%s", orig);
        return;
    }
    kp__ev_quantity_string(&v->q, orig, strlen(orig), v->str, sizeof v->str);
    snprintf(buf, cap, "%s", v->str);
}

/* mirrors parseThresholdStatement */
kp_status kp__ev_parse_threshold(const char *signal, const char *val, kp__ev_threshold *out,
                                 bool *ignored, kp_error *err) {
    kp_evict_signal sig;
    size_t vlen = strlen(val);
    *ignored = false;
    memset(out, 0, sizeof *out);
    if (!kp_evict_signal_parse(signal, strlen(signal), &sig))
        return kp_error_set(err, KP_EINVAL, "unsupported eviction signal %s", signal);
    out->signal = sig;
    out->has_op = true;
    if (vlen > 0 && val[vlen - 1] == '%') {
        if (strcmp(val, "0%") == 0 || strcmp(val, "100%") == 0) {
            *ignored = true;
            return KP_OK;
        }
        float p;
        kp_status st = kp__ev_parse_percentage(val, vlen, &p, err);
        if (st != KP_OK) return st;
        if (isnan(p)) /* Go lets NaN through; it would make a threshold that is never met */
            return kp_error_set(err, KP_EINVAL,
                                "eviction percentage threshold %s must be a number: %s", signal,
                                val);
        if (p < 0)
            return kp_error_set(err, KP_EINVAL,
                                "eviction percentage threshold %s must be >= 0%%: %s", signal, val);
        if (p > 1)
            return kp_error_set(err, KP_EINVAL,
                                "eviction percentage threshold %s must be <= 100%%: %s", signal,
                                val);
        out->value.is_pct = true;
        out->value.pct = p;
    } else {
        kp_quantity q;
        kp_status st = kp_quantity_parse(val, vlen, &q, err);
        if (st != KP_OK) return st;
        if (q.mant <= 0) {
            char buf[KP_QUANTITY_STR_MAX];
            kp__ev_quantity_string(&q, val, vlen, buf, sizeof buf);
            return kp_error_set(err, KP_EINVAL, "eviction threshold %s must be positive: %s",
                                signal, buf);
        }
        out->value.q = q;
    }
    value_text(&out->value, val, out->value_text, sizeof out->value_text);
    return KP_OK;
}

/* ---------------------------------------------------------------- ParseThresholdConfig */

static kp_status parse_min_reclaim(const char *signal, const char *val, kp__ev_value *out,
                                   char *text, size_t text_cap, kp_error *err) {
    kp_evict_signal sig;
    size_t vlen = strlen(val);
    memset(out, 0, sizeof *out);
    if (!kp_evict_signal_parse(signal, strlen(signal), &sig))
        return kp_error_set(err, KP_EINVAL, "unsupported eviction signal %s", signal);
    if (vlen > 0 && val[vlen - 1] == '%') {
        float p;
        kp_status st = kp__ev_parse_percentage(val, vlen, &p, err);
        if (st != KP_OK) return st;
        if (!(p > 0))
            return kp_error_set(err, KP_EINVAL,
                                "eviction percentage minimum reclaim %s must be positive: %s",
                                signal, val);
        out->is_pct = true;
        out->pct = p;
    } else {
        kp_status st = kp_quantity_parse(val, vlen, &out->q, err);
        if (st != KP_OK) return st;
        if (out->q.mant < 0)
            return kp_error_set(err, KP_EINVAL,
                                "negative eviction minimum reclaim specified for %s", signal);
    }
    value_text(out, val, text, text_cap);
    return KP_OK;
}

static kp_status th_push(kp__ev_threshold **th, uint32_t *n, uint32_t *cap,
                         const kp__ev_threshold *t, kp_error *err) {
    if (!kp__grow32((void **)th, cap, (size_t)*n + 1, sizeof **th, 16))
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    (*th)[(*n)++] = *t;
    return KP_OK;
}

/* Names where a map came from in errors: the flag, or the KubeletConfiguration field. */
static void label_error(const kp_evict_config *c, const kp__kcfg_map *m, const char *field,
                        const char *flag, kp_error *err) {
    if (!err) return;
    if (m->flag_set || !c->source[0]) {
        kp_error_prefix(err, "--%s", flag);
    } else {
        kp_error_prefix(err, "KubeletConfiguration: %s%s", c->configz ? "kubeletconfig." : "",
                        field);
        snprintf(err->source, sizeof err->source, "%s", c->source);
    }
}

static kp_status finish(kp_evict_config *c, kp_error *err, const kp__kcfg_map **where);

/* Where a hard (soft false) or soft threshold's entry came from (kp__kcfg_origin). */
static const char *origin_text(uint8_t origin, bool soft) {
    switch (origin) {
    case KP__KCFG_FILE: return "config file";
    case KP__KCFG_MERGED: return "default, merged into the config file's map";
    case KP__KCFG_CONFIGZ: return "configz";
    case KP__KCFG_FLAG: return soft ? "--eviction-soft" : "--eviction-hard";
    default: return "default";
    }
}

/* mirrors ParseThresholdConfig (mergeDefaultEvictionSettings was applied when the file was
 * loaded, before the flags, as loadConfigFile does) */
kp_status kp_evict_config_finish(kp_evict_config *c, kp_error *err) {
    const kp__kcfg_map *where = NULL;
    kp_status st = finish(c, err, &where);
    if (st != KP_OK && st != KP_ENOMEM && where) {
        if (where == &c->hard) label_error(c, where, "evictionHard", "eviction-hard", err);
        else if (where == &c->soft) label_error(c, where, "evictionSoft", "eviction-soft", err);
        else if (where == &c->grace)
            label_error(c, where, "evictionSoftGracePeriod", "eviction-soft-grace-period", err);
        else label_error(c, where, "evictionMinimumReclaim", "eviction-minimum-reclaim", err);
    }
    return st;
}

static kp_status finish(kp_evict_config *c, kp_error *err, const kp__kcfg_map **where) {
    kp__ev_threshold *th = NULL, t;
    uint32_t n = 0, cap = 0, n_hard;
    kp_status st = KP_OK;
    bool ignored;
    *where = &c->hard;
    for (uint32_t i = 0; i < c->hard.n; i++) {
        if ((st = kp__ev_parse_threshold(c->hard.items[i].key, c->hard.items[i].val, &t, &ignored,
                                         err)) != KP_OK)
            goto fail;
        t.origin = origin_text(c->hard.items[i].origin, false);
        if (!ignored && (st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
    }
    n_hard = n;
    /* cap() of ParseThresholdConfig's result, step by step as Go grows it */
    uint32_t go_cap = kp__ev_go_append_cap(0, 0, n_hard);
    *where = &c->soft;
    for (uint32_t i = 0; i < c->soft.n; i++) {
        if ((st = kp__ev_parse_threshold(c->soft.items[i].key, c->soft.items[i].val, &t, &ignored,
                                         err)) != KP_OK)
            goto fail;
        t.origin = origin_text(c->soft.items[i].origin, true);
        if (!ignored && (st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
    }
    int64_t graces[KP_EVSIG_COUNT]; /* one per signal: parseGracePeriods keys a map by signal */
    kp_evict_signal grace_sig[KP_EVSIG_COUNT];
    uint32_t n_grace = 0;
    *where = &c->grace;
    for (uint32_t i = 0; i < c->grace.n; i++) {
        const kp__kcfg_kv *kv = &c->grace.items[i];
        kp_evict_signal sig;
        int64_t g;
        if (!kp_evict_signal_parse(kv->key, strlen(kv->key), &sig)) {
            st = kp_error_set(err, KP_EINVAL, "unsupported eviction signal %s", kv->key);
            goto fail;
        }
        char msg[KP_ERR_MSG_CAP];
        if ((st = kp__go_parse_duration(kv->val, strlen(kv->val), &g, msg, sizeof msg)) != KP_OK) {
            st = kp_error_set(err, st, "%s", msg);
            goto fail;
        }
        if (g < 0) {
            st = kp_error_set(
                err, KP_EINVAL,
                "invalid eviction grace period specified: %s, must be a positive value", kv->val);
            goto fail;
        }
        uint32_t j = 0;
        while (j < n_grace && grace_sig[j] != sig) j++;
        if (j == n_grace) n_grace++;
        grace_sig[j] = sig;
        graces[j] = g;
    }
    kp__ev_value mr[KP_EVSIG_COUNT];
    char mr_text[KP_EVSIG_COUNT][48];
    bool has_mr[KP_EVSIG_COUNT] = {false};
    *where = &c->minreclaim;
    for (uint32_t i = 0; i < c->minreclaim.n; i++) {
        const kp__kcfg_kv *kv = &c->minreclaim.items[i];
        kp__ev_value v;
        char text[48];
        if ((st = parse_min_reclaim(kv->key, kv->val, &v, text, sizeof text, err)) != KP_OK)
            goto fail;
        kp_evict_signal sig = KP_EVSIG_MEMORY_AVAILABLE;
        if (!kp_evict_signal_parse(kv->key, strlen(kv->key), &sig)) continue; /* checked above */
        mr[sig] = v;
        memcpy(mr_text[sig], text, sizeof text);
        has_mr[sig] = true;
    }
    *where = &c->soft;
    for (uint32_t i = n_hard; i < n; i++) {
        uint32_t j = 0;
        while (j < n_grace && grace_sig[j] != th[i].signal) j++;
        if (j == n_grace) {
            st = kp_error_set(err, KP_EINVAL,
                              "grace period must be specified for the soft eviction threshold %s",
                              kp_evict_signal_name(th[i].signal));
            goto fail;
        }
        th[i].grace_ns = graces[j];
    }
    for (uint32_t i = 0; i < n; i++) {
        if (has_mr[th[i].signal]) {
            th[i].has_min_reclaim = true;
            th[i].min_reclaim = mr[th[i].signal];
            memcpy(th[i].mr_text, mr_text[th[i].signal], sizeof th[i].mr_text);
        }
    }
    go_cap = kp__ev_go_append_cap(n_hard, go_cap, n - n_hard);
    if (c->enforce_pods) { /* mirrors addAllocatableThresholds */
        uint32_t n0 = n;
        for (uint32_t i = 0; i < n0; i++) {
            if (th[i].signal == KP_EVSIG_MEMORY_AVAILABLE && th[i].grace_ns == 0) {
                t = th[i];
                t.signal = KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE;
                t.origin = "copy of hard memory.available (enforceNodeAllocatable: pods)";
                if ((st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
            }
        }
        /* append(append([]Threshold{}, thresholds...), additionalThresholds...) */
        go_cap = kp__ev_go_append_cap(n0, kp__ev_go_append_cap(0, 0, n0), n - n0);
    }
    kp__free(c->th);
    c->th = th;
    c->n_th = n;
    c->th_go_cap = go_cap;
    c->finished = true;
    return KP_OK;
fail:
    kp__free(th);
    return st;
}

const kp_evict_threshold_info *kp__ev_threshold_info(const kp__ev_threshold *t) {
    kp_evict_threshold_info *out = (kp_evict_threshold_info *)(uintptr_t)&t->info; /* a cache */
    out->signal = t->signal;
    out->hard = t->grace_ns == 0;
    out->grace_ns = t->grace_ns;
    out->value = t->value_text;
    out->min_reclaim = t->has_min_reclaim ? t->mr_text : "";
    out->origin = t->origin ? t->origin : "";
    return out;
}

size_t kp_evict_config_threshold_count(const kp_evict_config *c) {
    return c->finished ? c->n_th : 0;
}

const kp_evict_threshold_info *kp_evict_config_threshold(const kp_evict_config *c, size_t i) {
    return c->finished && i < c->n_th ? kp__ev_threshold_info(&c->th[i]) : NULL;
}

int64_t kp_evict_config_transition_ns(const kp_evict_config *c) { return c->transition_ns; }

size_t kp_evict_config_warning_count(const kp_evict_config *c) { return c->n_warn; }

const char *kp_evict_config_warning(const kp_evict_config *c, size_t i) {
    return i < c->n_warn ? c->warnings[i] : NULL;
}
int64_t kp_evict_config_max_pod_grace(const kp_evict_config *c) { return c->max_pod_grace; }

/* ---------------------------------------------------------------- Go slice capacity */

/* runtime/sizeclasses.go class sizes (bytes) up to 32 KiB */
static const uint32_t go_size_classes[] = {
    8,     16,    24,    32,    48,    64,    80,    96,    112,   128,   144,  160,   176,   192,
    208,   224,   240,   256,   288,   320,   352,   384,   416,   448,   480,  512,   576,   640,
    704,   768,   896,   1024,  1152,  1280,  1408,  1536,  1792,  2048,  2304, 2688,  3072,  3200,
    3456,  4096,  4864,  5376,  6144,  6528,  6784,  6912,  8192,  9472,  9728, 10240, 10880, 12288,
    13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768};

/* roundupsize(size, noscan=false): a Threshold holds pointers, so objects over 512 bytes carry an
 * 8-byte malloc header (Go >= 1.22) */
static uint64_t go_roundupsize(uint64_t size) {
    uint64_t req = size > 512 ? size + 8 : size;
    if (req <= 32768) {
        for (size_t i = 0; i < sizeof go_size_classes / sizeof go_size_classes[0]; i++)
            if (go_size_classes[i] >= req) return go_size_classes[i] - (req - size);
    }
    return (size + 8191) & ~(uint64_t)8191; /* large object: whole pages */
}

/* mirrors growslice's nextslicecap and roundupsize for 64-byte elements */
uint32_t kp__ev_go_append_cap(uint32_t len, uint32_t cap, uint32_t more) {
    uint64_t need = (uint64_t)len + more;
    if (more == 0 || need <= cap) return cap;
    uint64_t newcap = cap, dbl = (uint64_t)cap * 2;
    if (need > dbl) newcap = need;
    else if (cap < 256) newcap = dbl;
    else {
        while (newcap < need) newcap += (newcap + 3 * 256) >> 2;
    }
    uint64_t mem = go_roundupsize(newcap * 64);
    return (uint32_t)(mem / 64);
}

/* ---------------------------------------------------------------- containerfs thresholds */

/* mirrors UpdateContainerFsThresholds */
kp_status kp__ev_update_containerfs(kp__ev_threshold **thp, uint32_t *np, bool imagefs, bool split,
                                    uint32_t go_cap, bool *replaced, bool *stale,
                                    uint32_t flags_cap) {
    kp__ev_threshold *th = *thp;
    uint32_t n = *np;
    /* src[0..3]: hard avail, soft avail, hard inodes, soft inodes of nodefs; [4..7] of imagefs */
    kp__ev_threshold src[8];
    memset(src, 0, sizeof src);
    long idx[4] = {-1, -1, -1,
                   -1}; /* user containerfs: hard avail, soft avail, hard inodes, soft inodes */
    for (uint32_t i = 0; i < n; i++) {
        int soft = th[i].grace_ns != 0;
        switch (th[i].signal) {
        case KP_EVSIG_NODEFS_AVAILABLE: src[0 + soft] = th[i]; break;
        case KP_EVSIG_NODEFS_INODES_FREE: src[2 + soft] = th[i]; break;
        case KP_EVSIG_IMAGEFS_AVAILABLE: src[4 + soft] = th[i]; break;
        case KP_EVSIG_IMAGEFS_INODES_FREE: src[6 + soft] = th[i]; break;
        case KP_EVSIG_CONTAINERFS_AVAILABLE: idx[0 + soft] = i; break;
        case KP_EVSIG_CONTAINERFS_INODES_FREE: idx[2 + soft] = i; break;
        default: break;
        }
    }
    int base;
    if ((imagefs && split) || (!imagefs && !split)) base = 0;
    else if (imagefs && !split) base = 4;
    else return KP_OK; /* no imagefs but split: upstream adds nothing */
    kp__ev_threshold *out = kp__realloc(th, (n + 8) * sizeof *out);
    if (!out) return KP_ENOMEM;
    /* Go: appends write past the caller's length (unseen by it) until one outgrows cap; from
     * then on every write, overwrites included, goes to the new backing array */
    uint32_t go_len = n;
    bool grown = false;
    for (int k = 0; k < 4; k++) {
        kp__ev_threshold t = src[base + k];
        t.signal = k < 2 ? KP_EVSIG_CONTAINERFS_AVAILABLE : KP_EVSIG_CONTAINERFS_INODES_FREE;
        t.origin = base ? "copy of the imagefs threshold (UpdateContainerFsThresholds)"
                        : "copy of the nodefs threshold (UpdateContainerFsThresholds)";
        if (!t.has_op) {
            memset(&t.value, 0, sizeof t.value);
            t.value_text[0] = 0;
        }
        if (idx[k] >= 0) {
            out[idx[k]] = t;
            if (replaced && (uint32_t)idx[k] < flags_cap) replaced[idx[k]] = true;
            if (stale && grown && (uint32_t)idx[k] < flags_cap) stale[idx[k]] = true;
        } else {
            if (go_len == go_cap) {
                go_cap = kp__ev_go_append_cap(go_len, go_cap, 1);
                grown = true;
            }
            go_len++;
            out[n++] = t;
        }
    }
    *thp = out;
    *np = n;
    return KP_OK;
}

/* ---------------------------------------------------------------- values and quantities */

/* api/types.go GetThresholdQuantity, hasThreshold and compareThresholdValue: exact amounts
 * (whole units plus nanos) so that fractional thresholds compare with integer observations. */

static kp__ev_amount quantity_amount(const kp_quantity *q) {
    kp__ev_amount a = {0, 0};
    if (q->scale >= 0) {
        int64_t v = q->mant;
        for (int32_t i = 0; i < q->scale; i++) {
            if (v > INT64_MAX / 10) {
                a.whole = INT64_MAX;
                return a;
            }
            if (v < INT64_MIN / 10) {
                a.whole = INT64_MIN;
                return a;
            }
            v *= 10;
        }
        a.whole = v;
        return a;
    }
    int64_t div = 1, mul = 1;
    for (int32_t i = 0; i < -q->scale && i < 9; i++) div *= 10;
    for (int32_t i = 0; i < 9 + q->scale; i++) mul *= 10;
    int64_t whole = q->mant / div, rem = q->mant % div;
    if (rem < 0) {
        whole -= 1;
        rem += div;
    }
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
    if (r.nanos >= 1000000000) {
        r.nanos -= 1000000000;
        r.whole = kp__ev_sat_add(r.whole, 1);
    }
    return r;
}

bool kp__ev_amount_gt_int(kp__ev_amount a, int64_t v) {
    return a.whole > v || (a.whole == v && a.nanos > 0);
}

void kp__ev_threshold_quantity_str(const kp__ev_value *v, int64_t capacity, char *buf, size_t cap) {
    if (v->is_pct) {
        kp__ev_amount a = kp__ev_value_amount(v, capacity);
        kp__quantity_format_int(a.whole, KP_QFMT_BINARY_SI, buf, cap);
    } else {
        snprintf(buf, cap, "%s", v->str); /* DeepCopy keeps the cached string */
    }
}

void kp__ev_quantity_string(const kp_quantity *q, const char *text, size_t len, char *buf,
                            size_t cap) {
    if (text && len < cap && kp_quantity_parse_keeps_string(text, len)) {
        memcpy(buf, text, len);
        buf[len] = 0;
        return;
    }
    kp__quantity_format(q, buf, cap);
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
    kp__quantity_format_int(v, f, buf, cap);
}
