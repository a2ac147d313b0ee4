/* The cluster model shared by every engine (internal; the public face is include/kprio/cluster.h).
 *
 * All snapshot data lives in the cluster's arena; strings are interned (kp_str, 0 = empty/unset).
 * Pods and nodes are addressed by index into cl->pods / cl->nodes. Resource amounts are exact
 * int64 in upstream's integer units: cpu in millicores (MilliValue), everything else Value()
 * rounded up (bytes, counts). Resource names are registered once per cluster in cl->res_names
 * (KP_RES_CPU.. fixed first) so per-node aggregates are small dense arrays.
 *
 * Per-node aggregates (requested, non-zero requested, pod list, host ports) are maintained by the
 * mutation functions in cluster.c (kp__node_add_pod / kp__node_remove_pod), mirroring upstream's
 * NodeInfo.AddPod/RemovePod, including the swap-with-last removal order. */
#ifndef KP_CORE_MODEL_H
#define KP_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/qos.h"

#define KP_MAX_RES 32 /* distinct resource names per cluster (cpu, memory, ... extended) */
enum { KP_RES_CPU = 0, KP_RES_MEM = 1, KP_RES_EPH = 2, KP_RES_PODS = 3, KP_RES_FIXED = 4 };

/* Sparse resource list (pod-side): entries sorted by resource index. */
typedef struct {
    uint8_t res; /* index into cl->res_names */
    kp_str text; /* the quantity as written ("" when derived): messages print upstream's
                  * Quantity.String(), which depends on the spelling ("1Gi" vs "1073741824") */
    int64_t v;
} kp_resent;
typedef struct {
    uint16_t n;
    kp_resent *e;
} kp_resv;

typedef struct {
    kp_str key, val;
} kp_label;
/* Label map, sorted by key id (binary search by id). */
typedef struct {
    uint32_t n;
    kp_label *items;
} kp_labels;

typedef enum { KP_OP_IN, KP_OP_NOTIN, KP_OP_EXISTS, KP_OP_DOESNOTEXIST, KP_OP_GT, KP_OP_LT } kp_selop;
typedef struct {
    kp_str key;
    kp_selop op;
    uint16_t n_values;
    kp_str *values;
} kp_selreq;
/* metav1.LabelSelector. is_set false = nil selector. */
typedef struct {
    bool is_set;
    kp_labels match_labels;
    uint16_t n_exprs;
    kp_selreq *exprs;
} kp_label_selector;

/* v1.NodeSelectorTerm: matchExpressions over labels, matchFields over metadata.name. */
typedef struct {
    uint16_t n_exprs, n_fields;
    kp_selreq *exprs, *fields;
} kp_nsterm;
typedef struct {
    int32_t weight;
    kp_nsterm term;
} kp_pref_nsterm;
typedef struct {
    bool has_required;   /* requiredDuringSchedulingIgnoredDuringExecution present */
    uint16_t n_required; /* nodeSelectorTerms (ORed) */
    kp_nsterm *required;
    uint16_t n_preferred;
    kp_pref_nsterm *preferred;
} kp_node_affinity;

typedef struct {
    kp_label_selector selector;
    uint16_t n_namespaces;
    kp_str *namespaces;
    kp_label_selector ns_selector; /* is_set false = nil */
    kp_str topology_key;
    uint16_t n_match_label_keys, n_mismatch_label_keys;
    kp_str *match_label_keys, *mismatch_label_keys;
} kp_pod_affinity_term;
typedef struct {
    int32_t weight;
    kp_pod_affinity_term term;
} kp_weighted_pat;
typedef struct {
    uint16_t n_required, n_preferred;
    kp_pod_affinity_term *required;
    kp_weighted_pat *preferred;
} kp_pod_affinity;

typedef enum { KP_EFFECT_NONE = 0, KP_EFFECT_NOSCHEDULE, KP_EFFECT_PREFERNOSCHEDULE, KP_EFFECT_NOEXECUTE } kp_effect;
typedef struct {
    kp_str key, value;
    kp_effect effect;
} kp_taint;
typedef enum { KP_TOL_EQUAL = 0, KP_TOL_EXISTS } kp_tolop;
typedef struct {
    kp_str key, value;
    kp_tolop op;
    kp_effect effect; /* NONE = all effects */
    bool has_seconds;
    int64_t seconds;
} kp_toleration;

