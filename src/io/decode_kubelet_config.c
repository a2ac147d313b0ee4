/* Decoding the kubelet's eviction settings: a KubeletConfiguration document (YAML or JSON) and
 * the kubelet flags, into the plain settings of src/core/kubelet_config.h. Mirrors the flag
 * syntax of k8s.io/component-base/cli/flag (MapStringString, LangleSeparatedMapStringString),
 * pflag and strconv; defaults are src/core/kubelet_config.c's. Map entries keep the order in
 * which they were written; Go maps have none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gosyntax.h"
#include "core/kubelet_config.h"
#include "io/dctx.h"
#include "io/decode_kubelet_config.h"
#include "io/input.h"
#include "io/tree.h"
#include "kprio/quantity.h"

/* ---------------------------------------------------------------- kubelet flags */

static kp_status flag_invalid(const char *flag, const char *value, kp_error *err,
                              const char *detail) {
    char q[200];
    kp__go_quote(value, strlen(value), q, sizeof q);
    return kp_error_set(err, KP_EINVAL, "invalid argument %s for \"--%s\" flag: %s", q, flag,
                        detail);
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* mirrors MapStringString.Set / LangleSeparatedMapStringString.Set */
static kp_status map_flag_set(kp__kcfg_map *m, const char *flag, const char *value, char sep,
                              kp_error *err) {
    if (!m->flag_set) { /* the first use replaces the map: defaults and file entries go */
        kp__kcfg_map_clear(m);
        m->flag_set = true;
        m->origin = KP__KCFG_FLAG;
    }
    m->is_set = true;
    const char *p = value;
    while (1) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0) {
            const char *s = memchr(p, sep, n);
            if (!s)
                return flag_invalid(flag, value, err,
                                    sep == '<' ? "malformed pair, expect string<string"
                                               : "malformed pair, expect string=string");
            const char *k = p, *ke = s, *v = s + 1, *ve = p + n;
            while (k < ke && is_space(*k)) k++;
            while (ke > k && is_space(ke[-1])) ke--;
            while (v < ve && is_space(*v)) v++;
            while (ve > v && is_space(ve[-1])) ve--;
            kp_status st = kp__kcfg_map_put(m, k, (size_t)(ke - k), v, (size_t)(ve - v), err);
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
        if (strcmp(v, t[i]) == 0) {
            *out = true;
            return KP_OK;
        }
        if (strcmp(v, f[i]) == 0) {
            *out = false;
            return KP_OK;
        }
    }
    char q[160], d[320];
    kp__go_quote(v, strlen(v), q, sizeof q);
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
        char msg[KP_ERR_MSG_CAP] = "";
        if (kp__go_parse_duration(value, strlen(value), &c->transition_ns, msg, sizeof msg) !=
            KP_OK)
            return flag_invalid(name, value, err, msg);
        return KP_OK;
    }
    if (strcmp(name, "eviction-max-pod-grace-period") == 0) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(value, &end, 0);
        char q[160], d[320];
        kp__go_quote(value, strlen(value), q, sizeof q);
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
        return kp_error_set(err, KP_EINVAL, "unsupported eviction signal %.*s", (int)(eq - spec),
                            spec);
    if (sig == KP_EVSIG_MEMORY_AVAILABLE || sig == KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE ||
        sig == KP_EVSIG_PID_AVAILABLE)
        return kp_error_set(err, KP_EINVAL, "no node-level reclaim exists for signal %s",
                            kp_evict_signal_name(sig));
    kp_quantity q;
    kp_status st = kp_quantity_parse(eq + 1, strlen(eq + 1), &q, err);
    if (st != KP_OK) return st;
    int64_t v;
    if (q.mant < 0 || kp_quantity_value(&q, &v) != KP_OK)
        return kp_error_set(err, KP_EINVAL,
                            "reclaimable amount for %s must be a non-negative quantity: %s",
                            kp_evict_signal_name(sig), eq + 1);
    c->has_reclaimable[sig] = true;
    c->reclaimable[sig] = v;
    return KP_OK;
}


/* ---------------------------------------------------------------- KubeletConfiguration */

/* The JSON names of kubelet.config.k8s.io/v1beta1 KubeletConfiguration's fields (k8s.io/kubelet
 * config/v1beta1/types.go, v0.37.0-beta.0, the 1.37 line) besides apiVersion and kind: strict
 * decoding reports any other top-level key as an unknown field. */
