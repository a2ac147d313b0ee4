/* kp_cluster_encode_json (include/kprio/encode.h): the cluster written back as a v1 List loads
 * again into the same model. For every golden case's input (and the bundled example): load ->
 * encode -> load the text into a fresh cluster -> encode again gives the same bytes, and the
 * scheduler decides the same on both clusters (every result: outcome, node, nominated node,
 * victims by name, message); the state a scheduling run leaves (bindings, nominations,
 * terminating victims with their DisruptionTarget condition) survives the round trip too. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"
#include "kprio/sched.h"

typedef struct {
    char *buf;
    size_t len, cap;
    size_t fail_at; /* KP_EIO once this many bytes were written (0: never) */
} sink;

static kp_status sink_write(void *ctx, const char *b, size_t n) {
    sink *s = ctx;
    if (s->fail_at && s->len + n >= s->fail_at) return KP_EIO;
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

static char *encode(const kp_cluster *cl, bool pretty, size_t *len) {
    sink s = {0};
    kp_encode_options o;
    kp_encode_options_init(&o);
    o.pretty = pretty;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cluster_encode_json(cl, &o, sink_write, &s, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) fprintf(stderr, "  encode: %s\n", err.msg);
    *len = s.len;
    return s.buf ? s.buf : calloc(1, 1);
}

/* What a golden case runs: its inputs and the settings that change the model or the run. */
typedef struct {
    char dir[320];
    char files[8][512];
    int n_files;
    bool recursive;
    unsigned flags; /* kp_cluster_set_expand */
    char gates[512];
    char config[512];
    char compat[16];
    bool until_settled;
    bool sched; /* schedule / why: the configuration applies */
} golden;

static kp_cluster *load(const golden *g, unsigned flags, bool quiet) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp_status st = cl ? kp_cluster_set_expand(cl, flags) : KP_ENOMEM;
    if (st == KP_OK && g->gates[0]) {
        kp_feature_gates fg = *kp_cluster_feature_gates(cl);
        st = kp_feature_gates_parse(&fg, g->gates, &err);
        if (st == KP_OK) st = kp_cluster_set_feature_gates(cl, &fg);
    }
    for (int i = 0; i < g->n_files && st == KP_OK; i++)
        st = kp_cluster_load_path(cl, g->files[i], g->recursive, &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    if (st != KP_OK) {
        if (!quiet) fprintf(stderr, "  %s: %s: %s\n", g->dir, err.source, err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* The same settings, the objects of text instead of the files. */
static kp_cluster *reload(const golden *g, unsigned flags, const char *text, size_t len) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    /* expansion happened already: its pods are in the text; templates are read as before */
    kp_status st = kp_cluster_set_expand(cl, flags ? KP_WORKLOAD_TEMPLATES : 0);
    if (st == KP_OK && g->gates[0]) {
        kp_feature_gates fg = *kp_cluster_feature_gates(cl);
        st = kp_feature_gates_parse(&fg, g->gates, &err);
        if (st == KP_OK) st = kp_cluster_set_feature_gates(cl, &fg);
    }
    if (st == KP_OK) st = kp_cluster_load_buffer(cl, "encoded.json", text, len, &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) {
        fprintf(stderr, "  %s: reloading the encoded text: %s: %s\n", g->dir, err.source, err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_sched *run_sched(const golden *g, kp_cluster *cl) {
    kp_sched_config *cfg = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (g->sched && g->config[0] && kp_sched_config_load_path(g->config, NULL, &cfg, &err) != KP_OK)
        cfg = NULL;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 1;
    o.until_settled = g->until_settled;
    o.compat = g->compat[0] ? g->compat : NULL;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(cl, cfg, &o, &s, &err);
    if (st == KP_OK) st = kp_sched_run(s, &err);
    kp_sched_config_free(cfg);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) {
        fprintf(stderr, "  %s: scheduling: %s\n", g->dir, err.msg);
        kp_sched_free(s);
        return NULL;
    }
    return s;
}

static const char *pod_ref(const kp_cluster *cl, kp_index p, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(cl, p), kp_cluster_pod_name(cl, p));
    return buf;
}

/* Every result of two runs is the same, by names. */
static bool same_results(const char *what, const kp_cluster *ca, const kp_sched *a,
                         const kp_cluster *cb, const kp_sched *b) {
    size_t n = kp_sched_result_count(a);
    if (n != kp_sched_result_count(b)) {
        fprintf(stderr, "  %s: %zu results, after the round trip %zu\n", what, n,
                kp_sched_result_count(b));
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const kp_sched_pod_result *x = kp_sched_result(a, i), *y = kp_sched_result(b, i);
        char px[600], py[600];
        pod_ref(ca, x->pod, px, sizeof px);
        pod_ref(cb, y->pod, py, sizeof py);
        bool same =
            strcmp(px, py) == 0 && x->outcome == y->outcome && x->priority == y->priority &&
            x->n_victims == y->n_victims && x->pdb_violations == y->pdb_violations &&
            strcmp(kp_cluster_node_name(ca, x->node), kp_cluster_node_name(cb, y->node)) == 0 &&
            strcmp(kp_cluster_node_name(ca, x->nominated_node),
                   kp_cluster_node_name(cb, y->nominated_node)) == 0 &&
            strcmp(x->message, y->message) == 0 && strcmp(x->decided_by, y->decided_by) == 0;
        for (size_t v = 0; same && v < x->n_victims; v++) {
            char vx[600], vy[600];
            same = strcmp(pod_ref(ca, x->victims[v], vx, sizeof vx),
                          pod_ref(cb, y->victims[v], vy, sizeof vy)) == 0 &&
                   strcmp(kp_cluster_node_name(ca, x->victim_nodes[v]),
                          kp_cluster_node_name(cb, y->victim_nodes[v])) == 0;
        }
        if (!same) {
            fprintf(stderr,
                    "  %s: result %zu differs: %s %d node=%s nom=%s \"%s\" | %s %d node=%s "
                    "nom=%s \"%s\"\n",
                    what, i, px, (int)x->outcome, kp_cluster_node_name(ca, x->node),
                    kp_cluster_node_name(ca, x->nominated_node), x->message, py, (int)y->outcome,
                    kp_cluster_node_name(cb, y->node), kp_cluster_node_name(cb, y->nominated_node),
                    y->message);
            return false;
        }
    }
    return true;
}

/* The round trip of one input with expansion flags `flags`; false when the input does not load
 * (an error case of the goldens). */
static bool roundtrip(const golden *g, unsigned flags) {
    kp_cluster *c1 = load(g, flags, true);
    if (!c1) return false;
    size_t l1, l2, l3, l4;
    char *e1 = encode(c1, false, &l1);
    kp_cluster *c2 = reload(g, flags, e1, l1);
    char *e2 = c2 ? encode(c2, false, &l2) : NULL;
    bool same = e2 && l1 == l2 && memcmp(e1, e2, l1) == 0;
    KT_CHECK(same);
    if (!same && e2) {
        size_t k = 0;
        while (k < l1 && k < l2 && e1[k] == e2[k]) k++;
        size_t from = k > 80 ? k - 80 : 0;
        fprintf(stderr,
                "  %s: second encoding differs at byte %zu:\n   first: %.200s\n  second: %.200s\n",
                g->dir, k, e1 + from, e2 + from);
    }
    /* the pretty form loads to the same model */
    char *p1 = c2 ? encode(c1, true, &l3) : NULL;
    kp_cluster *c3 = p1 ? reload(g, flags, p1, l3) : NULL;
    char *e3 = c3 ? encode(c3, false, &l4) : NULL;
    KT_CHECK(e3 && l4 == l1 && memcmp(e1, e3, l1) == 0);
    /* the scheduler decides the same on both */
    kp_sched *s1 = c2 ? run_sched(g, c1) : NULL, *s2 = s1 ? run_sched(g, c2) : NULL;
    KT_CHECK(s1 && s2 && same_results(g->dir, c1, s1, c2, s2));
    /* the state the run left (bindings, nominations, terminating victims) round-trips, and a
     * second run over it decides the same as over the original */
    char *f1 = s2 ? encode(c1, false, &l3) : NULL;
    kp_cluster *c4 = f1 ? reload(g, flags, f1, l3) : NULL;
    char *f2 = c4 ? encode(c4, false, &l4) : NULL;
    KT_CHECK(f2 && l3 == l4 && memcmp(f1, f2, l3) == 0);
    kp_sched *t1 = c4 ? run_sched(g, c1) : NULL, *t4 = t1 ? run_sched(g, c4) : NULL;
    char what[400];
    snprintf(what, sizeof what, "%s (second run)", g->dir);
    KT_CHECK(t1 && t4 && same_results(what, c1, t1, c4, t4));
    kp_sched_free(s1);
    kp_sched_free(s2);
    kp_sched_free(t1);
    kp_sched_free(t4);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    kp_cluster_free(c3);
    kp_cluster_free(c4);
    free(e1);
    free(e2);
    free(e3);
    free(p1);
    free(f1);
    free(f2);
    return true;
}

/* Splits an args line into words (single quotes group). */
static int split_args(char *line, char **w, int max) {
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        char *out = p;
        w[n++] = out;
        while (*p && *p != ' ' && *p != '\n') {
            if (*p == '\'') {
                p++;
                while (*p && *p != '\'') *out++ = *p++;
                if (*p) p++;
            } else {
                *out++ = *p++;
            }
        }
        if (*p) p++;
        *out = 0;
    }
    return n;
}

static bool parse_golden(const char *dir, golden *g) {
    memset(g, 0, sizeof *g);
    snprintf(g->dir, sizeof g->dir, "%s", dir);
    char path[600], line[2048];
    snprintf(path, sizeof path, "%s/args", dir);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *w[64];
    int nw = split_args(line, w, 64);
    if (nw < 1) return false;
    g->sched = strcmp(w[0], "schedule") == 0 || strcmp(w[0], "why") == 0;
    for (int i = 1; i < nw; i++) {
        const char *next = i + 1 < nw ? w[i + 1] : NULL;
        if (strcmp(w[i], "-f") == 0 && next && g->n_files < 8 && strcmp(next, "-") != 0)
            snprintf(g->files[g->n_files++], sizeof g->files[0], "%s/%s", dir, next);
        else if (strcmp(w[i], "-R") == 0) g->recursive = true;
        else if (strcmp(w[i], "--expand-workloads") == 0) g->flags |= KP_EXPAND_WORKLOADS;
        else if (strcmp(w[i], "--expand-cronjobs") == 0)
            g->flags |= KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS;
        else if (strcmp(w[i], "--feature-gates") == 0 && next)
            snprintf(g->gates, sizeof g->gates, "%s", next);
        else if (strcmp(w[i], "--config") == 0 && next)
            snprintf(g->config, sizeof g->config, "%s/%s", dir, next);
        else if (strcmp(w[i], "--compat") == 0 && next)
            snprintf(g->compat, sizeof g->compat, "%s", next);
        else if (strcmp(w[i], "--until-settled") == 0) g->until_settled = true;
    }
    return g->n_files > 0;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every golden case whose input loads: with its own settings, and with pod templates decoded. */
KT_TEST(golden_inputs_round_trip) {
    DIR *d = opendir("tests/golden");
    KT_CHECK(d != NULL);
    if (!d) return;
    char *names[1024];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 1024)
        if (de->d_name[0] != '.') names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    int loaded = 0, with_templates = 0;
    for (size_t i = 0; i < n; i++) {
        char dir[300];
        snprintf(dir, sizeof dir, "tests/golden/%s", names[i]);
        golden g;
        if (parse_golden(dir, &g)) {
            loaded += roundtrip(&g, g.flags);
            with_templates += roundtrip(&g, g.flags | KP_WORKLOAD_TEMPLATES);
        }
        free(names[i]);
    }
    /* most cases load (the others are error cases) */
    fprintf(stderr, "  %d golden inputs round-tripped (%d with templates)\n", loaded,
            with_templates);
    KT_CHECK(loaded > 150);
    KT_CHECK(with_templates > 150);
}

KT_TEST(example_round_trip) {
    golden g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "examples");
    snprintf(g.files[0], sizeof g.files[0], "examples/cluster.yaml");
    snprintf(g.files[1], sizeof g.files[1], "examples/whatif-critical.yaml");
    g.n_files = 1;
    KT_CHECK(roundtrip(&g, 0));
    KT_CHECK(roundtrip(&g, KP_WORKLOAD_TEMPLATES));
    g.n_files = 2;
    KT_CHECK(roundtrip(&g, 0));
    snprintf(g.files[0], sizeof g.files[0], "examples/admit");
    g.n_files = 1;
    KT_CHECK(roundtrip(&g, 0));
}

static kp_cluster *from_text(const char *text) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cluster_load_buffer(cl, "t.yaml", text, strlen(text), &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) fprintf(stderr, "  %s\n", err.msg);
    return cl;
}

static const char TERMINATING[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: going\n  namespace: default\n"
    "  creationTimestamp: '2026-01-01T00:00:00Z'\n"
    "  deletionTimestamp: '2026-01-02T03:04:05.123Z'\n"
    "spec:\n  nodeName: n1\n  priority: 5\n  terminationGracePeriodSeconds: 45\n"
    "  containers: [{name: c, resources: {requests: {cpu: 800m}}}]\n"
    "status:\n  phase: Running\n  conditions:\n"
    "  - {type: Ready, status: 'True'}\n"
    "  - {type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler,\n"
    "     message: \"Preempted by pod \\\"x\\\"\\n\\ton node n1\"}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: waiting, namespace: default}\n"
    "spec:\n  priority: 100\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n"
    "status: {nominatedNodeName: n1}\n";

/* A terminating pod (deletionTimestamp, the DisruptionTarget condition) stays terminating: the
 * preemptor nominated to its node waits for it instead of preempting again
 * (PodEligibleToPreemptOthers). */
KT_TEST(terminating_pod_survives) {
    kp_cluster *c1 = from_text(TERMINATING);
    size_t l1, l2;
    char *e1 = encode(c1, false, &l1);
    KT_CHECK_CONTAINS(e1, "\"deletionTimestamp\":\"2026-01-02T03:04:05Z\"");
    KT_CHECK_CONTAINS(e1, "\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
                          "\"reason\":\"PreemptionByScheduler\",\"message\":\"Preempted by pod "
                          "\\\"x\\\"\\n\\ton node n1\"}]");
    KT_CHECK_CONTAINS(e1, "\"terminationGracePeriodSeconds\":45");
    KT_CHECK_CONTAINS(e1, "\"nominatedNodeName\":\"n1\"");
    kp_cluster *c2 = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(c2, "e.json", e1, l1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(c2, &err), KP_OK);
    kp_index p1 = kp_cluster_find_pod(c1, "default/going"), p2 = kp_cluster_find_pod(c2, "going");
    KT_CHECK(p1 >= 0 && p2 >= 0);
    if (p1 >= 0 && p2 >= 0) {
        const kp_pod *a = &c1->pods[p1], *b = &c2->pods[p2];
        KT_CHECK_INT(b->deletion_ts, a->deletion_ts);
        KT_CHECK_INT(b->termination_grace, 45);
        KT_CHECK_INT(b->n_conditions, 1);
        KT_CHECK_STR(kp__s(c2, b->conditions[0].reason), "PreemptionByScheduler");
        KT_CHECK_STR(kp__s(c2, b->conditions[0].message), "Preempted by pod \"x\"\n\ton node n1");
        KT_CHECK_INT(kp_cluster_pod_node(c2, p2), 0);
    }
    char *e2 = encode(c2, false, &l2);
    KT_CHECK(l1 == l2 && memcmp(e1, e2, l1) == 0);
    golden g = {.dir = "terminating"};
    kp_sched *s1 = run_sched(&g, c1), *s2 = run_sched(&g, c2);
    KT_CHECK(s1 && s2 && same_results("terminating", c1, s1, c2, s2));
    const kp_sched_pod_result *r = s2 ? kp_sched_result(s2, 0) : NULL;
    KT_CHECK(r && r->outcome == KP_OUTCOME_UNSCHEDULABLE);
    KT_CHECK_CONTAINS(r ? r->message : NULL,
                      "preemption: not eligible due to a terminating pod on the nominated node");
    kp_sched_free(s1);
    kp_sched_free(s2);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    free(e1);
    free(e2);
}

/* A preemption's victims, as the scheduler leaves them (deletionTimestamp, DisruptionTarget with
 * reason PreemptionByScheduler, the preemptor nominated), are written as such. */
KT_TEST(preemption_state_survives) {
    golden g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "tests/golden/preempt-a1-higher-priority");
    snprintf(g.files[0], sizeof g.files[0], "%s/cluster.yaml", g.dir);
    g.n_files = 1;
    kp_cluster *c1 = load(&g, 0, false);
    KT_CHECK(c1 != NULL);
    if (!c1) return;
    kp_sched *s = run_sched(&g, c1);
    const kp_sched_pod_result *r = NULL;
    for (size_t i = 0; s && i < kp_sched_result_count(s); i++)
        if (kp_sched_result(s, i)->n_victims) r = kp_sched_result(s, i);
    KT_CHECK(r != NULL);
    size_t l1;
    char *e1 = encode(c1, false, &l1);
    kp_cluster *c2 = reload(&g, 0, e1, l1);
    if (r && c2) {
        char ref[600];
        kp_index v = kp_cluster_find_pod(c2, pod_ref(c1, r->victims[0], ref, sizeof ref));
        kp_index pre = kp_cluster_find_pod(c2, pod_ref(c1, r->pod, ref, sizeof ref));
        KT_CHECK(v >= 0 && pre >= 0);
        if (v >= 0 && pre >= 0) {
            const kp_pod *vp = &c2->pods[v];
            KT_CHECK(vp->deletion_ts != KP_TIME_NONE);
            KT_CHECK_INT(vp->n_conditions, 1);
            KT_CHECK(vp->n_conditions == 1 &&
                     strcmp(kp__s(c2, vp->conditions[0].reason), "PreemptionByScheduler") == 0);
            KT_CHECK_STR(kp__s(c2, c2->pods[pre].nominated_node),
                         kp_cluster_node_name(c1, r->nominated_node));
        }
    }
    kp_sched_free(s);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    free(e1);
}

static const char VALUES[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
    "\"labels\":{\"z\":\"1\",\"a\":\"q\\\"b\\\\s\\u0001\\u001f\\t\",\"m\":\"h\\u00e9\\u2028\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"memory\":"
    "\"1.5Gi\",\"cpu\":0.5,\"example.com/x\":\"1e3\"},\"limits\":{\"cpu\":\"+1\"}}}]}}";

/* Strings are JSON-escaped (quotes, backslashes, control characters) and UTF-8 passes through;
 * labels, maps and quantities are printed as the API server prints them. */
KT_TEST(strings_and_values) {
    kp_cluster *cl = from_text(VALUES);
    size_t l1, l2;
    char *e1 = encode(cl, false, &l1);
    KT_CHECK_CONTAINS(e1, "\"labels\":{\"a\":\"q\\\"b\\\\s\\u0001\\u001f\\t\",\"m\":\"h\xc3\xa9"
                          "\xe2\x80\xa8\",\"z\":\"1\"}");
    /* Quantity.String(): canonical, or the text kept by ParseQuantity ("+1") */
    KT_CHECK_CONTAINS(e1, "\"limits\":{\"cpu\":\"+1\"},\"requests\":{\"cpu\":\"500m\","
                          "\"example.com/x\":\"1e3\",\"memory\":\"1536Mi\"}");
    kp_cluster *c2 = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(c2, "e.json", e1, l1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(c2, &err), KP_OK);
    char *e2 = encode(c2, true, &l2);
    KT_CHECK_CONTAINS(e2, "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": "
                          "[\n        {\n            \"apiVersion\": \"v1\",\n");
    KT_CHECK(l2 > 2 && e2[l2 - 2] == '}' && e2[l2 - 1] == '\n');
    kp_cluster_free(cl);
    kp_cluster_free(c2);
    free(e1);
    free(e2);
}

/* A writer's failure stops the encoding and comes back with its status. */
KT_TEST(writer_failure) {
    kp_cluster *cl = from_text(TERMINATING);
    sink s = {0};
    s.fail_at = 10;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, sink_write, &s, &err), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "write failed");
    KT_CHECK_INT(kp_cluster_encode_json(NULL, NULL, sink_write, &s, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, NULL, &s, &err), KP_EINVAL);
    free(s.buf);
    kp_cluster_free(cl);
}

