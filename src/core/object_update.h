/* Updates of existing objects (internal): the one writer that swaps the fields an API update may
 * change into an object of the cluster, for io/patch.c (the API server's PATCH of an object,
 * include/kprio/update.h) once the update is validated. Each call keeps what the update may not
 * change (identity, status the update does not carry, the object's place in the cluster), keeps
 * the aggregates exact (a pod whose requests change leaves its node and joins it again, as
 * NodeInfo.UpdatePod does) and moves cl->gen_struct, so every scheduler over the cluster
 * rebuilds what it derived from the object. */
#ifndef KP_CORE_OBJECT_UPDATE_H
#define KP_CORE_OBJECT_UPDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "kprio/common.h"

/* Pod i takes np's labels, annotations, ownerReferences, tolerations, scheduling gates and
 * containers (images; with resize, requests and limits: an in-place resize, its status pending
 * on the pod's kubelet while the pod is bound: allocated resources the old requests, until
 * kp_cluster_pod_resize_set). KP_ERANGE: the node's sums would not fit (nothing changed),
 * KP_ENOMEM. */
kp_status kp__cluster_update_pod(kp_cluster *cl, uint32_t i, const kp_pod *np, bool resize,
                                 kp_error *err);
/* Node i takes nn's labels, annotations, taints and spec.unschedulable, or with status its
 * capacity, allocatable, conditions and images (the status subresource). */
kp_status kp__cluster_update_node(kp_cluster *cl, uint32_t i, const kp_node *nn, bool status,
                                  kp_error *err);
/* Workload i takes nw's spec (replicas, template, strategy, ...; its status, identity and
 * ownership kept); template_changed (the pod template differs): a new update revision. */
kp_status kp__cluster_update_workload(kp_cluster *cl, uint32_t i, const kp_workload *nw,
                                      bool template_changed, kp_error *err);
/* PriorityClass i takes nc's description and globalDefault (value and preemptionPolicy are
 * immutable: the caller refused a change). */
kp_status kp__cluster_update_class(kp_cluster *cl, uint32_t i, const kp_priority_class *nc,
                                   kp_error *err);
/* PDB i takes nb's spec (selector, minAvailable, maxUnavailable); its status stays until the
 * disruption controller's next sync. */
kp_status kp__cluster_update_pdb(kp_cluster *cl, uint32_t i, const kp_pdb *nb, kp_error *err);
/* Namespace i takes nn's labels. */
kp_status kp__cluster_update_namespace(kp_cluster *cl, uint32_t i, const kp_namespace *nn,
                                       kp_error *err);

#endif
