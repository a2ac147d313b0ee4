/* The Scenario's `patch` action (docs/scenario.md "patch"): the API server's PATCH of an object
 * (kp_cluster_patch, kprio/update.h), then what watches that object: the kubelet of a resized
 * pod (kp_kubelet_resize_check: applied, Deferred or Infeasible), the scheduling queue (a pending
 * pod changed; a node's labels, taints, unschedulable or allocatable changed: NodeUpdate; an
 * assigned pod's labels or counted requests changed: AssignedPodUpdate), taint eviction of a node's
 * NoExecute taints, the DaemonSets (every action queues them), a workload's controller (replicas:
 * the scale; anything else of its spec: a sync, new pods from the new template) and the disruption
 * controller for a PDB. A refusal of the API server is an ActionFailed event, as kubectl's error
 * for one command. */
#include <stdio.h>
#include <string.h>

#include "kprio/update.h"
#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

/* Whether the cluster ever had the object (a tombstone counts): a patch of an object never seen
 * is a bad scenario, of one gone by then the API server's NotFound. */
static bool ever_had(const kp_sim *s, const kp_object_ref *r) {
    if (strcmp(r->kind, "Pod") == 0) {
        for (size_t p = 0; p < kp_cluster_pod_count(s->cl); p++)
            if (strcmp(kp_cluster_pod_name(s->cl, (kp_index)p), r->name) == 0 &&
                strcmp(kp_cluster_pod_namespace(s->cl, (kp_index)p), r->ns) == 0)
                return true;
        return false;
    }
    if (strcmp(r->kind, "Node") == 0) { /* a deleted node too (find_node skips those) */
        for (size_t n = 0; n < kp_cluster_node_count(s->cl); n++)
            if (strcmp(kp_cluster_node_name(s->cl, (kp_index)n), r->name) == 0) return true;
        return false;
    }
    if (strcmp(r->kind, "PriorityClass") == 0 || strcmp(r->kind, "Namespace") == 0) return false;
    if (strcmp(r->kind, "PodDisruptionBudget") == 0) {
        for (size_t i = 0; i < kp_cluster_pdb_count(s->cl); i++) {
            kp_pdb_info in;
            if (kp_cluster_pdb_info(s->cl, (kp_index)i, &in) == KP_OK &&
                strcmp(in.ns, r->ns) == 0 && strcmp(in.name, r->name) == 0)
                return true;
        }
        return false;
    }
    for (size_t i = 0; i < kp_cluster_workload_count(s->cl); i++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(s->cl, (kp_index)i, &in) == KP_OK &&
            strcmp(in.kind, r->kind) == 0 && strcmp(in.ns, r->ns) == 0 &&
            strcmp(in.name, r->name) == 0)
            return true;
    }
    return false;
}

static kp_status refused(kp_sim *s, size_t ai, const char *message, kp_error *err) {
    char name[32], msg[KP_ERR_MSG_CAP + 16];
    snprintf(name, sizeof name, "actions[%zu]", ai);
    snprintf(msg, sizeof msg, "patch: %s", message);
    return kp__sim_log(s, KP_SIM_WARNING, "ActionFailed", "Scenario", "", name, msg, -1, -1, -1) < 0
               ? nomem(err)
               : KP_OK;
}

/* kubectl's resource name of a kind, lower case ("pod/web-a patched") */
static void lower_kind(const char *kind, char *out, size_t cap) {
    size_t i = 0;
    for (; kind[i] && i + 1 < cap; i++)
        out[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] - 'A' + 'a' : kind[i]);
    out[i] = 0;
}

