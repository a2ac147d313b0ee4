/* Eviction configuration: threshold syntax (ParseThresholdConfig and friends), Go durations,
 * float32 percentages and the containerfs threshold derivation (flags and KubeletConfiguration
 * fields are in evict_kubeconf.c).
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
#include "io/tree.h"
#include "kubelet/evict_types.h"

static const char *const sig_names[KP_EVSIG_COUNT] = {
    "memory.available",  "allocatableMemory.available", "nodefs.available",
    "nodefs.inodesFree", "imagefs.available",           "imagefs.inodesFree",
    "containerfs.available", "containerfs.inodesFree",  "pid.available"};

const char *kp_evict_signal_name(kp_evict_signal s) {
    return (unsigned)s < KP_EVSIG_COUNT ? sig_names[s] : "";
}

bool kp_evict_signal_parse(const char *s, size_t len, kp_evict_signal *out) {
    for (int i = 0; i < KP_EVSIG_COUNT; i++) {
        if (strlen(sig_names[i]) == len && memcmp(sig_names[i], s, len) == 0) {
            *out = (kp_evict_signal)i;
            return true;
        }
    }
    return false;
}

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

/* ---------------------------------------------------------------- Go durations */

/* Go's strconv.Quote for the plain strings we see; escapes quote, backslash and controls. */
void kp__ev_go_quote(const char *s, size_t len, char *buf, size_t cap) {
    size_t o = 0;
    if (cap < 3) { if (cap) buf[0] = 0; return; }
    buf[o++] = '"';
    for (size_t i = 0; i < len && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { buf[o++] = '\\'; buf[o++] = (char)c; }
        else if (c < 0x20) { o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c); }
        else buf[o++] = (char)c;
    }
    buf[o++] = '"';
    buf[o] = 0;
}

static kp_status dur_invalid(const char *s, size_t len, kp_error *err) {
    char q[160];
    kp__ev_go_quote(s, len, q, sizeof q);
    return kp_error_set(err, KP_EINVAL, "time: invalid duration %s", q);
}

/* mirrors time.ParseDuration */
kp_status kp__ev_parse_duration(const char *s, size_t len, int64_t *out_ns, kp_error *err) {
    const char *orig = s;
    size_t orig_len = len, i = 0;
    bool neg = false;
    uint64_t d = 0;
    const uint64_t lim = (uint64_t)1 << 63;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) { neg = s[0] == '-'; i = 1; }
    if (len - i == 1 && s[i] == '0') { *out_ns = 0; return KP_OK; }
    if (i == len) return dur_invalid(orig, orig_len, err);
    while (i < len) {
        uint64_t v = 0, f = 0;
        double scale = 1.0;
        if (!(s[i] == '.' || (s[i] >= '0' && s[i] <= '9'))) return dur_invalid(orig, orig_len, err);
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (v > (lim - 1) / 10) return dur_invalid(orig, orig_len, err);
            v = v * 10 + (uint64_t)(s[i] - '0');
            if (v > lim - 1) return dur_invalid(orig, orig_len, err);
            i++;
        }
        bool pre = i != start, post = false;
        if (i < len && s[i] == '.') {
            i++;
            size_t fs = i;
            bool overflow = false;
            while (i < len && s[i] >= '0' && s[i] <= '9') {
                if (!overflow) {
                    if (f > (lim - 1) / 10) overflow = true;
                    else {
                        uint64_t y = f * 10 + (uint64_t)(s[i] - '0');
                        if (y > lim) overflow = true;
                        else { f = y; scale *= 10; }
                    }
                }
                i++;
            }
            post = i != fs;
        }
        if (!pre && !post) return dur_invalid(orig, orig_len, err);
        size_t us = i;
        while (i < len && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9')) i++;
        if (i == us) {
            char q[160];
            kp__ev_go_quote(orig, orig_len, q, sizeof q);
            return kp_error_set(err, KP_EINVAL, "time: missing unit in duration %s", q);
        }
        size_t ul = i - us;
        const char *u = s + us;
        uint64_t unit = 0;
        if (ul == 2 && memcmp(u, "ns", 2) == 0) unit = 1;
        else if ((ul == 2 && memcmp(u, "us", 2) == 0) || (ul == 3 && memcmp(u, "\xc2\xb5s", 3) == 0) ||
                 (ul == 3 && memcmp(u, "\xce\xbcs", 3) == 0)) unit = 1000;
        else if (ul == 2 && memcmp(u, "ms", 2) == 0) unit = 1000000;
        else if (ul == 1 && u[0] == 's') unit = 1000000000ULL;
        else if (ul == 1 && u[0] == 'm') unit = 60ULL * 1000000000ULL;
        else if (ul == 1 && u[0] == 'h') unit = 3600ULL * 1000000000ULL;
        if (!unit) {
            char q1[64], q2[160];
            kp__ev_go_quote(u, ul, q1, sizeof q1);
            kp__ev_go_quote(orig, orig_len, q2, sizeof q2);
            return kp_error_set(err, KP_EINVAL, "time: unknown unit %s in duration %s", q1, q2);
        }
        if (v > lim / unit) return dur_invalid(orig, orig_len, err);
        v *= unit;
        if (f > 0) {
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > lim) return dur_invalid(orig, orig_len, err);
        }
        d += v;
        if (d > lim) return dur_invalid(orig, orig_len, err);
    }
    if (neg) { *out_ns = d == lim ? INT64_MIN : -(int64_t)d; return KP_OK; }
    if (d > lim - 1) return dur_invalid(orig, orig_len, err);
    *out_ns = (int64_t)d;
    return KP_OK;
}

