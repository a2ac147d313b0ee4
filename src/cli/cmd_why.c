/* `kprio why NAMESPACE/NAME -f FILE...`: the reverse question of `kprio schedule` for a pod that
 * would be a preemption victim: which pending pod preempts it, on which node, how the node was
 * chosen, and what would have spared it.
 *
 * The schedule is simulated exactly as `kprio schedule` does (queue order, bindings and
 * nominations visible to later pods). The "what would have spared it" answers are what-ifs
 * evaluated with the public preemption API against the snapshot as loaded: a priority at least
 * the preemptor's, and a PodDisruptionBudget with no disruptions left covering the pod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/preempt.h"
#include "kprio/render_sched.h"
#include "kprio/sched.h"

static const char *why_usage =
    "kprio why NAMESPACE/NAME -f FILE... [--config FILE] [--seed N] [--compat VERSION] "
    "[-o table|json|yaml]";

/* The preemptor that makes `pod` a victim in the simulated schedule. 1 found, 0 not, -1 out of
 * memory. */
static int find_preemptor(const kp_sched *s, kp_index pod, kp_why_answer *a, kp_index **victims) {
    size_t i;
    const kp_sched_pod_result *rp;
    if (kp_sched_result_find_preemptor(s, pod, &i) != KP_OK || !(rp = kp_sched_result(s, i))) return 0;
    kp_sched_pod_result r = *rp;
    a->preempted = true;
    a->preemptor = r.pod;
    a->preemptor_priority = r.priority;
    a->node = r.nominated_node >= 0 ? r.nominated_node : r.node;
    a->pdb_violations = r.pdb_violations;
    if (!(*victims = kp_malloc((r.n_victims ? r.n_victims : 1) * sizeof **victims))) return -1;
    for (size_t k = 0; k < r.n_victims; k++) (*victims)[k] = (kp_index)r.victims[k];
    a->victims = *victims;
    a->n_victims = r.n_victims;
    return 1;
}

/* What-if: `pod` covered by a PDB with no disruptions left. */
static int what_if_pdb(kp_cluster *cl, kp_index probe, kp_index pod, const kp_preempt_options *po,
                       kp_why_answer *a, kp_index **alt_victims) {
    kp_preemption *alt = NULL;
    kp_preempt_options pp = *po;
    pp.protect_pod = pod;
    kp_error err;
    kp_error_clear(&err);
    if (kp_preemption_new(cl, probe, &pp, &alt, &err) != KP_OK) return 0;
    a->pdb_evaluated = true;
    size_t n = kp_preemption_victim_count(alt);
    bool still = false;
    if (!(*alt_victims = kp_malloc((n ? n : 1) * sizeof **alt_victims))) {
        kp_preemption_free(alt);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        (*alt_victims)[i] = kp_preemption_victim(alt, i);
        if ((*alt_victims)[i] == pod) still = true;
    }
    a->pdb_spares = !still;
    a->pdb_alt_node = kp_preemption_outcome(alt) == KP_PREEMPTION_NOMINATED ? kp_preemption_node(alt) : -1;
    a->alt_victims = *alt_victims;
    a->n_alt_victims = n;
    kp_preemption_free(alt);
    return 1;
}

int kp_cmd_why(int argc, char **argv) {
    kp_cli_common common;
    memset(&common, 0, sizeof common);
    const char *target = NULL, *config = NULL, *compat = NULL;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s\n\nFor a pod that would be a preemption victim when the pending pods are\n"
                   "scheduled: which preemptor, on which node, and what would have spared it.\n",
                   why_usage);
            return KP_EXIT_OK;
        }
        int r = kp_cli_common_arg(&common, argc, argv, &i);
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (kp_cli_is_opt(argv[i], "--config")) {
            if (!(config = kp_cli_optval(argc, argv, &i, "why"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(argv[i], "--compat")) {
            if (!(compat = kp_cli_optval(argc, argv, &i, "why"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(argv[i], "--seed")) {
            const char *v = kp_cli_optval(argc, argv, &i, "why");
            if (!v) return KP_EXIT_USAGE;
            char *end = NULL;
            unsigned long long s = strtoull(v, &end, 10);
            if (!*v || *end) return kp_cli_usage_error("why", why_usage, "--seed: not a number: %s", v);
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
    if (common.n_files == 0) return kp_cli_usage_error("why", why_usage, "missing -f FILE");

    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_ERROR;
    kp_cluster *run_cl = NULL, *what_cl = NULL;
    kp_sched_config *cfg = NULL;
    kp_sched *s = NULL;
    kp_preemption *names = NULL;
    kp_index *victims = NULL, *alt_victims = NULL;
    kp_why_answer a;
    memset(&a, 0, sizeof a);
    a.preemptor = a.node = a.pdb_alt_node = -1;
    a.decided_by = "";

    if (config && kp_sched_config_load_path(config, NULL, &cfg, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    if (!(run_cl = kp_cli_load(&common)) || !(what_cl = kp_cli_load(&common))) goto out;
    kp_index pod = kp_cluster_find_pod(run_cl, target);
    if (pod < 0) {
        fprintf(stderr, "kprio: why: no pod %s in the input\n", target);
        goto out;
    }
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = seed;
    so.compat = compat;
    if (kp_sched_new(run_cl, cfg, &so, &s, &err) != KP_OK || kp_sched_run(s, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    if (find_preemptor(s, pod, &a, &victims) < 0) goto oom;
    /* what-ifs on the untouched snapshot (indices are identical: same inputs, same load order) */
    kp_preempt_options po;
    kp_preempt_options_init(&po);
    po.config = cfg;
    po.seed = seed;
    po.compat = compat;
    if (kp_cluster_pod_count(what_cl) != kp_cluster_pod_count(run_cl)) goto out;
    if (a.preempted) {
        /* the baseline decision on the snapshot (names, cascade step) */
        if (kp_preemption_new(what_cl, a.preemptor, &po, &names, &err) != KP_OK) {
            kp_cli_print_error(&err);
            goto out;
        }
        if (kp_preemption_node(names) == a.node) a.decided_by = kp_preemption_decided_by(names);
        if (what_if_pdb(what_cl, a.preemptor, pod, &po, &a, &alt_victims) < 0) goto oom;
        a.pod_priority = kp_cluster_pod_priority(what_cl, pod);
    }
    if (kp_render_why(stdout, &a, names ? what_cl : NULL, target, common.out) != KP_OK) goto oom;
    rc = KP_EXIT_OK;
    goto out;
oom:
    fprintf(stderr, "kprio: out of memory\n");
out:
    kp_free(victims);
    kp_free(alt_victims);
    kp_preemption_free(names);
    kp_sched_free(s);
    kp_sched_config_free(cfg);
    kp_cluster_free(run_cl);
    kp_cluster_free(what_cl);
    return rc;
}
