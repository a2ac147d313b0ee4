/* kprio evict's report: one row (table) or one object (JSON / YAML) per synchronize step, from
 * the public eviction API (src/render/render_kubelet.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kprio/node_conditions.h"
#include "kprio/quantity.h"
#include "render/emit.h"
#include "render/render_gates.h"
#include "render/render_kubelet.h"

/* A table cell is a kp__buf (base/buf.h: no length limit); out of memory fails the table or
 * document the text goes to (nothing is written). */

/* Adds the cell (or `empty` when nothing was written) and starts the next one. */
static void text_cell(kp_table *t, kp__buf *c, const char *empty) {
    if (c->failed) kp_table_fail(t, KP_ENOMEM);
    kp_table_add(t, c->len ? kp__buf_str(c) : empty);
    kp__buf_reset(c);
}

static void emit_pod_ref(kp_emit *e, const kp_cluster *cl, kp_index pod) {
    kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
}

static void fmt_time(int64_t ns, char *buf, size_t cap) {
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) {
        snprintf(buf, cap, "?");
        return;
    }
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool decimal_signal(kp_evict_signal s) {
    return s == KP_EVSIG_NODEFS_INODES_FREE || s == KP_EVSIG_IMAGEFS_INODES_FREE ||
           s == KP_EVSIG_CONTAINERFS_INODES_FREE || s == KP_EVSIG_PID_AVAILABLE;
}

static void fmt_obs(kp_evict_signal s, int64_t v, char *buf, size_t cap) {
    snprintf(
        buf, cap, "%s",
        kp_quantity_string_int(v, decimal_signal(s) ? KP_QFMT_DECIMAL_SI : KP_QFMT_BINARY_SI).s);
}

/* Observed value a and threshold b of one signal in one unit, for tables: counts (inodes, PIDs) as
 * plain numbers; bytes in the largest of Ki, Mi, Gi, Ti in which the smaller non-zero value is at
 * least 1, with no decimals where a value is exact in that unit, else with as few (1 to 3) as
 * keep the two apart. */
