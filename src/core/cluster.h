/* The cluster (internal; the public face is include/kprio/cluster.h): every object of a snapshot,
 * and the construction helpers the decoders use.
 *
 * All snapshot data lives in the cluster's arena; strings are interned (kp_str, 0 = empty/unset).
 * Pods and nodes are addressed by index into cl->pods / cl->nodes. Objects with the same identity
 * (kind, namespace, name) replace earlier ones, with a warning: later -f inputs win, so a what-if
 * manifest can override an object of the snapshot. */
#ifndef KP_CORE_CLUSTER_H
#define KP_CORE_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/dra.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/volume.h"
#include "core/workload.h"
#include "kprio/cluster.h"
#include "kprio/common.h"

typedef struct kp_cluster {
    kp_arena arena;
    kp_interner strs;
    kp_str res_names[KP_MAX_RES];
    uint32_t n_res;

    kp_pod *pods; /* grows after finalize too (kp_cluster_create_pod): indices stay valid, a
                     kp_pod pointer does not survive a pod's creation */
    uint32_t n_pods, cap_pods;
    kp_node *nodes;
    uint32_t n_nodes, cap_nodes;
    uint32_t n_nodes_deleted; /* kp_cluster_delete_node: n_nodes - n_nodes_deleted are live */
    kp_priority_class *classes;
    uint32_t n_classes, cap_classes;
    kp_pdb *pdbs;
    uint32_t n_pdbs, cap_pdbs;
    kp_namespace *namespaces;
    uint32_t n_namespaces, cap_namespaces;
    kp_workload *workloads; /* Services and the controllers of core/workload.h */
    uint32_t n_workloads, cap_workloads;
    kp_volumes vol; /* storage objects (core/volume.h) */
    kp_dra dra; /* Dynamic Resource Allocation objects (core/dra.h) */

    kp_feature_gates gates; /* kp_cluster_set_feature_gates; defaults from kp_cluster_new */
    bool finalized;
    /* warnings collected while loading/finalizing; the CLI prints them */
    char **warnings;
    uint32_t n_warnings;
    size_t cap_warnings;
    uint32_t n_skipped_kinds; /* objects of kinds kprio does not model */
    char *skipped_kinds; /* comma-separated distinct kinds (heap; NULL while none) */
    size_t skipped_len, skipped_cap;
    uint64_t bytes_loaded;
    uint32_t n_objects;
    kp_progress_fn progress_fn; /* kp_cluster_set_progress */
    void *progress_ctx;
    uint64_t progress_next; /* offset in the current input of the next report */
    uint64_t max_input_bytes; /* kp_cluster_set_max_input_bytes (src/io/load.c); 0 = default */
    bool lax_names; /* kp_cluster_set_name_rules(false) (src/io/load.c) */
    unsigned expand_flags; /* kp_cluster_set_expand (KP_EXPAND_*), applied by kp_ctrl_expand */
    uint32_t n_expanded; /* pods made by workload expansion (the last ones of cl->pods) */

    /* changes after finalize, for the schedulers over this cluster to catch up with
     * (include/kprio/cluster.h, "The simulator's view"): gen_struct counts changes that rebuild
     * a scheduler's node order and indexes (a pod or node added, a node changed or deleted);
     * changed_log lists the pods deleted, marked terminating or finished outside a scheduler, in
     * order (a scheduler remembers how far it read and catches up: kp_sched_sync) */
    uint64_t gen_struct;
    /* the parts of gen_struct that added objects with pods (kp_cluster_create_pod, an
     * incremental finalize) and that changed an existing node (cordon, taints, deletion): a
     * scheduler catches up with those in place when they explain every move of gen_struct
     * (kp_sched_sync); a change that moves gen_struct alone makes it rebuild */
    uint64_t gen_pods, gen_nodes;
    uint64_t gen_pdb_status; /* bumped by every PDB status change (kp__cluster_pdb_set_status) */
    uint32_t *changed_log;
    uint32_t n_changed_log, cap_changed_log;
    /* well-known interned strings */
    kp_str s_default_scheduler, s_tcp, s_any_ip, s_hostname_key;
} kp_cluster;

static inline const char *kp__s(const kp_cluster *cl, kp_str id) { return cl->strs.ptr[id]; }

/* Adds a formatted warning (copied). KP_ENOMEM when it cannot be stored: a warning is part of
 * the answer, so callers pass the failure on. */
