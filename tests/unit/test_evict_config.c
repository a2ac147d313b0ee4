/* Eviction configuration: threshold syntax and errors (helpers_test.go TestParseThresholdConfig,
 * TestParsePercentage), durations, flags, KubeletConfiguration, containerfs derivation
 * (TestUpdateContainerFsThresholds), threshold quantities (api/types_test.go). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/gosyntax.h"
#include "harness.h"
#include "kprio/eviction.h"
#include "kubelet/evict_thresholds.h"

static kp_evict_config *cfg_flags(const char *const *kv, size_t n, kp_error *err) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error_clear(err);
    for (size_t i = 0; i + 1 < n; i += 2)
        if (kp_evict_config_set_flag(c, kv[i], kv[i + 1], err) != KP_OK) {
            kp_evict_config_free(c);
            return NULL;
        }
    if (kp_evict_config_finish(c, err) != KP_OK) {
        kp_evict_config_free(c);
        return NULL;
    }
    return c;
}

/* Error text after finish, "" when it succeeds. */
static const char *finish_error(const char *const *kv, size_t n) {
    static kp_error err;
    kp_evict_config *c = cfg_flags(kv, n, &err);
    if (c) {
        kp_evict_config_free(c);
        return "";
    }
    return err.msg;
}

KT_TEST(defaults_are_linux_kubelet_defaults) {
    kp_error err;
    kp_evict_config *c = cfg_flags(NULL, 0, &err);
    KT_CHECK(c != NULL);
    /* 5 defaults + allocatableMemory.available copy of the hard memory threshold */
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 6);
    kp_evict_threshold_info t = {0};
    KT_CHECK(kp_evict_config_threshold(c, 0) != NULL);
    if (kp_evict_config_threshold(c, 0)) t = *kp_evict_config_threshold(c, 0);
    KT_CHECK_STR(kp_evict_signal_name(t.signal), "memory.available");
    KT_CHECK_STR(t.value, "100Mi");
    KT_CHECK(t.hard);
    KT_CHECK(kp_evict_config_threshold(c, 3) != NULL);
    if (kp_evict_config_threshold(c, 3)) t = *kp_evict_config_threshold(c, 3);
    KT_CHECK_STR(kp_evict_signal_name(t.signal), "imagefs.available");
    KT_CHECK_STR(t.value, "15%");
    KT_CHECK(kp_evict_config_threshold(c, 5) != NULL);
    if (kp_evict_config_threshold(c, 5)) t = *kp_evict_config_threshold(c, 5);
    KT_CHECK_STR(kp_evict_signal_name(t.signal), "allocatableMemory.available");
    KT_CHECK_INT(kp_evict_config_transition_ns(c), INT64_C(300000000000));
    kp_evict_config_free(c);
}

/* R12 "all memory eviction values" */
KT_TEST(all_memory_eviction_values) {
    const char *kv[] = {"eviction-hard",
                        "memory.available<150Mi",
                        "eviction-soft",
                        "memory.available<300Mi",
                        "eviction-soft-grace-period",
                        "memory.available=30s",
                        "eviction-minimum-reclaim",
                        "memory.available=0"};
    kp_error err;
    kp_evict_config *c = cfg_flags(kv, 8, &err);
    KT_CHECK(c != NULL);
    if (!c) return;
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 3);
    kp_evict_threshold_info t = {0};
    KT_CHECK(kp_evict_config_threshold(c, 0) != NULL);
    if (kp_evict_config_threshold(c, 0)) t = *kp_evict_config_threshold(c, 0);
    KT_CHECK_STR(t.value, "150Mi");
    KT_CHECK_STR(t.min_reclaim, "0");
    KT_CHECK(kp_evict_config_threshold(c, 1) != NULL);
    if (kp_evict_config_threshold(c, 1)) t = *kp_evict_config_threshold(c, 1);
    KT_CHECK_STR(t.value, "300Mi");
    KT_CHECK_INT(t.grace_ns, INT64_C(30000000000));
    KT_CHECK(!t.hard);
    KT_CHECK(kp_evict_config_threshold(c, 2) != NULL);
    if (kp_evict_config_threshold(c, 2)) t = *kp_evict_config_threshold(c, 2);
    KT_CHECK_STR(kp_evict_signal_name(t.signal), "allocatableMemory.available");
    KT_CHECK_STR(t.value, "150Mi");
    KT_CHECK_STR(t.min_reclaim, "0");
    kp_evict_config_free(c);
}

