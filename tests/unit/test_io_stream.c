/* Ingest of whole inputs (issue 10 items 5, 6, 9; issue 17 items 1, 2, 7, 8, 11, 18): JSON and
 * YAML streams of several documents, validation of members no decoder reads, duplicate keys at
 * every level, generated names, empty inputs. */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "harness.h"
#include "io/events.h"
#include "io/tree.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"

static kp_cluster *load_src(const char *source, const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, source, text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_cluster *load(const char *text, kp_error *err) { return load_src("in.json", text, err); }

static bool fails(const char *text, kp_error *err) {
    kp_cluster *cl = load(text, err);
    kp_cluster_free(cl);
    return cl == NULL;
}

static long pods(const char *text) {
    kp_error err;
    kp_cluster *cl = load(text, &err);
    if (!cl) fprintf(stderr, "    load failed: %s\n", err.msg);
    long n = cl ? (long)kp_cluster_pod_count(cl) : -1;
    kp_cluster_free(cl);
    return n;
}

#define POD(n) \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" n "\"},\"spec\":{}}"
#define NODE(n)                                                            \
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" n \
    "\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"pods\":\"110\"}}}"
/* kubectl get -o json: members in alphabetical order, so kind comes after items */
#define KLIST(items) \
    "{\"apiVersion\":\"v1\",\"items\":[" items "],\"kind\":\"List\",\"metadata\":{}}"

/* issue 10 item 5: (kubectl get nodes -o json; kubectl get pods -o json) > f, and other streams
 * Go's json.Decoder reads (kubectl's YAMLOrJSONDecoder on input that starts with '{') */
KT_TEST(json_streams_are_read_whole) {
    kp_error err;
    kp_cluster *cl = load(KLIST(NODE("n1")) "\n" KLIST(POD("a") "," POD("b")) "\n", &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_node_count(cl), 1);
        KT_CHECK_INT(kp_cluster_pod_count(cl), 2);
        kp_cluster_free(cl);
    }
    /* no whitespace between documents, single objects and Lists mixed */
    KT_CHECK_INT(pods(POD("a") POD("b") KLIST(POD("c")) POD("d")), 4);
    KT_CHECK_INT(pods("  \n" POD("a") " \t\r\n " POD("b") "\n\n"), 2);
    /* the kind written before the items (API server order) in a stream */
    KT_CHECK_INT(pods("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{"
                      "\"name\":\"a\"},\"spec\":{}}]}" KLIST(NODE("n"))),
                 1);
    /* an object with items that is not a List, in a stream */
    KT_CHECK_INT(pods(POD("x") "{\"apiVersion\":\"v1\",\"items\":[" POD(
                     "in") "],\"kind\":\"Pod\","
                           "\"metadata\":{\"name\":\"o\"},\"spec\":{}}" POD("y")),
                 3);
    /* errors name the line of the document they are in */
    KT_CHECK(
        fails(POD("a") "\n" POD("b") "\n{\"kind\":\"Pod\",\"metadata\":{\"name\":tru}}", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    KT_CHECK_CONTAINS(err.msg, "line 3, column");
    KT_CHECK(fails(KLIST(POD("a")) "\n" KLIST(POD("b") ",3"), &err));
    KT_CHECK_CONTAINS(err.msg, "line 2, column");
    KT_CHECK(fails(POD("a") "\n" POD("a2") "\n---\n" POD("b"), &err));
    KT_CHECK_CONTAINS(err.msg, "line 3, column 1: unexpected content after the top-level value");
    KT_CHECK(fails(POD("a") "\n{\"kind\":\"Pod\"", &err));
    KT_CHECK_INT(err.code, KP_ESYNTAX);
    /* objects of later documents are named by their document */
    KT_CHECK(fails(POD("a") "\n" KLIST(POD("b") ",{\"kind\":\"Pod\",\"metadata\":{}}"), &err));
    KT_CHECK_CONTAINS(err.msg, "document 2, items[1]: metadata.name: required value");
    /* a List whose kind follows its items, followed by a document of another List kind: the
     * items' kind cannot be known when they are read, so this is an error, never a wrong load */
    KT_CHECK(fails("{\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{}}],\"kind\":\"NodeList\"}"
                   "{\"items\":[],\"kind\":\"PodList\"}",
                   &err));
    KT_CHECK_CONTAINS(err.msg, "cannot tell the kind of its items");
}

/* YAML streams: a leading ---, empty documents, comment-only documents, --- at the end */
KT_TEST(yaml_streams_are_read_whole) {
    const char *y = "---\n---\n# only a comment\n---\napiVersion: v1\nkind: Pod\n"
                    "metadata: {name: a}\nspec: {}\n---\n\n---\napiVersion: v1\nkind: List\n"
                    "items:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec: {}\n"
                    "---\n" POD("c") "\n...\n---\n";
    kp_error err;
    kp_cluster *cl = load_src("in.yaml", y, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(kp_cluster_pod_count(cl), 3);
        kp_cluster_free(cl);
    }
}

/* issue 17 item 7: members no decoder reads (managedFields, the last-applied annotation, a root
 * member of an object) are skipped unread, yet every byte of the document must be valid JSON */
#define PODM(meta, rest)                                                         \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"," meta \
    "},\"spec\":{}" rest "}"
KT_TEST(skipped_members_are_validated) {
    static const char *const bad[] = {
        PODM("\"managedFields\":[tru]", ""),
        PODM("\"managedFields\":[{\"a\":1,,}]", ""),
        PODM("\"managedFields\":[{\"f:x\":{}} {}]", ""),
        PODM("\"managedFields\":[\"\\q\"]", ""),
        PODM("\"managedFields\":[01]", ""),
        PODM("\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":nul}", ""),
        PODM("\"name2\":1", ",\"zzz\":[1 2]"),
        PODM("\"name2\":1", ",\"zzz\":{\"a\":}"),
        KLIST(PODM("\"managedFields\":[{\"manager\":\"kubectl\",}]", "")),
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        kp_error err;
        if (!fails(bad[i], &err)) {
            fprintf(stderr, "  loaded: %s\n", bad[i]);
            KT_CHECK(0);
            continue;
        }
        KT_CHECK_INT(err.code, KP_ESYNTAX);
        KT_CHECK_CONTAINS(err.msg, "line 1, column ");
    }
    kp_error err;
    KT_CHECK(fails(PODM("\"managedFields\":[tru]", ""), &err));
    KT_CHECK_CONTAINS(err.msg, "invalid literal");
    KT_CHECK_CONTAINS(err.msg, "(in \"managedFields\")");
    /* valid skipped members still load, whatever they hold */
    KT_CHECK_INT(pods(PODM("\"managedFields\":[{\"fieldsV1\":{\"f:spec\":{\"k:{\\\"a\\\":1}\":{}}},"
                           "\"n\":[1.5e3,-0,true,null,\"\\u00e9\"]}]",
                           ",\"zzz\":[[],{}]")),
                 1);
}

/* issue 17 item 11 (YAML): only List kinds, or a document with items and no kind, are split; a
 * Pod with an items field is that Pod, wherever its kind is written */
static int yaml_has(const char *y, const char *pod) {
    kp_error err;
    kp_cluster *cl = load_src("in.yaml", y, &err);
    if (!cl) return -1;
    int r = kp_cluster_find_pod(cl, pod) >= 0 ? (int)kp_cluster_pod_count(cl) : 0;
    kp_cluster_free(cl);
    return r;
}

#define YITEMS "items:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: inner}\n  spec: {}\n"
KT_TEST(yaml_only_list_kinds_are_split) {
    /* kind after items (kubectl -o yaml order), before, quoted */
    KT_CHECK_INT(yaml_has("apiVersion: v1\n" YITEMS
                          "kind: Pod\nmetadata:\n  name: outer\nspec: {}\n",
                          "outer"),
                 1);
    KT_CHECK_INT(yaml_has("kind: Pod\napiVersion: v1\n" YITEMS
                          "metadata: {name: outer}\nspec: {}\n",
                          "outer"),
                 1);
    KT_CHECK_INT(yaml_has("apiVersion: v1\n" YITEMS "kind: \"Pod\" # c\nmetadata: {name: outer}\n"
                          "spec: {}\n---\nkind: List\n",
                          "outer"),
                 1);
    /* a later document's kind is not this one's */
    KT_CHECK_INT(yaml_has(YITEMS "---\nkind: Pod\nmetadata: {name: outer}\nspec: {}\n", "inner"),
                 2);
    /* Lists are split: List, a typed list, no kind */
    KT_CHECK_INT(yaml_has("apiVersion: v1\n" YITEMS "kind: List\nmetadata: {}\n", "inner"), 1);
    KT_CHECK_INT(
        yaml_has("kind: PodList\nitems:\n- metadata: {name: inner}\n  spec: {}\n", "inner"), 1);
    KT_CHECK_INT(yaml_has(YITEMS, "inner"), 1);
    /* the kind after the items where it cannot be read ahead: an error, not a wrong load */
    kp_error err;
    kp_cluster *cl = load_src("in.yaml",
                              "  items:\n  - kind: Pod\n    metadata: {name: inner}\n    spec: {}\n"
                              "  kind: Pod\n  metadata: {name: outer}\n  spec: {}\n",
                              &err);
    KT_CHECK(cl == NULL);
    KT_CHECK_CONTAINS(err.msg, "put \"kind\" first");
    kp_cluster_free(cl);
}

/* issue 17 item 8: duplicate keys at every level. YAML (go-yaml through sigs.k8s.io/yaml): an
 * error "line N: key "x" already set in map", in a List's wrapper, in root members no decoder
 * reads and inside skipped members as well as in the objects; JSON: a List wrapper whose kinds
 * disagree is refused (the split read one of them) */
static const char *yaml_err(const char *y, kp_error *err) {
    kp_cluster *cl = load_src("in.yaml", y, err);
    kp_cluster_free(cl);
    return cl ? "(loaded)" : err->msg;
}

KT_TEST(duplicate_keys_at_every_level) {
    kp_error err;
    KT_CHECK_CONTAINS(yaml_err("apiVersion: v1\n" YITEMS "kind: List\n" YITEMS, &err),
                      "line 8: key \"items\" already set in map");
    KT_CHECK_CONTAINS(yaml_err("kind: List\napiVersion: v1\n" YITEMS "kind: PodList\n", &err),
                      "line 8: key \"kind\" already set in map");
    KT_CHECK_CONTAINS(
        yaml_err("kind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: 1\n  a: 2\n", &err),
        "line 5: key \"a\" already set in map");
    KT_CHECK_CONTAINS(yaml_err("kind: ConfigMap\ndata: {}\nmetadata: {name: c}\ndata: {}\n", &err),
                      "line 4: key \"data\" already set in map");
    KT_CHECK_CONTAINS(yaml_err("kind: Pod\nmetadata:\n  name: a\n  managedFields:\n  - manager: x\n"
                               "    fieldsV1: {f:spec: {}, f:spec: {}}\nspec: {}\n",
                               &err),
                      "line 6: key \"f:spec\" already set in map");
    /* in an item of a List (a tree mapping: the decoders name the path) */
    KT_CHECK_CONTAINS(
        yaml_err("kind: List\nitems:\n- kind: Pod\n  metadata: {name: a, name: b}\n", &err),
        "metadata: line 4: key \"name\" already set in map");
    /* the same keys in different mappings, and large mappings, are fine */
    char big[40000];
    size_t n = (size_t)snprintf(big, sizeof big,
                                "kind: Pod\nmetadata:\n  name: a\n  managedFields:\n  - f: {}\n"
                                "    g:\n");
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "      k%d: {f: 1}\n", i);
    snprintf(big + n, sizeof big - n, "  - f: {}\nspec: {}\ndata: {f: 1}\n");
    KT_CHECK_STR(yaml_err(big, &err), "(loaded)");
    /* JSON: the List's kinds disagree */
    KT_CHECK(fails("{\"kind\":\"List\",\"items\":[" POD("a") "],\"kind\":\"NodeList\"}", &err));
    KT_CHECK_CONTAINS(err.msg, "duplicate key \"kind\" with different values in the List");
    KT_CHECK_INT(pods("{\"kind\":\"List\",\"items\":[" POD("a") "],\"kind\":\"List\"}"), 1);
}

/* issue 10 item 6: metadata.generateName without a name: a deterministic generated name (the
 * prefix and 5 characters of names.SimpleNameGenerator's alphabet), never one already loaded */
static bool gen_name_ok(const char *name, const char *prefix) {
    size_t pl = strlen(prefix);
    if (strlen(name) != pl + 5 || strncmp(name, prefix, pl) != 0) return false;
    for (size_t i = pl; i < pl + 5; i++)
        if (!strchr("bcdfghjklmnpqrstvwxz2456789", name[i])) return false;
    return true;
}

#define GENPOD "kind: Pod\napiVersion: v1\nmetadata: {generateName: web-}\nspec: {}\n"
KT_TEST(generate_name_is_deterministic_and_fresh) {
    kp_error err;
    char first[128] = "", again[128] = "";
    kp_cluster *cl = load_src("g.yaml", GENPOD "---\n" GENPOD, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(kp_cluster_pod_count(cl), 2);
    if (kp_cluster_pod_count(cl) == 2) {
        snprintf(first, sizeof first, "%s", kp_cluster_pod_name(cl, 0));
        KT_CHECK(gen_name_ok(first, "web-"));
        KT_CHECK(gen_name_ok(kp_cluster_pod_name(cl, 1), "web-"));
        KT_CHECK(strcmp(first, kp_cluster_pod_name(cl, 1)) != 0);
    }
    kp_cluster_free(cl);
    /* the same input gives the same names */
    cl = load_src("g.yaml", GENPOD "---\n" GENPOD, &err);
    if (cl && kp_cluster_pod_count(cl) == 2)
        snprintf(again, sizeof again, "%s", kp_cluster_pod_name(cl, 0));
    KT_CHECK_STR(again, first);
    kp_cluster_free(cl);
    /* a pod that already has that name: the generated one takes another */
    cl = kp_cluster_new();
    char named[256];
    snprintf(named, sizeof named, "kind: Pod\nmetadata: {name: %s}\nspec: {}\n", first);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "x.yaml", named, strlen(named), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "g.yaml", GENPOD, strlen(GENPOD), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 2);
    if (kp_cluster_pod_count(cl) == 2) {
        KT_CHECK(gen_name_ok(kp_cluster_pod_name(cl, 1), "web-"));
        KT_CHECK(strcmp(kp_cluster_pod_name(cl, 1), first) != 0);
    }
    kp_cluster_free(cl);
    /* a long prefix is cut to 58 bytes, as upstream */
    cl = load_src("g.yaml",
                  "kind: Pod\nmetadata: {generateName: "
                  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                  "}\nspec: {}\n",
                  &err);
    KT_CHECK(cl && strlen(kp_cluster_pod_name(cl, 0)) == 63);
    kp_cluster_free(cl);
    /* neither name nor generateName */
    cl = load_src("g.yaml", "kind: Pod\nmetadata: {namespace: x}\nspec: {}\n", &err);
    KT_CHECK(cl == NULL);
    KT_CHECK_CONTAINS(err.msg, "metadata.name: required value: name or generateName is required");
    kp_cluster_free(cl);
}

/* issue 10 item 9: clearer errors for inputs of the wrong shape, and a warning for empty ones */
KT_TEST(wrong_shapes_get_clear_errors) {
    kp_error err;
    /* a kubelet Summary API document given with -f */
    KT_CHECK(fails("{\"node\":{\"nodeName\":\"n1\",\"memory\":{}},\"pods\":[]}", &err));
    KT_CHECK_CONTAINS(err.msg, "this looks like a kubelet Summary API document; pass it with "
                               "--summary");
    /* a top-level array, JSON or YAML */
    KT_CHECK(fails("[" POD("a") "]", &err));
    KT_CHECK_CONTAINS(err.msg, "the document is an array, not an object");
    KT_CHECK(fails(POD("a") "\n[]", &err));
    KT_CHECK_CONTAINS(err.msg, "line 2, column 1: the document is an array");
    kp_cluster *cl = load_src("in.yaml", "- kind: Pod\n  metadata: {name: a}\n", &err);
    KT_CHECK(cl == NULL);
    KT_CHECK_CONTAINS(err.msg, "the document is an array, not an object");
    kp_cluster_free(cl);
    /* a ConfigMap-wrapped scheduler configuration */
    const char *cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched}\ndata:\n"
                     "  config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1\n"
                     "    kind: KubeSchedulerConfiguration\n";
    kp_sched_config *sc = NULL;
    kp_error_clear(&err);
    KT_CHECK(kp_sched_config_load_buffer("cm.yaml", cm, strlen(cm), NULL, &sc, &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "expected KubeSchedulerConfiguration, got ConfigMap: extract");
    kp_sched_config_free(sc);
    const char *pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n";
    KT_CHECK(kp_sched_config_load_buffer("p.yaml", pod, strlen(pod), NULL, &sc, &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "expected KubeSchedulerConfiguration, got Pod");
    kp_sched_config_free(sc);
    /* empty and comment-only inputs: a warning each, no error, an empty answer */
    cl = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "empty.yaml", "", 0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "c.yaml", "# nothing\n---\n", 14, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "l.json", "{\"kind\":\"List\",\"items\":[]}", 26, &err),
                 KP_OK);
    KT_CHECK_INT(kp_cluster_warning_count(cl), 3);
    if (kp_cluster_warning_count(cl) == 3) {
        KT_CHECK_STR(kp_cluster_warning(cl, 0), "empty.yaml: no objects");
        KT_CHECK_STR(kp_cluster_warning(cl, 1), "c.yaml: no objects");
        KT_CHECK_STR(kp_cluster_warning(cl, 2), "l.json: no objects");
    }
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 0);
    kp_cluster_free(cl);
}

