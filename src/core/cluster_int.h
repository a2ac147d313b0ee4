/* Cluster construction helpers used by the decoders (internal). Objects with the same identity
 * (kind, namespace, name) replace earlier ones, with a warning: later -f inputs win, so a what-if
 * manifest can override an object of the snapshot. */
#ifndef KP_CORE_CLUSTER_INT_H
#define KP_CORE_CLUSTER_INT_H

#include "core/model.h"

kp_pod *kp__cluster_new_pod(kp_cluster *cl, kp_str ns, kp_str name);
kp_node *kp__cluster_new_node(kp_cluster *cl, kp_str name);
kp_priority_class *kp__cluster_new_class(kp_cluster *cl, kp_str name);
kp_pdb *kp__cluster_new_pdb(kp_cluster *cl, kp_str ns, kp_str name);
kp_namespace *kp__cluster_new_namespace(kp_cluster *cl, kp_str name);
/* Service / ReplicationController / ReplicaSet / StatefulSet (same replace rule per kind). */
kp_workload *kp__cluster_new_workload(kp_cluster *cl, kp_workload_kind kind, kp_str ns, kp_str name);
void kp__cluster_note_skipped(kp_cluster *cl, const char *kind);
/* Stores a read-only array (resource list, label map) in the cluster arena, or returns an
 * identical one stored recently: replicas of a workload carry the same requests, limits and
 * labels, so each distinct array is mostly stored once (~130 B per pod saved on the benchmark
 * snapshot). Compared bytewise: callers zero padding. NULL when bytes is 0 or out of memory. */
void *kp__cluster_store_shared(kp_cluster *cl, const void *data, size_t bytes);
/* The same for an array already in the cluster arena (e.g. a pod's tolerations: most pods carry
 * the same default not-ready/unreachable ones): returns an identical stored array (giving back
 * `stored` when it was the arena's last allocation) or registers and returns `stored`. */
void *kp__cluster_share_stored(kp_cluster *cl, void *stored, size_t bytes);

/* Derived per-pod values: core/pod_requests.h (PodRequests, PodLimits), core/qos.h. */
#include "core/pod_requests.h"
#include "core/qos.h"

#endif
