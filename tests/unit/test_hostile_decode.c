/* Hostile and broken input at the decoders (issue 17 items 7, 12, 13, 17): invalid JSON outside a
 * List's items, NUL inside strings, empty or array kubelet configurations, negative quantities. */
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "harness.h"
#include "io/dctx.h"
#include "io/events.h"
#include "io/tree.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"

static kp_cluster *load_n(const char *text, size_t len, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.json", text, len, err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static bool load_fails_n(const char *text, size_t len, kp_error *err) {
    kp_cluster *cl = load_n(text, len, err);
    kp_cluster_free(cl);
    return cl == NULL;
}

static bool load_fails(const char *text, kp_error *err) {
    return load_fails_n(text, strlen(text), err);
}

#define PODJ "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\"spec\":{}}"
#define LIST_HEAD "{\"kind\":\"List\",\"apiVersion\":\"v1\","

/* item 7: every member of a List outside items is validated, before or after items */
KT_TEST(list_members_outside_items_are_validated) {
    kp_error err;
    KT_CHECK(!load_fails(LIST_HEAD "\"items\":[" PODJ "],\"metadata\":{\"x\":[1,2]}}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"metadata\":garbage}", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK(load_fails(LIST_HEAD "\"metadata\":garbage,\"items\":[" PODJ "]}", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"x\":tru}", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK_CONTAINS(err.msg, "line 1, column ");
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"x\":1.}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"a\":1,,,}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"x\":{\"a\":1,,,},\"items\":[" PODJ "]}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"x\":\"\xff\xfe\"}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"x\":\"\xc3\",\"items\":[" PODJ "]}", &err));
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"x\":[1 2]}", &err));
}

/* item 11: only List kinds (or a document with items and no kind) are split; a Pod with an
 * items field is that Pod, wherever its kind is written */
static long pod_count(const char *text) {
    kp_error err;
    kp_cluster *cl = load_n(text, strlen(text), &err);
    long n = cl ? (long)kp_cluster_pod_count(cl) : -1;
    kp_cluster_free(cl);
    return n;
}

#define ITEMPOD \
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"inner\"},\"spec\":{}}"
KT_TEST(only_list_kinds_are_split) {
    kp_error err;
    /* kind before items */
    kp_cluster *cl =
        load_n("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"outer\"},"
               "\"items\":[" ITEMPOD "],\"spec\":{}}",
               strlen("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"outer\"},"
                      "\"items\":[" ITEMPOD "],\"spec\":{}}"),
               &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
        KT_CHECK(kp_cluster_find_pod(cl, "outer") >= 0);
        kp_cluster_free(cl);
    }
    /* kind after items (kubectl's alphabetical order), with arrays among the last members */
    const char *after =
        "{\"apiVersion\":\"v1\",\"items\":[" ITEMPOD "],\"kind\":\"Pod\","
        "\"metadata\":{\"name\":\"outer\"},\"spec\":{\"tolerations\":[]},\"z\":[1,[2]]}";
    cl = load_n(after, strlen(after), &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
        KT_CHECK(kp_cluster_find_pod(cl, "outer") >= 0);
        kp_cluster_free(cl);
    }
    /* Lists are still split: List, typed lists (kind after items: the items' kind), no kind */
    KT_CHECK_INT(pod_count("{\"apiVersion\":\"v1\",\"items\":[" ITEMPOD "],\"kind\":\"List\","
                           "\"metadata\":{\"resourceVersion\":\"\"}}"),
                 1);
    KT_CHECK_INT(pod_count("{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"p\"},"
                           "\"spec\":{}}],\"kind\":\"PodList\",\"metadata\":{}}"),
                 1);
    KT_CHECK_INT(pod_count("{\"items\":[" ITEMPOD "," ITEMPOD "]}"), 1);
    KT_CHECK_INT(pod_count("{\"kind\":\"List\",\"items\":[" ITEMPOD "]}"), 1);
    /* a Pod kind with a non-List items: the Pod's own decoder reads it */
    KT_CHECK(
        pod_count("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"o\"},\"items\":[1],\"spec\":{}}") ==
        1);
}

/* item 8: duplicate keys. JSON: the last value wins (Go's encoding/json) with a warning naming
 * the path and key; YAML: go-yaml's error "line N: key "x" already set in map". */
typedef struct {
    char warnings[8][256];
    int n_warn;
    int64_t priority;
    const char *cpu, *label, *name;
    uint32_t n_spec;
} dup_result;

static kp_status dup_warn(void *wctx, const char *text) {
    dup_result *r = wctx;
    if (r->n_warn < 8) snprintf(r->warnings[r->n_warn], sizeof r->warnings[0], "%s", text);
    r->n_warn++;
    return KP_OK;
}

