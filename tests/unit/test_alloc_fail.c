/* Allocation failures reach the caller: for N = 0, 1, 2, ... the (N+1)th allocation of a load +
 * finalize fails (kp__alloc_fail_after), and every run must end in KP_OK or KP_ENOMEM with a
 * message, never another code or a crash; kp_cluster_free releases everything (LeakSanitizer
 * checks that in the ASan build). A run that survives an injected failure must give the same model
 * as a run without one (same objects, same warnings): a failure absorbed on the way would be a
 * silently different answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "base/alloc.h"
#include "harness.h"
#include "kprio/cluster.h"

typedef kp_status (*scenario)(kp_cluster *cl, kp_error *err);

static char list_path[64];

static kp_status load_yaml(kp_cluster *cl, kp_error *err) {
    kp_status st = kp_cluster_load_path(cl, "examples/cluster.yaml", false, err);
    if (st == KP_OK) st = kp_cluster_load_path(cl, "examples/whatif-critical.yaml", false, err);
    return st;
}

static kp_status load_list_file(kp_cluster *cl, kp_error *err) {
    return kp_cluster_load_path(cl, list_path, false, err);
}

static const char LIST_JSON[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"apiVersion\":\"scheduling.k8s.io/"
    "v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"high\"},\"value\":1000},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"zone\":"
    "\"a\",\"kubernetes.io/hostname\":\"n1\"}},"
    "\"spec\":{\"taints\":[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]},"
    "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\",\"example.com/"
    "gpu\":\"2\"},"
    "\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},\"images\":[{\"names\":["
    "\"nginx:1\"],\"sizeBytes\":1000}],"
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"namespace\":\"a\","
    "\"labels\":{\"app\":\"x\"},"
    "\"ownerReferences\":[{\"apiVersion\":\"apps/"
    "v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs\",\"uid\":\"u\",\"controller\":true}]},"
    "\"spec\":{\"nodeName\":\"n1\",\"priorityClassName\":\"high\",\"containers\":[{\"name\":\"c\","
    "\"image\":\"nginx:1\","
    "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\",\"example.com/"
    "gpu\":\"1\"},\"limits\":{\"memory\":\"2Gi\"}},"
    "\"ports\":[{\"containerPort\":80,\"hostPort\":8080}]}],"
    "\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}],"
    "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{"
    "\"nodeSelectorTerms\":"
    "[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}]}},"
    "\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":{"
    "\"matchLabels\":{\"app\":\"x\"}},"
    "\"topologyKey\":\"zone\"}]}},"
    "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\",\"whenUnsatisfiable\":"
    "\"DoNotSchedule\","
    "\"labelSelector\":{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Exists\"}]}}],"
    "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"1Gi\"}}]},"
    "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":"
    "\"True\"}]}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"namespace\":\"a\"},"
    "\"spec\":{\"containers\":[{\"name\":\"c\"}]}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p2\",\"namespace\":\"a\"},"
    "\"spec\":{\"nodeName\":\"gone\","
    "\"containers\":[{\"name\":\"c\"}]}},"
    "{\"apiVersion\":\"policy/"
    "v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"pdb\",\"namespace\":\"a\"},"
    "\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":{\"app\":\"x\"}}}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\",\"labels\":{"
    "\"team\":\"t\"}}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\",\"namespace\":\"a\"},"
    "\"spec\":{\"selector\":{\"app\":\"x\"}}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":"
    "\"a\"}}"
    "]}";

static kp_status load_list_buffer(kp_cluster *cl, kp_error *err) {
    return kp_cluster_load_buffer(cl, "list.json", LIST_JSON, sizeof LIST_JSON - 1, err);
}

/* Enough distinct strings and objects to take the interner's table and id arrays, the arena and
 * the object arrays through several growth steps, so that failing each of those steps is tried. */
static char *big_list;
static size_t big_len;

static void make_big_list(void) {
    size_t cap = 1 << 20, n = 0;
    big_list = malloc(cap);
    n += (size_t)snprintf(big_list + n, cap - n,
                          "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(
            big_list + n, cap - n,
            "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"},"
            "\"status\":{\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"}}},",
            i);
    for (int i = 0; i < 700; i++)
        n += (size_t)snprintf(
            big_list + n, cap - n,
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"pod-%d\","
            "\"namespace\":\"ns-%d\","
            "\"labels\":{\"app\":\"app-%d\",\"uid\":\"u-%d\"}},\"spec\":{\"nodeName\":\"node-%d\","
            "\"containers\":[{\"name\":\"c-%d\",\"image\":\"img-%d\",\"resources\":{\"requests\":"
            "{\"cpu\":\"%dm\",\"memory\":\"%dMi\"}}}]}}%s",
            i, i % 50, i % 300, i, i % 40, i, i, 10 + i, 20 + i, i + 1 < 700 ? "," : "");
    n += (size_t)snprintf(big_list + n, cap - n, "]}");
    big_len = n;
}

static kp_status load_big_list(kp_cluster *cl, kp_error *err) {
    return kp_cluster_load_buffer(cl, "big.json", big_list, big_len, err);
}