static const char *const KCFG_FIELDS[] = {
    "enableServer",
    "staticPodPath",
    "podLogsDir",
    "syncFrequency",
    "fileCheckFrequency",
    "httpCheckFrequency",
    "staticPodURL",
    "staticPodURLHeader",
    "address",
    "port",
    "readOnlyPort",
    "tlsCertFile",
    "tlsPrivateKeyFile",
    "tlsCipherSuites",
    "tlsCurvePreferences",
    "tlsMinVersion",
    "rotateCertificates",
    "serverTLSBootstrap",
    "authentication",
    "authorization",
    "registryPullQPS",
    "registryBurst",
    "imagePullCredentialsVerificationPolicy",
    "preloadedImagesVerificationAllowlist",
    "eventRecordQPS",
    "eventBurst",
    "enableDebuggingHandlers",
    "enableContentionProfiling",
    "healthzPort",
    "healthzBindAddress",
    "oomScoreAdj",
    "clusterDomain",
    "clusterDNS",
    "streamingConnectionIdleTimeout",
    "nodeStatusUpdateFrequency",
    "nodeStatusReportFrequency",
    "nodeLeaseDurationSeconds",
    "imageMinimumGCAge",
    "imageMaximumGCAge",
    "imageGCHighThresholdPercent",
    "imageGCLowThresholdPercent",
    "volumeStatsAggPeriod",
    "kubeletCgroups",
    "systemCgroups",
    "cgroupRoot",
    "cgroupsPerQOS",
    "cgroupDriver",
    "cpuManagerPolicy",
    "singleProcessOOMKill",
    "cpuManagerPolicyOptions",
    "cpuManagerReconcilePeriod",
    "memoryManagerPolicy",
    "topologyManagerPolicy",
    "topologyManagerScope",
    "topologyManagerPolicyOptions",
    "qosReserved",
    "runtimeRequestTimeout",
    "hairpinMode",
    "maxPods",
    "podCIDR",
    "podPidsLimit",
    "resolvConf",
    "runOnce",
    "cpuCFSQuota",
    "cpuCFSQuotaPeriod",
    "nodeStatusMaxImages",
    "maxOpenFiles",
    "contentType",
    "kubeAPIQPS",
    "kubeAPIBurst",
    "serializeImagePulls",
    "maxParallelImagePulls",
    "evictionHard",
    "evictionSoft",
    "evictionSoftGracePeriod",
    "evictionPressureTransitionPeriod",
    "evictionMaxPodGracePeriod",
    "evictionMinimumReclaim",
    "mergeDefaultEvictionSettings",
    "podsPerCore",
    "enableControllerAttachDetach",
    "protectKernelDefaults",
    "makeIPTablesUtilChains",
    "iptablesMasqueradeBit",
    "iptablesDropBit",
    "featureGates",
    "failSwapOn",
    "memorySwap",
    "containerLogMaxSize",
    "containerLogMaxFiles",
    "containerLogMaxWorkers",
    "containerLogMonitorInterval",
    "configMapAndSecretChangeDetectionStrategy",
    "systemReserved",
    "kubeReserved",
    "reservedSystemCPUs",
    "showHiddenMetricsForVersion",
    "systemReservedCgroup",
    "kubeReservedCgroup",
    "enforceNodeAllocatable",
    "allowedUnsafeSysctls",
    "volumePluginDir",
    "providerID",
    "kernelMemcgNotification",
    "logging",
    "enableSystemLogHandler",
    "enableSystemLogQuery",
    "shutdownGracePeriod",
    "shutdownGracePeriodCriticalPods",
    "shutdownGracePeriodByPodPriority",
    "crashLoopBackOff",
    "reservedMemory",
    "enableProfilingHandler",
    "enableDebugFlagsHandler",
    "seccompDefault",
    "memoryThrottlingFactor",
    "memoryReservationPolicy",
    "registerWithTaints",
    "registerNode",
    "tracing",
    "localStorageCapacityIsolation",
    "containerRuntimeEndpoint",
    "imageServiceEndpoint",
    "failCgroupV1",
    "userNamespaces",
};
#define N_KCFG_FIELDS (sizeof KCFG_FIELDS / sizeof KCFG_FIELDS[0])

static bool known_field(const char *k, size_t len) {
    if ((len == 4 && memcmp(k, "kind", 4) == 0) || (len == 10 && memcmp(k, "apiVersion", 10) == 0))
        return true;
    for (size_t i = 0; i < N_KCFG_FIELDS; i++)
        if (strlen(KCFG_FIELDS[i]) == len && memcmp(KCFG_FIELDS[i], k, len) == 0) return true;
    return false;
}

