/* Traces (kprio/trace.h, src/io/decode_trace*.c, docs/live.md "Replaying a trace"): what each
 * watch event becomes (an action, a decision, nothing), the pairing keys, and the errors. Each
 * case writes a small trace directory under /tmp and removes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/trace.h"

static const char SNAP[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"status\":"
    "{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"10\"}}},"
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
    "\"namespace\":\"default\"},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"a\":"
    "\"w\"}},\"template\":{\"metadata\":{\"labels\":{\"a\":\"w\"}},\"spec\":{\"containers\":"
    "[{\"name\":\"c\",\"image\":\"v1\"}]}}}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"uid\":\"ua\"},\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\","
    "\"image\":\"i\"}]}}]}";

static char dir[64];

static void put(const char *name, const char *text) {
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void rm_all(void) {
    char p[128];
    static const char *const files[] = {"manifest.json", "w.json", "snapshot"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        i < 2 ? unlink(p) : rmdir(p);
    }
    rmdir(dir);
}

/* Loads a trace of one watch file (lines) over SNAP; *err gets the error. */
static kp_trace *load(const char *lines, kp_cluster **cl, kp_error *err) {
    snprintf(dir, sizeof dir, "/tmp/kprio-test-trace.%ld", (long)getpid());
    mkdir(dir, 0700);
    put("manifest.json", "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"Trace\",\"start\":"
                         "\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:10:00Z\",\"watch\":"
                         "[\"w.json\"]}");
    put("w.json", lines);
    kp_error_clear(err);
    *cl = kp_cluster_new();
    kp_cluster_set_expand(*cl, KP_WORKLOAD_TEMPLATES);
    kp_trace *tr = NULL;
    if (kp_cluster_load_buffer(*cl, "snap", SNAP, strlen(SNAP), err) == KP_OK &&
        kp_cluster_finalize(*cl, err) == KP_OK)
        kp_trace_load(dir, *cl, &tr, err);
    rm_all();
    return tr;
}

#define NODE(t, type, spec, ready)                                                              \
    "{\"recorded\":\"2026-01-01T00:0" t "Z\",\"type\":\"" type "\",\"object\":{\"apiVersion\":" \
    "\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"spec\":{" spec "},\"status\":"   \
    "{\"conditions\":[{\"type\":\"Ready\",\"status\":\"" ready "\"}]}}}\n"

/* the user's taints and the kubelet's Ready become taint / untaint / fail / recover; the node
 * lifecycle controller's taints are the simulation's own */
KT_TEST(node_changes) {
    kp_cluster *cl;
    kp_error err;
    kp_trace *tr = load(
        NODE("0:01", "ADDED", "", "True")
            NODE("1:00", "MODIFIED",
                 "\"taints\":[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"},"
                 "{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\"}]",
                 "Unknown") NODE("2:00", "MODIFIED", "\"unschedulable\":true", "True"),
        &cl, &err);
    KT_CHECK(tr != NULL);
    if (!tr) {
        fprintf(stderr, "  %s\n", err.msg);
        kp_cluster_free(cl);
        return;
    }
    const kp_scenario *sc = kp_trace_scenario(tr);
    KT_CHECK_INT(sc->n_actions, 5);
    if (sc->n_actions == 5) {
        KT_CHECK_INT(sc->actions[0].type, KP_ACT_TAINT);
        KT_CHECK_STR(sc->actions[0].taint.key, "dedicated");
        KT_CHECK_STR(sc->actions[0].taint.value, "gpu");
        KT_CHECK_STR(sc->actions[0].ref.name, "n1");
        KT_CHECK_INT(sc->actions[0].at_ms, 60000);
        KT_CHECK_INT(sc->actions[1].type, KP_ACT_FAIL);
        KT_CHECK_INT(sc->actions[2].type, KP_ACT_CORDON);
        KT_CHECK_INT(sc->actions[3].type, KP_ACT_UNTAINT);
        KT_CHECK_STR(sc->actions[3].taint.effect, "NoSchedule");
        KT_CHECK_INT(sc->actions[4].type, KP_ACT_RECOVER);
        KT_CHECK_INT(sc->actions[4].at_ms, 120000);
    }
    KT_CHECK_INT(kp_trace_duration_ms(tr), 600000);
    kp_trace_free(tr);
    kp_cluster_free(cl);
}

