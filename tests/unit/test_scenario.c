/* Scenario files of `kprio simulate` (issue 11, src/io/decode_scenario.c, docs/scenario.md):
 * every action and field decoded, inline objects written back as text that the cluster loader
 * reads the same (flow mappings, deep nesting, multi-line and escaped strings, YAML plain
 * scalars, JSON), every error with its file, action index and field; and loads into a finalized
 * cluster (src/io/load.c, src/core/finalize.c): an existing identity refused with nothing of
 * that load kept, the new objects finalized on their own (priority from the class as it is now,
 * binding to the named node, gen_struct), an invalid new class or pod undone. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/finalize.h"
#include "core/labels.h"
#include "core/pod.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/scenario.h"

static kp_scenario *load(const char *text, const char *dir, kp_error *err) {
    kp_scenario *sc = NULL;
    kp_error_clear(err);
    kp_status st = kp_scenario_load_buffer("s.yaml", text, strlen(text), dir, &sc, err);
    if (st != KP_OK) {
        KT_CHECK(sc == NULL);
        KT_CHECK(err->msg[0] != 0);
        KT_CHECK_STR(err->source, "s.yaml");
    }
    return sc;
}

/* The error of loading text; "" when it loads. */
static const char *fails(const char *text, kp_status want) {
    static kp_error err;
    kp_scenario *sc = load(text, NULL, &err);
    if (sc) {
        kp_scenario_free(sc);
        fprintf(stderr, "  loaded, expected an error: %s\n", text);
        kt_failed_checks++;
        return "";
    }
    KT_CHECK_INT(err.code, want);
    return err.msg;
}

#define HEAD "apiVersion: kprio/v1alpha1\nkind: Scenario\n"

/* clang-format off */
static const char ALL_ACTIONS[] = HEAD
    "duration: 1h30m\n"
    "seed: 18446744073709551615\n"
    "actions:\n"
    "- at: 0s\n"
    "  create:\n"
    "    objects:\n"
    "    - apiVersion: v1\n"
    "      kind: Pod\n"
    "      metadata:\n"
    "        name: web-1\n"
    "        labels: {app: web, version: 1.0}\n"
    "        annotations:\n"
    "          kubernetes.io/config.note: |\n"
    "            two \"lines\"\n"
    "            and a \\ backslash\n"
    "          kubernetes.io/config.folded: >\n"
    "            one\n"
    "            line\n"
    "          kubernetes.io/config.esc: \"tab\\tbell\\a\\u00e9\\x85\\u2028 end\"\n"
    "      spec:\n"
    "        priority: 7\n"
    "        containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 64Mi}}}]\n"
    "        affinity:\n"
    "          nodeAffinity:\n"
    "            requiredDuringSchedulingIgnoredDuringExecution:\n"
    "              nodeSelectorTerms:\n"
    "              - matchExpressions:\n"
    "                - key: disk\n"
    "                  operator: In\n"
    "                  values: [ssd, 'nvme']\n"
    "    - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n"
    "- at: 90s\n"
    "  delete: {kind: Pod, name: web-1}\n"
    "- at: 1m30s\n"
    "  scale: {kind: ReplicaSet, namespace: team, name: rs, replicas: 3}\n"
    "- at: 2m\n"
    "  cordon: {node: n1}\n"
    "- at: 2m\n"
    "  uncordon: {node: n1}\n"
    "- at: 250ms\n"
    "  taint: {node: n2, key: example.com/gpu, value: 'yes', effect: NoExecute}\n"
    "- at: 3m\n"
    "  untaint: {node: n2, key: example.com/gpu}\n"
    "- at: 3m\n"
    "  untaint: {node: n2, key: k, effect: NoSchedule}\n"
    "- at: 4m\n"
    "  drain: {node: n3}\n"
    "- at: 5m\n"
    "  setPriorityClass: {name: high, value: -5}\n"
    "- at: 6m\n"
    "  delete: {kind: Node, name: n3}\n"
    "lifetimes:\n"
    "- selector:\n"
    "    matchLabels: {zeta: z, alpha: a}\n"
    "    matchExpressions:\n"
    "    - {key: tier, operator: NotIn, values: [db]}\n"
    "    - {key: batch, operator: Exists}\n"
    "  namespace: jobs\n"
    "  after: 10m\n"
    "- selector: {}\n"
    "  after: 0s\n";
/* clang-format on */

