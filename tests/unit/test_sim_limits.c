/* Issue 30 item 4: the simulator's work is bounded. Pods that end the instant they start and are
 * replaced at once (a lifetime of 0s on a ReplicaSet's pods) end the run with an error naming
 * KP_SIM_MAX_ROUNDS_PER_INSTANT instead of looping while the clock stands still; a scale to a
 * billion replicas ends with KP_SIM_MAX_CREATED_PODS; a finite chain within one instant (a Job's
 * completions with a lifetime of 0s) still runs to its end; an every-minute CronJob's Jobs cost
 * the scheduler no rebuild (no plugin reads a Job); creating 4N pods (a scale, a Job's
 * parallelism) costs about 4 times the work of N, counted, not timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "ctrl/ctrl_internal.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"
#include "sched/framework.h"
#include "sim/sim_internal.h"

#define NODE                                                                                   \
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n" \
    "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
#define RS(replicas)                                                                          \
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web, namespace: default}\n" \
    "spec:\n  replicas: " replicas "\n  selector: {matchLabels: {app: web}}\n"                \
    "  template:\n    metadata: {labels: {app: web}}\n"                                       \
    "    spec: {containers: [{name: c, image: x}]}\n"
#define SCENARIO "apiVersion: kprio/v1alpha1\nkind: Scenario\n"

typedef struct {
    kp_cluster *cl;
    kp_scenario *sc;
    kp_sim *sim;
    kp_status st;
    kp_error err;
} run_t;

static void run(run_t *r, const char *cluster, const char *scenario, const kp_sim_options *o) {
    memset(r, 0, sizeof *r);
    kp_error_clear(&r->err);
    r->cl = kp_cluster_new();
    kp_cluster_set_expand(r->cl, KP_WORKLOAD_TEMPLATES);
    r->st = kp_cluster_load_buffer(r->cl, "in.yaml", cluster, strlen(cluster), &r->err);
    if (r->st == KP_OK) r->st = kp_cluster_finalize(r->cl, &r->err);
    if (r->st == KP_OK)
        r->st =
            kp_scenario_load_buffer("s.yaml", scenario, strlen(scenario), NULL, &r->sc, &r->err);
    if (r->st == KP_OK) r->st = kp_sim_new(r->cl, NULL, r->sc, o, &r->sim, &r->err);
    if (r->st == KP_OK) r->st = kp_sim_run(r->sim, &r->err);
}

static void done(run_t *r) {
    kp_sim_free(r->sim);
    kp_scenario_free(r->sc);
    kp_cluster_free(r->cl);
}

KT_TEST(lifetime_zero_on_replicaset_ends_with_the_limit) {
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.max_rounds_per_instant = 50;
    run_t r;
    run(&r, NODE RS("2"),
        SCENARIO "duration: 1m\nlifetimes:\n- selector: {matchLabels: {app: web}}\n  after: 0s\n",
        &o);
    KT_CHECK_INT(r.st, KP_ELIMIT);
    KT_CHECK_CONTAINS(r.err.msg, "more than 50 rounds within one instant");
    KT_CHECK_CONTAINS(r.err.msg, "KP_SIM_MAX_ROUNDS_PER_INSTANT");
    KT_CHECK_CONTAINS(r.err.msg, "at 0s");
    done(&r);
}

KT_TEST(lifetime_zero_on_a_job_runs_to_its_end) {
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.max_rounds_per_instant = 50;
    run_t r;
    run(&r,
        NODE "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
             "spec:\n  completions: 20\n  parallelism: 1\n  template:\n"
             "    metadata: {labels: {app: j}}\n"
             "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n",
        SCENARIO "lifetimes:\n- selector: {matchLabels: {app: j}}\n  after: 0s\n", &o);
    KT_CHECK_INT(r.st, KP_OK);
    kp_sim_counters c;
    if (r.sim) {
        kp_sim_counters_get(r.sim, &c);
        KT_CHECK_INT(c.pods_succeeded, 20);
    }
    done(&r);
}

KT_TEST(scale_to_a_billion_ends_with_the_limit) {
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.max_created_pods = 100;
    run_t r;
    run(&r, NODE RS("1"),
        SCENARIO "duration: 1m\nactions:\n- at: 1s\n  scale: {kind: ReplicaSet, name: web, "
                 "replicas: 1000000000}\n",
        &o);
    KT_CHECK_INT(r.st, KP_ELIMIT);
    KT_CHECK_CONTAINS(r.err.msg, "ReplicaSet default/web: the controllers create more than 100");
    KT_CHECK_CONTAINS(r.err.msg, "KP_SIM_MAX_CREATED_PODS");
    KT_CHECK(kp_cluster_pod_count(r.cl) <= 101);
    done(&r);
}

/* scaling down deletes the newest pods first, unassigned before assigned (getPodsToDelete) */
KT_TEST(scale_down_deletes_newest_first) {
    run_t r;
    run(&r, NODE RS("4"),
        SCENARIO "duration: 1m\nactions:\n- at: 1s\n  scale: {kind: ReplicaSet, name: web, "
                 "replicas: 1}\n",
        NULL);
    KT_CHECK_INT(r.st, KP_OK);
    size_t active = 0;
    for (size_t i = 0; i < kp_cluster_pod_count(r.cl); i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(r.cl, (kp_index)i, &pi);
        if (pi.deleted || pi.terminal || pi.deletion_ts != KP_TIME_UNSET) continue;
        active++;
        KT_CHECK_INT(i, 0); /* the oldest stays */
    }
    KT_CHECK_INT(active, 1);
    done(&r);
}

