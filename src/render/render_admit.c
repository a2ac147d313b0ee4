/* kprio admit's report: the decision as a table with the message and victims, or as an
 * AdmissionResult document (JSON / YAML), from the public admission API. */
#include <stdio.h>
#include <string.h>

#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/emit.h"
#include "kprio/node_conditions.h"
#include "kprio/qos.h"
#include "kprio/render_kubelet.h"

static void emit_pod_ref(kp_emit *e, const kp_cluster *cl, kp_index pod) {
    const char *ns = kp_cluster_pod_namespace(cl, pod), *name = kp_cluster_pod_name(cl, pod);
    size_t nl = strlen(ns), ml = strlen(name);
    char *ref = kp_malloc(nl + ml + 2);
    if (!ref) {
        kp_emit_fail(e, KP_ENOMEM);
        return;
    }
    memcpy(ref, ns, nl);
    ref[nl] = '/';
    memcpy(ref + nl + 1, name, ml + 1);
    kp_emit_str(e, ref);
    kp_free(ref);
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
        fprintf(f, "\nMessage: %s\n", kp_admission_message(a));
        if (kp_admission_failure_count(a)) {
            fprintf(f, "\nFailed before preemption:\n");
            for (size_t i = 0; i < kp_admission_failure_count(a); i++) {
                const kp_admit_reason *r = kp_admission_failure(a, i);
                fprintf(f, "  %s: %s\n", r->reason, r->message);
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