kp_status kp__sim_patch(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_error *err) {
    const kp_object_ref *r = &a->ref;
    kp_update_result u;
    kp_error e;
    kp_error_clear(&e);
    /* a node's old object for the queueing hints' NodeUpdate, taken before the change */
    kp_index before = strcmp(r->kind, "Node") == 0 ? kp_cluster_find_node(s->cl, r->name) : -1;
    if (before >= 0) kp_sched_node_before(s->sched, before);
    /* a pod's old object for the hints' AssignedPodUpdate */
    if (strcmp(r->kind, "Pod") == 0) {
        char ref[600];
        snprintf(ref, sizeof ref, "%s/%s", r->ns, r->name);
        kp_sched_pod_before(s->sched, kp_cluster_find_pod(s->cl, ref));
    }
    kp_status st = kp_cluster_patch(s->cl, r->kind, r->ns, r->name, a->subresource, a->patch,
                                    a->patch_len, &u, &e);
    if (st == KP_ENOMEM) {
        if (err) *err = e;
        return st;
    }
    if (st == KP_ENOTFOUND && !ever_had(s, r) && strcmp(r->kind, "PriorityClass") != 0 &&
        strcmp(r->kind, "Namespace") != 0 && !s->o.refuse_unknown_refs) {
        kp_status f = kp_error_set(err, KP_ENOTFOUND, "actions[%zu]: patch: no such %s %s%s%s", ai,
                                   r->kind, r->ns, r->ns[0] ? "/" : "", r->name);
        if (err && s->sc && s->sc->source)
            snprintf(err->source, sizeof err->source, "%s", s->sc->source);
        return f;
    }
    if (st != KP_OK) return refused(s, ai, e.msg, err);
    char kind[40], msg[400];
    lower_kind(r->kind, kind, sizeof kind);
    snprintf(msg, sizeof msg, "%s/%s patched%s", kind, r->name, u.changed ? "" : " (no change)");
    bool is_pod = strcmp(r->kind, "Pod") == 0, is_node = strcmp(r->kind, "Node") == 0;
    kp_index pod = is_pod ? u.index : -1;
    kp_index node = is_node ? u.index : is_pod ? kp_cluster_pod_node(s->cl, pod) : -1;
    if (kp__sim_log(s, KP_SIM_NORMAL, "Patched", r->kind, r->ns, r->name, msg, pod, node, -1) < 0)
        return nomem(err);
    if (!u.changed) return KP_OK;
    if (is_pod) {
        if (u.resize_pending && (st = kp__sim_resize_decide(s, pod, err)) != KP_OK) return st;
        /* an assigned pod's labels or counted requests changed (AssignedPodUpdate: the hints
         * of PodTopologySpread, InterPodAffinity, NodeResourcesFit's scale-down) */
        if (node >= 0 && (u.resized || u.labels_changed) &&
            kp__sim_move_pod(s, KP_SCHED_EV_POD_UPDATE, pod, node) != KP_OK)
            return nomem(err);
        /* a smaller resize may leave room for a deferred one on the node */
        if (u.resize_pending && (st = kp__sim_resize_retry(s, node, err)) != KP_OK) return st;
        if (kp__sim_pod_changed(s, (uint32_t)pod) != KP_OK) return nomem(err);
        if (node < 0 && kp__sim_pod_updated(s, (uint32_t)pod) != KP_OK) return nomem(err);
        /* taint eviction's handlePodUpdate: new tolerations may cancel or move an eviction */
        if (node >= 0 && u.spec_changed && (st = kp__sim_taint_pod(s, (uint32_t)pod, err)) != KP_OK)
            return st;
        return KP_OK;
    }
    if (is_node) {
        if (kp__sim_move_node(s, KP_SCHED_EV_NODE_UPDATE, node) != KP_OK) return nomem(err);
        if (u.status_changed && (st = kp__sim_resize_retry(s, node, err)) != KP_OK) return st;
        return u.spec_changed ? kp__sim_taint_node(s, node, err) : KP_OK; /* NoExecute taints */
    }
    if (strcmp(r->kind, "PodDisruptionBudget") == 0) return kp__sim_pdb_recount(s, u.index, err);
    if (strcmp(r->kind, "PriorityClass") == 0 || strcmp(r->kind, "Namespace") == 0) return KP_OK;
    if (u.replicas_changed) return kp__sim_workload_scaled(s, (long)u.index, err);
    return kp__sim_mark_workload(s, u.index, err);
}
