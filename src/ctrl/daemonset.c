/* The DaemonSet controller (pkg/controller/daemon): one pod per node that should run one, pinned
 * to it; failed and succeeded daemon pods deleted and replaced, extra ones deleted, pods on nodes
 * that should no longer run them deleted; a changed template rolled out (RollingUpdate:
 * maxUnavailable old pods deleted at a time, or with maxSurge the new pod made beside the old
 * one, which goes once the new one is available; OnDelete: only pods deleted by something else
 * are replaced). Which nodes should run a daemon pod is core's rule (kp__daemon_should_run, the
 * node-affinity and taint-toleration predicates of component-helpers, shared with
 * kp_cluster_create_daemon_pod). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

/* NodeShouldRunDaemonPod for DaemonSet w on node (core's kp__daemon_should_run); both false for a
 * deleted node */
static void should_run(const kp_ctrl *c, kp_index w, kp_index node, bool *run, bool *cont) {
    const kp_cluster *cl = c->cl;
    *run = *cont = false;
    if (cl->nodes[node].deleted || !cl->workloads[w].template) return;
    kp__daemon_should_run(cl, &cl->workloads[w], &cl->nodes[node], run, cont);
}

/* The oldest of two running daemon pods (podByCreationTimestampAndPhase: bound first, then the
 * earlier creationTimestamp, then the name). */
static bool daemon_older(const kp_ctrl *c, uint32_t a, uint32_t b) {
    kp_pod_info x, y;
    kp_cluster_pod_info(c->cl, a, &x);
    kp_cluster_pod_info(c->cl, b, &y);
    if ((x.node >= 0) != (y.node >= 0)) return x.node >= 0;
    if (x.creation_ts != y.creation_ts) return x.creation_ts < y.creation_ts;
    return strcmp(x.name, y.name) < 0;
}

/* A Failed / Succeeded daemon pod: FailedDaemonPod / SucceededDaemonPod "Found failed daemon pod
 * NS/NAME on node NODE, will try to kill it" (no failedPodsBackoff in kprio), then deleted at
 * once; its replacement comes at the next sync and links to it. */
static kp_status delete_finished(kp_ctrl *c, const kp_workload_info *in, kp_index node,
                                 uint32_t pod, const kp_pod_info *pi, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    bool failed = pi->phase == KP_POD_PHASE_FAILED;
    char msg[800];
    snprintf(msg, sizeof msg, "Found %s daemon pod %s/%s on node %s, will try to %s",
             failed ? "failed" : "succeeded", pi->ns, pi->name, kp_cluster_node_name(c->cl, node),
             failed ? "kill it" : "delete it");
    kp_status st =
        kp__ctrl_event(c, sink, failed, failed ? "FailedDaemonPod" : "SucceededDaemonPod", in, msg,
                       (kp_index)pod, node, (kp_index)pod, err);
    if (st != KP_OK) return st;
    c->pods[pod].replaced = false; /* its replacement links to it */
    char del[400];
    snprintf(del, sizeof del, "Deleted pod: %s", pi->name);
    kp_ctrl_event ev = {false, "SuccessfulDelete", in->kind, in->ns, in->name, del, pod, -1, -1};
    return kp__ctrl_pod_deleted(c, pod, &ev, sink, err);
}

/* The set's rollout knobs (util.SurgeCount, util.UnavailableCount; updatedDesiredNodeCounts):
 * maxSurge and maxUnavailable scaled against the nodes that should run a pod, rounding up; none
 * with OnDelete; both 0 with nodes to run on: maxUnavailable 1. */
typedef struct {
    bool rolling, surge; /* RollingUpdate; AllowsSurge (maxSurge of 1 node > 0) */
    int64_t max_surge, max_unavailable;
} ds_knobs;

static int64_t scaled_up(const kp_int_or_percent *v, int64_t total) {
    if (!v->set) return 0;
    return v->percent ? ((int64_t)v->value * total + 99) / 100 : v->value;
}

