/* A simulation's metrics (kprio/metrics.h, src/sim/metrics.c): over the golden simulation
 * scenarios, every final value and every point of the time series is checked against counts
 * recomputed here from the event log (Scheduled, FailedScheduling, Preempted and its cause,
 * Evicted) and from the samples' queue sizes, independently of the library's own walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/metrics.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

static const kp_metric_family *family(const kp_metrics *m, const char *name) {
    for (size_t i = 0; i < kp_metrics_family_count(m); i++)
        if (strcmp(kp_metrics_family_get(m, i)->name, name) == 0)
            return kp_metrics_family_get(m, i);
    return NULL;
}

static const kp_metric_sample *sample(const kp_metric_family *f, const char *value) {
    for (size_t i = 0; f && i < f->n_samples; i++)
        if (!value || (f->samples[i].n_labels && strcmp(f->samples[i].label_values[0], value) == 0))
            return &f->samples[i];
    return NULL;
}

static const kp_metric_series *series(const kp_metrics *m, const char *name, const char *value) {
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        if (strcmp(s->name, name) == 0 && (!value || strcmp(s->label_value, value) == 0)) return s;
    }
    return NULL;
}

static size_t events_until(const kp_sim *sim, const char *reason, int type, int64_t t) {
    size_t n = 0;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->t_ms <= t && strcmp(e->reason, reason) == 0 && (type < 0 || (int)e->type == type))
            n++;
    }
    return n;
}

/* victims per preemption: the Preempted events grouped by the event they follow from */
static void victims_recount(const kp_sim *sim, uint64_t *buckets, uint64_t *count, double *sum) {
    size_t n = kp_sim_event_count(sim);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (size_t j = 0; j < n; j++) {
            const kp_sim_event *e = kp_sim_event_get(sim, j);
            if (strcmp(e->reason, "Preempted") == 0 && e->cause == (kp_index)i) v++;
        }
        if (!v) continue;
        for (int b = 0; b < 7; b++)
            if (v <= (1u << b)) buckets[b]++;
        (*count)++;
        *sum += (double)v;
    }
}

static void check_final(const kp_sim *sim, const kp_metrics *m) {
    int64_t end = kp_sim_now(sim);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    const kp_metric_family *att = family(m, "scheduler_schedule_attempts_total");
    KT_CHECK(att && att->type == KP_METRIC_COUNTER && att->n_samples == 3);
    KT_CHECK((size_t)sample(att, "scheduled")->value == events_until(sim, "Scheduled", -1, end));
    KT_CHECK((size_t)(sample(att, "unschedulable")->value + sample(att, "error")->value) ==
             events_until(sim, "FailedScheduling", -1, end));
    KT_CHECK_STR(sample(att, "scheduled")->label_values[1], "default-scheduler");
    const kp_metric_family *pa = family(m, "scheduler_preemption_attempts_total");
    KT_CHECK(pa && (size_t)pa->samples[0].value == events_until(sim, "FailedScheduling", -1, end));
    uint64_t b[7] = {0}, count = 0;
    double sum = 0;
    victims_recount(sim, b, &count, &sum);
    const kp_metric_family *v = family(m, "scheduler_preemption_victims");
    KT_CHECK(v && v->type == KP_METRIC_HISTOGRAM && v->n_bounds == 7 && v->bounds[6] == 64);
    KT_CHECK(v->samples[0].count == count && v->samples[0].sum == sum);
    KT_CHECK(count == c.preemptions && sum == (double)c.victims);
    for (int i = 0; i < 7; i++) KT_CHECK(v->samples[0].buckets[i] == b[i]);
    /* every pod bound once: one observation per Scheduled event */
    const kp_metric_family *pods = family(m, "scheduler_pod_scheduling_attempts");
    KT_CHECK(pods && pods->samples[0].count == events_until(sim, "Scheduled", -1, end));
    const kp_metric_family *sli = family(m, "scheduler_pod_scheduling_sli_duration_seconds");
    uint64_t sli_n = 0;
    for (size_t i = 0; sli && i < sli->n_samples; i++) sli_n += sli->samples[i].count;
    KT_CHECK(sli && sli_n == pods->samples[0].count && sli->n_bounds == 20);
    const kp_metric_family *ev = family(m, "kubelet_evictions");
    double evs = 0;
    for (size_t i = 0; ev && i < ev->n_samples; i++) evs += ev->samples[i].value;
    KT_CHECK(ev && (size_t)evs == events_until(sim, "Evicted", KP_SIM_WARNING, end));
    KT_CHECK((uint64_t)evs == c.kubelet_evictions);
    const kp_metric_family *dis = family(m, "kprio_pod_disruptions_total");
    KT_CHECK(dis != NULL);
    for (size_t i = 0; dis && i < dis->n_samples; i++) { /* deletions: not in one event */
        const char *cause = dis->samples[i].label_values[0];
        double dv = dis->samples[i].value;
        if (strcmp(cause, "preemption") == 0) KT_CHECK(dv == (double)c.victims);
        else if (strcmp(cause, "nodePressure") == 0) KT_CHECK(dv == (double)c.kubelet_evictions);
        else if (strcmp(cause, "evictionAPI") == 0)
            KT_CHECK(dv == (double)events_until(sim, "Evicted", KP_SIM_NORMAL, end));
        else KT_CHECK(strcmp(cause, "deletion") == 0 && dv > 0);
    }
    /* the queue at the last sample */
    size_t ns = kp_sim_sample_count(sim);
    const kp_sim_sample *last = kp_sim_sample_get(sim, ns - 1);
    const kp_metric_family *pend = family(m, "scheduler_pending_pods");
    KT_CHECK(pend && sample(pend, "active")->value == last->active &&
             sample(pend, "backoff")->value == last->backoff &&
             sample(pend, "unschedulable")->value == last->unschedulable &&
             sample(pend, "gated")->value == last->gated);
}

