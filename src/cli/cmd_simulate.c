/* kprio simulate: play the snapshot forward in virtual time (docs/simulate.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/encode.h"
#include "kprio/insight.h"
#include "kprio/render_report.h"
#include "kprio/render_sim.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "kprio/sim.h"

static const char *USAGE =
    "kprio simulate -f FILE|DIR|- [-f ...] [-R] [--scenario FILE] [--config FILE]\n"
    "               [--duration D] [--seed N] [--compat VERSION] [--feature-gates KEY=BOOL,...]\n"
    "               [--kubelet-config FILE] [-o table|json|yaml] [--events-only] [--final-snapshot "
    "FILE]\n"
    "               [--metrics FILE] [--report FILE.html]";

static const char *HELP =
    "Plays the snapshot forward in virtual time: kube-scheduler's queue (backoff, unschedulable\n"
    "pods, periodic flush), preemption as the newest line actuates it (victims terminate over\n"
    "their grace period, the preemptor waits nominated), ReplicaSet / ReplicationController /\n"
    "StatefulSet controllers replacing lost pods, the disruption controller's PDB status, and a\n"
    "Scenario's timed actions (docs/scenario.md). Prints the events as kubectl events does\n"
    "(TIME is virtual time since the start) and a summary. Same inputs and seed, same output.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE     input (repeatable; a directory with -R)\n"
    "  --scenario FILE         kind: Scenario (apiVersion kprio/v1alpha1): duration, seed,\n"
    "                          timed actions (create, delete, scale, cordon, uncordon, taint,\n"
    "                          untaint, drain, setPriorityClass), pod lifetimes, usage\n"
    "                          models (memory over a pod's age; they turn the kubelets on)\n"
    "  --config FILE           KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)\n"
    "  --duration D            virtual time to play (Go duration: 90s, 1h); default: the\n"
    "                          scenario's, else until nothing can change (at most 24h)\n"
    "  --seed N                PRNG seed (the scheduler's random choices); default: the\n"
    "                          scenario's, else 0\n"
    "  --compat VERSION        decide as an older release line (e.g. 1.32: no\n"
    "                          SchedulerPopFromBackoffQ), see docs/upstream.md\n"
    "  --feature-gates K=B,... kube-scheduler's feature gates (docs/upstream.md)\n"
    "  --kubelet-config FILE   KubeletConfiguration of every node's kubelet (eviction\n"
    "                          thresholds); turns the kubelets on (also on when the scenario\n"
    "                          has usage models; default: the kubelet's defaults)\n"
    "  -o table|json|yaml      output format (default table)\n"
    "  --events-only           the event log alone (no summary, no pod timelines)\n"
    "  --final-snapshot FILE   write the end state as a kubectl-style v1 List (JSON) that every\n"
    "                          kprio command loads\n"
    "  --metrics FILE          write the run's metrics (upstream's names: scheduler_*,\n"
    "                          kubelet_evictions) in Prometheus text format; -o json|yaml\n"
    "                          carries their time series (docs/simulate.md \"Metrics\")\n"
    "  --report FILE.html      write a self-contained HTML report: summary, findings, charts,\n"
    "                          the event log with a filter (docs/simulate.md \"HTML report\")\n"
    "  --max-input-bytes N     largest input read (Ki/Mi/Gi/Ti suffixes; default 16Gi)\n"
    "\n"
    "Exit status: 0 answered, 1 bad input or a runtime error, 2 usage error.\n";

typedef struct {
    const char *scenario, *config, *compat, *final_snapshot, *kubelet_config;
    const char *metrics, *report;
    int64_t duration_ms;
    uint64_t seed;
    bool has_seed, events_only;
} sim_args;

static int parse_args(kp_cli_common *c, sim_args *a, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int r = kp_cli_common_arg(c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(c, argc, argv, &i, "simulate");
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        const char *v = NULL;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            printf("usage: %s\n\n%s", USAGE, HELP);
            return -1;
        } else if (strcmp(arg, "--events-only") == 0) {
            a->events_only = true;
        } else if (kp_cli_is_opt(arg, "--final-snapshot")) {
            if (!(a->final_snapshot = kp_cli_optval(argc, argv, &i, "simulate")))
                return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--metrics")) {
            if (!(a->metrics = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--report")) {
            if (!(a->report = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--scenario")) {
            if (!(a->scenario = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--kubelet-config")) {
            if (!(a->kubelet_config = kp_cli_optval(argc, argv, &i, "simulate")))
                return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--config")) {
            if (!(a->config = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--compat")) {
            if (!(a->compat = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            if (!kp_cli_compat_ok(a->compat))
                return kp_cli_usage_hint(
                    "simulate", "--compat: \"%s\" is not a Kubernetes version (expected e.g. 1.35)",
                    a->compat);
        } else if (kp_cli_is_opt(arg, "--duration")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            int64_t ns = 0;
            kp_error err;
            if (kp_duration_parse(v, &ns, &err) != KP_OK || ns <= 0)
                return kp_cli_usage_error("simulate", USAGE,
                                          "--duration: \"%s\" is not a positive duration (e.g. "
                                          "90s, 1h30m)",
                                          v);
            a->duration_ms = ns / 1000000 ? ns / 1000000 : 1;
        } else if (kp_cli_is_opt(arg, "--seed")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-')
                return kp_cli_usage_error("simulate", USAGE,
                                          "--seed: \"%s\" is not a non-negative integer", v);
            a->seed = (uint64_t)x;
            a->has_seed = true;
        } else {
            return kp_cli_usage_error("simulate", USAGE, "unknown option \"%s\"", arg);
        }
    }
    if (c->n_files == 0)
        return kp_cli_usage_error("simulate", USAGE, "no input: give at least one -f FILE");
    return KP_EXIT_OK;
}

/* --final-snapshot: the end state through kprio/encode.h (a half-written file is removed). */
static int write_final(const char *path, const kp_cluster *cl) {
    kp_error err;
    kp_error_clear(&err);
    kp_encode_options o;
    kp_encode_options_init(&o);
    o.pretty = true;
    if (kp_cluster_encode_json_path(cl, &o, path, &err) != KP_OK) return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

/* --metrics / --report: the file written whole through kp_file_write_path (a half-written
 * file is removed). */
static kp_status fill_metrics(FILE *f, void *sim) { return kp_render_metrics_prometheus(f, sim); }

static kp_status fill_report(FILE *f, void *sim) {
    kp_insight *in = NULL;
    kp_error err;
    kp_status st = kp_insight_new(sim, NULL, &in, &err);
    kp_report_findings fs = kp_report_findings_of(in);
    if (st == KP_OK && kp_insight_finding_count(in) && !fs.items) st = KP_ENOMEM;
    if (st == KP_OK) st = kp_render_report_html(f, sim, &fs);
    kp_report_findings_free(&fs);
    kp_insight_free(in);
    return st;
}

static int write_out(const char *path, kp_sim *sim, bool report) {
    kp_error err;
    kp_error_clear(&err);
    if (kp_file_write_path(path, report ? fill_report : fill_metrics, sim, &err) != KP_OK)
        return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

static int run_simulate(kp_cli_common *c, int argc, char **argv) {
    sim_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(c, &a, argc, argv);
    if (rc < 0) return KP_EXIT_OK; /* --help */
    if (rc != KP_EXIT_OK) return rc;
    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    kp_scenario *sc = NULL;
    kp_cluster *cl = NULL;
    kp_sim *sim = NULL;
    kp_evict_config *kcfg = NULL;
    if (a.kubelet_config && !(kcfg = kp_evict_config_new())) {
        rc = kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    if ((a.config && kp_sched_config_load_path(a.config, NULL, &cfg, &err) != KP_OK) ||
        (a.scenario && kp_scenario_load_path(a.scenario, &sc, &err) != KP_OK) ||
        (kcfg && (kp_evict_config_load_path(kcfg, a.kubelet_config, &err) != KP_OK ||
                  kp_evict_config_finish(kcfg, &err) != KP_OK))) {
        if (kcfg && !err.source[0]) /* a threshold the file set: the file names it */
            snprintf(err.source, sizeof err.source, "%s", a.kubelet_config);
        rc = kp_cli_print_error(&err);
        goto out;
    }
    /* the controllers make pods from their workloads' templates (kept, nothing expanded) */
    c->expand |= KP_WORKLOAD_TEMPLATES;
    if (!(cl = kp_cli_load(c))) {
        rc = KP_EXIT_ERROR;
        goto out;
    }
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = a.duration_ms;
    o.seed = a.seed;
    o.has_seed = a.has_seed;
    o.compat = a.compat;
    o.kubelet_config = kcfg;
    if (kp_sim_new(cl, cfg, sc, &o, &sim, &err) != KP_OK || kp_sim_run(sim, &err) != KP_OK) {
        rc = kp_cli_print_error(&err);
        goto out;
    }
    if (a.final_snapshot && (rc = write_final(a.final_snapshot, cl)) != KP_EXIT_OK) goto out;
    if (a.metrics && (rc = write_out(a.metrics, sim, false)) != KP_EXIT_OK) goto out;
    if (a.report && (rc = write_out(a.report, sim, true)) != KP_EXIT_OK) goto out;
    if (kp_render_simulation(stdout, sim, c->out, a.events_only) != KP_OK)
        rc = kp_cli_print_status(KP_ENOMEM);
out:
    kp_sim_free(sim);
    kp_cluster_free(cl);
    kp_scenario_free(sc);
    kp_sched_config_free(cfg);
    kp_evict_config_free(kcfg);
    return rc;
}

int kp_cmd_simulate(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_simulate(&c, argc, argv);
    kp_cli_common_free(&c);
    return rc;
}