static ds_knobs knobs(const kp_workload *wl, int64_t desired) {
    ds_knobs k = {wl->strategy.type == KP_WL_STRATEGY_ROLLING, false, 0, 0};
    if (!k.rolling) return k;
    k.surge = scaled_up(&wl->strategy.max_surge, 1) > 0;
    k.max_surge = scaled_up(&wl->strategy.max_surge, desired);
    k.max_unavailable = scaled_up(&wl->strategy.max_unavailable, desired);
    if (desired > 0 && k.max_surge == 0 && k.max_unavailable == 0) k.max_unavailable = 1;
    return k;
}

static bool at_update(const kp_ctrl *c, kp_index w, uint32_t pod) {
    const kp_workload *wl = &c->cl->workloads[w];
    return kp__pod_at_revision(c->cl, &c->cl->pods[pod], wl, wl->tmpl_rev);
}

/* A pod for node; *acted (may be NULL) when it was created (a FailedCreate is not an action:
 * the controller tries again at its next sync, not at once) */
static kp_status new_daemon_pod(kp_ctrl *c, kp_index w, const kp_workload_info *in, kp_index node,
                                const kp_ctrl_sink *sink, bool *acted, kp_error *err) {
    char base[320], name[400];
    snprintf(base, sizeof base, "%s-", in->name);
    kp_cluster_generate_pod_name(c->cl, in->ns, base, c->wls[w].name_seq++, name, sizeof name);
    size_t before = kp_cluster_pod_count(c->cl);
    kp_status st = kp__ctrl_create_pod(c, w, in, name, node, sink, err);
    if (acted && kp_cluster_pod_count(c->cl) > before) *acted = true;
    return st;
}

/* With surge (podsShouldBeOnNode's AllowsSurge branch), the running pods run[0..n) of a node
 * that should keep its pod, oldest first: the oldest at the update revision and the oldest
 * older one stay, every other goes; of those two, the old one goes once it is not Ready or the
 * new one is available. */
static kp_status surge_prune(kp_ctrl *c, kp_index w, const kp_workload_info *in,
                             const uint32_t *run, uint32_t n, const kp_ctrl_sink *sink, bool *acted,
                             kp_error *err) {
    long nw = -1, old = -1;
    for (uint32_t i = 0; i < n; i++) {
        long *slot = at_update(c, w, run[i]) ? &nw : &old;
        if (*slot < 0) {
            *slot = run[i];
            continue;
        }
        kp_status st = kp__ctrl_delete_pod(c, in, run[i], NULL, sink, err);
        if (st != KP_OK) return st;
        *acted = true;
    }
    if (nw < 0 || old < 0) return KP_OK;
    if (kp_cluster_pod_ready(c->cl, old) &&
        !kp_cluster_pod_available(c->cl, nw, in->min_ready_seconds, kp__ctrl_now_s(c)))
        return KP_OK;
    *acted = true;
    return kp__ctrl_delete_pod(c, in, (uint32_t)old, NULL, sink, err);
}

/* mirrors DaemonSetsController.podsShouldBeOnNode for one node, its pods of the set in
 * pods[0..n): should run and none there: a pod for it; a Failed pod is deleted
 * (FailedDaemonPod) and a Succeeded one too (SucceededDaemonPod), then replaced at the next
 * sync; of several running pods the oldest stays (with surge: surge_prune; and a node whose pods
 * all terminate gets its new pod at once); a pod that should not continue running (an
 * untolerated NoExecute taint, a selector that no longer fits) goes. Without surge a terminating
 * pod still counts as there: its replacement waits until it is gone. *acted: something was
 * created or deleted. */