static void fmt_pair(kp_evict_signal s, int64_t a, int64_t b, char *oa, char *ob, size_t cap) {
    if (decimal_signal(s)) {
        snprintf(oa, cap, "%lld", (long long)a);
        snprintf(ob, cap, "%lld", (long long)b);
        return;
    }
    static const char *const suffix[] = {"", "Ki", "Mi", "Gi", "Ti"};
    double ua = a < 0 ? -(double)a : (double)a, ub = b < 0 ? -(double)b : (double)b;
    double m = ua == 0 ? ub : (ub == 0 ? ua : (ua < ub ? ua : ub));
    int u = 0;
    double unit = 1;
    while (u < 4 && m >= unit * 1024) {
        unit *= 1024;
        u++;
    }
    int64_t iu = (int64_t)unit;
    for (int d = 1; d <= 3; d++) {
        snprintf(oa, cap, "%.*f%s", a % iu == 0 ? 0 : d, (double)a / unit, suffix[u]);
        snprintf(ob, cap, "%.*f%s", b % iu == 0 ? 0 : d, (double)b / unit, suffix[u]);
        if (strcmp(oa, ob) != 0 || a == b) return;
    }
    snprintf(oa, cap, "%lld", (long long)a); /* still equal: exact bytes */
    snprintf(ob, cap, "%lld", (long long)b);
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

static void emit_threshold_list(kp_emit *e, const kp_evict_manager *m, bool explain) {
    kp_emit_key(e, "thresholds");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_evict_manager_threshold_count(m); i++) {
        const kp_evict_threshold_info *t = kp_evict_manager_threshold(m, i);
        if (!t || !t->value[0]) continue;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "signal", kp_evict_signal_name(t->signal));
        kp_emit_kv_str(e, "operator", "LessThan");
        kp_emit_kv_str(e, "value", t->value);
        kp_emit_kv_str(e, "gracePeriod", kp_duration_string(t->grace_ns).s);
        kp_emit_kv_bool(e, "hard", t->hard);
        if (t->min_reclaim[0]) kp_emit_kv_str(e, "minReclaim", t->min_reclaim);
        if (explain) kp_emit_kv_str(e, "origin", t->origin);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static void emit_step(kp_emit *e, const kp_cluster *cl, const char *file, const kp_evict_result *r,
                      bool explain) {
    char buf[64];
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
        kp_emit_kv_str(e, "gracePeriod", kp_duration_string(t->grace_ns).s);
        kp_emit_kv_bool(e, "hard", t->hard);
        kp_emit_kv_bool(e, "gracePeriodMet", t->grace_met);
        kp_emit_kv_bool(e, "statsUpdated", t->acted);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "nodeConditions");
    kp_emit_arr_begin(e);
    for (unsigned c = 0; c < KP_NODE_COND_COUNT; c++)
        if (r->conditions & (1u << c)) kp_emit_str(e, kp_node_condition_name(1u << c));
    kp_emit_arr_end(e);
    if (r->has_reclaim) {
        kp_emit_key(e, "reclaim");
        kp_emit_obj_begin(e);
        for (uint32_t i = 0; i < r->n_met; i++)
            if (r->met[i].index == r->reclaim_threshold)
                kp_emit_kv_str(e, "signal", kp_evict_signal_name(r->met[i].signal));
        kp_emit_kv_str(e, "resource", r->reclaim_resource);
        kp_emit_key(e, "nodeLevel");
        kp_emit_arr_begin(e);
        if (r->node_reclaim & 1) kp_emit_str(e, "containerGC");
        if (r->node_reclaim & 2) kp_emit_str(e, "imageGC");
        kp_emit_arr_end(e);
        kp_emit_kv_bool(e, "relieved", r->node_reclaim_enough);
        kp_emit_obj_end(e);
    }
    if (r->n_ranking) kp__render_emit_ranking(e, cl, r);
    kp_emit_key(e, "evicted");
    kp_emit_arr_begin(e);
    for (uint32_t i = 0; i < r->n_evicted; i++) {
        const kp_evict_eviction *v = &r->evicted[i];
        kp_emit_obj_begin(e);
        kp_emit_key(e, "pod");
        emit_pod_ref(e, cl, (kp_index)v->pod);
        kp_emit_kv_str(e, "signal", v->signal);
        kp_emit_kv_int(e, "gracePeriodSeconds", v->grace_seconds);
        kp_emit_kv_str(e, "message", v->message);
        kp_emit_key(e, "annotations");
        kp_emit_obj_begin(e);
        for (uint32_t a = 0; a < v->n_annotations; a++)
            kp_emit_kv_str(e, v->ann_keys[a], v->ann_values[a]);
        kp_emit_obj_end(e);
        kp_emit_kv_bool(e, "disruptionTarget", !v->local_storage);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    if (r->note) kp_emit_kv_str(e, "note", r->note);
    if (explain && r->stats_joined) {
        kp_emit_key(e, "podStats");
        kp_emit_obj_begin(e);
        kp_emit_kv_int(e, "joinedByUID", (int64_t)r->n_stats_by_uid);
        kp_emit_kv_int(e, "joinedByName", (int64_t)r->n_stats_by_name);
        kp_emit_kv_int(e, "withoutStats", (int64_t)r->n_stats_missing);
        kp_emit_obj_end(e);
    }
    kp_emit_obj_end(e);
}

static void table_row(kp_table *t, const kp_cluster *cl, const kp_evict_result *r) {
    char buf[64], a[64], q[64];
    kp__buf cell = {0};
    fmt_time(r->time_ns, buf, sizeof buf);
    kp_table_add(t, buf);
    for (uint32_t i = 0; i < r->n_met; i++) {
        const kp_evict_met *m = &r->met[i];
        fmt_pair(m->signal, r->obs[m->signal].available, m->quantity, a, q, sizeof a);
        kp__buf_printf(&cell, "%s%s %s<%s%s", cell.len ? ", " : "", kp_evict_signal_name(m->signal),
                       a, q, m->grace_met ? "" : " (grace)");
    }
    text_cell(t, &cell, "<none>");
    for (unsigned c = 0; c < KP_NODE_COND_COUNT; c++)
        if (r->conditions & (1u << c))
            kp__buf_printf(&cell, "%s%s", cell.len ? "," : "", kp_node_condition_name(1u << c));
    text_cell(t, &cell, "<none>");
    for (uint32_t i = 0; i < r->n_evicted; i++)
        kp__buf_printf(&cell, "%s%s/%s", cell.len ? "," : "",
                       kp_cluster_pod_namespace(cl, (kp_index)r->evicted[i].pod),
                       kp_cluster_pod_name(cl, (kp_index)r->evicted[i].pod));
    text_cell(t, &cell, "<none>");
    for (uint32_t i = 0; i < r->n_evicted; i++)
        kp__buf_printf(&cell, "%s%s, pod termination grace period %llds", cell.len ? "; " : "",
                       r->evicted[i].signal, (long long)r->evicted[i].grace_seconds);
    if (!r->n_evicted && r->note) kp__buf_printf(&cell, "%s", r->note);
    text_cell(t, &cell, "");
    kp__buf_free(&cell);
}

struct kp_evict_report {
    FILE *f;
    kp_outfmt fmt;
    const kp_cluster *cl;
    kp_emit *e;
    kp_table *t;
    size_t n_steps;
    bool finished;
    bool explain;
    const kp_evict_manager *m; /* of the last step (explain: its thresholds) */
    kp_table *joins; /* explain, table format: how each step joined pod stats */
    kp_table *ranks; /* wide: the ranking of each step that ranked pods */
    bool wide;
};

void kp_evict_report_set_explain(kp_evict_report *r, bool on) { r->explain = on; }

void kp_evict_report_set_wide(kp_evict_report *r, bool on) { r->wide = on; }

/* explain, table format: the join of this step's pod stats */
static void join_row(kp_evict_report *r, const kp_evict_result *res) {
    if (!res->stats_joined) return;
    if (!r->joins) {
        r->joins = kp_table_new(4);
        if (!r->joins) {
            kp_table_fail(r->t, KP_ENOMEM);
            return;
        }
        kp_table_add(r->joins, "TIME");
        kp_table_add(r->joins, "BY UID");
        kp_table_add(r->joins, "BY NAMESPACE/NAME");
        kp_table_add(r->joins, "WITHOUT STATS");
    }
    char buf[64];
    fmt_time(res->time_ns, buf, sizeof buf);
    kp_table_add(r->joins, buf);
    kp_table_addf(r->joins, "%zu", res->n_stats_by_uid);
    kp_table_addf(r->joins, "%zu", res->n_stats_by_name);
    kp_table_addf(r->joins, "%zu", res->n_stats_missing);
}

/* explain, table format: the thresholds in force and where each came from, then the joins */
static kp_status print_explain(kp_evict_report *r) {
    kp_table *t = kp_table_new(5);
    kp_table_add(t, "SIGNAL");
    kp_table_add(t, "THRESHOLD");
    kp_table_add(t, "GRACE PERIOD");
    kp_table_add(t, "MIN RECLAIM");
    kp_table_add(t, "FROM");
    for (size_t i = 0; r->m && i < kp_evict_manager_threshold_count(r->m); i++) {
        const kp_evict_threshold_info *ti = kp_evict_manager_threshold(r->m, i);
        if (!ti || !ti->value[0]) continue;
        kp_table_add(t, kp_evict_signal_name(ti->signal));
        kp_table_addf(t, "<%s", ti->value);
        kp_table_addf(t, "%s%s", kp_duration_string(ti->grace_ns).s, ti->hard ? " (hard)" : "");
        kp_table_add(t, ti->min_reclaim[0] ? ti->min_reclaim : "-");
        kp_table_add(t, ti->origin);
    }
    kp_status st = kp_table_status(t);
    if (st == KP_OK && r->joins) st = kp_table_status(r->joins);
    if (st == KP_OK)
        kp__render_print_gates(
            r->f, r->cl,
            "\nFeature gates that differ from the Kubernetes " KP_KUBERNETES_VERSION " defaults: ");
    if (st == KP_OK) {
        fputs("\nEffective eviction thresholds (as the kubelet builds them: the config file, its "
              "mergeDefaultEvictionSettings,\nthen the command line, where a map flag replaces the "
              "whole map; then the derived copies):\n",
              r->f);
        st = kp_table_print(t, r->f);
    }
    if (st == KP_OK) {
        fputs("\nPod stats joined to pods (by podRef.uid, as the kubelet's cachedStatsFunc; by "
              "namespace/name only where\nthe pod or the summary entry has no uid; a pod without "
              "stats ranks first for memory):\n",
              r->f);
        if (r->joins) st = kp_table_print(r->joins, r->f);
        else fputs("no step read pod stats\n", r->f);
    }
    kp_table_free(t);
    return st;
}

kp_evict_report *kp_evict_report_new(FILE *f, kp_outfmt fmt, const kp_cluster *cl,
                                     const char *node_name) {
    kp_evict_report *r = kp_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->f = f;
    r->fmt = fmt;
    r->cl = cl;
    if (fmt == KP_OUT_TABLE) {
        r->t = kp_table_new(5);
        if (!r->t) {
            kp_free(r);
            return NULL;
        }
        kp_table_add(r->t, "TIME");
        kp_table_add(r->t, "THRESHOLDS MET (available<threshold)");
        kp_table_add(r->t, "CONDITIONS");
        kp_table_add(r->t, "EVICTED");
        kp_table_add(r->t, "WHY");
        return r;
    }
    r->e = kp_emit_new(f, fmt);
    if (!r->e) {
        kp_free(r);
        return NULL;
    }
    kp_emit_obj_begin(r->e);
    kp_emit_kv_str(r->e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(r->e, "kind", "EvictionReport");
    kp_emit_kv_str(r->e, "node", node_name);
    return r;
}

void kp_evict_report_step(kp_evict_report *r, const kp_evict_manager *m, const char *summary,
                          const kp_evict_result *res) {
    if (r->e) {
        if (r->n_steps == 0) {
            kp_emit_kv_str(r->e, "imageFilesystem", layout_name(res->layout));
            emit_threshold_list(r->e, m, r->explain);
            if (r->explain) kp__render_emit_gates(r->e, r->cl);
            kp_emit_key(r->e, "steps");
            kp_emit_arr_begin(r->e);
        }
        emit_step(r->e, r->cl, summary, res, r->explain);
    } else {
        table_row(r->t, r->cl, res);
        if (r->explain) join_row(r, res);
        if (r->wide && res->n_ranking) {
            char when[64];
            fmt_time(res->time_ns, when, sizeof when);
            if (!r->ranks && !(r->ranks = kp__render_ranking_table_new()))
                kp_table_fail(r->t, KP_ENOMEM);
            kp__render_ranking_rows(r->ranks, r->cl, when, res);
        }
    }
    r->m = m;
    r->n_steps++;
}

kp_status kp_evict_report_finish(kp_evict_report *r) {
    kp_status st;
    if (r->e) {
        if (r->n_steps == 0) {
            kp_emit_key(r->e, "steps");
            kp_emit_arr_begin(r->e);
        }
        kp_emit_arr_end(r->e);
        kp_emit_obj_end(r->e);
        st = kp_emit_status(r->e);
        kp_emit_free(r->e); /* writes the document, unless it failed */
        r->e = NULL;
    } else {
        if (r->ranks && kp_table_status(r->ranks) != KP_OK) kp_table_fail(r->t, KP_ENOMEM);
        st = kp_table_print(r->t, r->f); /* prints nothing when it failed */
        if (st == KP_OK && r->wide) {
            fputs("\nRanking (the kubelet's rank function for the signal; the first pod that is "
                  "not critical is evicted):\n",
                  r->f);
            if (r->ranks) st = kp_table_print(r->ranks, r->f);
            else fputs("no step ranked pods\n", r->f);
        }
        if (st == KP_OK && r->explain) st = print_explain(r);
    }
    r->finished = true;
    return st;
}

void kp_evict_report_free(kp_evict_report *r) {
    if (!r) return;
    kp_emit_discard(r->e); /* not finished: nothing is written */
    kp_table_free(r->t);
    kp_table_free(r->joins);
    kp_table_free(r->ranks);
    kp_free(r);
}