/* each point equals the events up to its time; the pending pods by priority add up to the
 * queue's sizes */
static void check_series(const kp_sim *sim, const kp_metrics *m) {
    size_t nt = kp_metrics_time_count(m);
    KT_CHECK(nt == kp_sim_sample_count(sim) && nt > 0 && kp_metrics_step(m) == 10000);
    const kp_metric_series *sched = series(m, "scheduler_schedule_attempts_total", "scheduled");
    const kp_metric_series *vict = series(m, "kprio_preemption_victims_total", NULL);
    const kp_metric_series *evm = series(m, "kubelet_evictions", "memory.available");
    KT_CHECK(sched && vict);
    for (size_t t = 0; t < nt && sched && vict; t++) {
        int64_t at = kp_metrics_times(m)[t];
        KT_CHECK(at == (int64_t)t * 10000);
        KT_CHECK((size_t)sched->values[t] == events_until(sim, "Scheduled", -1, at));
        KT_CHECK((size_t)vict->values[t] == events_until(sim, "Preempted", -1, at));
        size_t evn = events_until(sim, "Evicted", KP_SIM_WARNING, at);
        KT_CHECK(evm ? (size_t)evm->values[t] == evn : evn == 0);
        /* the disruptions by cause: every victim and every evicted pod was running here */
        const kp_metric_series *dp = series(m, "kprio_pod_disruptions_total", "preemption");
        const kp_metric_series *dn = series(m, "kprio_pod_disruptions_total", "nodePressure");
        KT_CHECK(dp ? dp->values[t] == vict->values[t] : vict->values[t] == 0);
        KT_CHECK(dn ? (size_t)dn->values[t] == evn : evn == 0);
        int64_t pending = 0;
        for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
            const kp_metric_series *s = kp_metrics_series_get(m, i);
            if (strcmp(s->name, "kprio_pending_pods") == 0) pending += s->values[t];
        }
        const kp_sim_sample *x = kp_sim_sample_get(sim, t);
        if (pending != (int64_t)(x->active + x->backoff + x->unschedulable + x->gated)) {
            fprintf(stderr, "  t=%lld: pending by priority %lld, queue %u+%u+%u+%u\n",
                    (long long)at, (long long)pending, x->active, x->backoff, x->unschedulable,
                    x->gated);
            KT_CHECK(false);
        }
    }
}

