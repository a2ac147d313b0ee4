/* The scenario's `drain` (docs/scenario.md) as `kubectl drain` runs it (k8s.io/kubectl/pkg/cmd/
 * drain RunDrain, pkg/drain): every node named (one, or those nodeSelector matches, in name
 * order) is cordoned first (RunCordonOrUncordon), then drained, `concurrency` nodes at a time
 * (kubectl drains one after the other; a larger concurrency stands for several drains run side
 * by side), the next starting when one is drained. A node's drain first lists its pods
 * (GetPodsForDeletion: podSelector, then the filters daemonSetFilter, mirrorPodFilter,
 * localStorageFilter, unreplicatedFilter with kubectl's defaults: ignoreDaemonSets,
 * deleteEmptyDirData and force false); a pod the filters refuse fails that node's drain with
 * kubectl's error (an ActionFailed event) and no other node starts (kubectl aborts the
 * command; the nodes stay cordoned). Otherwise each pod is evicted through the Eviction API's
 * rules (refused while a PDB that selects it allows no disruption, retried every 5 s), with
 * gracePeriod when given, and the node is Drained once they are gone (waitForDelete polls every
 * 1 s). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_internal.h"

#define DRAIN_RETRY_MS 5000 /* kubectl drain: "will retry after 5s" */
#define DRAIN_POLL_MS 1000 /* kubectl drain: waitForDelete's poll interval */

struct sim_drain {
    const kp_scenario_drain *o;
    size_t action;
    kp_index *nodes;
    size_t n_nodes, next;
    uint32_t running;
    bool aborted;
};

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

/* kubectl cordon / uncordon: spec.unschedulable, the kubelet's NodeNotSchedulable /
 * NodeSchedulable event, the node lifecycle controller's unschedulable taint */
kp_status kp__sim_cordon(kp_sim *s, kp_index n, bool on, kp_error *err) {
    if (kp_cluster_node_unschedulable(s->cl, n) == on) return KP_OK;
    kp_sched_node_before(s->sched, n); /* the NodeUpdate's old object */
    kp_status st = kp_cluster_node_set_unschedulable(s->cl, n, on, err);
    if (st != KP_OK) return st;
    const char *what = on ? "NodeNotSchedulable" : "NodeSchedulable";
    if (kp__sim_logf(s, KP_SIM_NORMAL, what, -1, n, -1, "Node %s status is now: %s",
                     kp_cluster_node_name(s->cl, n), what) < 0)
        return nomem(err);
    if (!on && kp__sim_move_node(s, KP_SCHED_EV_NODE_UPDATE, n) != KP_OK) return nomem(err);
    /* then the node lifecycle controller's node.kubernetes.io/unschedulable:NoSchedule follows
     * (its own node update) */
    return kp__sim_node_noschedule(s, n, err);
}

/* what the filters say of a pod (filterPods: the first filter that does not delete it wins) */
typedef enum {
    F_DELETE = 0,
    F_SKIP, /* a mirror pod, an ignored DaemonSet pod, one podSelector does not select */
    F_ERR_DAEMONSET, /* daemonSetFatal */
    F_ERR_DAEMONSET_GONE, /* its DaemonSet is not found (without force) */
    F_ERR_LOCAL, /* localStorageFatal */
    F_ERR_UNMANAGED /* unmanagedFatal */
} verdict;

static const kp_scenario_drain DEFAULTS = {false, NULL, 0, NULL, 0, 1, -1, false, false, false};

static verdict filter(kp_sim *s, const kp_scenario_drain *o, kp_index p, const kp_pod_info *pi) {
    if (!kp_cluster_pod_matches(s->cl, p, o->pod_reqs, o->n_pod_reqs)) return F_SKIP;
    if (pi->terminal) return F_DELETE; /* any finished pod can be removed */
    if (strcmp(pi->owner_kind, "DaemonSet") == 0) { /* daemonSetFilter */
        kp_index w = kp_cluster_pod_workload(s->cl, p);
        kp_workload_info in;
        bool gone = w < 0 || kp_cluster_workload_info(s->cl, w, &in) != KP_OK || in.deleted;
        if (gone && !o->force) return F_ERR_DAEMONSET_GONE;
        if (!gone && !o->ignore_daemonsets) return F_ERR_DAEMONSET;
        if (!gone) return F_SKIP;
    }
    if (pi->is_mirror) return F_SKIP; /* mirrorPodFilter */
    if (kp_cluster_pod_has_empty_dir(s->cl, p) && !o->delete_emptydir_data) return F_ERR_LOCAL;
    if (!*pi->owner_kind && !o->force) return F_ERR_UNMANAGED; /* unreplicatedFilter */
    return F_DELETE;
}

/* PodDeleteList.errors as kubectl prints them, in the filters' order: "cannot delete MESSAGE:
 * ns/a, ns/b", several joined as an aggregate ("[e1, e2]"); "" when none */
