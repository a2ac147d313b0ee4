/* kprio evict: replays the kubelet eviction manager (pkg/kubelet/eviction) of one node over a
 * series of Summary API documents, one synchronize step each, and reports every step's
 * observations, thresholds met, node conditions, ranking and evictions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "cli/cli.h"
#include "kprio/eviction.h"
#include "render/render_kubelet.h"

static const char *const USAGE =
    "kprio evict -f FILE... [--node NODE] --summary FILE|DIR... [--config FILE] [eviction flags]\n"
    "            [--imagefs auto|shared|dedicated|split] [--reclaimable SIGNAL=QUANTITY]...\n"
    "            [--feature-gates KEY=BOOL,...] [--compat VERSION] [-o table|json|yaml] [-R]\n"
    "            [--explain] [--why NAMESPACE/NAME]\n"
    "\n"
    "Replays the kubelet's node-pressure eviction manager for NODE: each summary (a\n"
    "/stats/summary document) is one synchronize step, in the order of the summaries' times.\n"
    "Pods come from the snapshot (-f); an evicted pod is gone in later steps.\n"
    "\n"
    "  -f, --filename FILE        snapshot file or directory (repeatable); '-' reads stdin\n"
    "  -R, --recursive            descend into directories given with -f\n"
    "      --max-input-bytes N    largest input read (Ki/Mi/Gi/Ti suffixes; default 16Gi)\n"
    "      --node NODE            the node whose kubelet evicts (default: the summaries'\n"
    "                             node.nodeName; a summary of another node is an error)\n"
    "      --summary FILE|DIR...  Summary API JSON, one step each; several files may follow\n"
    "                             one --summary; a directory gives its *.json/*.yaml files.\n"
    "                             Steps run in the order of the summaries' times (each\n"
    "                             one's newest node-level stat time; ties, or any summary\n"
    "                             without a time: the order given). Default with --node:\n"
    "                             kubelet/NODE-summary.json of a -f snapshot directory\n"
    "      --config FILE          KubeletConfiguration (YAML or JSON) with eviction settings,\n"
    "                             or the kubelet's /configz output ({\"kubeletconfig\": ...});\n"
    "                             default: kubelet/NODE-configz.json of a -f snapshot directory\n"
    "      --explain              also print the effective thresholds (and where each came\n"
    "                             from), how pod stats were joined to pods in each step and\n"
    "                             the feature gates that differ from the defaults\n"
    "      --feature-gates K=B,...  the kubelet's feature gates (docs/compat.md lists the\n"
    "                             ones kprio models; other real gates are accepted and\n"
    "                             change nothing), over --config's featureGates; e.g.\n"
    "                             PodLevelResources=false (repeatable)\n"
    "      --compat VERSION       replay an older kubelet line (e.g. 1.34): its feature-gate\n"
    "                             defaults and locks (for --config's featureGates too) and\n"
    "                             its eviction rules (docs/compat.md)\n"
    "      --eviction-hard 'memory.available<100Mi,nodefs.available<10%'\n"
    "      --eviction-soft 'memory.available<300Mi'\n"
    "      --eviction-soft-grace-period 'memory.available=1m30s'\n"
    "      --eviction-minimum-reclaim 'memory.available=0,nodefs.available=500Mi'\n"
    "      --eviction-pressure-transition-period DURATION   (default 5m)\n"
    "      --eviction-max-pod-grace-period SECONDS          (default 0)\n"
    "      --enforce-node-allocatable LIST                  (default pods)\n"
    "      --local-storage-capacity-isolation BOOL          (default true)\n"
    "                             kubelet flags; they override --config, as in the kubelet:\n"
    "                             a map flag replaces the whole map, defaults included\n"
    "      --imagefs LAYOUT       auto (default: from the first summary), shared, dedicated\n"
    "                             (image filesystem separate from nodefs) or split (container\n"
    "                             filesystem separate from the image filesystem too)\n"
    "      --reclaimable SIG=QTY  what image/container garbage collection would free on the\n"
    "                             filesystem of SIG (default: nothing)\n";

/* the end of --help (apart: one string literal has at most 4095 bytes in C11) */
static const char *const USAGE_TAIL =
    "      --why NAMESPACE/NAME   why that pod was evicted and not another: the ranking it\n"
    "                             was evicted from, the key that decided it against each\n"
    "                             other pod and what would have spared it (also `kprio why\n"
    "                             NAMESPACE/NAME --summary ...`)\n"
    "  -o, --output FORMAT        table (default), wide (with every step's ranking: the\n"
    "                             rank function's keys per pod), json or yaml\n"
    "\n"
    "Defaults as the kubelet on Linux: memory.available<100Mi, nodefs.available<10%,\n"
    "nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%.\n"
    "Exit status: 0 answered, 1 bad input or a runtime error (out of memory, write error), 2 "
    "usage\n"
    "error (unknown option, missing or bad option value, kubelet flags included).\n";