/* pods that start and stop pending between samples (15s, 25s .. 45s) and a node at 55s */
static const char MIDWAY[] =
    "apiVersion: kprio/v1alpha1\nkind: Scenario\nduration: 95s\nactions:\n"
    "- at: 15s\n  create:\n    objects:\n    - apiVersion: v1\n      kind: Pod\n"
    "      metadata: {name: late, namespace: default}\n"
    "      spec: {containers: [{name: c, resources: {requests: {cpu: \"100\"}}}]}\n"
    "- at: 25s\n  create:\n    objects:\n    - apiVersion: v1\n      kind: Pod\n"
    "      metadata: {name: brief, namespace: default}\n"
    "      spec: {priority: 7, containers: [{name: c, resources: {requests: {cpu: \"100\"}}}]}\n"
    "- at: 45s\n  delete: {kind: Pod, namespace: default, name: brief}\n"
    "- at: 55s\n  create:\n    objects:\n    - apiVersion: v1\n      kind: Node\n"
    "      metadata: {name: n9, labels: {kubernetes.io/hostname: n9}}\n"
    "      status: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"110\"}}\n";

static void run_case(const char *dir, const char *cluster, bool scenario) {
    char path[512];
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    kp_scenario *sc = NULL;
    kp_sim *sim = NULL;
    kp_metrics *m = NULL;
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    snprintf(path, sizeof path, "tests/golden/%s/%s", dir, cluster);
    KT_CHECK(kp_cluster_load_path(cl, path, false, &err) == KP_OK);
    KT_CHECK(kp_cluster_finalize(cl, &err) == KP_OK);
    snprintf(path, sizeof path, "tests/golden/%s/scenario.yaml", dir);
    if (scenario && strcmp(dir, "simulate-node-added-requeues") == 0)
        KT_CHECK(kp_scenario_load_buffer("midway.yaml", MIDWAY, strlen(MIDWAY), NULL, &sc, &err) ==
                 KP_OK);
    else if (scenario) KT_CHECK(kp_scenario_load_path(path, &sc, &err) == KP_OK);
    kp_sim_options o;
    kp_sim_options_init(&o);
    if (!sc) o.duration_ms = 12 * 60 * 1000;
    if (kp_sim_new(cl, NULL, sc, &o, &sim, &err) == KP_OK && kp_sim_run(sim, &err) == KP_OK &&
        kp_metrics_new(sim, &m, &err) == KP_OK) {
        check_final(sim, m);
        check_series(sim, m);
    } else {
        fprintf(stderr, "  %s: %s\n", dir, err.msg);
        KT_CHECK(false);
    }
    kp_metrics_free(m);
    kp_sim_free(sim);
    kp_scenario_free(sc);
    kp_cluster_free(cl);
}

KT_TEST(metrics_match_the_event_log) {
    run_case("simulate-preempt-grace-period", "cluster.json", false);
    run_case("simulate-pdb-budget-second-preemptor", "cluster.json", true);
    run_case("simulate-never-fits-flush", "cluster.json", false);
    run_case("simulate-kubelet-leak-evicted", "cluster.json", true);
    run_case("simulate-kubelet-soft-grace-priority", "cluster.json", true);
    run_case("simulate-drain-blocked-by-pdb", "cluster.json", true);
    run_case("simulate-delete-nominated-node", "cluster.yaml", true);
    run_case("simulate-statefulset-ordinals-scale-down", "cluster.yaml", true);
    run_case("simulate-node-added-requeues", "cluster.json", true); /* with MIDWAY */
}

/* the kubelet's messages (evictionMessage, the local-storage limits) to their signals */
KT_TEST(eviction_signal_of_message) {
    KT_CHECK_STR(kp_metrics_eviction_signal("The node was low on resource: memory. Threshold "
                                            "quantity: 100Mi, available: 40Mi. "),
                 "memory.available");
    KT_CHECK_STR(kp_metrics_eviction_signal("The node was low on resource: ephemeral-storage. "),
                 "nodefs.available");
    KT_CHECK_STR(kp_metrics_eviction_signal("The node was low on resource: pids. "),
                 "pid.available");
    KT_CHECK_STR(kp_metrics_eviction_signal("Usage of EmptyDir volume \"v\" exceeds the limit "
                                            "\"1Gi\". "),
                 "emptydirfs.limit");
    KT_CHECK_STR(kp_metrics_eviction_signal("Pod ephemeral local storage usage exceeds the total "
                                            "limit of containers 1Gi. "),
                 "ephemeralpodfs.limit");
    KT_CHECK_STR(kp_metrics_eviction_signal("Container c exceeded its local ephemeral storage "
                                            "limit \"1Gi\". "),
                 "ephemeralcontainerfs.limit");
    KT_CHECK_STR(kp_metrics_eviction_signal("Pod was rejected"), "");
}

KT_MAIN(KT_CASE(metrics_match_the_event_log), KT_CASE(eviction_signal_of_message))