static kp_cluster *load_text(const char *text, size_t len, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "obj", text, len, err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static const char *annotation(const kp_cluster *cl, const kp_pod *p, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(&p->annotations, k, &v) ? kp__s(cl, v) : NULL;
}

static const char *label(const kp_cluster *cl, const kp_pod *p, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(&p->labels, k, &v) ? kp__s(cl, v) : NULL;
}

KT_TEST(every_action) {
    kp_error err;
    kp_scenario *sc = load(ALL_ACTIONS, NULL, &err);
    KT_CHECK(sc != NULL);
    if (!sc) {
        fprintf(stderr, "  %s: %s\n", err.source, err.msg);
        return;
    }
    KT_CHECK_STR(sc->source, "s.yaml");
    KT_CHECK(sc->has_duration && sc->duration_ms == 5400000);
    KT_CHECK(sc->has_seed && sc->seed == UINT64_MAX);
    KT_CHECK_INT(sc->n_actions, 11);
    const kp_scenario_action *a = sc->actions;
    KT_CHECK(a[0].type == KP_ACT_CREATE && a[0].at_ms == 0 && a[0].n_objects == 2);
    KT_CHECK_STR(a[0].objects[0].source, "s.yaml: actions[0].create.objects[0]");
    KT_CHECK_STR(a[0].objects[1].source, "s.yaml: actions[0].create.objects[1]");
    KT_CHECK(a[1].type == KP_ACT_DELETE && a[1].at_ms == 90000);
    KT_CHECK_STR(a[1].ref.kind, "Pod");
    KT_CHECK_STR(a[1].ref.ns, "default");
    KT_CHECK_STR(a[1].ref.name, "web-1");
    KT_CHECK(a[2].type == KP_ACT_SCALE && a[2].at_ms == 90000 && a[2].replicas == 3);
    KT_CHECK_STR(a[2].ref.kind, "ReplicaSet");
    KT_CHECK_STR(a[2].ref.ns, "team");
    KT_CHECK_STR(a[2].ref.name, "rs");
    KT_CHECK(a[3].type == KP_ACT_CORDON && a[3].at_ms == 120000);
    KT_CHECK(a[4].type == KP_ACT_UNCORDON);
    KT_CHECK_STR(a[3].ref.kind, "Node");
    KT_CHECK_STR(a[3].ref.ns, "");
    KT_CHECK_STR(a[4].ref.name, "n1");
    KT_CHECK(a[5].type == KP_ACT_TAINT && a[5].at_ms == 250); /* file order, not sorted */
    KT_CHECK_STR(a[5].ref.name, "n2");
    KT_CHECK_STR(a[5].taint.key, "example.com/gpu");
    KT_CHECK_STR(a[5].taint.value, "yes");
    KT_CHECK_STR(a[5].taint.effect, "NoExecute");
    KT_CHECK(a[6].type == KP_ACT_UNTAINT);
    KT_CHECK_STR(a[6].taint.effect, "");
    KT_CHECK_STR(a[6].taint.value, "");
    KT_CHECK_STR(a[7].taint.effect, "NoSchedule");
    KT_CHECK(a[8].type == KP_ACT_DRAIN);
    KT_CHECK_STR(a[8].ref.name, "n3");
    KT_CHECK(a[9].type == KP_ACT_SET_PRIORITY_CLASS && a[9].value == -5);
    KT_CHECK_STR(a[9].ref.kind, "PriorityClass");
    KT_CHECK_STR(a[9].ref.name, "high");
    KT_CHECK_STR(a[10].ref.ns, ""); /* Node: cluster-scoped */
    KT_CHECK_INT(sc->n_lifetimes, 2);
    const kp_scenario_lifetime *l = &sc->lifetimes[0];
    KT_CHECK_STR(l->ns, "jobs");
    KT_CHECK(l->after_ms == 600000 && l->n_reqs == 4);
    if (l->n_reqs == 4) { /* matchLabels sorted by key, as In with one value; then expressions */
        KT_CHECK_STR(l->reqs[0].key, "alpha");
        KT_CHECK_STR(l->reqs[0].op, "In");
        KT_CHECK(l->reqs[0].n_values == 1);
        KT_CHECK_STR(l->reqs[0].values[0], "a");
        KT_CHECK_STR(l->reqs[1].key, "zeta");
        KT_CHECK_STR(l->reqs[2].op, "NotIn");
        KT_CHECK_STR(l->reqs[2].values[0], "db");
        KT_CHECK_STR(l->reqs[3].key, "batch");
        KT_CHECK_STR(l->reqs[3].op, "Exists");
        KT_CHECK(l->reqs[3].n_values == 0);
    }
    KT_CHECK(sc->lifetimes[1].n_reqs == 0 && sc->lifetimes[1].after_ms == 0);
    KT_CHECK_STR(sc->lifetimes[1].ns, "");

    /* the inline objects' texts load on their own, with the values as written */
    const kp_scenario_object *o = &a[0].objects[0];
    KT_CHECK(o->len == strlen(o->text));
    kp_cluster *cl = load_text(o->text, o->len, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(cl->n_pods, 1);
        const kp_pod *p = &cl->pods[0];
        KT_CHECK_STR(kp__s(cl, p->name), "web-1");
        KT_CHECK_INT(p->priority, 7);
        KT_CHECK_STR(label(cl, p, "version"), "1.0"); /* a plain YAML number read as a string */
        KT_CHECK_STR(annotation(cl, p, "kubernetes.io/config.note"),
                     "two \"lines\"\nand a \\ backslash\n");
        KT_CHECK_STR(annotation(cl, p, "kubernetes.io/config.folded"), "one line\n");
        KT_CHECK_STR(annotation(cl, p, "kubernetes.io/config.esc"),
                     "tab\tbell\a\xc3\xa9\xc2\x85\xe2\x80\xa8 end");
        KT_CHECK(p->node_affinity != NULL);
        KT_CHECK_INT(p->req.n, 2);
        kp_cluster_free(cl);
    }
    cl = load_text(a[0].objects[1].text, a[0].objects[1].len, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(cl->n_classes, 3);
        KT_CHECK_STR(kp__s(cl, cl->classes[2].name), "high");
        kp_cluster_free(cl);
    }
    kp_scenario_free(sc);
}

/* Escapes survive the round trip byte for byte: the annotation's value holds a NUL, C1 and
 * non-ASCII characters. */
KT_TEST(escaped_strings_round_trip) {
    const char *text =
        HEAD "actions:\n- at: 1s\n  create:\n    objects:\n"
             "    - {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name:"
             " \"n\\x85s\", labels: {a: \"\\u00e9\"}}, spec: {minAvailable: 1}}\n";
    kp_error err;
    kp_scenario *sc = load(text, NULL, &err);
    KT_CHECK(sc != NULL);
    if (!sc) return;
    const kp_scenario_object *o = &sc->actions[0].objects[0];
    KT_CHECK(strncmp(o->text, "--- {", 5) == 0); /* YAML in, YAML flow out */
    kp_cluster *cl = load_text(o->text, o->len, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_INT(cl->n_pdbs, 1); /* a PDB's name: any path segment, a C1 control too */
        if (cl->n_pdbs) KT_CHECK_STR(kp__s(cl, cl->pdbs[0].name), "n\xc2\x85s");
        kp_cluster_free(cl);
    }
    kp_scenario_free(sc);
}

KT_TEST(json_scenario) {
    const char *text =
        "{\"apiVersion\": \"kprio/v1alpha1\", \"kind\": \"Scenario\", \"duration\": \"10m\","
        " \"seed\": 42, \"actions\": [{\"at\": \"1s\", \"create\": {\"objects\": [{\"apiVersion\":"
        " \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"labels\": {\"x\": \"1\"},"
        " \"annotations\": {\"kubernetes.io/config.q\": \"a\\\"b\\u0001\\u00e9\"}}, \"spec\": "
        "{\"priority\": 1000,"
        " \"containers\": [{\"name\": \"c\", \"image\": \"i\"}]}}]}},"
        " {\"at\": \"2s\", \"drain\": {\"node\": \"n\"}}]}";
    kp_error err;
    kp_scenario *sc = load(text, NULL, &err);
    KT_CHECK(sc != NULL);
    if (!sc) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    KT_CHECK(sc->seed == 42 && sc->duration_ms == 600000 && sc->n_actions == 2);
    const kp_scenario_object *o = &sc->actions[0].objects[0];
    KT_CHECK(o->text[0] == '{'); /* JSON in, JSON out */
    kp_cluster *cl = load_text(o->text, o->len, &err);
    KT_CHECK(cl != NULL);
    if (cl) {
        KT_CHECK_STR(annotation(cl, &cl->pods[0], "kubernetes.io/config.q"), "a\"b\x01\xc3\xa9");
        kp_cluster_free(cl);
    }
    /* JSON keeps its types: a number where a string belongs is refused, as kubectl does */
    kp_scenario_free(sc);
    const char *bad = "{\"apiVersion\": \"kprio/v1alpha1\", \"kind\": \"Scenario\", \"actions\":"
                      " [{\"at\": \"1s\", \"create\": {\"objects\": [{\"apiVersion\": \"v1\","
                      " \"kind\": \"Pod\", \"metadata\": {\"name\": 5}}]}}]}";
    KT_CHECK_CONTAINS(fails(bad, KP_EINVAL), "actions[0].create.objects[0]: ");
    KT_CHECK_CONTAINS(fails(bad, KP_EINVAL), "metadata.name: expected a string");
}

KT_TEST(create_from_file) {
    char dir[] = "/tmp/kprio-test-scenario-XXXXXX";
    KT_CHECK(mkdtemp(dir) != NULL);
    char path[128], spath[128];
    snprintf(path, sizeof path, "%s/pods.yaml", dir);
    FILE *f = fopen(path, "w");
    KT_CHECK(f != NULL);
    if (!f) return;
    fputs("apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n---\napiVersion: v1\nkind: Pod\n"
          "metadata: {name: p9}\nspec: {containers: [{name: c, image: i}]}\n",
          f);
    fclose(f);
    snprintf(spath, sizeof spath, "%s/s.yaml", dir);
    f = fopen(spath, "w");
    fputs(HEAD "actions:\n- at: 1s\n  create: {file: pods.yaml}\n", f);
    fclose(f);
    kp_error err;
    kp_scenario *sc = NULL;
    KT_CHECK_INT(kp_scenario_load_path(spath, &sc, &err), KP_OK);
    if (sc) {
        KT_CHECK(sc->n_actions == 1 && sc->actions[0].n_objects == 1);
        KT_CHECK_STR(sc->actions[0].objects[0].source, path);
        kp_cluster *cl =
            load_text(sc->actions[0].objects[0].text, sc->actions[0].objects[0].len, &err);
        KT_CHECK(cl && cl->n_pods == 1 && cl->n_nodes == 1);
        kp_cluster_free(cl);
        kp_scenario_free(sc);
    }
    /* relative to base_dir for a buffer; unreadable file: the action, field and path */
    const char *missing = HEAD "actions:\n- at: 1s\n  create: {file: nothere.yaml}\n";
    sc = load(missing, dir, &err);
    KT_CHECK(sc == NULL);
    KT_CHECK_INT(err.code, KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "actions[0]: create.file: ");
    KT_CHECK_CONTAINS(err.msg, "/nothere.yaml: cannot open");
    sc = load(HEAD "actions:\n- at: 1s\n  create: {file: .}\n", dir, &err); /* a directory */
    KT_CHECK(sc == NULL && err.code == KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "/.: not a regular file");
    sc = load(HEAD "actions:\n- at: 1s\n  create: {file: pods.yaml}\n", dir, &err);
    KT_CHECK(sc != NULL);
    kp_scenario_free(sc);
    /* a bad object in the file fails at load, naming the action and the file */
    f = fopen(path, "w");
    fputs("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, "
          "resources: {requests: {cpu: lots}}}]}\n",
          f);
    fclose(f);
    sc = load(HEAD "actions:\n- at: 1s\n  create: {file: pods.yaml}\n", dir, &err);
    KT_CHECK(sc == NULL);
    KT_CHECK_CONTAINS(err.msg, "actions[0].create.file: ");
    KT_CHECK_CONTAINS(err.msg, "pods.yaml: Pod default/p: spec.containers[0].resources");
    unlink(path);
    unlink(spath);
    rmdir(dir);
}

KT_TEST(errors_name_action_and_field) {
    KT_CHECK_STR(fails(HEAD
                       "actions:\n- at: 1s\n  drain: {node: a}\n- at: x9\n  drain: {node: a}\n",
                       KP_EINVAL),
                 "actions[1]: at: invalid duration \"x9\"");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 9x\n  drain: {node: a}\n", KP_EINVAL),
                 "actions[0]: at: unknown unit \"x\" in duration \"9x\"");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: -1s\n  drain: {node: a}\n", KP_EINVAL),
                 "actions[0]: at: \"-1s\" must not be negative");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1500us\n  drain: {node: a}\n", KP_EINVAL),
                 "actions[0]: at: \"1500us\" is not a whole number of milliseconds");
    KT_CHECK_STR(fails(HEAD "actions:\n- drain: {node: a}\n", KP_EINVAL),
                 "actions[0]: at: required value");
    KT_CHECK_STR(fails(HEAD "duration: soon\n", KP_EINVAL), "duration: invalid duration \"soon\"");
    /* unknown fields */
    KT_CHECK_STR(fails(HEAD "extra: 1\n", KP_EINVAL), "extra: unknown field");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  drain: {node: a, forced: true}\n", KP_EINVAL),
                 "actions[0]: drain.forced: unknown field");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  when: now\n  drain: {node: a}\n", KP_EINVAL),
                 "actions[0]: when: unknown field");
    /* duplicate keys, YAML and JSON */
    KT_CHECK_CONTAINS(fails(HEAD "actions:\n- at: 1s\n  at: 2s\n  drain: {node: a}\n", KP_EINVAL),
                      "key \"at\" already set in map");
    KT_CHECK_CONTAINS(fails("{\"apiVersion\": \"kprio/v1alpha1\", \"kind\": \"Scenario\", "
                            "\"actions\": [{\"at\": \"1s\", \"drain\": {\"node\": \"a\", "
                            "\"node\": \"b\"}}]}",
                            KP_EINVAL),
                      "actions[0].drain: line 1: key \"node\" already set in map");
    /* kind and apiVersion */
    KT_CHECK_STR(fails("apiVersion: kprio/v1alpha1\nactions: []\n", KP_EINVAL),
                 "kind: expected Scenario");
    KT_CHECK_STR(fails("apiVersion: v1\nkind: Scenario\n", KP_EINVAL),
                 "apiVersion: expected kprio/v1alpha1, got \"v1\"");
    KT_CHECK_STR(fails("kind: Pod\n", KP_EINVAL), "kind: expected Scenario, got \"Pod\"");
    KT_CHECK_STR(fails(HEAD "---\n" HEAD, KP_EINVAL), "more than one document");
    KT_CHECK_STR(fails("# nothing\n", KP_EINVAL), "empty document");
    KT_CHECK_STR(fails("[{\"kind\": \"Scenario\"}]", KP_EINVAL), "expected an object");
    KT_CHECK_CONTAINS(fails(HEAD "actions: [\n", KP_ESYNTAX), "line 4");
    /* action references */
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  delete: {name: x}\n", KP_EINVAL),
                 "actions[0]: delete.kind: required value");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  delete: {kind: Pod}\n", KP_EINVAL),
                 "actions[0]: delete.name: required value");
    KT_CHECK_CONTAINS(
        fails(HEAD "actions:\n- at: 1s\n  delete: {kind: Secret, name: x}\n", KP_EINVAL),
        "actions[0]: delete.kind: unsupported value \"Secret\"");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  delete: {kind: Node, namespace: a, name: x}\n",
                       KP_EINVAL),
                 "actions[0]: delete.namespace: must be empty: Node is cluster-scoped");
    KT_CHECK_CONTAINS(
        fails(HEAD "actions:\n- at: 1s\n  scale: {kind: DaemonSet, name: x, replicas: 1}\n",
              KP_EINVAL),
        "actions[0]: scale.kind: unsupported value \"DaemonSet\"");
    KT_CHECK_STR(
        fails(HEAD "actions:\n- at: 1s\n  scale: {kind: ReplicaSet, name: x}\n", KP_EINVAL),
        "actions[0]: scale.replicas: required value");
    KT_CHECK_CONTAINS(
        fails(HEAD "actions:\n- at: 1s\n  scale: {kind: ReplicaSet, name: x, replicas: -1}\n",
              KP_ERANGE),
        "actions[0]: scale.replicas: -1 is out of range");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  cordon: {}\n", KP_EINVAL),
                 "actions[0]: cordon.node: required value");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  uncordon:\n", KP_EINVAL),
                 "actions[0]: uncordon: expected an object");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  taint: {node: a, key: k, effect: Sometimes}\n",
                       KP_EINVAL),
                 "actions[0]: taint.effect: unsupported value \"Sometimes\": supported values: "
                 "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  taint: {node: a, key: k}\n", KP_EINVAL),
                 "actions[0]: taint.effect: required value");
    KT_CHECK_CONTAINS(fails(HEAD "actions:\n- at: 1s\n  taint: {node: a, key: 'a b', effect: "
                                 "NoSchedule}\n",
                            KP_EINVAL),
                      "actions[0]: taint.key: Invalid value: \"a b\": name part must consist");
    KT_CHECK_CONTAINS(
        fails(HEAD "actions:\n- at: 1s\n  untaint: {node: a, key: k, effect: No}\n", KP_EINVAL),
        "actions[0]: untaint.effect: unsupported value \"No\"");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  setPriorityClass: {name: high, value: "
                            "1000000001}\n",
                       KP_EINVAL),
                 "actions[0]: setPriorityClass.value: Forbidden: maximum allowed value of a "
                 "user defined priority is 1000000000");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  setPriorityClass: {name: high}\n", KP_EINVAL),
                 "actions[0]: setPriorityClass.value: required value");
    /* one action per entry */
    /* drain: exactly one of node and nodeSelector; a selector string as labels.Parse reads it */
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  drain: {}\n", KP_EINVAL),
                 "actions[0]: drain: exactly one of node and nodeSelector is required");
    KT_CHECK_STR(
        fails(HEAD "actions:\n- at: 1s\n  drain: {nodeSelector: 'pool in (a'}\n", KP_EINVAL),
        "actions[0]: drain.nodeSelector: invalid label selector \"pool in (a\": expected "
        "')'");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  drain: {node: n1, concurrency: 0}\n", KP_ERANGE),
                 "actions[0]: drain.concurrency: 0 is out of range [1, 100000]");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n", KP_EINVAL),
                 "actions[0]: one action is required: create, delete, scale, cordon, uncordon, "
                 "taint, untaint, drain, setPriorityClass, patch, fail or recover");
    KT_CHECK_STR(
        fails(HEAD "actions:\n- at: 1s\n  cordon: {node: a}\n  drain: {node: a}\n", KP_EINVAL),
        "actions[0]: drain: only one action per entry (cordon is there too)");
    KT_CHECK_STR(fails(HEAD "actions:\n- 5\n", KP_EINVAL), "actions[0]: expected an object");
    KT_CHECK_STR(fails(HEAD "actions: {}\n", KP_EINVAL), "actions: expected an array, got an "
                                                         "object");
    /* seed */
    KT_CHECK_STR(fails(HEAD "seed: -1\n", KP_EINVAL),
                 "seed: expected an integer from 0 to 18446744073709551615");
    KT_CHECK_STR(fails(HEAD "seed: 18446744073709551616\n", KP_EINVAL),
                 "seed: expected an integer from 0 to 18446744073709551615");
    KT_CHECK_STR(fails(HEAD "seed: '7'\n", KP_EINVAL),
                 "seed: expected an integer from 0 to 18446744073709551615");
}