static kp_status dup_cb(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    dup_result *r = ctx;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    kp_status st = kp__d_dup_keys(&d, (kp_tnode *)obj, kp__d_doc_is_yaml(doc), dup_warn, r);
    if (st != KP_OK) return st;
    const kp_tnode *spec = kp__tree_get(obj, "spec");
    r->n_spec = spec ? spec->n : 0;
    const kp_tnode *p = kp__tree_path(obj, "spec.priority");
    r->priority = p && p->s ? atoll(p->s) : -1;
    const kp_tnode *c = kp__tree_path(obj, "metadata.name");
    r->name = c ? c->s : NULL;
    const kp_tnode *l = kp__tree_path(obj, "metadata.labels");
    r->label = l && l->first ? l->first->s : NULL;
    r->cpu = NULL;
    if (r->label) r->label = strcmp(r->label, "2") == 0 ? "2" : "other";
    if (r->name) r->name = strcmp(r->name, "b") == 0 ? "b" : "other";
    return KP_OK;
}

static kp_status dup_parse(const char *text, dup_result *r, kp_error *err) {
    size_t len = strlen(text);
    char *buf = calloc(1, len + KP_JSON_PADDING);
    memcpy(buf, text, len);
    memset(r, 0, sizeof *r);
    kp_error_clear(err);
    kp_status st = kp__tree_parse("in", buf, len, true, dup_cb, r, err);
    free(buf);
    return st;
}