/* Every allocation of the encoder failing in turn: KP_ENOMEM with a message, or the same text. */
KT_TEST(alloc_fail_sweep) {
    kp_cluster *cl = from_text(VALUES); /* a label map: the sort's scratch is allocated */
    size_t clean_len;
    char *clean = encode(cl, true, &clean_len);
    unsigned long before = kp__alloc_count();
    free(encode(cl, true, &clean_len));
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK(total >= 2); /* the write buffer and the label scratch */
    for (unsigned long n = 0; n <= total; n++) {
        sink s = {0};
        kp_encode_options o;
        kp_encode_options_init(&o);
        o.pretty = true;
        kp_error err;
        kp_error_clear(&err);
        kp__alloc_fail_after((long)n, false);
        kp_status st = kp_cluster_encode_json(cl, &o, sink_write, &s, &err);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || (st == KP_ENOMEM && err.msg[0]));
        if (st == KP_OK) KT_CHECK(s.len == clean_len && memcmp(s.buf, clean, clean_len) == 0);
        free(s.buf);
    }
    free(clean);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(golden_inputs_round_trip), KT_CASE(example_round_trip),
        KT_CASE(terminating_pod_survives), KT_CASE(preemption_state_survives),
        KT_CASE(strings_and_values), KT_CASE(writer_failure), KT_CASE(alloc_fail_sweep))