static kp_status daemon_node(kp_ctrl *c, kp_index w, const kp_workload_info *in, kp_index node,
                             uint32_t *pods, uint32_t n, bool surge, const kp_ctrl_sink *sink,
                             bool *acted, kp_error *err) {
    bool run = false, cont = false;
    should_run(c, w, node, &run, &cont);
    if (run && n == 0) return new_daemon_pod(c, w, in, node, sink, acted, err);
    uint32_t n_run = 0; /* the running ones, oldest first, compacted into pods[] */
    for (uint32_t i = 0; i < n; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, pods[i], &pi);
        if (pi.deletion_ts != KP_TIME_UNSET) continue;
        kp_status st = KP_OK;
        if (!cont) {
            st = kp__ctrl_delete_pod(c, in, pods[i], NULL, sink, err);
            *acted = true;
        } else if (pi.terminal) {
            st = delete_finished(c, in, node, pods[i], &pi, sink, err);
            *acted = true;
        } else {
            uint32_t j = n_run++, q = pods[i];
            for (; j > 0 && daemon_older(c, q, pods[j - 1]); j--) pods[j] = pods[j - 1];
            pods[j] = q;
        }
        if (st != KP_OK) return st;
    }
    if (!cont) return KP_OK;
    if (surge) {
        if (n_run == 0 && run) return new_daemon_pod(c, w, in, node, sink, acted, err);
        return surge_prune(c, w, in, pods, n_run, sink, acted, err);
    }
    for (uint32_t i = 1; i < n_run; i++) { /* all but the oldest */
        kp_status st = kp__ctrl_delete_pod(c, in, pods[i], NULL, sink, err);
        if (st != KP_OK) return st;
        *acted = true;
    }
    return KP_OK;
}

/* One node's pods for the rolling update (findUpdatedPodsOnNode over the pods not terminating
 * nor ended): at most one at the update revision (*nw) and one older (*old), -1 when none;
 * false with more of either (the manage loop prunes them first). */
static bool updated_on_node(const kp_ctrl *c, kp_index w, const uint32_t *pods, uint32_t n,
                            long *nw, long *old) {
    *nw = *old = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!kp__ctrl_active(c, pods[i])) continue;
        long *slot = at_update(c, w, pods[i]) ? nw : old;
        if (*slot >= 0) return false;
        *slot = pods[i];
    }
    return true;
}

/* The set's pods by node: first[node] -> next[i] chains over list[] (creation order) */
typedef struct {
    int64_t *first, *next;
    uint32_t *list, *on;
    size_t nn;
} ds_map;

static uint32_t node_pods(const ds_map *m, size_t node, uint32_t *out) {
    uint32_t n = 0;
    for (int64_t i = m->first[node]; i >= 0; i = m->next[i]) out[n++] = m->list[i];
    return n;
}

static bool pod_available(const kp_ctrl *c, const kp_workload_info *in, long pod) {
    return kp_cluster_pod_available(c->cl, pod, in->min_ready_seconds, kp__ctrl_now_s(c));
}

/* mirrors DaemonSetsController.rollingUpdate without surge: nodes that should run a pod and
 * have none, or have both an old and a new one, and nodes whose new pod is not available count
 * as unavailable; an old pod that is not available goes at once (and counts); old available
 * ones, in node order, while the count stays under maxUnavailable. The manage loop makes their
 * successors once they are gone. */