KT_TEST(create_errors) {
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  create: {}\n", KP_EINVAL),
                 "actions[0]: create: exactly one of objects and file is required");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  create: {objects: [], file: x}\n", KP_EINVAL),
                 "actions[0]: create: exactly one of objects and file is required");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  create: {objects: []}\n", KP_EINVAL),
                 "actions[0]: create.objects: at least one object");
    KT_CHECK_STR(fails(HEAD "actions:\n- at: 1s\n  create: {objects: [x]}\n", KP_EINVAL),
                 "actions[0]: create.objects[0]: expected an object");
    /* the loader's own message, behind the object's place */
    KT_CHECK_CONTAINS(fails(HEAD
                            "actions:\n- at: 1s\n  drain: {node: a}\n- at: 2s\n  create:\n"
                            "    objects:\n    - {apiVersion: v1, kind: Node, metadata: {name: "
                            "n}}\n    - apiVersion: v1\n      kind: Pod\n      metadata: {name: "
                            "x}\n      spec:\n        containers:\n        - name: c\n"
                            "          resources: {requests: {cpu: 1.2.3}}\n",
                            KP_EINVAL),
                      "actions[1].create.objects[1]: Pod default/x: "
                      "spec.containers[0].resources.requests.cpu: invalid quantity \"1.2.3\"");
    KT_CHECK_STR(
        fails(HEAD "actions:\n- at: 1s\n  create: {objects: [{metadata: {name: a}}]}\n", KP_EINVAL),
        "actions[0].create.objects[0]: kind: required value (not a Kubernetes object)");
    /* the error's line is the object's line in the scenario */
    kp_error err;
    kp_scenario *sc = load(HEAD "actions:\n- at: 1s\n  create:\n    objects:\n    - kind: Pod\n"
                                "      metadata: {name: 'a b'}\n      spec: {priority: x}\n",
                           NULL, &err);
    KT_CHECK(sc == NULL);
    KT_CHECK_INT(err.line, 7);
}

