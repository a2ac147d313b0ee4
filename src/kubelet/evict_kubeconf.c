/* KubeletConfiguration and kubelet flags: the eviction fields, their defaults
 * (pkg/kubelet/apis/config/v1beta1/defaults.go, defaults_linux.go) and the flag syntax of
 * k8s.io/component-base/cli/flag (MapStringString, LangleSeparatedMapStringString) and pflag.
 * Map entries keep the order in which they were written; Go maps have none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/tree.h"
#include "kubelet/evict_types.h"

/* ---------------------------------------------------------------- ordered string maps */

static void map_clear(kp__ev_map *m) {
    for (uint32_t i = 0; i < m->n; i++) { kp__free(m->items[i].key); kp__free(m->items[i].val); }
    m->n = 0;
}

static void map_fini(kp__ev_map *m) {
    map_clear(m);
    kp__free(m->items);
    memset(m, 0, sizeof *m);
}

static char *dupn(const char *s, size_t n) {
    char *p = kp__malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static const char *map_get(const kp__ev_map *m, const char *key) {
    for (uint32_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0) return m->items[i].val;
    return NULL;
}

/* Sets key (later writes win, keeping the first position). */
static kp_status map_put(kp__ev_map *m, const char *k, size_t klen, const char *v, size_t vlen,
                         kp_error *err) {
    char *val = dupn(v, vlen);
    if (!val) return kp_error_set(err, KP_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n; i++) {
        if (strlen(m->items[i].key) == klen && memcmp(m->items[i].key, k, klen) == 0) {
            kp__free(m->items[i].val);
            m->items[i].val = val;
            return KP_OK;
        }
    }
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 8;
        kp__ev_kv *ni = kp__realloc(m->items, nc * sizeof *ni);
        if (!ni) { kp__free(val); return kp_error_set(err, KP_ENOMEM, "out of memory"); }
        m->items = ni;
        m->cap = nc;
    }
    char *key = dupn(k, klen);
    if (!key) { kp__free(val); return kp_error_set(err, KP_ENOMEM, "out of memory"); }
    m->items[m->n].key = key;
    m->items[m->n].val = val;
    m->n++;
    return KP_OK;
}

static const char *const default_hard[][2] = {
    {"memory.available", "100Mi"}, {"nodefs.available", "10%"}, {"nodefs.inodesFree", "5%"},
    {"imagefs.available", "15%"},  {"imagefs.inodesFree", "5%"}};
#define N_DEFAULT_HARD (sizeof default_hard / sizeof default_hard[0])

kp_evict_config *kp_evict_config_new(void) {
    kp_evict_config *c = kp__calloc(1, sizeof *c);
    if (!c) return NULL;
    for (size_t i = 0; i < N_DEFAULT_HARD; i++) {
        if (map_put(&c->hard, default_hard[i][0], strlen(default_hard[i][0]), default_hard[i][1],
                    strlen(default_hard[i][1]), NULL) != KP_OK) {
            kp_evict_config_free(c);
            return NULL;
        }
    }
    c->hard.is_set = true;
    c->transition_ns = 5 * 60 * KP__NS_PER_SEC;
    c->enforce_pods = true;
    c->local_storage_isolation = true;
    return c;
}

void kp_evict_config_free(kp_evict_config *c) {
    if (!c) return;
    map_fini(&c->hard);
    map_fini(&c->soft);
    map_fini(&c->grace);
    map_fini(&c->minreclaim);
    kp__free(c->th);
    kp__free(c);
}

/* ---------------------------------------------------------------- kubelet flags */

static kp_status flag_invalid(const char *flag, const char *value, kp_error *err, const char *detail) {
    char q[200];
    kp__ev_go_quote(value, strlen(value), q, sizeof q);
    return kp_error_set(err, KP_EINVAL, "invalid argument %s for \"--%s\" flag: %s", q, flag, detail);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* mirrors MapStringString.Set / LangleSeparatedMapStringString.Set */
static kp_status map_flag_set(kp__ev_map *m, const char *flag, const char *value, char sep,
                              kp_error *err) {
    if (!m->flag_set) { map_clear(m); m->flag_set = true; }
    m->is_set = true;
    const char *p = value;
    while (1) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0) {
            const char *s = memchr(p, sep, n);
            if (!s)
                return flag_invalid(flag, value, err, sep == '<' ? "malformed pair, expect string<string"
                                                                 : "malformed pair, expect string=string");
            const char *k = p, *ke = s, *v = s + 1, *ve = p + n;
            while (k < ke && is_space(*k)) k++;
            while (ke > k && is_space(ke[-1])) ke--;
            while (v < ve && is_space(*v)) v++;
            while (ve > v && is_space(ve[-1])) ve--;
            kp_status st = map_put(m, k, (size_t)(ke - k), v, (size_t)(ve - v), err);
            if (st != KP_OK) return st;
        }
        if (!e) break;
        p = e + 1;
    }
    return KP_OK;
}

