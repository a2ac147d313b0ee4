/* kprio simulate: play the snapshot forward in virtual time (docs/simulate.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "cli/simulate_insight.h"
#include "cli/simulate_trace.h"
#include "kprio/encode.h"
#include "kprio/eviction.h"
#include "kprio/insight.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "kprio/sim.h"
#include "render/render_kubelet.h"
#include "render/render_report.h"
#include "render/render_sim.h"

static const char *USAGE =
    "kprio simulate -f FILE|DIR|- [-f ...] [-R] [--scenario FILE] [--config FILE]\n"
    "               [--duration D] [--start TIME] [--seed N] [--compat VERSION] [--feature-gates "
    "KEY=BOOL,...]\n"
    "               [--kubelet-config [SELECTOR=]FILE]... [-o table|json|yaml] [--events-only]\n"
    "               [-n NS | -A] [-l SELECTOR] [--sort-by COLUMN]\n"
    "               [--final-snapshot FILE] [--imagefs shared|dedicated|split]\n"
    "               [--dump-summaries DIR [--dump-node NAME ...]]\n"
    "               [--starvation-threshold D] [--loop-turns N] [--cascade-depth N]\n"
    "               [--compare A B | --compare-config A B | --compare-kubelet-config A B |\n"
    "                --compare-priorities A B]\n"
    "               [--metrics FILE] [--report FILE.html] [--why NAMESPACE/NAME]\n"
    "kprio simulate --trace DIR [-f FILE ...] [--divergences N] [-o table|json|yaml] ...";

static const char *HELP =
    "Plays the snapshot forward in virtual time: kube-scheduler's queue (backoff, unschedulable\n"
    "pods, periodic flush), preemption as the newest line actuates it (victims terminate over\n"
    "their grace period, the preemptor waits nominated), ReplicaSet / ReplicationController /\n"
    "StatefulSet controllers replacing lost pods, the disruption controller's PDB status, and a\n"
    "Scenario's timed actions (docs/scenario.md). Prints the events as kubectl events does\n"
    "(TIME is virtual time since the start), a summary and the findings (docs/simulate.md\n"
    "\"Findings\": loops, cascades, starvation, PDB pressure, pressure hot spots). Same inputs\n"
    "and seed, same output.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE     input (repeatable; a directory with -R)\n"
    "  --scenario FILE         kind: Scenario (apiVersion kprio/v1alpha1): duration, seed,\n"
    "                          timed actions (create, delete, scale, cordon, uncordon, taint,\n"
    "                          untaint, drain, setPriorityClass, patch), pod lifetimes, usage\n"
    "                          models (memory, disk, inodes, PIDs over a pod's age:\n"
    "                          constant, ramp, step, periodic, trace; they turn the\n"
    "                          kubelets on), kubelets[] (a KubeletConfiguration per\n"
    "                          node pool)\n"
    "  --config FILE           KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)\n"
    "  --duration D            virtual time to play (Go duration: 90s, 1h); default: the\n"
    "                          scenario's, else until nothing can change (at most 24h)\n"
    "  --seed N                PRNG seed (the scheduler's random choices); default: the\n"
    "                          scenario's, else 0\n"
    "  --start TIME            t = 0 as an RFC 3339 time (2026-11-01T09:00:00Z; default and\n"
    "                          earliest: the snapshot's newest timestamp); times are then\n"
    "                          printed as RFC 3339 UTC timestamps\n"
    "  --compat VERSION        decide as an older release line (e.g. 1.32: no\n"
    "                          SchedulerPopFromBackoffQ), see docs/compat.md\n"
    "  --feature-gates K=B,... kube-scheduler's feature gates (docs/compat.md)\n"
    "  --kubelet-config FILE   KubeletConfiguration of every node's kubelet (eviction\n"
    "                          thresholds); turns the kubelets on (also on when the scenario\n"
    "                          has usage models; default: the kubelet's defaults). The\n"
    "                          kubelets evict under node pressure and admit every pod bound\n"
    "                          to their node (1s after the bind) as `kprio admit` does\n"
    "  --kubelet-config SELECTOR=FILE\n"
    "                          the same for the nodes whose labels match SELECTOR (as -l:\n"
    "                          k=v, k!=v, k in (a,b), k notin (a,b), k, !k, comma-separated;\n"
    "                          the file is after the last '='); repeatable:\n"
    "                          the first matching pool wins, FILE alone covers the rest\n"
    "  -o table|json|yaml      output format (default table)\n"
    "  --events-only           the event log alone (no summary, no pod timelines)\n"
    "  --final-snapshot FILE   write the end state as a kubectl-style v1 List (JSON) that every\n"
    "                          kprio command loads\n"
    "  --imagefs LAYOUT        the nodes' filesystems: shared (default: one disk), dedicated\n"
    "                          (images and writable layers on a second disk), split (images\n"
    "                          on a second disk, writable layers on the node's)\n"
    "  --dump-summaries DIR    write the Summary API document each node's kubelet observed at\n"
    "                          each eviction step to DIR/NODE/TIME.json (TIME: virtual ms on\n"
    "                          13 digits); `kprio evict --summary DIR/NODE` replays them\n"
    "  --dump-node NAME        only this node's (repeatable; default: every node)\n"
    "  --why NAMESPACE/NAME    instead of the run's summary: why a kubelet evicted that pod\n"
    "                          and not another (the ranking, the deciding key against each\n"
    "                          other pod, what would have spared it); also `kprio why\n"
    "                          NAMESPACE/NAME --scenario ...`\n";

/* (two strings: ISO C's limit on a string literal's length) */
static const char *HELP_TRACE =
    "  --trace DIR             replay a trace `kubectl kprio record` wrote (docs/live.md):\n"
    "                          its snapshot is the input, its users' actions the scenario;\n"
    "                          prints how far the simulated decisions (Scheduled, node,\n"
    "                          FailedScheduling, Preempted, Evicted) agree with the recorded\n"
    "                          ones and the first divergences side by side\n"
    "  --divergences N         with --trace: how many divergences to print (default 10)\n";

