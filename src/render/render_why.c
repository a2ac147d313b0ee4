/* The answer of `kprio why` (docs/preemption.md): a short text or a kprio/v1alpha1
 * WhyPreempted document; on the public API only. */
#include <stdio.h>
#include <string.h>

#include "render/render_sched.h"

/* "namespace/name" of a pod ("?" for none), cut to cap. */
static const char *pod_ref(const kp_cluster *cl, kp_index pod, char *buf, size_t cap) {
    if (pod < 0 || (size_t)pod >= kp_cluster_pod_count(cl)) snprintf(buf, cap, "?");
    else
        snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(cl, pod),
                 kp_cluster_pod_name(cl, pod));
    return buf;
}

/* The pod as a document names it ({namespace, name}; null for none). */
static void emit_pod(kp_emit *e, const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= kp_cluster_pod_count(cl)) kp_emit_pod_ref(e, "", NULL);
    else kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
}

static void print_table(FILE *f, const kp_why_answer *a, const kp_cluster *cl, const char *target) {
    char buf[256];
    if (!a->preempted) {
        fprintf(f, "%s would not be preempted by any pending pod.\n", target);
        return;
    }
    fprintf(f, "%s (priority %d) would be preempted.\n", target, a->pod_priority);
    fprintf(f, "Preemptor:  %s (priority %d)\n", pod_ref(cl, a->preemptor, buf, sizeof buf),
            a->preemptor_priority);
    fprintf(f, "Node:       %s", kp_cluster_node_name(cl, a->node));
    if (a->decided_by && a->decided_by[0]) fprintf(f, " (chosen by: %s)", a->decided_by);
    fprintf(f, "\nVictims:    ");
    for (size_t i = 0; i < a->n_victims; i++)
        fprintf(f, "%s%s", i ? ", " : "", pod_ref(cl, a->victims[i], buf, sizeof buf));
    fprintf(f, "\nPDB violations: %d\n", a->pdb_violations);
    for (size_t i = 0; i < a->n_pdbs; i++) /* its PDBs over the run (render_sched_rollup.c) */
        kp__render_pdb_use_line(f, cl, &a->pdbs[i], "");
    for (size_t i = 0; i < a->n_attach_blocked; i++) {
        const kp_why_attach_block *b = &a->attach_blocked[i];
        fprintf(f,
                "Preemption cannot help on node %s: %lld of its %lld attach slots for driver %s "
                "are held by VolumeAttachments\n",
                kp_cluster_node_name(cl, b->node), (long long)b->held, (long long)b->limit,
                b->driver);
    }
    fprintf(f, "What would have spared it:\n");
    fprintf(f, "  - priority >= %d (pods of equal or higher priority are never victims)\n",
            a->preemptor_priority);
    if (a->pdb_evaluated) {
        if (a->pdb_spares && a->pdb_alt_node >= 0 && a->pdb_alt_node == a->node) {
            fprintf(f,
                    "  - a PodDisruptionBudget with no disruptions left covering it: yes (the "
                    "preemptor "
                    "would still go to node %s, preempting ",
                    kp_cluster_node_name(cl, a->node));
            for (size_t i = 0; i < a->n_alt_victims; i++)
                fprintf(f, "%s%s", i ? ", " : "", pod_ref(cl, a->alt_victims[i], buf, sizeof buf));
            fprintf(f, " instead)\n");
        } else if (a->pdb_spares && a->pdb_alt_node >= 0)
            fprintf(f,
                    "  - a PodDisruptionBudget with no disruptions left covering it: yes (the "
                    "preemptor "
                    "would go to node %s instead)\n",
                    kp_cluster_node_name(cl, a->pdb_alt_node));
        else if (a->pdb_spares)
            fprintf(f, "  - a PodDisruptionBudget with no disruptions left covering it: yes (the "
                       "preemptor "
                       "would not preempt at all)\n");
        else
            fprintf(f,
                    "  - a PodDisruptionBudget with no disruptions left covering it: no (PDBs are "
                    "best effort; the preemptor still needs it gone)\n");
    }
}

/* A pod pending for devices: the one-line summary first, then the nodes' reasons */
static void print_devices(FILE *f, const kp_why_answer *a, const kp_cluster *cl,
                          const char *target) {
    if (!a->device_summary || !*a->device_summary) return;
    fprintf(f, "%s: %s\n", target, a->device_summary);
    for (size_t i = 0; i < a->n_device_nodes; i++)
        fprintf(f, "  %s: %s\n", kp_cluster_node_name(cl, a->device_nodes[i].node),
                a->device_nodes[i].reason);
}