KT_TEST(every_minute_cronjob_costs_no_rebuild) {
    run_t r;
    run(&r,
        NODE "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: tick, namespace: "
             "default}\nspec:\n  schedule: \"* * * * *\"\n  jobTemplate:\n    spec:\n"
             "      template:\n        metadata: {labels: {app: tick}}\n"
             "        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n",
        SCENARIO "duration: 30m\nlifetimes:\n- selector: {matchLabels: {app: tick}}\n"
                 "  after: 10s\n",
        NULL);
    KT_CHECK_INT(r.st, KP_OK);
    if (r.sim) {
        kp_sim_counters c;
        kp_sim_counters_get(r.sim, &c);
        KT_CHECK(c.pods_succeeded >= 29);
        KT_CHECK(r.sim->sched->n_rebuilds <= 1); /* was one per Job: 30 */
    }
    done(&r);
}

/* an idle run's series is bounded: the step doubles past KP_SIM_MAX_SAMPLES points, each point
 * still the state at i * step (a run of 100000 h on one node ran out of memory) */
KT_TEST(idle_series_is_bounded) {
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.sample_every_ms = 1;
    o.duration_ms = 1000000; /* a million steps of 1 ms */
    run_t r;
    run(&r, NODE, SCENARIO, &o);
    KT_CHECK_INT(r.st, KP_OK);
    if (r.sim) {
        size_t n = kp_sim_sample_count(r.sim);
        int64_t step = kp_sim_sample_step(r.sim);
        KT_CHECK(n <= KP_SIM_MAX_SAMPLES && n > KP_SIM_MAX_SAMPLES / 4);
        KT_CHECK_INT(step, 16); /* 1 ms doubled four times: 65536 * 16 > 1000000 */
        for (size_t i = 0; i < n; i++)
            if (kp_sim_sample_get(r.sim, i)->t_ms != (int64_t)i * step) {
                KT_CHECK_INT(kp_sim_sample_get(r.sim, i)->t_ms, (int64_t)i * step);
                break;
            }
        KT_CHECK((int64_t)(n - 1) * step <= 1000000 && (int64_t)n * step > 1000000);
    }
    done(&r);
}

/* an Indexed Job of 2^31-1 completions: its syncs cost what its pods and status hold (the
 * intervals of upstream's orderedIntervals), not a byte per completion (2 GiB per sync); the
 * lowest pending indexes are made, past status.completedIndexes */
KT_TEST(indexed_job_huge_completions) {
    run_t r;
    run(&r,
        NODE "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
             "spec:\n  completions: 2147483647\n  parallelism: 2\n  completionMode: Indexed\n"
             "  template:\n    metadata: {labels: {app: j}}\n"
             "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n"
             "status: {completedIndexes: \"0-9,11,2147483640-2147483646\"}\n",
        SCENARIO "duration: 25s\nlifetimes:\n- selector: {matchLabels: {app: j}}\n  after: 10s\n",
        NULL);
    KT_CHECK_INT(r.st, KP_OK);
    /* t = 0: indexes 10 and 12; t = 10s: 13 and 14; t = 20s: 15 and 16 */
    static const char *const want[] = {"j-10-", "j-12-", "j-13-", "j-14-", "j-15-", "j-16-"};
    size_t n = kp_cluster_pod_count(r.cl);
    KT_CHECK_INT(n, 6);
    for (size_t i = 0; i < n && i < 6; i++)
        KT_CHECK(strncmp(kp_cluster_pod_name(r.cl, (kp_index)i), want[i], strlen(want[i])) == 0);
    done(&r);
}