KT_TEST(lifetime_errors) {
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- selector: {matchExpressions: [{key: a, operator: "
                            "Equals, values: [b]}]}\n  after: 1m\n",
                       KP_EINVAL),
                 "lifetimes[0]: selector.matchExpressions[0].operator: Invalid value: "
                 "\"Equals\": not a valid selector operator");
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- selector: {matchExpressions: [{key: a, operator: "
                            "In}]}\n  after: 1m\n",
                       KP_EINVAL),
                 "lifetimes[0]: selector.matchExpressions[0].values: Required value: must be "
                 "specified when `operator` is 'In' or 'NotIn'");
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- selector: {matchExpressions: [{key: a, operator: "
                            "Exists, values: [b]}]}\n  after: 1m\n",
                       KP_EINVAL),
                 "lifetimes[0]: selector.matchExpressions[0].values: Forbidden: may not be "
                 "specified when `operator` is 'Exists' or 'DoesNotExist'");
    KT_CHECK_CONTAINS(
        fails(HEAD "lifetimes:\n- selector: {matchLabels: {'-a': b}}\n  after: 1m\n", KP_EINVAL),
        "lifetimes[0]: selector.matchLabels: Invalid value: \"-a\": name part");
    KT_CHECK_CONTAINS(fails(HEAD "lifetimes:\n- selector: {matchLabels: {a: 'b c'}}\n  after: "
                                 "1m\n",
                            KP_EINVAL),
                      "lifetimes[0]: selector.matchLabels: Invalid value: \"b c\": a valid "
                      "label must be");
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- after: 1m\n", KP_EINVAL),
                 "lifetimes[0]: selector: required value");
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- selector: {}\n", KP_EINVAL),
                 "lifetimes[0]: after: required value");
    KT_CHECK_STR(fails(HEAD "lifetimes:\n- selector: {matchFields: []}\n  after: 1s\n", KP_EINVAL),
                 "lifetimes[0]: selector.matchFields: unknown field");
}

/* more than KP_SCENARIO_MAX_ACTIONS (1,000,000) entries: an error naming the limit */
KT_TEST(action_limit) {
    size_t n = 1000001, len = 0;
    char *text = malloc(n * 2 + 200);
    KT_CHECK(text != NULL);
    if (!text) return;
    len += (size_t)sprintf(text, "{\"apiVersion\": \"kprio/v1alpha1\", \"kind\": \"Scenario\", "
                                 "\"actions\": [0");
    for (size_t i = 1; i < n; i++) {
        text[len++] = ',';
        text[len++] = '0';
    }
    len += (size_t)sprintf(text + len, "]}");
    KT_CHECK_STR(fails(text, KP_ELIMIT), "actions: more than 1000000 entries (kprio's limit)");
    free(text);
}

KT_TEST(alloc_fail_sweep) {
    int runs = 0;
    for (long n = 0; n < 100000; n++) {
        kp__alloc_fail_after(n, false);
        kp_scenario *sc = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_status st =
            kp_scenario_load_buffer("s.yaml", ALL_ACTIONS, strlen(ALL_ACTIONS), NULL, &sc, &err);
        kp__alloc_fail_after(-1, false);
        runs++;
        if (st == KP_OK) {
            KT_CHECK(sc != NULL && sc->n_actions == 11);
            kp_scenario_free(sc);
            break;
        }
        KT_CHECK_INT(st, KP_ENOMEM);
        KT_CHECK(sc == NULL);
    }
    KT_CHECK(runs > 15); /* every allocation of the load failed once */
}

/* ---------------------------------------------------------------- finalized clusters */

/* clang-format off */
static const char BASE[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
    "value: 1000\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\n"
    "spec: {nodeName: n1, priorityClassName: high, containers: [{name: c, image: i, "
    "resources: {requests: {cpu: '1'}}}]}\n";
#define POD(name, extra) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name "}\nspec: {" extra \
    "containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]}\n"
/* clang-format on */

static kp_cluster *base_cluster(void) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(cl, "base.yaml", BASE, sizeof BASE - 1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    return cl;
}

static kp_status more(kp_cluster *cl, const char *text, kp_error *err) {
    kp_error_clear(err);
    kp_status st = kp_cluster_load_buffer(cl, "more.yaml", text, strlen(text), err);
    return st == KP_OK ? kp_cluster_finalize(cl, err) : st;
}

KT_TEST(load_after_finalize) {
    kp_cluster *cl = base_cluster();
    uint64_t gen = cl->gen_struct;
    kp_error err;
    const char *text =
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
        "mid}\nvalue: 500\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n" POD(
            "b", "nodeName: n1, priorityClassName: high, ") POD("c", "priorityClassName: mid, ");
    KT_CHECK_INT(more(cl, text, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 3);
    KT_CHECK_INT(kp_cluster_node_count(cl), 2);
    kp_index b = kp_cluster_find_pod(cl, "b"), c = kp_cluster_find_pod(cl, "c");
    KT_CHECK(b == 1 && c == 2); /* the next indices */
    KT_CHECK_INT(kp_cluster_pod_priority(cl, b), 1000);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, c), 500);
    KT_CHECK_INT(kp_cluster_pod_node(cl, b), 0); /* bound to n1, which it names */
    KT_CHECK_INT(kp_cluster_pod_node(cl, c), -1);
    KT_CHECK_INT(cl->nodes[0].n_pods, 2);
    KT_CHECK_INT(cl->nodes[0].requested[0], 2000); /* cpu of a and b */
    KT_CHECK(cl->gen_struct > gen);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Pod"), 3);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Node"), 2);
    KT_CHECK_INT(kp_cluster_object_count(cl, "PriorityClass"), 4); /* 2 built-in */
    KT_CHECK_INT(kp_cluster_object_count(cl, "ReplicaSet"), 0);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Secret"), 0);
    /* finalize again with nothing new: nothing changes */
    gen = cl->gen_struct;
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK);
    KT_CHECK(cl->gen_struct == gen);
    KT_CHECK_INT(cl->nodes[0].n_pods, 2);
    /* workload kinds, PDBs, namespaces and volumes are counted per kind */
    KT_CHECK_INT(more(cl,
                      "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\n---\n"
                      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\n"
                      "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
                      "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: sc}\n"
                      "provisioner: x\n",
                      &err),
                 KP_OK);
    KT_CHECK(cl->gen_struct == gen); /* no pod or node added */
    KT_CHECK_INT(kp_cluster_object_count(cl, "ReplicaSet"), 1);
    KT_CHECK_INT(kp_cluster_object_count(cl, "PodDisruptionBudget"), 1);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Namespace"), 1);
    KT_CHECK_INT(kp_cluster_object_count(cl, "StorageClass"), 1);
    kp_cluster_free(cl);
}

