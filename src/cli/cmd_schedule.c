/* kprio schedule: run kube-scheduler's scheduling cycle (and DefaultPreemption) over a snapshot
 * and print the SchedulePlan (docs/schedule.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/sched.h"
#include "kprio/emit.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/schedule_one.h"
#include "sched/score.h"

static const char *USAGE =
    "kprio schedule -f FILE|DIR|- [-f ...] [-R] [--config FILE] [--scheduler-name NAME] [--seed N]\n"
    "               [--until-settled] [--compat VERSION] [--explain NAMESPACE/NAME] [-o table|json|yaml]";

static const char *HELP =
    "Schedules every pending pod of the snapshot in kube-scheduler's queue order (priority, then\n"
    "creation time); each binding is visible to later pods. A pod that fits nowhere runs\n"
    "DefaultPreemption: it is Nominated (victims become terminating) or stays Unschedulable.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE     input (repeatable; a directory with -R); a what-if is one more -f\n"
    "  --config FILE           KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)\n"
    "  --scheduler-name NAME   profile / spec.schedulerName to serve (default-scheduler)\n"
    "  --seed N                PRNG seed for random choices (host ties, candidate offset); default 0\n"
    "  --until-settled         victims terminate at once; retry pods until nothing changes\n"
    "  --compat VERSION        decide as an older release line (e.g. 1.35), see docs/preemption.md\n"
    "  --explain NS/NAME       per-node filter verdicts, scores and preemption reasoning for a pod\n"
    "  -o table|json|yaml      output format (default table)\n";

static const char *outcome_str(kp_sched_outcome o) {
    switch (o) {
    case KP_OUTCOME_BOUND: return "Bound";
    case KP_OUTCOME_NOMINATED: return "Nominated";
    case KP_OUTCOME_UNSCHEDULABLE: return "Unschedulable";
    }
    return "?";
}

static const char *code_str(kp_code c) {
    switch (c) {
    case KP_CODE_SUCCESS: return "Success";
    case KP_CODE_UNSCHEDULABLE: return "Unschedulable";
    case KP_CODE_UNRESOLVABLE: return "UnschedulableAndUnresolvable";
    case KP_CODE_ERROR: return "Error";
    }
    return "?";
}

static void status_text(const kp_node_status *st, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = 0;
    for (uint8_t r = 0; r < st->n_reasons && off < cap; r++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", r ? ", " : "", st->reasons[r]);
}

/* ---------------------------------------------------------------- plan */