KT_TEST(duplicate_keys_json_last_wins_yaml_error) {
    kp_error err;
    dup_result r;
    KT_CHECK_INT(dup_parse("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\",\"name\":\"b\","
                           "\"labels\":{\"x\":\"1\",\"x\":\"2\"}},\"spec\":{\"priority\":1,"
                           "\"priority\":2000000000}}",
                           &r, &err),
                 KP_OK);
    KT_CHECK_INT(r.priority, 2000000000);
    KT_CHECK_INT(r.n_spec, 1);
    KT_CHECK(r.name && strcmp(r.name, "b") == 0);
    KT_CHECK(r.label && strcmp(r.label, "2") == 0);
    KT_CHECK_INT(r.n_warn, 3);
    KT_CHECK_STR(r.warnings[0], "metadata: duplicate key \"name\": the last value is used");
    KT_CHECK_STR(r.warnings[1], "metadata.labels: duplicate key \"x\": the last value is used");
    KT_CHECK_STR(r.warnings[2], "spec: duplicate key \"priority\": the last value is used");
    /* three times, and a map large enough for the hash table */
    char big[8192];
    size_t n = (size_t)snprintf(big, sizeof big, "{\"kind\":\"Pod\",\"spec\":{");
    for (int i = 0; i < 40; i++) n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\":1,", i);
    snprintf(big + n, sizeof big - n, "\"priority\":1,\"priority\":2,\"priority\":7}}");
    KT_CHECK_INT(dup_parse(big, &r, &err), KP_OK);
    KT_CHECK_INT(r.priority, 7);
    KT_CHECK_INT(r.n_spec, 41);
    KT_CHECK_INT(r.n_warn, 2);
    /* YAML: an error with the line of the second key */
    KT_CHECK(dup_parse("kind: Pod\nmetadata: {name: a}\nspec:\n  priority: 1\n  priority: 2\n", &r,
                       &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "spec: line 5: key \"priority\" already set in map");
    KT_CHECK(dup_parse("kind: Pod\nkind: Pod\n", &r, &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "line 2: key \"kind\" already set in map");
    KT_CHECK(dup_parse("kind: Pod\nmetadata:\n  labels: {a: b, a: c}\n", &r, &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "metadata.labels: line 3: key \"a\" already set in map");
    /* a kubelet configuration in YAML */
    kp_evict_config *c = kp_evict_config_new();
    const char *k = "kind: KubeletConfiguration\nevictionHard:\n  memory.available: 1Gi\n"
                    "  memory.available: 100Mi\n";
    kp_error_clear(&err);
    KT_CHECK(kp_evict_config_load_buffer(c, "k.yaml", k, strlen(k), &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "evictionHard: line 4: key \"memory.available\" already set in map");
    kp_evict_config_free(c);
    /* a JSON List with two items arrays */
    KT_CHECK(load_fails(LIST_HEAD "\"items\":[" PODJ "],\"items\":[]}", &err));
    KT_CHECK_CONTAINS(err.msg, "duplicate key \"items\"");
}

/* item 12: a NUL inside a string is an error naming the field, never a truncated string */
KT_TEST(nul_inside_strings_is_rejected) {
    kp_error err;
    KT_CHECK(load_fails(
        "{\"kind\":\"Pod\\u0000x\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"}}", &err));
    KT_CHECK_CONTAINS(err.msg, "kind: ");
    KT_CHECK_CONTAINS(err.msg, "NUL");
    KT_CHECK(load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
                        "\"a\\u0000b\"},\"spec\":{}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.name: ");
    KT_CHECK(load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\","
                        "\"namespace\":\"n\\u0000m\"},\"spec\":{}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.namespace: ");
    KT_CHECK(load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\","
                        "\"labels\":{\"k\":\"v\\u0000w\"}},\"spec\":{}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.labels");
    KT_CHECK(load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\","
                        "\"labels\":{\"k\\u0000j\":\"v\"}},\"spec\":{}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "metadata.labels");
    KT_CHECK(load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                        "\"status\":{\"capacity\":{\"cpu\\u0000x\":\"1\"}}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "status.capacity");
    /* eviction signals */
    kp_evict_config *c = kp_evict_config_new();
    const char *k = "{\"kind\":\"KubeletConfiguration\",\"apiVersion\":\"kubelet.config.k8s.io/"
                    "v1beta1\",\"evictionHard\":{\"memory."
                    "available\\u0000junk\":\"1Gi\"}}";
    kp_error_clear(&err);
    kp_status st = kp_evict_config_load_buffer(c, "k.json", k, strlen(k), &err);
    if (st == KP_OK) st = kp_evict_config_finish(c, &err);
    KT_CHECK(st != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "evictionHard");
    kp_evict_config_free(c);
}

static kp_status kubelet_load(const char *text, kp_error *err) {
    kp_evict_config *c = kp_evict_config_new();
    kp_error_clear(err);
    kp_status st = kp_evict_config_load_buffer(c, "kubelet.yaml", text, strlen(text), err);
    kp_evict_config_free(c);
    return st;
}

/* item 13: the kubelet refuses an empty configuration file and one that is not an object */
KT_TEST(kubelet_config_empty_or_array_is_an_error) {
    kp_error err;
    KT_CHECK(kubelet_load("", &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "was empty");
    KT_CHECK_STR(err.source, "kubelet.yaml");
    KT_CHECK(kubelet_load("  \n# only a comment\n", &err) != KP_OK);
    KT_CHECK(kubelet_load("[]", &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "KubeletConfiguration");
    KT_CHECK(kubelet_load("- evictionHard: {}\n", &err) != KP_OK);
    KT_CHECK(kubelet_load("{\"kind\":\"KubeletConfiguration\",\"apiVersion\":\"kubelet.config.k8s."
                          "io/v1beta1\"}",
                          &err) == KP_OK);
}

/* item 17: negative requests, limits, overhead, capacity and allocatable (the API server's
 * ValidateResourceQuantityValue: "must be greater than or equal to 0") */
KT_TEST(negative_quantities_are_rejected) {
    kp_error err;
    KT_CHECK(load_fails(
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\"spec\":"
        "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}}",
        &err));
    KT_CHECK_CONTAINS(
        err.msg, "spec.containers[0].resources.requests.cpu: must be greater than or equal to 0");
    KT_CHECK(load_fails(
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\"spec\":"
        "{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"memory\":-5}}}]}}",
        &err));
    KT_CHECK_CONTAINS(err.msg, "resources.limits.memory: must be greater than or equal to 0");
    KT_CHECK(
        load_fails("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\"spec\":"
                   "{\"overhead\":{\"cpu\":\"-100m\"},\"containers\":[{\"name\":\"c\"}]}}",
                   &err));
    KT_CHECK_CONTAINS(err.msg, "spec.overhead.cpu: must be greater than or equal to 0");
    KT_CHECK(load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                        "\"status\":{\"capacity\":{\"cpu\":\"-4\"}}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "status.capacity.cpu: must be greater than or equal to 0");
    KT_CHECK(load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                        "\"status\":{\"allocatable\":{\"pods\":\"-1\"}}}",
                        &err));
    KT_CHECK_CONTAINS(err.msg, "status.allocatable.pods: must be greater than or equal to 0");
    /* a negative amount that rounds to zero is still negative (upstream compares the quantity) */
    KT_CHECK(load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                        "\"status\":{\"allocatable\":{\"memory\":\"-1m\"}}}",
                        &err));
    KT_CHECK(!load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                         "\"status\":{\"allocatable\":{\"pods\":\"-0\"}}}",
                         &err));
    KT_CHECK(!load_fails("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\"},"
                         "\"status\":{\"allocatable\":{\"pods\":\"0\"}}}",
                         &err));
}

KT_MAIN(KT_CASE(list_members_outside_items_are_validated), KT_CASE(only_list_kinds_are_split),
        KT_CASE(duplicate_keys_json_last_wins_yaml_error), KT_CASE(nul_inside_strings_is_rejected),
        KT_CASE(kubelet_config_empty_or_array_is_an_error),
        KT_CASE(negative_quantities_are_rejected))