KT_TEST(duplicate_refused_nothing_kept) {
    kp_cluster *cl = base_cluster();
    kp_error err;
    uint64_t gen = cl->gen_struct;
    size_t warnings = kp_cluster_warning_count(cl);
    /* d comes first and is dropped with the load */
    KT_CHECK_INT(more(cl, POD("d", "") POD("a", ""), &err), KP_EINVAL);
    KT_CHECK_STR(err.source, "more.yaml");
    KT_CHECK_STR(err.msg, "document 2 (Pod default/a): already exists");
    KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
    KT_CHECK(kp_cluster_find_pod(cl, "d") < 0);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Pod"), 1);
    KT_CHECK_INT(kp_cluster_warning_count(cl), warnings);
    KT_CHECK(cl->gen_struct == gen);
    /* the same name twice in one load */
    KT_CHECK_INT(more(cl, POD("e", "") POD("e", ""), &err), KP_EINVAL);
    KT_CHECK(kp_cluster_find_pod(cl, "e") < 0);
    /* other kinds, a built-in class too */
    KT_CHECK_INT(more(cl, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "Node n1: already exists");
    KT_CHECK_INT(more(cl,
                      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                      "system-node-critical}\nvalue: 2000001000\n",
                      &err),
                 KP_EINVAL);
    KT_CHECK_STR(err.msg, "PriorityClass system-node-critical: already exists");
    /* a load failing on a bad field is undone too */
    KT_CHECK_INT(more(cl, POD("f", "") POD("g", "priority: x, "), &err), KP_EINVAL);
    KT_CHECK(kp_cluster_find_pod(cl, "f") < 0);
    /* the cluster stays usable: d loads now (its identity was forgotten with the load) */
    KT_CHECK_INT(more(cl, POD("d", "nodeName: n1, "), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "d"), 1);
    KT_CHECK_INT(kp_cluster_pod_node(cl, 1), 0);
    KT_CHECK_INT(cl->nodes[0].n_pods, 2);
    KT_CHECK(cl->gen_struct > gen);
    kp_cluster_free(cl);
}

KT_TEST(incremental_finalize_errors_undone) {
    kp_cluster *cl = base_cluster();
    kp_error err;
    const char *g1 = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                     "g1}\nvalue: 10\nglobalDefault: true\n";
    KT_CHECK_INT(more(cl, g1, &err), KP_OK);
    /* a second globalDefault class is refused, as the admission plugin refuses its create */
    const char *g2 = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                     "g2}\nvalue: 20\nglobalDefault: true\n" POD("p", "nodeName: n1, ");
    KT_CHECK_INT(more(cl, g2, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "globalDefault: Forbidden: PriorityClass g1 is already marked as "
                               "default");
    KT_CHECK(kp_cluster_find_pod(cl, "p") < 0);
    KT_CHECK_INT(kp_cluster_object_count(cl, "PriorityClass"), 4);
    KT_CHECK_INT(cl->nodes[0].n_pods, 1);
    /* a value above the user range, a system- name */
    KT_CHECK_INT(more(cl,
                      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                      "huge}\nvalue: 1000000001\n",
                      &err),
                 KP_EINVAL);
    /* a pod naming a class that does not exist, bound after a good one: both undone, the
     * node's accounting as it was */
    KT_CHECK_INT(more(cl, POD("q", "nodeName: n1, ") POD("r", "priorityClassName: nope, "), &err),
                 KP_ENOTFOUND);
    KT_CHECK(kp_cluster_find_pod(cl, "q") < 0);
    KT_CHECK_INT(cl->nodes[0].n_pods, 1);
    KT_CHECK_INT(cl->nodes[0].requested[0], 1000);
    /* a new pod without a class gets the default class as it is now */
    KT_CHECK_INT(more(cl, POD("s", ""), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_priority(cl, kp_cluster_find_pod(cl, "s")), 10);
    kp_cluster_free(cl);
}

static char *pods_text(const char *prefix, int from, int to, const char *tail) {
    size_t cap = (size_t)(to - from) * 120 + 200, n = 0;
    char *t = malloc(cap);
    for (int i = from; i < to && t; i++)
        n += (size_t)snprintf(t + n, cap - n,
                              "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s%d}\n"
                              "spec: {containers: [{name: c}]}\n",
                              prefix, i);
    if (t) snprintf(t + n, cap - n, "%s", tail);
    return t;
}

/* Undoing a big load leaves every identity map whole: the identities it added are gone (their
 * probe chains repaired), every earlier one is found at its index. */
KT_TEST(rollback_keeps_identity_maps) {
    kp_cluster *cl = base_cluster();
    kp_error err;
    char *t = pods_text("old-", 0, 3000, "");
    KT_CHECK_INT(more(cl, t, &err), KP_OK);
    free(t);
    t = pods_text("new-", 0, 2000, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: old-7}\n");
    KT_CHECK_INT(more(cl, t, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "Pod default/old-7): already exists");
    KT_CHECK_INT(kp_cluster_pod_count(cl), 3001);
    KT_CHECK_INT(kp_cluster_object_count(cl, "Pod"), 3001);
    int lost = 0, kept = 0;
    char ref[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(ref, sizeof ref, "old-%d", i);
        lost += kp_cluster_find_pod(cl, ref) != 1 + i;
    }
    for (int i = 0; i < 2000; i++) {
        snprintf(ref, sizeof ref, "new-%d", i);
        kept += kp_cluster_find_pod(cl, ref) >= 0;
    }
    KT_CHECK_INT(lost, 0);
    KT_CHECK_INT(kept, 0);
    free(t);
    t = pods_text("new-", 0, 2000, "");
    KT_CHECK_INT(more(cl, t, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "new-1999"), 5000);
    free(t);
    kp_cluster_free(cl);
}

/* A pod the cluster makes itself after finalize (the controllers' copies): kp__pod_finalize
 * resolves it once, and the next incremental finalize starts after it; an existing identity
 * is never replaced after finalize. */
KT_TEST(pod_finalize_for_created_pods) {
    kp_cluster *cl = base_cluster();
    kp_error err;
    kp_error_clear(&err);
    kp_str ns = kp__intern(&cl->strs, "default", 7), name = kp__intern(&cl->strs, "t", 1);
    KT_CHECK(kp__cluster_new_pod(cl, ns, kp__intern(&cl->strs, "a", 1)) == NULL);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 1);
    kp_pod *p = kp__cluster_new_pod(cl, ns, name);
    KT_CHECK(p != NULL);
    if (!p) return;
    p->priority_class = kp__intern(&cl->strs, "high", 4);
    KT_CHECK_INT(kp__pod_finalize(cl, 1, &err), KP_OK);
    KT_CHECK_INT(cl->pods[1].priority, 1000);
    KT_CHECK_INT(kp__cluster_final_mark(cl)->n_pods, 2);
    KT_CHECK_INT(kp_cluster_finalize(cl, &err), KP_OK); /* nothing left to finalize */
    KT_CHECK_INT(cl->pods[1].priority, 1000);
    KT_CHECK_INT(more(cl, POD("u", ""), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "u"), 2);
    KT_CHECK_INT(kp_cluster_find_pod(cl, "t"), 1);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(every_action), KT_CASE(escaped_strings_round_trip), KT_CASE(json_scenario),
        KT_CASE(create_from_file), KT_CASE(errors_name_action_and_field), KT_CASE(create_errors),
        KT_CASE(lifetime_errors), KT_CASE(action_limit), KT_CASE(alloc_fail_sweep),
        KT_CASE(load_after_finalize), KT_CASE(duplicate_refused_nothing_kept),
        KT_CASE(incremental_finalize_errors_undone), KT_CASE(rollback_keeps_identity_maps),
        KT_CASE(pod_finalize_for_created_pods))