typedef enum { KP_WHEN_DONOTSCHEDULE = 0, KP_WHEN_SCHEDULEANYWAY } kp_when_unsat;
typedef enum { KP_POLICY_HONOR = 0, KP_POLICY_IGNORE } kp_inclusion_policy;
typedef struct {
    int32_t max_skew;
    kp_str topology_key;
    kp_when_unsat when;
    kp_label_selector selector;
    bool has_min_domains;
    int32_t min_domains;
    bool has_node_affinity_policy, has_node_taints_policy;
    kp_inclusion_policy node_affinity_policy; /* default Honor */
    kp_inclusion_policy node_taints_policy;   /* default Ignore */
    uint16_t n_match_label_keys;
    kp_str *match_label_keys;
} kp_spread;

typedef struct {
    int32_t host_port, container_port;
    kp_str protocol; /* "TCP" when unset */
    kp_str host_ip;  /* "0.0.0.0" when unset */
} kp_port;

typedef struct {
    kp_str name;
    kp_str image; /* spec.containers[].image as written */
    kp_resv req, lim;
    bool is_init, is_sidecar; /* sidecar = init container with restartPolicy Always */
    uint16_t n_ports;         /* only ports with hostPort > 0 */
    kp_port *ports;
} kp_container;

typedef struct {
    kp_str name;
    kp_str size_limit_text; /* emptyDir.sizeLimit as written ("" if none) */
    bool is_empty_dir;
    bool has_size_limit;
    int64_t size_limit; /* bytes */
    bool memory_medium; /* emptyDir medium: Memory */
    bool hugepages_medium; /* emptyDir medium: HugePages or HugePages-<size> */
    /* local ephemeral storage on the node's filesystem, as the kubelet's localVolumeNames counts it:
     * hostPath, gitRepo, configMap, and emptyDir on the default medium */
    bool is_local;
} kp_volume;

typedef struct {
    kp_str kind, name, uid;
    kp_str api_version; /* as written ("apps/v1"); 0 if absent */
    bool controller;
} kp_owner_ref;

typedef struct {
    kp_str type, status, reason, message;
} kp_condition;

typedef enum { KP_PHASE_UNKNOWN = 0, KP_PHASE_PENDING, KP_PHASE_RUNNING, KP_PHASE_SUCCEEDED, KP_PHASE_FAILED } kp_phase;
/* kp_qos: include/kprio/qos.h */
typedef enum { KP_PREEMPT_LOWER = 0, KP_PREEMPT_NEVER } kp_preempt_policy;

#define KP_TIME_NONE INT64_MIN

