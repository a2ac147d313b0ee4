/* The HTML report (kp_render_report_html, kp_render_compare_html): a run whose objects' names
 * hold HTML's special characters, and findings built here (a cascade with its tree), rendered
 * to memory; the page must be self-contained (no external resource), carry every chart, link
 * the findings to the events, and escape every text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sim.h"
#include "render/render_report.h"
#include "sim_case.h"

/* a preemption whose victim's namespace and name hold < > & " ' */
static const char CLUSTER[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
    "\"metadata\":{\"name\":\"high\"},\"value\":1000},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n<1>\"},"
    "\"status\":{\"allocatable\":{\"cpu\":\"1\",\"memory\":\"1Gi\",\"pods\":\"10\"}}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"<script>alert('x')</"
    "script>\","
    "\"namespace\":\"a&b\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
    "\"spec\":{\"nodeName\":\"n<1>\",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
    "{\"cpu\":\"800m\"}}}]},\"status\":{\"phase\":\"Running\"}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"urgent\\\"q\","
    "\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
    "\"spec\":{\"priorityClassName\":\"high\",\"containers\":[{\"name\":\"c\",\"resources\":"
    "{\"requests\":{\"cpu\":\"800m\"}}}]},\"status\":{\"phase\":\"Pending\"}}]}";

static char *render(const kp_sim *sim, const kp_report_findings *fs, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    KT_CHECK(f != NULL);
    if (!f) return NULL;
    KT_CHECK(kp_render_report_html(f, sim, fs) == KP_OK);
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

KT_TEST(report_escapes_and_links) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    /* names the API server refuses: the page escapes whatever a library caller loads */
    kp_cluster_set_name_rules(cl, false);
    KT_CHECK(kp_cluster_load_buffer(cl, "c.json", CLUSTER, strlen(CLUSTER), &err) == KP_OK);
    KT_CHECK(kp_cluster_finalize(cl, &err) == KP_OK);
    kp_sim *sim = NULL;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 120000;
    KT_CHECK(kp_sim_new(cl, NULL, NULL, &o, &sim, &err) == KP_OK && kp_sim_run(sim, &err) == KP_OK);
    if (!sim) {
        kp_cluster_free(cl);
        return;
    }
    long pre = -1, fail = -1;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (fail < 0 && strcmp(e->reason, "FailedScheduling") == 0) fail = (long)i;
        if (pre < 0 && strcmp(e->reason, "Preempted") == 0) pre = (long)i;
    }
    KT_CHECK(pre >= 0 && fail >= 0);
    const kp_sim_event *pe = kp_sim_event_get(sim, (size_t)pre);
    /* a cascade built here: the preemptor's attempt, then the victim */
    kp_finding_link tree[2] = {{fail, kp_sim_event_get(sim, (size_t)fail)->pod, -1, 0},
                               {pre, pe->pod, 0, 1}};
    long evs[2] = {fail, pre};
    kp_finding fd;
    memset(&fd, 0, sizeof fd);
    fd.kind = KP_FINDING_CASCADE;
    fd.severity = KP_SEVERITY_WARNING;
    fd.kind_name = "Cascade";
    fd.subject_kind = "Pod";
    fd.subject_ns = "a&b";
    fd.subject_name = "<b>bold</b>";
    fd.summary = "cascade of <2> & \"more\"";
    fd.detail = "line 1\nline <2>";
    fd.events = evs;
    fd.n_events = 2;
    fd.tree = tree;
    fd.n_tree = 2;
    fd.depth = 1;
    const kp_finding *items[1] = {&fd};
    kp_report_findings fs = {items, 1};
    size_t len = 0;
    char *html = render(sim, &fs, &len);
    if (html) {
        KT_CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
        KT_CHECK(strstr(html, "</html>\n") != NULL);
        /* self-contained: nothing fetched */
        KT_CHECK(!strstr(html, "http://") && !strstr(html, "https://") && !strstr(html, "src=") &&
                 !strstr(html, "<link") && !strstr(html, "@import") && !strstr(html, "url("));
        /* the charts */
        KT_CHECK(strstr(html, "<svg id=\"chart-pending\"") != NULL);
        KT_CHECK(strstr(html, "<svg id=\"chart-disruptions\"") != NULL);
        KT_CHECK(strstr(html, "<svg id=\"chart-pressure\"") != NULL);
        KT_CHECK(strstr(html, "<svg id=\"chart-cascade-0\"") != NULL);
        KT_CHECK(strstr(html, "data-priority=\"1000\"") != NULL);
        /* the legend names the PriorityClass, not the bare value */
        KT_CHECK(strstr(html, "id=\"chart-pending-legend\"><span class=\"key\"><i "
                              "style=\"background:#1f77b4\"></i>high (1000)</span>") != NULL);
        KT_CHECK(!strstr(html, ">priority 1000<"));
        /* the victim was preempted: the headline counts it under its cause */
        KT_CHECK(strstr(html, "data-cause=\"preemption\"><b>1</b>scheduler preemption") != NULL);
        /* one script only (the page's own), every name escaped */
        KT_CHECK(count(html, "<script") == 1);
        KT_CHECK(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != NULL);
        KT_CHECK(strstr(html, "a&amp;b/") != NULL);
        KT_CHECK(strstr(html, "n&lt;1&gt;") != NULL);
        KT_CHECK(strstr(html, "urgent&quot;q") != NULL);
        KT_CHECK(!strstr(html, "<b>bold") && strstr(html, "&lt;b&gt;bold&lt;/b&gt;") != NULL);
        KT_CHECK(strstr(html, "cascade of &lt;2&gt; &amp; &quot;more&quot;") != NULL);
        KT_CHECK(strstr(html, "line 1\nline &lt;2&gt;") != NULL);
        /* the finding and the tree link to their events, which the log carries */
        char want[64];
        snprintf(want, sizeof want, "href=\"#ev-%ld\"", pre);
        KT_CHECK(count(html, want) == 2); /* the finding's list and the tree */
        snprintf(want, sizeof want, "<tr id=\"ev-%ld\"", pre);
        KT_CHECK(strstr(html, want) != NULL);
        KT_CHECK(count(html, "<tr id=\"ev-") == kp_sim_event_count(sim));
        KT_CHECK(strstr(html, "Findings (1)") != NULL);
    }
    free(html);
    /* no findings: the page says so, no cascade */
    html = render(sim, NULL, &len);
    if (html) {
        KT_CHECK(strstr(html, "Findings (0)") != NULL && !strstr(html, "chart-cascade"));
        KT_CHECK(strstr(html, "<svg id=\"chart-pressure\"") != NULL);
    }
    free(html);
    kp_sim_free(sim);
    kp_cluster_free(cl);
}

