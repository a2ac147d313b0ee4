/* The answer of a `kprio schedule` run before and after its per-pod rows (docs/schedule.md
 * "Summary and roll-ups"): how many pods were placed and how, how many victims on how many
 * nodes, the PDBs whose budget the run's victims exceed (kp_sched_pdb_uses), then the victims
 * rolled up by workload, by node and by PDB. On the public API only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_sched.h"

/* ---------------------------------------------------------------- building */

/* a victim's group: its top workload (kp_cluster_workload_top), else its namespace (no owner) */
static int cmp_wrow(const void *a, const void *b) {
    const kp__rollup_row *x = a, *y = b;
    if (x->victims != y->victims) return x->victims > y->victims ? -1 : 1;
    int c = strcmp(x->ns, y->ns);
    if (c) return c;
    if ((c = strcmp(x->kind, y->kind))) return c;
    return strcmp(x->name, y->name);
}

typedef struct {
    size_t row;
    kp_index node;
} row_node;

static int cmp_row_node(const void *a, const void *b) {
    const row_node *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

typedef struct {
    uint32_t victims;
    kp_index node;
} node_key;

static int cmp_node_key(const void *a, const void *b) {
    const node_key *x = a, *y = b;
    if (x->victims != y->victims) return x->victims > y->victims ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* the victim's row in r->wl (appended when new); SIZE_MAX out of memory */
static size_t wl_row(const kp_cluster *cl, kp__sched_rollup *r, kp_index pod, size_t *cap) {
    kp_index w = kp_cluster_workload_top(cl, kp_cluster_pod_workload(cl, pod));
    kp__rollup_row key = {w, "", "", "", 0, 0};
    kp_workload_info wi;
    if (w >= 0 && kp_cluster_workload_info(cl, w, &wi) == KP_OK) {
        key.kind = wi.kind, key.ns = wi.ns, key.name = wi.name;
    } else {
        key.index = -1;
        key.ns = kp_cluster_pod_namespace(cl, pod);
    }
    for (size_t i = 0; i < r->n_wl; i++)
        if (r->wl[i].index == key.index && (key.index >= 0 || strcmp(r->wl[i].ns, key.ns) == 0))
            return i;
    if (r->n_wl == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        kp__rollup_row *n = kp_realloc(r->wl, nc * sizeof *n);
        if (!n) return SIZE_MAX;
        r->wl = n, *cap = nc;
    }
    r->wl[r->n_wl] = key;
    return r->n_wl++;
}

static kp_status count_victims(const kp_sched *s, const kp_cluster *cl, kp__sched_rollup *r,
                               bool *seen, row_node *pairs) {
    size_t cap_wl = 0, n_pairs = 0, nn = kp_cluster_node_count(cl);
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *x = kp_sched_result(s, i);
        if (!x) continue;
        if (x->n_victims) r->preemptors++;
        /* the decision's node: its victims' (a preemptor bound by --until-settled has no
         * nomination left) */
        if (x->n_victims && x->victim_nodes[0] >= 0 && (size_t)x->victim_nodes[0] < nn)
            r->node_preemptors[x->victim_nodes[0]]++;
        if (x->n_victims && x->outcome == KP_OUTCOME_BOUND) r->bound_preempting++;
        for (size_t v = 0; v < x->n_victims; v++) {
            kp_index pod = x->victims[v], node = x->victim_nodes[v];
            if (pod < 0 || seen[pod]) continue;
            seen[pod] = true;
            r->victims++;
            if (node >= 0 && (size_t)node < nn) r->node_victims[node]++;
            size_t row = wl_row(cl, r, pod, &cap_wl);
            if (row == SIZE_MAX) return KP_ENOMEM;
            r->wl[row].victims++;
            pairs[n_pairs++] = (row_node){row, node};
        }
    }
    qsort(pairs, n_pairs, sizeof *pairs, cmp_row_node);
    for (size_t i = 0; i < n_pairs; i++)
        if (!i || cmp_row_node(&pairs[i], &pairs[i - 1]) != 0) r->wl[pairs[i].row].nodes++;
    for (size_t k = 0; k < nn; k++) r->nodes += r->node_victims[k] > 0;
    /* the nodes with victims, most victims first, then node order */
    node_key *keys = kp_malloc((r->nodes ? r->nodes : 1) * sizeof *keys);
    r->by_node = kp_malloc((r->nodes ? r->nodes : 1) * sizeof *r->by_node);
    if (!keys || !r->by_node) {
        kp_free(keys);
        return KP_ENOMEM;
    }
    for (size_t k = 0; k < nn; k++)
        if (r->node_victims[k]) keys[r->n_by_node++] = (node_key){r->node_victims[k], (kp_index)k};
    qsort(keys, r->n_by_node, sizeof *keys, cmp_node_key);
    for (size_t i = 0; i < r->n_by_node; i++) r->by_node[i] = keys[i].node;
    kp_free(keys);
    if (r->n_wl > 1) qsort(r->wl, r->n_wl, sizeof *r->wl, cmp_wrow);
    return KP_OK;
}

kp_status kp__sched_rollup_build(const kp_sched *s, const kp_cluster *cl, kp__sched_rollup *r) {
    memset(r, 0, sizeof *r);
    size_t np = kp_cluster_pod_count(cl), nn = kp_cluster_node_count(cl), nv = 0;
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *x = kp_sched_result(s, i);
        if (!x) continue;
        nv += x->n_victims;
        switch (x->outcome) {
        case KP_OUTCOME_BOUND: r->bound++; break;
        case KP_OUTCOME_NOMINATED: r->nominated++; break;
        case KP_OUTCOME_UNSCHEDULABLE: r->unschedulable++; break;
        case KP_OUTCOME_GATED: r->gated++; break;
        }
    }
    bool *seen = kp_calloc(np ? np : 1, sizeof *seen);
    row_node *pairs = kp_malloc((nv ? nv : 1) * sizeof *pairs);
    r->node_victims = kp_calloc(nn ? nn : 1, sizeof *r->node_victims);
    r->node_preemptors = kp_calloc(nn ? nn : 1, sizeof *r->node_preemptors);
    kp_status st = seen && pairs && r->node_victims && r->node_preemptors ? KP_OK : KP_ENOMEM;
    if (st == KP_OK) st = count_victims(s, cl, r, seen, pairs);
    kp_error err;
    kp_error_clear(&err);
    if (st == KP_OK) st = kp_sched_pdb_uses(s, -1, &r->pdbs, &r->n_pdbs, &err);
    for (size_t k = 0; k < r->n_pdbs; k++)
        r->pdbs_over +=
            r->pdbs[k].victims > 0 && (int64_t)r->pdbs[k].victims > (int64_t)r->pdbs[k].allowed;
    kp_free(seen);
    kp_free(pairs);
    if (st != KP_OK) kp__sched_rollup_fini(r);
    return st;
}

