/* The node lifecycle controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go) for
 * what kprio models: the NoSchedule taints that follow a node's pressure conditions
 * (doNoScheduleTaintingPass: MemoryPressure -> node.kubernetes.io/memory-pressure, DiskPressure
 * -> node.kubernetes.io/disk-pressure, PIDPressure -> node.kubernetes.io/pid-pressure), added and
 * removed through core (kp_cluster_node_taint / _untaint) with the events TaintAdded "taint
 * KEY=:NoSchedule added" and TaintRemoved "N taint(s) KEY removed".
 *
 * The controller keeps, per node, the conditions it tainted for: a taint already on the node
 * when the controller first looks (a snapshot's) is left alone until the condition has been seen
 * and gone. Not modelled: Ready / NotReady (the not-ready and unreachable taints and their
 * NoExecute evictions), NetworkUnavailable, zone states. */
#include <stdio.h>

#include "base/alloc.h"
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
