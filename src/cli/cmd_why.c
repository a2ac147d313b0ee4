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
#include "kprio/sched.h"

static const char *why_usage =
    "kprio why NAMESPACE/NAME -f FILE... [--config FILE] [--seed N] [--compat VERSION] "
    "[-o table|json|yaml]";

typedef struct {
    bool preempted;
    long preemptor, node;
    int32_t pod_prio, pre_prio;
    char decided_by[96];
    size_t n_victims;
    long victims[64];
    int pdb_violations;
    /* what-if: PDB with no budget */
    bool pdb_spares;
    long pdb_alt_node;      /* where the preemptor would go then (-1: nowhere) */
    size_t n_alt_victims;   /* its victims then (when pdb_alt_node is the same node) */
    long alt_victims[64];
    bool pdb_evaluated;
} why_answer;

static void print_table(const why_answer *a, kp_preemption *names, const char *target) {
    char buf[256];
    if (!a->preempted) {
        printf("%s would not be preempted by any pending pod.\n", target);
        return;
    }
    printf("%s (priority %d) would be preempted.\n", target, a->pod_prio);
    printf("Preemptor:  %s (priority %d)\n", kp_preemption_pod_ref(names, a->preemptor, buf, sizeof buf),
           a->pre_prio);
    printf("Node:       %s", kp_preemption_node_name(names, a->node));
    if (a->decided_by[0]) printf(" (chosen by: %s)", a->decided_by);
    printf("\nVictims:    ");
    for (size_t i = 0; i < a->n_victims; i++)
        printf("%s%s", i ? ", " : "", kp_preemption_pod_ref(names, a->victims[i], buf, sizeof buf));
    printf("\nPDB violations: %d\n", a->pdb_violations);
    printf("What would have spared it:\n");
    printf("  - priority >= %d (pods of equal or higher priority are never victims)\n", a->pre_prio);
    if (a->pdb_evaluated) {
        if (a->pdb_spares && a->pdb_alt_node >= 0 && a->pdb_alt_node == a->node) {
            printf("  - a PodDisruptionBudget with no disruptions left covering it: yes (the preemptor "
                   "would still go to node %s, preempting ", kp_preemption_node_name(names, a->node));
            for (size_t i = 0; i < a->n_alt_victims; i++)
                printf("%s%s", i ? ", " : "", kp_preemption_pod_ref(names, a->alt_victims[i], buf, sizeof buf));
            printf(" instead)\n");
        } else if (a->pdb_spares && a->pdb_alt_node >= 0)
            printf("  - a PodDisruptionBudget with no disruptions left covering it: yes (the preemptor "
                   "would go to node %s instead)\n", kp_preemption_node_name(names, a->pdb_alt_node));
        else if (a->pdb_spares)
            printf("  - a PodDisruptionBudget with no disruptions left covering it: yes (the preemptor "
                   "would not preempt at all)\n");
        else
            printf("  - a PodDisruptionBudget with no disruptions left covering it: no (PDBs are "
                   "best effort; the preemptor still needs it gone)\n");
    }
}

