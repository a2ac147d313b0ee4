/* `kprio why NAMESPACE/NAME -f FILE...`: the reverse question of `kprio schedule` for a pod that
 * would be a preemption victim: which pending pod preempts it, on which node, how the node was
 * chosen, and what would have spared it.
 *
 * Argument parsing and output only: kp_why_evaluate (kprio/why.h) simulates the schedule as
 * `kprio schedule` does and evaluates the what-ifs against the snapshot as loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/ctrl.h"
#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"
#include "render/render_sched.h"

static const char *why_usage =
    "kprio why [NAMESPACE/]NAME [-n NAMESPACE] -f FILE... [--config FILE] [--seed N] [--compat "
    "VERSION] "
    "[-o table|json|yaml] [--max-input-bytes N]\n"
    "                [--expand-workloads | --expand-cronjobs] [--feature-gates KEY=BOOL,...]";

/* `kprio why POD --summary ...` is the eviction question (kprio evict --why POD), `kprio why POD
 * --scenario ...` or with --kubelet-config the one of a simulation (kprio simulate --why POD). */
static bool has_opt(int argc, char **argv, const char *opt) {
    for (int i = 1; i < argc; i++)
        if (kp_cli_is_opt(argv[i], opt)) return true;
    return false;
}

/* The command proper; the caller owns the common options (-f list) and frees them. */
static int run_why(kp_cli_common *common, int argc, char **argv) {
    const char *target = NULL, *config = NULL, *compat = NULL;
    uint64_t seed = 0;
    int crc = kp_cli_compat_arg(common, argc, argv, "why", &compat);
    if (crc != 0) return crc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf(
                "usage: %s\n\nFor a pod that would be a preemption victim when the pending pods "
                "are\n"
                "scheduled: which preemptor, on which node, and what would have spared it.\n"
                "NAME alone is default/NAME, or NAMESPACE/NAME with -n NAMESPACE (as kubectl);\n"
                "a pod not in the input is "
                "an error that suggests the closest NAMESPACE/NAME.\n"
                "--compat VERSION and --feature-gates K=B,... as for kprio schedule (the schedule\n"
                "is replayed with them; docs/compat.md).\n"
                "\nFor a pod a kubelet evicted: with --summary FILE... (and kprio evict's "
                "options)\n"
                "the eviction replay explains it (kprio evict --why); with --scenario FILE or\n"
                "--kubelet-config FILE (and kprio simulate's options), the simulation's kubelet\n"
                "(kprio simulate --why): the ranking, the key that decided it against each other\n"
                "pod, and what would have spared it.\n"
                "\nExit status: 0 answered, 1 bad input or a runtime error (out of memory, write\n"
                "error), 2 usage error (unknown option, missing or bad option value).\n",
                why_usage);
            return KP_EXIT_OK;
        }
        int r = kp_cli_common_arg(common, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(common, argc, argv, &i, "why");
        if (r == 0) r = kp_cli_view_arg(common, argc, argv, &i, "why");
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (kp_cli_expand_arg(common, argv[i])) continue; /* as kprio schedule */
        if (kp_cli_is_opt(argv[i], "--config")) {
            if (!(config = kp_cli_optval(argc, argv, &i, "why"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(argv[i], "--compat")) { /* read by kp_cli_compat_arg */
            if (!kp_cli_optval(argc, argv, &i, "why")) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(argv[i], "--seed")) {
            const char *v = kp_cli_optval(argc, argv, &i, "why");
            if (!v) return KP_EXIT_USAGE;
            char *end = NULL;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            if (!*v || *end || errno || v[0] == '-')
                return kp_cli_usage_error("why", why_usage, "--seed: not a number: %s", v);
            seed = s;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kp_cli_usage_error("why", why_usage, "unknown option %s", argv[i]);
        } else if (!target) {
            target = argv[i];
        } else {
            return kp_cli_usage_error("why", why_usage, "unexpected argument %s", argv[i]);
        }
    }
    if (!target) return kp_cli_usage_error("why", why_usage, "missing NAMESPACE/NAME");
    /* why answers for one pod: -n names its namespace, as kubectl's; nothing to filter or sort */
    if (common->all_ns || common->selector || common->sort_by)
        return kp_cli_usage_error("why", why_usage,
                                  "%s: why answers for one pod (-n NAMESPACE names its namespace)",
                                  common->all_ns     ? "-A"
                                  : common->selector ? "-l"
                                                     : "--sort-by");
    if (common->ns && strchr(target, '/'))
        return kp_cli_usage_error("why", why_usage,
                                  "-n %s and %s: give the namespace once (NAME with -n, or "
                                  "NAMESPACE/NAME)",
                                  common->ns, target);
    /* NAME alone is in -n's namespace, else "default", as kubectl reads it */
    const char *ns = common->ns ? common->ns : "default";
    size_t ref_len = strlen(target) + strlen(ns) + 2;
    char *ref = kp_malloc(ref_len);
    if (!ref) return kp_cli_print_status(KP_ENOMEM);
    if (strchr(target, '/')) snprintf(ref, ref_len, "%s", target);
    else snprintf(ref, ref_len, "%s/%s", ns, target);
    if (common->n_files == 0) return kp_cli_usage_error("why", why_usage, "missing -f FILE");

    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_ERROR;
    kp_cluster *run_cl = NULL, *what_cl = NULL;
    kp_sched_config *cfg = NULL;
    kp_why *w = NULL;

    if (config && kp_sched_config_load_path(config, NULL, &cfg, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    /* the run binds pods in run_cl; the what-ifs read what_cl, the same inputs untouched */
    /* (two loads: the run's cluster and the one the answer is read against) */
    if (kp_cli_require_rereadable(common, NULL, 0, "why") != KP_EXIT_OK) {
        rc = KP_EXIT_USAGE;
        goto out;
    }
    if (!(run_cl = kp_cli_load(common)) || !(what_cl = kp_cli_load_again(common))) goto out;
    /* the claims of pods' ResourceClaimTemplates a live cluster's controller made already (the
     * same names in both: the same seed) */
    if (kp_ctrl_resourceclaim_create_all(run_cl, seed, 0, NULL, &err) != KP_OK ||
        kp_ctrl_resourceclaim_create_all(what_cl, seed, 0, NULL, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    kp_index pod = kp_cli_find_pod_or_hint(run_cl, ref, "why");
    if (pod < 0) goto out;
    kp_preempt_options po;
    kp_preempt_options_init(&po);
    po.config = cfg;
    po.seed = seed;
    po.compat = compat;
    if (kp_why_evaluate(run_cl, what_cl, pod, &po, &w, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    if (kp_render_why(stdout, kp_why_get(w), what_cl, ref, common->out) != KP_OK) {
        kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    rc = KP_EXIT_OK;
out:
    kp_free(ref);
    kp_why_free(w);
    kp_sched_config_free(cfg);
    kp_cluster_free(run_cl);
    kp_cluster_free(what_cl);
    return rc;
}

int kp_cmd_why(int argc, char **argv) {
    if (has_opt(argc, argv, "--summary")) return kp_cmd_evict_why(argc, argv);
    if (has_opt(argc, argv, "--scenario") || has_opt(argc, argv, "--kubelet-config"))
        return kp_cmd_simulate_why(argc, argv);
    kp_cli_common common;
    kp_cli_common_init(&common);
    int rc = run_why(&common, argc, argv);
    kp_cli_common_free(&common);
    return rc;
}
