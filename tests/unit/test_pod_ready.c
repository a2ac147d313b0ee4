/* Readiness in core (include/kprio/cluster.h, "Readiness"; src/core/pod_state.c,
 * src/io/decode_pod_ready.c): the Ready condition read from the input (status, lastTransitionTime,
 * strictly validated), the default for a pod without one, the one writer (set_ready moves
 * lastTransitionTime only on a change), podutil.IsPodReady / IsPodAvailable (the rows of upstream's
 * pod util tests: minReadySeconds 0, not yet, passed, at the boundary), the probes'
 * initialDelaySeconds (startupProbe plus readinessProbe, the last container; init containers),
 * and the encoder writing Ready / ContainersReady and the probes back. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"

static kp_cluster *load(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* clang-format off */
#define NODE "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" \
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
#define POD(name, spec, status) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: d, " \
    "creationTimestamp: '2024-01-01T00:00:00Z'}\nspec: " spec "\nstatus: " status "\n"
#define C1 "containers: [{name: c}]"

static const char *BASE = NODE
    POD("ready", "{nodeName: n1, " C1 "}",
        "{phase: Running, conditions: [{type: Ready, status: 'True', "
        "lastTransitionTime: '2024-01-01T00:01:40Z'}]}")
    POD("unready", "{nodeName: n1, " C1 "}",
        "{phase: Running, conditions: [{type: Ready, status: 'False', "
        "lastTransitionTime: '2024-01-01T00:01:40Z'}]}")
    POD("bare", "{nodeName: n1, " C1 "}", "{startTime: '2024-01-01T00:00:10Z'}")
    POD("running", "{nodeName: n1, " C1 "}", "{phase: Running}")
    POD("starting", "{nodeName: n1, " C1 "}", "{phase: Pending}")
    POD("pending", "{" C1 "}", "{}")
    POD("probed", "{containers: [{name: a, readinessProbe: {initialDelaySeconds: 10}}, "
        "{name: b, startupProbe: {initialDelaySeconds: 20}, "
        "readinessProbe: {initialDelaySeconds: 5, periodSeconds: 3}}], "
        "initContainers: [{name: s, restartPolicy: Always, readinessProbe: {}}]}", "{}");
/* clang-format on */

static const int64_t T0 = 1704067200; /* 2024-01-01T00:00:00Z */

KT_TEST(decoded_ready_condition_and_default) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index ready = kp_cluster_find_pod(cl, "d/ready"),
             unready = kp_cluster_find_pod(cl, "d/unready");
    KT_CHECK(kp_cluster_pod_ready(cl, ready));
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, ready), T0 + 100);
    KT_CHECK(!kp_cluster_pod_ready(cl, unready));
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, unready), KP_TIME_UNSET);
    /* no condition: bound and Running or no phase -> Ready since startTime, else creation */
    kp_index bare = kp_cluster_find_pod(cl, "d/bare"),
             running = kp_cluster_find_pod(cl, "d/running");
    KT_CHECK(kp_cluster_pod_ready(cl, bare));
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, bare), T0 + 10);
    KT_CHECK(kp_cluster_pod_ready(cl, running));
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, running), T0);
    KT_CHECK(!kp_cluster_pod_ready(cl, kp_cluster_find_pod(cl, "d/starting")));
    KT_CHECK(!kp_cluster_pod_ready(cl, kp_cluster_find_pod(cl, "d/pending")));
    kp_pod_info pi;
    kp_cluster_pod_info(cl, ready, &pi);
    KT_CHECK(pi.ready);
    kp_cluster_free(cl);
}

/* podutil.IsPodAvailable: the rows of TestIsPodAvailable (pod_util_test.go) */
KT_TEST(available_min_ready_seconds) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index ready = kp_cluster_find_pod(cl, "d/ready"),
             unready = kp_cluster_find_pod(cl, "d/unready");
    int64_t t = T0 + 100;
    KT_CHECK(!kp_cluster_pod_available(cl, unready, 0, t + 1000)); /* not ready */
    KT_CHECK(kp_cluster_pod_available(cl, ready, 0, t)); /* minReadySeconds 0 */
    KT_CHECK(!kp_cluster_pod_available(cl, ready, 1, t)); /* not yet */
    KT_CHECK(kp_cluster_pod_available(cl, ready, 1, t + 1)); /* Compare <= 0 */
    KT_CHECK(!kp_cluster_pod_available(cl, ready, 30, t + 29)); /* not yet */
    KT_CHECK(kp_cluster_pod_available(cl, ready, 30, t + 31)); /* passed */
    KT_CHECK(!kp_cluster_pod_available(cl, -1, 0, t));
    kp_cluster_free(cl);
}

KT_TEST(set_ready_moves_transition_time_on_change) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index ready = kp_cluster_find_pod(cl, "d/ready"),
             pend = kp_cluster_find_pod(cl, "d/pending");
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, ready, true, T0 + 500, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, ready), T0 + 100); /* unchanged status */
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, ready, false, T0 + 600, &err), KP_OK);
    KT_CHECK(!kp_cluster_pod_ready(cl, ready));
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, ready, true, T0 + 700, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_ready_time(cl, ready), T0 + 700);
    KT_CHECK(!kp_cluster_pod_available(cl, ready, 5, T0 + 704));
    KT_CHECK(kp_cluster_pod_available(cl, ready, 5, T0 + 705));
    /* only a pod running on a node can be Ready; an ended pod is not, whatever its condition */
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, pend, true, T0, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "d/pending");
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, pend, false, T0, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, 999, true, T0, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_finish_pod(cl, ready, KP_POD_PHASE_SUCCEEDED, NULL, NULL, &err), KP_OK);
    KT_CHECK(!kp_cluster_pod_ready(cl, ready));
    kp_cluster_free(cl);
}

