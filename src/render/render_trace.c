/* `kprio simulate --trace` output (docs/live.md "Replaying a trace"): what the trace replayed,
 * the agreement of the simulated decisions with the recorded ones by kind, and the first
 * divergences side by side; or a kprio/v1alpha1 TraceReplay document. On the public API only. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kprio/trace.h"
#include "render/emit.h"
#include "render/render_sim.h"

static void dur(int64_t ms, char *buf, size_t cap) { kp_duration_format(ms * 1000000, buf, cap); }

/* "Scheduled on n1 at 1m4s", "FailedScheduling at 3s", "-" */
static void cell(const kp_trace_item *it, bool rec, char *buf, size_t cap) {
    bool has = rec ? it->recorded : it->simulated;
    if (!has) {
        snprintf(buf, cap, "-");
        return;
    }
    const char *node = rec ? it->rec_node : it->sim_node;
    char t[40];
    dur(rec ? it->rec_t_ms : it->sim_t_ms, t, sizeof t);
    snprintf(buf, cap, "%s%s%s at %s", kp_trace_decision_name(it->kind), node[0] ? " on " : "",
             node, t);
}

static void pct(char *buf, size_t cap, uint64_t agree, uint64_t items) {
    if (!items) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.1f%%", 100.0 * (double)agree / (double)items);
}

static kp_status table(FILE *f, const kp_trace *tr, const kp_trace_comparison *c, size_t max_div) {
    kp_trace_stats s;
    kp_trace_stats_get(tr, &s);
    char d[40], p[32];
    dur(kp_trace_duration_ms(tr), d, sizeof d);
    uint64_t n = 0, a = 0;
    kp_trace_agreement(c, KP_TRACE_N_DECISIONS, &n, &a);
    pct(p, sizeof p, a, n);
    uint64_t refused = 0, unmapped = 0;
    kp_trace_refused(c, &refused, &unmapped);
    if (!kp_table_no_headers()) {
        fprintf(f,
                "Replayed %s: %" PRIu64 " watch events, %" PRIu64 " actions (%" PRIu64
                " changes left to the simulated controllers and engines, %" PRIu64
                " refused by the simulated cluster)\n",
                d, s.events, s.actions, s.controllers, refused);
        fprintf(f,
                "Deletions of pods with generated names: %" PRIu64 ", replayed on the simulated "
                "pod of the same controller and rank; %" PRIu64 " found none (not replayed)\n",
                s.by_controller, unmapped);
        uint64_t recorded = 0; /* a trace without the cluster's events (a SimKube trace) */
        for (size_t i = 0; i < kp_trace_item_count(c); i++)
            recorded += kp_trace_item_get(c, i)->recorded;
        if (recorded || !n)
            fprintf(f, "Agreement: %s (%" PRIu64 " of %" PRIu64 " decisions)\n\n", p, a, n);
        else
            fprintf(f,
                    "Agreement: - (the trace records no decisions to compare; the %" PRIu64
                    " simulated ones are listed)\n\n",
                    n);
    }
    kp_table *t = kp_table_new(4);
    kp_table_add(t, "DECISION");
    kp_table_add(t, "AGREE");
    kp_table_add(t, "RECORDED");
    kp_table_add(t, "SIMULATED");
    for (int k = 0; k <= KP_TRACE_N_DECISIONS; k++) {
        uint64_t items = 0, agree = 0, rec = 0, sim = 0;
        kp_trace_agreement(c, (kp_trace_decision_kind)k, &items, &agree);
        for (size_t i = 0; i < kp_trace_item_count(c); i++) {
            const kp_trace_item *it = kp_trace_item_get(c, i);
            if (k != KP_TRACE_N_DECISIONS && (int)it->kind != k) continue;
            rec += it->recorded;
            sim += it->simulated;
        }
        pct(p, sizeof p, agree, items);
        kp_table_add(t, k == KP_TRACE_N_DECISIONS ? "all" : kp_trace_decision_name(k));
        kp_table_addf(t, "%s (%" PRIu64 "/%" PRIu64 ")", p, agree, items);
        kp_table_addf(t, "%" PRIu64, rec);
        kp_table_addf(t, "%" PRIu64, sim);
    }
    kp_status st = kp_table_print(t, f);
    kp_table_free(t);
    if (st != KP_OK) return st;
    size_t shown = 0;
    t = kp_table_new(4);
    kp_table_add(t, "TIME");
    kp_table_add(t, "POD");
    kp_table_add(t, "RECORDED");
    kp_table_add(t, "SIMULATED");
    char x[300], y[300];
    for (size_t i = 0; i < kp_trace_item_count(c) && shown < max_div; i++) {
        const kp_trace_item *it = kp_trace_item_get(c, i);
        if (it->agree) continue;
        shown++;
        dur(it->recorded ? it->rec_t_ms : it->sim_t_ms, d, sizeof d);
        kp_table_add(t, d);
        if (it->sim_name[0] && strcmp(it->sim_name, it->name) != 0)
            kp_table_addf(t, "%s/%s (simulated: %s)", it->ns, it->name, it->sim_name);
        else kp_table_addf(t, "%s/%s", it->ns, it->name);
        cell(it, true, x, sizeof x);
        cell(it, false, y, sizeof y);
        kp_table_add(t, x);
        kp_table_add(t, y);
    }
    if (shown) {
        if (!kp_table_no_headers()) fprintf(f, "\nFirst divergences:\n");
        st = kp_table_print(t, f);
    }
    kp_table_free(t);
    return st;
}