static kp_status print_doc(FILE *f, const kp_why_answer *a, const kp_cluster *cl,
                           const char *target, kp_outfmt fmt) {
    kp_emit *e = kp_emit_new(f, fmt);
    if (!e) return KP_ENOMEM;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "WhyPreempted");
    const char *slash = strchr(target, '/'); /* "namespace/name" */
    char ns[256];
    snprintf(ns, sizeof ns, "%.*s", slash ? (int)(slash - target) : 0, target);
    kp_emit_kv_pod_ref(e, "pod", ns, slash ? slash + 1 : target);
    kp_emit_kv_bool(e, "preempted", a->preempted);
    if (cl && a->device_summary && *a->device_summary) { /* pending for devices */
        kp_emit_key(e, "deviceShortage");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "summary", a->device_summary);
        kp_emit_key(e, "nodes");
        kp_emit_arr_begin(e);
        for (size_t i = 0; i < a->n_device_nodes; i++) {
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, a->device_nodes[i].node));
            kp_emit_kv_str(e, "reason", a->device_nodes[i].reason);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
    }
    if (a->preempted) {
        kp_emit_kv_int(e, "priority", a->pod_priority);
        kp_emit_key(e, "preemptor");
        emit_pod(e, cl, a->preemptor);
        kp_emit_kv_int(e, "preemptorPriority", a->preemptor_priority);
        kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, a->node));
        kp_emit_kv_str(e, "decidedBy", a->decided_by ? a->decided_by : "");
        kp_emit_key(e, "victims");
        kp_emit_arr_begin(e);
        for (size_t i = 0; i < a->n_victims; i++) emit_pod(e, cl, a->victims[i]);
        kp_emit_arr_end(e);
        kp_emit_kv_int(e, "pdbViolations", a->pdb_violations);
        kp_emit_key(e, "pdbs"); /* its PDBs over the run (render_sched_rollup.c) */
        kp_emit_arr_begin(e);
        for (size_t i = 0; i < a->n_pdbs; i++) kp__render_pdb_use_emit(e, cl, &a->pdbs[i]);
        kp_emit_arr_end(e);
        if (a->n_attach_blocked) { /* nodes where preemption cannot help (VolumeAttachments) */
            kp_emit_key(e, "attachSlotsHeld");
            kp_emit_arr_begin(e);
            for (size_t i = 0; i < a->n_attach_blocked; i++) {
                const kp_why_attach_block *b = &a->attach_blocked[i];
                kp_emit_obj_begin(e);
                kp_emit_kv_str(e, "node", kp_cluster_node_name(cl, b->node));
                kp_emit_kv_str(e, "driver", b->driver);
                kp_emit_kv_int(e, "held", b->held);
                kp_emit_kv_int(e, "limit", b->limit);
                kp_emit_obj_end(e);
            }
            kp_emit_arr_end(e);
        }
        kp_emit_key(e, "sparedBy");
        kp_emit_arr_begin(e);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "change", "priority");
        kp_emit_kv_int(e, "atLeast", a->preemptor_priority);
        kp_emit_kv_bool(e, "spares", true);
        kp_emit_obj_end(e);
        if (a->pdb_evaluated) {
            kp_emit_obj_begin(e);
            kp_emit_kv_str(e, "change", "podDisruptionBudget");
            kp_emit_kv_bool(e, "spares", a->pdb_spares);
            if (a->pdb_spares && a->pdb_alt_node >= 0 && a->pdb_alt_node == a->node) {
                kp_emit_kv_str(e, "preemptorNode", kp_cluster_node_name(cl, a->node));
                kp_emit_key(e, "victimsInstead");
                kp_emit_arr_begin(e);
                for (size_t i = 0; i < a->n_alt_victims; i++) emit_pod(e, cl, a->alt_victims[i]);
                kp_emit_arr_end(e);
            } else if (a->pdb_spares && a->pdb_alt_node >= 0) {
                kp_emit_kv_str(e, "preemptorNodeInstead",
                               kp_cluster_node_name(cl, a->pdb_alt_node));
            }
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
    /* the simulated run: where it stopped (kp_why_answer.stopped_early) */
    kp_emit_key(e, "simulation");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "podsQueued", (int64_t)a->pods_queued);
    kp_emit_kv_int(e, "podsAttempted", (int64_t)a->pods_attempted);
    kp_emit_kv_bool(e, "stoppedEarly", a->stopped_early);
    if (a->pdb_evaluated) kp_emit_kv_int(e, "whatIfPodsAttempted", (int64_t)a->pdb_pods_attempted);
    kp_emit_obj_end(e);
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}

kp_status kp_render_why(FILE *f, const kp_why_answer *a, const kp_cluster *cl, const char *target,
                        kp_outfmt fmt) {
    if (fmt == KP_OUT_TABLE) {
        if (cl) print_devices(f, a, cl, target);
        if (!a->preempted || !cl)
            fprintf(f, "%s would not be preempted by any pending pod.\n", target);
        else print_table(f, a, cl, target);
        if (a->stopped_early)
            fprintf(f,
                    "Simulation stopped early: %zu of %zu pending pods attempted (no later pod "
                    "could change the answer).\n",
                    a->pods_attempted, a->pods_queued);
        return KP_OK;
    }
    return print_doc(f, a, cl, target, fmt);
}