#define POD(t, type, meta, spec, status)                                                        \
    "{\"recorded\":\"2026-01-01T00:0" t "Z\",\"type\":\"" type "\",\"object\":{\"apiVersion\":" \
    "\"v1\",\"kind\":\"Pod\",\"metadata\":{\"namespace\":\"default\"," meta "},\"spec\":{" spec \
    "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{" status "}}}\n"
#define RS_OWNER \
    "\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":\"web-1\",\"controller\":true}]"

/* the snapshot's pod is a state, a user's pod a creation (without its binding, which becomes a
 * Scheduled decision), a controller's pod the simulation's, generated names paired by owner and
 * rank, a user's deletion and an API eviction deletions, a preemption a decision */
KT_TEST(pod_events) {
    kp_cluster *cl;
    kp_error err;
    kp_trace *tr = load(
        POD("0:01", "ADDED", "\"name\":\"a\",\"uid\":\"ua\"", "\"nodeName\":\"n1\",",
            "") "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\"}}\n" POD("0:10", "ADDED",
                                                                              "\"name\":\"u\","
                                                                              "\"uid\":\"uu\"",
                                                                              "\"nodeName\":"
                                                                              "\"n1\",",
                                                                              "")
            POD("0:11", "MODIFIED", "\"name\":\"u\",\"uid\":\"uu\"", "\"nodeName\":\"n1\",",
                "") POD("0:12", "ADDED",
                        "\"name\":\"web-1-x\",\"generateName\":\"web-1-\",\"uid\":\"r0\"," RS_OWNER,
                        "", "")
                POD("0:13", "ADDED",
                    "\"name\":\"web-1-y\",\"generateName\":\"web-1-\",\"uid\":\"r1\"," RS_OWNER, "",
                    "")
                    POD("0:14", "MODIFIED",
                        "\"name\":\"web-1-y\",\"generateName\":\"web-1-\",\"uid\":\"r1\"," RS_OWNER,
                        "\"nodeName\":\"n1\",", "")
                        POD("0:15", "DELETED", "\"name\":\"gone\",\"uid\":\"ug\"", "", "")
                            POD("0:20", "MODIFIED",
                                "\"name\":\"u\",\"uid\":\"uu\",\"deletionTimestamp\":\"2026-01-"
                                "01T00:00:20Z\"",
                                "\"nodeName\":\"n1\",",
                                "\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":"
                                "\"True\",\"reason\":\"PreemptionByScheduler\"}]")
                                POD("0:30", "MODIFIED",
                                    "\"name\":\"a\",\"uid\":\"ua\",\"deletionTimestamp\":\"2026-01-"
                                    "01T00:00:30Z\"",
                                    "\"nodeName\":\"n1\",",
                                    "\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":"
                                    "\"True\",\"reason\":\"EvictionByEvictionAPI\"}]"),
        &cl, &err);
    KT_CHECK(tr != NULL);
    if (!tr) {
        fprintf(stderr, "  %s\n", err.msg);
        kp_cluster_free(cl);
        return;
    }
    const kp_scenario *sc = kp_trace_scenario(tr);
    KT_CHECK_INT(sc->n_actions, 2);
    if (sc->n_actions == 2) {
        KT_CHECK_INT(sc->actions[0].type, KP_ACT_CREATE);
        KT_CHECK_INT(sc->actions[0].at_ms, 10000);
        KT_CHECK(strstr(sc->actions[0].objects[0].text, "\"name\":\"u\"") != NULL);
        KT_CHECK(strstr(sc->actions[0].objects[0].text, "nodeName") == NULL);
        KT_CHECK_INT(sc->actions[1].type, KP_ACT_DELETE);
        KT_CHECK_STR(sc->actions[1].ref.name, "a");
        KT_CHECK_INT(sc->actions[1].at_ms, 30000);
    }
    KT_CHECK_INT(kp_trace_decision_count(tr), 3);
    const kp_trace_decision *d = kp_trace_decision_get(tr, 0);
    if (d) { /* u bound when first seen */
        KT_CHECK_INT(d->kind, KP_TRACE_SCHEDULED);
        KT_CHECK_STR(d->pod.name, "u");
        KT_CHECK_STR(d->node, "n1");
    }
    d = kp_trace_decision_get(tr, 1);
    if (d) { /* the second pod of web-1, paired by owner and rank */
        KT_CHECK_INT(d->kind, KP_TRACE_SCHEDULED);
        KT_CHECK_STR(d->pod.owner_kind, "ReplicaSet");
        KT_CHECK_STR(d->pod.owner_name, "web-1");
        KT_CHECK_INT(d->pod.rank, 1);
    }
    d = kp_trace_decision_get(tr, 2);
    if (d) {
        KT_CHECK_INT(d->kind, KP_TRACE_PREEMPTED);
        KT_CHECK_STR(d->pod.name, "u");
        KT_CHECK_INT(d->t_ms, 20000);
    }
    kp_trace_stats st;
    kp_trace_stats_get(tr, &st);
    KT_CHECK_INT(st.events, 10);
    KT_CHECK_INT(st.controllers, 2);
    kp_trace_free(tr);
    kp_cluster_free(cl);
}