/* digits of v with trailing zeros dropped, as Go's fmtFrac; returns "" when v is 0 */
static void frac_digits(uint64_t v, int prec, char *buf, size_t cap) {
    char tmp[24];
    int n = 0;
    bool printed = false;
    for (int i = 0; i < prec; i++) {
        int digit = (int)(v % 10);
        printed = printed || digit != 0;
        if (printed) tmp[n++] = (char)('0' + digit);
        v /= 10;
    }
    size_t o = 0;
    if (n > 0 && cap > 1) buf[o++] = '.';
    while (n > 0 && o + 1 < cap) buf[o++] = tmp[--n];
    if (cap) buf[o] = 0;
}

/* mirrors time.Duration.String */
void kp__ev_format_duration(int64_t ns, char *buf, size_t cap) {
    if (ns == 0) { snprintf(buf, cap, "0s"); return; }
    const char *sign = ns < 0 ? "-" : "";
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char fr[24];
    if (u < 1000000000ULL) {
        if (u < 1000) { snprintf(buf, cap, "%s%lluns", sign, (unsigned long long)u); return; }
        if (u < 1000000) {
            frac_digits(u % 1000, 3, fr, sizeof fr);
            snprintf(buf, cap, "%s%llu%s\xc2\xb5s", sign, (unsigned long long)(u / 1000), fr);
            return;
        }
        frac_digits(u % 1000000, 6, fr, sizeof fr);
        snprintf(buf, cap, "%s%llu%sms", sign, (unsigned long long)(u / 1000000), fr);
        return;
    }
    frac_digits(u % 1000000000ULL, 9, fr, sizeof fr);
    uint64_t secs = u / 1000000000ULL;
    if (secs >= 3600)
        snprintf(buf, cap, "%s%lluh%llum%llu%ss", sign, (unsigned long long)(secs / 3600),
                 (unsigned long long)(secs / 60 % 60), (unsigned long long)(secs % 60), fr);
    else if (secs >= 60)
        snprintf(buf, cap, "%s%llum%llu%ss", sign, (unsigned long long)(secs / 60),
                 (unsigned long long)(secs % 60), fr);
    else
        snprintf(buf, cap, "%s%llu%ss", sign, (unsigned long long)secs, fr);
}