KT_TEST(zero_and_hundred_percent_are_ignored) {
    const char *kv[] = {"eviction-hard", "memory.available<0%,nodefs.available<100%",
                        "enforce-node-allocatable", ""};
    kp_error err;
    kp_evict_config *c = cfg_flags(kv, 4, &err);
    KT_CHECK(c != NULL);
    if (c) KT_CHECK_INT(kp_evict_config_threshold_count(c), 0);
    kp_evict_config_free(c);
    const char *kv2[] = {"eviction-hard", "memory.available<0.0%"};
    c = cfg_flags(kv2, 2, &err);
    KT_CHECK(c != NULL); /* "0.0%" is not ignored */
    if (c) KT_CHECK_INT(kp_evict_config_threshold_count(c), 2);
    kp_evict_config_free(c);
}

KT_TEST(threshold_errors_use_upstream_words) {
    const char *a[] = {"eviction-hard", "mem.available<150Mi"};
    KT_CHECK_STR(finish_error(a, 2), "--eviction-hard: unsupported eviction signal mem.available");
    const char *b[] = {"eviction-hard", "memory.available<-150Mi"};
    KT_CHECK_STR(finish_error(b, 2),
                 "--eviction-hard: eviction threshold memory.available must be positive: -150Mi");
    const char *c[] = {"eviction-hard", "memory.available<-15%"};
    KT_CHECK_STR(
        finish_error(c, 2),
        "--eviction-hard: eviction percentage threshold memory.available must be >= 0%: -15%");
    const char *d[] = {"eviction-hard", "memory.available<150%"};
    KT_CHECK_STR(
        finish_error(d, 2),
        "--eviction-hard: eviction percentage threshold memory.available must be <= 100%: 150%");
    const char *e[] = {"eviction-soft", "memory.available<-150Mi", "eviction-soft-grace-period",
                       "memory.available=30s"};
    KT_CHECK_STR(finish_error(e, 4),
                 "--eviction-soft: eviction threshold memory.available must be positive: -150Mi");
    const char *f[] = {"eviction-hard", "memory.available<150Mi,mem.available<150Mi"};
    KT_CHECK_STR(finish_error(f, 2), "--eviction-hard: unsupported eviction signal mem.available");
    const char *g[] = {"eviction-soft", "memory.available<150Mi"};
    KT_CHECK_STR(finish_error(g, 2), "--eviction-soft: grace period must be specified for the soft "
                                     "eviction threshold memory.available");
    const char *h[] = {"eviction-soft", "memory.available<150Mi", "eviction-soft-grace-period",
                       "memory.available=-30s"};
    KT_CHECK_STR(finish_error(h, 4), "--eviction-soft-grace-period: invalid eviction grace period "
                                     "specified: -30s, must be a positive value");
    const char *i[] = {"eviction-minimum-reclaim", "memory.available=-300Mi"};
    KT_CHECK_STR(finish_error(i, 2), "--eviction-minimum-reclaim: negative eviction minimum "
                                     "reclaim specified for memory.available");
    const char *j[] = {"eviction-hard", "memory.available<foo%"};
    KT_CHECK_STR(finish_error(j, 2),
                 "--eviction-hard: strconv.ParseFloat: parsing \"foo\": invalid syntax");
    const char *k[] = {"eviction-hard", "memory.available<blah"};
    KT_CHECK_CONTAINS(finish_error(k, 2), "quantities must match the regular expression");
    const char *l[] = {"eviction-minimum-reclaim", "memory.available=0%"};
    KT_CHECK_STR(finish_error(l, 2), "--eviction-minimum-reclaim: eviction percentage minimum "
                                     "reclaim memory.available must be positive: 0%");
    const char *m[] = {"eviction-hard", "memory.available<NaN%"};
    KT_CHECK_CONTAINS(finish_error(m, 2), "must be a number");
}

