/* kprio inspect: kubectl-style overview of a loaded snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/cluster_int.h"
#include "kprio/quantity.h"

static const char *USAGE = "kprio inspect -f FILE|DIR|- [-f ...] [-R] [-o table|json|yaml]";


static const kp_cluster *g_cl;
static int node_cmp(const void *a, const void *b) {
    return strcmp(kp__s(g_cl, g_cl->nodes[*(const uint32_t *)a].name), kp__s(g_cl, g_cl->nodes[*(const uint32_t *)b].name));
}
static int class_cmp(const void *a, const void *b) {
    const kp_priority_class *x = &g_cl->classes[*(const uint32_t *)a], *y = &g_cl->classes[*(const uint32_t *)b];
    if (x->value != y->value) return x->value > y->value ? -1 : 1;
    return strcmp(kp__s(g_cl, x->name), kp__s(g_cl, y->name));
}
static int pdb_cmp(const void *a, const void *b) {
    const kp_pdb *x = &g_cl->pdbs[*(const uint32_t *)a], *y = &g_cl->pdbs[*(const uint32_t *)b];
    int c = strcmp(kp__s(g_cl, x->ns), kp__s(g_cl, y->ns));
    return c ? c : strcmp(kp__s(g_cl, x->name), kp__s(g_cl, y->name));
}

static uint32_t *sorted_idx(uint32_t n, int (*cmp)(const void *, const void *)) {
    uint32_t *idx = kp_malloc((n ? n : 1) * sizeof *idx);
    if (!idx) return NULL;
    for (uint32_t i = 0; i < n; i++) idx[i] = i;
    qsort(idx, n, sizeof *idx, cmp);
    return idx;
}

static const char *cpu_str(int64_t milli, char *buf, size_t cap) {
    kp_quantity_format_milli(milli, KP_QFMT_DECIMAL_SI, buf, cap);
    return buf;
}
static const char *mem_str(int64_t bytes, char *buf, size_t cap) {
    kp_quantity_format_int(bytes, KP_QFMT_BINARY_SI, buf, cap);
    return buf;
}
static int pct(int64_t a, int64_t b) { return b > 0 ? (int)(a * 100 / b) : 0; }

typedef struct {
    uint32_t qos[3];
    uint32_t *by_class; /* indexed by class index; last slot = no class */
} node_counts;

/* pods of class index, or n_classes for none/missing */
static uint32_t class_index(const kp_cluster *cl, const kp_pod *p) {
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].name == p->priority_class) return i;
    return cl->n_classes;
}

typedef struct {
    uint32_t pending, terminating, nominated, class_missing, unbound_terminal;
} pod_stats;

static void collect_warnings(const kp_cluster *cl, pod_stats *ps, char ***out, uint32_t *n_out) {
    char **w = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        char ref[300], line[700];
        line[0] = 0;
        if (!p->node_name && !kp__pod_is_terminal(p) && p->deletion_ts == KP_TIME_NONE) ps->pending++;
        if (p->deletion_ts != KP_TIME_NONE) {
            ps->terminating++;
            snprintf(line, sizeof line, "Pod %s is terminating (deletionTimestamp set): it still holds its resources%s",
                     kp__pod_ref(cl, p, ref, sizeof ref),
                     kp__pod_has_condition(cl, p, "DisruptionTarget", "True", "PreemptionByScheduler") ? "; it is a preemption victim" : "");
        } else if (p->nominated_node) {
            ps->nominated++;
            snprintf(line, sizeof line, "Pod %s is nominated to node %s: it reserves room there for pods of equal or lower priority",
                     kp__pod_ref(cl, p, ref, sizeof ref), kp__s(cl, p->nominated_node));
        } else if (p->class_missing) {
            ps->class_missing++;
            snprintf(line, sizeof line, "Pod %s has priority %d from PriorityClass %s, which no longer exists",
                     kp__pod_ref(cl, p, ref, sizeof ref), p->priority, kp__s(cl, p->priority_class));
        }
        if (!line[0]) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nw = kp_realloc(w, cap * sizeof *nw);
            if (!nw) break;
            w = nw;
        }
        w[n++] = kp_strdup(line);
    }
    *out = w;
    *n_out = n;
}