static const char *HELP_INSIGHT = KP_CLI_VIEW_HELP
    "  --starvation-threshold D  a pod pending longer starves (Go duration; default 5m)\n"
    "  --loop-turns N          displaced-and-recreated turns that make a loop (default 3)\n"
    "  --cascade-depth N       levels that make a cascade worth reporting (default 2)\n"
    "  --compare A B           what-if: run scenarios A and B from the same snapshot and\n"
    "                          seed and print the differences (not with --scenario)\n"
    "  --compare-config A B    the same with two KubeSchedulerConfigurations (not --config)\n"
    "  --compare-kubelet-config A B  the same with two KubeletConfigurations\n"
    "  --compare-priorities A B  the same with two PriorityLayouts (classes and which pods\n"
    "                          get them), with churn per class (docs/simulate.md)\n"
    "  --metrics FILE          write the run's metrics (upstream's names: scheduler_*,\n"
    "                          kubelet_evictions; kprio_pod_disruptions_total) in Prometheus\n"
    "                          text format; -o json|yaml carries their time series\n"
    "                          (docs/simulate.md \"Metrics\")\n"
    "  --report FILE.html      write a self-contained HTML report: the answer first (findings,\n"
    "                          pods disrupted by cause), charts, findings, the event log with a\n"
    "                          filter (docs/simulate.md \"HTML report\"); with --compare*: the\n"
    "                          two runs side by side\n"
    "  --max-input-bytes N     largest input read (Ki/Mi/Gi/Ti suffixes; default 16Gi)\n"
    "\n"
    "Exit status: 0 answered, 1 bad input or a runtime error, 2 usage error.\n";

/* One --kubelet-config SELECTOR=FILE: SELECTOR parsed as -l is (kp_selector_parse), FILE
 * pointing into text (a copy of the argument, cut at the last '='). */
typedef struct {
    char *text;
    const char *file;
    kp_selector *sel; /* the command line's; NULL for the Scenario's */
    const kp_selector_req *reqs;
    size_t n_reqs;
    bool scenario; /* from the Scenario's kubelets[]: reqs and file are the scenario's */
    kp_evict_config *cfg;
} kubelet_pool;