static const char *const KUBELET_FLAGS[] = {"eviction-hard",
                                            "eviction-soft",
                                            "eviction-soft-grace-period",
                                            "eviction-minimum-reclaim",
                                            "eviction-pressure-transition-period",
                                            "eviction-max-pod-grace-period",
                                            "enforce-node-allocatable",
                                            "local-storage-capacity-isolation"};
#define N_KUBELET_FLAGS (sizeof KUBELET_FLAGS / sizeof KUBELET_FLAGS[0])

typedef struct {
    const char *flag;
    const char *value;
} flag_arg;

static int fail_err(kp_error *err, const char *source) {
    if (!err->source[0] && source) snprintf(err->source, sizeof err->source, "%s", source);
    kp_cli_print_error(err);
    return KP_EXIT_ERROR;
}

/* A kubelet flag or --reclaimable value the library rejected: a usage error (exit 2, with the
 * --help hint), unless memory ran out (exit 1). */
static int usage_err(const kp_error *err) {
    if (err->code == KP_ENOMEM) return kp_cli_print_error(err);
    if (err->source[0]) return kp_cli_usage_hint("evict", "%s: %s", err->source, err->msg);
    return kp_cli_usage_hint("evict", "%s", err->msg);
}

static int parse_layout(const char *v, kp_evict_fs_layout *out) {
    if (strcmp(v, "auto") == 0) *out = KP_EVFS_AUTO;
    else if (strcmp(v, "shared") == 0) *out = KP_EVFS_SHARED;
    else if (strcmp(v, "dedicated") == 0) *out = KP_EVFS_DEDICATED;
    else if (strcmp(v, "split") == 0) *out = KP_EVFS_SPLIT;
    else return -1;
    return 0;
}

/* Stable insertion sort of the steps by summary time (kp_evict_summary_time), when every summary
 * has one; otherwise the order given stays. */
static void sort_by_time(kp_evict_summary **sums, char **paths, size_t n) {
    int64_t t;
    for (size_t i = 0; i < n; i++)
        if (!kp_evict_summary_time(sums[i], &t)) return;
    for (size_t i = 1; i < n; i++) {
        kp_evict_summary *s = sums[i];
        char *p = paths[i];
        int64_t ti = 0, tj = 0;
        kp_evict_summary_time(s, &ti);
        size_t j = i;
        while (j > 0 && kp_evict_summary_time(sums[j - 1], &tj) && tj > ti) {
            sums[j] = sums[j - 1];
            paths[j] = paths[j - 1];
            j--;
        }
        sums[j] = s;
        paths[j] = p;
    }
}

typedef struct {
    char **paths; /* every summary file, after directories are expanded */
    kp_evict_summary **sums;
    size_t n, cap;
} step_list;

static void steps_free(step_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        kp_evict_summary_free(l->sums[i]);
        kp_free(l->paths[i]);
    }
    kp_free(l->paths);
    kp_free(l->sums);
}

/* Expands and loads every --summary argument into l; 0 or an exit status. */
static int load_steps(const char **args, int n_args, step_list *l) {
    kp_error err;
    kp_error_clear(&err);
    for (int a = 0; a < n_args; a++) {
        char **paths = NULL;
        size_t n = 0;
        if (kp_cli_summary_paths(args[a], &paths, &n, &err) != KP_OK)
            return fail_err(&err, args[a]);
        int rc = 0;
        for (size_t i = 0; i < n; i++) {
            if (!rc && l->n == l->cap) {
                /* paths first, then sums at the capacity paths got */
                size_t cap = l->cap;
                void *np = l->paths;
                bool ok = kp__grow(&np, &cap, l->n + 1, sizeof *l->paths, 8);
                if (ok) l->paths = np;
                kp_evict_summary **ns = ok ? kp__realloc(l->sums, cap * sizeof *ns) : NULL;
                if (ns) l->sums = ns;
                if (!ns) rc = kp_cli_print_status(KP_ENOMEM);
                else l->cap = cap;
            }
            if (!rc) {
                kp_evict_summary *s = NULL;
                if (kp_evict_summary_load_path(paths[i], &s, &err) != KP_OK) {
                    rc = fail_err(&err, paths[i]);
                } else {
                    l->sums[l->n] = s;
                    l->paths[l->n] = kp_strdup(paths[i]);
                    if (!l->paths[l->n]) {
                        kp_evict_summary_free(s);
                        rc = kp_cli_print_status(KP_ENOMEM);
                    } else {
                        l->n++;
                    }
                }
            }
        }
        kp__paths_free(paths, n);
        if (rc) return rc;
    }
    sort_by_time(l->sums, l->paths, l->n);
    return 0;
}