void kp_evict_format_duration(int64_t ns, char *buf, size_t cap) { kp__ev_format_duration(ns, buf, cap); }

/* ---------------------------------------------------------------- percentages, statements */

static bool is_alpha_word(const char *s, const char *word) {
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return false;
    }
    return s[n] == 0;
}

/* Go strconv.ParseFloat(body, 32) syntax check (decimal, hex with p exponent, inf, nan). */
static bool go_float_syntax(const char *b) {
    const char *p = b;
    if (*p == '+' || *p == '-') p++;
    if (is_alpha_word(p, "inf") || is_alpha_word(p, "infinity")) return true;
    if (p == b && is_alpha_word(p, "nan")) return true;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return strpbrk(p, "pP") != NULL;
    bool digits = false;
    while (*p >= '0' && *p <= '9') { p++; digits = true; }
    if (*p == '.') { p++; while (*p >= '0' && *p <= '9') { p++; digits = true; } }
    if (!digits) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return false;
        while (*p >= '0' && *p <= '9') p++;
    }
    return *p == 0;
}

/* mirrors parsePercentage */
kp_status kp__ev_parse_percentage(const char *s, size_t len, float *out, kp_error *err) {
    while (len > 0 && s[len - 1] == '%') len--;
    char body[128], q[160];
    if (len >= sizeof body) len = sizeof body - 1;
    memcpy(body, s, len);
    body[len] = 0;
    kp__ev_go_quote(body, len, q, sizeof q);
    if (!go_float_syntax(body))
        return kp_error_set(err, KP_EINVAL, "strconv.ParseFloat: parsing %s: invalid syntax", q);
    errno = 0;
    char *end = NULL;
    float v = strtof(body, &end);
    if (end != body + len)
        return kp_error_set(err, KP_EINVAL, "strconv.ParseFloat: parsing %s: invalid syntax", q);
    if (isinf(v) && !strpbrk(body, "iI"))
        return kp_error_set(err, KP_ERANGE, "strconv.ParseFloat: parsing %s: value out of range", q);
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
        if (strcmp(val, "0%") == 0 || strcmp(val, "100%") == 0) { *ignored = true; return KP_OK; }
        float p;
        kp_status st = kp__ev_parse_percentage(val, vlen, &p, err);
        if (st != KP_OK) return st;
        if (isnan(p)) /* Go lets NaN through; it would make a threshold that is never met */
            return kp_error_set(err, KP_EINVAL, "eviction percentage threshold %s must be a number: %s",
                                signal, val);
        if (p < 0)
            return kp_error_set(err, KP_EINVAL, "eviction percentage threshold %s must be >= 0%%: %s",
                                signal, val);
        if (p > 1)
            return kp_error_set(err, KP_EINVAL, "eviction percentage threshold %s must be <= 100%%: %s",
                                signal, val);
        out->value.is_pct = true;
        out->value.pct = p;
    } else {
        kp_quantity q;
        kp_status st = kp_quantity_parse(val, vlen, &q, err);
        if (st != KP_OK) return st;
        if (q.mant <= 0) {
            char buf[KP_QUANTITY_STR_MAX];
            kp__ev_quantity_string(&q, val, vlen, buf, sizeof buf);
            return kp_error_set(err, KP_EINVAL, "eviction threshold %s must be positive: %s", signal, buf);
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
            return kp_error_set(err, KP_EINVAL, "eviction percentage minimum reclaim %s must be positive: %s",
                                signal, val);
        out->is_pct = true;
        out->pct = p;
    } else {
        kp_status st = kp_quantity_parse(val, vlen, &out->q, err);
        if (st != KP_OK) return st;
        if (out->q.mant < 0)
            return kp_error_set(err, KP_EINVAL, "negative eviction minimum reclaim specified for %s", signal);
    }
    value_text(out, val, text, text_cap);
    return KP_OK;
}