KT_TEST(flag_syntax_errors) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK(kp_evict_config_set_flag(c, "eviction-hard", "memory.available=100Mi", &err) != KP_OK);
    KT_CHECK_STR(err.msg, "invalid argument \"memory.available=100Mi\" for \"--eviction-hard\" "
                          "flag: malformed pair, expect string<string");
    KT_CHECK(kp_evict_config_set_flag(c, "eviction-soft-grace-period", "memory.available<1m",
                                      &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "malformed pair, expect string=string");
    KT_CHECK(kp_evict_config_set_flag(c, "eviction-max-pod-grace-period", "ten", &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "strconv.ParseInt: parsing \"ten\": invalid syntax");
    KT_CHECK(kp_evict_config_set_flag(c, "eviction-pressure-transition-period", "5", &err) !=
             KP_OK);
    KT_CHECK_CONTAINS(err.msg, "time: missing unit in duration \"5\"");
    /* later map flags add; keys and values are trimmed; empty items skipped */
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-hard", " memory.available < 1Gi ,,", &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-hard", "nodefs.available<5%", &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_set_flag(c, "enforce-node-allocatable", "", &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(c, &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 2);
    kp_evict_config_free(c);
}

KT_TEST(percentages_are_float32) {
    float p;
    KT_CHECK_INT(kp__ev_parse_percentage("10.5%", 5, &p, NULL), KP_OK);
    KT_CHECK(p == (float)(10.5f / 100.0f));
    KT_CHECK_INT(kp__ev_parse_percentage("25.5%", 5, &p, NULL), KP_OK);
    KT_CHECK(p == 0.255f);
    KT_CHECK(kp__ev_parse_percentage("blah", 4, &p, NULL) != KP_OK);
    KT_CHECK(kp__ev_parse_percentage("12%345", 6, &p, NULL) != KP_OK);
    KT_CHECK(kp__ev_parse_percentage(" 5%", 3, &p, NULL) != KP_OK);
    /* spec 1.3 worked values of GetThresholdQuantity */
    kp__ev_value v = {true, 0, {0, 0, KP_QFMT_DECIMAL_SI}, ""};
    kp__ev_parse_percentage("10%", 3, &v.pct, NULL);
    KT_CHECK_INT(kp__ev_value_amount(&v, INT64_C(1048576000)).whole, 104857601);
    KT_CHECK_INT(kp__ev_value_amount(&v, INT64_C(1073741824)).whole, 107374184);
    KT_CHECK_INT(kp__ev_value_amount(&v, 255816).whole, 25581);
    kp__ev_parse_percentage("15%", 3, &v.pct, NULL);
    KT_CHECK_INT(kp__ev_value_amount(&v, INT64_C(1073741824)).whole, 161061280);
    kp__ev_parse_percentage("10.5%", 5, &v.pct, NULL);
    KT_CHECK_INT(kp__ev_value_amount(&v, INT64_C(21474836480)).whole, INT64_C(2254857760));
    char buf[32];
    kp__ev_threshold_quantity_str(&v, INT64_C(21474836480), buf, sizeof buf);
    KT_CHECK_STR(buf, "2254857760");
}

KT_TEST(go_durations) {
    int64_t ns = -1;
    char msg[KP_ERR_MSG_CAP];
    KT_CHECK_INT(kp__go_parse_duration("1m30s", 5, &ns, msg, sizeof msg), KP_OK);
    KT_CHECK_INT(ns, INT64_C(90000000000));
    KT_CHECK_INT(kp__go_parse_duration("300ms", 5, &ns, msg, sizeof msg), KP_OK);
    KT_CHECK_INT(ns, 300000000);
    KT_CHECK_INT(kp__go_parse_duration("1.5h", 4, &ns, msg, sizeof msg), KP_OK);
    KT_CHECK_INT(ns, INT64_C(5400000000000));
    KT_CHECK_INT(kp__go_parse_duration("0", 1, &ns, msg, sizeof msg), KP_OK);
    KT_CHECK_INT(ns, 0);
    KT_CHECK(kp__go_parse_duration("", 0, &ns, msg, sizeof msg) != KP_OK);
    KT_CHECK_STR(msg, "time: invalid duration \"\"");
    KT_CHECK(kp__go_parse_duration("3x", 2, &ns, msg, sizeof msg) != KP_OK);
    KT_CHECK_STR(msg, "time: unknown unit \"x\" in duration \"3x\"");
    char buf[32];
    kp__go_format_duration(INT64_C(120000000000), buf, sizeof buf);
    KT_CHECK_STR(buf, "2m0s");
    kp__go_format_duration(INT64_C(3723500000000), buf, sizeof buf);
    KT_CHECK_STR(buf, "1h2m3.5s");
    kp__go_format_duration(0, buf, sizeof buf);
    KT_CHECK_STR(buf, "0s");
    kp__go_format_duration(1500000, buf, sizeof buf);
    KT_CHECK_STR(buf, "1.5ms");
}

static const char KUBECONF[] = "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                               "kind: KubeletConfiguration\n"
                               "evictionHard:\n"
                               "  memory.available: \"200Mi\"\n"
                               "evictionSoft:\n"
                               "  nodefs.available: \"15%\"\n"
                               "evictionSoftGracePeriod:\n"
                               "  nodefs.available: \"1m\"\n"
                               "evictionMinimumReclaim:\n"
                               "  nodefs.available: \"1Gi\"\n"
                               "evictionPressureTransitionPeriod: \"30s\"\n"
                               "evictionMaxPodGracePeriod: 20\n"
                               "enforceNodeAllocatable: [\"pods\"]\n";

KT_TEST(kubelet_configuration) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_evict_config_load_buffer(c, "kubelet.yaml", KUBECONF, strlen(KUBECONF), &err),
                 KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(c, &err), KP_OK);
    /* a set evictionHard drops the other defaults */
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 3);
    KT_CHECK_INT(kp_evict_config_transition_ns(c), INT64_C(30000000000));
    KT_CHECK_INT(kp_evict_config_max_pod_grace(c), 20);
    kp_evict_threshold_info t = {0};
    KT_CHECK(kp_evict_config_threshold(c, 1) != NULL);
    if (kp_evict_config_threshold(c, 1)) t = *kp_evict_config_threshold(c, 1);
    KT_CHECK_STR(t.min_reclaim, "1Gi");
    /* flags override the file */
    KT_CHECK_INT(kp_evict_config_set_flag(c, "eviction-hard", "pid.available<100", &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(c, &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 2);
    kp_evict_config_free(c);

    static const char merge[] = "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                                "kind: KubeletConfiguration\nmergeDefaultEvictionSettings: true\n"
                                "evictionHard:\n  memory.available: \"1Gi\"\n";
    c = kp_evict_config_new();
    KT_CHECK_INT(kp_evict_config_load_buffer(c, "k.yaml", merge, strlen(merge), &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_finish(c, &err), KP_OK);
    KT_CHECK_INT(kp_evict_config_threshold_count(c), 6);
    KT_CHECK(kp_evict_config_threshold(c, 0) != NULL);
    if (kp_evict_config_threshold(c, 0)) t = *kp_evict_config_threshold(c, 0);
    KT_CHECK_STR(t.value, "1Gi");
    kp_evict_config_free(c);

    static const char bad[] =
        "apiVersion: kubelet.config.k8s.io/v1beta1\n"
        "kind: KubeletConfiguration\nevictionHard:\n  mem.available: \"1Gi\"\n";
    c = kp_evict_config_new();
    KT_CHECK_INT(kp_evict_config_load_buffer(c, "k.yaml", bad, strlen(bad), &err), KP_OK);
    KT_CHECK(kp_evict_config_finish(c, &err) != KP_OK);
    KT_CHECK_STR(err.source, "k.yaml");
    KT_CHECK_STR(err.msg,
                 "KubeletConfiguration: evictionHard: unsupported eviction signal mem.available");
    kp_evict_config_free(c);

    static const char wrong_kind[] = "kind: Pod\n";
    c = kp_evict_config_new();
    KT_CHECK(kp_evict_config_load_buffer(c, "k.yaml", wrong_kind, strlen(wrong_kind), &err) !=
             KP_OK);
    KT_CHECK_CONTAINS(err.msg, "expected KubeletConfiguration");
    kp_evict_config_free(c);
}

static kp__ev_threshold mk(kp_evict_signal s, const char *q, int64_t grace) {
    kp__ev_threshold t;
    memset(&t, 0, sizeof t);
    t.signal = s;
    t.has_op = true;
    t.grace_ns = grace;
    kp_quantity_parse(q, strlen(q), &t.value.q, NULL);
    snprintf(t.value_text, sizeof t.value_text, "%s", q);
    return t;
}

/* TestUpdateContainerFsThresholds: containerfs copies nodefs (single fs or split) or imagefs */
KT_TEST(containerfs_thresholds) {
    for (int layout = 0; layout < 3; layout++) {
        uint32_t n = 4;
        kp__ev_threshold *th = malloc(n * sizeof *th);
        th[0] = mk(KP_EVSIG_NODEFS_AVAILABLE, "1Gi", 0);
        th[1] = mk(KP_EVSIG_IMAGEFS_AVAILABLE, "2Gi", 0);
        th[2] = mk(KP_EVSIG_NODEFS_AVAILABLE, "3Gi", 60);
        th[3] = mk(KP_EVSIG_CONTAINERFS_AVAILABLE, "9Gi", 0); /* user value: overwritten */
        bool replaced[8] = {false};
        bool imagefs = layout > 0, split = layout == 2;
        KT_CHECK_INT(kp__ev_update_containerfs(&th, &n, imagefs, split, 4, replaced, NULL, 8),
                     KP_OK);
        KT_CHECK_INT(n, 7);
        KT_CHECK(replaced[3]);
        KT_CHECK_INT(th[3].signal, KP_EVSIG_CONTAINERFS_AVAILABLE);
        KT_CHECK_STR(th[3].value_text, layout == 1 ? "2Gi" : "1Gi");
        /* soft containerfs.available */
        KT_CHECK_INT(th[4].signal, KP_EVSIG_CONTAINERFS_AVAILABLE);
        KT_CHECK(layout == 1 ? !th[4].has_op : (th[4].has_op && th[4].grace_ns == 60));
        /* inodes copies of absent thresholds are never met */
        KT_CHECK_INT(th[5].signal, KP_EVSIG_CONTAINERFS_INODES_FREE);
        KT_CHECK(!th[5].has_op);
        free(th);
    }
}

KT_TEST(reclaimable_spec) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_evict_config_set_reclaimable(c, "nodefs.available=15Gi", &err), KP_OK);
    KT_CHECK(kp_evict_config_set_reclaimable(c, "memory.available=1Gi", &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "no node-level reclaim");
    KT_CHECK(kp_evict_config_set_reclaimable(c, "nodefs.available", &err) != KP_OK);
    kp_evict_config_free(c);
}

/* Quantity.Add as the eviction messages use it (kp_quantity_add): exact, scales aligned down,
 * zero operands, and KP_ERANGE where upstream would switch to inf.Dec. */
KT_TEST(quantity_add) {
    kp_quantity a, b;
    char buf[KP_QUANTITY_STR_MAX];
    KT_CHECK_INT(kp_quantity_parse("1Gi", 3, &a, NULL), KP_OK);
    KT_CHECK_INT(kp_quantity_parse("500Mi", 5, &b, NULL), KP_OK);
    KT_CHECK_INT(kp_quantity_add(&a, &b), KP_OK);
    snprintf(buf, sizeof buf, "%s", kp_quantity_string(&a).s);
    KT_CHECK_STR(buf, "1524Mi");
    KT_CHECK_INT(kp_quantity_parse("1500m", 5, &a, NULL), KP_OK);
    KT_CHECK_INT(kp_quantity_parse("2", 1, &b, NULL), KP_OK);
    KT_CHECK_INT(kp_quantity_add(&a, &b), KP_OK);
    snprintf(buf, sizeof buf, "%s", kp_quantity_string(&a).s);
    KT_CHECK_STR(buf, "3500m");
    a = kp_quantity_from_int(0, KP_QFMT_DECIMAL_SI);
    KT_CHECK_INT(kp_quantity_add(&a, &b), KP_OK);
    KT_CHECK_INT(a.mant, b.mant);
    KT_CHECK_INT(a.scale, b.scale);
    a = kp_quantity_from_int(INT64_MAX, KP_QFMT_DECIMAL_SI);
    KT_CHECK_INT(kp_quantity_add(&a, &b), KP_ERANGE);
    KT_CHECK_INT(a.mant, INT64_MAX);
}

/* Loads text as a KubeletConfiguration, applies the flags (name, value pairs) and finishes. */
static kp_evict_config *load_with_flags(const char *text, const char *const *flags, size_t n,
                                        kp_error *err) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error_clear(err);
    if (text && kp_evict_config_load_buffer(c, "k.yaml", text, strlen(text), err) != KP_OK) {
        kp_evict_config_free(c);
        return NULL;
    }
    for (size_t i = 0; i + 1 < n; i += 2)
        if (kp_evict_config_set_flag(c, flags[i], flags[i + 1], err) != KP_OK) {
            kp_evict_config_free(c);
            return NULL;
        }
    if (kp_evict_config_finish(c, err) != KP_OK) {
        kp_evict_config_free(c);
        return NULL;
    }
    return c;
}

