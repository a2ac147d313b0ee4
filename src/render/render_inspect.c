/* `kprio inspect` output: tables (kubectl's look) and the ClusterInspection document. Public
 * headers only. */
#include <inttypes.h>
#include <string.h>

#include "kprio/quantity.h"
#include "render/render_inspect.h"
#include "render/view.h"

static kp_quantity_str cpu_str(int64_t milli) {
    return kp_quantity_string_milli(milli, KP_QFMT_DECIMAL_SI);
}
static kp_quantity_str mem_str(int64_t bytes) {
    return kp_quantity_string_int(bytes, KP_QFMT_BINARY_SI);
}

/* "class=n,class=n" ("<none>" for pods without a class; "<none>" when the node has no pod).
 * kp_malloc'd; NULL when out of memory. */
static char *class_cell(const kp_inspect_node *n) {
    size_t len = 0;
    for (size_t j = 0; j < n->n_by_class; j++) {
        const char *name =
            n->by_class[j].priority_class[0] ? n->by_class[j].priority_class : "<none>";
        len += (j ? 1 : 0) + strlen(name) + 1 + 20;
    }
    char *cell = kp_malloc(len + sizeof "<none>");
    if (!cell) return NULL;
    strcpy(cell, "<none>");
    size_t used = 0;
    for (size_t j = 0; j < n->n_by_class; j++) {
        const char *name =
            n->by_class[j].priority_class[0] ? n->by_class[j].priority_class : "<none>";
        used += (size_t)snprintf(cell + used, len + 1 - used, "%s%s=%zu", j ? "," : "", name,
                                 n->by_class[j].pods);
    }
    return cell;
}

static kp_table *node_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(7);
    const char *hdr[] = {"NODE", "CPU REQ/ALLOC", "MEMORY REQ/ALLOC",
                         "PODS", "QOS G/B/BE",    "PRIORITY CLASSES",
                         "FLAGS"};
    for (int i = 0; i < 7; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_node_count(in); k++) {
        const kp_inspect_node *n = kp_inspection_node(in, k);
        kp_table_add(t, n->name);
        kp_table_addf(t, "%s/%s (%" PRId64 "%%)", cpu_str(n->requested_cpu_milli).s,
                      cpu_str(n->allocatable_cpu_milli).s, n->percent_cpu);
        kp_table_addf(t, "%s/%s (%" PRId64 "%%)", mem_str(n->requested_memory).s,
                      mem_str(n->allocatable_memory).s, n->percent_memory);
        kp_table_addf(t, "%" PRId64 "/%" PRId64, n->requested_pods, n->allocatable_pods);
        kp_table_addf(t, "%zu/%zu/%zu", n->pods_guaranteed, n->pods_burstable, n->pods_besteffort);
        char *cell = class_cell(n);
        if (!cell) {
            kp_table_free(t);
            return NULL; /* kp_table_status(NULL) is KP_ENOMEM */
        }
        kp_table_add(t, cell);
        kp_free(cell);
        if (n->unschedulable || n->tainted)
            kp_table_addf(t, "%s%s", n->unschedulable ? "Unschedulable " : "",
                          n->tainted ? "Tainted" : "");
        else kp_table_add(t, "-");
    }
    return t;
}

static kp_table *class_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(5);
    const char *hdr[] = {"PRIORITYCLASS", "VALUE", "GLOBAL-DEFAULT", "PREEMPTIONPOLICY", "PODS"};
    for (int i = 0; i < 5; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_class_count(in); k++) {
        const kp_inspect_class *pc = kp_inspection_class(in, k);
        kp_table_add(t, pc->name);
        kp_table_addf(t, "%d", (int)pc->value);
        kp_table_add(t, pc->global_default ? "true" : "false");
        kp_table_add(t, pc->preemption_policy);
        kp_table_addf(t, "%zu", pc->pods);
    }
    return t;
}

static kp_table *pdb_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(5);
    const char *hdr[] = {"PDB", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS",
                         "DISRUPTED PODS"};
    for (int i = 0; i < 5; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_pdb_count(in); k++) {
        const kp_inspect_pdb *b = kp_inspection_pdb(in, k);
        if (!kp_view_ns(b->ns)) continue; /* -n */
        kp_table_addf(t, "%s/%s", b->ns, b->name);
        kp_table_add(t, b->min_available ? b->min_available : "N/A");
        kp_table_add(t, b->max_unavailable ? b->max_unavailable : "N/A");
        if (b->has_status) kp_table_addf(t, "%d", (int)b->disruptions_allowed);
        else kp_table_add(t, "<unknown>");
        kp_table_addf(t, "%zu", b->disrupted_pods);
    }
    return t;
}