#define DEPLOY(t, type, replicas, image)                                                        \
    "{\"recorded\":\"2026-01-01T00:0" t "Z\",\"type\":\"" type "\",\"object\":{\"apiVersion\":" \
    "\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\",\"namespace\":"         \
    "\"default\"},\"spec\":{\"replicas\":" replicas ",\"selector\":{\"matchLabels\":{\"a\":"    \
    "\"w\"}},\"template\":{\"metadata\":{\"labels\":{\"a\":\"w\"}},\"spec\":{\"containers\":"   \
    "[{\"name\":\"c\",\"image\":\"" image "\"}]}}}}}\n"

/* replicas become a scale, a new template a patch; events from before the start are history */
KT_TEST(workload_changes_and_events) {
    kp_cluster *cl;
    kp_error err;
    kp_trace *tr = load(
        DEPLOY("0:01", "ADDED", "2", "v1") DEPLOY("1:00", "MODIFIED", "5", "v1") DEPLOY(
            "2:00", "MODIFIED", "5",
            "v2") "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Event\",\"metadata\":{\"name\":"
                  "\"e1\"},"
                  "\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"a\"},"
                  "\"reason\":\"FailedScheduling\",\"lastTimestamp\":\"2025-12-31T23:00:00Z\"}}\n"
                  "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Event\",\"metadata\":{\"name\":"
                  "\"e2\"},"
                  "\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"b\"},"
                  "\"reason\":\"Scheduled\",\"message\":\"Successfully assigned default/b to n1\","
                  "\"eventTime\":\"2026-01-01T00:03:00.500000Z\"}}\n",
        &cl, &err);
    KT_CHECK(tr != NULL);
    if (!tr) {
        fprintf(stderr, "  %s\n", err.msg);
        kp_cluster_free(cl);
        return;
    }
    const kp_scenario *sc = kp_trace_scenario(tr);
    KT_CHECK_INT(sc->n_actions, 2);
    if (sc->n_actions == 2) {
        KT_CHECK_INT(sc->actions[0].type, KP_ACT_SCALE);
        KT_CHECK_INT(sc->actions[0].replicas, 5);
        KT_CHECK_INT(sc->actions[1].type, KP_ACT_PATCH);
        KT_CHECK(strstr(sc->actions[1].patch, "\"template\"") != NULL);
        KT_CHECK(strstr(sc->actions[1].patch, "v2") != NULL);
    }
    KT_CHECK_INT(kp_trace_decision_count(tr), 1);
    const kp_trace_decision *d = kp_trace_decision_get(tr, 0);
    if (d) {
        KT_CHECK_STR(d->pod.name, "b");
        KT_CHECK_STR(d->node, "n1");
        KT_CHECK_INT(d->t_ms, 180500);
    }
    kp_trace_stats st;
    kp_trace_stats_get(tr, &st);
    KT_CHECK_INT(st.before_start, 1);
    kp_trace_free(tr);
    kp_cluster_free(cl);
}

#define NODE_LABELS(t, labels)                                                                  \
    "{\"recorded\":\"2026-01-01T00:0" t "Z\",\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":" \
    "\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{" labels "}},\"spec\":" \
    "{}}}\n"

/* a node's labels changed (`kubectl label node`): one merge patch of metadata.labels per event,
 * a removed label null; the first event against the snapshot's node (which has none) */