static kp_status th_push(kp__ev_threshold **th, uint32_t *n, uint32_t *cap, const kp__ev_threshold *t,
                         kp_error *err) {
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        kp__ev_threshold *p = kp__realloc(*th, nc * sizeof *p);
        if (!p) return kp_error_set(err, KP_ENOMEM, "out of memory");
        *th = p;
        *cap = nc;
    }
    (*th)[(*n)++] = *t;
    return KP_OK;
}

/* Names where a map came from in errors: the flag, or the KubeletConfiguration field. */
static void label_error(const kp_evict_config *c, const kp__ev_map *m, const char *field, const char *flag,
                        kp_error *err) {
    if (!err) return;
    if (m->flag_set || !c->source[0]) {
        kp_error_prefix(err, "--%s", flag);
    } else {
        kp_error_prefix(err, "KubeletConfiguration: %s", field);
        snprintf(err->source, sizeof err->source, "%s", c->source);
    }
}

static kp_status finish(kp_evict_config *c, kp_error *err, const kp__ev_map **where);

/* mirrors ParseThresholdConfig (plus the mergeDefaultEvictionSettings defaulting) */
kp_status kp_evict_config_finish(kp_evict_config *c, kp_error *err) {
    const kp__ev_map *where = NULL;
    kp_status st = finish(c, err, &where);
    if (st != KP_OK && st != KP_ENOMEM && where) {
        if (where == &c->hard) label_error(c, where, "evictionHard", "eviction-hard", err);
        else if (where == &c->soft) label_error(c, where, "evictionSoft", "eviction-soft", err);
        else if (where == &c->grace) label_error(c, where, "evictionSoftGracePeriod", "eviction-soft-grace-period", err);
        else label_error(c, where, "evictionMinimumReclaim", "eviction-minimum-reclaim", err);
    }
    return st;
}