static void item_side(kp_emit *e, const char *key, bool has, int64_t t, const char *node,
                      const char *msg) {
    kp_emit_key(e, key);
    if (!has) {
        kp_emit_null(e);
        return;
    }
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "timeMs", t);
    kp_emit_kv_str(e, "node", node);
    kp_emit_kv_str(e, "message", msg);
    kp_emit_obj_end(e);
}

static kp_status doc(FILE *f, const kp_trace *tr, const kp_trace_comparison *c, kp_outfmt fmt,
                     size_t max_div) {
    kp_trace_stats s;
    kp_trace_stats_get(tr, &s);
    kp_emit *e = kp_emit_new(f, fmt);
    if (!e) return KP_ENOMEM;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "TraceReplay");
    kp_emit_kv_int(e, "durationMs", kp_trace_duration_ms(tr));
    kp_emit_key(e, "replayed");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "watchEvents", (int64_t)s.events);
    kp_emit_kv_int(e, "actions", (int64_t)s.actions);
    kp_emit_kv_int(e, "leftToSimulation", (int64_t)s.controllers);
    uint64_t refused = 0, unmapped = 0;
    kp_trace_refused(c, &refused, &unmapped);
    kp_emit_kv_int(e, "refused", (int64_t)refused);
    kp_emit_kv_int(e, "generatedNameDeletions", (int64_t)s.by_controller);
    kp_emit_kv_int(e, "notReplayed", (int64_t)unmapped);
    kp_emit_kv_int(e, "eventsBeforeStart", (int64_t)s.before_start);
    kp_emit_obj_end(e);
    kp_emit_key(e, "agreement");
    kp_emit_obj_begin(e);
    for (int k = 0; k <= KP_TRACE_N_DECISIONS; k++) {
        uint64_t items = 0, agree = 0;
        kp_trace_agreement(c, (kp_trace_decision_kind)k, &items, &agree);
        kp_emit_key(e, k == KP_TRACE_N_DECISIONS ? "all" : kp_trace_decision_name(k));
        kp_emit_obj_begin(e);
        kp_emit_kv_int(e, "decisions", (int64_t)items);
        kp_emit_kv_int(e, "agree", (int64_t)agree);
        kp_emit_obj_end(e);
    }
    kp_emit_obj_end(e);
    kp_emit_key(e, "divergences");
    kp_emit_arr_begin(e);
    size_t shown = 0;
    for (size_t i = 0; i < kp_trace_item_count(c) && shown < max_div; i++) {
        const kp_trace_item *it = kp_trace_item_get(c, i);
        if (it->agree) continue;
        shown++;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "decision", kp_trace_decision_name(it->kind));
        kp_emit_kv_pod_ref(e, "pod", it->ns, it->name);
        kp_emit_kv_str(e, "simulatedPod", it->sim_name);
        item_side(e, "recorded", it->recorded, it->rec_t_ms, it->rec_node, it->rec_message);
        item_side(e, "simulated", it->simulated, it->sim_t_ms, it->sim_node, it->sim_message);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

kp_status kp_render_trace(FILE *f, const kp_trace *tr, const kp_trace_comparison *c, kp_outfmt fmt,
                          size_t max_divergences) {
    if (fmt == KP_OUT_JSON || fmt == KP_OUT_YAML) return doc(f, tr, c, fmt, max_divergences);
    return table(f, tr, c, max_divergences);
}
