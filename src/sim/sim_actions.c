/* The Scenario's timed actions (kprio/scenario.h, docs/scenario.md) applied to the simulated
 * cluster, each through the cluster's explicit changes; `drain` as kubectl drain runs it is
 * sim_drain.c. */
#include <stdio.h>
#include <string.h>

#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

/* "FILE: actions[I]: " before a message of the action */
static kp_status fail(kp_sim *s, size_t i, kp_status code, const char *what, const char *detail,
                      kp_error *err) {
    kp_status st = kp_error_set(err, code, "actions[%zu]: %s: %s", i, what, detail);
    if (err && s->sc && s->sc->source)
        snprintf(err->source, sizeof err->source, "%s", s->sc->source);
    return st;
}

/* A reference that names nothing the scenario could ever have meant (fail above), naming the
 * object: "node \"worker-9\" not found", "pod \"default/web-0\" not found" (kubectl's
 * `KIND "NAME" not found`, with the namespace for namespaced objects). */
static kp_status refused(kp_sim *s, size_t ai, const char *message, kp_error *err);

static kp_status missing(kp_sim *s, size_t ai, const char *verb, const char *kind,
                         const kp_object_ref *r, kp_error *err) {
    char msg[640]; /* a name is at most 253 characters (DNS subdomain) */
    snprintf(msg, sizeof msg, "%s \"%s%s%s\" not found", kind, r->ns ? r->ns : "",
             r->ns && r->ns[0] ? "/" : "", r->name);
    if (s->o.refuse_unknown_refs) { /* a replayed trace: its object may have been refused */
        char m[700];
        snprintf(m, sizeof m, "%s: Error from server (NotFound): %s", verb, msg);
        return refused(s, ai, m, err);
    }
    return fail(s, ai, KP_ENOTFOUND, verb, msg, err);
}

/* An action the API server refuses while the run goes on, as kubectl reports the error of one
 * command (docs/scenario.md): a Warning event of reason ActionFailed on the action
 * ("scenario/actions[I]") with kubectl's text. Only what the cluster tells at that moment is
 * refused so: a name that existed and is gone by then, a create whose object exists or whose
 * PriorityClass is gone; a name never seen is a bad scenario (fail above). */
static kp_status refused(kp_sim *s, size_t ai, const char *message, kp_error *err) {
    char name[32];
    snprintf(name, sizeof name, "actions[%zu]", ai);
    return kp__sim_log(s, KP_SIM_WARNING, "ActionFailed", "Scenario", "", name, message, -1, -1,
                       -1) < 0
               ? nomem(err)
               : KP_OK;
}

/* kubectl's NotFound: `Error from server (NotFound): RESOURCE "NAME" not found` */
static kp_status not_found(kp_sim *s, size_t ai, const char *verb, const char *resource,
                           const char *name, kp_error *err) {
    char msg[640]; /* a name is at most 253 characters (DNS subdomain) */
    snprintf(msg, sizeof msg, "%s: Error from server (NotFound): %s \"%s\" not found", verb,
             resource, name);
    return refused(s, ai, msg, err);
}

/* Whether a pod ns/name lived in this run and is deleted now (its tombstone). */
static bool pod_was_deleted(const kp_sim *s, const kp_object_ref *r) {
    for (size_t p = 0; p < s->n_pods; p++)
        if (kp__sim_pod_state(s, (uint32_t)p) == KP_SIM_POD_DELETED &&
            strcmp(kp_cluster_pod_name(s->cl, (kp_index)p), r->name) == 0 &&
            strcmp(kp_cluster_pod_namespace(s->cl, (kp_index)p), r->ns) == 0)
            return true;
    return false;
}

/* Whether a PDB ns/name lived in this run and is deleted now. */
static bool pdb_was_deleted(const kp_sim *s, const kp_object_ref *r) {
    for (size_t i = 0; i < kp_cluster_pdb_count(s->cl); i++) {
        kp_pdb_info in;
        if (kp_cluster_pdb_info(s->cl, (kp_index)i, &in) == KP_OK && in.deleted &&
            strcmp(in.ns, r->ns) == 0 && strcmp(in.name, r->name) == 0)
            return true;
    }
    return false;
}

