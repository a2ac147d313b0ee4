/* Pods (internal): the decoded spec and status fields the engines read, and derived values set by
 * kp_cluster_finalize. */
#ifndef KP_CORE_POD_H
#define KP_CORE_POD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "kprio/cluster.h"
#include "kprio/qos.h"

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
    kp_inclusion_policy node_taints_policy; /* default Ignore */
    uint16_t n_match_label_keys;
    kp_str *match_label_keys;
} kp_spread;

typedef struct {
    int32_t host_port, container_port;
    kp_str protocol; /* "TCP" when unset */
    kp_str host_ip; /* "0.0.0.0" when unset */
} kp_port;

typedef struct {
    kp_str name;
    kp_str image; /* spec.containers[].image as written */
    kp_resv req, lim;
    bool is_init, is_sidecar; /* sidecar = init container with restartPolicy Always */
    /* startupProbe / readinessProbe present, and their initialDelaySeconds (the rest of a probe
     * is not kept: kprio models readiness as this delay, docs/scenario.md "Readiness") */
    bool has_startup_probe, has_readiness_probe;
    int32_t startup_delay, readiness_delay;
    uint16_t n_ports; /* only ports with hostPort > 0 */
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
    /* local ephemeral storage on the node's filesystem, as the kubelet's localVolumeNames counts
     * it: hostPath, gitRepo, configMap, and emptyDir on the default medium */
    bool is_local;
    /* the sources the volume plugins read (scheduler): see kp_volume_source */
    uint8_t source;
    bool read_only; /* gcePersistentDisk / iscsi / rbd readOnly */
    uint16_t n_monitors; /* rbd.monitors */
    kp_str claim; /* persistentVolumeClaim.claimName; ephemeral: "<pod>-<volume>" */
    kp_str disk; /* gcePersistentDisk.pdName, awsElasticBlockStore.volumeID, iscsi.iqn,
                    rbd.image */
    kp_str pool; /* rbd.pool (default "rbd") */
    /* an in-tree disk migrated to CSI (NodeVolumeLimits): the volume handle the CSI translation
     * gives it (core/volume.h kp__csi_translate_inline); 0 when the source is not counted */
    kp_str csi_handle;
    kp_str *monitors;
} kp_volume;

/* kp_volume.source: what the scheduler's volume plugins look at */
typedef enum {
    KP_VS_OTHER = 0,
    KP_VS_PVC, /* persistentVolumeClaim */
    KP_VS_EPHEMERAL, /* ephemeral (generic ephemeral volume: a claim named <pod>-<volume>) */
    KP_VS_GCE_PD,
    KP_VS_AWS_EBS,
    KP_VS_ISCSI,
    KP_VS_RBD,
    KP_VS_AZURE_DISK, /* azureDisk (diskURI) */
    KP_VS_CINDER, /* cinder (volumeID) */
    KP_VS_PORTWORX, /* portworxVolume (volumeID) */
    KP_VS_MIGRATABLE /* azureFile, vsphereVolume: CSI translation exists, migration not counted */
} kp_volume_source;

/* A volume NodeVolumeLimits may count (a claim, a generic ephemeral volume, an in-tree source
 * csi-translation-lib translates: the plugin's PreFilter runs for a pod with one). */
static inline bool kp__volume_attachable(const kp_volume *v) {
    return v->source != KP_VS_OTHER && v->source != KP_VS_ISCSI;
}

typedef struct {
    kp_str kind, name, uid;
    kp_str api_version; /* as written ("apps/v1"); 0 if absent */
    bool controller;
} kp_owner_ref;

typedef enum {
    KP_PHASE_UNKNOWN = 0,
    KP_PHASE_PENDING,
    KP_PHASE_RUNNING,
    KP_PHASE_SUCCEEDED,
    KP_PHASE_FAILED
} kp_phase;
/* kp_qos: include/kprio/qos.h */

/* In-place resize state read from the pod's status (component-helpers resource.PodRequests
 * with UseStatusResources reads it): kept only when the status carries resources or the
 * PodResizePending condition, so pods without it pay one NULL pointer. */
typedef struct {
    kp_resv req; /* status.containerStatuses[].resources.requests */
    kp_resv alloc; /* status.containerStatuses[].allocatedResources */
    bool has_req, has_alloc; /* the field is present (an empty map counts) */
} kp_container_status;
typedef struct {
    kp_container_status *c; /* n_containers + n_init, in kp_pod.containers' order */
    kp_resv req; /* pod-level status.resources.requests */
    kp_resv alloc; /* pod-level status.allocatedResources */
    bool has_res; /* status.resources present */
    bool has_req, has_alloc; /* status.resources.requests / status.allocatedResources present */
    bool infeasible; /* the first PodResizePending condition has reason Infeasible */
    bool deferred; /* ... has reason Deferred (the kubelet retries it) */
    kp_str pending_message; /* that condition's message (0: none) */
} kp_pod_resize;