int kp_cmd_inspect(int argc, char **argv) {
    kp_cli_common c;
    memset(&c, 0, sizeof c);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Overview of a cluster snapshot: per node allocatable vs requested cpu/memory/pods,\n"
                   "pods by QoS class and priority class; PriorityClasses; PodDisruptionBudgets;\n"
                   "warnings for state that changes decisions (terminating pods, nominations,\n"
                   "pods whose PriorityClass was deleted).\n\nusage: %s\n", USAGE);
            return KP_EXIT_OK;
        }
        int r = kp_cli_common_arg(&c, argc, argv, &i);
        if (r < 0) return KP_EXIT_USAGE;
        if (r == 0) return kp_cli_usage_error("inspect", USAGE, "unknown argument \"%s\"", argv[i]);
    }
    if (c.n_files == 0) return kp_cli_usage_error("inspect", USAGE, "at least one -f is required");
    kp_cluster *cl = kp_cli_load(&c);
    if (!cl) return KP_EXIT_ERROR;
    g_cl = cl;

    uint32_t *nodes = sorted_idx(cl->n_nodes, node_cmp);
    uint32_t *classes = sorted_idx(cl->n_classes, class_cmp);
    uint32_t *pdbs = sorted_idx(cl->n_pdbs, pdb_cmp);
    uint32_t nc = cl->n_classes + 1;
    uint32_t *by_class = kp_calloc((size_t)cl->n_nodes * nc + 1, sizeof *by_class);
    uint32_t *qos = kp_calloc((size_t)cl->n_nodes * 3 + 1, sizeof *qos);
    uint32_t *class_total = kp_calloc(nc, sizeof *class_total);
    if (!nodes || !classes || !pdbs || !by_class || !qos || !class_total) {
        fprintf(stderr, "kprio: out of memory\n");
        exit(KP_EXIT_ERROR);
    }
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        uint32_t ci = class_index(cl, p);
        class_total[ci]++;
        if (p->node < 0) continue;
        by_class[(size_t)p->node * nc + ci]++;
        qos[(size_t)p->node * 3 + p->qos]++;
    }
    pod_stats ps = {0};
    char **warn = NULL;
    uint32_t n_warn = 0;
    collect_warnings(cl, &ps, &warn, &n_warn);
    char b1[64], b2[64];

    if (c.out == KP_OUT_TABLE) {
        printf("Cluster: %u nodes, %u pods (%u pending), %u PriorityClasses, %u PodDisruptionBudgets\n\n", cl->n_nodes,
               cl->n_pods, ps.pending, cl->n_classes, cl->n_pdbs);
        kp_table *t = kp_table_new(7);
        const char *hdr[] = {"NODE", "CPU REQ/ALLOC", "MEMORY REQ/ALLOC", "PODS", "QOS G/B/BE", "PRIORITY CLASSES", "FLAGS"};
        for (int i = 0; i < 7; i++) kp_table_add(t, hdr[i]);
        for (uint32_t k = 0; k < cl->n_nodes; k++) {
            const kp_node *n = &cl->nodes[nodes[k]];
            kp_table_add(t, kp__s(cl, n->name));
            kp_table_addf(t, "%s/%s (%d%%)", cpu_str(n->requested[KP_RES_CPU], b1, sizeof b1),
                          cpu_str(n->alloc[KP_RES_CPU], b2, sizeof b2), pct(n->requested[KP_RES_CPU], n->alloc[KP_RES_CPU]));
            kp_table_addf(t, "%s/%s (%d%%)", mem_str(n->requested[KP_RES_MEM], b1, sizeof b1),
                          mem_str(n->alloc[KP_RES_MEM], b2, sizeof b2), pct(n->requested[KP_RES_MEM], n->alloc[KP_RES_MEM]));
            kp_table_addf(t, "%u/%lld", n->n_pods, (long long)n->alloc[KP_RES_PODS]);
            const uint32_t *q = &qos[(size_t)nodes[k] * 3];
            kp_table_addf(t, "%u/%u/%u", q[KP_QOS_GUARANTEED], q[KP_QOS_BURSTABLE], q[KP_QOS_BESTEFFORT]);
            char pcs[512] = "";
            size_t used = 0;
            for (uint32_t j = 0; j < nc; j++) {
                uint32_t ci = j < cl->n_classes ? classes[j] : cl->n_classes;
                uint32_t cnt = by_class[(size_t)nodes[k] * nc + ci];
                if (!cnt) continue;
                int w = snprintf(pcs + used, sizeof pcs - used, "%s%s=%u", used ? "," : "",
                                 ci < cl->n_classes ? kp__s(cl, cl->classes[ci].name) : "<none>", cnt);
                if (w < 0 || (size_t)w >= sizeof pcs - used) break;
                used += (size_t)w;
            }
            kp_table_add(t, used ? pcs : "<none>");
            char flags[128] = "";
            snprintf(flags, sizeof flags, "%s%s", n->unschedulable ? "Unschedulable " : "", n->n_taints ? "Tainted" : "");
            kp_table_add(t, flags[0] ? flags : "-");
        }
        kp_table_print(t, stdout);
        kp_table_free(t);
        printf("\n");
        t = kp_table_new(5);
        const char *h2[] = {"PRIORITYCLASS", "VALUE", "GLOBAL-DEFAULT", "PREEMPTIONPOLICY", "PODS"};
        for (int i = 0; i < 5; i++) kp_table_add(t, h2[i]);
        for (uint32_t k = 0; k < cl->n_classes; k++) {
            const kp_priority_class *pc = &cl->classes[classes[k]];
            kp_table_add(t, kp__s(cl, pc->name));
            kp_table_addf(t, "%d", pc->value);
            kp_table_add(t, pc->global_default ? "true" : "false");
            kp_table_add(t, pc->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
            kp_table_addf(t, "%u", class_total[classes[k]]);
        }
        kp_table_print(t, stdout);
        kp_table_free(t);
        if (cl->n_pdbs) {
            printf("\n");
            t = kp_table_new(5);
            const char *h3[] = {"PDB", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "DISRUPTED PODS"};
            for (int i = 0; i < 5; i++) kp_table_add(t, h3[i]);
            for (uint32_t k = 0; k < cl->n_pdbs; k++) {
                const kp_pdb *b = &cl->pdbs[pdbs[k]];
                kp_table_addf(t, "%s/%s", kp__s(cl, b->ns), kp__s(cl, b->name));
                kp_table_add(t, b->has_min_available ? kp__s(cl, b->min_available) : "N/A");
                kp_table_add(t, b->has_max_unavailable ? kp__s(cl, b->max_unavailable) : "N/A");
                if (b->has_status) kp_table_addf(t, "%d", b->disruptions_allowed);
                else kp_table_add(t, "<unknown>");
                kp_table_addf(t, "%u", b->n_disrupted);
            }
            kp_table_print(t, stdout);
            kp_table_free(t);
        }
        if (n_warn) {
            printf("\nWarnings (state that changes decisions):\n");
            for (uint32_t i = 0; i < n_warn; i++) printf("  - %s\n", warn[i]);
        }
    } else {
        kp_emit *e = kp_emit_new(stdout, c.out);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
        kp_emit_kv_str(e, "kind", "ClusterInspection");
        kp_emit_key(e, "summary");
        kp_emit_obj_begin(e);
        kp_emit_kv_int(e, "nodes", cl->n_nodes);
        kp_emit_kv_int(e, "pods", cl->n_pods);
        kp_emit_kv_int(e, "pendingPods", ps.pending);
        kp_emit_kv_int(e, "terminatingPods", ps.terminating);
        kp_emit_kv_int(e, "nominatedPods", ps.nominated);
        kp_emit_kv_int(e, "priorityClasses", cl->n_classes);
        kp_emit_kv_int(e, "podDisruptionBudgets", cl->n_pdbs);
        kp_emit_obj_end(e);
        kp_emit_key(e, "nodes");
        kp_emit_arr_begin(e);
        for (uint32_t k = 0; k < cl->n_nodes; k++) {
            const kp_node *n = &cl->nodes[nodes[k]];
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "name", kp__s(cl, n->name));
            kp_emit_kv_bool(e, "unschedulable", n->unschedulable);
            for (int which = 0; which < 2; which++) {
                const int64_t *v = which ? n->requested : n->alloc;
                kp_emit_key(e, which ? "requested" : "allocatable");
                kp_emit_obj_begin(e);
                kp_emit_kv_str(e, "cpu", cpu_str(v[KP_RES_CPU], b1, sizeof b1));
                kp_emit_kv_str(e, "memory", mem_str(v[KP_RES_MEM], b1, sizeof b1));
                kp_emit_kv_int(e, "pods", which ? n->n_pods : v[KP_RES_PODS]);
                kp_emit_obj_end(e);
            }
            kp_emit_key(e, "percentRequested");
            kp_emit_obj_begin(e);
            kp_emit_kv_int(e, "cpu", pct(n->requested[KP_RES_CPU], n->alloc[KP_RES_CPU]));
            kp_emit_kv_int(e, "memory", pct(n->requested[KP_RES_MEM], n->alloc[KP_RES_MEM]));
            kp_emit_kv_int(e, "pods", pct(n->n_pods, n->alloc[KP_RES_PODS]));
            kp_emit_obj_end(e);
            const uint32_t *q = &qos[(size_t)nodes[k] * 3];
            kp_emit_key(e, "podsByQOSClass");
            kp_emit_obj_begin(e);
            kp_emit_kv_int(e, "Guaranteed", q[KP_QOS_GUARANTEED]);
            kp_emit_kv_int(e, "Burstable", q[KP_QOS_BURSTABLE]);
            kp_emit_kv_int(e, "BestEffort", q[KP_QOS_BESTEFFORT]);
            kp_emit_obj_end(e);
            kp_emit_key(e, "podsByPriorityClass");
            kp_emit_obj_begin(e);
            for (uint32_t j = 0; j < nc; j++) {
                uint32_t ci = j < cl->n_classes ? classes[j] : cl->n_classes;
                uint32_t cnt = by_class[(size_t)nodes[k] * nc + ci];
                if (cnt) kp_emit_kv_int(e, ci < cl->n_classes ? kp__s(cl, cl->classes[ci].name) : "", cnt);
            }
            kp_emit_obj_end(e);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_key(e, "priorityClasses");
        kp_emit_arr_begin(e);
        for (uint32_t k = 0; k < cl->n_classes; k++) {
            const kp_priority_class *pc = &cl->classes[classes[k]];
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "name", kp__s(cl, pc->name));
            kp_emit_kv_int(e, "value", pc->value);
            kp_emit_kv_bool(e, "globalDefault", pc->global_default);
            kp_emit_kv_str(e, "preemptionPolicy", pc->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
            kp_emit_kv_int(e, "pods", class_total[classes[k]]);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_key(e, "podDisruptionBudgets");
        kp_emit_arr_begin(e);
        for (uint32_t k = 0; k < cl->n_pdbs; k++) {
            const kp_pdb *b = &cl->pdbs[pdbs[k]];
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "namespace", kp__s(cl, b->ns));
            kp_emit_kv_str(e, "name", kp__s(cl, b->name));
            if (b->has_min_available) kp_emit_kv_str(e, "minAvailable", kp__s(cl, b->min_available));
            if (b->has_max_unavailable) kp_emit_kv_str(e, "maxUnavailable", kp__s(cl, b->max_unavailable));
            kp_emit_key(e, "disruptionsAllowed");
            if (b->has_status) kp_emit_int(e, b->disruptions_allowed);
            else kp_emit_null(e);
            kp_emit_kv_int(e, "disruptedPods", b->n_disrupted);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_key(e, "warnings");
        kp_emit_arr_begin(e);
        for (uint32_t i = 0; i < n_warn; i++) kp_emit_str(e, warn[i]);
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
        kp_emit_free(e);
    }
    for (uint32_t i = 0; i < n_warn; i++) kp_free(warn[i]);
    kp_free(warn);
    kp_free(nodes);
    kp_free(classes);
    kp_free(pdbs);
    kp_free(by_class);
    kp_free(qos);
    kp_free(class_total);
    kp_cluster_free(cl);
    return KP_EXIT_OK;
}