static kp_status parse_bool_flag(const char *flag, const char *v, bool *out, kp_error *err) {
    /* strconv.ParseBool */
    static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < 6; i++) {
        if (strcmp(v, t[i]) == 0) { *out = true; return KP_OK; }
        if (strcmp(v, f[i]) == 0) { *out = false; return KP_OK; }
    }
    char q[160], d[320];
    kp__ev_go_quote(v, strlen(v), q, sizeof q);
    snprintf(d, sizeof d, "strconv.ParseBool: parsing %s: invalid syntax", q);
    return flag_invalid(flag, v, err, d);
}

kp_status kp_evict_config_set_flag(kp_evict_config *c, const char *name, const char *value,
                                   kp_error *err) {
    c->finished = false;
    if (strcmp(name, "eviction-hard") == 0) return map_flag_set(&c->hard, name, value, '<', err);
    if (strcmp(name, "eviction-soft") == 0) return map_flag_set(&c->soft, name, value, '<', err);
    if (strcmp(name, "eviction-soft-grace-period") == 0)
        return map_flag_set(&c->grace, name, value, '=', err);
    if (strcmp(name, "eviction-minimum-reclaim") == 0)
        return map_flag_set(&c->minreclaim, name, value, '=', err);
    if (strcmp(name, "eviction-pressure-transition-period") == 0) {
        kp_error e2;
        kp_error_clear(&e2);
        if (kp__ev_parse_duration(value, strlen(value), &c->transition_ns, &e2) != KP_OK)
            return flag_invalid(name, value, err, e2.msg);
        return KP_OK;
    }
    if (strcmp(name, "eviction-max-pod-grace-period") == 0) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(value, &end, 0);
        char q[160], d[320];
        kp__ev_go_quote(value, strlen(value), q, sizeof q);
        if (!*value || *end || is_space(*value)) {
            snprintf(d, sizeof d, "strconv.ParseInt: parsing %s: invalid syntax", q);
            return flag_invalid(name, value, err, d);
        }
        if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN) {
            snprintf(d, sizeof d, "strconv.ParseInt: parsing %s: value out of range", q);
            return flag_invalid(name, value, err, d);
        }
        c->max_pod_grace = v;
        return KP_OK;
    }
    if (strcmp(name, "enforce-node-allocatable") == 0) {
        c->enforce_pods = false;
        const char *p = value;
        while (*p) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n == 4 && memcmp(p, "pods", 4) == 0) c->enforce_pods = true;
            if (!e) break;
            p = e + 1;
        }
        return KP_OK;
    }
    if (strcmp(name, "local-storage-capacity-isolation") == 0)
        return parse_bool_flag(name, value, &c->local_storage_isolation, err);
    return kp_error_set(err, KP_ENOTFOUND, "unknown flag: --%s", name);
}

kp_status kp_evict_config_set_reclaimable(kp_evict_config *c, const char *spec, kp_error *err) {
    const char *eq = strchr(spec, '=');
    kp_evict_signal sig;
    if (!eq) return kp_error_set(err, KP_EINVAL, "malformed pair, expect string=string");
    if (!kp_evict_signal_parse(spec, (size_t)(eq - spec), &sig))
        return kp_error_set(err, KP_EINVAL, "unsupported eviction signal %.*s", (int)(eq - spec), spec);
    if (sig == KP_EVSIG_MEMORY_AVAILABLE || sig == KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE ||
        sig == KP_EVSIG_PID_AVAILABLE)
        return kp_error_set(err, KP_EINVAL, "no node-level reclaim exists for signal %s",
                            kp_evict_signal_name(sig));
    kp_quantity q;
    kp_status st = kp_quantity_parse(eq + 1, strlen(eq + 1), &q, err);
    if (st != KP_OK) return st;
    int64_t v;
    if (q.mant < 0 || kp_quantity_value(&q, &v) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "reclaimable amount for %s must be a non-negative quantity: %s",
                            kp_evict_signal_name(sig), eq + 1);
    c->has_reclaimable[sig] = true;
    c->reclaimable[sig] = v;
    return KP_OK;
}

void kp_evict_config_set_fs_layout(kp_evict_config *c, kp_evict_fs_layout layout) { c->layout = layout; }

/* ---------------------------------------------------------------- KubeletConfiguration */

typedef struct {
    kp_evict_config *cfg;
    int n_docs;
} load_ctx;