void kp__sched_rollup_fini(kp__sched_rollup *r) {
    kp_free(r->wl);
    kp_free(r->node_victims);
    kp_free(r->node_preemptors);
    kp_free(r->by_node);
    kp_sched_pdb_uses_free(r->pdbs);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- one PDB */

static int64_t over_by(const kp_sched_pdb_use *u) {
    int64_t d = (int64_t)u->victims - (int64_t)u->allowed;
    return d > 0 ? d : 0;
}

void kp__render_pdb_use_line(FILE *f, const kp_cluster *cl, const kp_sched_pdb_use *u,
                             const char *indent) {
    kp_pdb_info pi;
    if (kp_cluster_pdb_info(cl, u->pdb, &pi) != KP_OK) return;
    fprintf(f,
            "%sPDB %s/%s: %" PRIu32 " victim%s in this run against %" PRId32
            " disruption%s allowed%s",
            indent, pi.ns, pi.name, u->victims, u->victims == 1 ? "" : "s", u->allowed,
            u->allowed == 1 ? "" : "s", u->has_status ? "" : " (no status: counted as 0)");
    if (!over_by(u)) {
        fprintf(f, ": within budget.\n");
        return;
    }
    fprintf(f, ": over budget by %" PRId64, over_by(u));
    if (u->decisions_over == 0)
        fprintf(f,
                ", although each of its %" PRIu32 " preemption decision%s was within it (the "
                "scheduler counts a PDB per decision, from a status that lags its own "
                "preemptions; `kprio simulate` shows what the disruption controller makes "
                "of it).\n",
                u->decisions, u->decisions == 1 ? "" : "s");
    else
        fprintf(f,
                "; %" PRIu32 " of its %" PRIu32 " preemption decisions violated it alone "
                "(pdbViolations).\n",
                u->decisions_over, u->decisions);
}

void kp__render_pdb_use_emit(kp_emit *e, const kp_cluster *cl, const kp_sched_pdb_use *u) {
    kp_pdb_info pi;
    if (kp_cluster_pdb_info(cl, u->pdb, &pi) != KP_OK) return;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "namespace", pi.ns);
    kp_emit_kv_str(e, "name", pi.name);
    kp_emit_kv_bool(e, "hasStatus", u->has_status);
    kp_emit_kv_int(e, "disruptionsAllowed", u->allowed);
    kp_emit_kv_int(e, "victims", u->victims);
    kp_emit_kv_int(e, "overBudget", over_by(u));
    kp_emit_kv_int(e, "decisions", u->decisions);
    kp_emit_kv_int(e, "decisionsOverBudget", u->decisions_over);
    kp_emit_kv_int(e, "maxVictimsPerDecision", u->max_per_decision);
    kp_emit_obj_end(e);
}

