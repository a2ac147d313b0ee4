/* Dynamic Resource Allocation objects (internal): DeviceClass, ResourceSlice, ResourceClaim and
 * ResourceClaimTemplate of resource.k8s.io/v1 (older versions decoded into the same values),
 * and a pod's spec.resourceClaims, as plain values for the DynamicResources plugin, its
 * structured allocator (src/sched/dra/), the resourceclaim controller (src/ctrl/) and `inspect`.
 *
 * Only the fields those read are kept; defaults are the API server's (SetDefaults_* of
 * pkg/apis/resource/v1: allocationMode ExactCount, count 1). Strings are interned (kp_str, 0 =
 * unset); arrays live in the cluster arena. Attribute and capacity names are stored fully
 * qualified: an unqualified name ("model") of a device of driver D is stored with domain D, as
 * the CEL environment sees it (device.attributes["D"].model). */
#ifndef KP_CORE_DRA_H
#define KP_CORE_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/selector.h"
#include "core/taints.h"
#include "kprio/quantity.h"

typedef enum {
    KP_DK_CLASS = 0, /* DeviceClass (cluster-scoped) */
    KP_DK_SLICE, /* ResourceSlice (cluster-scoped) */
    KP_DK_CLAIM, /* ResourceClaim (namespaced) */
    KP_DK_TEMPLATE, /* ResourceClaimTemplate (namespaced) */
    KP_DK_KINDS
} kp_dra_kind;

static inline const char *kp__dra_kind_name(kp_dra_kind k) {
    static const char *const names[KP_DK_KINDS] = {"DeviceClass", "ResourceSlice", "ResourceClaim",
                                                   "ResourceClaimTemplate"};
    return (unsigned)k < KP_DK_KINDS ? names[k] : "?";
}
static inline bool kp__dra_kind_namespaced(kp_dra_kind k) {
    return k == KP_DK_CLAIM || k == KP_DK_TEMPLATE;
}

/* ---- devices (ResourceSlice) ---- */

/* v1.DeviceAttribute: exactly one of int, bool, string, version. */
typedef enum {
    KP_DRA_ATTR_INT = 0,
    KP_DRA_ATTR_BOOL,
    KP_DRA_ATTR_STRING,
    KP_DRA_ATTR_VERSION /* a semantic version string (validated at decode) */
} kp_dra_attr_type;
typedef struct {
    kp_str domain, name; /* fully qualified: domain (the driver when unqualified) and id */
    uint8_t type; /* kp_dra_attr_type */
    bool b;
    int64_t i;
    kp_str s; /* string or version */
} kp_dra_attr;

/* v1.CapacityRequestPolicy (DRAConsumableCapacity): what a request may consume of a capacity
 * of a device that allows multiple allocations. */
typedef struct {
    bool has_default;
    kp_quantity def; /* default */
    uint16_t n_valid;
    kp_quantity *valid; /* validValues (ascending) */
    bool has_range, has_max, has_step;
    kp_quantity min, max, step; /* validRange */
} kp_dra_cap_policy;
typedef struct {
    kp_str domain, name; /* fully qualified as attributes */
    kp_quantity value;
    kp_dra_cap_policy *policy; /* requestPolicy (NULL: none) */
} kp_dra_capacity;

/* v1.Counter in a CounterSet or a DeviceCounterConsumption. */
typedef struct {
    kp_str name;
    kp_quantity value;
} kp_dra_counter;
typedef struct {
    kp_str name; /* counter set name (sharedCounters[].name / consumesCounters[].counterSet) */
    uint16_t n_counters;
    kp_dra_counter *counters;
} kp_dra_counter_set;

/* v1.DeviceTaint (DRADeviceTaints); effect NoSchedule or NoExecute (KP_EFFECT_NONE: "None"). */
typedef kp_taint kp_dra_taint;

/* Which nodes can reach a device or a slice: exactly one of a node name, a node selector (one
 * term) and all nodes (v1.ResourceSliceSpec / v1.Device node selection). */
typedef struct {
    kp_str node_name; /* 0: not by name */
    bool all_nodes;
    bool has_selector;
    kp_nsterm selector; /* nodeSelector.nodeSelectorTerms[0] */
} kp_dra_nodes;

