/* kprio schedule: run kube-scheduler's scheduling cycle (and DefaultPreemption) over a snapshot
 * and print the SchedulePlan (docs/schedule.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/ctrl.h"
#include "kprio/sched.h"
#include "render/render_sched.h"

static const char *USAGE = "kprio schedule -f FILE|DIR|- [-f ...] [-R] [--config FILE] "
                           "[--scheduler-name NAME] [--seed N]\n"
                           "               [--until-settled] [--compat VERSION] [--explain "
                           "NAMESPACE/NAME] [-o table|json|yaml]\n"
                           "               [-n NS | -A] [-l SELECTOR] [--sort-by COLUMN]\n"
                           "               [--expand-workloads] [--expand-cronjobs] "
                           "[--feature-gates KEY=BOOL,...]";

static const char *HELP =
    "Schedules every pending pod of the snapshot in kube-scheduler's queue order (priority, then\n"
    "creation time); each binding is visible to later pods. A pod that fits nowhere runs\n"
    "DefaultPreemption: it is Nominated (victims become terminating) or stays Unschedulable.\n"
    "With several profiles in --config, one queue serves them all, each pod with its own\n"
    "profile (PROFILE column); pods naming no profile's schedulerName are left alone.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE     input (repeatable; a directory with -R); a what-if is one more -f\n"
    "  --config FILE           KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)\n"
    "  --scheduler-name NAME   serve only this profile's pods (spec.schedulerName NAME); default:\n"
    "                          every profile of --config (default-scheduler without one)\n"
    "  --seed N                PRNG seed for random choices (host ties, candidate offset); default "
    "0\n"
    "  --until-settled         victims terminate at once; retry pods until nothing changes\n"
    "  --compat VERSION        decide as an older release line (e.g. 1.35), see "
    "docs/compat.md\n"
    "  --explain NS/NAME       per-node filter verdicts, scores and preemption reasoning for a "
    "pod\n"
    "                          (and the feature gates that differ from the defaults)\n"
    "  --feature-gates K=B,... kube-scheduler's feature gates, e.g. PodLevelResources=false\n"
    "                          (repeatable; docs/compat.md lists the ones kprio models)\n"
    "  -o table|wide|json|yaml output format (default table; wide adds PROFILE, VICTIMS,\n"
    "                          PDB-VIOLATIONS and CHOSEN-BY columns)\n"
    "      --no-headers        tables without their header row\n" KP_CLI_VIEW_HELP
    "  --max-input-bytes N     largest input read (Ki/Mi/Gi/Ti suffixes; default 16Gi)\n"
    "  --expand-workloads      Deployments, ReplicaSets, ReplicationControllers, StatefulSets,\n"
    "                          DaemonSets and Jobs become the pending pods their controllers\n"
    "                          would create now (replicas their pods do not cover; generated\n"
    "                          names, see docs/schedule.md)\n"
    "  --expand-cronjobs       --expand-workloads, and each CronJob fires once now\n"
    "\n"
    "Exit status: 0 answered, 1 bad input or a runtime error (out of memory, write error), 2 "
    "usage\n"
    "error (unknown option, missing or bad option value).\n";


/* Whether the workload `o` (a ReplicaSet of a Deployment, a Job of a CronJob) is owned by w. */
static bool owned_by(const kp_workload_info *o, const kp_workload_info *w) {
    return o->owner_kind && o->owner_name && strcmp(o->owner_kind, w->kind) == 0 &&
           strcmp(o->owner_name, w->name) == 0 && strcmp(o->ns, w->ns) == 0;
}

/* Nothing to schedule although the input has workloads (not Services) with no child in it (no
 * pod they control, no workload they own), read without --expand-workloads: the user most
 * likely meant their pods to be scheduled. One line on stderr naming the flag
 * (--expand-cronjobs when each of them is a CronJob). One pass over the pods; only the
 * workloads left childless are compared with the others (Deployments and CronJobs own
 * workloads, their pods are their children's). */
static void hint_expand(const kp_cluster *cl, const kp_sched *s, unsigned expand) {
    size_t nw = kp_cluster_workload_count(cl);
    if (expand || kp_sched_result_count(s) != 0 || nw == 0) return;
    bool *has_pod = kp_calloc(nw, sizeof *has_pod);
    if (!has_pod) return; /* a hint, not an answer: none when out of memory */
    for (size_t i = 0; i < kp_cluster_pod_count(cl); i++) {
        kp_index w = kp_cluster_pod_workload(cl, (kp_index)i);
        if (w >= 0 && (size_t)w < nw) has_pod[w] = true;
    }
    size_t n = 0, n_cron = 0;
    kp_workload_info first = {0};
    for (size_t i = 0; i < nw; i++) {
        kp_workload_info w, o;
        if (has_pod[i] || kp_cluster_workload_info(cl, (kp_index)i, &w) != KP_OK || w.deleted ||
            strcmp(w.kind, "Service") == 0)
            continue;
        bool owns = false;
        for (size_t j = 0; !owns && j < nw; j++)
            owns = j != i && kp_cluster_workload_info(cl, (kp_index)j, &o) == KP_OK &&
                   owned_by(&o, &w);
        if (owns) continue;
        if (n++ == 0) first = w;
        n_cron += strcmp(w.kind, "CronJob") == 0;
    }
    kp_free(has_pod);
    if (n == 0) return;
    kp_cli_eprintf("kprio: hint: %zu workload%s of the input (%s %s/%s%s) ha%s no pod in it; "
                   "%s creates the pods %s would create",
                   n, n == 1 ? "" : "s", first.kind, first.ns, first.name, n > 1 ? ", ..." : "",
                   n == 1 ? "s" : "ve", n_cron == n ? "--expand-cronjobs" : "--expand-workloads",
                   n == 1 ? "its controller" : "their controllers");
}

