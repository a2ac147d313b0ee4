/* kprio admit's report: the decision as a table with the message and victims, or as an
 * AdmissionResult document (JSON / YAML), from the public admission API. */
#include <stdio.h>
#include <string.h>

#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/node_conditions.h"
#include "kprio/qos.h"
#include "render/emit.h"
#include "render/render_kubelet.h"

static void emit_pod_ref(kp_emit *e, const kp_cluster *cl, kp_index pod) {
    kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
}

static kp_status emit_structured(FILE *f, kp_outfmt fmt, const kp_cluster *cl, kp_index node,
                                 kp_index pod, unsigned conds, const kp_admission *a) {
    kp_emit *e = kp_emit_new(f, fmt);
    if (!e) return KP_ENOMEM;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "AdmissionResult");
    kp_emit_key(e, "pod");
    emit_pod_ref(e, cl, pod);
    kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, node));
    kp_emit_kv_bool(e, "critical", kp_admission_critical(a));
    kp_emit_kv_bool(e, "admitted", kp_admission_admitted(a));
    kp_emit_key(e, "reasons");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_failure_count(a); i++) {
        const kp_admit_reason *r = kp_admission_failure(a, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "reason", r->reason);
        kp_emit_kv_str(e, "message", r->message);
        if (r->insufficient) {
            kp_emit_kv_str(e, "resource", r->resource);
            kp_emit_kv_int(e, "requested", r->requested);
            kp_emit_kv_int(e, "used", r->used);
            kp_emit_kv_int(e, "capacity", r->capacity);
        }
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "victims");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
        const kp_admit_victim *v = kp_admission_victim(a, i);
        kp_emit_obj_begin(e);
        kp_emit_key(e, "pod");
        emit_pod_ref(e, cl, v->pod);
        kp_emit_kv_str(e, "qosClass", kp_qos_name(v->qos));
        kp_emit_kv_int(e, "priority", v->priority);
        kp_emit_key(e, "status");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "phase", KP_ADMIT_VICTIM_PHASE);
        kp_emit_kv_str(e, "reason", KP_ADMIT_VICTIM_REASON);
        kp_emit_kv_str(e, "message", KP_ADMIT_VICTIM_MESSAGE);
        kp_emit_key(e, "conditions");
        kp_emit_arr_begin(e);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "type", KP_ADMIT_VICTIM_CONDITION_TYPE);
        kp_emit_kv_str(e, "status", "True");
        kp_emit_kv_str(e, "reason", KP_ADMIT_VICTIM_CONDITION_REASON);
        kp_emit_kv_str(e, "message", KP_ADMIT_VICTIM_CONDITION_MESSAGE);
        kp_emit_obj_end(e);
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_kv_str(e, "message", kp_admission_message(a));
    kp_emit_kv_str(e, "reason", kp_admission_reason(a));
    kp_emit_key(e, "insufficient");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_requirement_count(a); i++) {
        const kp_admit_requirement *r = kp_admission_requirement(a, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "resource", r->resource);
        kp_emit_kv_int(e, "quantity", r->quantity);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "nodeConditions");
    kp_emit_arr_begin(e);
    for (unsigned c = 0; c < KP_NODE_COND_COUNT; c++)
        if (conds & (1u << c)) kp_emit_str(e, kp_node_condition_name(1u << c));
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

/* ---------------------------------------------------------------- human amounts (tables) */

static bool byte_resource(const char *r) {
    return strcmp(r, "memory") == 0 || strcmp(r, "ephemeral-storage") == 0 ||
           strncmp(r, "hugepages-", 10) == 0;
}

/* Amounts v[0..n) of resource r in one unit, for people: cpu (millicores) as cores when every
 * amount is whole, else in m; bytes in the largest of Ki, Mi, Gi, Ti in which the smallest
 * non-zero amount is at least 1, with one decimal where not exact; other resources as counts. */
static void fmt_amounts(const char *r, const int64_t *v, int n, char out[][40]) {
    if (strcmp(r, "cpu") == 0) {
        bool whole = true;
        for (int i = 0; i < n; i++) whole = whole && v[i] % 1000 == 0;
        for (int i = 0; i < n; i++)
            snprintf(out[i], 40, whole ? "%lld" : "%lldm", (long long)(whole ? v[i] / 1000 : v[i]));
        return;
    }
    if (!byte_resource(r)) {
        for (int i = 0; i < n; i++) snprintf(out[i], 40, "%lld", (long long)v[i]);
        return;
    }
    static const char *const suffix[] = {"", "Ki", "Mi", "Gi", "Ti"};
    double m = 0;
    for (int i = 0; i < n; i++) {
        double a = v[i] < 0 ? -(double)v[i] : (double)v[i];
        if (a > 0 && (m == 0 || a < m)) m = a;
    }
    int u = 0;
    double unit = 1;
    while (u < 4 && m >= unit * 1024) {
        unit *= 1024;
        u++;
    }
    for (int i = 0; i < n; i++)
        snprintf(out[i], 40, "%.*f%s", v[i] % (int64_t)unit == 0 ? 0 : 1, (double)v[i] / unit,
                 suffix[u]);
}