static void list_errors(kp_sim *s, const kp_scenario_drain *o, kp_index node, char *out,
                        size_t cap) {
    static const char *const MSG[] = {
        NULL,
        NULL,
        "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)",
        NULL,
        "cannot delete Pods with local storage (use --delete-emptydir-data to override)",
        "cannot delete Pods that declare no controller (use --force to override)"};
    size_t len = 0, n_errs = 0;
    out[0] = 0;
    char buf[2048];
    for (int v = F_ERR_DAEMONSET; v <= F_ERR_UNMANAGED; v++) {
        size_t b = 0;
        bool any = false;
        for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
            kp_index p = kp_cluster_node_pod(s->cl, node, i);
            kp_pod_info pi;
            kp_cluster_pod_info(s->cl, p, &pi);
            if (filter(s, o, p, &pi) != (verdict)v) continue;
            if (!any && v == F_ERR_DAEMONSET_GONE)
                b += (size_t)snprintf(
                    buf + b, b < sizeof buf ? sizeof buf - b : 0,
                    "cannot delete daemonsets.apps \"%s\" not found: ", pi.owner_name);
            else if (!any)
                b += (size_t)snprintf(buf + b, b < sizeof buf ? sizeof buf - b : 0, "%s: ", MSG[v]);
            b += (size_t)snprintf(buf + b, b < sizeof buf ? sizeof buf - b : 0, "%s%s/%s",
                                  any ? ", " : "", pi.ns, pi.name);
            any = true;
        }
        if (!any) continue;
        len +=
            (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", n_errs ? ", " : "", buf);
        n_errs++;
    }
    if (n_errs > 1 && len + 2 < cap) { /* utilerrors.NewAggregate: "[e1, e2]" */
        memmove(out + 1, out, len + 1);
        out[0] = '[';
        out[len + 1] = ']';
        out[len + 2] = 0;
    }
}

static struct sim_drain *drain_of(const kp_sim *s, kp_index node) {
    if (node < 0 || (size_t)node >= s->n_node_drain || s->node_drain[node] < 0) return NULL;
    return &s->drains[s->node_drain[node]];
}

static kp_status start_next(kp_sim *s, struct sim_drain *d, kp_error *err);

/* one node's drain ended (drained or refused): the next one starts */
static kp_status node_done(kp_sim *s, kp_index node, kp_error *err) {
    struct sim_drain *d = drain_of(s, node);
    if (!d) return KP_OK;
    s->node_drain[node] = -1;
    d->running--;
    return start_next(s, d, err);
}

kp_status kp__sim_drain_step(kp_sim *s, kp_index node, kp_error *err) {
    struct sim_drain *d = drain_of(s, node);
    const kp_scenario_drain *o = d ? d->o : &DEFAULTS;
    if (kp_cluster_node_deleted(s->cl, node)) return node_done(s, node, err);
    bool blocked = false, busy = false;
    for (size_t i = 0; i < kp_cluster_node_pod_count(s->cl, node); i++) {
        kp_index p = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (filter(s, o, p, &pi) != F_DELETE) continue;
        if (pi.deletion_ts != KP_TIME_UNSET) {
            busy = true;
            continue;
        }
        kp_index pdb;
        kp_evict_verdict v = kp_cluster_evict_check(s->cl, p, &pdb);
        if (v == KP_EVICT_TOO_MANY_REQUESTS || v == KP_EVICT_MULTIPLE_PDBS) {
            /* the Eviction API's 429, or its 500 for a pod of two PDBs (kubectl drain retries
             * the first; kprio retries both) */
            if (!s->pods[p].drain_blocked &&
                kp__sim_logf(s, KP_SIM_WARNING, "EvictionBlocked", p, node, -1, "%s",
                             v == KP_EVICT_TOO_MANY_REQUESTS
                                 ? "Cannot evict pod as it would violate the pod's disruption "
                                   "budget."
                                 : "This pod has more than one PodDisruptionBudget, which the "
                                   "eviction subresource does not support.") < 0)
                return nomem(err);
            s->pods[p].drain_blocked = true;
            blocked = true;
            continue;
        }
        kp__sim_disrupted(s, p, KP_SIM_DISRUPT_EVICTION_API);
        long ev = kp__sim_logf(s, KP_SIM_NORMAL, "Evicted", p, node, -1,
                               "Evicted through the Eviction API (drain of node %s)",
                               kp_cluster_node_name(s->cl, node));
        if (ev < 0) return nomem(err);
        if (o->grace_period >= 0) { /* DeleteOptions.GracePeriodSeconds */
            s->pods[p].has_grace = true;
            s->pods[p].grace_s = o->grace_period;
        }
        kp_status st = kp_cluster_mark_terminating(s->cl, p, s->epoch + s->now / 1000,
                                                   "EvictionByEvictionAPI", err);
        if (st == KP_OK) st = kp__sim_pod_terminating(s, (uint32_t)p, "evicted", ev, err);
        if (st != KP_OK) return st;
        busy = true;
        i = (size_t)-1; /* the node's list may have changed: look again from the start */
    }
    if (blocked) return kp__sim_timer_add(s, s->now + DRAIN_RETRY_MS, SIM_EV_DRAIN_RETRY, node, 0);
    /* kubectl drain then waits for the evicted pods to be gone (waitForDelete polls each 1s) */
    if (busy) return kp__sim_timer_add(s, s->now + DRAIN_POLL_MS, SIM_EV_DRAIN_RETRY, node, 0);
    if (kp__sim_logf(s, KP_SIM_NORMAL, "Drained", -1, node, -1, "node/%s drained",
                     kp_cluster_node_name(s->cl, node)) < 0)
        return nomem(err);
    return node_done(s, node, err);
}