/* The command proper; the caller owns the common options (-f list) and frees them. */
static int run_schedule(kp_cli_common *c, int argc, char **argv) {
    const char *config = NULL, *sched_name = NULL, *explain = NULL, *compat = NULL;
    uint64_t seed = 0;
    int crc = kp_cli_compat_arg(c, argc, argv, "schedule", &compat);
    if (crc != 0) return crc;
    bool settled = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = kp_cli_common_arg(c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(c, argc, argv, &i, "schedule");
        if (r == 0) r = kp_cli_view_arg(c, argc, argv, &i, "schedule");
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: %s\n\n%s", USAGE, HELP);
            return KP_EXIT_OK;
        } else if (kp_cli_is_opt(a, "--config")) {
            if (!(config = kp_cli_optval(argc, argv, &i, "schedule"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(a, "--scheduler-name")) {
            if (!(sched_name = kp_cli_optval(argc, argv, &i, "schedule"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(a, "--explain")) {
            if (!(explain = kp_cli_optval(argc, argv, &i, "schedule"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(a, "--compat")) { /* read by kp_cli_compat_arg */
            if (!kp_cli_optval(argc, argv, &i, "schedule")) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(a, "--seed")) {
            const char *v = kp_cli_optval(argc, argv, &i, "schedule");
            if (!v) return KP_EXIT_USAGE;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-')
                return kp_cli_usage_error("schedule", USAGE,
                                          "--seed: \"%s\" is not a non-negative integer", v);
            seed = (uint64_t)x;
        } else if (strcmp(a, "--until-settled") == 0) {
            settled = true;
        } else if (kp_cli_expand_arg(c, a)) {
            continue;
        } else {
            return kp_cli_usage_error("schedule", USAGE, "unknown option \"%s\"", a);
        }
    }
    if (c->n_files == 0)
        return kp_cli_usage_error("schedule", USAGE, "no input: give at least one -f FILE");
    static const char *const columns[] = {"POD",    "PROFILE", "PRIORITY",       "OUTCOME",
                                          "NODE",   "VICTIMS", "PDB-VIOLATIONS", "CHOSEN-BY",
                                          "MESSAGE"};
    int vrc = kp_cli_view_check(c, "schedule", columns, sizeof columns / sizeof columns[0]);
    if (vrc != KP_EXIT_OK) return vrc;

    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    if (config && kp_sched_config_load_path(config, sched_name, &cfg, &err) != KP_OK) {
        kp_cli_print_error(&err);
        return KP_EXIT_ERROR;
    }
    kp_cluster *cl = kp_cli_load(c);
    if (!cl) {
        kp_sched_config_free(cfg);
        return KP_EXIT_ERROR;
    }
    int rc = KP_EXIT_OK;
    kp_sched *s = NULL;
    /* the claims of pods' ResourceClaimTemplates a live cluster's controller made already */
    if (kp_ctrl_resourceclaim_create_all(cl, seed, 0, NULL, &err) != KP_OK) {
        kp_cli_print_error(&err);
        rc = KP_EXIT_ERROR;
        goto out;
    }
    kp_sched_options opt;
    kp_sched_options_init(&opt);
    opt.scheduler_name = sched_name;
    opt.seed = seed;
    opt.until_settled = settled;
    opt.compat = compat;
    if (kp_sched_new(cl, cfg, &opt, &s, &err) != KP_OK) {
        kp_cli_print_error(&err);
        rc = KP_EXIT_ERROR;
        goto out;
    }
    if (explain) {
        kp_index pod = kp_cluster_find_pod(cl, explain);
        if (pod < 0) {
            kp_cli_eprintf("kprio: --explain: %s: no such pod in the input", explain);
            rc = KP_EXIT_ERROR;
            goto out;
        }
        if (kp_sched_explain(s, pod, &err) != KP_OK) {
            kp_cli_print_error(&err);
            rc = KP_EXIT_ERROR;
            goto out;
        }
    }
    if (kp_sched_run(s, &err) != KP_OK) {
        kp_cli_print_error(&err);
        rc = KP_EXIT_ERROR;
        goto out;
    }
    kp_cli_view_begin(c, cl, false);
    if (kp_render_schedule(stdout, s, cl, c->wide ? KP_OUT_WIDE : c->out) != KP_OK)
        rc = kp_cli_print_status(KP_ENOMEM); /* nothing was written */
    else hint_expand(cl, s, c->expand);
out:
    kp_sched_free(s);
    kp_cluster_free(cl);
    kp_sched_config_free(cfg);
    return rc;
}

int kp_cmd_schedule(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_schedule(&c, argc, argv);
    kp_cli_common_free(&c);
    return rc;
}