/* ---------------------------------------------------------------- table */

void kp__sched_rollup_headline(FILE *f, const kp_cluster *cl, const kp__sched_rollup *r) {
    size_t n = r->bound + r->nominated + r->unschedulable + r->gated;
    fprintf(f,
            "%zu pending pod%s: %zu bound, %zu preempting (%zu victim%s on %zu node%s), %zu "
            "unschedulable",
            n, n == 1 ? "" : "s", r->bound - r->bound_preempting, r->preemptors, r->victims,
            r->victims == 1 ? "" : "s", r->nodes, r->nodes == 1 ? "" : "s", r->unschedulable);
    if (r->gated) fprintf(f, ", %zu gated", r->gated);
    if (r->n_pdbs) fprintf(f, "; PDBs: %zu touched, %zu over budget", r->n_pdbs, r->pdbs_over);
    fprintf(f, ".\n");
    for (size_t k = 0; k < r->n_pdbs; k++)
        if (over_by(&r->pdbs[k])) kp__render_pdb_use_line(f, cl, &r->pdbs[k], "");
}

kp_status kp__sched_rollup_tables(FILE *f, const kp_cluster *cl, const kp__sched_rollup *r) {
    /* the three tables are made before anything is printed: all or nothing */
    kp_table *tw = kp_table_new(3), *tn = kp_table_new(3), *tp = NULL;
    kp_table_add(tw, "WORKLOAD");
    kp_table_add(tw, "VICTIMS");
    kp_table_add(tw, "NODES");
    for (size_t i = 0; i < r->n_wl; i++) {
        const kp__rollup_row *w = &r->wl[i];
        if (w->index >= 0) kp_table_addf(tw, "%s %s/%s", w->kind, w->ns, w->name);
        else kp_table_addf(tw, "<no owner> %s", w->ns);
        kp_table_addf(tw, "%" PRIu32, w->victims);
        kp_table_addf(tw, "%" PRIu32, w->nodes);
    }
    kp_table_add(tn, "NODE");
    kp_table_add(tn, "VICTIMS");
    kp_table_add(tn, "PREEMPTORS");
    for (size_t i = 0; i < r->n_by_node; i++) {
        kp_index k = r->by_node[i];
        kp_table_add(tn, kp_cluster_node_name(cl, k));
        kp_table_addf(tn, "%" PRIu32, r->node_victims[k]);
        kp_table_addf(tn, "%" PRIu32, r->node_preemptors[k]);
    }
    if (r->n_pdbs) {
        tp = kp_table_new(6);
        kp_table_add(tp, "PDB");
        kp_table_add(tp, "ALLOWED");
        kp_table_add(tp, "VICTIMS");
        kp_table_add(tp, "OVER-BUDGET");
        kp_table_add(tp, "DECISIONS");
        kp_table_add(tp, "DECISIONS-OVER");
    }
    for (size_t k = 0; k < r->n_pdbs; k++) {
        const kp_sched_pdb_use *u = &r->pdbs[k];
        kp_pdb_info pi;
        if (kp_cluster_pdb_info(cl, u->pdb, &pi) != KP_OK) continue;
        kp_table_addf(tp, "%s/%s", pi.ns, pi.name);
        if (u->has_status) kp_table_addf(tp, "%" PRId32, u->allowed);
        else kp_table_add(tp, "0 (no status)");
        kp_table_addf(tp, "%" PRIu32, u->victims);
        kp_table_addf(tp, "%" PRId64, over_by(u));
        kp_table_addf(tp, "%" PRIu32, u->decisions);
        kp_table_addf(tp, "%" PRIu32, u->decisions_over);
    }
    kp_status st = kp_table_status(tw);
    if (st == KP_OK) st = kp_table_status(tn);
    if (st == KP_OK && r->n_pdbs) st = kp_table_status(tp);
    if (st == KP_OK) {
        fprintf(f, "\nVictims by workload:\n");
        kp_table_print(tw, f);
        fprintf(f, "\nVictims by node:\n");
        kp_table_print(tn, f);
        if (tp) {
            fprintf(f, "\nVictims by PDB:\n");
            kp_table_print(tp, f);
        }
    }
    kp_table_free(tw);
    kp_table_free(tn);
    kp_table_free(tp);
    return st;
}

