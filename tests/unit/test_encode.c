/* kp_cluster_encode_json (include/kprio/encode.h): the cluster written back as a v1 List loads
 * again into the same model. For every golden case's input (and the bundled example): load ->
 * encode -> load the text into a fresh cluster -> encode again gives the same bytes, and the
 * scheduler decides the same on both clusters (every result: outcome, node, nominated node,
 * victims by name, message); the state a scheduling run leaves (bindings, nominations,
 * terminating victims with their DisruptionTarget condition) survives the round trip too. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"
#include "kprio/encode.h"
#include "kprio/sched.h"

typedef struct {
    char *buf;
    size_t len, cap;
    size_t fail_at; /* KP_EIO once this many bytes were written (0: never) */
} sink;

static kp_status sink_write(void *ctx, const char *b, size_t n) {
    sink *s = ctx;
    if (s->fail_at && s->len + n >= s->fail_at) return KP_EIO;
    if (s->len + n + 1 > s->cap) {
        size_t cap = (s->len + n + 1) * 2;
        char *nb = realloc(s->buf, cap);
        if (!nb) return KP_ENOMEM;
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, b, n);
    s->len += n;
    s->buf[s->len] = 0;
    return KP_OK;
}

static char *encode(const kp_cluster *cl, bool pretty, size_t *len) {
    sink s = {0};
    kp_encode_options o;
    kp_encode_options_init(&o);
    o.pretty = pretty;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cluster_encode_json(cl, &o, sink_write, &s, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) fprintf(stderr, "  encode: %s\n", err.msg);
    *len = s.len;
    return s.buf ? s.buf : calloc(1, 1);
}

/* What a golden case runs: its inputs and the settings that change the model or the run. */
typedef struct {
    char dir[320];
    char files[8][512];
    int n_files;
    bool recursive;
    unsigned flags; /* kp_cluster_set_expand */
    char gates[512];
    char config[512];
    char compat[16];
    bool until_settled;
    bool sched; /* schedule / why: the configuration applies */
} golden;