KT_TEST(node_label_changes) {
    kp_cluster *cl;
    kp_error err;
    kp_trace *tr =
        load(NODE_LABELS("0:01", "\"a\":\"1\"") NODE_LABELS("1:00", "\"a\":\"2\",\"b\":\"x\"")
                 NODE_LABELS("2:00", "\"b\":\"x\"") NODE_LABELS("3:00", "\"b\":\"x\""),
             &cl, &err);
    KT_CHECK(tr != NULL);
    if (!tr) {
        fprintf(stderr, "  %s\n", err.msg);
        kp_cluster_free(cl);
        return;
    }
    const kp_scenario *sc = kp_trace_scenario(tr);
    KT_CHECK_INT(sc->n_actions, 3);
    static const char *const want[] = {"{\"metadata\":{\"labels\":{\"a\":\"1\"}}}",
                                       "{\"metadata\":{\"labels\":{\"a\":\"2\",\"b\":\"x\"}}}",
                                       "{\"metadata\":{\"labels\":{\"a\":null}}}"};
    static const int64_t at[] = {1000, 60000, 120000};
    for (size_t i = 0; i < 3 && i < sc->n_actions; i++) {
        KT_CHECK_INT(sc->actions[i].type, KP_ACT_PATCH);
        KT_CHECK_STR(sc->actions[i].ref.kind, "Node");
        KT_CHECK_STR(sc->actions[i].ref.name, "n1");
        KT_CHECK_STR(sc->actions[i].subresource, "");
        KT_CHECK_STR(sc->actions[i].patch, want[i]);
        KT_CHECK_INT(sc->actions[i].patch_len, strlen(want[i]));
        KT_CHECK_INT(sc->actions[i].at_ms, at[i]);
    }
    kp_trace_free(tr);
    kp_cluster_free(cl);
}

#define GEN(name, uid) \
    "\"name\":\"" name "\",\"generateName\":\"web-1-\",\"uid\":\"" uid "\"," RS_OWNER
#define DELETING(t) ",\"deletionTimestamp\":\"2026-01-01T00:0" t "Z\""
#define DB0                                                                                     \
    "\"name\":\"db-0\",\"uid\":\"d0\",\"ownerReferences\":[{\"kind\":\"StatefulSet\",\"name\":" \
    "\"db\",\"controller\":true}]"
#define EVENT(t, kind, obj, reason, msg)                                                         \
    "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Event\",\"metadata\":{\"name\":\"e" t "\"},"     \
    "\"involvedObject\":{\"kind\":\"" kind "\",\"namespace\":\"default\",\"name\":\"" obj "\"}," \
    "\"reason\":\"" reason "\",\"message\":\"" msg "\",\"eventTime\":\"2026-01-01T00:0" t        \
    "Z\"}}\n"
#define RS_WEB1(t, type)                                                                         \
    "{\"recorded\":\"2026-01-01T00:0" t "Z\",\"type\":\"" type "\",\"object\":{\"apiVersion\":"  \
    "\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"web-1\",\"namespace\":"        \
    "\"default\",\"ownerReferences\":[{\"kind\":\"Deployment\",\"name\":\"web\",\"controller\":" \
    "true}]},\"spec\":{\"replicas\":4}}}\n"

static const char OWNED_ADDS[] = POD("0:10", "ADDED", GEN("web-1-x", "r0"), "", "")
    POD("0:11", "ADDED", GEN("web-1-y", "r1"), "", "")
        POD("0:12", "ADDED", GEN("web-1-z", "r2"), "", "")
            POD("0:13", "ADDED", GEN("web-1-w", "r3"), "", "") POD("0:14", "ADDED", DB0, "", "")
                RS_WEB1("0:01", "ADDED") RS_WEB1("1:35", "DELETED");
static const char OWNED_DELETES[] =
    POD("0:20", "MODIFIED", GEN("web-1-x", "r0") DELETING("0:20"), "", "")
        POD("0:30", "MODIFIED", GEN("web-1-y", "r1") DELETING("0:30"), "", "")
            POD("0:40", "MODIFIED", GEN("web-1-z", "r2") DELETING("0:40"), "", "")
                POD("0:45", "MODIFIED", GEN("web-1-w", "r3") DELETING("0:45"), "",
                    "\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
                    "\"reason\":\"EvictionByEvictionAPI\"}]")
                    POD("0:50", "MODIFIED", DB0 DELETING("0:50"), "", "");
