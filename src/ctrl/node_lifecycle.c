/* The node lifecycle controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go) for
 * what kprio models: the NoSchedule taints that follow a node's pressure conditions
 * (doNoScheduleTaintingPass: MemoryPressure -> node.kubernetes.io/memory-pressure, DiskPressure
 * -> node.kubernetes.io/disk-pressure, PIDPressure -> node.kubernetes.io/pid-pressure), added and
 * removed through core (kp_cluster_node_taint / _untaint) with the events TaintAdded "taint
 * KEY=:NoSchedule added" and TaintRemoved "N taint(s) KEY removed".
 *
 * The controller keeps, per node, the conditions it tainted for: a taint already on the node
 * when the controller first looks (a snapshot's) is left alone until the condition has been seen
 * and gone. Below: the Ready condition's taints (monitorNodeHealth, processTaintBaseEviction,
 * doNoExecuteTaintingPass), spec.unschedulable's and the node's health. Not modelled:
 * NetworkUnavailable, zone states. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "ctrl/ctrl_internal.h"
#include "kprio/node_conditions.h"

/* nodeConditionToTaintKeyStatusMap (the pressure part), in the order the pass looks at them */
static const struct {
    unsigned bit;
    const char *taint;
} PRESSURE_TAINTS[] = {
    {KP_NODE_COND_MEMORY_PRESSURE, "node.kubernetes.io/memory-pressure"},
    {KP_NODE_COND_DISK_PRESSURE, "node.kubernetes.io/disk-pressure"},
    {KP_NODE_COND_PID_PRESSURE, "node.kubernetes.io/pid-pressure"},
};

static kp_status node_event(kp_ctrl *c, kp_index node, const char *reason, const char *msg,
                            const kp_ctrl_sink *sink, kp_error *err) {
    if (!sink || !sink->event) return KP_OK;
    kp_ctrl_event ev = {false, reason, "Node", "", kp_cluster_node_name(c->cl, node),
                        msg,   -1,     node,   -1};
    return sink->event(sink->ctx, &ev, err);
}

/* the per-node conditions tainted for, grown to the cluster's nodes */
static kp_status grow_nodes(kp_ctrl *c) {
    size_t n = kp_cluster_node_count(c->cl);
    if (n <= c->n_node_tainted) return KP_OK;
    uint8_t *nt = kp__realloc(c->node_tainted, n);
    if (!nt) return KP_ENOMEM;
    for (size_t i = c->n_node_tainted; i < n; i++) nt[i] = 0;
    c->node_tainted = nt;
    c->n_node_tainted = n;
    return KP_OK;
}

/* mirrors Controller.doNoScheduleTaintingPass for the pressure conditions: the taint of each
 * condition the node reports now (`conditions`, KP_NODE_COND_* bits) that the controller has not
 * added yet is added; the taint of each condition it added that is gone is removed. *untainted:
 * a taint was removed (pods may fit again). */