KT_TEST(probe_delays) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    /* b: startup 20 + readiness 5 = 25, the largest; the sidecar's probe delays nothing */
    KT_CHECK_INT(kp_cluster_pod_probe_delay(cl, kp_cluster_find_pod(cl, "d/probed")), 25);
    KT_CHECK_INT(kp_cluster_pod_probe_delay(cl, kp_cluster_find_pod(cl, "d/ready")), 0);
    kp_cluster_free(cl);
}

static void bad(const char *text, const char *want) {
    kp_error err;
    kp_cluster *cl = load(text, &err);
    KT_CHECK(cl == NULL);
    KT_CHECK_CONTAINS(err.msg, want);
    kp_cluster_free(cl);
}

KT_TEST(strict_validation) {
    bad(NODE POD("p", "{containers: [{name: c, readinessProbe: {initialDelaySeconds: -1}}]}", "{}"),
        "spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -1: must be "
        "greater than or equal to 0");
    bad(NODE POD("p", "{containers: [{name: c, startupProbe: {initialDelaySeconds: x}}]}", "{}"),
        "startupProbe.initialDelaySeconds");
    bad(NODE POD("p", "{containers: [{name: c, readinessProbe: 3}]}", "{}"),
        "readinessProbe: expected an object");
    bad(NODE POD("p", "{containers: [{name: c, startupProbe: {initialDelaySeconds: 3000000000}}]}",
                 "{}"),
        "out of range");
    bad(NODE POD("p", "{containers: [{name: c}], initContainers: [{name: i, readinessProbe: {}}]}",
                 "{}"),
        "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers "
        "without restartPolicy=Always");
    bad(NODE POD("p", "{" C1 "}", "{conditions: [{type: Ready, status: 'Yes'}]}"),
        "status.conditions[0].status: Unsupported value: \"Yes\"");
    bad(NODE POD("p", "{" C1 "}", "{conditions: [{type: Ready}]}"),
        "status.conditions[0].status: Required value");
    bad(NODE POD("p", "{" C1 "}",
                 "{conditions: [{type: Ready, status: 'True', lastTransitionTime: soon}]}"),
        "lastTransitionTime");
}

typedef struct {
    char *buf;
    size_t len, cap;
} sink;

static kp_status sink_write(void *ctx, const char *b, size_t n) {
    sink *s = ctx;
    if (s->len + n + 1 > s->cap) {
        size_t cap = (s->len + n + 1) * 2;
        char *nb = realloc(s->buf, cap);
        if (!nb) return KP_ENOMEM;
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, b, n);
    s->len += n;
    s->buf[s->len] = 0;
    return KP_OK;
}

static char *encode(const kp_cluster *cl) {
    sink s = {0};
    kp_encode_options o;
    kp_encode_options_init(&o);
    kp_error err;
    KT_CHECK_INT(kp_cluster_encode_json(cl, &o, sink_write, &s, &err), KP_OK);
    return s.buf ? s.buf : calloc(1, 1);
}

KT_TEST(encoded_conditions_and_probes) {
    kp_error err;
    kp_cluster *cl = load(BASE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_index unready = kp_cluster_find_pod(cl, "d/unready");
    KT_CHECK_INT(kp_cluster_pod_set_ready(cl, unready, true, T0 + 300, &err), KP_OK);
    char *out = encode(cl);
    KT_CHECK_CONTAINS(out, "{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":"
                           "\"2024-01-01T00:05:00Z\"},{\"type\":\"ContainersReady\",\"status\":"
                           "\"True\",\"lastTransitionTime\":\"2024-01-01T00:05:00Z\"}");
    KT_CHECK_CONTAINS(out, "\"startupProbe\":{\"initialDelaySeconds\":20}");
    KT_CHECK_CONTAINS(out, "\"readinessProbe\":{\"initialDelaySeconds\":5}");
    /* a pod whose input had no condition gets none written (the default is read again) */
    const char *bare = strstr(out, "\"name\":\"bare\"");
    const char *next = bare ? strstr(bare, "\"name\":\"running\"") : NULL;
    KT_CHECK(bare && next);
    if (bare && next) {
        const char *cond = strstr(bare, "\"Ready\"");
        KT_CHECK(!cond || cond > next);
    }
    /* read back: the same readiness and delays */
    kp_cluster *again = kp_cluster_new();
    KT_CHECK_INT(kp_cluster_load_buffer(again, "out.json", out, strlen(out), &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(again, &err), KP_OK);
    kp_index u2 = kp_cluster_find_pod(again, "d/unready");
    KT_CHECK(kp_cluster_pod_ready(again, u2));
    KT_CHECK_INT(kp_cluster_pod_ready_time(again, u2), T0 + 300);
    KT_CHECK_INT(kp_cluster_pod_probe_delay(again, kp_cluster_find_pod(again, "d/probed")), 25);
    KT_CHECK(kp_cluster_pod_ready(again, kp_cluster_find_pod(again, "d/bare")));
    kp_cluster_free(again);
    free(out);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(decoded_ready_condition_and_default), KT_CASE(available_min_ready_seconds),
        KT_CASE(set_ready_moves_transition_time_on_change), KT_CASE(probe_delays),
        KT_CASE(strict_validation), KT_CASE(encoded_conditions_and_probes))