/* Attached volumes against the CSINode limits (only when a CSINode reports a count). */
static kp_table *attach_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(5);
    const char *hdr[] = {"NODE", "CSI DRIVER", "VOLUMES IN USE", "HELD BY ATTACHMENTS", "LIMIT"};
    for (int i = 0; i < 5; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_attach_count(in); k++) {
        const kp_inspect_attach *a = kp_inspection_attach(in, k);
        kp_table_add(t, a->node);
        kp_table_add(t, a->driver);
        kp_table_addf(t, "%zu", a->in_use);
        kp_table_addf(t, "%zu", a->held);
        kp_table_addf(t, "%" PRId64, a->limit);
    }
    return t;
}

/* Claims of pending pods and where their volumes can go (only when there are some). */
static kp_table *claim_table(const kp_inspection *in) {
    bool cap = false; /* the CAPACITY column only when some claim's capacity is checked */
    for (size_t k = 0; k < kp_inspection_claim_count(in); k++)
        cap |= kp_inspection_claim(in, k)->capacity_checked;
    kp_table *t = kp_table_new(cap ? 7 : 6);
    const char *hdr[] = {"PENDING POD",  "CLAIM", "STATUS",  "VOLUME",
                         "STORAGECLASS", "NODES", "CAPACITY"};
    for (int i = 0; i < (cap ? 7 : 6); i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_claim_count(in); k++) {
        const kp_inspect_claim *c = kp_inspection_claim(in, k);
        if (!kp_view_pod_named(c->ns, c->pod)) continue; /* -n, -l */
        kp_table_addf(t, "%s/%s", c->ns, c->pod);
        kp_table_add(t, c->claim);
        kp_table_add(t, c->phase);
        kp_table_add(t, c->volume[0] ? c->volume : "<none>");
        kp_table_add(t, c->storage_class[0] ? c->storage_class : "<none>");
        if (!c->nodes) kp_table_add(t, "none");
        else if (c->nodes == 1) kp_table_addf(t, "1 (%s)", c->first_node);
        else kp_table_addf(t, "%zu (%s, ...)", c->nodes, c->first_node);
        if (!cap) continue;
        if (!c->capacity_checked) kp_table_add(t, "-");
        else if (!c->capacity_objects) kp_table_addf(t, "%s of none", mem_str(c->request).s);
        else
            kp_table_addf(t, "%s of max %s (%zu objects)", mem_str(c->request).s,
                          mem_str(c->largest_limit).s, c->capacity_objects);
    }
    return t;
}

/* DRA devices per node and pool with the claims holding them (only with ResourceSlices). */
static kp_table *device_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(7);
    const char *hdr[] = {"NODE", "DRIVER", "POOL", "DEVICE", "ATTRIBUTES", "CLAIM", "RESERVED FOR"};
    for (int i = 0; i < 7; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_device_count(in); k++) {
        const kp_inspect_device *d = kp_inspection_device(in, k);
        kp_table_add(t, d->node[0] ? d->node : "<per device>");
        kp_table_add(t, d->driver);
        kp_table_add(t, d->pool);
        kp_table_add(t, d->device);
        kp_table_add(t, d->attributes[0] ? d->attributes : "-");
        if (d->claim[0]) kp_table_addf(t, "%s/%s", d->claim_ns, d->claim);
        else kp_table_add(t, "<free>");
        if (!d->claim[0]) kp_table_add(t, "-");
        else if (!d->n_reserved) kp_table_add(t, "<none>");
        else if (d->n_reserved == 1) kp_table_addf(t, "%s/%s", d->claim_ns, d->reserved_for);
        else kp_table_addf(t, "%s/%s +%zu", d->claim_ns, d->reserved_for, d->n_reserved - 1);
    }
    return t;
}