/* "signal<value [origin]" for every threshold, joined by "; " */
static void threshold_list(const kp_evict_config *c, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < kp_evict_config_threshold_count(c) && n < cap; i++) {
        const kp_evict_threshold_info *t = kp_evict_config_threshold(c, i);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s<%s [%s]", i ? "; " : "",
                              kp_evict_signal_name(t->signal), t->value, t->origin);
    }
}

#define KCFG_HEAD "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"

/* issue 18 item 6: cmd/kubelet/app/server.go loads the file (loadConfigFile merges the missing
 * default evictionHard signals when mergeDefaultEvictionSettings is true), then re-parses the
 * command line over it (kubeletConfigFlagPrecedence): a map flag replaces the whole map, merged
 * defaults included (MapStringString.Set on an uninitialized map clears it). */
KT_TEST(kubelet_flags_replace_files_merge) {
    kp_error err;
    char buf[1024];
    static const char merge[] = KCFG_HEAD "mergeDefaultEvictionSettings: true\n"
                                          "evictionHard:\n  memory.available: \"1Gi\"\n";
    /* the file alone: its entry, then the merged defaults, then the allocatable copy */
    kp_evict_config *c = load_with_flags(merge, NULL, 0, &err);
    KT_CHECK(c != NULL);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf, "memory.available<1Gi [config file]; "
                      "nodefs.available<10% [default, merged into the config file's map]; "
                      "nodefs.inodesFree<5% [default, merged into the config file's map]; "
                      "imagefs.available<15% [default, merged into the config file's map]; "
                      "imagefs.inodesFree<5% [default, merged into the config file's map]; "
                      "allocatableMemory.available<1Gi [copy of hard memory.available "
                      "(enforceNodeAllocatable: pods)]");
    kp_evict_config_free(c);
    /* --eviction-hard replaces the merged map: no default comes back */
    static const char *const hard[] = {"eviction-hard", "nodefs.available<5Gi"};
    c = load_with_flags(merge, hard, 2, &err);
    KT_CHECK(c != NULL);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf, "nodefs.available<5Gi [--eviction-hard]");
    kp_evict_config_free(c);
    /* two uses: the first replaces, the second adds */
    static const char *const twice[] = {"eviction-hard", "nodefs.available<5Gi", "eviction-hard",
                                        "pid.available<100"};
    c = load_with_flags(merge, twice, 4, &err);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf,
                 "nodefs.available<5Gi [--eviction-hard]; pid.available<100 [--eviction-hard]");
    kp_evict_config_free(c);
    /* a soft flag leaves the merged hard map alone */
    static const char *const soft[] = {"eviction-soft", "memory.available<2Gi",
                                       "eviction-soft-grace-period", "memory.available=1m"};
    c = load_with_flags(merge, soft, 4, &err);
    KT_CHECK_INT(c ? kp_evict_config_threshold_count(c) : 0, 7);
    if (c && kp_evict_config_threshold(c, 5))
        KT_CHECK_STR(kp_evict_config_threshold(c, 5)->origin, "--eviction-soft");
    kp_evict_config_free(c);
    /* no file: the flag replaces the built-in defaults */
    c = load_with_flags(NULL, hard, 2, &err);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf, "nodefs.available<5Gi [--eviction-hard]");
    kp_evict_config_free(c);
    /* a file without evictionHard keeps the defaults; without the merge switch nothing merges */
    c = load_with_flags(KCFG_HEAD "evictionMaxPodGracePeriod: 5\n", NULL, 0, &err);
    KT_CHECK_INT(c ? kp_evict_config_threshold_count(c) : 0, 6);
    if (c && kp_evict_config_threshold(c, 0))
        KT_CHECK_STR(kp_evict_config_threshold(c, 0)->origin, "default");
    kp_evict_config_free(c);
    c = load_with_flags(KCFG_HEAD "evictionHard:\n  memory.available: \"1Gi\"\n", NULL, 0, &err);
    KT_CHECK_INT(c ? kp_evict_config_threshold_count(c) : 0, 2);
    kp_evict_config_free(c);
}