typedef struct {
    kp_evict_config *cfg;
    int n_docs;
    char strict[KP_ERR_MSG_CAP]; /* strict decoding errors so far ("" = none) */
    size_t strict_len;
    bool strict_cut;
} load_ctx;

/* Adds one strict decoding error (text) to the list the warning will carry. */
static void strict_add(load_ctx *lc, const char *text) {
    size_t need = strlen(text) + 2;
    if (lc->strict_len + need + 8 >= sizeof lc->strict) {
        if (!lc->strict_cut) memcpy(lc->strict + lc->strict_len, ", ...", 6);
        lc->strict_cut = true;
        return;
    }
    lc->strict_len +=
        (size_t)snprintf(lc->strict + lc->strict_len, sizeof lc->strict - lc->strict_len, "%s%s",
                         lc->strict_len ? ", " : "", text);
}

static kp_status dup_warn(void *wctx, const char *text) {
    strict_add(wctx, text);
    return KP_OK;
}

static kp_status load_map(kp_dctx *d, const kp_tnode *obj, const char *key, kp__kcfg_map *m,
                          uint8_t origin) {
    const kp_tnode *o;
    kp_status st = kp__dget_obj(d, obj, key, &o);
    if (st != KP_OK) return st;
    if (!o) {
        if (origin == KP__KCFG_CONFIGZ) { /* omitempty: absent in /configz is an empty map */
            kp__kcfg_map_clear(m);
            m->is_set = true;
            m->flag_set = false;
        }
        return KP_OK;
    }
    if (o->type != KP_T_OBJ)
        return kp__dctx_fail(d, o, KP_EINVAL, key, "expected an object (map of signal to string)");
    kp__kcfg_map_clear(m);
    m->is_set = true;
    m->flag_set = false;
    m->origin = origin;
    size_t saved = kp__dctx_push(d, key);
    for (const kp_tnode *c = o->first; c; c = c->next) {
        if (c->type != KP_T_STR) {
            char field[160];
            snprintf(field, sizeof field, "%.*s", (int)c->key_len, c->key);
            return kp__dctx_fail(d, c, KP_EINVAL, field, "expected a string");
        }
        char field[160];
        snprintf(field, sizeof field, "%.*s", (int)c->key_len, c->key);
        if ((st = kp__d_no_nul(d, c, field, c->key, c->key_len)) != KP_OK ||
            (st = kp__d_no_nul(d, c, field, c->s, c->len)) != KP_OK)
            return st;
        st = kp__kcfg_map_put(m, c->key, c->key_len, c->s, c->len, d->err);
        if (st != KP_OK) return st;
    }
    kp__dctx_pop(d, saved);
    return KP_OK;
}

/* kind and apiVersion: the kubelet's decoder (pkg/kubelet/kubeletconfig/util/codec
 * DecodeKubeletConfiguration, a UniversalDecoder) refuses a file without them ("Object 'Kind' is
 * missing", "Object 'apiVersion' is missing") and any version but kubelet.config.k8s.io/v1beta1;
 * /configz content may omit them (older kubelets serve it without), but not contradict them. */
static kp_status check_type(kp_dctx *d, const kp_tnode *obj, bool configz) {
    const char *kind = NULL, *api = NULL;
    bool has_kind = false, has_api = false;
    kp_status st = kp__dget_str(d, obj, "kind", &kind, &has_kind);
    if (st == KP_OK) st = kp__dget_str(d, obj, "apiVersion", &api, &has_api);
    if (st != KP_OK) return st;
    if (has_kind && strcmp(kind, "KubeletConfiguration") != 0)
        return kp__dctx_fail(d, kp__tree_get(obj, "kind"), KP_EINVAL, "kind",
                             "expected KubeletConfiguration, got %s", kind);
    if (has_api && strcmp(api, "kubelet.config.k8s.io/v1beta1") != 0)
        return kp__dctx_fail(d, kp__tree_get(obj, "apiVersion"), KP_EINVAL, "apiVersion",
                             "no kind \"KubeletConfiguration\" is registered for version \"%s\" "
                             "(the kubelet reads kubelet.config.k8s.io/v1beta1)",
                             api);
    if (configz) return KP_OK;
    if (!has_kind)
        return kp__dctx_fail(d, obj, KP_EINVAL, "kind",
                             "missing: the kubelet refuses a config file without kind and "
                             "apiVersion (\"Object 'Kind' is missing\"); add kind: "
                             "KubeletConfiguration");
    if (!has_api)
        return kp__dctx_fail(d, obj, KP_EINVAL, "apiVersion",
                             "missing: the kubelet refuses a config file without apiVersion "
                             "(\"Object 'apiVersion' is missing\"); add apiVersion: "
                             "kubelet.config.k8s.io/v1beta1");
    return KP_OK;
}