/* issue 17 item 18: an ignored member below an object's root (an unknown array in spec or status)
 * is kept unread: loading it costs a few times its size at most (simdjson's index), not the ~40
 * times of a node per element; a decoder that asks for it still gets it, parsed then. */
static char *pod_with_array(const char *where, size_t elems, size_t *len) {
    char *b = malloc(elems * 2 + 512);
    size_t n = (size_t)sprintf(b,
                               "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                               "\"a\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s",
                               where);
    if (elems) {
        b[n++] = '[';
        for (size_t i = 0; i < elems; i++) {
            b[n++] = '1';
            b[n++] = ',';
        }
        b[n - 1] = ']';
        n += (size_t)sprintf(b + n, "}}");
    } else {
        n += (size_t)sprintf(b + n, "0}}");
    }
    *len = n;
    return b;
}

/* peak RSS (KiB) of a child that loads text */
static long child_peak_kib(const char *text, size_t len) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        kp_cluster *cl = kp_cluster_new();
        kp_error err;
        kp_status st = kp_cluster_load_buffer(cl, "big.json", text, len, &err);
        bool ok = st == KP_OK && kp_cluster_pod_count(cl) == 1;
        kp_cluster_free(cl); /* no leak for valgrind to report at the child's exit */
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return ru.ru_maxrss;
}