kp_status kp__cluster_warn(kp_cluster *cl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

kp_pod *kp__cluster_new_pod(kp_cluster *cl, kp_str ns, kp_str name);
kp_node *kp__cluster_new_node(kp_cluster *cl, kp_str name);
kp_priority_class *kp__cluster_new_class(kp_cluster *cl, kp_str name);
kp_pdb *kp__cluster_new_pdb(kp_cluster *cl, kp_str ns, kp_str name);
kp_namespace *kp__cluster_new_namespace(kp_cluster *cl, kp_str name);
/* A Service or a controller (core/workload.h; same replace rule per kind). */
kp_workload *kp__cluster_new_workload(kp_cluster *cl, kp_workload_kind kind, kp_str ns,
                                      kp_str name);
/* The workload of that kind, namespace and name (its index in cl->workloads), or -1. */
long kp__cluster_find_workload(const kp_cluster *cl, kp_workload_kind kind, kp_str ns, kp_str name);
/* A storage object of core/volume.h (same replace rule per kind; ns is 0 but for claims):
 * kp_pv, kp_pvc, ... as kind says, zeroed but for its name (and namespace). */
void *kp__cluster_new_volume(kp_cluster *cl, kp_volume_kind kind, kp_str ns, kp_str name);
/* The storage object of kind with that namespace (0 but for claims) and name, or NULL. */
const void *kp__cluster_find_volume(const kp_cluster *cl, kp_volume_kind kind, kp_str ns,
                                    kp_str name);
/* Loads into a finalized cluster (include/kprio/cluster.h, "Loading objects into a finalized
 * cluster"): the index of the object of that kind (as the API spells it: "Pod", "ReplicaSet",
 * "StorageClass", ...) and identity, -1 when there is none (a load refuses an identity that
 * exists). After finalize kp__cluster_new_* return NULL for an existing identity instead of
 * replacing the object: callers check first. */
long kp__cluster_find_object(const kp_cluster *cl, const char *kind, kp_str ns, kp_str name);
/* Drops an object's identity (a PDB or PriorityClass deleted by the simulator): not found by
 * name, not counted, its name free for a new object; the object stays where it is, flagged. */
void kp__cluster_forget_identity(kp_cluster *cl, const char *kind, kp_str ns, kp_str name);
/* Writes PDB pdb's status (the disruption controller's updatePdbStatus, src/ctrl/disruption.c):
 * currentHealthy, desiredHealthy, expectedPods and disruptionsAllowed from *s (its other fields
 * unread); s NULL: failSafe, the status kept but disruptionsAllowed 0. Every reader of budgets
 * rereads them (gen_pdb_status). pdb must be in range. KP_OK. */
kp_status kp__cluster_pdb_set_status(kp_cluster *cl, kp_index pdb, const kp_pdb_info *s);
/* The nodes a scheduler sees: those not deleted (kp_cluster_delete_node). */
static inline uint32_t kp__cluster_live_nodes(const kp_cluster *cl) {
    return cl->n_nodes - cl->n_nodes_deleted;
}
/* How far the cluster goes: the count of each kind of object, of the warnings and of the input
 * bytes. kp__cluster_rollback drops everything added since a mark (objects, their identities,
 * warnings); the objects dropped must not be bound to nodes. kp__cluster_final_mark: the mark
 * at the end of the last kp_cluster_finalize, where an incremental finalize starts. */
typedef struct {
    uint32_t n_pods, n_nodes, n_classes, n_pdbs, n_namespaces, n_workloads;
    uint32_t n_vol[KP_VK_KINDS];
    uint32_t n_dra[KP_DK_KINDS]; /* DRA objects per kind (core/dra.h) */
    uint32_t n_warnings, n_skipped_kinds, n_objects;
    size_t skipped_len;
    uint64_t bytes_loaded;
} kp__cluster_mark;
void kp__cluster_mark_get(const kp_cluster *cl, kp__cluster_mark *m);
void kp__cluster_rollback(kp_cluster *cl, const kp__cluster_mark *m);
kp__cluster_mark *kp__cluster_final_mark(kp_cluster *cl);
/* Counts an object of a kind kprio does not model and remembers the kind for the summary warning.
 * KP_ENOMEM when the kind cannot be stored. */
kp_status kp__cluster_note_skipped(kp_cluster *cl, const char *kind);
/* Stores a read-only array (resource list, label map) in the cluster arena, or returns an
 * identical one stored recently: replicas of a workload carry the same requests, limits and
 * labels, so each distinct array is mostly stored once (~130 B per pod saved on the benchmark
 * snapshot). Compared bytewise: callers zero padding. NULL when bytes is 0 or out of memory. */
void *kp__cluster_store_shared(kp_cluster *cl, const void *data, size_t bytes);
/* The same for an array already in the cluster arena (e.g. a pod's tolerations: most pods carry
 * the same default not-ready/unreachable ones): returns an identical stored array (giving back
 * `stored` when it was the arena's last allocation) or registers and returns `stored`. */
void *kp__cluster_share_stored(kp_cluster *cl, void *stored, size_t bytes);

#endif