typedef struct kp_pod {
    /* Field order groups 8-, 4-, 2- and 1-byte members so the struct has no padding holes:
     * 150,000 of these must stay well under 1 KiB each together with their arena data. */
    kp_labels labels, annotations;
    kp_labels node_selector;
    int64_t creation_ts; /* unix seconds, KP_TIME_NONE if unset */
    int64_t deletion_ts; /* KP_TIME_NONE if not being deleted */
    int64_t start_time;  /* status.startTime, KP_TIME_NONE if unset */
    int64_t termination_grace; /* seconds, default 30 */
    int64_t nz_cpu, nz_mem;    /* derived: non-zero requests for scoring (100m / 200Mi defaults) */
    kp_owner_ref *owners;
    kp_node_affinity *node_affinity;           /* NULL if none */
    kp_pod_affinity *pod_affinity, *pod_anti_affinity; /* NULL if none */
    kp_toleration *tolerations; /* may be shared between pods: read-only */
    kp_spread *spread;
    kp_container *containers;      /* n_containers + n_init entries: apps, then init containers */
    kp_volume *volumes;
    kp_condition *conditions;      /* only DisruptionTarget is kept */
    const char *src_file;          /* file it came from (interned path) */
    kp_resv overhead;
    kp_resv pod_req, pod_lim;      /* pod-level spec.resources */
    kp_resv req;                   /* derived: scheduler PodRequests (incl. overhead, pod-level) */

    kp_str ns, name, uid;
    kp_str priority_class;  /* spec.priorityClassName (after admission resolution) */
    kp_str scheduler_name;  /* "default-scheduler" when unset */
    kp_str node_name;       /* spec.nodeName ("" = unbound) */
    kp_str nominated_node;  /* status.nominatedNodeName */
    kp_str os_name;         /* spec.os.name */
    kp_str status_qos;      /* status.qosClass as loaded ("" if absent) */
    int32_t priority;       /* effective priority after finalize */
    int32_t node;           /* derived: index of the bound node, -1 if none */
    uint32_t pos_in_node;   /* derived: index in nodes[node].pods */
    uint32_t src_index;     /* load order, stable tie-break */

    uint16_t n_owners, n_tolerations, n_spread;
    uint16_t n_containers, n_init;
    uint16_t n_volumes, n_conditions;

    /* priority: spec.priority if set, else resolved at finalize (Priority admission plugin) */
    bool has_priority;      /* priority known: spec.priority in the input, or resolved at finalize */
    bool has_spec_priority; /* spec.priority was present in the input itself */
    bool has_preemption_policy;
    bool class_missing;     /* has spec.priority but its class no longer exists (warning) */
    bool has_pod_resources; /* spec.resources (pod-level) present */
    bool has_termination_grace;
    bool is_static, is_mirror, is_critical; /* derived */
    uint8_t preemption_policy; /* kp_preempt_policy */
    uint8_t phase;             /* kp_phase */
    uint8_t qos;               /* kp_qos, derived */
} kp_pod;

typedef struct {
    kp_str name;
    int64_t size;
} kp_image;

typedef struct kp_node {
    kp_str name, uid;
    kp_labels labels, annotations;
    uint16_t n_taints;
    kp_taint *taints;
    bool unschedulable;
    int64_t alloc[KP_MAX_RES], cap[KP_MAX_RES];
    bool has_alloc[KP_MAX_RES];
    uint32_t n_images;
    kp_image *images; /* each name of status.images[].names, with the image's size */
    uint16_t n_conditions;
    kp_condition *conditions;
    int64_t creation_ts;

    /* aggregates, maintained by kp__node_add_pod / kp__node_remove_pod */
    uint32_t *pods; /* heap-owned; order as upstream NodeInfo (append, swap-remove) */
    uint32_t n_pods, cap_pods;
    int64_t requested[KP_MAX_RES];
    int64_t nz_cpu, nz_mem;
    uint32_t n_affinity_pods; /* pods with (anti-)affinity, for fast skip */
    uint32_t src_index;
} kp_node;

typedef struct {
    kp_str name;
    int32_t value;
    bool global_default;
    kp_preempt_policy preemption_policy;
    bool has_preemption_policy;
    kp_str description;
    bool builtin;
} kp_priority_class;

typedef struct {
    kp_str ns, name;
    kp_label_selector selector;
    bool has_min_available, has_max_unavailable;
    kp_str min_available, max_unavailable; /* int-or-string, as text */
    bool has_status;
    int32_t disruptions_allowed;
    int32_t current_healthy, desired_healthy, expected_pods;
    uint32_t n_disrupted;
    kp_str *disrupted; /* pod names in status.disruptedPods */
} kp_pdb;

typedef struct {
    kp_str name;
    kp_labels labels;
} kp_namespace;

/* Workload objects, kept only for PodTopologySpread's default selector (helper.DefaultSelector):
 * namespace, name and the selector, nothing else. */
typedef enum { KP_WL_SERVICE = 0, KP_WL_RC, KP_WL_RS, KP_WL_STS, KP_WL_KINDS } kp_workload_kind;
typedef struct {
    kp_str ns, name;
    kp_workload_kind kind;
    bool has_map;            /* Service / ReplicationController: spec.selector present (not nil) */
    kp_labels map;           /* Service / ReplicationController: spec.selector (map) */
    kp_label_selector sel;   /* ReplicaSet / StatefulSet: spec.selector (LabelSelector) */
} kp_workload;