typedef struct {
    uint32_t n;
    int type;
} lazy_seen;

static kp_status lazy_cb(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    (void)err;
    lazy_seen *ls = ctx;
    const kp_tnode *x = kp__tree_path(obj, "spec.xIgnored");
    ls->type = x ? (int)x->type : -1;
    ls->n = x ? x->n : 0;
    return KP_OK;
}

KT_TEST(ignored_members_below_the_root_are_not_kept) {
    size_t elems = (size_t)8 << 20, len = 0, len0 = 0; /* 16 MB of "1," */
    /* static: still reachable in the forked children (valgrind counts their leaks too) */
    static char *with, *without;
    with = pod_with_array(",\"xIgnored\":", elems, &len);
    without = pod_with_array(",\"xIgnored\":", 0, &len0);
    long base = child_peak_kib(without, len0), big = child_peak_kib(with, len);
    KT_CHECK(base > 0 && big > 0);
    long grew = big - base, text_kib = (long)(len / 1024);
    if (grew > 8 * text_kib) fprintf(stderr, "    peak grew %ld KiB for %ld KiB\n", grew, text_kib);
    KT_CHECK(grew <= 8 * text_kib);
    free(with);
    free(without);
    /* asked for, it is there */
    size_t n = 0;
    char *small = pod_with_array(",\"xIgnored\":", 1000, &n);
    char *padded = calloc(1, n + KP_JSON_PADDING);
    memcpy(padded, small, n);
    lazy_seen ls = {0, -1};
    kp_error err;
    KT_CHECK_INT(kp__tree_parse("in.json", padded, n, true, lazy_cb, &ls, &err), KP_OK);
    KT_CHECK_INT(ls.type, KP_T_ARR);
    KT_CHECK_INT(ls.n, 1000);
    /* and running out of memory while it is expanded is KP_ENOMEM */
    int bad = 0;
    for (long k = 0; k < 200; k++) {
        kp__alloc_fail_after(k, false);
        kp_status st = kp__tree_parse("in.json", padded, n, true, lazy_cb, &ls, &err);
        kp__alloc_fail_after(-1, false);
        if (st == KP_OK) break;
        if (st != KP_ENOMEM) bad++;
    }
    KT_CHECK_INT(bad, 0);
    free(padded);
    free(small);
}

KT_MAIN(KT_CASE(json_streams_are_read_whole), KT_CASE(yaml_streams_are_read_whole),
        KT_CASE(ignored_members_below_the_root_are_not_kept),
        KT_CASE(wrong_shapes_get_clear_errors), KT_CASE(generate_name_is_deterministic_and_fresh),
        KT_CASE(duplicate_keys_at_every_level), KT_CASE(yaml_only_list_kinds_are_split),
        KT_CASE(skipped_members_are_validated))