static kp_status load_dir(kp_cluster *cl, kp_error *err) {
    return kp_cluster_load_path(cl, "examples/admit", false, err);
}

typedef struct {
    kp_status st;
    size_t pods, nodes, warnings;
    char msg[KP_ERR_MSG_CAP];
} outcome;

static outcome run(scenario s) {
    outcome o;
    memset(&o, 0, sizeof o);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        o.st = KP_ENOMEM;
        snprintf(o.msg, sizeof o.msg,
                 "kp_cluster_new: NULL"); /* the documented out-of-memory answer */
        return o;
    }
    o.st = s(cl, &err);
    if (o.st == KP_OK) o.st = kp_cluster_finalize(cl, &err);
    o.pods = kp_cluster_pod_count(cl);
    o.nodes = kp_cluster_node_count(cl);
    o.warnings = kp_cluster_warning_count(cl);
    snprintf(o.msg, sizeof o.msg, "%s", err.msg);
    kp_cluster_free(cl);
    return o;
}

/* Runs scenario s with the (n+1)th allocation failing for a spread of n; returns the number of
 * runs. Every value below 300 is tried, then a spread up to the allocation count of a clean run. */
static int sweep(const char *name, scenario s, bool sticky) {
    kp__alloc_fail_after(-1, false);
    unsigned long before = kp__alloc_count();
    outcome clean = run(s);
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK_INT(clean.st, KP_OK);
    if (clean.st != KP_OK) fprintf(stderr, "  %s: clean run failed: %s\n", name, clean.msg);
    int runs = 0;
    /* under valgrind (a run costs 20-50 times more; ASan and the plain pass sweep densely) every
     * N up to 60, then about 300 more */
    unsigned long dense = RUNNING_ON_VALGRIND ? 60 : 300, spread = RUNNING_ON_VALGRIND ? 300 : 1500;
    unsigned long step = total > 2 * spread ? total / spread : 1;
    for (unsigned long n = 0; n < total; n += n < dense ? 1 : step) {
        kp__alloc_fail_after((long)n, sticky);
        outcome o = run(s);
        kp__alloc_fail_after(-1, false);
        runs++;
        if (o.st != KP_OK && o.st != KP_ENOMEM) {
            fprintf(stderr, "  %s: fail after %lu%s: status %s: %s\n", name, n,
                    sticky ? " (sticky)" : "", kp_status_str(o.st), o.msg);
            KT_CHECK(o.st == KP_OK || o.st == KP_ENOMEM);
        } else if (o.st == KP_ENOMEM && !o.msg[0]) {
            fprintf(stderr, "  %s: fail after %lu%s: KP_ENOMEM without a message\n", name, n,
                    sticky ? " (sticky)" : "");
            KT_CHECK(o.msg[0]);
        } else if (o.st == KP_OK && (o.pods != clean.pods || o.nodes != clean.nodes ||
                                     o.warnings != clean.warnings)) {
            fprintf(stderr,
                    "  %s: fail after %lu%s: KP_OK but %zu pods, %zu nodes, %zu warnings (clean: "
                    "%zu, %zu, %zu)\n",
                    name, n, sticky ? " (sticky)" : "", o.pods, o.nodes, o.warnings, clean.pods,
                    clean.nodes, clean.warnings);
            KT_CHECK(!"a failed allocation changed the model");
        }
    }
    return runs;
}

KT_TEST(alloc_fail_yaml) {
    KT_CHECK(sweep("cluster.yaml", load_yaml, false) > 10);
    KT_CHECK(sweep("cluster.yaml", load_yaml, true) > 10);
}

KT_TEST(alloc_fail_json_list_buffer) {
    KT_CHECK(sweep("list buffer", load_list_buffer, false) > 10);
}

KT_TEST(alloc_fail_json_list_file) {
    snprintf(list_path, sizeof list_path, "/tmp/kprio-alloc-fail-XXXXXX");
    int fd = mkstemp(list_path);
    KT_CHECK(fd >= 0);
    if (fd < 0) return;
    KT_CHECK(write(fd, LIST_JSON, sizeof LIST_JSON - 1) == (ssize_t)(sizeof LIST_JSON - 1));
    close(fd);
    KT_CHECK(sweep("list file", load_list_file, false) > 10);
    KT_CHECK(sweep("list file", load_list_file, true) > 10);
    unlink(list_path);
}

KT_TEST(alloc_fail_big_list) {
    make_big_list();
    KT_CHECK(big_len < (1 << 20) - 64);
    KT_CHECK(sweep("big list", load_big_list, false) > 10);
    free(big_list);
}

KT_TEST(alloc_fail_directory) { KT_CHECK(sweep("directory", load_dir, false) > 10); }

KT_MAIN(KT_CASE(alloc_fail_yaml), KT_CASE(alloc_fail_json_list_buffer),
        KT_CASE(alloc_fail_json_list_file), KT_CASE(alloc_fail_big_list),
        KT_CASE(alloc_fail_directory))