static kp_cluster *load(const golden *g, unsigned flags, bool quiet) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp_status st = cl ? kp_cluster_set_expand(cl, flags) : KP_ENOMEM;
    if (st == KP_OK && g->gates[0]) {
        kp_feature_gates fg = *kp_cluster_feature_gates(cl);
        st = kp_feature_gates_parse(&fg, g->gates, &err);
        if (st == KP_OK) st = kp_cluster_set_feature_gates(cl, &fg);
    }
    for (int i = 0; i < g->n_files && st == KP_OK; i++)
        st = kp_cluster_load_path(cl, g->files[i], g->recursive, &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    if (st == KP_OK) st = kp_ctrl_expand(cl, &err);
    if (st != KP_OK) {
        if (!quiet) fprintf(stderr, "  %s: %s: %s\n", g->dir, err.source, err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* The same settings, the objects of text instead of the files. */
static kp_cluster *reload(const golden *g, unsigned flags, const char *text, size_t len) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    /* expansion happened already: its pods are in the text; templates are read as before */
    kp_status st = kp_cluster_set_expand(cl, flags ? KP_WORKLOAD_TEMPLATES : 0);
    if (st == KP_OK && g->gates[0]) {
        kp_feature_gates fg = *kp_cluster_feature_gates(cl);
        st = kp_feature_gates_parse(&fg, g->gates, &err);
        if (st == KP_OK) st = kp_cluster_set_feature_gates(cl, &fg);
    }
    if (st == KP_OK) st = kp_cluster_load_buffer(cl, "encoded.json", text, len, &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) {
        fprintf(stderr, "  %s: reloading the encoded text: %s: %s\n", g->dir, err.source, err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_sched *run_sched(const golden *g, kp_cluster *cl) {
    kp_sched_config *cfg = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (g->sched && g->config[0] && kp_sched_config_load_path(g->config, NULL, &cfg, &err) != KP_OK)
        cfg = NULL;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = 1;
    o.until_settled = g->until_settled;
    o.compat = g->compat[0] ? g->compat : NULL;
    kp_sched *s = NULL;
    kp_status st = kp_sched_new(cl, cfg, &o, &s, &err);
    if (st == KP_OK) st = kp_sched_run(s, &err);
    kp_sched_config_free(cfg);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) {
        fprintf(stderr, "  %s: scheduling: %s\n", g->dir, err.msg);
        kp_sched_free(s);
        return NULL;
    }
    return s;
}

static const char *pod_ref(const kp_cluster *cl, kp_index p, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(cl, p), kp_cluster_pod_name(cl, p));
    return buf;
}

/* Every result of two runs is the same, by names. */
static bool same_results(const char *what, const kp_cluster *ca, const kp_sched *a,
                         const kp_cluster *cb, const kp_sched *b) {
    size_t n = kp_sched_result_count(a);
    if (n != kp_sched_result_count(b)) {
        fprintf(stderr, "  %s: %zu results, after the round trip %zu\n", what, n,
                kp_sched_result_count(b));
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const kp_sched_pod_result *x = kp_sched_result(a, i), *y = kp_sched_result(b, i);
        char px[600], py[600];
        pod_ref(ca, x->pod, px, sizeof px);
        pod_ref(cb, y->pod, py, sizeof py);
        bool same =
            strcmp(px, py) == 0 && x->outcome == y->outcome && x->priority == y->priority &&
            x->n_victims == y->n_victims && x->pdb_violations == y->pdb_violations &&
            strcmp(kp_cluster_node_name(ca, x->node), kp_cluster_node_name(cb, y->node)) == 0 &&
            strcmp(kp_cluster_node_name(ca, x->nominated_node),
                   kp_cluster_node_name(cb, y->nominated_node)) == 0 &&
            strcmp(x->message, y->message) == 0 && strcmp(x->decided_by, y->decided_by) == 0;
        for (size_t v = 0; same && v < x->n_victims; v++) {
            char vx[600], vy[600];
            same = strcmp(pod_ref(ca, x->victims[v], vx, sizeof vx),
                          pod_ref(cb, y->victims[v], vy, sizeof vy)) == 0 &&
                   strcmp(kp_cluster_node_name(ca, x->victim_nodes[v]),
                          kp_cluster_node_name(cb, y->victim_nodes[v])) == 0;
        }
        if (!same) {
            fprintf(stderr,
                    "  %s: result %zu differs: %s %d node=%s nom=%s \"%s\" | %s %d node=%s "
                    "nom=%s \"%s\"\n",
                    what, i, px, (int)x->outcome, kp_cluster_node_name(ca, x->node),
                    kp_cluster_node_name(ca, x->nominated_node), x->message, py, (int)y->outcome,
                    kp_cluster_node_name(cb, y->node), kp_cluster_node_name(cb, y->nominated_node),
                    y->message);
            return false;
        }
    }
    return true;
}

#define SAME(what, x, y)                                                                          \
    do {                                                                                          \
        if ((long long)(x) != (long long)(y)) {                                                   \
            fprintf(stderr, "  %s: %s %u: %s: %lld, after the round trip %lld\n", where, what, i, \
                    #x, (long long)(x), (long long)(y));                                          \
            ok = false;                                                                           \
        }                                                                                         \
    } while (0)
#define SAME_STR(what, x, y)                                                                       \
    do {                                                                                           \
        if (strcmp(x, y) != 0) {                                                                   \
            fprintf(stderr, "  %s: %s %u: %s: \"%s\", after the round trip \"%s\"\n", where, what, \
                    i, #x, x, y);                                                                  \
            ok = false;                                                                            \
        }                                                                                          \
    } while (0)

/* an interned string of x and of y, by content */
#define SAME_SID(what, f) SAME_STR(what, kp__s(a, x->f), kp__s(b, y->f))

/* requirements (`key op values`) by content */
static bool same_reqs(const char *where, const kp_cluster *a, const kp_cluster *b, uint16_t n,
                      const kp_selreq *xs, const kp_selreq *ys) {
    bool ok = true;
    for (unsigned i = 0; i < n && ok; i++) {
        const kp_selreq *x = &xs[i], *y = &ys[i];
        SAME_SID("requirement", key);
        SAME("requirement", x->op, y->op);
        SAME("requirement", x->n_values, y->n_values);
        for (uint16_t v = 0; v < x->n_values && ok; v++)
            SAME_STR("requirement", kp__s(a, x->values[v]), kp__s(b, y->values[v]));
    }
    return ok;
}

/* The storage objects, field by field (core/volume.h): every value the decoders keep, derived
 * ones too (a PV's in-tree migration). */
static bool same_volumes(const char *where, const kp_cluster *a, const kp_cluster *b) {
    bool ok = true;
    unsigned i = 0;
    for (int k = 0; k < KP_VK_KINDS && ok; k++) SAME("storage objects", a->vol.n[k], b->vol.n[k]);
    for (i = 0; i < a->vol.n[KP_VK_PV] && ok; i++) {
        const kp_pv *x = &a->vol.pvs[i], *y = &b->vol.pvs[i];
        SAME_SID("pv", name);
        SAME("pv", x->labels.n, y->labels.n);
        SAME_SID("pv", class_name);
        SAME_SID("pv", claim_ns);
        SAME_SID("pv", claim_name);
        SAME_SID("pv", claim_uid);
        SAME_SID("pv", csi_driver);
        SAME_SID("pv", csi_handle);
        SAME_SID("pv", mig_driver);
        SAME_SID("pv", mig_handle);
        SAME_SID("pv", vac);
        SAME("pv", x->has_csi + 2 * x->block + 4 * x->deleting + 8 * x->has_claim_ref,
             y->has_csi + 2 * y->block + 4 * y->deleting + 8 * y->has_claim_ref);
        SAME("pv", x->capacity, y->capacity);
        SAME("pv", x->phase, y->phase);
        SAME("pv", x->access_modes, y->access_modes);
        SAME("pv", x->has_affinity, y->has_affinity);
        SAME("pv", x->n_terms, y->n_terms);
        for (uint16_t t = 0; t < x->n_terms && ok; t++) {
            SAME("pv", x->terms[t].n_exprs, y->terms[t].n_exprs);
            SAME("pv", x->terms[t].n_fields, y->terms[t].n_fields);
            ok = ok &&
                 same_reqs(where, a, b, x->terms[t].n_exprs, x->terms[t].exprs, y->terms[t].exprs);
            ok = ok && same_reqs(where, a, b, x->terms[t].n_fields, x->terms[t].fields,
                                 y->terms[t].fields);
        }
    }
    for (i = 0; i < a->vol.n[KP_VK_PVC] && ok; i++) {
        const kp_pvc *x = &a->vol.pvcs[i], *y = &b->vol.pvcs[i];
        SAME_SID("pvc", ns);
        SAME_SID("pvc", name);
        SAME_SID("pvc", uid);
        SAME_SID("pvc", volume_name);
        SAME_SID("pvc", class_name);
        SAME_SID("pvc", selected_node);
        SAME_SID("pvc", vac);
        SAME("pvc", x->bind_completed + 2 * x->block, y->bind_completed + 2 * y->block);
        SAME("pvc", x->access_modes, y->access_modes);
        SAME("pvc", x->phase, y->phase);
        SAME("pvc", x->request, y->request);
        SAME("pvc", x->has_request, y->has_request);
        SAME("pvc", x->selector.is_set, y->selector.is_set);
        SAME("pvc", x->selector.match_labels.n, y->selector.match_labels.n);
        SAME("pvc", x->selector.n_exprs, y->selector.n_exprs);
        ok =
            ok && same_reqs(where, a, b, x->selector.n_exprs, x->selector.exprs, y->selector.exprs);
    }
    for (i = 0; i < a->vol.n[KP_VK_SC] && ok; i++) {
        const kp_storage_class *x = &a->vol.classes[i], *y = &b->vol.classes[i];
        SAME_SID("class", name);
        SAME_SID("class", provisioner);
        SAME("class", x->binding_mode, y->binding_mode);
        SAME("class", x->n_topo, y->n_topo);
        for (uint16_t t = 0; t < x->n_topo && ok; t++) {
            SAME("class", x->topo[t].n_exprs, y->topo[t].n_exprs);
            ok = ok &&
                 same_reqs(where, a, b, x->topo[t].n_exprs, x->topo[t].exprs, y->topo[t].exprs);
        }
    }
    for (i = 0; i < a->vol.n[KP_VK_CSINODE] && ok; i++) {
        const kp_csinode *x = &a->vol.csinodes[i], *y = &b->vol.csinodes[i];
        SAME_SID("csinode", name);
        SAME("csinode", x->n_drivers, y->n_drivers);
        for (uint16_t d = 0; d < x->n_drivers && ok; d++) {
            SAME_SID("csinode", drivers[d].name);
            SAME("csinode", x->drivers[d].has_count, y->drivers[d].has_count);
            SAME("csinode", x->drivers[d].count, y->drivers[d].count);
        }
    }
    for (i = 0; i < a->vol.n[KP_VK_CSIDRIVER] && ok; i++) {
        const kp_csidriver *x = &a->vol.drivers[i], *y = &b->vol.drivers[i];
        SAME_SID("csidriver", name);
        SAME("csidriver", x->attach_required, y->attach_required);
        SAME("csidriver", x->storage_capacity, y->storage_capacity);
    }
    for (i = 0; i < a->vol.n[KP_VK_CSISC] && ok; i++) {
        const kp_csi_capacity *x = &a->vol.capacities[i], *y = &b->vol.capacities[i];
        SAME_SID("capacity", ns);
        SAME_SID("capacity", name);
        SAME_SID("capacity", class_name);
        SAME("capacity", x->has_capacity + 2 * x->has_max, y->has_capacity + 2 * y->has_max);
        SAME("capacity", x->capacity, y->capacity);
        SAME("capacity", x->max_size, y->max_size);
        SAME("capacity", x->topology.is_set, y->topology.is_set);
        SAME("capacity", x->topology.match_labels.n, y->topology.match_labels.n);
        SAME("capacity", x->topology.n_exprs, y->topology.n_exprs);
        ok =
            ok && same_reqs(where, a, b, x->topology.n_exprs, x->topology.exprs, y->topology.exprs);
    }
    for (i = 0; i < a->vol.n[KP_VK_VA] && ok; i++) {
        const kp_volume_attachment *x = &a->vol.attachments[i], *y = &b->vol.attachments[i];
        SAME_SID("attachment", name);
        SAME_SID("attachment", attacher);
        SAME_SID("attachment", node_name);
        SAME_SID("attachment", pv_name);
    }
    return ok;
}

/* A pod's volumes, one by one (the sources the volume plugins read, the derived CSI handle of a
 * migrated in-tree disk). */
static bool same_pod_volumes(const char *where, const kp_cluster *a, const kp_pod *px,
                             const kp_cluster *b, const kp_pod *py) {
    bool ok = true;
    for (unsigned i = 0; i < px->n_volumes && i < py->n_volumes && ok; i++) {
        const kp_volume *x = &px->volumes[i], *y = &py->volumes[i];
        SAME_SID("pod volume", name);
        SAME("pod volume", x->source, y->source);
        SAME("pod volume", x->is_empty_dir + 2 * x->is_local + 4 * x->read_only,
             y->is_empty_dir + 2 * y->is_local + 4 * y->read_only);
        SAME("pod volume", x->size_limit, y->size_limit);
        SAME_SID("pod volume", claim);
        SAME_SID("pod volume", disk);
        SAME_SID("pod volume", pool);
        SAME_SID("pod volume", csi_handle);
        SAME("pod volume", x->n_monitors, y->n_monitors);
    }
    return ok;
}

/* an int-or-string count as written ("+2") and as the encoder writes it (2) */
static const char *unplus(const char *s) { return s + (s[0] == '+'); }

/* The scalar facts of every object are the same in both models (objects in the same order: the
 * encoder writes each kind in load order). A value the encoder lost would load the same way
 * twice, so the byte comparison alone would not see it. */
static bool same_model(const char *where, const kp_cluster *a, const kp_cluster *b) {
    bool ok = true;
    unsigned i = 0;
    uint32_t gone = 0; /* pods that left their node (until-settled victims) are not written */
    for (uint32_t k = 0; k < a->n_pods; k++)
        gone += a->pods[k].node < 0 && a->pods[k].node_name && !kp__pod_is_terminal(&a->pods[k]) &&
                kp_cluster_find_node(a, kp__s(a, a->pods[k].node_name)) >= 0;
    SAME("pods", a->n_pods - gone, b->n_pods);
    SAME("nodes", a->n_nodes, b->n_nodes);
    SAME("workloads", a->n_workloads, b->n_workloads);
    SAME("pdbs", a->n_pdbs, b->n_pdbs);
    if (!ok) return false;
    for (uint32_t j = 0; j < a->n_pods && ok; j++) {
        const kp_pod *x = &a->pods[j], *y = &b->pods[i];
        if (x->node < 0 && x->node_name && !kp__pod_is_terminal(x) &&
            kp_cluster_find_node(a, kp__s(a, x->node_name)) >= 0)
            continue;
        SAME_STR("pod", kp__s(a, x->name), kp__s(b, y->name));
        SAME_STR("pod", kp__s(a, x->node_name), kp__s(b, y->node_name));
        SAME_STR("pod", kp__s(a, x->nominated_node), kp__s(b, y->nominated_node));
        SAME_STR("pod", kp__s(a, x->priority_class), kp__s(b, y->priority_class));
        if (!x->node_name) /* a bound pod's gates are not written */
            SAME_STR("pod", kp__s(a, x->gates), kp__s(b, y->gates));
        SAME("pod", x->priority, y->priority);
        SAME("pod", x->preemption_policy, y->preemption_policy);
        SAME("pod", x->creation_ts, y->creation_ts);
        SAME("pod", x->deletion_ts, y->deletion_ts);
        SAME("pod", x->start_time, y->start_time);
        SAME("pod", x->termination_grace, y->termination_grace);
        SAME("pod", x->phase, y->phase);
        SAME("pod", x->qos, y->qos);
        SAME("pod", x->is_static + 2 * x->is_mirror + 4 * x->is_critical,
             y->is_static + 2 * y->is_mirror + 4 * y->is_critical);
        SAME("pod", x->labels.n, y->labels.n);
        SAME("pod", x->n_containers + 65536 * x->n_init, y->n_containers + 65536 * y->n_init);
        SAME("pod", x->n_volumes, y->n_volumes);
        SAME("pod", x->n_image_volumes, y->n_image_volumes);
        ok = ok && same_pod_volumes(where, a, x, b, y);
        SAME("pod", x->n_tolerations, y->n_tolerations);
        SAME("pod", x->n_spread, y->n_spread);
        SAME("pod", x->n_conditions, y->n_conditions);
        SAME("pod", x->n_owners, y->n_owners);
        SAME("pod", x->resize != NULL, y->resize != NULL);
        SAME("pod", x->node, y->node);
        SAME("pod", x->nz_cpu, y->nz_cpu);
        SAME("pod", x->nz_mem, y->nz_mem);
        i++;
    }
    for (i = 0; i < a->n_nodes && ok; i++) {
        const kp_node *x = &a->nodes[i], *y = &b->nodes[i];
        SAME_STR("node", kp__s(a, x->name), kp__s(b, y->name));
        SAME("node", x->unschedulable, y->unschedulable);
        SAME("node", x->n_taints, y->n_taints);
        SAME("node", x->n_images, y->n_images);
        SAME("node", x->n_conditions, y->n_conditions);
        SAME("node", x->labels.n, y->labels.n);
        SAME("node", x->n_pods, y->n_pods);
        for (uint32_t r = 0; r < a->n_res; r++) {
            int s = -1; /* the same resource by name in b */
            for (uint32_t k = 0; k < b->n_res; k++)
                if (strcmp(kp__s(a, a->res_names[r]), kp__s(b, b->res_names[k])) == 0) s = (int)k;
            SAME("node", x->alloc[r], s >= 0 ? y->alloc[s] : 0);
            SAME("node", x->cap[r], s >= 0 ? y->cap[s] : 0);
            SAME("node", x->requested[r], s >= 0 ? y->requested[s] : 0);
        }
    }
    for (i = 0; i < a->n_workloads && ok; i++) {
        const kp_workload *x = &a->workloads[i], *y = &b->workloads[i];
        SAME_STR("workload", kp__s(a, x->name), kp__s(b, y->name));
        SAME_STR("workload", kp__s(a, x->owner_name), kp__s(b, y->owner_name));
        SAME("workload", x->kind, y->kind);
        SAME("workload", x->replicas, y->replicas);
        SAME("workload", x->template != NULL, y->template != NULL);
        SAME("workload", x->has_map, y->has_map);
        SAME("workload", x->sel.is_set, y->sel.is_set);
        SAME("workload", x->strategy.type, y->strategy.type);
        SAME("workload", x->strategy.partition, y->strategy.partition);
        SAME("workload", x->strategy.max_surge.value, y->strategy.max_surge.value);
        SAME("workload", x->strategy.max_unavailable.value, y->strategy.max_unavailable.value);
        SAME("workload", x->strategy.max_surge.percent, y->strategy.max_surge.percent);
        SAME("workload", x->paused + 2 * x->parallel_pods, y->paused + 2 * y->parallel_pods);
        SAME("workload", x->ordinals_start, y->ordinals_start);
        SAME("workload", x->job.parallelism, y->job.parallelism);
        SAME("workload", x->job.completions, y->job.completions);
        SAME("workload", x->job.has_completions + 2 * x->job.indexed + 4 * x->job.suspend,
             y->job.has_completions + 2 * y->job.indexed + 4 * y->job.suspend);
        SAME("workload", x->job.replacement, y->job.replacement);
        SAME("workload", x->job.succeeded + 1000 * x->job.failed,
             y->job.succeeded + 1000 * y->job.failed);
        SAME("workload", x->job.active + 2 * x->job.finished, y->job.active + 2 * y->job.finished);
        SAME("workload", x->suspend + 2 * x->concurrency, y->suspend + 2 * y->concurrency);
        SAME("workload", x->n_active_jobs, y->n_active_jobs);
    }
    for (i = 0; i < a->n_pdbs && ok; i++) {
        const kp_pdb *x = &a->pdbs[i], *y = &b->pdbs[i];
        SAME_STR("pdb", kp__s(a, x->name), kp__s(b, y->name));
        SAME_STR("pdb", unplus(kp__s(a, x->min_available)), kp__s(b, y->min_available));
        SAME_STR("pdb", unplus(kp__s(a, x->max_unavailable)), kp__s(b, y->max_unavailable));
        SAME("pdb", x->has_status, y->has_status);
        SAME("pdb", x->disruptions_allowed, y->disruptions_allowed);
        SAME("pdb", x->current_healthy + 1000 * x->desired_healthy,
             y->current_healthy + 1000 * y->desired_healthy);
        SAME("pdb", x->expected_pods, y->expected_pods);
        SAME("pdb", x->n_disrupted, y->n_disrupted);
        SAME("pdb", x->selector.is_set, y->selector.is_set);
    }
    return ok && same_volumes(where, a, b);
}

/* The round trip of one input with expansion flags `flags`; false when the input does not load
 * (an error case of the goldens). */
static bool roundtrip(const golden *g, unsigned flags) {
    kp_cluster *c1 = load(g, flags, true);
    if (!c1) return false;
    size_t l1, l2, l3, l4;
    char *e1 = encode(c1, false, &l1);
    kp_cluster *c2 = reload(g, flags, e1, l1);
    char *e2 = c2 ? encode(c2, false, &l2) : NULL;
    bool same = e2 && l1 == l2 && memcmp(e1, e2, l1) == 0;
    KT_CHECK(same);
    KT_CHECK(!c2 || same_model(g->dir, c1, c2));
    if (!same && e2) {
        size_t k = 0;
        while (k < l1 && k < l2 && e1[k] == e2[k]) k++;
        size_t from = k > 80 ? k - 80 : 0;
        fprintf(stderr,
                "  %s: second encoding differs at byte %zu:\n   first: %.200s\n  second: %.200s\n",
                g->dir, k, e1 + from, e2 + from);
    }
    /* the pretty form loads to the same model */
    char *p1 = c2 ? encode(c1, true, &l3) : NULL;
    kp_cluster *c3 = p1 ? reload(g, flags, p1, l3) : NULL;
    char *e3 = c3 ? encode(c3, false, &l4) : NULL;
    KT_CHECK(e3 && l4 == l1 && memcmp(e1, e3, l1) == 0);
    /* the scheduler decides the same on both */
    kp_sched *s1 = c2 ? run_sched(g, c1) : NULL, *s2 = s1 ? run_sched(g, c2) : NULL;
    KT_CHECK(s1 && s2 && same_results(g->dir, c1, s1, c2, s2));
    /* the state the run left (bindings, nominations, terminating victims) round-trips, and a
     * second run over it decides the same as over the original */
    char *f1 = s2 ? encode(c1, false, &l3) : NULL;
    kp_cluster *c4 = f1 ? reload(g, flags, f1, l3) : NULL;
    char *f2 = c4 ? encode(c4, false, &l4) : NULL;
    KT_CHECK(!c4 || same_model(g->dir, c1, c4));
    KT_CHECK(f2 && l3 == l4 && memcmp(f1, f2, l3) == 0);
    kp_sched *t1 = c4 ? run_sched(g, c1) : NULL, *t4 = t1 ? run_sched(g, c4) : NULL;
    char what[400];
    snprintf(what, sizeof what, "%s (second run)", g->dir);
    KT_CHECK(t1 && t4 && same_results(what, c1, t1, c4, t4));
    kp_sched_free(s1);
    kp_sched_free(s2);
    kp_sched_free(t1);
    kp_sched_free(t4);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    kp_cluster_free(c3);
    kp_cluster_free(c4);
    free(e1);
    free(e2);
    free(e3);
    free(p1);
    free(f1);
    free(f2);
    return true;
}

/* Splits an args line into words (single quotes group). */
static int split_args(char *line, char **w, int max) {
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        char *out = p;
        w[n++] = out;
        while (*p && *p != ' ' && *p != '\n') {
            if (*p == '\'') {
                p++;
                while (*p && *p != '\'') *out++ = *p++;
                if (*p) p++;
            } else {
                *out++ = *p++;
            }
        }
        if (*p) p++;
        *out = 0;
    }
    return n;
}

static bool parse_golden(const char *dir, golden *g) {
    memset(g, 0, sizeof *g);
    snprintf(g->dir, sizeof g->dir, "%s", dir);
    char path[600], line[2048];
    snprintf(path, sizeof path, "%s/args", dir);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *w[64];
    int nw = split_args(line, w, 64);
    if (nw < 1) return false;
    g->sched = strcmp(w[0], "schedule") == 0 || strcmp(w[0], "why") == 0;
    for (int i = 1; i < nw; i++) {
        const char *next = i + 1 < nw ? w[i + 1] : NULL;
        if (strcmp(w[i], "-f") == 0 && next && g->n_files < 8 && strcmp(next, "-") != 0)
            snprintf(g->files[g->n_files++], sizeof g->files[0], "%s/%s", dir, next);
        else if (strcmp(w[i], "-R") == 0) g->recursive = true;
        else if (strcmp(w[i], "--expand-workloads") == 0) g->flags |= KP_EXPAND_WORKLOADS;
        else if (strcmp(w[i], "--expand-cronjobs") == 0)
            g->flags |= KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS;
        else if (strcmp(w[i], "--feature-gates") == 0 && next)
            snprintf(g->gates, sizeof g->gates, "%s", next);
        else if (strcmp(w[i], "--config") == 0 && next)
            snprintf(g->config, sizeof g->config, "%s/%s", dir, next);
        else if (strcmp(w[i], "--compat") == 0 && next)
            snprintf(g->compat, sizeof g->compat, "%s", next);
        else if (strcmp(w[i], "--until-settled") == 0) g->until_settled = true;
    }
    return g->n_files > 0;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every golden case whose input loads: with its own settings, and with pod templates decoded. */
KT_TEST(golden_inputs_round_trip) {
    DIR *d = opendir("tests/golden");
    KT_CHECK(d != NULL);
    if (!d) return;
    char *names[1024];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 1024)
        if (de->d_name[0] != '.') names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    int loaded = 0, with_templates = 0;
    for (size_t i = 0; i < n; i++) {
        char dir[300];
        snprintf(dir, sizeof dir, "tests/golden/%s", names[i]);
        golden g;
        if (parse_golden(dir, &g)) {
            loaded += roundtrip(&g, g.flags);
            with_templates += roundtrip(&g, g.flags | KP_WORKLOAD_TEMPLATES);
        }
        free(names[i]);
    }
    /* most cases load (the others are error cases) */
    fprintf(stderr, "  %d golden inputs round-tripped (%d with templates)\n", loaded,
            with_templates);
    KT_CHECK(loaded > 150);
    KT_CHECK(with_templates > 150);
}

KT_TEST(example_round_trip) {
    golden g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "examples");
    snprintf(g.files[0], sizeof g.files[0], "examples/cluster.yaml");
    snprintf(g.files[1], sizeof g.files[1], "examples/whatif-critical.yaml");
    g.n_files = 1;
    KT_CHECK(roundtrip(&g, 0));
    KT_CHECK(roundtrip(&g, KP_WORKLOAD_TEMPLATES));
    g.n_files = 2;
    KT_CHECK(roundtrip(&g, 0));
    snprintf(g.files[0], sizeof g.files[0], "examples/admit");
    g.n_files = 1;
    KT_CHECK(roundtrip(&g, 0));
}

/* Fields no golden input has, each away from its default. */
static const char *const RARE[] = {
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: v1, kind: Namespace, metadata: {name: team, labels: {tier: gold}}}\n"
    "- apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: batch}\n"
    "  value: 100\n  globalDefault: true\n  preemptionPolicy: Never\n  description: \"a "
    "\\\"b\\\"\"\n"
    "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    uid: u-n1\n"
    "    creationTimestamp: '1969-12-31T23:59:59Z'\n"
    "    labels: {kubernetes.io/hostname: n1, zone: a}\n"
    "    annotations: {kubernetes.io/config.seen: x, other: dropped}\n"
    "  spec:\n    unschedulable: true\n"
    "    taints: [{key: k, value: v, effect: NoExecute}, {key: e, effect: PreferNoSchedule}]\n"
    "  status:\n    capacity: {cpu: 3500m, memory: '1000000000', pods: '20', example.com/gpu: "
    "'0'}\n"
    "    allocatable: {cpu: '3', memory: 900Mi, pods: '20', hugepages-2Mi: 2Mi}\n"
    "    conditions: [{type: MemoryPressure, status: 'True', reason: R, message: m}]\n"
    "    images: [{names: [a:1, a@sha256:0], sizeBytes: 123456789}]\n"
    "- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: b1, namespace: "
    "team}\n"
    "  spec: {minAvailable: +2, selector: {matchExpressions: [{key: app, operator: Exists}]}}\n"
    "  status: {disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3,\n"
    "           disruptedPods: {p1: '2026-01-01T00:00:00Z'}}\n"
    "- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: b2, namespace: "
    "team}\n"
    "  spec: {maxUnavailable: 50%}\n"
    "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: d, namespace: team, uid: u-d}\n"
    "  spec:\n    replicas: 0\n    paused: true\n    selector: {matchLabels: {app: d}}\n"
    "    strategy: {type: Recreate}\n"
    "    template: {metadata: {labels: {app: d}}, spec: {containers: [{name: c}]}}\n"
    "- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {name: s, namespace: team}\n"
    "  spec:\n    replicas: 2\n    podManagementPolicy: Parallel\n    ordinals: {start: 3}\n"
    "    selector: {matchLabels: {app: s}}\n"
    "    updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1, maxUnavailable: 2}}\n"
    "    template:\n      metadata: {labels: {app: s}}\n"
    "      spec:\n        containers: [{name: c}]\n"
    "        volumes: [{name: data, ephemeral: {volumeClaimTemplate: {spec: {}}}}]\n"
    "- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata: {name: ds, namespace: team}\n"
    "  spec:\n    selector: {matchLabels: {app: ds}}\n    updateStrategy: {type: OnDelete}\n"
    "    template: {metadata: {labels: {app: ds}}, spec: {containers: [{name: c}]}}\n",
    "- apiVersion: batch/v1\n  kind: Job\n  metadata: {name: j, namespace: team}\n"
    "  spec:\n    completions: 5\n    parallelism: 2\n    completionMode: Indexed\n"
    "    suspend: true\n    podFailurePolicy: {rules: []}\n"
    "    template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n"
    "  status: {active: 1, succeeded: 2, failed: 1, completedIndexes: '0,2',\n"
    "           conditions: [{type: Complete, status: 'True'}]}\n"
    "- apiVersion: batch/v1\n  kind: CronJob\n  metadata: {name: cj, namespace: team}\n"
    "  spec:\n    schedule: '*/5 * * * *'\n    suspend: true\n    concurrencyPolicy: Forbid\n"
    "    jobTemplate:\n      metadata: {labels: {job: cj}}\n"
    "      spec: {parallelism: 3, template: {spec: {containers: [{name: c}]}}}\n"
    "  status: {active: [{name: cj-1}, {name: cj-2}]}\n"
    "- {apiVersion: v1, kind: ReplicationController, metadata: {name: rc, namespace: team},\n"
    "   spec: {template: {metadata: {labels: {app: rc}}, spec: {containers: [{name: c}]}}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: svc, namespace: team}, spec: {selector: "
    "{}}}\n",
    "- apiVersion: v1\n  kind: PersistentVolume\n  metadata:\n    name: pv1\n"
    "    labels: {topology.kubernetes.io/zone: a}\n"
    "    annotations: {volume.beta.kubernetes.io/storage-class: fast}\n"
    "    deletionTimestamp: '2026-01-01T00:00:00Z'\n"
    "  spec:\n    accessModes: [ReadWriteOncePod, ReadOnlyMany]\n"
    "    capacity: {storage: 10Gi}\n    volumeMode: Block\n"
    "    volumeAttributesClassName: gold\n"
    "    claimRef: {namespace: team, name: c1, uid: u-c1}\n"
    "    csi: {driver: d.example.com, volumeHandle: h}\n"
    "    nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: "
    "Gt, values: ['1']}]}]}}\n"
    "  status: {phase: Released}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-csi}, spec: {csi: {}, "
    "claimRef: {}},\n   status: {phase: Available}}\n"
    "- apiVersion: v1\n  kind: PersistentVolume\n  metadata:\n    name: pv-gce\n"
    "    labels: {topology.kubernetes.io/zone: us-central1-a__us-central1-b}\n"
    "  spec: {gcePersistentDisk: {pdName: disk-1, fsType: ext4}, capacity: {storage: '1500000'}}\n"
    "- apiVersion: v1\n  kind: PersistentVolume\n  metadata:\n    name: pv-gce-zonal\n"
    "    labels: {failure-domain.beta.kubernetes.io/zone: europe-west1-b}\n"
    "  spec: {gcePersistentDisk: {pdName: disk-2}}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-ebs},\n"
    "   spec: {awsElasticBlockStore: {volumeID: 'aws://us-east-1a/vol-0123'}}}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-ebs-odd},\n"
    "   spec: {awsElasticBlockStore: {volumeID: 'aws://us-east-1a/disk'}}}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-az},\n"
    "   spec: {azureDisk: {diskName: d, diskURI: /subscriptions/s/disks/d}}}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-cinder},\n"
    "   spec: {cinder: {volumeID: c-1}}}\n"
    "- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-px},\n"
    "   spec: {portworxVolume: {volumeID: px-1}}}\n"
    "- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    name: c1\n"
    "    namespace: team\n"
    "    annotations: {volume.kubernetes.io/selected-node: n1, pv.kubernetes.io/bind-completed: "
    "''}\n"
    "    uid: u-c1\n"
    "  spec: {accessModes: [ReadWriteOnce], volumeName: pv1, storageClassName: '',\n"
    "         volumeMode: Block, volumeAttributesClassName: gold,\n"
    "         resources: {requests: {storage: 5Gi}},\n"
    "         selector: {matchLabels: {tier: a}, matchExpressions: [{key: z, operator: In, "
    "values: [x]}]}}\n"
    "  status: {phase: Lost}\n"
    "- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c2, namespace: team},\n"
    "   spec: {selector: {}}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, provisioner: "
    "p,\n"
    "   volumeBindingMode: WaitForFirstConsumer,\n"
    "   allowedTopologies: [{matchLabelExpressions: [{key: zone, values: [a, b]}, {key: r, "
    "values: [x]}]},\n"
    "                       {matchLabelExpressions: []}]}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: plain}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n1},\n"
    "   spec: {drivers: [{name: d.example.com, nodeID: n1, allocatable: {count: 0}}, {name: x, "
    "nodeID: n1}]}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: d.example.com},\n"
    "   spec: {attachRequired: false}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: {name: va},\n"
    "   spec: {attacher: d.example.com, nodeName: n1, source: {persistentVolumeName: pv1}}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: cap.example.com},\n"
    "   spec: {storageCapacity: true}}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: CSIStorageCapacity, metadata: {name: a, namespace: "
    "s},\n"
    "   storageClassName: fast, nodeTopology: {matchExpressions: [{key: zone, operator: In, "
    "values: [a]}]},\n"
    "   capacity: 0, maximumVolumeSize: 2Gi}\n"
    "- {apiVersion: storage.k8s.io/v1, kind: CSIStorageCapacity, metadata: {name: b, namespace: "
    "s},\n"
    "   storageClassName: fast}\n"
    "- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c3, namespace: team},\n"
    "   spec: {resources: {requests: {storage: '0'}}}}\n",
    "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p1\n    namespace: team\n"
    "    labels: {app: s}\n    annotations: {kubernetes.io/config.source: file}\n"
    "    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: s, uid: u, controller: "
    "true}]\n"
    "  spec:\n    nodeName: n1\n    schedulerName: other\n    os: {name: linux}\n"
    "    overhead: {cpu: 10m}\n    resources: {requests: {cpu: 200m}, limits: {memory: 1Gi}}\n"
    "    nodeSelector: {zone: a}\n"
    "    initContainers: [{name: side, restartPolicy: Always, resources: {limits: {cpu: '1'}}},\n"
    "                     {name: init, image: busybox}]\n"
    "    containers:\n    - name: c\n      image: nginx\n"
    "      ports: [{containerPort: 80, hostPort: 8080, protocol: UDP, hostIP: 10.0.0.1},\n"
    "              {containerPort: 81}]\n"
    "    tolerations: [{operator: Exists}, {key: k, value: v, effect: NoExecute, "
    "tolerationSeconds: -5}]\n"
    "    topologySpreadConstraints: [{maxSkew: 2, topologyKey: zone, whenUnsatisfiable: "
    "ScheduleAnyway,\n"
    "      labelSelector: {matchLabels: {app: s}}, matchLabelKeys: [pod-template-hash],\n"
    "      nodeAffinityPolicy: Ignore, nodeTaintsPolicy: Honor}, {maxSkew: 1, topologyKey: zone,\n"
    "      whenUnsatisfiable: DoNotSchedule, minDomains: 2}]\n"
    "    affinity:\n      nodeAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: "
    "[{key: metadata.name, operator: NotIn, values: [n9]}]}]}\n"
    "        preferredDuringSchedulingIgnoredDuringExecution: [{weight: 7, preference: {}}]\n"
    "      podAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n"
    "        - weight: 3\n          podAffinityTerm: {topologyKey: zone, namespaces: [a, b],\n"
    "            namespaceSelector: {}, matchLabelKeys: [x], mismatchLabelKeys: [y]}\n"
    "      podAntiAffinity: {}\n"
    "    volumes:\n    - {name: e1, emptyDir: {medium: Memory, sizeLimit: 64Mi}}\n"
    "    - {name: e2, emptyDir: {medium: HugePages-2Mi}}\n"
    "    - {name: e3, emptyDir: {sizeLimit: '1.5Gi'}}\n"
    "    - {name: h, hostPath: {path: /x}}\n    - {name: s, secret: {secretName: s}}\n"
    "    - {name: c, persistentVolumeClaim: {claimName: c1, readOnly: true}}\n"
    "    - {name: g, gcePersistentDisk: {pdName: disk}}\n"
    "    - {name: aws, awsElasticBlockStore: {volumeID: vol}}\n"
    "    - {name: i, iscsi: {iqn: iqn.x, targetPortal: t, lun: 0}}\n"
    "    - {name: r, rbd: {image: img, monitors: [m1, m2], readOnly: true}}\n"
    "    - {name: az, azureDisk: {diskName: d, diskURI: /subscriptions/s/disks/d, readOnly: "
    "true}}\n"
    "    - {name: ci, cinder: {volumeID: c-1}}\n"
    "    - {name: px, portworxVolume: {volumeID: px-1}}\n"
    "    - {name: af, azureFile: {secretName: s, shareName: sh}}\n"
    "    - {name: vs, vsphereVolume: {volumePath: /v}}\n"
    "    - {name: im, image: {reference: 'registry/x:1'}}\n"
    "  status:\n    phase: Failed\n    qosClass: Burstable\n    startTime: '2000-02-29T12:00:00Z'\n"
    "    resources: {requests: {cpu: 300m}}\n    allocatedResources: {cpu: 300m}\n"
    "    conditions: [{type: PodResizePending, status: 'True', reason: Infeasible}]\n"
    "    initContainerStatuses: [{name: side, allocatedResources: {cpu: '1'}}]\n"
    "    containerStatuses: [{name: c, resources: {requests: {}}}]\n"
    "- apiVersion: v1\n  kind: Pod\n  metadata: {name: gated, namespace: team}\n"
    "  spec:\n    priorityClassName: batch\n    schedulingGates: [{name: a/b}, {name: c}]\n"
    "    containers: [{name: c}]\n"};

/* Every field the decoders keep, away from its default, survives (the model comparison of
 * roundtrip() checks them one by one). */
KT_TEST(rare_fields_round_trip) {
    char path[] = "/tmp/kprio-test-encode-XXXXXX";
    int fd = mkstemp(path);
    KT_CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    for (size_t k = 0; k < sizeof RARE / sizeof *RARE; k++) fputs(RARE[k], f);
    fclose(f);
    golden g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "rare");
    snprintf(g.files[0], sizeof g.files[0], "%s", path);
    g.n_files = 1;
    kp_cluster *cl = load(&g, KP_WORKLOAD_TEMPLATES, false);
    KT_CHECK(cl != NULL);
    size_t len;
    char *e = cl ? encode(cl, false, &len) : NULL;
    /* a few spellings: int-or-string, times before 1970, quantities without their text */
    KT_CHECK_CONTAINS(e, "\"minAvailable\":2,");
    KT_CHECK_CONTAINS(e, "\"maxUnavailable\":\"50%\"");
    KT_CHECK_CONTAINS(e, "\"creationTimestamp\":\"1969-12-31T23:59:59Z\"");
    KT_CHECK_CONTAINS(e, "\"capacity\":{\"cpu\":\"3500m\",\"memory\":\"1G\",\"pods\":\"20\"}");
    KT_CHECK_CONTAINS(e, "\"hugepages-2Mi\":\"2Mi\"");
    KT_CHECK_CONTAINS(e, "{\"name\":\"e3\",\"emptyDir\":{\"sizeLimit\":\"1536Mi\"}}");
    KT_CHECK_CONTAINS(e, "\"schedulingGates\":[{\"name\":\"a/b\"},{\"name\":\"c\"}]");
    KT_CHECK(e && !strstr(e, "dropped"));
    /* storage: the in-tree source of a migrated PV with the id that translates to the same
     * handle; one that does not translate is not written (the model keeps nothing of it) */
    KT_CHECK_CONTAINS(e, "\"spec\":{\"capacity\":{\"storage\":\"1500k\"},\"gcePersistentDisk\":"
                         "{\"pdName\":\"disk-1\"}}");
    KT_CHECK_CONTAINS(e, "\"gcePersistentDisk\":{\"pdName\":\"disk-2\"}");
    KT_CHECK_CONTAINS(e, "\"awsElasticBlockStore\":{\"volumeID\":\"vol-0123\"}");
    KT_CHECK_CONTAINS(e, "\"name\":\"pv-ebs-odd\"},\"spec\":{},\"status\":{\"phase\":\"Pending\"}");
    KT_CHECK_CONTAINS(e, "\"azureDisk\":{\"diskURI\":\"/subscriptions/s/disks/d\"}");
    KT_CHECK_CONTAINS(e, "\"capacity\":{\"storage\":\"10Gi\"}");
    KT_CHECK_CONTAINS(e, "\"claimRef\":{\"namespace\":\"team\",\"name\":\"c1\",\"uid\":\"u-c1\"}");
    KT_CHECK_CONTAINS(e, "\"volumeMode\":\"Block\",\"volumeAttributesClassName\":\"gold\"}");
    KT_CHECK_CONTAINS(e, "\"resources\":{\"requests\":{\"storage\":\"5Gi\"}}");
    KT_CHECK_CONTAINS(e, "\"allowedTopologies\":[{\"matchLabelExpressions\":[{\"key\":\"zone\","
                         "\"values\":[\"a\",\"b\"]},{\"key\":\"r\",\"values\":[\"x\"]}]},{}]");
    KT_CHECK_CONTAINS(e, "{\"name\":\"af\",\"azureFile\":{}}");
    free(e);
    kp_cluster_free(cl);
    KT_CHECK(roundtrip(&g, 0));
    KT_CHECK(roundtrip(&g, KP_WORKLOAD_TEMPLATES));
    unlink(path);
}

static kp_cluster *from_text(const char *text) {
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cluster_load_buffer(cl, "t.yaml", text, strlen(text), &err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    KT_CHECK_INT(st, KP_OK);
    if (st != KP_OK) fprintf(stderr, "  %s\n", err.msg);
    return cl;
}

static const char TERMINATING[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: going\n  namespace: default\n"
    "  creationTimestamp: '2026-01-01T00:00:00Z'\n"
    "  deletionTimestamp: '2026-01-02T03:04:05.123Z'\n"
    "spec:\n  nodeName: n1\n  priority: 5\n  terminationGracePeriodSeconds: 45\n"
    "  containers: [{name: c, resources: {requests: {cpu: 800m}}}]\n"
    "status:\n  phase: Running\n  conditions:\n"
    "  - {type: Ready, status: 'True'}\n"
    "  - {type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler,\n"
    "     message: \"Preempted by pod \\\"x\\\"\\n\\ton node n1\"}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: waiting, namespace: default}\n"
    "spec:\n  priority: 100\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n"
    "status: {nominatedNodeName: n1}\n";

/* A terminating pod (deletionTimestamp, the DisruptionTarget condition) stays terminating: the
 * preemptor nominated to its node waits for it instead of preempting again
 * (PodEligibleToPreemptOthers). */
KT_TEST(terminating_pod_survives) {
    kp_cluster *c1 = from_text(TERMINATING);
    size_t l1, l2;
    char *e1 = encode(c1, false, &l1);
    KT_CHECK_CONTAINS(e1, "\"deletionTimestamp\":\"2026-01-02T03:04:05Z\"");
    /* its Ready condition is kept too (readiness), written first with ContainersReady */
    KT_CHECK_CONTAINS(e1, "{\"type\":\"ContainersReady\",\"status\":\"True\"},"
                          "{\"type\":\"DisruptionTarget\",\"status\":\"True\","
                          "\"reason\":\"PreemptionByScheduler\",\"message\":\"Preempted by pod "
                          "\\\"x\\\"\\n\\ton node n1\"}]");
    KT_CHECK_CONTAINS(e1, "\"terminationGracePeriodSeconds\":45");
    KT_CHECK_CONTAINS(e1, "\"nominatedNodeName\":\"n1\"");
    kp_cluster *c2 = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(c2, "e.json", e1, l1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(c2, &err), KP_OK);
    kp_index p1 = kp_cluster_find_pod(c1, "default/going"), p2 = kp_cluster_find_pod(c2, "going");
    KT_CHECK(p1 >= 0 && p2 >= 0);
    if (p1 >= 0 && p2 >= 0) {
        const kp_pod *a = &c1->pods[p1], *b = &c2->pods[p2];
        KT_CHECK_INT(b->deletion_ts, a->deletion_ts);
        KT_CHECK_INT(b->termination_grace, 45);
        KT_CHECK_INT(b->n_conditions, 1);
        KT_CHECK_STR(kp__s(c2, b->conditions[0].reason), "PreemptionByScheduler");
        KT_CHECK_STR(kp__s(c2, b->conditions[0].message), "Preempted by pod \"x\"\n\ton node n1");
        KT_CHECK_INT(kp_cluster_pod_node(c2, p2), 0);
    }
    char *e2 = encode(c2, false, &l2);
    KT_CHECK(l1 == l2 && memcmp(e1, e2, l1) == 0);
    golden g = {.dir = "terminating"};
    kp_sched *s1 = run_sched(&g, c1), *s2 = run_sched(&g, c2);
    KT_CHECK(s1 && s2 && same_results("terminating", c1, s1, c2, s2));
    const kp_sched_pod_result *r = s2 ? kp_sched_result(s2, 0) : NULL;
    KT_CHECK(r && r->outcome == KP_OUTCOME_UNSCHEDULABLE);
    KT_CHECK_CONTAINS(r ? r->message : NULL,
                      "preemption: not eligible due to a terminating pod on the nominated node");
    kp_sched_free(s1);
    kp_sched_free(s2);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    free(e1);
    free(e2);
}

/* A preemption's victims, as the scheduler leaves them (deletionTimestamp, DisruptionTarget with
 * reason PreemptionByScheduler, the preemptor nominated), are written as such. */
KT_TEST(preemption_state_survives) {
    golden g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "tests/golden/preempt-a1-higher-priority");
    snprintf(g.files[0], sizeof g.files[0], "%s/cluster.yaml", g.dir);
    g.n_files = 1;
    kp_cluster *c1 = load(&g, 0, false);
    KT_CHECK(c1 != NULL);
    if (!c1) return;
    kp_sched *s = run_sched(&g, c1);
    const kp_sched_pod_result *r = NULL;
    for (size_t i = 0; s && i < kp_sched_result_count(s); i++)
        if (kp_sched_result(s, i)->n_victims) r = kp_sched_result(s, i);
    KT_CHECK(r != NULL);
    size_t l1;
    char *e1 = encode(c1, false, &l1);
    kp_cluster *c2 = reload(&g, 0, e1, l1);
    if (r && c2) {
        char ref[600];
        kp_index v = kp_cluster_find_pod(c2, pod_ref(c1, r->victims[0], ref, sizeof ref));
        kp_index pre = kp_cluster_find_pod(c2, pod_ref(c1, r->pod, ref, sizeof ref));
        KT_CHECK(v >= 0 && pre >= 0);
        if (v >= 0 && pre >= 0) {
            const kp_pod *vp = &c2->pods[v];
            KT_CHECK(vp->deletion_ts != KP_TIME_NONE);
            KT_CHECK_INT(vp->n_conditions, 1);
            KT_CHECK(vp->n_conditions == 1 &&
                     strcmp(kp__s(c2, vp->conditions[0].reason), "PreemptionByScheduler") == 0);
            KT_CHECK_STR(kp__s(c2, c2->pods[pre].nominated_node),
                         kp_cluster_node_name(c1, r->nominated_node));
        }
    }
    kp_sched_free(s);
    kp_cluster_free(c1);
    kp_cluster_free(c2);
    free(e1);
}

static const char VALUES[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
    "\"labels\":{\"z\":\"1\",\"a\":\"q\\\"b\\\\s\\u0001\\u001f\\t\",\"m\":\"h\\u00e9\\u2028\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"memory\":"
    "\"1.5Gi\",\"cpu\":0.5,\"example.com/x\":\"1e3\"},\"limits\":{\"cpu\":\"+1\"}}}]}}";

/* Strings are JSON-escaped (quotes, backslashes, control characters) and UTF-8 passes through;
 * labels, maps and quantities are printed as the API server prints them. */
KT_TEST(strings_and_values) {
    kp_cluster *cl = from_text(VALUES);
    size_t l1, l2;
    char *e1 = encode(cl, false, &l1);
    KT_CHECK_CONTAINS(e1, "\"labels\":{\"a\":\"q\\\"b\\\\s\\u0001\\u001f\\t\",\"m\":\"h\xc3\xa9"
                          "\xe2\x80\xa8\",\"z\":\"1\"}");
    /* Quantity.String(): canonical, or the text kept by ParseQuantity ("+1") */
    KT_CHECK_CONTAINS(e1, "\"limits\":{\"cpu\":\"+1\"},\"requests\":{\"cpu\":\"500m\","
                          "\"example.com/x\":\"1e3\",\"memory\":\"1536Mi\"}");
    kp_cluster *c2 = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_buffer(c2, "e.json", e1, l1, &err), KP_OK);
    KT_CHECK_INT(kp_cluster_finalize(c2, &err), KP_OK);
    char *e2 = encode(c2, true, &l2);
    KT_CHECK_CONTAINS(e2, "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": "
                          "[\n        {\n            \"apiVersion\": \"v1\",\n");
    KT_CHECK(l2 > 2 && e2[l2 - 2] == '}' && e2[l2 - 1] == '\n');
    kp_cluster_free(cl);
    kp_cluster_free(c2);
    free(e1);
    free(e2);
}

/* A writer's failure stops the encoding and comes back with its status. */
KT_TEST(writer_failure) {
    kp_cluster *cl = from_text(TERMINATING);
    sink s = {0};
    s.fail_at = 10;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, sink_write, &s, &err), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "write failed");
    KT_CHECK_INT(kp_cluster_encode_json(NULL, NULL, sink_write, &s, &err), KP_EINVAL);
    KT_CHECK_INT(kp_cluster_encode_json(cl, NULL, NULL, &s, &err), KP_EINVAL);
    free(s.buf);
    kp_cluster_free(cl);
}