static kp_status load_map(kp_dctx *d, const kp_tnode *obj, const char *key, kp__ev_map *m) {
    const kp_tnode *o;
    kp_status st = kp__dget_obj(d, obj, key, &o);
    if (st != KP_OK) return st;
    if (!o) return KP_OK;
    if (o->type != KP_T_OBJ)
        return kp__dctx_fail(d, o, KP_EINVAL, key, "expected an object (map of signal to string)");
    map_clear(m);
    m->is_set = true;
    m->flag_set = false;
    size_t saved = kp__dctx_push(d, key);
    for (const kp_tnode *c = o->first; c; c = c->next) {
        if (c->type != KP_T_STR) {
            char field[160];
            snprintf(field, sizeof field, "%.*s", (int)c->key_len, c->key);
            return kp__dctx_fail(d, c, KP_EINVAL, field, "expected a string");
        }
        st = map_put(m, c->key, c->key_len, c->s, c->len, d->err);
        if (st != KP_OK) return st;
    }
    kp__dctx_pop(d, saved);
    return KP_OK;
}

static kp_status load_cb(void *vctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    load_ctx *lc = vctx;
    kp_evict_config *c = lc->cfg;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    snprintf(d.object, sizeof d.object, "KubeletConfiguration");
    if (++lc->n_docs > 1) return kp__dctx_fail(&d, obj, KP_EINVAL, NULL, "expected one KubeletConfiguration document");
    if (obj->type != KP_T_OBJ) return kp__dctx_fail(&d, obj, KP_EINVAL, NULL, "expected an object");
    const char *kind = NULL;
    bool present = false;
    kp_status st = kp__dget_str(&d, obj, "kind", &kind, &present);
    if (st != KP_OK) return st;
    if (present && strcmp(kind, "KubeletConfiguration") != 0)
        return kp__dctx_fail(&d, kp__tree_get(obj, "kind"), KP_EINVAL, "kind",
                             "expected KubeletConfiguration, got %s", kind);
    if ((st = load_map(&d, obj, "evictionHard", &c->hard)) != KP_OK) return st;
    if ((st = load_map(&d, obj, "evictionSoft", &c->soft)) != KP_OK) return st;
    if ((st = load_map(&d, obj, "evictionSoftGracePeriod", &c->grace)) != KP_OK) return st;
    if ((st = load_map(&d, obj, "evictionMinimumReclaim", &c->minreclaim)) != KP_OK) return st;
    const char *s = NULL;
    if ((st = kp__dget_str(&d, obj, "evictionPressureTransitionPeriod", &s, &present)) != KP_OK) return st;
    if (present) {
        kp_error e2;
        kp_error_clear(&e2);
        if (kp__ev_parse_duration(s, strlen(s), &c->transition_ns, &e2) != KP_OK)
            return kp__dctx_fail(&d, kp__tree_get(obj, "evictionPressureTransitionPeriod"), KP_EINVAL,
                                 "evictionPressureTransitionPeriod", "%s", e2.msg);
        if (c->transition_ns == 0) c->transition_ns = 5 * 60 * KP__NS_PER_SEC; /* SetDefaults */
    }
    int64_t iv;
    if ((st = kp__dget_int(&d, obj, "evictionMaxPodGracePeriod", INT32_MIN, INT32_MAX, &iv, &present)) != KP_OK)
        return st;
    if (present) c->max_pod_grace = iv;
    bool bv;
    if ((st = kp__dget_bool(&d, obj, "mergeDefaultEvictionSettings", &bv, &present)) != KP_OK) return st;
    if (present) c->merge_defaults = bv;
    if ((st = kp__dget_bool(&d, obj, "localStorageCapacityIsolation", &bv, &present)) != KP_OK) return st;
    if (present) c->local_storage_isolation = bv;
    const kp_tnode *arr;
    if ((st = kp__dget_arr(&d, obj, "enforceNodeAllocatable", &arr)) != KP_OK) return st;
    if (arr) {
        c->enforce_pods = false;
        for (const kp_tnode *e = arr->first; e; e = e->next)
            if (e->type == KP_T_STR && e->len == 4 && memcmp(e->s, "pods", 4) == 0) c->enforce_pods = true;
    }
    return KP_OK;
}

kp_status kp_evict_config_load_buffer(kp_evict_config *c, const char *source, const char *buf,
                                      size_t len, kp_error *err) {
    load_ctx lc = {c, 0};
    c->finished = false;
    snprintf(c->source, sizeof c->source, "%s", source);
    kp_status st = kp__tree_parse(source, buf, len, false, load_cb, &lc, err);
    if (st != KP_OK && err && err->source[0] == 0) snprintf(err->source, sizeof err->source, "%s", source);
    return st;
}

/* mergeDefaultEvictionSettings: default evictionHard entries missing from a set map are added. */
kp_status kp__ev_merge_default_hard(kp_evict_config *c, kp_error *err) {
    if (!c->hard.is_set) return KP_OK;
    for (size_t i = 0; i < N_DEFAULT_HARD; i++) {
        if (map_get(&c->hard, default_hard[i][0])) continue;
        kp_status st = map_put(&c->hard, default_hard[i][0], strlen(default_hard[i][0]), default_hard[i][1],
                               strlen(default_hard[i][1]), err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}