/* "Insufficient memory: requested 600Mi, free 512Mi (3.5Gi of 4Gi in use)" */
static void print_insufficient(FILE *f, const kp_admit_reason *r) {
    int64_t v[4] = {r->requested, r->capacity - r->used, r->used, r->capacity};
    char s[4][40];
    fmt_amounts(r->resource, v, 4, s);
    fprintf(f, "Insufficient %s: requested %s, free %s (%s of %s in use)", r->resource, s[0], s[1],
            s[2], s[3]);
}

/* The message of a pod admitted through preemption, for people: what the victims free. */
static void print_preempted(FILE *f, const kp_admission *a) {
    size_t nv = kp_admission_victim_count(a);
    fprintf(f, "admitted after preempting %zu pod%s to free", nv, nv == 1 ? "" : "s");
    for (size_t i = 0; i < kp_admission_requirement_count(a); i++) {
        const kp_admit_requirement *q = kp_admission_requirement(a, i);
        char s[1][40];
        fmt_amounts(q->resource, &q->quantity, 1, s);
        fprintf(f, "%s %s %s", i ? "," : "", q->resource, s[0]);
    }
}

/* Both tables are built before anything is written: out of memory writes nothing. */
static kp_status print_table(FILE *f, const kp_cluster *cl, kp_index node, kp_index pod,
                             const kp_admission *a) {
    kp_table *t = kp_table_new(5), *vt = NULL;
    kp_table_add(t, "POD");
    kp_table_add(t, "NODE");
    kp_table_add(t, "CRITICAL");
    kp_table_add(t, "ADMITTED");
    kp_table_add(t, "REASON");
    kp_table_addf(t, "%s/%s", kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
    kp_table_add(t, kp_cluster_node_name(cl, node));
    kp_table_add(t, kp_admission_critical(a) ? "true" : "false");
    kp_table_add(t, kp_admission_admitted(a) ? "true" : "false");
    kp_table_add(t, *kp_admission_reason(a) ? kp_admission_reason(a) : "<none>");
    if (kp_admission_victim_count(a)) {
        vt = kp_table_new(4);
        kp_table_add(vt, "VICTIM");
        kp_table_add(vt, "QOS");
        kp_table_add(vt, "PRIORITY");
        kp_table_add(vt, "STATUS");
        for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
            const kp_admit_victim *v = kp_admission_victim(a, i);
            kp_table_addf(vt, "%s/%s", kp_cluster_pod_namespace(cl, v->pod),
                          kp_cluster_pod_name(cl, v->pod));
            kp_table_add(vt, kp_qos_name(v->qos));
            kp_table_addf(vt, "%d", (int)v->priority);
            kp_table_add(vt, KP_ADMIT_VICTIM_PHASE "/" KP_ADMIT_VICTIM_REASON);
        }
    }
    kp_status st = kp_table_status(t);
    if (st == KP_OK && kp_admission_victim_count(a)) st = kp_table_status(vt);
    if (st == KP_OK) {
        kp_table_print(t, f);
        /* the kubelet's status message; kprio's own summary of an admission through preemption
         * is worded for people (JSON keeps the library's text) */
        fputs("\nMessage: ", f);
        if (kp_admission_admitted(a) && kp_admission_victim_count(a)) print_preempted(f, a);
        else fputs(kp_admission_message(a), f);
        fputs("\n", f);
        if (kp_admission_failure_count(a)) {
            /* preemption ran only for a critical pod failing for resources alone */
            fputs(kp_admission_requirement_count(a) ? "\nFailed before preemption:\n"
                                                    : "\nFailed admission checks:\n",
                  f);
            for (size_t i = 0; i < kp_admission_failure_count(a); i++) {
                const kp_admit_reason *r = kp_admission_failure(a, i);
                fprintf(f, "  %s: ", r->reason);
                if (r->insufficient) print_insufficient(f, r);
                else fputs(r->message, f);
                fputs("\n", f);
            }
        }
        if (vt) {
            fprintf(f, "\n");
            kp_table_print(vt, f);
        }
    }
    kp_table_free(t);
    kp_table_free(vt);
    return st;
}

kp_status kp_render_admission(FILE *f, kp_outfmt fmt, const kp_cluster *cl, kp_index node,
                              kp_index pod, unsigned conditions, const kp_admission *a) {
    if (fmt == KP_OUT_TABLE) return print_table(f, cl, node, pod, a);
    return emit_structured(f, fmt, cl, node, pod, conditions, a);
}