typedef struct kp_pod {
    /* Field order groups 8-, 4-, 2- and 1-byte members so the struct has no padding holes:
     * 150,000 of these must stay well under 1 KiB each together with their arena data. */
    kp_labels labels, annotations;
    kp_labels node_selector;
    int64_t creation_ts; /* unix seconds, KP_TIME_NONE if unset */
    int64_t deletion_ts; /* KP_TIME_NONE if not being deleted */
    int64_t start_time; /* status.startTime, KP_TIME_NONE if unset */
    /* the Ready condition's lastTransitionTime (unix seconds, KP_TIME_NONE if unset); written by
     * kp_cluster_pod_set_ready only (core/pod_state.c) after loading */
    int64_t ready_ts;
    /* seconds from the containers' start to the pod's Ready as the probes model it: the largest
     * over its containers (sidecars too) of the startupProbe's plus the readinessProbe's
     * initialDelaySeconds; 0 without probes */
    int64_t probe_delay;
    int64_t termination_grace; /* seconds, default 30 */
    int64_t nz_cpu, nz_mem; /* derived: non-zero requests for scoring (100m / 200Mi defaults) */
    kp_owner_ref *owners;
    kp_node_affinity *node_affinity; /* NULL if none */
    kp_pod_affinity *pod_affinity, *pod_anti_affinity; /* NULL if none */
    kp_toleration *tolerations; /* may be shared between pods: read-only */
    kp_spread *spread;
    kp_container *containers; /* n_containers + n_init entries: apps, then init containers */
    kp_volume *volumes;
    kp_str *image_volumes; /* spec.volumes[].image.reference, in order (ImageLocality) */
    struct kp_pod_claim *claims; /* spec.resourceClaims (core/dra.h), n_claims entries */
    struct kp_pod_ext_claim *ext_claim; /* status.extendedResourceClaimStatus (core/dra.h), NULL */
    kp_condition *conditions; /* only DisruptionTarget is kept */
    const char *src_file; /* file it came from (interned path) */
    kp_pod_resize *resize; /* in-place resize status (NULL if the status has none) */
    kp_resv overhead;
    kp_resv pod_req, pod_lim; /* pod-level spec.resources */
    kp_resv req; /* derived: scheduler PodRequests (incl. overhead, pod-level) */

    kp_str ns, name, uid;
    kp_str priority_class; /* spec.priorityClassName (after admission resolution) */
    kp_str scheduler_name; /* "default-scheduler" when unset */
    kp_str node_name; /* spec.nodeName ("" = unbound) */
    kp_str nominated_node; /* status.nominatedNodeName */
    kp_str os_name; /* spec.os.name */
    kp_str status_qos; /* status.qosClass as loaded ("" if absent) */
    kp_str status_reason, status_message; /* status.reason / .message (an eviction's) */
    kp_str
        gates; /* spec.schedulingGates' names as SchedulingGates prints them, "[a b]"; 0 = none */
    int32_t priority; /* effective priority after finalize */
    int32_t node; /* derived: index of the bound node, -1 if none */
    uint32_t pos_in_node; /* derived: index in nodes[node].pods */
    uint32_t src_index; /* load order, stable tie-break */

    uint16_t n_owners, n_tolerations, n_spread;
    uint16_t n_containers, n_init;
    uint16_t n_volumes, n_conditions;
    uint16_t n_image_volumes;
    uint16_t n_claims; /* spec.resourceClaims entries */

    /* priority: spec.priority if set, else resolved at finalize (Priority admission plugin) */
    bool has_priority; /* priority known: spec.priority in the input, or resolved at finalize */
    bool has_spec_priority; /* spec.priority was present in the input itself */
    bool has_preemption_policy;
    bool class_missing; /* has spec.priority but its class no longer exists (warning) */
    bool has_pod_resources; /* spec.resources (pod-level) present */
    bool pod_level_gated_off; /* IsPodLevelResourcesSet, but PodLevelResources is off (finalize
                                 then clears has_pod_resources; the kubelet rejects the pod) */
    bool has_termination_grace;
    bool is_static, is_mirror, is_critical; /* derived */
    bool deleted; /* kp_cluster_delete_pod: a tombstone, off its node and out of the name map */
    /* the Ready condition (and ContainersReady, which kprio keeps equal: no readiness gates):
     * has_ready_cond, the status carries it (read from the input, or written by
     * kp_cluster_pod_set_ready); ready, its status is True. A loaded pod without the condition
     * is taken as Ready when it is bound and Running (or has no phase): see kp__pod_ready_default
     */
    bool has_ready_cond, ready;
    uint8_t preemption_policy; /* kp_preempt_policy */
    uint8_t phase; /* kp_phase */
    uint8_t qos; /* kp_qos, derived */
} kp_pod;

/* The pod's volumes kp__volume_attachable counts (kp_node.n_attachable sums them). */
static inline uint32_t kp__pod_attachable(const kp_pod *p) {
    uint32_t n = 0;
    for (uint16_t i = 0; i < p->n_volumes; i++) n += kp__volume_attachable(&p->volumes[i]);
    return n;
}

/* Pod classification (mirrors pkg/kubelet/types + v1qos). */
bool kp__pod_is_terminal(const kp_pod *p);
bool kp__pod_has_condition(const kp_cluster *cl, const kp_pod *p, const char *type,
                           const char *status, const char *reason);
/* The Ready condition of a loaded pod whose status has none (its decoder calls this): a pod
 * from `kubectl get` of a running pod always carries one, so a pod without it is a hand-written
 * snapshot's: taken as Ready when bound to a node and Running (or without a phase), since its
 * startTime (else its creationTimestamp); not Ready otherwise. has_ready_cond stays false, so
 * the encoder writes no condition the input did not have. */
void kp__pod_ready_default(kp_pod *p);
/* podutil.IsPodReady as the controllers read it: the Ready condition is True and the pod has not
 * ended (the kubelet turns Ready False with reason PodCompleted when a pod ends) nor been
 * deleted. */
bool kp__pod_ready(const kp_pod *p);
/* podutil.IsPodAvailable: Ready, and Ready for at least min_ready seconds at `now` (unix
 * seconds; lastTransitionTime + minReadySeconds <= now; min_ready <= 0: Ready is enough).
 * A defaulted condition without a time (kp__pod_ready_default) counts as Ready long ago. */
bool kp__pod_available(const kp_pod *p, int32_t min_ready, int64_t now);
/* Readable name in messages: "ns/name". Writes into buf, returns buf. */
const char *kp__pod_ref(const kp_cluster *cl, const kp_pod *p, char *buf, size_t cap);

#endif