static void print_doc(const why_answer *a, kp_preemption *names, const char *target, kp_outfmt fmt) {
    char buf[256];
    kp_emit *e = kp_emit_new(stdout, fmt);
    if (!e) return;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "WhyPreempted");
    kp_emit_kv_str(e, "pod", target);
    kp_emit_kv_bool(e, "preempted", a->preempted);
    if (a->preempted) {
        kp_emit_kv_int(e, "priority", a->pod_prio);
        kp_emit_kv_str(e, "preemptor", kp_preemption_pod_ref(names, a->preemptor, buf, sizeof buf));
        kp_emit_kv_int(e, "preemptorPriority", a->pre_prio);
        kp_emit_kv_str(e, "node", kp_preemption_node_name(names, a->node));
        kp_emit_kv_str(e, "decidedBy", a->decided_by);
        kp_emit_key(e, "victims");
        kp_emit_arr_begin(e);
        for (size_t i = 0; i < a->n_victims; i++)
            kp_emit_str(e, kp_preemption_pod_ref(names, a->victims[i], buf, sizeof buf));
        kp_emit_arr_end(e);
        kp_emit_kv_int(e, "pdbViolations", a->pdb_violations);
        kp_emit_key(e, "sparedBy");
        kp_emit_arr_begin(e);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "change", "priority");
        kp_emit_kv_int(e, "atLeast", a->pre_prio);
        kp_emit_kv_bool(e, "spares", true);
        kp_emit_obj_end(e);
        if (a->pdb_evaluated) {
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "change", "podDisruptionBudget");
            kp_emit_kv_bool(e, "spares", a->pdb_spares);
            if (a->pdb_spares && a->pdb_alt_node >= 0 && a->pdb_alt_node == a->node) {
                kp_emit_kv_str(e, "preemptorNode", kp_preemption_node_name(names, a->node));
                kp_emit_key(e, "victimsInstead");
                kp_emit_arr_begin(e);
                for (size_t i = 0; i < a->n_alt_victims; i++)
                    kp_emit_str(e, kp_preemption_pod_ref(names, a->alt_victims[i], buf, sizeof buf));
                kp_emit_arr_end(e);
            } else if (a->pdb_spares && a->pdb_alt_node >= 0) {
                kp_emit_kv_str(e, "preemptorNodeInstead", kp_preemption_node_name(names, a->pdb_alt_node));
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
    kp_emit_obj_end(e);
    kp_emit_free(e);
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
    why_answer a;
    memset(&a, 0, sizeof a);
    a.preemptor = a.node = a.pdb_alt_node = -1;

    if (config && kp_sched_config_load(&cfg, config, NULL, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    if (!(run_cl = kp_cli_load(&common)) || !(what_cl = kp_cli_load(&common))) goto out;
    long pod = kp_cluster_find_pod(run_cl, target);
    if (pod < 0) {
        fprintf(stderr, "kprio: why: no pod %s in the input\n", target);
        goto out;
    }
    kp_sched_options so = kp_sched_options_default();
    so.seed = seed;
    so.compat = compat;
    if (kp_sched_new(run_cl, cfg, &so, &s, &err) != KP_OK || kp_sched_run(s, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    for (size_t i = 0; i < kp_sched_result_count(s) && !a.preempted; i++) {
        kp_sched_result r;
        if (kp_sched_result_get(s, i, &r) != KP_OK) continue;
        for (size_t j = 0; j < r.n_victims; j++) {
            if ((long)r.victims[j] != pod) continue;
            a.preempted = true;
            a.preemptor = r.pod;
            a.pre_prio = r.priority;
            a.node = r.nominated_node >= 0 ? r.nominated_node : r.node;
            a.pdb_violations = r.pdb_violations;
            for (size_t k = 0; k < r.n_victims && a.n_victims < 64; k++) a.victims[a.n_victims++] = r.victims[k];
            break;
        }
    }
    /* what-ifs on the untouched snapshot (indices are identical: same inputs, same load order) */
    kp_preempt_options po = kp_preempt_options_default();
    po.config = cfg;
    po.seed = seed;
    po.compat = compat;
    long probe = a.preempted ? a.preemptor : pod;
    if (kp_cluster_pod_count(what_cl) != kp_cluster_pod_count(run_cl)) goto out;
    /* the baseline decision on the snapshot (names, cascade step) */
    if (a.preempted && kp_preempt_evaluate(what_cl, probe, &po, &names, &err) != KP_OK) {
        kp_cli_print_error(&err);
        goto out;
    }
    if (a.preempted) {
        const char *d = kp_preemption_decided_by(names);
        if (kp_preemption_node(names) == a.node) snprintf(a.decided_by, sizeof a.decided_by, "%s", d);
        kp_preemption *alt = NULL;
        kp_preempt_options pp = po;
        pp.protect_pod = pod;
        if (kp_preempt_evaluate(what_cl, probe, &pp, &alt, &err) == KP_OK) {
            a.pdb_evaluated = true;
            bool still = false;
            for (size_t i = 0; i < kp_preemption_victim_count(alt); i++)
                if (kp_preemption_victim(alt, i) == pod) still = true;
            a.pdb_spares = !still;
            a.pdb_alt_node = kp_preemption_outcome(alt) == KP_PREEMPTION_NOMINATED ? kp_preemption_node(alt) : -1;
            for (size_t i = 0; i < kp_preemption_victim_count(alt) && a.n_alt_victims < 64; i++)
                a.alt_victims[a.n_alt_victims++] = kp_preemption_victim(alt, i);
            kp_preemption_free(alt);
        }
    }
    if (!names) {
        if (common.out == KP_OUT_TABLE) printf("%s would not be preempted by any pending pod.\n", target);
        else print_doc(&a, NULL, target, common.out);
        rc = KP_EXIT_OK;
        goto out;
    }
    a.pod_prio = kp_preemption_pod_priority(names, pod);
    if (common.out == KP_OUT_TABLE) print_table(&a, names, target);
    else print_doc(&a, names, target, common.out);
    rc = KP_EXIT_OK;
out:
    kp_preemption_free(names);
    kp_sched_free(s);
    kp_sched_config_free(cfg);
    kp_cluster_free(run_cl);
    kp_cluster_free(what_cl);
    return rc;
}