/* The workload of that kind and name: the live one, else the last deleted one (-1: never) */
static long find_workload(const kp_sim *s, const kp_object_ref *r) {
    long gone = -1;
    for (size_t i = 0; i < kp_cluster_workload_count(s->cl); i++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(s->cl, (kp_index)i, &in) != KP_OK) continue;
        if (strcmp(in.kind, r->kind) != 0 || strcmp(in.ns, r->ns) != 0 ||
            strcmp(in.name, r->name) != 0)
            continue;
        if (!in.deleted) return (long)i;
        gone = (long)i;
    }
    return gone;
}

/* a workload deleted earlier in the run (kp_cluster_delete_workload) */
static bool wl_deleted(const kp_sim *s, long w) {
    kp_workload_info in;
    return kp_cluster_workload_info(s->cl, (kp_index)w, &in) == KP_OK && in.deleted;
}

/* kubectl's resource name of a workload kind ("deployments.apps"), for NotFound */
static const char *resource_of(const char *kind) {
    static const char *const K[][2] = {{"ReplicaSet", "replicasets.apps"},
                                       {"Deployment", "deployments.apps"},
                                       {"StatefulSet", "statefulsets.apps"},
                                       {"DaemonSet", "daemonsets.apps"},
                                       {"Job", "jobs.batch"},
                                       {"CronJob", "cronjobs.batch"},
                                       {"ReplicationController", "replicationcontrollers"},
                                       {"Service", "services"}};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(K[i][0], kind) == 0) return K[i][1];
    return kind;
}

static kp_index node_of(const kp_sim *s, const kp_object_ref *r) {
    kp_index n = kp_cluster_find_node(s->cl, r->name);
    return n >= 0 && !kp_cluster_node_deleted(s->cl, n) ? n : -1;
}

/* ---- issue 30 item 7: objects deleted earlier in the run (the lookups above find live ones
 * only, so these look at the tombstones) ---- */

/* Whether a node of that name lived in this run and is deleted now. */
static bool node_was_deleted(const kp_sim *s, const char *name) {
    for (size_t n = 0; n < kp_cluster_node_count(s->cl); n++)
        if (kp_cluster_node_deleted(s->cl, (kp_index)n) &&
            strcmp(kp_cluster_node_name(s->cl, (kp_index)n), name) == 0)
            return true;
    return false;
}

/* Whether an action played before action ai deleted that PriorityClass (the cluster keeps no
 * tombstone of a class: the scenario's own earlier deletes tell) */
static bool class_deleted_earlier(const kp_sim *s, size_t ai, const char *name) {
    const kp_scenario_action *me = &s->sc->actions[ai];
    for (size_t j = 0; j < s->sc->n_actions; j++) {
        const kp_scenario_action *a = &s->sc->actions[j];
        if (j == ai || a->type != KP_ACT_DELETE || strcmp(a->ref.kind, "PriorityClass") != 0 ||
            strcmp(a->ref.name, name) != 0)
            continue;
        if (a->at_ms < me->at_ms || (a->at_ms == me->at_ms && j < ai)) return true;
    }
    return false;
}

/* ---------------------------------------------------------------- create */