static void emit_plan(const kp_sched *s, kp_emit *e) {
    char ref[512];
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "SchedulePlan");
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        kp_sched_result r;
        kp_sched_result_get(s, i, &r);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "pod", kp_sched_pod_ref(s, r.pod, ref, sizeof ref));
        kp_emit_kv_int(e, "priority", r.priority);
        kp_emit_kv_str(e, "outcome", outcome_str(r.outcome));
        if (r.outcome == KP_OUTCOME_BOUND) kp_emit_kv_str(e, "node", kp_sched_node_name(s, r.node));
        if (r.outcome == KP_OUTCOME_NOMINATED) kp_emit_kv_str(e, "nominatedNode", kp_sched_node_name(s, r.nominated_node));
        kp_emit_key(e, "victims");
        kp_emit_arr_begin(e);
        for (size_t v = 0; v < r.n_victims; v++) {
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "pod", kp_sched_pod_ref(s, r.victims[v], ref, sizeof ref));
            kp_emit_kv_str(e, "node", kp_sched_node_name(s, r.victim_nodes[v]));
            kp_emit_kv_int(e, "priority", s->cl->pods[r.victims[v]].priority);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_kv_int(e, "pdbViolations", r.pdb_violations);
        kp_emit_kv_str(e, "message", r.message);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static void print_table(const kp_sched *s) {
    kp_table *t = kp_table_new(5);
    if (!t) return;
    kp_table_add(t, "POD");
    kp_table_add(t, "PRIORITY");
    kp_table_add(t, "OUTCOME");
    kp_table_add(t, "NODE");
    kp_table_add(t, "MESSAGE");
    char ref[512];
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        kp_sched_result r;
        kp_sched_result_get(s, i, &r);
        kp_table_add(t, kp_sched_pod_ref(s, r.pod, ref, sizeof ref));
        kp_table_addf(t, "%" PRId32, r.priority);
        kp_table_add(t, outcome_str(r.outcome));
        long node = r.outcome == KP_OUTCOME_BOUND ? r.node : r.outcome == KP_OUTCOME_NOMINATED ? r.nominated_node : -1;
        kp_table_add(t, node >= 0 ? kp_sched_node_name(s, node) : "<none>");
        if (r.n_victims) {
            char msg[4096];
            size_t off = (size_t)snprintf(msg, sizeof msg, "preempts ");
            for (size_t v = 0; v < r.n_victims && off < sizeof msg; v++)
                off += (size_t)snprintf(msg + off, sizeof msg - off, "%s%s", v ? ", " : "",
                                        kp_sched_pod_ref(s, r.victims[v], ref, sizeof ref));
            if (off < sizeof msg && r.pdb_violations)
                off += (size_t)snprintf(msg + off, sizeof msg - off, " (%" PRId32 " PDB violation%s)", r.pdb_violations,
                                        r.pdb_violations == 1 ? "" : "s");
            if (off < sizeof msg && r.message[0]) snprintf(msg + off, sizeof msg - off, "; %s", r.message);
            kp_table_add(t, msg);
        } else {
            kp_table_add(t, r.message);
        }
    }
    kp_table_print(t, stdout);
    kp_table_free(t);
}

/* ---------------------------------------------------------------- explain */