typedef struct {
    kp_str name;
    uint16_t n_attrs, n_caps, n_taints, n_consumes;
    kp_dra_attr *attrs; /* sorted by (domain, name) */
    kp_dra_capacity *caps; /* sorted by (domain, name) */
    kp_dra_taint *taints;
    kp_dra_counter_set *consumes; /* consumesCounters (DRAPartitionableDevices) */
    bool has_nodes; /* per-device node selection (the slice's perDeviceNodeSelection) */
    kp_dra_nodes nodes;
    bool allow_multiple; /* allowMultipleAllocations (DRAConsumableCapacity) */
    bool binds_to_node; /* bindsToNode (DRADeviceBindingConditions) */
    uint16_t n_binding_conditions, n_binding_failure_conditions;
    kp_str *binding_conditions, *binding_failure_conditions;
} kp_dra_device;

typedef struct {
    kp_str name; /* metadata.name */
    kp_str driver; /* spec.driver */
    kp_str pool; /* spec.pool.name */
    int64_t generation; /* spec.pool.generation */
    int64_t slice_count; /* spec.pool.resourceSliceCount */
    kp_dra_nodes nodes; /* the slice's node selection (unset when per device) */
    bool per_device_nodes; /* spec.perDeviceNodeSelection */
    bool deleted;
    uint32_t n_devices;
    uint16_t n_counter_sets;
    kp_dra_device *devices;
    kp_dra_counter_set *counter_sets; /* sharedCounters */
    const char *src_file;
} kp_dra_slice;

/* ---- DeviceClass ---- */

typedef struct {
    kp_str name;
    uint16_t n_selectors;
    kp_str *selectors; /* spec.selectors[].cel.expression */
    uint16_t n_config; /* spec.config (opaque parameters: counted, not interpreted) */
    kp_str extended_resource; /* spec.extendedResourceName (0: none; the implicit name is
                                 "deviceclass.resource.kubernetes.io/<name>") */
    bool deleted;
    const char *src_file;
    int64_t creation_ts; /* metadata.creationTimestamp (unix seconds; 0 when unset): the newest
                            class wins an extendedResourceName several classes declare */
} kp_dra_class;

/* ---- claims ---- */

typedef enum { KP_DRA_MODE_EXACT = 0, KP_DRA_MODE_ALL } kp_dra_mode;

/* v1.ExactDeviceRequest and v1.DeviceSubRequest (the latter has a name). */
typedef struct {
    kp_str name; /* sub-request name (firstAvailable[].name); 0 for `exactly` */
    kp_str class_name; /* deviceClassName */
    uint16_t n_selectors, n_tolerations, n_cap_requests;
    kp_str *selectors; /* selectors[].cel.expression */
    kp_toleration *tolerations; /* device tolerations */
    kp_dra_capacity *cap_requests; /* capacity.requests (DRAConsumableCapacity) */
    uint8_t mode; /* kp_dra_mode */
    bool admin_access; /* adminAccess true */
    int64_t count; /* ExactCount: count (default 1) */
} kp_dra_exact;

typedef struct {
    kp_str name; /* requests[].name */
    bool first_available; /* firstAvailable set (DRAPrioritizedList), else exactly */
    kp_dra_exact exactly;
    uint16_t n_subs;
    kp_dra_exact *subs; /* firstAvailable, in order of preference */
} kp_dra_request;

typedef struct {
    uint16_t n_requests;
    kp_str *requests; /* the requests (or "req/sub") it applies to; none = all */
    kp_str match_attribute; /* fully qualified ("domain/name"); 0 when distinct */
    kp_str distinct_attribute; /* distinctAttribute (DRAConsumableCapacity); 0 when match */
} kp_dra_constraint;

typedef struct {
    uint16_t n_requests, n_constraints, n_config;
    kp_dra_request *requests;
    kp_dra_constraint *constraints;
} kp_dra_claim_spec;

/* v1.DeviceRequestAllocationResult. */
typedef struct {
    kp_str request; /* "req" or "req/sub" */
    kp_str driver, pool, device;
    kp_str share_id; /* shareID (consumable capacity), 0 when none */
    bool admin_access;
    uint16_t n_consumed;
    kp_dra_capacity *consumed; /* consumedCapacity */
    /* bindingConditions / bindingFailureConditions copied from the device at allocation
     * (DRADeviceBindingConditions; core/dra_binding.c) */
    uint16_t n_binding_conditions, n_binding_failure_conditions;
    kp_str *binding_conditions, *binding_failure_conditions;
} kp_dra_result;