static kp_status load_scalars(kp_dctx *d, const kp_tnode *obj, kp_evict_config *c, bool configz) {
    const char *s = NULL;
    bool present;
    kp_status st;
    if ((st = kp__dget_str(d, obj, "evictionPressureTransitionPeriod", &s, &present)) != KP_OK)
        return st;
    if (present) {
        char msg[KP_ERR_MSG_CAP] = "";
        if (kp__go_parse_duration(s, strlen(s), &c->transition_ns, msg, sizeof msg) != KP_OK)
            return kp__dctx_fail(d, kp__tree_get(obj, "evictionPressureTransitionPeriod"),
                                 KP_EINVAL, "evictionPressureTransitionPeriod", "%s", msg);
        if (c->transition_ns == 0 && !configz)
            c->transition_ns = 5 * 60 * KP__NS_PER_SEC; /* SetDefaults */
    }
    int64_t iv;
    if ((st = kp__dget_int(d, obj, "evictionMaxPodGracePeriod", INT32_MIN, INT32_MAX, &iv,
                           &present)) != KP_OK)
        return st;
    if (present) c->max_pod_grace = iv;
    bool bv;
    if ((st = kp__dget_bool(d, obj, "mergeDefaultEvictionSettings", &bv, &present)) != KP_OK)
        return st;
    if (present) c->merge_defaults = bv;
    if ((st = kp__dget_bool(d, obj, "localStorageCapacityIsolation", &bv, &present)) != KP_OK)
        return st;
    if (present) c->local_storage_isolation = bv;
    const kp_tnode *arr;
    if ((st = kp__dget_arr(d, obj, "enforceNodeAllocatable", &arr)) != KP_OK) return st;
    if (arr || configz) { /* omitempty: absent in /configz is an empty list */
        c->enforce_pods = false;
        for (const kp_tnode *e = arr ? arr->first : NULL; e; e = e->next)
            if (e->type == KP_T_STR && e->len == 4 && memcmp(e->s, "pods", 4) == 0)
                c->enforce_pods = true;
    }
    return KP_OK;
}

/* featureGates (map[string]bool): applied as the kubelet's SetFromMap does after loading the
 * file (cmd/kubelet/app/server.go), names checked against the gates kprio knows. */
static kp_status load_gates(kp_dctx *d, const kp_tnode *obj, kp_feature_gates *g) {
    const kp_tnode *m = kp__tree_get(obj, "featureGates");
    if (!m || m->type == KP_T_NULL) return KP_OK;
    if (m->type != KP_T_OBJ)
        return kp__dctx_fail(d, m, KP_EINVAL, "featureGates", "expected a map");
    for (const kp_tnode *e = m->first; e; e = e->next) {
        if (e->type != KP_T_BOOL)
            return kp__dctx_fail(d, e, KP_EINVAL, "featureGates", "%.*s: expected true or false",
                                 (int)(e->key_len > 160 ? 160 : e->key_len), e->key);
        kp_error one;
        kp_error_clear(&one);
        if (kp_feature_gates_set(g, e->key, e->key_len, e->b, &one) != KP_OK)
            return kp__dctx_fail(d, e, KP_EINVAL, "featureGates", "%s", one.msg);
    }
    return KP_OK;
}

/* One document: a KubeletConfiguration, or /configz's {"kubeletconfig": {...}} (the effective
 * configuration after defaults, mergeDefaultEvictionSettings and flags: nothing is merged again,
 * and an omitted map or list is empty). */