typedef struct kp_cluster {
    kp_arena arena;
    kp_interner strs;
    kp_str res_names[KP_MAX_RES];
    uint32_t n_res;

    kp_pod *pods;
    uint32_t n_pods, cap_pods;
    kp_node *nodes;
    uint32_t n_nodes, cap_nodes;
    kp_priority_class *classes;
    uint32_t n_classes, cap_classes;
    kp_pdb *pdbs;
    uint32_t n_pdbs, cap_pdbs;
    kp_namespace *namespaces;
    uint32_t n_namespaces, cap_namespaces;
    kp_workload *workloads; /* Services, ReplicationControllers, ReplicaSets, StatefulSets */
    uint32_t n_workloads, cap_workloads;

    bool finalized;
    /* warnings collected while loading/finalizing; the CLI prints them */
    char **warnings;
    uint32_t n_warnings, cap_warnings;
    uint32_t n_skipped_kinds; /* objects of kinds kprio does not model */
    char skipped_kinds[256];  /* comma-separated distinct kinds, truncated */
    uint64_t bytes_loaded;
    uint32_t n_objects;
    kp_progress_fn progress_fn; /* kp_cluster_set_progress */
    void *progress_ctx;
    uint64_t progress_next;     /* offset in the current input of the next report */

    /* well-known interned strings */
    kp_str s_default_scheduler, s_tcp, s_any_ip, s_hostname_key;
} kp_cluster;

/* ---- helpers used across engines (cluster.c / labels.c) ---- */

/* Resource index for name (registered if new). -1 if the per-cluster limit is exceeded. */
int kp__res_index(kp_cluster *cl, const char *name, size_t len);
/* Value of resource r in a sparse vector (0 if absent). */
int64_t kp__resv_get(const kp_resv *v, int r);
/* Label value lookup; returns true and sets *val if key is present. */
bool kp__labels_get(const kp_labels *l, kp_str key, kp_str *val);
/* metav1.LabelSelectorAsSelector(...).Matches. A nil selector matches nothing; an empty one
 * matches everything (callers decide which applies in their context). */
bool kp__selector_matches(const kp_cluster *cl, const kp_label_selector *sel, const kp_labels *l);
/* One NodeSelectorRequirement against labels (Gt/Lt parse integers as upstream). */
bool kp__selreq_matches(const kp_cluster *cl, const kp_selreq *r, const kp_labels *l);
/* v1.NodeSelectorTerm against a node (matchExpressions AND matchFields). Empty term matches nothing. */
bool kp__nsterm_matches(const kp_cluster *cl, const kp_nsterm *t, const kp_node *n);
/* Required node affinity + nodeSelector (component-helpers GetRequiredNodeAffinity.Match). */
bool kp__pod_matches_node_selector_and_affinity(const kp_cluster *cl, const kp_pod *p, const kp_node *n);
/* v1helper.TolerationsTolerateTaint. */
bool kp__toleration_tolerates(const kp_toleration *t, const kp_taint *taint);
bool kp__tolerations_tolerate(const kp_pod *p, const kp_taint *taint);

/* NodeInfo mutation mirrors (keep aggregates exact). */
kp_status kp__node_add_pod(kp_cluster *cl, uint32_t node, uint32_t pod);
void kp__node_remove_pod(kp_cluster *cl, uint32_t pod);

/* Helpers for readable names in messages: "ns/name". Writes into buf, returns buf. */
const char *kp__pod_ref(const kp_cluster *cl, const kp_pod *p, char *buf, size_t cap);
static inline const char *kp__s(const kp_cluster *cl, kp_str id) { return cl->strs.ptr[id]; }

/* Adds a formatted warning (copied). */
void kp__cluster_warn(kp_cluster *cl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Pod classification (mirrors pkg/kubelet/types + v1qos). */
bool kp__pod_is_terminal(const kp_pod *p);
bool kp__pod_has_condition(const kp_cluster *cl, const kp_pod *p, const char *type, const char *status, const char *reason);

#endif