/* v1.ResourceClaimConsumerReference of a pod (the only consumer kprio models; others are kept
 * as opaque reservations that hold the claim). */
typedef struct {
    kp_str resource; /* "pods" */
    kp_str name, uid;
} kp_dra_consumer;

typedef struct {
    kp_str ns, name, uid;
    kp_labels labels, annotations;
    kp_str pod_claim_name; /* annotation resource.kubernetes.io/pod-claim-name (0: none) */
    kp_str owner_kind, owner_name, owner_uid; /* the controller ownerReference (0: none) */
    int64_t creation_ts; /* KP_TIME_NONE if unset */
    int64_t deletion_ts; /* KP_TIME_NONE if not being deleted */
    kp_dra_claim_spec spec;
    bool allocated; /* status.allocation present */
    bool extended; /* annotation resource.kubernetes.io/extended-resource-claim: "true" */
    bool deleted;
    uint16_t n_results, n_reserved;
    kp_dra_result *results; /* status.allocation.devices.results */
    bool alloc_has_nodes;
    kp_dra_nodes alloc_nodes; /* status.allocation.nodeSelector (one term or none) */
    int64_t alloc_ts; /* status.allocation.allocationTimestamp, KP_TIME_NONE if unset */
    kp_dra_consumer *reserved; /* status.reservedFor */
    uint32_t cap_reserved; /* reserved grows in the simulator (core/dra_state.c) */
    const char *src_file;
    uint16_t n_device_status;
    struct kp_dra_device_status *device_status; /* status.devices (core/dra_binding.c) */
} kp_dra_claim;

typedef struct {
    kp_str ns, name;
    kp_labels labels, annotations; /* spec.metadata: copied onto generated claims */
    kp_dra_claim_spec spec;
    bool deleted;
    const char *src_file;
} kp_dra_template;

/* A pod's spec.resourceClaims[] (v1.PodResourceClaim) and, when its status names one, the
 * generated claim (status.resourceClaimStatuses[]). */
typedef struct kp_pod_claim {
    kp_str name;
    kp_str claim_name; /* resourceClaimName (0: from a template) */
    kp_str template_name; /* resourceClaimTemplateName (0: by name) */
    kp_str status_claim; /* status.resourceClaimStatuses[name].resourceClaimName (0: none yet) */
    bool has_status; /* an entry exists (a nil resourceClaimName means "no claim needed") */
} kp_pod_claim;

/* ---- DRA-backed extended resources (DRAExtendedResource; core/dra_ext.c) ---- */

/* v1.ContainerExtendedResourceRequest: which request of the pod's extended-resource claim serves
 * a container's extended resource. */
typedef struct {
    kp_str container, resource, request;
} kp_dra_ext_mapping;
/* v1.PodExtendedResourceClaimStatus (pod.status.extendedResourceClaimStatus). */
typedef struct kp_pod_ext_claim {
    kp_str claim; /* resourceClaimName */
    uint16_t n_mappings;
    kp_dra_ext_mapping *mappings; /* requestMappings */
} kp_pod_ext_claim;

/* Every DRA object of a cluster (kp_cluster.dra). Objects are addressed by index; identities
 * follow the cluster's replace rule (later inputs win, with a warning). */
typedef struct {
    kp_dra_class *classes;
    uint32_t n_classes, cap_classes;
    kp_dra_slice *slices;
    uint32_t n_slices, cap_slices;
    kp_dra_claim *claims;
    uint32_t n_claims, cap_claims;
    kp_dra_template *templates;
    uint32_t n_templates, cap_templates;
    /* bumped by every change of a claim's allocation or reservations, or a claim's creation or
     * deletion, after finalize (core/dra_state.c): a scheduler's device index catches up */
    uint64_t gen_claims;
} kp_dra;

struct kp_cluster;

/* ---- storage (core/dra.c) ----
 * A new object of kind with that namespace (0 for cluster-scoped kinds) and name, zeroed but for
 * its identity, following the cluster's replace rule (kp__cluster_new_volume's); NULL when out
 * of memory (or, after finalize, when the identity exists). */
void *kp__cluster_new_dra(struct kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name);
/* The index of the object of kind with that identity in its array of kp_dra, or -1. */
long kp__cluster_find_dra(const struct kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name);