typedef struct {
    const char *scenario, *config, *compat, *final_snapshot, *kubelet_config;
    const char *dump_dir;
    kp_evict_fs_layout fs_layout;
    const char **dump_nodes;
    size_t n_dump_nodes;
    bool *dump_seen; /* per --dump-node: a node of that name had a summary dumped */
    const char *metrics, *report;
    const char *why; /* --why NAMESPACE/NAME */
    const char *trace; /* --trace DIR (cmd_simulate_trace.c) */
    size_t divergences; /* --divergences N */
    bool why_positional; /* kprio why NAMESPACE/NAME ...: the positional argument is it */
    int64_t duration_ms;
    uint64_t seed;
    bool has_seed, events_only;
    int64_t start_unix; /* --start (has_start) */
    bool has_start;
    kubelet_pool *pools;
    size_t n_pools;
    kp_cli_insight_args ins; /* findings' thresholds, --compare* (cmd_simulate_compare.c) */
} sim_args;

static void pools_free(sim_args *a) {
    for (size_t i = 0; i < a->n_pools; i++) {
        kp_free(a->pools[i].text);
        kp_selector_free(a->pools[i].sel);
        kp_evict_config_free(a->pools[i].cfg);
    }
    kp_free(a->pools);
}

/* --kubelet-config [SELECTOR=]FILE */
static int kubelet_config_arg(sim_args *a, const char *v) {
    const char *eq = strrchr(v, '=');
    if (!eq) {
        if (a->kubelet_config)
            return kp_cli_usage_error("simulate", USAGE,
                                      "--kubelet-config: two files without a selector (\"%s\", "
                                      "\"%s\")",
                                      a->kubelet_config, v);
        a->kubelet_config = v;
        return KP_EXIT_OK;
    }
    kubelet_pool *np = kp_realloc(a->pools, (a->n_pools + 1) * sizeof *np);
    if (!np) return kp_cli_print_status(KP_ENOMEM);
    a->pools = np;
    kubelet_pool *p = &np[a->n_pools++];
    memset(p, 0, sizeof *p);
    if (!(p->text = kp_strdup(v))) return kp_cli_print_status(KP_ENOMEM);
    char *cut = p->text + (eq - v);
    *cut = '\0';
    p->file = cut + 1;
    if (!*p->file || !*p->text)
        return kp_cli_usage_error("simulate", USAGE,
                                  "--kubelet-config: \"%s\" is not SELECTOR=FILE (SELECTOR: a "
                                  "label selector as -l takes)",
                                  v);
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_selector_parse(p->text, &p->sel, &err);
    if (st == KP_ENOMEM) return kp_cli_print_status(st);
    if (st != KP_OK) return kp_cli_usage_error("simulate", USAGE, "--kubelet-config: %s", err.msg);
    p->reqs = kp_selector_reqs(p->sel, &p->n_reqs);
    return KP_EXIT_OK;
}

/* Reads every pool's KubeletConfiguration (the command line's, then the Scenario's
 * kubelets[]); the error names its file. */
static kp_status load_pools(sim_args *a, const kp_scenario *sc, kp_sim_kubelet_pool **out,
                            kp_error *err) {
    size_t n_sc = sc ? sc->n_kubelets : 0;
    if (n_sc) {
        kubelet_pool *np = kp_realloc(a->pools, (a->n_pools + n_sc) * sizeof *np);
        if (!np) return kp_error_set(err, KP_ENOMEM, "out of memory");
        a->pools = np;
        for (size_t i = 0; i < n_sc; i++) {
            kubelet_pool *p = &np[a->n_pools++];
            memset(p, 0, sizeof *p);
            p->scenario = true;
            p->reqs = sc->kubelets[i].reqs;
            p->n_reqs = sc->kubelets[i].n_reqs;
            p->file = sc->kubelets[i].config;
        }
    }
    *out = a->n_pools ? kp_calloc(a->n_pools, sizeof **out) : NULL;
    if (a->n_pools && !*out) return kp_error_set(err, KP_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->n_pools; i++) {
        kubelet_pool *p = &a->pools[i];
        if (!(p->cfg = kp_evict_config_new())) return kp_error_set(err, KP_ENOMEM, "out of memory");
        kp_status st = kp_evict_config_load_path(p->cfg, p->file, err);
        if (st == KP_OK) st = kp_evict_config_finish(p->cfg, err);
        if (st != KP_OK) {
            if (!err->source[0]) snprintf(err->source, sizeof err->source, "%s", p->file);
            return st;
        }
        (*out)[i].reqs = p->reqs;
        (*out)[i].n_reqs = p->n_reqs;
        (*out)[i].config = p->cfg;
    }
    return KP_OK;
}