static kp_status finish(kp_evict_config *c, kp_error *err, const kp__ev_map **where) {
    kp__ev_threshold *th = NULL, t;
    uint32_t n = 0, cap = 0, n_hard;
    kp_status st = KP_OK;
    bool ignored;
    if (c->merge_defaults && (st = kp__ev_merge_default_hard(c, err)) != KP_OK) goto fail;
    *where = &c->hard;
    for (uint32_t i = 0; i < c->hard.n; i++) {
        if ((st = kp__ev_parse_threshold(c->hard.items[i].key, c->hard.items[i].val, &t, &ignored, err)) != KP_OK)
            goto fail;
        if (!ignored && (st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
    }
    n_hard = n;
    *where = &c->soft;
    for (uint32_t i = 0; i < c->soft.n; i++) {
        if ((st = kp__ev_parse_threshold(c->soft.items[i].key, c->soft.items[i].val, &t, &ignored, err)) != KP_OK)
            goto fail;
        if (!ignored && (st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
    }
    int64_t graces[32];
    kp_evict_signal grace_sig[32];
    uint32_t n_grace = 0;
    *where = &c->grace;
    for (uint32_t i = 0; i < c->grace.n; i++) {
        const kp__ev_kv *kv = &c->grace.items[i];
        kp_evict_signal sig;
        int64_t g;
        if (!kp_evict_signal_parse(kv->key, strlen(kv->key), &sig)) {
            st = kp_error_set(err, KP_EINVAL, "unsupported eviction signal %s", kv->key);
            goto fail;
        }
        if ((st = kp__ev_parse_duration(kv->val, strlen(kv->val), &g, err)) != KP_OK) goto fail;
        if (g < 0) {
            st = kp_error_set(err, KP_EINVAL, "invalid eviction grace period specified: %s, must be a positive value",
                              kv->val);
            goto fail;
        }
        uint32_t j = 0;
        while (j < n_grace && grace_sig[j] != sig) j++;
        if (j == n_grace && n_grace < 32) n_grace++;
        grace_sig[j] = sig;
        graces[j] = g;
    }
    kp__ev_value mr[KP_EVSIG_COUNT];
    char mr_text[KP_EVSIG_COUNT][48];
    bool has_mr[KP_EVSIG_COUNT] = {false};
    *where = &c->minreclaim;
    for (uint32_t i = 0; i < c->minreclaim.n; i++) {
        const kp__ev_kv *kv = &c->minreclaim.items[i];
        kp__ev_value v;
        char text[48];
        if ((st = parse_min_reclaim(kv->key, kv->val, &v, text, sizeof text, err)) != KP_OK) goto fail;
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
            st = kp_error_set(err, KP_EINVAL, "grace period must be specified for the soft eviction threshold %s",
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
    if (c->enforce_pods) { /* mirrors addAllocatableThresholds */
        uint32_t n0 = n;
        for (uint32_t i = 0; i < n0; i++) {
            if (th[i].signal == KP_EVSIG_MEMORY_AVAILABLE && th[i].grace_ns == 0) {
                t = th[i];
                t.signal = KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE;
                if ((st = th_push(&th, &n, &cap, &t, err)) != KP_OK) goto fail;
            }
        }
    }
    kp__free(c->th);
    c->th = th;
    c->n_th = n;
    c->finished = true;
    return KP_OK;
fail:
    kp__free(th);
    return st;
}

static void fill_info(const kp__ev_threshold *t, kp_evict_threshold_info *out) {
    memset(out, 0, sizeof *out);
    out->signal = t->signal;
    out->hard = t->grace_ns == 0;
    out->grace_ns = t->grace_ns;
    memcpy(out->value, t->value_text, sizeof out->value);
    if (t->has_min_reclaim) memcpy(out->min_reclaim, t->mr_text, sizeof out->min_reclaim);
}

size_t kp_evict_config_threshold_count(const kp_evict_config *c) { return c->finished ? c->n_th : 0; }

kp_status kp_evict_config_threshold(const kp_evict_config *c, size_t i, kp_evict_threshold_info *out) {
    if (!c->finished || i >= c->n_th) return KP_ERANGE;
    fill_info(&c->th[i], out);
    return KP_OK;
}

int64_t kp_evict_config_transition_ns(const kp_evict_config *c) { return c->transition_ns; }
int64_t kp_evict_config_max_pod_grace(const kp_evict_config *c) { return c->max_pod_grace; }

/* ---------------------------------------------------------------- containerfs thresholds */

/* mirrors UpdateContainerFsThresholds */
kp_status kp__ev_update_containerfs(kp__ev_threshold **thp, uint32_t *np, bool imagefs, bool split,
                                    bool *replaced, uint32_t replaced_cap) {
    kp__ev_threshold *th = *thp;
    uint32_t n = *np;
    /* src[0..3]: hard avail, soft avail, hard inodes, soft inodes of nodefs; [4..7] of imagefs */
    kp__ev_threshold src[8];
    memset(src, 0, sizeof src);
    long idx[4] = {-1, -1, -1, -1}; /* user containerfs: hard avail, soft avail, hard inodes, soft inodes */
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
    kp__ev_threshold *out = kp__realloc(th, (n + 4) * sizeof *out);
    if (!out) return KP_ENOMEM;
    for (int k = 0; k < 4; k++) {
        kp__ev_threshold t = src[base + k];
        t.signal = k < 2 ? KP_EVSIG_CONTAINERFS_AVAILABLE : KP_EVSIG_CONTAINERFS_INODES_FREE;
        if (!t.has_op) { memset(&t.value, 0, sizeof t.value); t.value_text[0] = 0; }
        if (idx[k] >= 0) {
            out[idx[k]] = t;
            if (replaced && (uint32_t)idx[k] < replaced_cap) replaced[idx[k]] = true;
        } else {
            out[n++] = t;
        }
    }
    *thp = out;
    *np = n;
    return KP_OK;
}