/* ---- claim state: the one writer of a claim's status after finalize (core/dra_state.c) ----
 * Every call bumps kp_dra.gen_claims; nothing changes on error. */
/* The scheduler's Reserve/PreBind (dynamicresources.go bindClaim): writes status.allocation
 * (results, node selector of the allocation, allocationTimestamp now) of an unallocated claim.
 * KP_EINVAL: out of range, or allocated already. */
kp_status kp__dra_claim_allocate(struct kp_cluster *cl, uint32_t claim, const kp_dra_result *res,
                                 uint16_t n_res, const kp_dra_nodes *nodes, int64_t now);
/* Adds pod to status.reservedFor (no-op when it is there). KP_EINVAL: out of range, or the
 * claim is not allocated. */
kp_status kp__dra_claim_reserve(struct kp_cluster *cl, uint32_t claim, uint32_t pod);
/* The resourceclaim controller (pkg/controller/resourceclaim): drops pod from reservedFor
 * (no-op when absent); deallocates a claim no longer reserved by anyone; creates the claim of
 * a pod's template (named as the controller's generateName does); deletes a claim. */
kp_status kp__dra_claim_unreserve(struct kp_cluster *cl, uint32_t claim, uint32_t pod);
kp_status kp__dra_claim_deallocate(struct kp_cluster *cl, uint32_t claim);
kp_status kp__dra_claim_delete(struct kp_cluster *cl, uint32_t claim);

/* ---- claim lifecycle: the resourceclaim controller's writes (core/dra_claims.c) ----
 * The generateName base of the claim the controller makes for a pod's spec.resourceClaims entry
 * (mirrors Controller.handleClaim's truncation): "<pod>-<podClaim>-"; when that is longer than 57
 * bytes, both names cut in proportion to their lengths and joined by "-" (the API server then adds
 * 5 random characters). out: at least 64 bytes. */
void kp__dra_claim_generate_base(const char *pod, const char *pod_claim, char *out, size_t cap);
/* Creates the claim of pod's spec.resourceClaims[pc] from its ResourceClaimTemplate (mirrors the
 * object Controller.handleClaim creates), named `name`: the template's spec and spec.metadata
 * labels and annotations, the annotation resource.kubernetes.io/pod-claim-name, a controller
 * owner reference to the pod, creationTimestamp now (unix seconds), unallocated; *out its index.
 * The pod's status is not written (kp__dra_pod_set_claim_status). KP_EINVAL: pod or pc out of
 * range, the entry names no template, or a claim of that name exists; KP_ENOTFOUND: the template
 * does not exist; KP_ENOMEM. */
kp_status kp__dra_claim_create(struct kp_cluster *cl, uint32_t pod, uint16_t pc, const char *name,
                               int64_t now, uint32_t *out);
/* Writes pod's status.resourceClaimStatuses entry of spec.resourceClaims[pc] (the controller's
 * ApplyStatus): claim is the claim's name (0: none needed). KP_EINVAL: out of range; KP_ENOMEM. */
kp_status kp__dra_pod_set_claim_status(struct kp_cluster *cl, uint32_t pod, uint16_t pc,
                                       kp_str claim);
/* The claim pod's spec.resourceClaims[pc] names (resourceclaim.Name): its resourceClaimName, or
 * for a template the name in its status; -1 when it names none or the claim does not exist. */
long kp__dra_pod_claim(const struct kp_cluster *cl, uint32_t pod, uint16_t pc);
/* Drops status.reservedFor[i] of claim (a consumer that is gone: its pod may no longer exist, so
 * kp__dra_claim_unreserve cannot name it). KP_EINVAL: out of range. */
kp_status kp__dra_claim_drop_reservation(struct kp_cluster *cl, uint32_t claim, uint16_t i);

/* ---- DRA-backed extended resources (core/dra_ext.c) ----
 * IsDRAExtendedResourceName: an extended resource name, or the implicit
 * "deviceclass.resource.kubernetes.io/<class>". */
bool kp__dra_ext_name(const char *name);
/* The DeviceClass serving resource name (the extended resource cache's GetDeviceClass): the
 * class named in the implicit name, else among the classes whose spec.extendedResourceName is
 * name the newest (creationTimestamp), ties to the lower name; -1 when none (deleted classes do
 * not count). */
