/* kprio evict: replays the kubelet eviction manager (pkg/kubelet/eviction) of one node over a
 * series of Summary API documents, one synchronize step each, and reports every step's
 * observations, thresholds met, node conditions, ranking and evictions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/model.h"
#include "io/tree.h"
#include "kprio/eviction.h"
#include "kprio/quantity.h"

static const char *const USAGE =
    "kprio evict -f FILE... --node NODE --summary FILE... [--config FILE] [eviction flags]\n"
    "            [--imagefs auto|shared|dedicated|split] [--reclaimable SIGNAL=QUANTITY]...\n"
    "            [-o table|json|yaml] [-R]\n"
    "\n"
    "Replays the kubelet's node-pressure eviction manager for NODE: each --summary file (a\n"
    "/stats/summary document, in time order) is one synchronize step. Pods come from the\n"
    "snapshot (-f); an evicted pod is gone in later steps.\n"
    "\n"
    "  -f, --filename FILE        snapshot file or directory (repeatable); '-' reads stdin\n"
    "  -R, --recursive            descend into directories given with -f\n"
    "      --node NODE            the node whose kubelet evicts\n"
    "      --summary FILE         Summary API JSON, one step (repeatable, in time order)\n"
    "      --config FILE          KubeletConfiguration (YAML or JSON) with eviction settings\n"
    "      --eviction-hard 'memory.available<100Mi,nodefs.available<10%'\n"
    "      --eviction-soft 'memory.available<300Mi'\n"
    "      --eviction-soft-grace-period 'memory.available=1m30s'\n"
    "      --eviction-minimum-reclaim 'memory.available=0,nodefs.available=500Mi'\n"
    "      --eviction-pressure-transition-period DURATION   (default 5m)\n"
    "      --eviction-max-pod-grace-period SECONDS          (default 0)\n"
    "      --enforce-node-allocatable LIST                  (default pods)\n"
    "      --local-storage-capacity-isolation BOOL          (default true)\n"
    "                             kubelet flags; they override --config, as in the kubelet\n"
    "      --imagefs LAYOUT       auto (default: from the first summary), shared, dedicated\n"
    "                             (image filesystem separate from nodefs) or split (container\n"
    "                             filesystem separate from the image filesystem too)\n"
    "      --reclaimable SIG=QTY  what image/container garbage collection would free on the\n"
    "                             filesystem of SIG (default: nothing)\n"
    "  -o, --output FORMAT        table (default), json or yaml\n"
    "\n"
    "Defaults as the kubelet on Linux: memory.available<100Mi, nodefs.available<10%,\n"
    "nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%.\n"
    "Exit status: 0 answered, 1 bad input, 2 usage error.\n";

static const char *const KUBELET_FLAGS[] = {
    "eviction-hard", "eviction-soft", "eviction-soft-grace-period", "eviction-minimum-reclaim",
    "eviction-pressure-transition-period", "eviction-max-pod-grace-period", "enforce-node-allocatable",
    "local-storage-capacity-isolation"};
#define N_KUBELET_FLAGS (sizeof KUBELET_FLAGS / sizeof KUBELET_FLAGS[0])

static const char *const COND_NAMES[] = {"MemoryPressure", "DiskPressure", "PIDPressure"};

typedef struct {
    const char *flag;
    const char *value;
} flag_arg;

static void fmt_time(int64_t ns, char *buf, size_t cap) {
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) { snprintf(buf, cap, "?"); return; }
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool decimal_signal(kp_evict_signal s) {
    return s == KP_EVSIG_NODEFS_INODES_FREE || s == KP_EVSIG_IMAGEFS_INODES_FREE ||
           s == KP_EVSIG_CONTAINERFS_INODES_FREE || s == KP_EVSIG_PID_AVAILABLE;
}

static void fmt_obs(kp_evict_signal s, int64_t v, char *buf, size_t cap) {
    kp_quantity_format_int(v, decimal_signal(s) ? KP_QFMT_DECIMAL_SI : KP_QFMT_BINARY_SI, buf, cap);
}

static const char *layout_name(kp_evict_fs_layout l) {
    switch (l) {
    case KP_EVFS_AUTO: return "auto";
    case KP_EVFS_SHARED: return "shared";
    case KP_EVFS_DEDICATED: return "dedicated";
    case KP_EVFS_SPLIT: return "split";
    }
    return "shared";
}

static void emit_threshold_list(kp_emit *e, const kp_evict_manager *m) {
    char g[32];
    kp_emit_key(e, "thresholds");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_evict_manager_threshold_count(m); i++) {
        kp_evict_threshold_info t;
        if (kp_evict_manager_threshold(m, i, &t) != KP_OK || !t.value[0]) continue;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "signal", kp_evict_signal_name(t.signal));
        kp_emit_kv_str(e, "operator", "LessThan");
        kp_emit_kv_str(e, "value", t.value);
        kp_evict_format_duration(t.grace_ns, g, sizeof g);
        kp_emit_kv_str(e, "gracePeriod", g);
        kp_emit_kv_bool(e, "hard", t.hard);
        if (t.min_reclaim[0]) kp_emit_kv_str(e, "minReclaim", t.min_reclaim);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static void emit_step(kp_emit *e, const kp_cluster *cl, const char *file, const kp_evict_result *r) {
    char buf[64], buf2[64], ref[512];
    kp_emit_obj_begin(e);
    fmt_time(r->time_ns, buf, sizeof buf);
    kp_emit_kv_str(e, "time", buf);
    kp_emit_kv_str(e, "summary", file);
    kp_emit_key(e, "signals");
    kp_emit_obj_begin(e);
    for (int s = 0; s < KP_EVSIG_COUNT; s++) {
        if (!r->obs[s].present) continue;
        kp_emit_key(e, kp_evict_signal_name((kp_evict_signal)s));
        kp_emit_obj_begin(e);
        fmt_obs((kp_evict_signal)s, r->obs[s].available, buf, sizeof buf);
        kp_emit_kv_str(e, "available", buf);
        fmt_obs((kp_evict_signal)s, r->obs[s].capacity, buf, sizeof buf);
        kp_emit_kv_str(e, "capacity", buf);
        kp_emit_obj_end(e);
    }
    kp_emit_obj_end(e);
    kp_emit_key(e, "thresholdsMet");
    kp_emit_arr_begin(e);
    for (uint32_t i = 0; i < r->n_met; i++) {
        const kp_evict_met *t = &r->met[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "signal", kp_evict_signal_name(t->signal));
        kp_emit_kv_str(e, "operator", "LessThan");
        kp_emit_kv_str(e, "value", t->value);
        kp_emit_kv_str(e, "quantity", t->quantity_str);
        kp_evict_format_duration(t->grace_ns, buf2, sizeof buf2);
        kp_emit_kv_str(e, "gracePeriod", buf2);
        kp_emit_kv_bool(e, "hard", t->hard);
        kp_emit_kv_bool(e, "gracePeriodMet", t->grace_met);
        kp_emit_kv_bool(e, "statsUpdated", t->acted);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "nodeConditions");
    kp_emit_arr_begin(e);
    for (unsigned c = 0; c < 3; c++)
        if (r->conditions & (1u << c)) kp_emit_str(e, COND_NAMES[c]);
    kp_emit_arr_end(e);
    if (r->has_reclaim) {
        kp_emit_key(e, "reclaim");
        kp_emit_obj_begin(e);
        for (uint32_t i = 0; i < r->n_met; i++)
            if (r->met[i].index == r->reclaim_threshold) kp_emit_kv_str(e, "signal", kp_evict_signal_name(r->met[i].signal));
        kp_emit_kv_str(e, "resource", r->reclaim_resource);
        kp_emit_key(e, "nodeLevel");
        kp_emit_arr_begin(e);
        if (r->node_reclaim & 1) kp_emit_str(e, "containerGC");
        if (r->node_reclaim & 2) kp_emit_str(e, "imageGC");
        kp_emit_arr_end(e);
        kp_emit_kv_bool(e, "relieved", r->node_reclaim_enough);
        kp_emit_obj_end(e);
    }
    kp_emit_key(e, "ranking");
    kp_emit_arr_begin(e);
    for (uint32_t i = 0; i < r->n_ranking; i++) kp_emit_str(e, kp__pod_ref(cl, &cl->pods[r->ranking[i]], ref, sizeof ref));
    kp_emit_arr_end(e);
    kp_emit_key(e, "evicted");
    kp_emit_arr_begin(e);
    for (uint32_t i = 0; i < r->n_evicted; i++) {
        const kp_evict_eviction *v = &r->evicted[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "pod", kp__pod_ref(cl, &cl->pods[v->pod], ref, sizeof ref));
        kp_emit_kv_str(e, "signal", v->signal);
        kp_emit_kv_int(e, "gracePeriodSeconds", v->grace_seconds);
        kp_emit_kv_str(e, "message", v->message);
        kp_emit_key(e, "annotations");
        kp_emit_obj_begin(e);
        for (uint32_t a = 0; a < v->n_annotations; a++) kp_emit_kv_str(e, v->ann_keys[a], v->ann_values[a]);
        kp_emit_obj_end(e);
        kp_emit_kv_bool(e, "disruptionTarget", !v->local_storage);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    if (r->note) kp_emit_kv_str(e, "note", r->note);
    kp_emit_obj_end(e);
}

static void table_row(kp_table *t, const kp_cluster *cl, const kp_evict_result *r) {
    char buf[64], q[64], a[64], ref[512], cell[2048];
    fmt_time(r->time_ns, buf, sizeof buf);
    kp_table_add(t, buf);
    size_t o = 0;
    cell[0] = 0;
    for (uint32_t i = 0; i < r->n_met; i++) {
        const kp_evict_met *m = &r->met[i];
        fmt_obs(m->signal, r->obs[m->signal].available, a, sizeof a);
        snprintf(q, sizeof q, "%s", m->quantity_str);
        o += (size_t)snprintf(cell + o, o < sizeof cell ? sizeof cell - o : 0, "%s%s %s<%s%s", o ? ", " : "",
                              kp_evict_signal_name(m->signal), a, q, m->grace_met ? "" : " (grace)");
    }
    kp_table_add(t, o ? cell : "<none>");
    o = 0;
    cell[0] = 0;
    for (unsigned c = 0; c < 3; c++)
        if (r->conditions & (1u << c))
            o += (size_t)snprintf(cell + o, o < sizeof cell ? sizeof cell - o : 0, "%s%s", o ? "," : "", COND_NAMES[c]);
    kp_table_add(t, o ? cell : "<none>");
    o = 0;
    cell[0] = 0;
    for (uint32_t i = 0; i < r->n_evicted; i++)
        o += (size_t)snprintf(cell + o, o < sizeof cell ? sizeof cell - o : 0, "%s%s", o ? "," : "",
                              kp__pod_ref(cl, &cl->pods[r->evicted[i].pod], ref, sizeof ref));
    kp_table_add(t, o ? cell : "<none>");
    o = 0;
    cell[0] = 0;
    for (uint32_t i = 0; i < r->n_evicted; i++)
        o += (size_t)snprintf(cell + o, o < sizeof cell ? sizeof cell - o : 0, "%s%s grace %llds", o ? ", " : "",
                              r->evicted[i].signal, (long long)r->evicted[i].grace_seconds);
    if (!r->n_evicted && r->note) o = (size_t)snprintf(cell, sizeof cell, "%s", r->note);
    kp_table_add(t, o ? cell : "");
}

static int fail_err(kp_error *err, const char *source) {
    if (!err->source[0] && source) snprintf(err->source, sizeof err->source, "%s", source);
    kp_cli_print_error(err);
    return KP_EXIT_ERROR;
}

static int parse_layout(const char *v, kp_evict_fs_layout *out) {
    if (strcmp(v, "auto") == 0) *out = KP_EVFS_AUTO;
    else if (strcmp(v, "shared") == 0) *out = KP_EVFS_SHARED;
    else if (strcmp(v, "dedicated") == 0) *out = KP_EVFS_DEDICATED;
    else if (strcmp(v, "split") == 0) *out = KP_EVFS_SPLIT;
    else return -1;
    return 0;
}

static int run(const kp_cli_common *c, const char *node_name, const char **summaries, int n_sum,
               const char *config_file, const flag_arg *flags, int n_flags, const char **reclaim, int n_reclaim,
               kp_evict_fs_layout layout) {
    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_ERROR;
    kp_cluster *cl = NULL;
    kp_evict_manager *m = NULL;
    kp_evict_summary **sums = kp_calloc((size_t)n_sum, sizeof *sums);
    kp_evict_config *cfg = kp_evict_config_new();
    kp_table *t = NULL;
    if (!sums || !cfg) { fprintf(stderr, "kprio: out of memory\n"); goto out; }
    if (config_file) {
        if (kp_evict_config_load_path(cfg, config_file, &err) != KP_OK) { fail_err(&err, config_file); goto out; }
    }
    for (int i = 0; i < n_flags; i++)
        if (kp_evict_config_set_flag(cfg, flags[i].flag, flags[i].value, &err) != KP_OK) { fail_err(&err, NULL); goto out; }
    for (int i = 0; i < n_reclaim; i++) {
        if (kp_evict_config_set_reclaimable(cfg, reclaim[i], &err) != KP_OK) {
            kp_error_prefix(&err, "--reclaimable");
            fail_err(&err, NULL);
            goto out;
        }
    }
    kp_evict_config_set_fs_layout(cfg, layout);
    if (kp_evict_config_finish(cfg, &err) != KP_OK) { fail_err(&err, NULL); goto out; }
    for (int i = 0; i < n_sum; i++) {
        if (kp_evict_summary_load_path(summaries[i], &sums[i], &err) != KP_OK) { fail_err(&err, summaries[i]); goto out; }
    }
    cl = kp_cli_load(c);
    if (!cl) goto out;
    long node = kp_cluster_find_node(cl, node_name);
    if (node < 0) {
        fprintf(stderr, "kprio: evict: node \"%s\" not found in the input\n", node_name);
        goto out;
    }
    m = kp_evict_manager_new(cl, node, cfg, &err);
    if (!m) { fail_err(&err, NULL); goto out; }
    kp_emit *e = NULL;
    if (c->out == KP_OUT_TABLE) {
        t = kp_table_new(5);
        if (!t) goto out;
        kp_table_add(t, "TIME");
        kp_table_add(t, "THRESHOLDS MET (available<threshold)");
        kp_table_add(t, "CONDITIONS");
        kp_table_add(t, "EVICTED");
        kp_table_add(t, "WHY");
    } else {
        e = kp_emit_new(stdout, c->out);
        if (!e) goto out;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
        kp_emit_kv_str(e, "kind", "EvictionReport");
        kp_emit_kv_str(e, "node", node_name);
    }
    kp_evict_result res;
    for (int i = 0; i < n_sum; i++) {
        if (kp_evict_manager_step(m, sums[i], &res, &err) != KP_OK) {
            if (e) { kp_emit_obj_end(e); kp_emit_free(e); }
            fail_err(&err, summaries[i]);
            goto out;
        }
        if (i == 0 && e) {
            kp_emit_kv_str(e, "imageFilesystem", layout_name(res.layout));
            emit_threshold_list(e, m);
            kp_emit_key(e, "steps");
            kp_emit_arr_begin(e);
        }
        if (e) emit_step(e, cl, summaries[i], &res);
        else table_row(t, cl, &res);
    }
    if (e) {
        if (n_sum == 0) { kp_emit_key(e, "steps"); kp_emit_arr_begin(e); }
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
        kp_emit_free(e);
    } else {
        kp_table_print(t, stdout);
    }
    rc = KP_EXIT_OK;
out:
    kp_table_free(t);
    kp_evict_manager_free(m);
    kp_cluster_free(cl);
    for (int i = 0; sums && i < n_sum; i++) kp_evict_summary_free(sums[i]);
    kp_free(sums);
    kp_evict_config_free(cfg);
    return rc;
}

int kp_cmd_evict(int argc, char **argv) {
    kp_cli_common c;
    memset(&c, 0, sizeof c);
    c.out = KP_OUT_TABLE;
    const char *node_name = NULL, *config_file = NULL;
    kp_evict_fs_layout layout = KP_EVFS_AUTO;
    int n_sum = 0, n_flags = 0, n_reclaim = 0;
    const char **summaries = kp_calloc((size_t)argc + 1, sizeof *summaries);
    const char **reclaim = kp_calloc((size_t)argc + 1, sizeof *reclaim);
    flag_arg *flags = kp_calloc((size_t)argc + 1, sizeof *flags);
    int rc = KP_EXIT_USAGE;
    if (!summaries || !reclaim || !flags) { rc = KP_EXIT_ERROR; goto out; }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs("usage: ", stdout);
            fputs(USAGE, stdout);
            rc = KP_EXIT_OK;
            goto out;
        }
        int r = kp_cli_common_arg(&c, argc, argv, &i);
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
        if (kp_cli_is_opt(arg, "--node")) {
            if (!(node_name = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--summary")) {
            if (!(summaries[n_sum++] = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--config")) {
            if (!(config_file = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--reclaimable")) {
            if (!(reclaim[n_reclaim++] = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
        } else if (kp_cli_is_opt(arg, "--imagefs")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "evict"))) goto out;
            if (parse_layout(v, &layout) != 0) {
                rc = kp_cli_usage_error("evict", USAGE, "--imagefs must be auto, shared, dedicated or split, not \"%s\"", v);
                goto out;
            }
        } else {
            rc = kp_cli_usage_error("evict", USAGE, "unknown argument \"%s\"", arg);
            goto out;
        }
    }
    if (c.n_files == 0) { rc = kp_cli_usage_error("evict", USAGE, "no input: give -f FILE"); goto out; }
    if (!node_name) { rc = kp_cli_usage_error("evict", USAGE, "--node is required"); goto out; }
    if (n_sum == 0) { rc = kp_cli_usage_error("evict", USAGE, "--summary is required"); goto out; }
    rc = run(&c, node_name, summaries, n_sum, config_file, flags, n_flags, reclaim, n_reclaim, layout);
out:
    kp_free(summaries);
    kp_free(reclaim);
    kp_free(flags);
    return rc;
}
