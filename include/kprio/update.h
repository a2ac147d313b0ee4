/* Updates of existing objects, as the API server applies a PATCH (`kubectl patch --type merge`)
 * and as the kubelet answers an in-place resize. The simulator's `patch` action
 * (docs/scenario.md) goes through these.
 *
 * Typical use:
 *     kp_update_result r;
 *     st = kp_cluster_patch(cl, "Node", "", "n1", "", "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}",
 *                           len, &r, &err);
 *     if (st == KP_EINVAL) ... err.msg is the API server's refusal, kubectl's text ...
 *     if (r.resize_pending) {
 *         char msg[256];
 *         kp_resize_result d = kp_kubelet_resize_check(cl, r.index, msg, sizeof msg);
 *         kp_cluster_pod_resize_set(cl, r.index, d, msg, &err);
 *     } */
#ifndef KP_UPDATE_H
#define KP_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a patch changed. */
typedef struct {
    kp_index index; /* the object's index among those of its kind (pods, nodes, workloads, PDBs,
                     * PriorityClasses, namespaces) */
    bool changed; /* the object differs from before (a patch that changes nothing is accepted) */
    bool labels_changed; /* metadata.labels (what selectors read) */
    bool spec_changed; /* anything of the spec (a node's taints or unschedulable, a pod's
                        * tolerations or gates, a workload's spec) */
    bool status_changed; /* a node's status (capacity, allocatable, conditions, images) */
    bool replicas_changed; /* a workload's spec.replicas (Job: parallelism) */
    bool template_changed; /* a workload's pod template */
    bool resized; /* a pod's container requests or limits (the resize subresource) */
    bool resize_pending; /* ... of a bound pod: its kubelet decides (kp_kubelet_resize_check) */
} kp_update_result;

/* Applies the JSON merge patch (RFC 7386) patch[0..len) (JSON, or YAML when it starts with
 * "---") to the live object kind ns/name ("" namespace for cluster-scoped kinds) as it is now,
 * with the API server's update rules: subresource "" (the object itself: status changes are
 * dropped), "status" (a Node's status: spec changes dropped) or "resize" (a Pod's containers'
 * cpu and memory: everything else dropped, ValidatePodResize). Kinds: Pod, Node, PriorityClass,
 * PodDisruptionBudget, Namespace, and the workloads (ReplicaSet, Deployment, ...). The object
 * is written back through core's update writer; schedulers over the cluster rebuild.
 * Errors: KP_ENOTFOUND (no live object: err says kubectl's `RESOURCE "NAME" not found`),
 * KP_EINVAL (refused: err->msg is kubectl's text, `The Pod "x" is invalid: spec: Forbidden:
 * ...`; the object is unchanged), KP_ENOMEM. */
kp_status kp_cluster_patch(kp_cluster *cl, const char *kind, const char *ns, const char *name,
                           const char *subresource, const char *patch, size_t len,
                           kp_update_result *out, kp_error *err);

/* The kubelet's answer to an in-place resize (status condition PodResizePending). */
typedef enum {
    KP_RESIZE_APPLIED = 0, /* allocated: the node's pods are accounted with the new requests */
    KP_RESIZE_DEFERRED, /* does not fit the node now; retried when the node frees resources */
    KP_RESIZE_INFEASIBLE /* more than the node's allocatable: never */
} kp_resize_result;

/* Decides a pending resize of bound pod `pod` as the kubelet's canResizePod does against its
 * node now: Infeasible when the pod's new cpu or memory request exceeds the node's allocatable
 * ("Node didn't have enough capacity: cpu, requested: R, capacity: C"), Deferred when it does
 * not fit beside the node's other pods ("Node didn't have enough resource: cpu, requested: R,
 * used: U, capacity: C"), else Applied. msg gets the message ("" when applied). */
kp_resize_result kp_kubelet_resize_check(const kp_cluster *cl, kp_index pod, char *msg, size_t cap);
/* Writes the kubelet's answer into the pod's status: Applied, the allocated resources become
 * the spec's (the node's aggregates follow); Deferred or Infeasible, the PodResizePending
 * condition with that reason and message, the allocated resources kept. KP_EINVAL: pod out of
 * range or not bound; KP_ERANGE, KP_ENOMEM. */
kp_status kp_cluster_pod_resize_set(kp_cluster *cl, kp_index pod, kp_resize_result result,
                                    const char *message, kp_error *err);
/* The pod's pending resize: KP_RESIZE_DEFERRED or KP_RESIZE_INFEASIBLE while its status carries
 * that PodResizePending condition, else KP_RESIZE_APPLIED (none pending; out of range too). */
kp_resize_result kp_cluster_pod_resize_state(const kp_cluster *cl, kp_index pod);

#ifdef __cplusplus
}
#endif
#endif