static kp_status update_no_surge(kp_ctrl *c, kp_index w, const kp_workload_info *in,
                                 const ds_map *m, const ds_knobs *k, uint32_t *del,
                                 const kp_ctrl_sink *sink, kp_error *err) {
    int64_t unavailable = 0;
    uint32_t n_del = 0, n_cand = 0;
    uint32_t *cand = del + m->nn; /* candidates after the allowed replacements */
    for (size_t node = 0; node < m->nn; node++) {
        bool run = false, cont = false;
        should_run(c, w, (kp_index)node, &run, &cont);
        uint32_t n = node_pods(m, node, m->on);
        if (!run && n == 0) continue;
        long nw, old;
        if (!updated_on_node(c, w, m->on, n, &nw, &old) || (nw < 0) == (old < 0)) {
            unavailable++;
        } else if (nw >= 0) {
            unavailable += !pod_available(c, in, nw);
        } else if (!pod_available(c, in, old)) {
            del[n_del++] = (uint32_t)old;
            unavailable++;
        } else if (unavailable < k->max_unavailable) {
            cand[n_cand++] = (uint32_t)old;
        }
    }
    int64_t left = k->max_unavailable - unavailable;
    for (uint32_t i = 0; i < n_cand && (int64_t)i < left; i++) del[n_del++] = cand[i];
    for (uint32_t i = 0; i < n_del; i++) {
        kp_status st = kp__ctrl_delete_pod(c, in, del[i], NULL, sink, err);
        if (st != KP_OK) return st;
        c->pods[del[i]].replaced = false; /* its successor on the node links to it */
    }
    return KP_OK;
}

/* mirrors DaemonSetsController.rollingUpdate with surge: a node whose old pod is not available
 * gets its new pod at once (or, should it no longer run one, loses the old); up to maxSurge
 * minus the nodes surging already (a new pod not yet available) more nodes with an available
 * old pod get theirs, in node order; a node whose new pod is available loses the old one; old
 * pods on nodes that should no longer run one go as far as the available pods exceed the nodes
 * that should. */
static kp_status update_surge(kp_ctrl *c, kp_index w, const kp_workload_info *in, const ds_map *m,
                              const ds_knobs *k, uint32_t *del, const kp_ctrl_sink *sink,
                              kp_error *err) {
    int64_t n_surge = 0, n_avail = 0, desired = 0;
    uint32_t n_del = 0, n_new = 0, n_cand = 0, n_gone = 0;
    uint32_t *make = del + m->nn, *cand = make + m->nn, *gone = cand + m->nn;
    for (size_t node = 0; node < m->nn; node++) {
        bool run = false, cont = false;
        should_run(c, w, (kp_index)node, &run, &cont);
        desired += run;
        uint32_t n = node_pods(m, node, m->on);
        if (!run && n == 0) continue;
        long nw, old;
        if (!updated_on_node(c, w, m->on, n, &nw, &old)) {
            n_surge++;
            continue;
        }
        n_avail += old >= 0 ? pod_available(c, in, old) : nw >= 0 && pod_available(c, in, nw);
        if (old < 0) continue; /* the manage loop's */
        if (nw >= 0) {
            if (!pod_available(c, in, nw)) n_surge++;
            else del[n_del++] = (uint32_t)old;
        } else if (!pod_available(c, in, old)) {
            if (run) make[n_new++] = (uint32_t)node;
            else del[n_del++] = (uint32_t)old;
        } else if (!run) {
            gone[n_gone++] = (uint32_t)old;
        } else if (n_surge < k->max_surge) {
            cand[n_cand++] = (uint32_t)node;
        }
    }
    for (int64_t i = 0; i < n_avail - desired && i < n_gone; i++) del[n_del++] = gone[i];
    for (int64_t i = 0; i < k->max_surge - n_surge && i < n_cand; i++) make[n_new++] = cand[i];
    kp_status st = KP_OK; /* syncNodes: creations first, then deletions */
    for (uint32_t i = 0; i < n_new && st == KP_OK; i++)
        st = new_daemon_pod(c, w, in, (kp_index)make[i], sink, NULL, err);
    for (uint32_t i = 0; i < n_del && st == KP_OK; i++)
        st = kp__ctrl_delete_pod(c, in, del[i], NULL, sink, err);
    return st;
}

/* mirrors DaemonSetsController.syncDaemonSet / manage: getNodesToDaemonPods (the set's pods by
 * target node, GetTargetNodeName), podsShouldBeOnNode for every node (daemon_node), and
 * getUnscheduledPodsWithoutNode (a pending pod whose node is gone is deleted); then, once the
 * manage loop has nothing left to do (the controller's expectations: a sync that created or
 * deleted syncs again), the rolling update (RollingUpdate; OnDelete: nothing). A node added,
 * changed or deleted queues every set (kp_ctrl_node_changed). */