/* ResourceClaims without an allocation and why (only when there are some). */
static kp_table *dra_claim_table(const kp_inspection *in) {
    kp_table *t = kp_table_new(4);
    const char *hdr[] = {"UNALLOCATED CLAIM", "REQUESTS", "PODS", "WHY"};
    for (int i = 0; i < 4; i++) kp_table_add(t, hdr[i]);
    for (size_t k = 0; k < kp_inspection_dra_claim_count(in); k++) {
        const kp_inspect_dra_claim *c = kp_inspection_dra_claim(in, k);
        if (!kp_view_ns(c->ns)) continue; /* -n */
        kp_table_addf(t, "%s/%s", c->ns, c->name);
        kp_table_add(t, c->requests);
        if (!c->pods) kp_table_add(t, "<none>");
        else if (c->pods == 1) kp_table_add(t, c->pod);
        else kp_table_addf(t, "%s +%zu", c->pod, c->pods - 1);
        kp_table_add(t, c->reason);
    }
    return t;
}

/* The tables are built completely, and their status checked, before anything is printed: out of
 * memory leaves the output empty. */
static kp_status render_tables(FILE *f, const kp_inspection *in) {
    const kp_inspect_summary *s = kp_inspection_summary(in);
    kp_table *nodes = node_table(in), *classes = class_table(in);
    kp_table *pdbs = s->pod_disruption_budgets ? pdb_table(in) : NULL;
    bool has_attach = kp_inspection_attach_count(in) > 0;
    bool has_claims = kp_inspection_claim_count(in) > 0;
    kp_table *attach = has_attach ? attach_table(in) : NULL;
    kp_table *claims = has_claims ? claim_table(in) : NULL;
    kp_table *devices = kp_inspection_device_count(in) ? device_table(in) : NULL;
    kp_table *dra_claims = kp_inspection_dra_claim_count(in) ? dra_claim_table(in) : NULL;
    kp_status st = kp_table_status(nodes);
    if (st == KP_OK && devices) st = kp_table_status(devices);
    if (st == KP_OK && dra_claims) st = kp_table_status(dra_claims);
    if (st == KP_OK) st = kp_table_status(classes);
    if (st == KP_OK && s->pod_disruption_budgets) st = kp_table_status(pdbs);
    if (st == KP_OK && has_attach) st = kp_table_status(attach);
    if (st == KP_OK && has_claims) st = kp_table_status(claims);
    if (st == KP_OK) {
        fprintf(f, "Cluster: %zu node%s, %zu pod%s (%zu pending", s->nodes,
                s->nodes == 1 ? "" : "s", s->pods, s->pods == 1 ? "" : "s", s->pending_pods);
        if (s->gated_pods) fprintf(f, ", %zu gated", s->gated_pods);
        fprintf(f, "), %zu PriorityClass%s, %zu PodDisruptionBudget%s\n\n", s->priority_classes,
                s->priority_classes == 1 ? "" : "es", s->pod_disruption_budgets,
                s->pod_disruption_budgets == 1 ? "" : "s");
        kp_table_print(nodes, f);
        fprintf(f, "\n");
        kp_table_print(classes, f);
        if (pdbs) {
            fprintf(f, "\n");
            kp_table_print(pdbs, f);
        }
        if (attach) {
            fprintf(f, "\n");
            kp_table_print(attach, f);
        }
        if (claims) {
            fprintf(f, "\n");
            kp_table_print(claims, f);
        }
        kp_table *const dra[] = {devices, dra_claims};
        for (int i = 0; i < 2; i++)
            if (dra[i]) {
                fprintf(f, "\n");
                kp_table_print(dra[i], f);
            }
        size_t n_warn = kp_inspection_warning_count(in);
        if (n_warn) {
            fprintf(f, "\nWarnings (state that changes decisions):\n");
            for (size_t i = 0; i < n_warn; i++)
                fprintf(f, "  - %s\n", kp_inspection_warning(in, i));
        }
    }
    kp_table_free(nodes);
    kp_table_free(classes);
    kp_table_free(pdbs);
    kp_table_free(attach);
    kp_table_free(claims);
    kp_table_free(devices);
    kp_table_free(dra_claims);
    return st;
}