static kp_status load_cb(void *vctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    load_ctx *lc = vctx;
    kp_evict_config *c = lc->cfg;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    snprintf(d.object, sizeof d.object, "KubeletConfiguration");
    if (++lc->n_docs > 1)
        return kp__dctx_fail(&d, obj, KP_EINVAL, NULL,
                             "expected one KubeletConfiguration document");
    if (obj->type != KP_T_OBJ) return kp__dctx_fail(&d, obj, KP_EINVAL, NULL, "expected an object");
    /* duplicate keys: an error in YAML; in JSON a strict decoding error, so the kubelet decodes
     * leniently (the last value) and warns */
    bool yaml = kp__d_doc_is_yaml(doc);
    kp_status st = kp__d_dup_keys(&d, (kp_tnode *)obj, yaml, yaml ? NULL : dup_warn, lc);
    if (st != KP_OK) return st;
    const kp_tnode *cfg = obj, *wrap = kp__tree_get(obj, "kubeletconfig");
    bool configz = wrap && obj->n == 1;
    if (configz) {
        if (wrap->type != KP_T_OBJ)
            return kp__dctx_fail(&d, wrap, KP_EINVAL, "kubeletconfig", "expected an object");
        cfg = wrap;
        kp__dctx_push(&d, "kubeletconfig");
    }
    c->configz = configz;
    if ((st = check_type(&d, cfg, configz)) != KP_OK) return st;
    for (const kp_tnode *f = cfg->first; f; f = f->next) /* mirrors strict decoding */
        if (!known_field(f->key, f->key_len)) {
            char one[240];
            snprintf(one, sizeof one, "unknown field \"%.*s\"",
                     (int)(f->key_len > 160 ? 160 : f->key_len), f->key);
            strict_add(lc, one);
        }
    uint8_t origin = configz ? KP__KCFG_CONFIGZ : KP__KCFG_FILE;
    if ((st = load_map(&d, cfg, "evictionHard", &c->hard, origin)) != KP_OK ||
        (st = load_map(&d, cfg, "evictionSoft", &c->soft, origin)) != KP_OK ||
        (st = load_map(&d, cfg, "evictionSoftGracePeriod", &c->grace, origin)) != KP_OK ||
        (st = load_map(&d, cfg, "evictionMinimumReclaim", &c->minreclaim, origin)) != KP_OK ||
        (st = load_scalars(&d, cfg, c, configz)) != KP_OK ||
        (st = load_gates(&d, cfg, &c->gates)) != KP_OK)
        return st;
    /* loadConfigFile (cmd/kubelet/app/server.go): an absent evictionHard keeps
     * DefaultEvictionHard; a present one gets the missing defaults when
     * mergeDefaultEvictionSettings is true. The command line is applied after this. */
    if (!configz && c->hard.origin == KP__KCFG_FILE && c->merge_defaults)
        return kp__kcfg_merge_default_hard(c, err);
    return KP_OK;
}

kp_status kp_evict_config_load_buffer(kp_evict_config *c, const char *source, const char *buf,
                                      size_t len, kp_error *err) {
    load_ctx lc;
    memset(&lc, 0, sizeof lc);
    lc.cfg = c;
    c->finished = false;
    snprintf(c->source, sizeof c->source, "%s", source);
    kp_status st = kp__tree_parse(source, buf, len, false, load_cb, &lc, err);
    /* the kubelet refuses an empty file (configfiles.go: "kubelet config file %q was empty") and
     * one that does not decode into a KubeletConfiguration object (an array, only comments) */
    if (st == KP_OK && len == 0) st = kp_error_set(err, KP_EINVAL, "kubelet config file was empty");
    else if (st == KP_OK && lc.n_docs == 0)
        st =
            kp_error_set(err, KP_EINVAL, "expected a KubeletConfiguration object at the top level");
    if (st == KP_OK && lc.strict_len) { /* DecodeKubeletConfiguration's lenient retry */
        char w[KP_ERR_MSG_CAP + 400];
        if (c->configz) /* no kubelet decodes /configz: a field of another version, or a typo */
            snprintf(w, sizeof w,
                     "%s: KubeletConfiguration: kubeletconfig: not fields of the v1beta1 "
                     "KubeletConfiguration kprio mirrors (ignored): %s",
                     source, lc.strict);
        else
            snprintf(w, sizeof w,
                     "%s: KubeletConfiguration: using lenient decoding as strict decoding failed: "
                     "strict decoding error: %s",
                     source, lc.strict);
        st = kp__kcfg_warn(c, w, err);
    }
    if (st != KP_OK && err && err->source[0] == 0)
        snprintf(err->source, sizeof err->source, "%s", source);
    return st;
}

kp_status kp_evict_config_load_path(kp_evict_config *c, const char *path, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    kp_status st = kp__read_file(path, KP_KUBELET_CONFIG_MAX_BYTES, &buf, &len, err);
    if (st != KP_OK) return st;
    st = kp_evict_config_load_buffer(c, path, buf, len, err);
    kp__free(buf);
    return st;
}