/* Pod creation is linear (a scale to 50k pods took 14 s: each new pod searched the workload's
 * every pod for one it would replace): the controllers' work (ctrl.looked, the workload's pods
 * their scans looked at) and the allocations of a run that creates 4N pods are about 4 times a
 * run's that creates N, not 16. The pods are gated: no scheduling attempt adds its own cost. */
typedef struct {
    uint64_t looked;
    unsigned long allocs;
    uint64_t created;
} work_t;

#define GATED_TEMPLATE(labels)                                                       \
    "  template:\n    metadata: {labels: " labels "}\n"                              \
    "    spec: {restartPolicy: Never, schedulingGates: [{name: hold}], containers: " \
    "[{name: c, image: x}]}\n"

static work_t creation_work(const char *cluster, const char *scenario) {
    work_t w = {0, 0, 0};
    unsigned long a0 = kp__alloc_count();
    run_t r;
    run(&r, cluster, scenario, NULL);
    KT_CHECK_INT(r.st, KP_OK);
    if (r.sim) {
        kp_sim_counters c;
        kp_sim_counters_get(r.sim, &c);
        w.created = c.pods_created;
        w.looked = r.sim->ctrl->looked;
    }
    w.allocs = kp__alloc_count() - a0;
    done(&r);
    return w;
}

static void check_linear(work_t n, work_t n4, uint64_t want_n) {
    KT_CHECK_INT(n.created, want_n);
    KT_CHECK_INT(n4.created, 4 * want_n);
    KT_CHECK(n.looked >= want_n - 1); /* the counter counts: each pod once */
    /* linear: about 4 times; quadratic would be about 16 */
    KT_CHECK(n4.looked <= 5 * n.looked);
    KT_CHECK(n4.allocs <= 5 * n.allocs);
    if (n4.looked > 5 * n.looked || n4.allocs > 5 * n.allocs)
        fprintf(stderr, "  looked %llu -> %llu, allocations %lu -> %lu\n",
                (unsigned long long)n.looked, (unsigned long long)n4.looked, n.allocs, n4.allocs);
}

KT_TEST(scale_up_creation_is_linear) {
    char cl[1024], sc[256];
    work_t w[2];
    for (int k = 0; k < 2; k++) {
        snprintf(cl, sizeof cl,
                 "%s---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web, namespace: "
                 "default}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: web}}\n"
                 "%s",
                 NODE, GATED_TEMPLATE("{app: web}"));
        snprintf(sc, sizeof sc,
                 SCENARIO "duration: 2s\nactions:\n- at: 1s\n  scale: {kind: ReplicaSet, name: "
                          "web, replicas: %d}\n",
                 k ? 1000 : 250);
        w[k] = creation_work(cl, sc);
    }
    check_linear(w[0], w[1], 250);
}

KT_TEST(job_creation_is_linear) {
    char cl[1024];
    work_t w[2];
    for (int k = 0; k < 2; k++) {
        int n = k ? 1000 : 250;
        snprintf(cl, sizeof cl,
                 "%s---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\n"
                 "spec:\n  completions: %d\n  parallelism: %d\n%s",
                 NODE, n, n, GATED_TEMPLATE("{app: j}"));
        w[k] = creation_work(cl, SCENARIO "duration: 2s\n");
    }
    check_linear(w[0], w[1], 250);
}

KT_MAIN(KT_CASE(scale_up_creation_is_linear), KT_CASE(job_creation_is_linear),
        KT_CASE(indexed_job_huge_completions), KT_CASE(idle_series_is_bounded),
        KT_CASE(lifetime_zero_on_replicaset_ends_with_the_limit),
        KT_CASE(lifetime_zero_on_a_job_runs_to_its_end),
        KT_CASE(scale_to_a_billion_ends_with_the_limit), KT_CASE(scale_down_deletes_newest_first),
        KT_CASE(every_minute_cronjob_costs_no_rebuild))