/* issue 10 item 3: what `kubectl get --raw /api/v1/nodes/N/proxy/configz` prints */
KT_TEST(kubelet_configz_document) {
    kp_error err;
    char buf[1024];
    /* a real kubelet's shape (no kind/apiVersion in older kubelets); the map is the effective
     * one: mergeDefaultEvictionSettings is not applied again */
    static const char cz[] =
        "{\"kubeletconfig\":{\"enableServer\":true,\"staticPodPath\":\"/etc/kubernetes/manifests\","
        "\"evictionHard\":{\"memory.available\":\"200Mi\",\"nodefs.available\":\"10%\"},"
        "\"evictionPressureTransitionPeriod\":\"1m0s\",\"mergeDefaultEvictionSettings\":true,"
        "\"enforceNodeAllocatable\":[\"pods\"],\"localStorageCapacityIsolation\":true}}";
    kp_evict_config *c = load_with_flags(cz, NULL, 0, &err);
    KT_CHECK(c != NULL);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf, "memory.available<200Mi [configz]; nodefs.available<10% [configz]; "
                      "allocatableMemory.available<200Mi [copy of hard memory.available "
                      "(enforceNodeAllocatable: pods)]");
    KT_CHECK_INT(c ? kp_evict_config_transition_ns(c) : 0, INT64_C(60000000000));
    KT_CHECK_INT(c ? kp_evict_config_warning_count(c) : 1, 0);
    kp_evict_config_free(c);
    /* omitempty: no evictionHard in /configz means an empty map, no enforceNodeAllocatable none */
    c = load_with_flags("{\"kubeletconfig\":{\"kind\":\"KubeletConfiguration\",\"apiVersion\":"
                        "\"kubelet.config.k8s.io/v1beta1\",\"evictionSoft\":{\"memory.available\":"
                        "\"1Gi\"},\"evictionSoftGracePeriod\":{\"memory.available\":\"30s\"}}}",
                        NULL, 0, &err);
    if (c) threshold_list(c, buf, sizeof buf);
    KT_CHECK_STR(buf, "memory.available<1Gi [configz]");
    kp_evict_config_free(c);
    /* a field this line does not have (a newer kubelet's): warned about, not a decode error */
    c = load_with_flags("{\"kubeletconfig\":{\"evictionHard\":{\"memory.available\":\"1Gi\"},"
                        "\"someFutureField\":true}}",
                        NULL, 0, &err);
    KT_CHECK_INT(c ? kp_evict_config_warning_count(c) : 0, 1);
    if (c && kp_evict_config_warning(c, 0))
        KT_CHECK_STR(kp_evict_config_warning(c, 0),
                     "k.yaml: KubeletConfiguration: kubeletconfig: not fields of the v1beta1 "
                     "KubeletConfiguration kprio mirrors (ignored): unknown field "
                     "\"someFutureField\"");
    kp_evict_config_free(c);
    /* a wrong kind inside is still an error, naming the path */
    c = load_with_flags("{\"kubeletconfig\":{\"kind\":\"Pod\"}}", NULL, 0, &err);
    KT_CHECK(c == NULL);
    KT_CHECK_CONTAINS(err.msg, "kubeletconfig.kind: expected KubeletConfiguration, got Pod");
}