static void emit_node(kp_emit *e, const kp_inspect_node *n) {
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "name", n->name);
    kp_emit_kv_bool(e, "unschedulable", n->unschedulable);
    kp_emit_key(e, "allocatable");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "cpu", cpu_str(n->allocatable_cpu_milli).s);
    kp_emit_kv_str(e, "memory", mem_str(n->allocatable_memory).s);
    kp_emit_kv_int(e, "pods", n->allocatable_pods);
    kp_emit_obj_end(e);
    kp_emit_key(e, "requested");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "cpu", cpu_str(n->requested_cpu_milli).s);
    kp_emit_kv_str(e, "memory", mem_str(n->requested_memory).s);
    kp_emit_kv_int(e, "pods", n->requested_pods);
    kp_emit_obj_end(e);
    kp_emit_key(e, "percentRequested");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "cpu", n->percent_cpu);
    kp_emit_kv_int(e, "memory", n->percent_memory);
    kp_emit_kv_int(e, "pods", n->percent_pods);
    kp_emit_obj_end(e);
    kp_emit_key(e, "podsByQOSClass");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "Guaranteed", (int64_t)n->pods_guaranteed);
    kp_emit_kv_int(e, "Burstable", (int64_t)n->pods_burstable);
    kp_emit_kv_int(e, "BestEffort", (int64_t)n->pods_besteffort);
    kp_emit_obj_end(e);
    kp_emit_key(e, "podsByPriorityClass");
    kp_emit_obj_begin(e);
    for (size_t j = 0; j < n->n_by_class; j++)
        kp_emit_kv_int(e, n->by_class[j].priority_class, (int64_t)n->by_class[j].pods);
    kp_emit_obj_end(e);
    kp_emit_obj_end(e);
}

static void emit_summary(kp_emit *e, const kp_inspect_summary *s) {
    kp_emit_key(e, "summary");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "nodes", (int64_t)s->nodes);
    kp_emit_kv_int(e, "pods", (int64_t)s->pods);
    kp_emit_kv_int(e, "pendingPods", (int64_t)s->pending_pods);
    kp_emit_kv_int(e, "terminatingPods", (int64_t)s->terminating_pods);
    kp_emit_kv_int(e, "nominatedPods", (int64_t)s->nominated_pods);
    kp_emit_kv_int(e, "gatedPods", (int64_t)s->gated_pods);
    kp_emit_kv_int(e, "priorityClasses", (int64_t)s->priority_classes);
    kp_emit_kv_int(e, "podDisruptionBudgets", (int64_t)s->pod_disruption_budgets);
    kp_emit_obj_end(e);
}

static void emit_pdb(kp_emit *e, const kp_inspect_pdb *b) {
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "namespace", b->ns);
    kp_emit_kv_str(e, "name", b->name);
    if (b->min_available) kp_emit_kv_str(e, "minAvailable", b->min_available);
    if (b->max_unavailable) kp_emit_kv_str(e, "maxUnavailable", b->max_unavailable);
    kp_emit_key(e, "disruptionsAllowed");
    if (b->has_status) kp_emit_int(e, b->disruptions_allowed);
    else kp_emit_null(e);
    kp_emit_kv_int(e, "disruptedPods", (int64_t)b->disrupted_pods);
    kp_emit_obj_end(e);
}

/* attachLimits and pendingClaims, each only when it has rows (documents without volumes keep
 * their shape) */