static kp_status act_create(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_error *err) {
    for (size_t k = 0; k < a->n_objects; k++) {
        const kp_scenario_object *o = &a->objects[k];
        size_t pods0 = kp_cluster_pod_count(s->cl), nodes0 = kp_cluster_node_count(s->cl);
        size_t pdbs0 = kp_cluster_pdb_count(s->cl);
        size_t vol0[KP_SCHED_EV_COUNT]; /* the storage kinds' objects before (their events) */
        for (int ek = 0; ek < KP_SCHED_EV_COUNT; ek++)
            vol0[ek] = kp_sched_event_objects(s->sched, (kp_sched_event_kind)ek);
        kp_error e; /* what the API server answers: the create is refused, the run goes on */
        kp_error_clear(&e);
        kp_status st = kp_cluster_load_buffer(s->cl, o->source, o->text, o->len, &e);
        /* the API server stores each as a create now (creationTimestamp, status Pending); a
         * failed finalize undoes the load */
        if (st == KP_OK) st = kp_cluster_finalize_create(s->cl, s->epoch + s->now / 1000, &e);
        if (st == KP_ENOMEM) {
            if (err) *err = e;
            return st;
        }
        if (st != KP_OK) {
            char msg[KP_ERR_MSG_CAP + 16];
            snprintf(msg, sizeof msg, "create: %s", e.msg);
            if ((st = refused(s, ai, msg, err)) != KP_OK) return st;
            continue;
        }
        if ((st = kp__sim_grow_pods(s)) != KP_OK || (st = kp__sim_grow_workloads(s)) != KP_OK)
            return nomem(err);
        if ((st = kp__sim_cron_start(s, err)) != KP_OK) return st; /* CronJobs it created */
        for (size_t p = pods0; p < kp_cluster_pod_count(s->cl); p++) {
            /* timeline, its workload's pod list, its PDBs, the queue when pending */
            if (kp__sim_pod_added(s, (uint32_t)p, -1) != KP_OK) return nomem(err);
            if (kp__sim_log(s, KP_SIM_NORMAL, "Created", "Pod", kp_cluster_pod_namespace(s->cl, p),
                            kp_cluster_pod_name(s->cl, p), "created by the scenario", p,
                            kp_cluster_pod_node(s->cl, p), -1) < 0)
                return nomem(err);
            kp_index node = kp_cluster_pod_node(s->cl, (kp_index)p);
            if (node >= 0) { /* it named its node: bound by the load */
                s->pods[p].pub.bound_ms = s->now;
                s->pods[p].pub.node = node;
                /* the scheduler's informer: an assigned pod added (AssignedPodAdd) */
                if (kp__sim_move_pod(s, KP_SCHED_EV_POD_ADD, (kp_index)p, node) != KP_OK)
                    return nomem(err);
            }
        }
        for (size_t q = pdbs0; q < kp_cluster_pdb_count(s->cl); q++)
            if ((st = kp__sim_pdb_recount(s, (kp_index)q, err)) != KP_OK) return st;
        for (size_t n = nodes0; n < kp_cluster_node_count(s->cl); n++) /* NodeAdd, per node */
            if (kp__sim_move_node(s, KP_SCHED_EV_NODE_ADD, (kp_index)n) != KP_OK) return nomem(err);
        /* PvcAdd, PvAdd, StorageClassAdd, CSINodeAdd: one event per object */
        for (int ek = 0; ek < KP_SCHED_EV_COUNT; ek++) {
            kp_sched_event ev = {.kind = (kp_sched_event_kind)ek, .node = -1, .pod = -1};
            size_t now = kp_sched_event_objects(s->sched, ev.kind);
            for (size_t i = vol0[ek]; i < now; i++) {
                ev.object = (kp_index)i;
                if (kp__sim_move(s, &ev) != KP_OK) return nomem(err);
            }
        }
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- delete, scale */

/* A Node deleted. The node lifecycle controller logs it (monitorNodeHealth: RemovingNode, "Node
 * NAME event: Removing Node NAME from Controller"); the pod garbage collector deletes the pods
 * still bound to it (kp_ctrl_podgc_sync: gcOrphaned, at once, without its quarantine) and
 * their controllers replace them; the scheduler leaves the node out from then on (its node
 * tree, the FitError's node count, preemption's candidates, nominations to it). */
static kp_status delete_node(kp_sim *s, kp_index n, kp_error *err) {
    const char *name = kp_cluster_node_name(s->cl, n);
    long ev = kp__sim_logf(s, KP_SIM_NORMAL, "RemovingNode", -1, n, -1,
                           "Node %s event: Removing Node %s from Controller", name, name);
    if (ev < 0) return nomem(err);
    kp_status st = kp_cluster_delete_node(s->cl, n, err);
    return st == KP_OK ? kp__sim_podgc(s, ev, err) : st;
}

/* A PDB deleted: preemption and drains no longer see it, the disruption controller stops
 * syncing it (kp_cluster_delete_pdb). */
static kp_status delete_pdb(kp_sim *s, size_t ai, const kp_object_ref *r, kp_error *err) {
    kp_index b = kp_cluster_find_pdb(s->cl, r->ns, r->name);
    if (b < 0 && pdb_was_deleted(s, r))
        return not_found(s, ai, "delete", "poddisruptionbudgets.policy", r->name, err);
    if (b < 0) return missing(s, ai, "delete", "PodDisruptionBudget", r, err);
    kp_status st = kp_cluster_delete_pdb(s->cl, b, err);
    if (st != KP_OK) return st;
    if ((size_t)b < s->n_pdb_spans) s->pdb_to[b] = s->now;
    return kp__sim_log(s, KP_SIM_NORMAL, "Deleted", "PodDisruptionBudget", r->ns, r->name,
                       "deleted by the scenario", -1, -1, -1) < 0
               ? nomem(err)
               : KP_OK;
}

/* A PriorityClass deleted: admitted pods keep their priority, pods created later that name it
 * are refused (FailedCreate from their controllers); a system class is refused (Forbidden). */
static kp_status delete_class(kp_sim *s, size_t ai, const kp_object_ref *r, kp_error *err) {
    kp_index pc = kp_cluster_find_priority_class(s->cl, r->name);
    if (pc < 0 && class_deleted_earlier(s, ai, r->name))
        return not_found(s, ai, "delete", "priorityclasses.scheduling.k8s.io", r->name, err);
    if (pc < 0) return missing(s, ai, "delete", "PriorityClass", r, err);
    kp_error e;
    kp_error_clear(&e);
    kp_status st = kp_cluster_delete_priority_class(s->cl, pc, &e);
    if (st == KP_EINVAL) {
        char msg[KP_ERR_MSG_CAP + 48];
        snprintf(msg, sizeof msg, "delete: Error from server (Forbidden): %s", e.msg);
        return refused(s, ai, msg, err);
    }
    if (st != KP_OK) {
        if (err) *err = e;
        return st;
    }
    return kp__sim_log(s, KP_SIM_NORMAL, "Deleted", "PriorityClass", "", r->name,
                       "deleted by the scenario", -1, -1, -1) < 0
               ? nomem(err)
               : KP_OK;
}


/* The pod a delete by controller names (kprio/scenario.h: owner, owner_rank): the owner_rank-th
 * pod that controller created during the run, in creation (index) order, as kp_trace_compare
 * ranks the simulated pods it pairs with the recorded ones; -1 when the run has fewer, or that
 * pod is gone or going (the run deleted it itself: the recorded deletion has nothing left to
 * do), the reason in msg. */
static kp_index pod_by_owner(const kp_sim *s, const kp_scenario_action *a, char *msg, size_t cap) {
    const kp_object_ref *r = &a->ref, *o = &a->owner;
    uint32_t rank = 0;
    for (size_t i = 0; i < s->n_pods; i++) {
        const kp_sim_pod *tl = kp__sim_pod_view(s, (uint32_t)i);
        kp_pod_info pi;
        if (tl->created_ms < 0 || kp_cluster_pod_info(s->cl, tl->pod, &pi) != KP_OK ||
            !pi.owner_kind || strcmp(pi.owner_kind, o->kind) != 0 ||
            strcmp(pi.owner_name, o->name) != 0 || strcmp(pi.ns, r->ns) != 0)
            continue;
        if (rank++ < a->owner_rank) continue;
        if (tl->state == KP_SIM_POD_DELETED)
            snprintf(msg, cap,
                     "delete: Error from server (NotFound): pods \"%s\" not found (the run's pod "
                     "of %s %s/%s paired with the recorded %s)",
                     pi.name, o->kind, r->ns, o->name, r->name);
        else if (tl->state == KP_SIM_POD_TERMINATING) /* the run deleted it itself */
            snprintf(msg, cap,
                     "delete: pod \"%s\" is being deleted already (the run's pod of %s %s/%s "
                     "paired with the recorded %s)",
                     pi.name, o->kind, r->ns, o->name, r->name);
        else return tl->pod;
        return -1;
    }
    snprintf(msg, cap,
             "delete: no pod of %s %s/%s to pair with the recorded %s (its pod %u; the run's "
             "controller created %u)",
             o->kind, r->ns, o->name, r->name, a->owner_rank + 1, rank);
    return -1;
}

static kp_status act_delete(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_error *err) {
    const kp_object_ref *r = &a->ref;
    if (strcmp(r->kind, "Pod") == 0 && a->owner.kind && a->owner.kind[0]) {
        char msg[1400];
        kp_index p = pod_by_owner(s, a, msg, sizeof msg);
        if (p < 0) return refused(s, ai, msg, err);
        kp__sim_disrupted(s, p, KP_SIM_DISRUPT_DELETION);
        long ev = kp__sim_logf(s, KP_SIM_NORMAL, "Deleted", p, kp_cluster_pod_node(s->cl, p), -1,
                               "deleted by the scenario (the recorded %s)", r->name);
        if (ev < 0) return nomem(err);
        return kp__sim_pod_terminating(s, (uint32_t)p, "deleted", ev, err);
    }
    if (strcmp(r->kind, "Pod") == 0) {
        char ref[600];
        snprintf(ref, sizeof ref, "%s/%s", r->ns, r->name);
        kp_index p = kp_cluster_find_pod(s->cl, ref);
        if (p < 0 && pod_was_deleted(s, r)) return not_found(s, ai, "delete", "pods", r->name, err);
        if (p < 0) return missing(s, ai, "delete", "pod", r, err);
        kp__sim_disrupted(s, p, KP_SIM_DISRUPT_DELETION);
        long ev = kp__sim_log(s, KP_SIM_NORMAL, "Deleted", "Pod", r->ns, r->name,
                              "deleted by the scenario", p, kp_cluster_pod_node(s->cl, p), -1);
        if (ev < 0) return nomem(err);
        return kp__sim_pod_terminating(s, (uint32_t)p, "deleted", ev, err);
    }
    if (strcmp(r->kind, "Node") == 0) {
        kp_index n = node_of(s, r);
        if (n < 0 && node_was_deleted(s, r->name)) /* deleted earlier */
            return not_found(s, ai, "delete", "nodes", r->name, err);
        if (n < 0) return missing(s, ai, "delete", "node", r, err);
        return delete_node(s, n, err);
    }
    if (strcmp(r->kind, "PodDisruptionBudget") == 0) return delete_pdb(s, ai, r, err);
    if (strcmp(r->kind, "PriorityClass") == 0) return delete_class(s, ai, r, err);
    long w = find_workload(s, r);
    if (w < 0) { /* the kinds a delete takes, after the name */
        char msg[700];
        snprintf(msg, sizeof msg,
                 "%s \"%s/%s\" not found (kinds: Pod, Node, PodDisruptionBudget, PriorityClass, "
                 "or a workload of the snapshot)",
                 r->kind, r->ns, r->name);
        if (s->o.refuse_unknown_refs) return refused(s, ai, msg, err);
        return fail(s, ai, KP_ENOTFOUND, "delete", msg, err);
    }
    if (wl_deleted(s, w)) return not_found(s, ai, "delete", resource_of(r->kind), r->name, err);
    return kp__sim_delete_workload(s, w, err);
}

static kp_status act_scale(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_error *err) {
    long w = find_workload(s, &a->ref);
    if (w < 0) return missing(s, ai, "scale", a->ref.kind, &a->ref, err);
    if (wl_deleted(s, w))
        return not_found(s, ai, "scale", resource_of(a->ref.kind), a->ref.name, err);
    kp_status st = kp_cluster_workload_scale(s->cl, w, a->replicas, err);
    if (st != KP_OK) return st;
    return kp__sim_workload_scaled(s, w, err); /* a Deployment scales its ReplicaSet */
}

/* ---------------------------------------------------------------- nodes */


static const char *node_verb(kp_action_type t) {
    switch (t) {
    case KP_ACT_CORDON: return "cordon";
    case KP_ACT_UNCORDON: return "uncordon";
    case KP_ACT_TAINT: return "taint";
    case KP_ACT_UNTAINT: return "untaint";
    case KP_ACT_FAIL: return "fail";
    case KP_ACT_RECOVER: return "recover";
    default: return "drain";
    }
}

static kp_status act_node(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_error *err) {
    if (a->type == KP_ACT_DRAIN && a->drain.has_node_selector)
        return kp__sim_drain_start(s, ai, a, -1, err);
    kp_index n = node_of(s, &a->ref);
    if (n < 0 && node_was_deleted(s, a->ref.name)) /* deleted earlier */
        return not_found(s, ai, node_verb(a->type), "nodes", a->ref.name, err);
    if (n < 0) return missing(s, ai, "node", "node", &a->ref, err);
    kp_status st = KP_OK;
    size_t removed = 0;
    switch (a->type) {
    case KP_ACT_CORDON: return kp__sim_cordon(s, n, true, err);
    case KP_ACT_UNCORDON: return kp__sim_cordon(s, n, false, err);
    case KP_ACT_FAIL:
    case KP_ACT_RECOVER: return kp__sim_node_kubelet(s, n, a->type == KP_ACT_RECOVER, err);
    case KP_ACT_TAINT:
        st = kp_cluster_node_taint(s->cl, n, a->taint.key, a->taint.value, a->taint.effect, err);
        if (st == KP_OK &&
            kp__sim_logf(s, KP_SIM_NORMAL, "TaintAdded", -1, n, -1, "taint %s=%s:%s added",
                         a->taint.key, a->taint.value, a->taint.effect) < 0)
            return nomem(err);
        return st == KP_OK ? kp__sim_taint_node(s, n, err) : st; /* NoExecute: evictions */
    case KP_ACT_UNTAINT:
        kp_sched_node_before(s->sched, n); /* the NodeUpdate's old object */
        st = kp_cluster_node_untaint(s->cl, n, a->taint.key, a->taint.effect, &removed, err);
        if (st != KP_OK) return st;
        if (kp__sim_logf(s, KP_SIM_NORMAL, "TaintRemoved", -1, n, -1, "%zu taint(s) %s removed",
                         removed, a->taint.key) < 0)
            return nomem(err);
        if (removed && kp__sim_move_node(s, KP_SCHED_EV_NODE_UPDATE, n) != KP_OK) return nomem(err);
        return kp__sim_taint_node(s, n, err); /* planned NoExecute evictions may be cancelled */
    case KP_ACT_DRAIN: return kp__sim_drain_start(s, ai, a, n, err);
    default: return KP_OK;
    }
}

kp_status kp__sim_apply_action(kp_sim *s, size_t i, kp_error *err) {
    if (!s->sc || i >= s->sc->n_actions) return KP_OK;
    const kp_scenario_action *a = &s->sc->actions[i];
    /* nodes may change: the DaemonSets look again */
    if (kp__sim_mark_daemonsets(s, err) != KP_OK) return KP_ENOMEM;
    switch (a->type) {
    case KP_ACT_CREATE: return act_create(s, i, a, err);
    case KP_ACT_DELETE: return act_delete(s, i, a, err);
    case KP_ACT_SCALE: return act_scale(s, i, a, err);
    case KP_ACT_PATCH: return kp__sim_patch(s, i, a, err); /* sim_patch.c */
    case KP_ACT_SET_PRIORITY_CLASS: {
        kp_index pc = kp_cluster_find_priority_class(s->cl, a->ref.name);
        if (pc < 0 && class_deleted_earlier(s, i, a->ref.name))
            return not_found(s, i, "setPriorityClass", "priorityclasses.scheduling.k8s.io",
                             a->ref.name, err);
        if (pc < 0) return missing(s, i, "setPriorityClass", "PriorityClass", &a->ref, err);
        kp_status st = kp_cluster_priority_class_set_value(s->cl, pc, a->value, err);
        if (st == KP_OK &&
            kp__sim_log(s, KP_SIM_NORMAL, "PriorityClassChanged", "PriorityClass", "", a->ref.name,
                        "value changed: pods created from now on get it", -1, -1, -1) < 0)
            return nomem(err);
        return st;
    }
    default: return act_node(s, i, a, err);
    }
}
