/* Label selector strings (kprio/selector.h): kubectl's -l syntax (labels.Parse), the errors of a
 * bad one, and matching a pod's labels; the rows follow apimachinery's labels selector_test.go
 * (TestSelectorParse, TestSelectorMatches). */
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/selector.h"

static const char CLUSTER[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default, labels: {app: web, "
    "tier: front}}, spec: {containers: [{name: c}]}}\n";

static bool matches(const kp_cluster *cl, const char *text) {
    kp_selector *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (kp_selector_parse(text, &s, &err) != KP_OK) return false;
    bool m = kp_selector_matches_pod(s, cl, 0);
    kp_selector_free(s);
    return m;
}

KT_TEST(selector_matches_pod_labels) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "t.yaml", CLUSTER, sizeof CLUSTER - 1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK(matches(cl, ""));
    KT_CHECK(matches(cl, "app=web"));
    KT_CHECK(matches(cl, "app==web,tier"));
    KT_CHECK(matches(cl, "app in (db, web),!gone"));
    KT_CHECK(matches(cl, "tier notin (back)"));
    KT_CHECK(matches(cl, "x!=y"));
    KT_CHECK(!matches(cl, "app!=web"));
    KT_CHECK(!matches(cl, "app=web,tier=back"));
    KT_CHECK(!matches(cl, "gone"));
    KT_CHECK(!matches(cl, "!app"));
    kp_cluster_free(cl);
}

KT_TEST(selector_parse_errors) {
    static const struct {
        const char *text, *msg;
    } rows[] = {
        {"app in web", "invalid label selector \"app in web\": expected '(' after in / notin"},
        {"app=web tier=x", "invalid label selector \"app=web tier=x\": expected ',' between "
                           "requirements"},
        {"=web", "invalid label selector \"=web\": expected a key"},
        {"app in (a", "invalid label selector \"app in (a\": expected ')'"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kp_selector *s = (kp_selector *)1;
        kp_error err;
        kp_error_clear(&err);
        KT_CHECK_INT(kp_selector_parse(rows[i].text, &s, &err), KP_EINVAL);
        KT_CHECK(s == NULL);
        KT_CHECK_STR(err.msg, rows[i].msg);
    }
    kp_selector *s = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_selector_parse("a in (x,y),b", &s, &err), KP_OK);
    size_t n = 0;
    const kp_selector_req *r = kp_selector_reqs(s, &n);
    KT_CHECK_INT(n, 2);
    KT_CHECK_STR(r[0].op, "In");
    KT_CHECK_INT(r[0].n_values, 2);
    KT_CHECK_STR(r[1].op, "Exists");
    kp_selector_free(s);
    kp_selector_free(NULL);
}

KT_TEST(time_parse_rfc3339) {
    int64_t t = 0;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_time_parse("2026-11-01T09:00:00Z", &t, &err), KP_OK);
    KT_CHECK_INT(t, 1793523600);
    KT_CHECK_INT(kp_time_parse("2026-11-01T10:00:00.5+01:00", &t, &err), KP_OK);
    KT_CHECK_INT(t, 1793523600);
    KT_CHECK_INT(kp_time_parse("2026-11-01 09:00", &t, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "invalid RFC 3339 time \"2026-11-01 09:00\" (e.g. 2026-11-01T01:00:00Z)");
}

KT_MAIN(KT_CASE(selector_matches_pod_labels), KT_CASE(selector_parse_errors),
        KT_CASE(time_parse_rfc3339))