/* The node: --node, else the summaries' node.nodeName; every summary naming a node must name
 * it. NULL after printing the error, with the exit status in *rc. */
static const char *pick_node(const char *node_name, const step_list *l, int *rc) {
    for (size_t i = 0; i < l->n && !node_name; i++)
        if (kp_evict_summary_node_name(l->sums[i])[0])
            node_name = kp_evict_summary_node_name(l->sums[i]);
    if (!node_name) {
        *rc =
            kp_cli_usage_hint("evict", "--node is required: the summaries do not name their node");
        return NULL;
    }
    for (size_t i = 0; i < l->n; i++) {
        const char *nn = kp_evict_summary_node_name(l->sums[i]);
        if (nn[0] && strcmp(nn, node_name) != 0) {
            kp_cli_eprintf("kprio: %s: Summary: node.nodeName: \"%s\" is not the node replayed "
                           "(\"%s\"): a summary of another node",
                           l->paths[i], nn, node_name);
            *rc = KP_EXIT_ERROR;
            return NULL;
        }
    }
    return node_name;
}

/* --why: the step that evicted the pod explains it; a pod no step evicted by ranking says so.
 * 1 when the answer was written (stop stepping), 0 to go on, <0 out of memory. */
static int why_step(const kp_cluster *cl, kp_outfmt fmt, kp_index pod, const char *node,
                    const kp_evict_result *res) {
    for (size_t i = 0; i < res->n_evicted; i++) {
        const kp_evict_eviction *v = &res->evicted[i];
        if (v->pod != pod) continue;
        if (v->local_storage) {
            kp__buf why = {0};
            kp__buf_printf(&why, "evicted for its local storage (%s), not by a ranking: %s",
                           v->signal, v->message);
            kp_status st = why.failed ? KP_ENOMEM
                                      : kp_render_evict_not_evicted(stdout, fmt, cl, pod, node,
                                                                    kp__buf_str(&why));
            kp__buf_free(&why);
            return st == KP_OK ? 1 : -1;
        }
        size_t pos = 0;
        while (pos < res->n_ranking && res->rank_entries[pos].pod != pod) pos++;
        char when[64];
        time_t secs = (time_t)(res->time_ns / 1000000000);
        struct tm tm;
        if (gmtime_r(&secs, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        else snprintf(when, sizeof when, "?");
        kp_evict_why_input in = {
            node,           when, v->signal, v->message, res->rank_kind, res->rank_entries,
            res->n_ranking, pos};
        kp_error err;
        kp_error_clear(&err);
        if (kp_render_evict_why(stdout, fmt, cl, &in, &err) != KP_OK) {
            kp_cli_print_error(&err);
            return -1;
        }
        return 1;
    }
    return 0;
}

static int run(kp_cli_common *c, const char *node_arg, const char **summaries, int n_sum,
               const char *config_file, const flag_arg *flags, int n_flags, const char **reclaim,
               int n_reclaim, kp_evict_fs_layout layout, bool explain, const char *compat,
               const char *why) {
    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_ERROR;
    kp_cluster *cl = NULL;
    kp_evict_manager *m = NULL;
    step_list steps;
    memset(&steps, 0, sizeof steps);
    kp_evict_config *cfg = kp_evict_config_new();
    kp_evict_report *report = NULL;
    const char *node_name;
    if (!cfg) {
        kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    if (kp_evict_config_set_compat(cfg, compat, &err) != KP_OK) { /* checked already */
        rc = usage_err(&err);
        goto out;
    }
    if (config_file) {
        if (kp_evict_config_load_path(cfg, config_file, &err) != KP_OK) {
            fail_err(&err, config_file);
            goto out;
        }
        for (size_t i = 0; i < kp_evict_config_warning_count(cfg); i++)
            kp_cli_eprintf("kprio: warning: %s", kp_evict_config_warning(cfg, i));
    }
    for (int i = 0; i < n_flags; i++)
        if (kp_evict_config_set_flag(cfg, flags[i].flag, flags[i].value, &err) != KP_OK) {
            rc = usage_err(&err);
            goto out;
        }
    for (int i = 0; i < n_reclaim; i++) {
        if (kp_evict_config_set_reclaimable(cfg, reclaim[i], &err) != KP_OK) {
            kp_error_prefix(&err, "--reclaimable");
            rc = usage_err(&err);
            goto out;
        }
    }
    kp_evict_config_set_fs_layout(cfg, layout);
    { /* the file's featureGates, then the gates --feature-gates names (the kubelet re-applies
       * its command line over the file, kubeletConfigFlagPrecedence) */
        kp_feature_gates eff = *kp_evict_config_feature_gates(cfg);
        for (int g = 0; g < KP_GATE_COUNT; g++)
            if (c->gates.set[g]) eff.on[g] = c->gates.on[g], eff.set[g] = true;
        c->gates = eff;
    }
    if (kp_evict_config_finish(cfg, &err) != KP_OK) {
        /* a value of a command-line flag (the library names it as the source) is a usage error */
        if (strncmp(err.source[0] ? err.source : err.msg, "--", 2) == 0) rc = usage_err(&err);
        else fail_err(&err, NULL);
        goto out;
    }
    if ((rc = load_steps(summaries, n_sum, &steps)) != 0) goto out;
    if (!(node_name = pick_node(node_arg, &steps, &rc))) goto out;
    rc = KP_EXIT_ERROR;
    cl = kp_cli_load(c);
    if (!cl) goto out;
    kp_index node = kp_cluster_find_node(cl, node_name);
    if (node < 0) {
        kp_cli_eprintf("kprio: evict: node \"%s\" not found in the input", node_name);
        goto out;
    }
    if (kp_evict_manager_new(cl, node, cfg, &m, &err) != KP_OK) {
        fail_err(&err, NULL);
        goto out;
    }
    kp_evict_result res;
    if (why) {
        kp_index pod = kp_cli_find_pod_or_hint(cl, why, "evict");
        if (pod < 0) goto out;
        int w = 0;
        for (size_t i = 0; i < steps.n && w == 0; i++) {
            if (kp_evict_manager_step(m, steps.sums[i], &res, &err) != KP_OK) {
                fail_err(&err, steps.paths[i]);
                goto out;
            }
            w = why_step(cl, c->out, pod, node_name, &res);
        }
        if (w == 0) {
            char note[96];
            snprintf(note, sizeof note, "not evicted in the %zu steps replayed", steps.n);
            if (kp_render_evict_not_evicted(stdout, c->out, cl, pod, node_name, note) != KP_OK)
                w = -1;
        }
        if (w < 0) {
            kp_cli_print_status(KP_ENOMEM);
            goto out;
        }
        rc = KP_EXIT_OK;
        goto out;
    }
    if (!(report = kp_evict_report_new(stdout, c->out, cl, node_name))) {
        kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    kp_evict_report_set_explain(report, explain);
    kp_evict_report_set_wide(report, c->wide);
    for (size_t i = 0; i < steps.n; i++) {
        if (kp_evict_manager_step(m, steps.sums[i], &res, &err) != KP_OK) {
            fail_err(&err, steps.paths[i]);
            goto out;
        }
        kp_evict_report_step(report, m, steps.paths[i], &res);
    }
    if (kp_evict_report_finish(report) != KP_OK) { /* nothing was written */
        kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    rc = KP_EXIT_OK;
out:
    kp_evict_report_free(report);
    kp_evict_manager_free(m);
    kp_cluster_free(cl);
    steps_free(&steps);
    kp_evict_config_free(cfg);
    return rc;
}

/* The command proper; the caller owns the common options (-f list) and frees them. */
static int run_evict(kp_cli_common *c, int argc, char **argv, bool why_positional) {
    c->out = KP_OUT_TABLE;
    const char *node_name = NULL, *config_file = NULL, *why = NULL;
    kp_evict_fs_layout layout = KP_EVFS_AUTO;
    bool explain = false;
    int n_sum = 0, n_flags = 0, n_reclaim = 0;
    const char **summaries = kp_calloc((size_t)argc + 1, sizeof *summaries);
    const char **reclaim = kp_calloc((size_t)argc + 1, sizeof *reclaim);
    flag_arg *flags = kp_calloc((size_t)argc + 1, sizeof *flags);
    char *snap_sum = NULL, *snap_cfg = NULL;
    int rc = KP_EXIT_USAGE;
    const char *compat = NULL; /* the line's gate defaults and kubelet rules (c->gates.line) */
    if (!summaries || !reclaim || !flags) {
        rc = kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    if ((rc = kp_cli_compat_arg(c, argc, argv, "evict", &compat)) != 0) goto out;
    rc = KP_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs("usage: ", stdout);
            fputs(USAGE, stdout);
            fputs(USAGE_TAIL, stdout);
            rc = KP_EXIT_OK;
            goto out;
        }
        int r = kp_cli_common_arg(c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(c, argc, argv, &i, "evict");
        if (r < 0) goto out;
        if (r > 0) continue;
        const char *v;
        bool known = false;
        for (size_t k = 0; k < N_KUBELET_FLAGS && !known; k++) {
            if (strncmp(arg, "--", 2) != 0 || !kp_cli_is_opt(arg + 2, KUBELET_FLAGS[k])) continue;
            known = true;
            if (!(v = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
            flags[n_flags].flag = KUBELET_FLAGS[k];
            flags[n_flags++].value = v;
        }
        if (known) continue;
        if (kp_cli_is_opt(arg, "--compat")) { /* read by kp_cli_compat_arg */
            if (!kp_cli_optval(argc, argv, &i, "evict")) goto out;
        } else if (kp_cli_is_opt(arg, "--node")) {
            if (!(node_name = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--summary")) {
            if (!(summaries[n_sum++] = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
            /* more files may follow one --summary (--summary s1.json s2.json, or a glob) */
            while (!strchr(arg, '=') && i + 1 < argc && argv[i + 1][0] != '-')
                summaries[n_sum++] = argv[++i];
        } else if (strcmp(arg, "--explain") == 0) {
            explain = true;
        } else if (kp_cli_is_opt(arg, "--why")) {
            if (!(why = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (why_positional && !why && arg[0] != '-') {
            why = arg; /* kprio why NAMESPACE/NAME --summary ... */
        } else if (kp_cli_is_opt(arg, "--config")) {
            if (!(config_file = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--reclaimable")) {
            if (!(reclaim[n_reclaim++] = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--imagefs")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
            if (parse_layout(v, &layout) != 0) {
                rc = kp_cli_usage_error(
                    "evict", USAGE,
                    "--imagefs must be auto, shared, dedicated or split, not \"%s\"", v);
                goto out;
            }
        } else {
            rc = kp_cli_usage_error("evict", USAGE, "unknown argument \"%s\"", arg);
            goto out;
        }
    }
    if (c->n_files == 0) {
        rc = kp_cli_usage_error("evict", USAGE, "no input: give -f FILE");
        goto out;
    }
    /* a snapshot directory's kubelet/NODE-summary.json and NODE-configz.json (docs/live.md) */
    if (node_name && (n_sum == 0 || !config_file) &&
        (rc = kp_cli_snapshot_kubelet(c, node_name, &snap_sum, &snap_cfg)) != 0)
        goto out;
    rc = KP_EXIT_USAGE;
    if (n_sum == 0 && snap_sum) summaries[n_sum++] = snap_sum;
    if (!config_file) config_file = snap_cfg;
    if (n_sum == 0) {
        rc = kp_cli_usage_error("evict", USAGE, "--summary is required");
        goto out;
    }
    rc = run(c, node_name, summaries, n_sum, config_file, flags, n_flags, reclaim, n_reclaim,
             layout, explain, compat, why);
out:
    kp_free(snap_sum);
    kp_free(snap_cfg);
    kp_free(summaries);
    kp_free(reclaim);
    kp_free(flags);
    return rc;
}

int kp_cmd_evict_why(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_evict(&c, argc, argv, true);
    kp_cli_common_free(&c);
    return rc;
}

int kp_cmd_evict(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_evict(&c, argc, argv, false);
    kp_cli_common_free(&c);
    return rc;
}