kp_status kp_ctrl_daemonset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    if (kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    kp_workload_info in;
    if (w < 0 || (size_t)w >= c->n_wls || c->wls[w].kind != CTRL_KIND_DAEMONSET ||
        kp_cluster_workload_info(c->cl, w, &in) != KP_OK)
        return kp_error_set(err, KP_EINVAL, "daemonset sync: %ld is not a DaemonSet", (long)w);
    c->now = now_ms;
    if (kp__ctrl_claim_pods(c, w) != KP_OK) return kp__ctrl_nomem(err);
    if (!in.has_template) return KP_OK;
    size_t nn = kp_cluster_node_count(c->cl);
    uint32_t nw = c->wls[w].n;
    ds_map m = {kp__malloc((nn + 1) * sizeof *m.first),
                kp__malloc(((size_t)nw + 1) * sizeof *m.next),
                kp__malloc(((size_t)nw + 1) * sizeof *m.list), NULL, nn};
    uint32_t *work = NULL; /* the rolling update's lists: 4 per node */
    if (!m.first || !m.next || !m.list || !(m.on = kp__malloc(((size_t)nw + 1) * sizeof *m.on)) ||
        !(work = kp__malloc((4 * nn + 1) * sizeof *work))) {
        kp__free(m.first), kp__free(m.next), kp__free(m.list), kp__free(m.on);
        return kp__ctrl_nomem(err);
    }
    for (size_t k = 0; k < nn; k++) m.first[k] = -1;
    uint32_t n_orphan = 0;
    for (uint32_t i = nw; i-- > 0;) { /* chains in creation order */
        uint32_t q = c->wls[w].pods[i];
        kp_pod_info pi;
        kp_cluster_pod_info(c->cl, q, &pi);
        if (pi.deleted) continue;
        kp_index t = pi.node >= 0 ? pi.node : kp_cluster_pod_target_node(c->cl, q);
        if (t == -2 && pi.deletion_ts == KP_TIME_UNSET) /* getUnscheduledPodsWithoutNode */
            m.on[n_orphan++] = q;
        if (t < 0) continue; /* no target node: GetTargetNodeName's error, skipped */
        m.list[i] = q;
        m.next[i] = m.first[t];
        m.first[t] = i;
    }
    kp_status st = KP_OK;
    bool acted = n_orphan > 0;
    for (uint32_t i = 0; i < n_orphan && st == KP_OK; i++)
        st = kp__ctrl_delete_pod(c, &in, m.on[i], NULL, sink, err);
    int64_t desired = 0;
    for (size_t k = 0; k < nn; k++) {
        bool run = false, cont = false;
        should_run(c, w, (kp_index)k, &run, &cont);
        desired += run;
    }
    ds_knobs kn = knobs(&c->cl->workloads[w], desired);
    for (size_t k = 0; k < nn && st == KP_OK; k++) {
        if (kp_cluster_node_deleted(c->cl, (kp_index)k)) continue;
        uint32_t n = node_pods(&m, k, m.on);
        st = daemon_node(c, w, &in, (kp_index)k, m.on, n, kn.surge, sink, &acted, err);
    }
    if (st == KP_OK && acted) kp__ctrl_mark(c, w); /* expectations: the update comes next */
    else if (st == KP_OK && kn.rolling && !kn.surge)
        st = update_no_surge(c, w, &in, &m, &kn, work, sink, err);
    else if (st == KP_OK && kn.rolling) st = update_surge(c, w, &in, &m, &kn, work, sink, err);
    kp__free(m.first), kp__free(m.next), kp__free(m.list), kp__free(m.on), kp__free(work);
    return st;
}