kp_status kp_ctrl_node_lifecycle_sync(kp_ctrl *c, kp_index node, unsigned conditions,
                                      int64_t now_ms, const kp_ctrl_sink *sink, bool *untainted,
                                      kp_error *err) {
    if (untainted) *untainted = false;
    if (node < 0 || (size_t)node >= kp_cluster_node_count(c->cl))
        return kp_error_set(err, KP_EINVAL, "node index %ld is out of range", (long)node);
    if (grow_nodes(c) != KP_OK) return kp__ctrl_nomem(err);
    c->now = now_ms;
    for (size_t i = 0; i < sizeof PRESSURE_TAINTS / sizeof PRESSURE_TAINTS[0]; i++) {
        unsigned b = PRESSURE_TAINTS[i].bit;
        const char *key = PRESSURE_TAINTS[i].taint;
        bool on = (conditions & b) != 0, was = (c->node_tainted[node] & b) != 0;
        if (on == was) continue;
        char msg[300];
        kp_status st;
        if (on) {
            c->node_tainted[node] |= (uint8_t)b;
            if ((st = kp_cluster_node_taint(c->cl, node, key, "", "NoSchedule", err)) != KP_OK)
                return st;
            snprintf(msg, sizeof msg, "taint %s=:NoSchedule added", key);
            st = node_event(c, node, "TaintAdded", msg, sink, err);
        } else {
            size_t removed = 0;
            c->node_tainted[node] &= (uint8_t)~b;
            if (untainted) *untainted = true;
            st = kp_cluster_node_untaint(c->cl, node, key, "NoSchedule", &removed, err);
            if (st != KP_OK) return st;
            snprintf(msg, sizeof msg, "%zu taint(s) %s removed", removed, key);
            st = node_event(c, node, "TaintRemoved", msg, sink, err);
        }
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- node health
 * monitorNodeHealth and the NoExecute / NoSchedule taints that follow the Ready condition. The
 * kubelet's heartbeat (node status and lease, every 10 s) is not played: while a node's kubelet
 * posts, the controller sees it fresh at every pass; the runner says when it stops and resumes
 * (kp_ctrl_node_kubelet). The monitor passes run every nodeMonitorPeriod (5 s) from t = 0; the
 * controller asks the runner for the passes that can change something (resync_at,
 * KP_CTRL_RESYNC_NODE). Simplified: the zone states (PartialDisruption's slower rate, and no
 * taints at all while every zone is fully disrupted) are not modelled; each zone's
 * zoneNoExecuteTainter rate limiter (evictionLimiterQPS 0.1, burst 1: a node every 10 s) is. */

#define NODE_MONITOR_PERIOD_MS 5000 /* nodeMonitorPeriod */
#define NODE_EVICTION_INTERVAL_MS 10000 /* 1 / NodeEvictionRate (0.1 nodes per second) */

static const char *const NOT_READY = "node.kubernetes.io/not-ready";
static const char *const UNREACHABLE = "node.kubernetes.io/unreachable";
static const char *const UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

static kp_status grow_health(kp_ctrl *c) {
    size_t n = kp_cluster_node_count(c->cl);
    if (n <= c->n_node_health) return KP_OK;
    ctrl_node *h = kp__realloc(c->node_health, n * sizeof *h);
    if (!h) return KP_ENOMEM;
    for (size_t i = c->n_node_health; i < n; i++) h[i] = (ctrl_node){false, 0};
    c->node_health = h;
    c->n_node_health = n;
    return KP_OK;
}

/* the first monitor pass after t_ms */
static int64_t next_pass(int64_t t_ms) {
    int64_t k = t_ms >= 0 ? t_ms / NODE_MONITOR_PERIOD_MS : -1;
    return (k + 1) * NODE_MONITOR_PERIOD_MS;
}

static kp_status resync(kp_ctrl *c, kp_index node, int64_t at, const kp_ctrl_sink *sink,
                        kp_error *err) {
    (void)c;
    if (!sink || !sink->resync_at) return KP_OK;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_NODE, node, at, err);
}

static kp_status taint(kp_ctrl *c, kp_index node, const char *key, const char *effect,
                       kp_error *err) {
    if (kp_cluster_node_has_taint(c->cl, node, key, effect, NULL)) return KP_OK;
    return kp_cluster_node_taint(c->cl, node, key, "", effect, err);
}

static kp_status untaint(kp_ctrl *c, kp_index node, const char *key, const char *effect,
                         bool *removed_any, kp_error *err) {
    /* (a node without the taint is left as it is: no change for the schedulers to catch up on) */
    if (!kp_cluster_node_has_taint(c->cl, node, key, effect, NULL)) return KP_OK;
    size_t removed = 0;
    kp_status st = kp_cluster_node_untaint(c->cl, node, key, effect, &removed, err);
    if (removed && removed_any) *removed_any = true;
    return st;
}

/* mirrors Controller.doNoScheduleTaintingPass for the taints kprio's nodes get from their Ready
 * condition and spec.unschedulable: Ready False -> node.kubernetes.io/not-ready:NoSchedule,
 * Unknown -> node.kubernetes.io/unreachable:NoSchedule, spec.unschedulable ->
 * node.kubernetes.io/unschedulable:NoSchedule; one of those the node has and should not is
 * removed (SwapNodeControllerTaint; the controller records no event). The pressure taints are
 * kp_ctrl_node_lifecycle_sync's. */
kp_status kp_ctrl_node_noschedule_pass(kp_ctrl *c, kp_index node, bool *untainted, kp_error *err) {
    if (untainted) *untainted = false;
    if (node < 0 || (size_t)node >= kp_cluster_node_count(c->cl))
        return kp_error_set(err, KP_EINVAL, "node index %ld is out of range", (long)node);
    if (kp_cluster_node_deleted(c->cl, node)) return KP_OK;
    const char *ready = kp_cluster_node_condition(c->cl, node, "Ready");
    const struct {
        const char *key;
        bool want;
    } want[] = {{NOT_READY, strcmp(ready, "False") == 0},
                {UNREACHABLE, strcmp(ready, "Unknown") == 0},
                {UNSCHEDULABLE, kp_cluster_node_unschedulable(c->cl, node)}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        kp_status st = want[i].want ? taint(c, node, want[i].key, "NoSchedule", err)
                                    : untaint(c, node, want[i].key, "NoSchedule", untainted, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* utilnode.GetZoneKey's parts (region and zone labels, GA then beta) as one key */
static uint64_t zone_key(const kp_cluster *cl, kp_index node) {
    static const char *const K[][2] = {
        {"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"},
        {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}};
    const kp_node *n = &cl->nodes[node];
    uint32_t v[2] = {0, 0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 && !v[i]; j++) {
            kp_str k = kp__intern_find(&cl->strs, K[i][j], strlen(K[i][j])), val = 0;
            if (k != UINT32_MAX && kp__labels_get(&n->labels, k, &val)) v[i] = val + 1;
        }
    return ((uint64_t)v[0] << 32) | v[1];
}

/* the zone's RateLimitedTimedQueue token: the time node may be tainted (now, or when the next
 * token comes); *took: the token is taken now */
static kp_status zone_token(kp_ctrl *c, kp_index node, int64_t now, int64_t *at, bool *took) {
    uint64_t k = zone_key(c->cl, node);
    size_t z = 0;
    while (z < c->n_zones && c->zone_keys[z] != k) z++;
    if (z == c->n_zones) {
        uint64_t *keys = kp__realloc(c->zone_keys, (z + 1) * sizeof *keys);
        if (!keys) return KP_ENOMEM;
        c->zone_keys = keys;
        int64_t *next = kp__realloc(c->zone_next, (z + 1) * sizeof *next);
        if (!next) return KP_ENOMEM;
        c->zone_next = next;
        keys[z] = k;
        next[z] = INT64_MIN;
        c->n_zones++;
    }
    *took = c->zone_next[z] <= now;
    *at = *took ? now : c->zone_next[z];
    if (*took) c->zone_next[z] = now + NODE_EVICTION_INTERVAL_MS;
    return KP_OK;
}

/* processTaintBaseEviction after the Ready condition the controller observed: False -> the
 * not-ready NoExecute taint, Unknown -> unreachable (swapped at once when the other one is
 * there, else through the zone's rate limiter: doNoExecuteTaintingPass), True -> both removed
 * (markNodeAsReachable). The taint-eviction controller then looks at the node's pods. */
static kp_status taint_base_eviction(kp_ctrl *c, kp_index node, int64_t now,
                                     const kp_ctrl_sink *sink, bool *untainted, kp_error *err) {
    const char *ready = kp_cluster_node_condition(c->cl, node, "Ready");
    bool is_false = strcmp(ready, "False") == 0, unknown = strcmp(ready, "Unknown") == 0;
    bool changed = false;
    kp_status st = KP_OK;
    if (!is_false && !unknown) {
        bool removed = false;
        if ((st = untaint(c, node, UNREACHABLE, "NoExecute", &removed, err)) != KP_OK ||
            (st = untaint(c, node, NOT_READY, "NoExecute", &removed, err)) != KP_OK)
            return st;
        if (removed && untainted) *untainted = true;
        changed = removed;
    } else {
        const char *want = is_false ? NOT_READY : UNREACHABLE;
        const char *other = is_false ? UNREACHABLE : NOT_READY;
        if (kp_cluster_node_has_taint(c->cl, node, want, "NoExecute", NULL)) return KP_OK;
        bool swap = kp_cluster_node_has_taint(c->cl, node, other, "NoExecute", NULL), took = true;
        int64_t at = now;
        if (!swap && (st = zone_token(c, node, now, &at, &took)) != KP_OK)
            return kp__ctrl_nomem(err);
        if (!took) return resync(c, node, at, sink, err); /* the tainting pass retries then */
        if ((st = untaint(c, node, other, "NoExecute", NULL, err)) != KP_OK ||
            (st = kp_cluster_node_taint(c->cl, node, want, "", "NoExecute", err)) != KP_OK)
            return st;
        changed = true;
    }
    return changed ? kp_ctrl_taint_eviction_node(c, node, now, sink, err) : KP_OK;
}

/* the node's conditions the controller marks Unknown when its kubelet stopped posting */
static const char *const HEALTH_CONDITIONS[] = {"Ready", "MemoryPressure", "DiskPressure",
                                                "PIDPressure"};

/* tryUpdateNodeHealth past the grace period: Ready, MemoryPressure, DiskPressure and PIDPressure
 * Unknown ("NodeStatusUnknown", "Kubelet stopped posting node status."; a condition the node
 * never had: "NodeStatusNeverUpdated", "Kubelet never posted node status."), then
 * RecordNodeStatusChange (NodeNotReady) and MarkPodsNotReady (each of its pods that is Ready
 * gets Ready False through core's kp_cluster_pod_set_ready, and a Warning NodeNotReady "Node is
 * not ready"). */
static kp_status mark_unknown(kp_ctrl *c, kp_index node, const kp_ctrl_sink *sink, kp_error *err) {
    for (size_t i = 0; i < sizeof HEALTH_CONDITIONS / sizeof HEALTH_CONDITIONS[0]; i++) {
        const char *cur = kp_cluster_node_condition(c->cl, node, HEALTH_CONDITIONS[i]);
        if (strcmp(cur, "Unknown") == 0) continue;
        bool never = !*cur;
        kp_status st = kp_cluster_node_set_condition(
            c->cl, node, HEALTH_CONDITIONS[i], "Unknown",
            never ? "NodeStatusNeverUpdated" : "NodeStatusUnknown",
            never ? "Kubelet never posted node status." : "Kubelet stopped posting node status.",
            err);
        if (st != KP_OK) return st;
    }
    const char *name = kp_cluster_node_name(c->cl, node);
    char msg[320];
    snprintf(msg, sizeof msg, "Node %s status is now: NodeNotReady", name);
    kp_status st = node_event(c, node, "NodeNotReady", msg, sink, err);
    int64_t now_s = kp__ctrl_now_s(c);
    for (size_t i = 0; st == KP_OK && i < kp_cluster_node_pod_count(c->cl, node); i++) {
        kp_index pod = kp_cluster_node_pod(c->cl, node, i);
        kp_pod_info pi;
        if (kp_cluster_pod_info(c->cl, pod, &pi) != KP_OK || pi.terminal || pi.deleted) continue;
        /* MarkPodsNotReady: a pod whose Ready condition is True gets it False (UpdateStatus),
         * then the event; one not Ready already is not updated and gets none */
        if (!pi.ready) continue;
        if ((st = kp_cluster_pod_set_ready(c->cl, pod, false, now_s, err)) != KP_OK) return st;
        if (!sink || !sink->event) continue;
        kp_ctrl_event ev = {true, "NodeNotReady", "Pod", pi.ns, pi.name, "Node is not ready",
                            pod,  node,           -1};
        st = sink->event(sink->ctx, &ev, err);
    }
    return st;
}

kp_status kp_ctrl_node_monitor(kp_ctrl *c, kp_index node, int64_t now_ms, const kp_ctrl_sink *sink,
                               bool *untainted, kp_error *err) {
    if (untainted) *untainted = false;
    if (node < 0 || (size_t)node >= kp_cluster_node_count(c->cl))
        return kp_error_set(err, KP_EINVAL, "node index %ld is out of range", (long)node);
    if (grow_health(c) != KP_OK) return kp__ctrl_nomem(err);
    if (kp_cluster_node_deleted(c->cl, node)) return KP_OK;
    c->now = now_ms;
    const ctrl_node *h = &c->node_health[node];
    bool unknown = strcmp(kp_cluster_node_condition(c->cl, node, "Ready"), "Unknown") == 0;
    kp_status st;
    if (h->stopped && !unknown && now_ms > h->heartbeat + c->node_grace_ms) {
        /* the pass that marks it Unknown observed it Ready: the NoExecute taint comes at the
         * next pass (processTaintBaseEviction reads the condition observed before the update) */
        if ((st = mark_unknown(c, node, sink, err)) != KP_OK ||
            (st = kp_ctrl_node_noschedule_pass(c, node, NULL, err)) != KP_OK)
            return st;
        return resync(c, node, next_pass(now_ms), sink, err);
    }
    if (h->stopped && !unknown) /* not yet past the grace period */
        return resync(c, node, next_pass(h->heartbeat + c->node_grace_ms), sink, err);
    return taint_base_eviction(c, node, now_ms, sink, untainted, err);
}

/* The kubelet's side of a resumed node (its status update: Ready True "KubeletReady", the
 * pressure conditions the controller marked Unknown back to False, the kubelet's NodeReady
 * event) */
static kp_status kubelet_ready(kp_ctrl *c, kp_index node, const kp_ctrl_sink *sink, kp_error *err) {
    static const char *const WHY[][3] = {
        {"Ready", "KubeletReady", "kubelet is posting ready status"},
        {"MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
        {"DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
        {"PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"}};
    bool was_ready = strcmp(kp_cluster_node_condition(c->cl, node, "Ready"), "True") == 0;
    for (size_t i = 0; i < sizeof WHY / sizeof WHY[0]; i++) {
        const char *cur = kp_cluster_node_condition(c->cl, node, WHY[i][0]);
        if (i > 0 && strcmp(cur, "Unknown") != 0) continue;
        if (i == 0 && was_ready) continue;
        kp_status st = kp_cluster_node_set_condition(c->cl, node, WHY[i][0], i ? "False" : "True",
                                                     WHY[i][1], WHY[i][2], err);
        if (st != KP_OK) return st;
    }
    if (was_ready) return KP_OK;
    char msg[320];
    snprintf(msg, sizeof msg, "Node %s status is now: NodeReady",
             kp_cluster_node_name(c->cl, node));
    return node_event(c, node, "NodeReady", msg, sink, err);
}

kp_status kp_ctrl_node_kubelet(kp_ctrl *c, kp_index node, bool posting, int64_t now_ms,
                               const kp_ctrl_sink *sink, bool *untainted, kp_error *err) {
    if (untainted) *untainted = false;
    if (node < 0 || (size_t)node >= kp_cluster_node_count(c->cl))
        return kp_error_set(err, KP_EINVAL, "node index %ld is out of range", (long)node);
    if (grow_health(c) != KP_OK) return kp__ctrl_nomem(err);
    if (kp_cluster_node_deleted(c->cl, node)) return KP_OK;
    c->now = now_ms;
    ctrl_node *h = &c->node_health[node];
    if (!posting) {
        if (h->stopped) return KP_OK;
        h->stopped = true;
        h->heartbeat = now_ms; /* its last status, seen at the instant it stopped */
        return resync(c, node, next_pass(now_ms + c->node_grace_ms), sink, err);
    }
    h->stopped = false;
    h->heartbeat = now_ms;
    kp_status st = kubelet_ready(c, node, sink, err);
    /* the node's update: its NoSchedule taints follow at once (doNoScheduleTaintingPass), the
     * NoExecute ones at the next monitor pass (markNodeAsReachable) */
    if (st == KP_OK) st = kp_ctrl_node_noschedule_pass(c, node, untainted, err);
    if (st == KP_OK && kp_cluster_node_has_taint(c->cl, node, UNREACHABLE, "NoExecute", NULL))
        st = resync(c, node, next_pass(now_ms), sink, err);
    if (st == KP_OK && kp_cluster_node_has_taint(c->cl, node, NOT_READY, "NoExecute", NULL))
        st = resync(c, node, next_pass(now_ms), sink, err);
    return st;
}

/* The controller's start over a snapshot: each node's Ready condition as it stands (a node
 * without one is taken as Ready: hand-written snapshots rarely carry conditions); Unknown: its
 * kubelet is not posting; False or Unknown: the taints follow at this first pass (the
 * NoSchedule pass of the informer's add, monitorNodeHealth's NoExecute taint through the zone's
 * rate limiter). Every node's spec.unschedulable gets its taint. The snapshot's NoExecute taints
 * then plan their pods' evictions from the taint's timeAdded (the plan a running
 * taint-eviction controller made when the taint came; the pod's creation when later), so a
 * node unreachable for a while evicts when the pods' tolerationSeconds run out. */
kp_status kp_ctrl_node_lifecycle_start(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                       kp_error *err) {
    if (grow_health(c) != KP_OK || kp__ctrl_grow(c) != KP_OK) return kp__ctrl_nomem(err);
    c->now = now_ms;
    for (size_t i = 0; i < kp_cluster_node_count(c->cl); i++) {
        kp_index n = (kp_index)i;
        if (kp_cluster_node_deleted(c->cl, n)) continue;
        const char *ready = kp_cluster_node_condition(c->cl, n, "Ready");
        if (strcmp(ready, "Unknown") == 0) c->node_health[i] = (ctrl_node){true, INT64_MIN / 2};
        kp_status st = kp_ctrl_node_noschedule_pass(c, n, NULL, err);
        if (st == KP_OK && (strcmp(ready, "Unknown") == 0 || strcmp(ready, "False") == 0))
            st = taint_base_eviction(c, n, now_ms, sink, NULL, err);
        if (st != KP_OK) return st;
        const kp_node *nd = &c->cl->nodes[i];
        int64_t added = INT64_MAX;
        for (uint16_t t = 0; t < nd->n_taints; t++)
            if (nd->taints[t].effect == KP_EFFECT_NOEXECUTE && nd->taints[t].time_added &&
                nd->taints[t].time_added < added)
                added = nd->taints[t].time_added;
        bool any = false;
        for (uint16_t t = 0; t < nd->n_taints; t++)
            any |= nd->taints[t].effect == KP_EFFECT_NOEXECUTE;
        for (size_t k = 0; any && k < kp_cluster_node_pod_count(c->cl, n); k++) {
            kp_index pod = kp_cluster_node_pod(c->cl, n, k);
            kp_pod_info pi;
            kp_cluster_pod_info(c->cl, pod, &pi);
            int64_t since = added == INT64_MAX ? now_ms : (added - c->epoch) * 1000;
            if (pi.creation_ts != KP_TIME_UNSET && (pi.creation_ts - c->epoch) * 1000 > since)
                since = (pi.creation_ts - c->epoch) * 1000;
            if ((st = kp__ctrl_taint_eviction_since(c, pod, now_ms, since, sink, err)) != KP_OK)
                return st;
        }
    }
    return KP_OK;
}

void kp_ctrl_set_node_monitor_grace(kp_ctrl *c, int64_t grace_ms) {
    c->node_grace_ms = grace_ms > 0 ? grace_ms : KP_CTRL_NODE_MONITOR_GRACE_MS;
}