/* A drain through the Eviction API (the golden case simulate-drain-pool: 3 pods on 3 nodes):
 * the headline's card, its sentence and the chart count the 3 evictions under their cause. */
KT_TEST(report_counts_drain_evictions) {
    kp_error err;
    kp_cluster *cl = NULL;
    kp_scenario *sc = NULL;
    kp_sim *sim = sim_case_run("tests/golden/simulate-drain-pool/", NULL, &cl, &sc, &err);
    KT_CHECK(sim != NULL);
    if (sim) {
        kp_sim_counters c;
        kp_sim_counters_get(sim, &c);
        KT_CHECK(c.disruptions[KP_SIM_DISRUPT_EVICTION_API] == 3 && c.kubelet_evictions == 0 &&
                 c.victims == 0);
        size_t len = 0;
        char *html = render(sim, NULL, &len);
        KT_CHECK(html && strstr(html, "data-cause=\"evictionAPI\"><b>3</b>Eviction API (drain)"));
        KT_CHECK(html && strstr(html, "3 running pod(s) disrupted (Eviction API (drain) 3)"));
        KT_CHECK(html && count(html, "<rect data-cause=\"evictionAPI\"") >= 2);
        KT_CHECK(html && strstr(html, "Eviction API (drain): 3</span>"));
        free(html);
    }
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

/* A run of 2,000 pods that never fit: the log keeps its first 1000 rows and says where the
 * rest is; the page stays small (each row of the log would add about 330 bytes). */
KT_TEST(report_log_capped) {
    char *json = NULL;
    size_t jlen = 0;
    FILE *j = open_memstream(&json, &jlen);
    KT_CHECK(j != NULL);
    if (!j) return;
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\","
          "\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":"
          "{\"cpu\":\"1\",\"memory\":\"1Gi\",\"pods\":\"10\"}}}",
          j);
    for (int i = 0; i < 2000; i++)
        fprintf(j,
                ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\","
                "\"namespace\":\"default\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
                "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                "{\"cpu\":\"2\"}}}]},\"status\":{\"phase\":\"Pending\"}}",
                i);
    fputs("]}", j);
    fclose(j);
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    KT_CHECK(kp_cluster_load_buffer(cl, "c.json", json, jlen, &err) == KP_OK);
    KT_CHECK(kp_cluster_finalize(cl, &err) == KP_OK);
    free(json);
    kp_sim *sim = NULL;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = 1000;
    KT_CHECK(kp_sim_new(cl, NULL, NULL, &o, &sim, &err) == KP_OK && kp_sim_run(sim, &err) == KP_OK);
    if (sim) {
        KT_CHECK(kp_sim_event_count(sim) >= 2000);
        size_t len = 0;
        char *html = render(sim, NULL, &len);
        KT_CHECK(html && count(html, "<tr id=\"ev-") == 1000);
        KT_CHECK(html && strstr(html, "<tr id=\"ev-999\"") && !strstr(html, "<tr id=\"ev-1000\""));
        KT_CHECK(html && strstr(html, "id=\"events-more\">1000 of "));
        KT_CHECK(len < 450000); /* the whole log would make about 700 KB */
        free(html);
    }
    kp_sim_free(sim);
    kp_cluster_free(cl);
}

KT_TEST(compare_two_columns) {
    kp_compare c;
    memset(&c, 0, sizeof c);
    c.a.preemptions = 3;
    c.b.preemptions = 1;
    c.evictions_a = 2;
    c.b.disruptions[KP_SIM_DISRUPT_EVICTION_API] = 5;
    c.pending_a[0] = 1500;
    c.pending_b[0] = 90000;
    kp_compare_pod pods[1] = {{"default", "web<1>", 0, -1, -1, -1, KP_SIM_POD_PENDING,
                               KP_SIM_POD_DELETED, "web<1>", "", "", 0}};
    c.pods = pods;
    c.n_pods = 1;
    kp_finding fd;
    memset(&fd, 0, sizeof fd);
    fd.kind_name = "Loop";
    fd.summary = "ReplicaSet default/web: 4 turns";
    const kp_finding *items[1] = {&fd};
    kp_report_findings fa = {items, 1};
    size_t only[1] = {0};
    c.only_a = only;
    c.n_only_a = 1;
    kp_report_run a = {NULL, "a.yaml", &fa}, b = {NULL, "b&.yaml", NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    KT_CHECK(kp_render_compare_html(f, &c, &a, &b) == KP_OK);
    fclose(f);
    KT_CHECK(strstr(buf, "What-if: a.yaml vs b&amp;.yaml") != NULL);
    KT_CHECK(strstr(buf, "<td>preemptions</td><td class=\"num\">3</td><td class=\"num\">1</td>"
                         "<td class=\"num\">-2</td>") != NULL);
    /* B - A of a percentile, as a signed duration; of a count by cause */
    KT_CHECK(strstr(buf, "<td class=\"num\">1.5s</td><td class=\"num\">1m30s</td><td "
                         "class=\"num pos\">+1m28.5s</td>") != NULL);
    KT_CHECK(strstr(buf, "<td>pending time p90</td><td class=\"num\">0s</td><td "
                         "class=\"num\">0s</td><td class=\"num\">=</td>") != NULL);
    KT_CHECK(strstr(buf, "<td>disrupted: Eviction API (drain)</td><td class=\"num\">0</td><td "
                         "class=\"num\">5</td><td class=\"num\">+5</td>") != NULL);
    KT_CHECK(strstr(buf, "default/web&lt;1&gt;</td><td>Pending</td><td>(no such pod)</td>") !=
             NULL);
    KT_CHECK(strstr(buf, "a.yaml only (1)") && strstr(buf, "4 turns"));
    KT_CHECK(strstr(buf, "b&amp;.yaml only (0)") != NULL);
    KT_CHECK(strstr(buf, "By PriorityClass") == NULL); /* --compare: no classes */
    free(buf);
    /* --compare-priorities: a group of rows per class, a class one layout lacks shown "-" */
    kp_compare_class cls[2];
    memset(cls, 0, sizeof cls);
    cls[0] = (kp_compare_class){.name = "batch<x>",
                                .has_a = true,
                                .value_a = 1000,
                                .has_b = true,
                                .value_b = 100,
                                .victims_a = 0,
                                .victims_b = 2};
    cls[1] = (kp_compare_class){.name = "", .pods_a = 1, .pods_b = 1};
    c.classes = cls;
    c.n_classes = 2;
    f = open_memstream(&buf, &len);
    KT_CHECK(kp_render_compare_html(f, &c, &a, &b) == KP_OK);
    fclose(f);
    KT_CHECK(strstr(buf, "<th colspan=\"4\">batch&lt;x&gt; (value 1000 / 100)</th>") != NULL);
    KT_CHECK(strstr(buf, "<td>preemption victims</td><td class=\"num\">0</td><td "
                         "class=\"num\">2</td><td class=\"num\">+2</td>") != NULL);
    KT_CHECK(strstr(buf, "(no class) (value - / -)") != NULL);
    free(buf);
}

KT_MAIN(KT_CASE(report_escapes_and_links), KT_CASE(report_counts_drain_evictions),
        KT_CASE(report_log_capped), KT_CASE(compare_two_columns))