static void emit_explain(const kp_sched *s, kp_emit *e) {
    const kp_explain *x = s->explain;
    const kp_cluster *cl = s->cl;
    char ref[512], txt[1024];
    kp_emit_key(e, "explain");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "pod", kp_sched_pod_ref(s, x->pod, ref, sizeof ref));
    kp_emit_kv_bool(e, "attempted", x->attempted);
    if (x->prefilter_msg[0]) kp_emit_kv_str(e, "preFilter", x->prefilter_msg);
    if (x->nominated_first) kp_emit_kv_bool(e, "nominatedNodeFirst", true);
    if (x->selected >= 0) kp_emit_kv_str(e, "selectedNode", kp_sched_node_name(s, x->selected));
    kp_emit_key(e, "nodes");
    kp_emit_arr_begin(e);
    for (uint32_t i = 0; x->attempted && i < x->n_nodes; i++) {
        const kp_explain_node *n = &x->nodes[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "node", kp__s(cl, cl->nodes[i].name));
        kp_emit_kv_bool(e, "evaluated", n->evaluated);
        if (n->evaluated) {
            kp_emit_kv_str(e, "status", code_str(n->overall.code));
            if (n->overall.plugin) kp_emit_kv_str(e, "plugin", n->overall.plugin);
            status_text(&n->overall, txt, sizeof txt);
            if (txt[0]) kp_emit_kv_str(e, "reason", txt);
            kp_emit_key(e, "filters");
            kp_emit_arr_begin(e);
            for (uint8_t f = 0; f < n->n_filters; f++) {
                kp_emit_obj_begin(e);
                kp_emit_kv_str(e, "plugin", kp__plugin_name((kp_plugin)n->filters[f].plugin));
                kp_emit_kv_str(e, "verdict", code_str(n->filters[f].code));
                if (n->filters[f].reason[0]) kp_emit_kv_str(e, "reason", n->filters[f].reason);
                kp_emit_obj_end(e);
            }
            kp_emit_arr_end(e);
        }
        if (n->scored) {
            kp_emit_key(e, "scores");
            kp_emit_obj_begin(e);
            for (uint8_t k = 0; k < s->cfg.n_score; k++)
                kp_emit_kv_int(e, kp__plugin_name((kp_plugin)s->cfg.score[k]), n->plugin_score[s->cfg.score[k]]);
            kp_emit_obj_end(e);
            kp_emit_kv_int(e, "totalScore", n->total);
        }
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    if (x->has_preempt) {
        const kp_preempt_result *pr = &x->preempt;
        kp_emit_key(e, "preemption");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "outcome", pr->outcome == KP_PREEMPT_NOMINATED ? "Nominated"
                                     : pr->outcome == KP_PREEMPT_NOT_ELIGIBLE ? "NotEligible" : "NoCandidates");
        if (pr->node >= 0) kp_emit_kv_str(e, "nominatedNode", kp_sched_node_name(s, pr->node));
        if (pr->decided_by && pr->decided_by[0]) kp_emit_kv_str(e, "decidedBy", pr->decided_by);
        kp_emit_kv_str(e, "message", pr->message);
        kp_emit_key(e, "nodes");
        kp_emit_arr_begin(e);
        for (uint32_t i = 0; i < pr->n_nodes; i++) {
            const kp_preempt_node *pn = &pr->nodes[i];
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "node", kp_sched_node_name(s, pn->node));
            kp_emit_kv_str(e, "filterStatus", code_str(pn->filter_code));
            kp_emit_kv_bool(e, "considered", pn->considered);
            kp_emit_kv_bool(e, "candidate", pn->candidate);
            status_text(&pn->dry_status, txt, sizeof txt);
            if (!pn->candidate && txt[0]) kp_emit_kv_str(e, "reason", txt);
            if (pn->candidate) {
                kp_emit_key(e, "victims");
                kp_emit_arr_begin(e);
                for (uint32_t v = 0; v < pn->n_victims; v++) kp_emit_str(e, kp_sched_pod_ref(s, pn->victims[v], ref, sizeof ref));
                kp_emit_arr_end(e);
                kp_emit_kv_int(e, "pdbViolations", pn->pdb_violations);
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_obj_end(e);
}

static void print_explain(const kp_sched *s) {
    const kp_explain *x = s->explain;
    const kp_cluster *cl = s->cl;
    char ref[512], txt[1024];
    printf("\nExplain %s (priority %" PRId32 "):\n", kp_sched_pod_ref(s, x->pod, ref, sizeof ref), cl->pods[x->pod].priority);
    if (!x->attempted) {
        printf("  not scheduled in this run (not pending for this scheduler, or already bound)\n");
        return;
    }
    if (x->prefilter_msg[0]) printf("  PreFilter rejected the pod: %s\n", x->prefilter_msg);
    if (x->nominated_first) printf("  the nominated node passed every filter: chosen without a full pass\n");
    for (uint32_t i = 0; i < x->n_nodes; i++) {
        const kp_explain_node *n = &x->nodes[i];
        const char *name = kp__s(cl, cl->nodes[i].name);
        if (!n->evaluated) {
            printf("  %s: not evaluated (enough feasible nodes found first, or outside the PreFilter result)\n", name);
            continue;
        }
        if (n->overall.code == KP_CODE_SUCCESS) {
            printf("  %s: feasible", name);
            if (n->scored) {
                printf(", score %" PRId64 " (", n->total);
                for (uint8_t k = 0; k < s->cfg.n_score; k++)
                    printf("%s%s %" PRId64, k ? ", " : "", kp__plugin_name((kp_plugin)s->cfg.score[k]), n->plugin_score[s->cfg.score[k]]);
                printf(")");
            }
            printf("%s\n", x->selected == (int32_t)i ? "  <- selected" : "");
        } else {
            status_text(&n->overall, txt, sizeof txt);
            printf("  %s: %s by %s: %s\n", name, code_str(n->overall.code), n->overall.plugin ? n->overall.plugin : "?", txt);
        }
        for (uint8_t f = 0; f < n->n_filters; f++) {
            const kp_explain_filter *ef = &n->filters[f];
            printf("      %-32s %s%s%s\n", kp__plugin_name((kp_plugin)ef->plugin),
                   ef->code == KP_CODE_SUCCESS ? "ok" : code_str(ef->code), ef->reason[0] ? ": " : "", ef->reason);
        }
    }
    if (x->has_preempt) {
        const kp_preempt_result *pr = &x->preempt;
        printf("  Preemption: %s", pr->outcome == KP_PREEMPT_NOMINATED ? "nominated" : pr->outcome == KP_PREEMPT_NOT_ELIGIBLE ? "pod not eligible" : "no candidate node");
        if (pr->node >= 0) printf(" %s", kp_sched_node_name(s, pr->node));
        if (pr->decided_by && pr->decided_by[0]) printf(" (decided by: %s)", pr->decided_by);
        printf("\n");
        if (pr->message[0]) printf("    %s\n", pr->message);
        for (uint32_t i = 0; i < pr->n_nodes; i++) {
            const kp_preempt_node *pn = &pr->nodes[i];
            printf("    %s: ", kp_sched_node_name(s, pn->node));
            if (pn->candidate) {
                printf("candidate, victims:");
                for (uint32_t v = 0; v < pn->n_victims; v++) printf(" %s", kp_sched_pod_ref(s, pn->victims[v], ref, sizeof ref));
                printf(", PDB violations %" PRId32 "\n", pn->pdb_violations);
            } else {
                status_text(&pn->dry_status, txt, sizeof txt);
                if (pn->filter_code == KP_CODE_UNRESOLVABLE) printf("not a candidate: filter status UnschedulableAndUnresolvable (preemption cannot help)\n");
                else if (!pn->considered) printf("not evaluated (candidate budget reached)\n");
                else printf("not a candidate: %s\n", txt[0] ? txt : "no victims help");
            }
        }
    }
}

/* ---------------------------------------------------------------- main */

int kp_cmd_schedule(int argc, char **argv) {
    kp_cli_common c;
    memset(&c, 0, sizeof c);
    const char *config = NULL, *sched_name = NULL, *explain = NULL, *compat = NULL;
    uint64_t seed = 0;
    bool settled = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = kp_cli_common_arg(&c, argc, argv, &i);
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
        } else if (kp_cli_is_opt(a, "--compat")) {
            if (!(compat = kp_cli_optval(argc, argv, &i, "schedule"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(a, "--seed")) {
            const char *v = kp_cli_optval(argc, argv, &i, "schedule");
            if (!v) return KP_EXIT_USAGE;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-')
                return kp_cli_usage_error("schedule", USAGE, "--seed: \"%s\" is not a non-negative integer", v);
            seed = (uint64_t)x;
        } else if (strcmp(a, "--until-settled") == 0) {
            settled = true;
        } else {
            return kp_cli_usage_error("schedule", USAGE, "unknown option \"%s\"", a);
        }
    }
    if (c.n_files == 0) return kp_cli_usage_error("schedule", USAGE, "no input: give at least one -f FILE");

    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    if (config && kp_sched_config_load(&cfg, config, sched_name, &err) != KP_OK) {
        kp_cli_print_error(&err);
        return KP_EXIT_ERROR;
    }
    kp_cluster *cl = kp_cli_load(&c);
    if (!cl) {
        kp_sched_config_free(cfg);
        return KP_EXIT_ERROR;
    }
    int rc = KP_EXIT_OK;
    kp_sched *s = NULL;
    kp_sched_options opt = kp_sched_options_default();
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
        long pod = kp_cluster_find_pod(cl, explain);
        if (pod < 0) {
            fprintf(stderr, "kprio: --explain: %s: no such pod in the input\n", explain);
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
    if (c.out == KP_OUT_JSON || c.out == KP_OUT_YAML) {
        kp_emit *e = kp_emit_new(stdout, c.out);
        if (!e) {
            rc = KP_EXIT_ERROR;
            goto out;
        }
        kp_emit_obj_begin(e);
        emit_plan(s, e);
        if (s->explain) emit_explain(s, e);
        kp_emit_obj_end(e);
        kp_emit_free(e);
    } else {
        print_table(s);
        if (s->explain) print_explain(s);
    }
out:
    kp_sched_free(s);
    kp_cluster_free(cl);
    kp_sched_config_free(cfg);
    return rc;
}