static void emit_volumes(kp_emit *e, const kp_inspection *in) {
    if (kp_inspection_attach_count(in)) {
        kp_emit_key(e, "attachLimits");
        kp_emit_arr_begin(e);
        for (size_t k = 0; k < kp_inspection_attach_count(in); k++) {
            const kp_inspect_attach *a = kp_inspection_attach(in, k);
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "node", a->node);
            kp_emit_kv_str(e, "driver", a->driver);
            kp_emit_kv_int(e, "volumesInUse", (int64_t)a->in_use);
            kp_emit_kv_int(e, "heldByAttachments", (int64_t)a->held);
            kp_emit_kv_int(e, "limit", a->limit);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
    if (kp_inspection_claim_count(in)) {
        kp_emit_key(e, "pendingClaims");
        kp_emit_arr_begin(e);
        for (size_t k = 0; k < kp_inspection_claim_count(in); k++) {
            const kp_inspect_claim *c = kp_inspection_claim(in, k);
            if (!kp_view_pod_named(c->ns, c->pod)) continue; /* -n, -l */
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "namespace", c->ns);
            kp_emit_kv_str(e, "pod", c->pod);
            kp_emit_kv_str(e, "claim", c->claim);
            kp_emit_kv_str(e, "status", c->phase);
            kp_emit_kv_str(e, "volume", c->volume);
            kp_emit_kv_str(e, "storageClass", c->storage_class);
            kp_emit_kv_int(e, "nodes", (int64_t)c->nodes);
            kp_emit_kv_str(e, "firstNode", c->first_node);
            if (c->capacity_checked) {
                kp_emit_key(e, "storageCapacity");
                kp_emit_obj_begin(e);
                kp_emit_kv_int(e, "request", c->request);
                kp_emit_kv_int(e, "largestLimit", c->largest_limit);
                kp_emit_kv_int(e, "objects", (int64_t)c->capacity_objects);
                kp_emit_obj_end(e);
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
}

/* devices and unallocatedClaims (DRA), each only when it has rows */
static void emit_dra(kp_emit *e, const kp_inspection *in) {
    if (kp_inspection_device_count(in)) {
        kp_emit_key(e, "devices");
        kp_emit_arr_begin(e);
        for (size_t k = 0; k < kp_inspection_device_count(in); k++) {
            const kp_inspect_device *d = kp_inspection_device(in, k);
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "node", d->node);
            kp_emit_kv_str(e, "driver", d->driver);
            kp_emit_kv_str(e, "pool", d->pool);
            kp_emit_kv_str(e, "device", d->device);
            kp_emit_kv_str(e, "attributes", d->attributes);
            if (d->claim[0]) {
                kp_emit_key(e, "claim");
                kp_emit_obj_begin(e);
                kp_emit_kv_str(e, "namespace", d->claim_ns);
                kp_emit_kv_str(e, "name", d->claim);
                kp_emit_kv_str(e, "reservedFor", d->reserved_for);
                kp_emit_kv_int(e, "reservations", (int64_t)d->n_reserved);
                kp_emit_obj_end(e);
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
    if (kp_inspection_dra_claim_count(in)) {
        kp_emit_key(e, "unallocatedClaims");
        kp_emit_arr_begin(e);
        for (size_t k = 0; k < kp_inspection_dra_claim_count(in); k++) {
            const kp_inspect_dra_claim *c = kp_inspection_dra_claim(in, k);
            if (!kp_view_ns(c->ns)) continue; /* -n */
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "namespace", c->ns);
            kp_emit_kv_str(e, "name", c->name);
            kp_emit_kv_str(e, "requests", c->requests);
            kp_emit_kv_str(e, "pod", c->pod);
            kp_emit_kv_int(e, "pods", (int64_t)c->pods);
            kp_emit_kv_str(e, "reason", c->reason);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
}

static kp_status render_document(FILE *f, const kp_inspection *in, kp_outfmt fmt) {
    kp_emit *e = kp_emit_new(f, fmt); /* NULL: every call below is a no-op, the status KP_ENOMEM */
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "ClusterInspection");
    emit_summary(e, kp_inspection_summary(in));
    kp_emit_key(e, "nodes");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < kp_inspection_node_count(in); k++)
        emit_node(e, kp_inspection_node(in, k));
    kp_emit_arr_end(e);
    kp_emit_key(e, "priorityClasses");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < kp_inspection_class_count(in); k++) {
        const kp_inspect_class *pc = kp_inspection_class(in, k);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "name", pc->name);
        kp_emit_kv_int(e, "value", pc->value);
        kp_emit_kv_bool(e, "globalDefault", pc->global_default);
        kp_emit_kv_str(e, "preemptionPolicy", pc->preemption_policy);
        kp_emit_kv_int(e, "pods", (int64_t)pc->pods);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "podDisruptionBudgets");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < kp_inspection_pdb_count(in); k++)
        if (kp_view_ns(kp_inspection_pdb(in, k)->ns))
            emit_pdb(e, kp_inspection_pdb(in, k)); /* -n */
    kp_emit_arr_end(e);
    emit_volumes(e, in);
    emit_dra(e, in);
    kp_emit_key(e, "warnings");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_inspection_warning_count(in); i++)
        kp_emit_str(e, kp_inspection_warning(in, i));
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

kp_status kp_render_inspection(FILE *f, const kp_inspection *in, kp_outfmt fmt) {
    return fmt == KP_OUT_TABLE ? render_tables(f, in) : render_document(f, in, fmt);
}