/* deleteOrEvictPodsSimple: the pod list first (a refusal fails the node and the command) */
static kp_status begin_node(kp_sim *s, struct sim_drain *d, kp_index node, kp_error *err) {
    char msg[4096];
    list_errors(s, d->o, node, msg, sizeof msg);
    if (!msg[0]) return kp__sim_drain_step(s, node, err);
    d->aborted = true;
    char name[32], text[4400];
    snprintf(name, sizeof name, "actions[%zu]", d->action);
    snprintf(text, sizeof text, "drain: unable to drain node \"%s\": %s",
             kp_cluster_node_name(s->cl, node), msg);
    /* about the action, as every refused action's event (sim_actions.c) */
    if (kp__sim_log(s, KP_SIM_WARNING, "ActionFailed", "Scenario", "", name, text, -1, -1, -1) < 0)
        return nomem(err);
    return node_done(s, node, err);
}

static kp_status start_next(kp_sim *s, struct sim_drain *d, kp_error *err) {
    while (!d->aborted && d->next < d->n_nodes && d->running < (uint32_t)d->o->concurrency) {
        kp_index node = d->nodes[d->next++];
        if (kp_cluster_node_deleted(s->cl, node) || s->node_drain[node] >= 0) continue;
        s->node_drain[node] = (int32_t)(d - s->drains);
        d->running++;
        kp_status st = begin_node(s, d, node, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* The nodes a drain names, in name order (as the API lists them) */
static kp_status pick_nodes(kp_sim *s, const kp_scenario_action *a, kp_index named,
                            struct sim_drain *d) {
    size_t n = kp_cluster_node_count(s->cl);
    d->nodes = kp_calloc(n ? n : 1, sizeof *d->nodes);
    if (!d->nodes) return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        kp_index node = (kp_index)i;
        if (named >= 0 ? node != named
                       : kp_cluster_node_deleted(s->cl, node) ||
                             !kp_cluster_node_matches(s->cl, node, a->drain.node_reqs,
                                                      a->drain.n_node_reqs))
            continue;
        size_t j = d->n_nodes++; /* insertion by name */
        const char *nm = kp_cluster_node_name(s->cl, node);
        while (j > 0 && strcmp(kp_cluster_node_name(s->cl, d->nodes[j - 1]), nm) > 0) {
            d->nodes[j] = d->nodes[j - 1];
            j--;
        }
        d->nodes[j] = node;
    }
    return KP_OK;
}

kp_status kp__sim_drain_start(kp_sim *s, size_t ai, const kp_scenario_action *a, kp_index node,
                              kp_error *err) {
    size_t nn = kp_cluster_node_count(s->cl);
    if (nn > s->n_node_drain) {
        int32_t *v = kp_realloc(s->node_drain, nn * sizeof *v);
        if (!v) return nomem(err);
        for (size_t i = s->n_node_drain; i < nn; i++) v[i] = -1;
        s->node_drain = v;
        s->n_node_drain = nn;
    }
    void *dv = s->drains;
    if (!kp__grow(&dv, &s->cap_drains, s->n_drains + 1, sizeof *s->drains, 4)) return nomem(err);
    s->drains = dv;
    struct sim_drain *d = &s->drains[s->n_drains++];
    memset(d, 0, sizeof *d);
    d->o = &a->drain;
    d->action = ai;
    if (pick_nodes(s, a, node, d) != KP_OK) return nomem(err);
    for (size_t i = 0; i < d->n_nodes; i++) { /* RunCordonOrUncordon: every node first */
        kp_status st = kp__sim_cordon(s, d->nodes[i], true, err);
        if (st != KP_OK) return st;
    }
    return start_next(s, d, err);
}

void kp__sim_drains_free(kp_sim *s) {
    for (size_t i = 0; i < s->n_drains; i++) kp_free(s->drains[i].nodes);
    kp_free(s->drains);
    kp_free(s->node_drain);
}