/* issue 10 item 3: the kubelet's loader (DecodeKubeletConfiguration): kind and apiVersion are
 * required; unknown (and, in JSON, duplicate) fields are strict decoding errors, after which it
 * decodes leniently and logs "Using lenient decoding as strict decoding failed" */
KT_TEST(kubelet_config_strict_decoding) {
    kp_error err;
    kp_evict_config *c =
        load_with_flags("evictionHard:\n  memory.available: \"1Gi\"\n", NULL, 0, &err);
    KT_CHECK(c == NULL);
    KT_CHECK_STR(err.source, "k.yaml");
    KT_CHECK_CONTAINS(err.msg, "KubeletConfiguration: kind: missing");
    c = load_with_flags("kind: KubeletConfiguration\n", NULL, 0, &err);
    KT_CHECK(c == NULL);
    KT_CHECK_CONTAINS(err.msg, "KubeletConfiguration: apiVersion: missing");
    c = load_with_flags("apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n", NULL,
                        0, &err);
    KT_CHECK(c == NULL);
    KT_CHECK_CONTAINS(err.msg, "no kind \"KubeletConfiguration\" is registered for version "
                               "\"kubelet.config.k8s.io/v1\"");
    /* a typo: warned about, and the defaults stay (the kubelet ignores the field) */
    c = load_with_flags(KCFG_HEAD "evictonHard:\n  memory.available: \"1Gi\"\nmaxPods: 110\n", NULL,
                        0, &err);
    KT_CHECK(c != NULL);
    KT_CHECK_INT(c ? kp_evict_config_warning_count(c) : 0, 1);
    if (c && kp_evict_config_warning(c, 0))
        KT_CHECK_STR(kp_evict_config_warning(c, 0),
                     "k.yaml: KubeletConfiguration: using lenient decoding as strict decoding "
                     "failed: strict decoding error: unknown field \"evictonHard\"");
    KT_CHECK_INT(c ? kp_evict_config_threshold_count(c) : 0, 6);
    kp_evict_config_free(c);
    /* JSON: a duplicate field too; the last value is used */
    c = load_with_flags("{\"apiVersion\":\"kubelet.config.k8s.io/v1beta1\",\"kind\":"
                        "\"KubeletConfiguration\",\"evictionHard\":{\"memory.available\":\"1Gi\"},"
                        "\"evictionHard\":{\"memory.available\":\"2Gi\"}}",
                        NULL, 0, &err);
    KT_CHECK_INT(c ? kp_evict_config_warning_count(c) : 0, 1);
    if (c && kp_evict_config_warning(c, 0))
        KT_CHECK_CONTAINS(kp_evict_config_warning(c, 0), "duplicate key \"evictionHard\"");
    if (c && kp_evict_config_threshold(c, 0))
        KT_CHECK_STR(kp_evict_config_threshold(c, 0)->value, "2Gi");
    kp_evict_config_free(c);
}

KT_MAIN(KT_CASE(defaults_are_linux_kubelet_defaults), KT_CASE(all_memory_eviction_values),
        KT_CASE(zero_and_hundred_percent_are_ignored), KT_CASE(threshold_errors_use_upstream_words),
        KT_CASE(flag_syntax_errors), KT_CASE(percentages_are_float32), KT_CASE(go_durations),
        KT_CASE(kubelet_configuration), KT_CASE(containerfs_thresholds), KT_CASE(reclaimable_spec),
        KT_CASE(quantity_add), KT_CASE(kubelet_flags_replace_files_merge),
        KT_CASE(kubelet_configz_document), KT_CASE(kubelet_config_strict_decoding))