static int parse_args(kp_cli_common *c, sim_args *a, int argc, char **argv) {
    /* the --compat line's gate defaults and locks first, as `schedule` reads them */
    int crc = kp_cli_compat_arg(c, argc, argv, "simulate", &a->compat);
    if (crc != 0) return crc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int r = kp_cli_common_arg(c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(c, argc, argv, &i, "simulate");
        if (r == 0) r = kp_cli_insight_arg(&a->ins, argc, argv, &i, USAGE);
        if (r == 0) r = kp_cli_view_arg(c, argc, argv, &i, "simulate");
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        const char *v = NULL;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            printf("usage: %s\n\n%s%s%s", USAGE, HELP, HELP_TRACE, HELP_INSIGHT);
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
        } else if (kp_cli_is_opt(arg, "--why")) {
            if (!(a->why = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (a->why_positional && !a->why && arg[0] != '-') {
            a->why = arg;
        } else if (kp_cli_is_opt(arg, "--trace")) {
            if (!(a->trace = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--divergences")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-' || x > 1000000)
                return kp_cli_usage_error(
                    "simulate", USAGE, "--divergences: \"%s\" is not a number of 0 to 1000000", v);
            a->divergences = (size_t)x;
        } else if (kp_cli_is_opt(arg, "--scenario")) {
            if (!(a->scenario = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--imagefs")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            static const char *const names[] = {"shared", "dedicated", "split"};
            size_t k = 0;
            while (k < 3 && strcmp(v, names[k]) != 0) k++;
            if (k == 3)
                return kp_cli_usage_error("simulate", USAGE,
                                          "--imagefs must be shared, dedicated or split, not "
                                          "\"%s\"",
                                          v);
            a->fs_layout = (kp_evict_fs_layout)(KP_EVFS_SHARED + (int)k);
        } else if (kp_cli_is_opt(arg, "--dump-summaries")) {
            if (!(a->dump_dir = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--dump-node")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            a->dump_nodes[a->n_dump_nodes++] = v; /* room for argc names */
        } else if (kp_cli_is_opt(arg, "--kubelet-config")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            int r2 = kubelet_config_arg(a, v);
            if (r2 != KP_EXIT_OK) return r2;
        } else if (kp_cli_is_opt(arg, "--config")) {
            if (!(a->config = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--compat")) { /* read by kp_cli_compat_arg */
            if (!kp_cli_optval(argc, argv, &i, "simulate")) return KP_EXIT_USAGE;
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
        } else if (kp_cli_is_opt(arg, "--start")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "simulate"))) return KP_EXIT_USAGE;
            kp_error err;
            kp_error_clear(&err);
            if (kp_time_parse(v, &a->start_unix, &err) != KP_OK)
                return kp_cli_usage_error("simulate", USAGE, "--start: %s", err.msg);
            a->has_start = true;
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
    if (a->trace && (a->scenario || a->why || a->has_start || a->ins.compare != KP_CMP_NONE))
        return kp_cli_usage_error(
            "simulate", USAGE, "--trace takes neither --scenario, --why, --start nor --compare*");
    if (c->n_files == 0 && !a->trace)
        return kp_cli_usage_error("simulate", USAGE, "no input: give at least one -f FILE");
    if (a->why && a->ins.compare != KP_CMP_NONE)
        return kp_cli_usage_error("simulate", USAGE, "--why takes one run, not --compare*");
    if (a->n_dump_nodes && !a->dump_dir)
        return kp_cli_usage_error("simulate", USAGE, "--dump-node needs --dump-summaries DIR");
    if (a->ins.compare != KP_CMP_NONE && (c->ns || c->selector || c->sort_by || a->has_start))
        return kp_cli_usage_error("simulate", USAGE,
                                  "--compare* takes neither -n, -l, --sort-by nor --start");
    static const char *const columns[] = {"TIME", "TYPE", "REASON", "OBJECT", "MESSAGE"};
    int vrc = kp_cli_view_check(c, "simulate", columns, sizeof columns / sizeof columns[0]);
    if (vrc != KP_EXIT_OK) return vrc;
    if (a->ins.compare != KP_CMP_NONE && (a->dump_dir || a->n_pools || a->metrics))
        return kp_cli_usage_error("simulate", USAGE,
                                  "--compare* takes neither --dump-summaries, --metrics nor node "
                                  "pools (--kubelet-config SELECTOR=FILE)");
    kp_cli_sim_run run = {a->scenario,       a->config,      a->kubelet_config, a->compat,
                          a->final_snapshot, a->duration_ms, a->seed,           a->has_seed,
                          a->events_only,    a->fs_layout,   a->report};
    return kp_cli_insight_check(&a->ins, c, &run, USAGE);
}

/* --dump-summaries: the chosen nodes' observed summaries, written by kprio/eviction.h's io. */
static kp_status dump_summary(void *ctx, const kp_sim *sim, kp_index node, const char *json,
                              size_t len, kp_error *err) {
    const sim_args *a = ctx;
    const char *name = kp_cluster_node_name(kp_sim_cluster(sim), node);
    bool want = a->n_dump_nodes == 0;
    for (size_t i = 0; i < a->n_dump_nodes && !want; i++)
        if ((want = strcmp(a->dump_nodes[i], name) == 0)) a->dump_seen[i] = true;
    if (!want) return KP_OK;
    return kp_evict_summary_write_dir(a->dump_dir, name, kp_sim_now(sim), json, len, err);
}

/* --final-snapshot: the end state through kprio/encode.h. */
typedef struct {
    const kp_cluster *cl;
    kp_error *err;
} final_ctx;

static kp_status to_file(void *ctx, const char *buf, size_t len) {
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? KP_OK : KP_EIO;
}

static kp_status fill_final(FILE *f, void *ctx) {
    const final_ctx *fc = ctx;
    kp_encode_options o;
    kp_encode_options_init(&o);
    o.pretty = true;
    return kp_cluster_encode_json(fc->cl, &o, to_file, f, fc->err);
}

/* Commits an output opened before the run (base/file.h): its content from fill. */
static int commit_out(kp__out *o, kp_status (*fill)(FILE *f, void *ctx), void *ctx) {
    kp_error err;
    kp_error_clear(&err);
    if (kp__out_commit(o, fill(kp__out_stream(o), ctx), &err) != KP_OK)
        return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

/* --metrics / --report */
typedef struct {
    kp_sim *sim;
    const kp_insight_options *ins; /* the report's findings thresholds */
} out_ctx;

static kp_status fill_metrics(FILE *f, void *ctx) {
    return kp_render_metrics_prometheus(f, ((out_ctx *)ctx)->sim);
}

static kp_status fill_report(FILE *f, void *ctx) {
    const out_ctx *o = ctx;
    kp_insight *in = NULL;
    kp_error err;
    kp_status st = kp_insight_new(o->sim, o->ins, &in, &err);
    kp_report_findings fs = kp_report_findings_of(in);
    if (st == KP_OK && kp_insight_finding_count(in) && !fs.items) st = KP_ENOMEM;
    if (st == KP_OK) st = kp_render_report_html(f, o->sim, &fs);
    kp_report_findings_free(&fs);
    kp_insight_free(in);
    return st;
}

/* The output files, opened before the run so that a bad path costs nothing (base/file.h):
 * each is written whole at the end or left as it was. */
typedef struct {
    kp__out *final, *metrics, *report;
} sim_outs;

static int open_outs(const sim_args *a, sim_outs *o) {
    kp_error err;
    kp_error_clear(&err);
    if ((a->final_snapshot && kp__out_open(a->final_snapshot, &o->final, &err) != KP_OK) ||
        (a->metrics && kp__out_open(a->metrics, &o->metrics, &err) != KP_OK) ||
        (a->report && kp__out_open(a->report, &o->report, &err) != KP_OK) ||
        (a->dump_dir && kp__dir_make(a->dump_dir, &err) != KP_OK))
        return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

/* Commits the outputs in order (each one's pointer cleared as it is released); the first error
 * ends it, and the caller aborts the rest. */
static int write_outs(sim_outs *so, kp_sim *sim, kp_cluster *cl, const kp_insight_options *ins) {
    int rc = KP_EXIT_OK;
    kp_error err;
    kp_error_clear(&err);
    final_ctx fc = {cl, &err};
    out_ctx mo = {sim, NULL}, ro = {sim, ins};
    kp__out *o;
    if (rc == KP_EXIT_OK && (o = so->final)) {
        so->final = NULL;
        rc = commit_out(o, fill_final, &fc);
    }
    if (rc == KP_EXIT_OK && (o = so->metrics)) {
        so->metrics = NULL;
        rc = commit_out(o, fill_metrics, &mo);
    }
    if (rc == KP_EXIT_OK && (o = so->report)) {
        so->report = NULL;
        rc = commit_out(o, fill_report, &ro);
    }
    return rc;
}

/* standard input may feed one input only: -f -, --scenario -, --config -, --kubelet-config -
 * and the --compare* values */
static int stdin_once(const kp_cli_common *c, const sim_args *a) {
    const char *paths[6] = {NULL, a->scenario, a->config, a->kubelet_config, a->ins.a, a->ins.b};
    const char *names[6] = {"-f",           "--scenario",  "--config", "--kubelet-config",
                            "--compare* A", "--compare* B"};
    for (int i = 0; i < c->n_files; i++)
        if (strcmp(c->files[i], "-") == 0) paths[0] = "-";
    return kp_cli_stdin_once(paths, names, 6);
}

/* --why: the kubelet eviction of the pod, explained from the ranking the run kept */
static int render_why(const kp_cli_common *c, kp_sim *sim, const char *target) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_index pod = kp_cli_find_pod_or_hint(cl, target, "simulate");
    if (pod < 0) return KP_EXIT_ERROR;
    kp_sim_eviction_ranking r;
    kp_status st;
    kp_error err;
    kp_error_clear(&err);
    if (!kp_sim_eviction_ranking_get(sim, pod, &r)) {
        const kp_sim_pod *sp =
            (size_t)pod < kp_sim_pod_count(sim) ? kp_sim_pod_get(sim, (size_t)pod) : NULL;
        char note[160];
        if (sp && sp->cause && *sp->cause)
            snprintf(note, sizeof note,
                     "no kubelet evicted it by ranking in the run (it ended: %s)", sp->cause);
        else
            snprintf(note, sizeof note, "no kubelet evicted it in the run (at the end: %s)",
                     sp ? kp_sim_pod_state_name(sp->state) : "?");
        st = kp_render_evict_not_evicted(stdout, c->out, cl, pod, NULL, note);
        return st == KP_OK ? KP_EXIT_OK : kp_cli_print_status(st);
    }
    char when[64], d[48];
    kp_duration_format(r.t_ms * 1000000, d, sizeof d); /* virtual time, as the event log */
    snprintf(when, sizeof when, "t=%s", d);
    kp_evict_why_input in = {kp_cluster_node_name(cl, r.node),
                             when,
                             r.signal,
                             r.message,
                             r.kind,
                             r.ranking,
                             r.n_ranking,
                             r.position};
    if (kp_render_evict_why(stdout, c->out, cl, &in, &err) != KP_OK)
        return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

static int run_simulate(kp_cli_common *c, int argc, char **argv, bool why_positional) {
    sim_args a;
    memset(&a, 0, sizeof a);
    a.why_positional = why_positional;
    a.divergences = 10;
    kp_cli_insight_args_init(&a.ins);
    a.dump_nodes = kp_calloc((size_t)argc + 1, sizeof *a.dump_nodes);
    a.dump_seen = kp_calloc((size_t)argc + 1, sizeof *a.dump_seen);
    if (!a.dump_nodes || !a.dump_seen) {
        kp_free(a.dump_nodes);
        kp_free(a.dump_seen);
        return kp_cli_print_status(KP_ENOMEM);
    }
    int rc = parse_args(c, &a, argc, argv);
    if (rc == KP_EXIT_OK) rc = stdin_once(c, &a);
    if (rc == KP_EXIT_OK && a.ins.compare != KP_CMP_NONE) {
        kp_cli_sim_run run = {a.scenario, a.config,      a.kubelet_config, a.compat,
                              NULL,       a.duration_ms, a.seed,           a.has_seed,
                              false,      a.fs_layout,   a.report};
        rc = kp_cli_simulate_compare(c, &a.ins, &run);
        kp_free(a.dump_nodes);
        kp_free(a.dump_seen);
        pools_free(&a);
        return rc;
    }
    kp_error err;
    kp_error_clear(&err);
    if (rc != KP_EXIT_OK) {
        pools_free(&a);
        kp_free(a.dump_nodes);
        kp_free(a.dump_seen);
        return rc < 0 ? KP_EXIT_OK : rc; /* < 0: --help */
    }
    kp_sched_config *cfg = NULL;
    kp_scenario *sc = NULL;
    kp_cluster *cl = NULL;
    kp_sim *sim = NULL;
    kp_evict_config *kcfg = NULL;
    kp_sim_kubelet_pool *pools = NULL;
    sim_outs outs = {NULL, NULL, NULL};
    kp_cli_trace tc;
    memset(&tc, 0, sizeof tc);
    if ((rc = open_outs(&a, &outs)) != KP_EXIT_OK) goto out;
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
    if ((a.n_pools || (sc && sc->n_kubelets)) && load_pools(&a, sc, &pools, &err) != KP_OK) {
        rc = kp_cli_print_error(&err);
        goto out;
    }
    /* the controllers make pods from their workloads' templates (kept, nothing expanded) */
    c->expand |= KP_WORKLOAD_TEMPLATES;
    if (a.trace && (rc = kp_cli_trace_begin(c, a.trace, &tc)) != KP_EXIT_OK) goto out;
    if (!(cl = kp_cli_load(c))) {
        rc = KP_EXIT_ERROR;
        goto out;
    }
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.duration_ms = a.duration_ms;
    o.seed = a.seed;
    o.has_seed = a.has_seed;
    o.start_unix = a.start_unix;
    o.has_start = a.has_start;
    o.compat = a.compat;
    o.kubelet_config = kcfg;
    o.fs_layout = a.fs_layout;
    if (a.dump_dir) {
        o.summary_hook = dump_summary;
        o.summary_ctx = &a;
        o.kubelets = true;
    }
    o.kubelet_pools = pools;
    o.n_kubelet_pools = a.n_pools;
    if (a.trace && (rc = kp_cli_trace_load(&tc, cl, &o)) != KP_EXIT_OK) goto out;
    const kp_scenario *play = a.trace ? kp_trace_scenario(tc.tr) : sc;
    if (kp_sim_new(cl, cfg, play, &o, &sim, &err) != KP_OK || kp_sim_run(sim, &err) != KP_OK) {
        rc = kp_cli_print_error(&err);
        goto out;
    }
    /* a usage entry or a --dump-node that matched nothing is named (else it goes unnoticed) */
    kp_cli_usage_warnings(sc, sim, NULL);
    for (size_t i = 0; i < a.n_dump_nodes; i++)
        if (!a.dump_seen[i])
            kp_cli_eprintf("kprio: warning: --dump-node %s: no node of that name had its summaries "
                           "dumped (no such node, or no kubelet pass on it)",
                           a.dump_nodes[i]);
    if ((rc = write_outs(&outs, sim, cl, &a.ins.o)) != KP_EXIT_OK) goto out;
    if (a.trace) rc = kp_cli_trace_render(&tc, sim, c->out, a.divergences);
    else if (a.why) rc = render_why(c, sim, a.why);
    else {
        kp_cli_view_begin(c, cl, a.has_start); /* the output on stdout only (not --report) */
        rc = kp_cli_simulate_render(&a.ins, sim, c->out, a.events_only);
    }
out:
    kp__out_abort(outs.final);
    kp__out_abort(outs.metrics);
    kp__out_abort(outs.report);
    kp_sim_free(sim);
    kp_cluster_free(cl);
    kp_scenario_free(sc);
    kp_cli_trace_end(&tc);
    kp_sched_config_free(cfg);
    kp_evict_config_free(kcfg);
    kp_free(a.dump_nodes);
    kp_free(a.dump_seen);
    kp_free(pools);
    pools_free(&a);
    return rc;
}

int kp_cmd_simulate_why(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_simulate(&c, argc, argv, true);
    kp_cli_common_free(&c);
    return rc;
}

int kp_cmd_simulate(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_simulate(&c, argc, argv, false);
    kp_cli_common_free(&c);
    return rc;
}