static const char OWNED_EVENTS[] =
    EVENT("0:30", "ReplicaSet", "web-1", "SuccessfulDelete", "Deleted pod: web-1-y")
        EVENT("2:00", "StatefulSet", "db", "SuccessfulDelete",
              "delete Pod db-0 in StatefulSet db successful");

/* deletions of pods their controllers own: a user's (no SuccessfulDelete names the pod, its
 * owner not deleted) replayed, by controller and rank for a generated name, by name for a
 * StatefulSet's; the controller's scale-down (its SuccessfulDelete) and the garbage collector's
 * (the owner deleted by then, or within a minute) left to the simulation; an API eviction
 * replayed by rank */
KT_TEST(owned_pod_deletions) {
    kp_cluster *cl;
    kp_error err;
    static char lines[sizeof OWNED_ADDS + sizeof OWNED_DELETES + sizeof OWNED_EVENTS];
    snprintf(lines, sizeof lines, "%s%s%s", OWNED_ADDS, OWNED_DELETES, OWNED_EVENTS);
    kp_trace *tr = load(lines, &cl, &err);
    KT_CHECK(tr != NULL);
    if (!tr) {
        fprintf(stderr, "  %s\n", err.msg);
        kp_cluster_free(cl);
        return;
    }
    const kp_scenario *sc = kp_trace_scenario(tr);
    KT_CHECK_INT(sc->n_actions, 3);
    if (sc->n_actions == 3) {
        const kp_scenario_action *a = &sc->actions[0]; /* web-1-x: the first pod of web-1 */
        KT_CHECK_INT(a->type, KP_ACT_DELETE);
        KT_CHECK_INT(a->at_ms, 20000);
        KT_CHECK_STR(a->ref.name, "web-1-x");
        KT_CHECK_STR(a->owner.kind, "ReplicaSet");
        KT_CHECK_STR(a->owner.name, "web-1");
        KT_CHECK_INT(a->owner_rank, 0);
        a = &sc->actions[1]; /* web-1-w's eviction: the fourth */
        KT_CHECK_INT(a->at_ms, 45000);
        KT_CHECK_STR(a->owner.kind, "ReplicaSet");
        KT_CHECK_INT(a->owner_rank, 3);
        a = &sc->actions[2]; /* db-0 by name (the StatefulSet's event is 70 s later) */
        KT_CHECK_INT(a->at_ms, 50000);
        KT_CHECK_STR(a->ref.name, "db-0");
        KT_CHECK(a->owner.kind == NULL);
    }
    kp_trace_stats st;
    kp_trace_stats_get(tr, &st);
    KT_CHECK_INT(st.by_controller, 2);
    KT_CHECK_INT(st.controllers, 5 + 2 + 2); /* 5 pods, the ReplicaSet twice, y and z */
    kp_trace_free(tr);
    kp_cluster_free(cl);
    /* without events nothing tells a user's deletion from its controller's: the controller's */
    snprintf(lines, sizeof lines, "%s%s", OWNED_ADDS, OWNED_DELETES);
    tr = load(lines, &cl, &err);
    KT_CHECK(tr != NULL);
    if (tr) {
        KT_CHECK_INT(kp_trace_scenario(tr)->n_actions, 1); /* the eviction */
        kp_trace_free(tr);
    }
    kp_cluster_free(cl);
}

/* one line naming the file, the line, the object and the field */
KT_TEST(errors_name_line_and_field) {
    kp_cluster *cl;
    kp_error err;
    kp_trace *tr = load("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":"
                        "{\"name\":\"n1\"}}}\n{\"type\":\"CHANGED\",\"object\":{}}\n",
                        &cl, &err);
    KT_CHECK(tr == NULL);
    KT_CHECK_CONTAINS(err.source, "w.json");
    KT_CHECK_CONTAINS(err.msg, "line 2: type: unknown watch event type \"CHANGED\"");
    kp_cluster_free(cl);
    tr = load("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{}}}\n", &cl, &err);
    KT_CHECK(tr == NULL);
    KT_CHECK_CONTAINS(err.msg, "line 1: object.metadata.name: required");
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(node_changes), KT_CASE(node_label_changes), KT_CASE(owned_pod_deletions),
        KT_CASE(pod_events), KT_CASE(workload_changes_and_events),
        KT_CASE(errors_name_line_and_field))