/* Every allocation of the encoder failing in turn: KP_ENOMEM with a message, or the same text. */
KT_TEST(alloc_fail_sweep) {
    kp_cluster *cl = from_text(VALUES); /* a label map: the sort's scratch is allocated */
    size_t clean_len;
    char *clean = encode(cl, true, &clean_len);
    unsigned long before = kp__alloc_count();
    free(encode(cl, true, &clean_len));
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK(total >= 2); /* the write buffer and the label scratch */
    for (unsigned long n = 0; n <= total; n++) {
        sink s = {0};
        kp_encode_options o;
        kp_encode_options_init(&o);
        o.pretty = true;
        kp_error err;
        kp_error_clear(&err);
        kp__alloc_fail_after((long)n, false);
        kp_status st = kp_cluster_encode_json(cl, &o, sink_write, &s, &err);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || (st == KP_ENOMEM && err.msg[0]));
        if (st == KP_OK) KT_CHECK(s.len == clean_len && memcmp(s.buf, clean, clean_len) == 0);
        free(s.buf);
    }
    free(clean);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(golden_inputs_round_trip), KT_CASE(example_round_trip),
        KT_CASE(rare_fields_round_trip), KT_CASE(terminating_pod_survives),
        KT_CASE(preemption_state_survives), KT_CASE(strings_and_values), KT_CASE(writer_failure),
        KT_CASE(alloc_fail_sweep))
