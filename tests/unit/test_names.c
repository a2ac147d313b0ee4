/* Issue 30 item 5: object names are validated at load as the API server validates them per kind
 * (DNS-1123 subdomain for most kinds, label for Namespaces, Services and StatefulSets, a path
 * segment for PodDisruptionBudgets, at most 52 characters for CronJobs; metadata.namespace a
 * label), with a one-line error naming the object and field; table cells are escaped as errors
 * are (a PDB's name may hold control characters: a path segment allows them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "render/emit.h"

/* loads one object of kind with that name (and namespace, NULL: none): the status, err filled */
static kp_status load_one(const char *kind, const char *api, const char *name, const char *ns,
                          kp_error *err) {
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"apiVersion\": \"%s\", \"kind\": \"%s\", \"metadata\": {\"name\": \"%s\"%s%s%s}}",
             api, kind, name, ns ? ", \"namespace\": \"" : "", ns ? ns : "", ns ? "\"" : "");
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    kp_status st = kp_cluster_load_buffer(cl, "in.json", doc, strlen(doc), err);
    kp_cluster_free(cl);
    return st;
}

/* the name passes (the object may fail later for its other fields) */
static void ok(const char *kind, const char *api, const char *name) {
    kp_error e;
    kp_status st = load_one(kind, api, name, NULL, &e);
    if (st != KP_OK && strstr(e.msg, "metadata.name")) fprintf(stderr, "  %s\n", e.msg);
    KT_CHECK(st == KP_OK || !strstr(e.msg, "metadata.name"));
}

static void bad(const char *kind, const char *api, const char *name, const char *want) {
    kp_error e;
    KT_CHECK_INT(load_one(kind, api, name, NULL, &e), KP_EINVAL);
    KT_CHECK_CONTAINS(e.msg, "metadata.name: Invalid value: \"");
    KT_CHECK_CONTAINS(e.msg, want);
    KT_CHECK(!strchr(e.msg, '\n') || strstr(name, "\n")); /* one line unless the name has one */
}

static const char *SUB = "a lowercase RFC 1123 subdomain must consist of";
static const char *LABEL = "a lowercase RFC 1123 label must consist of";

KT_TEST(subdomain_kinds) {
    static const char *const K[][2] = {{"Pod", "v1"},
                                       {"Node", "v1"},
                                       {"PriorityClass", "scheduling.k8s.io/v1"},
                                       {"ReplicaSet", "apps/v1"},
                                       {"Deployment", "apps/v1"},
                                       {"DaemonSet", "apps/v1"},
                                       {"Job", "batch/v1"},
                                       {"ReplicationController", "v1"}};
    char long253[254], long254[255];
    memset(long253, 'a', 253), long253[253] = 0;
    memset(long254, 'a', 254), long254[254] = 0;
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        ok(K[i][0], K[i][1], "web-1.example");
        ok(K[i][0], K[i][1], long253);
        bad(K[i][0], K[i][1], "Web", SUB);
        bad(K[i][0], K[i][1], "..", SUB);
        bad(K[i][0], K[i][1], "a_b", SUB);
        bad(K[i][0], K[i][1], "a\\u001b[2Jb", SUB); /* JSON-escaped ESC */
        bad(K[i][0], K[i][1], "-a", SUB);
        bad(K[i][0], K[i][1], long254, "must be no more than 253 characters");
    }
}

KT_TEST(label_kinds) {
    static const char *const K[][2] = {
        {"Namespace", "v1"}, {"Service", "v1"}, {"StatefulSet", "apps/v1"}};
    char long64[65];
    memset(long64, 'a', 64), long64[64] = 0;
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        ok(K[i][0], K[i][1], "web-1");
        ok(K[i][0], K[i][1], "1web"); /* a label may start with a digit (RFC 1123) */
        bad(K[i][0], K[i][1], "web.1", LABEL);
        bad(K[i][0], K[i][1], long64, "must be no more than 63 characters");
    }
}

KT_TEST(pdb_path_segment_and_cronjob) {
    ok("PodDisruptionBudget", "policy/v1", "Web_Budget");
    bad("PodDisruptionBudget", "policy/v1", "..", "may not be '..'");
    bad("PodDisruptionBudget", "policy/v1", "a/b", "may not contain '/'");
    bad("PodDisruptionBudget", "policy/v1", "a%b", "may not contain '%'");
    char c52[53], c53[54];
    memset(c52, 'c', 52), c52[52] = 0;
    memset(c53, 'c', 53), c53[53] = 0;
    ok("CronJob", "batch/v1", c52);
    bad("CronJob", "batch/v1", c53, "must be no more than 52 characters");
}

KT_TEST(namespace_field_is_a_label) {
    kp_error e;
    KT_CHECK_INT(load_one("Pod", "v1", "web", "Shop", &e), KP_EINVAL);
    KT_CHECK_CONTAINS(e.msg, "metadata.namespace: Invalid value: \"Shop\": ");
    KT_CHECK_CONTAINS(e.msg, LABEL);
    load_one("Pod", "v1", "web", "shop-1", &e);
    KT_CHECK(!strstr(e.msg, "metadata.namespace"));
}

/* a table cell prints as one line: control characters escaped as errors escape them */
KT_TEST(table_cells_escaped) {
    kp_table *t = kp_table_new(2);
    kp_table_add(t, "NAME");
    kp_table_add(t, "X");
    kp_table_add(t, "pdb\x1b]0;owned\x07\nkprio: fake");
    kp_table_addf(t, "%s", "a\tb\xc2\x85 é");
    FILE *f = tmpfile();
    KT_CHECK(f != NULL);
    if (!f) return;
    KT_CHECK_INT(kp_table_print(t, f), KP_OK);
    kp_table_free(t);
    char buf[512] = {0};
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    KT_CHECK_STR(buf, "NAME                               X\n"
                      "pdb\\x1b]0;owned\\x07\\nkprio: fake   a\\tb\\u0085 é\n");
}

KT_MAIN(KT_CASE(subdomain_kinds), KT_CASE(label_kinds), KT_CASE(pdb_path_segment_and_cronjob),
        KT_CASE(namespace_field_is_a_label), KT_CASE(table_cells_escaped))