long kp__dra_ext_class(const struct kp_cluster *cl, const char *name);
/* Is resource r (an index of cl->res_names) served by a DeviceClass (the DRAExtendedResource
 * gate on)? Cheap when the cluster has no DeviceClass. */
bool kp__dra_ext_backed(const struct kp_cluster *cl, int r);
/* mirrors hasDeviceClassMappedExtendedResource: does p request (non-zero) an extended resource
 * a DeviceClass serves? */
struct kp_pod;
bool kp__dra_ext_wanted(const struct kp_cluster *cl, const struct kp_pod *p);
/* The claim the scheduler's PreBind creates for pod's extended resources (mirrors
 * createExtendedResourceClaimInAPI): named `name`, the annotation
 * resource.kubernetes.io/extended-resource-claim "true", a controller owner reference to the
 * pod, the requests copied (n_req of them, into the arena), creationTimestamp now (unix seconds,
 * KP_TIME_NONE: none), unallocated; *out its index. KP_EINVAL: pod out of range or a claim of
 * that name exists; KP_ENOMEM. */
kp_status kp__dra_ext_claim_create(struct kp_cluster *cl, uint32_t pod, const char *name,
                                   const kp_dra_request *req, uint16_t n_req, int64_t now,
                                   uint32_t *out);
/* Writes pod.status.extendedResourceClaimStatus (patchPodExtendedResourceClaimStatus): claim's
 * name and the mappings (copied). KP_EINVAL: out of range; KP_ENOMEM. */
kp_status kp__dra_pod_set_ext_status(struct kp_cluster *cl, uint32_t pod, kp_str claim,
                                     const kp_dra_ext_mapping *m, uint16_t n);
/* The pod's extended-resource claim: the one its status names, else a claim annotated as one
 * and controlled by the pod (findExtendedResourceClaim); -1 when none (or deleted). */
long kp__dra_pod_ext_claim(const struct kp_cluster *cl, uint32_t pod);
/* ---- binding conditions (DRADeviceBindingConditions, DRAResourceClaimDeviceStatus):
 * core/dra_binding.c ---- */

/* metav1.Condition of an AllocatedDeviceStatus (only what the scheduler reads). */
typedef struct {
    kp_str type, status, reason, message; /* status: "True", "False" or "Unknown" */
    bool is_true; /* status "True" */
} kp_dra_condition;
/* v1.AllocatedDeviceStatus: status.devices[] of a claim, written by drivers. */
typedef struct kp_dra_device_status {
    kp_str driver, pool, device, share_id;
    uint16_t n_conditions;
    kp_dra_condition *conditions;
} kp_dra_device_status;

/* What the binding conditions of an allocated claim say (mirrors isClaimReadyForBinding and
 * isClaimTimeout of dynamicresources.go). */
typedef enum {
    KP_DRA_BINDING_READY = 0, /* every result's bindingConditions True (or none has any) */
    KP_DRA_BINDING_PENDING, /* some condition not True yet, the timeout not reached */
    KP_DRA_BINDING_FAILED, /* a bindingFailureCondition is True (*why: "claim NAME binding
                            * failed: reason=R, message=\"M\"") */
    KP_DRA_BINDING_TIMEOUT /* not ready, allocationTimestamp + timeout before now */
} kp_dra_binding;
/* The state of claim at now (unix seconds; KP_TIME_NONE: no clock, never timed out) with the
 * binding timeout timeout_s. why: the failure's text (may be NULL). */
kp_dra_binding kp__dra_claim_binding(const struct kp_cluster *cl, const kp_dra_claim *c,
                                     int64_t now, int64_t timeout_s, char *why, size_t cap);
/* Whether any result of an allocated claim has binding conditions (hasBindingConditions). */
bool kp__dra_claim_has_binding_conditions(const kp_dra_claim *c);
/* DynamicResources' PostFilter (its UpdateStatus): reservedFor, the allocation and
 * status.devices cleared. KP_EINVAL: out of range. */
kp_status kp__dra_claim_release(struct kp_cluster *cl, uint32_t claim);
/* A driver sets condition `type` of the device of the claim's allocation result `result`
 * (status.devices[] entry made when missing). KP_EINVAL: out of range, or not allocated;
 * KP_ENOMEM. */
kp_status kp__dra_claim_set_condition(struct kp_cluster *cl, uint32_t claim, uint16_t result,
                                      const char *type, bool is_true, const char *reason,
                                      const char *message);

#endif