/* ---------------------------------------------------------------- JSON */

void kp__sched_rollup_emit(kp_emit *e, const kp_cluster *cl, const kp__sched_rollup *r) {
    kp_emit_key(e, "summary");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "bound", (int64_t)r->bound);
    kp_emit_kv_int(e, "nominated", (int64_t)r->nominated);
    kp_emit_kv_int(e, "unschedulable", (int64_t)r->unschedulable);
    kp_emit_kv_int(e, "gated", (int64_t)r->gated);
    kp_emit_kv_int(e, "preemptors", (int64_t)r->preemptors);
    kp_emit_kv_int(e, "victims", (int64_t)r->victims);
    kp_emit_kv_int(e, "victimNodes", (int64_t)r->nodes);
    kp_emit_kv_int(e, "pdbsOverBudget", (int64_t)r->pdbs_over);
    kp_emit_key(e, "victimsByWorkload");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < r->n_wl; i++) {
        const kp__rollup_row *w = &r->wl[i];
        kp_emit_obj_begin(e);
        if (w->index >= 0) {
            kp_emit_kv_str(e, "kind", w->kind);
            kp_emit_kv_str(e, "namespace", w->ns);
            kp_emit_kv_str(e, "name", w->name);
        } else {
            kp_emit_key(e, "kind");
            kp_emit_null(e);
            kp_emit_kv_str(e, "namespace", w->ns);
        }
        kp_emit_kv_int(e, "victims", w->victims);
        kp_emit_kv_int(e, "nodes", w->nodes);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "victimsByNode");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < r->n_by_node; i++) {
        kp_index k = r->by_node[i];
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, k));
        kp_emit_kv_int(e, "victims", r->node_victims[k]);
        kp_emit_kv_int(e, "preemptors", r->node_preemptors[k]);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "pdbs");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < r->n_pdbs; k++) kp__render_pdb_use_emit(e, cl, &r->pdbs[k]);
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
}
