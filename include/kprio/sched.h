/* kube-scheduler's scheduling cycle over a loaded cluster: queue, filters, scores, nominations
 * and (through DefaultPreemption) preemption.
 *
 * Typical use:
 *     kp_sched_config *cfg = NULL;                       // NULL = the default profile
 *     kp_sched_config_load_path("sched.yaml", NULL, &cfg, &err);
 *     kp_sched_options opt;
 *     kp_sched_options_init(&opt);
 *     kp_sched *s;
 *     kp_sched_new(cl, cfg, &opt, &s, &err);             // cl: a finalized cluster
 *     kp_sched_run(s, &err);                             // every pending pod, queue order
 *     for (size_t i = 0; i < kp_sched_result_count(s); i++) {
 *         const kp_sched_pod_result *r = kp_sched_result(s, i);
 *         printf("%s/%s %s\n", kp_cluster_pod_namespace(cl, r->pod), kp_cluster_pod_name(cl,
 * r->pod), kp_cluster_node_name(cl, r->node));
 *     }
 *     kp_sched_free(s); kp_sched_config_free(cfg);
 * The scheduler mutates the cluster it was given: bound pods are added to their nodes, victims
 * become terminating (or are removed with until_settled). Not thread-safe. */
#ifndef KP_SCHED_H
#define KP_SCHED_H

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_sched kp_sched;
typedef struct kp_sched_config kp_sched_config;

/* Loads a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, YAML or JSON) from the file
 * at path into *out (NULL on error). scheduler_name NULL keeps every profile (a scheduler serves
 * them all: one queue in priority order, each pod run by its own profile's plugins, weights and
 * args); otherwise only the profile of that schedulerName (a lone profile without one is
 * "default-scheduler"). Every profile is validated either way, as kube-scheduler does:
 * schedulerName required with several profiles and unique, the queueSort sets equal. Errors:
 * KP_EINVAL for unknown fields, plugins, profiles and unsupported settings ("FILE:
 * KubeSchedulerConfiguration: FIELD: what is wrong"), KP_ESYNTAX, KP_ELIMIT (a name longer than the
 * configuration's fields), KP_EIO (unreadable file; path only), KP_ENOMEM. */
kp_status kp_sched_config_load_path(const char *path, const char *scheduler_name,
                                    kp_sched_config **out, kp_error *err);
/* The same on buf[0..len) (not retained); source names it in errors. */
kp_status kp_sched_config_load_buffer(const char *source, const char *buf, size_t len,
                                      const char *scheduler_name, kp_sched_config **out,
                                      kp_error *err);
/* Releases a configuration. NULL is a no-op. */
void kp_sched_config_free(kp_sched_config *cfg);

typedef struct {
    const char *scheduler_name; /* serve only this profile (of a several-profile configuration),
                                 * or the only profile under this name; NULL = every profile */
    uint64_t seed; /* PRNG seed (host ties, preemption offsets) */
    bool until_settled; /* victims terminate at once; retry until nothing changes */
    kp_index protect_pod; /* what-if (kprio why): this pod counts as covered by a PDB with no
                           * disruptions left in every preemption of the run; -1 = none */
    const char *compat; /* "1.35" etc.: an older line (docs/compat.md); NULL = newest (1.37) */
    /* kprio why: kp_sched_run stops as soon as pod settle_pod's fate as a preemption victim is
     * settled, where the queue order allows it: after the attempt that makes it a victim, or
     * before the first pod whose priority is not above its own (no later pod can preempt it);
     * with settle_after >= 0, not before that pod's attempt. The results are then those of the
     * pods attempted (kp_sched_run_stats says how many). Not with until_settled. */
    bool stop_when_settled;
    kp_index settle_pod, settle_after;
} kp_sched_options;

/* Defaults: protect_pod, settle_pod and settle_after -1, every other field zero / NULL. */
void kp_sched_options_init(kp_sched_options *o);

/* Creates a scheduler over a finalized cluster (borrowed; must outlive the scheduler). cfg may
 * be NULL (default profile); it is copied, every profile of it (or only
 * opt->scheduler_name's). Errors: KP_EINVAL (cluster not finalized, bad compat version,
 * protect_pod out of range, opt->scheduler_name names none of several profiles), KP_ELIMIT
 * (opt->scheduler_name longer than a configuration's schedulerName field), KP_ENOMEM. */
kp_status kp_sched_new(kp_cluster *cl, const kp_sched_config *cfg, const kp_sched_options *opt,
                       kp_sched **out, kp_error *err);
/* Releases the scheduler. NULL is a no-op. */
void kp_sched_free(kp_sched *s);
/* After kp_sched_run: *attempted pods attempted of the *queued it queued (not gated); true when
 * the run stopped early (kp_sched_options.stop_when_settled). Either pointer may be NULL. */
bool kp_sched_run_stats(const kp_sched *s, size_t *attempted, size_t *queued);

/* Requests a per-node explanation for pod index `pod` (from kp_cluster_find_pod). Errors:
 * KP_EINVAL (index out of range), KP_ENOMEM. */
kp_status kp_sched_explain(kp_sched *s, kp_index pod, kp_error *err);

/* Schedules every pending pod of every profile (pods whose spec.schedulerName a profile serves)
 * in one queue order (priority desc, then creation time, then load order), each with its own
 * profile's framework. Each binding is visible to later pods whatever their profile; preemption
 * may pick victims of any profile. Pods with scheduling gates
 * (when the profile runs SchedulingGates, as the default one does) are not queued: they get a
 * KP_OUTCOME_GATED result after the others. Errors: KP_ENOMEM. */
kp_status kp_sched_run(kp_sched *s, kp_error *err);
/* Schedules one pod (index) now, as the next queue pop would, with its profile (the first when
 * none serves it; a gated pod only gets its KP_OUTCOME_GATED result). Errors: KP_EINVAL (index out
 * of range), KP_ENOMEM. */
kp_status kp_sched_schedule_one(kp_sched *s, kp_index pod, kp_error *err);

typedef enum {
    KP_OUTCOME_BOUND = 0,
    KP_OUTCOME_NOMINATED,
    KP_OUTCOME_UNSCHEDULABLE,
    KP_OUTCOME_GATED /* spec.schedulingGates: never queued (SchedulingGates PreEnqueue), never
                      * attempted; reported after the attempted pods, message
                      * "Scheduling is blocked due to non-empty scheduling gates" */
} kp_sched_outcome;

/* One pod's result. Pod and node names: kp_cluster_pod_namespace / kp_cluster_pod_name /
 * kp_cluster_node_name on the scheduled cluster. */
typedef struct {
    kp_index pod;
    int32_t priority;
    kp_sched_outcome outcome;
    kp_index node; /* bound node, -1 */
    kp_index nominated_node; /* nominated node, -1 */
    size_t n_victims;
    const kp_index *victims; /* pods, upstream order (most important first) */
    const kp_index *victim_nodes; /* node each victim was preempted on */
    int32_t pdb_violations;
    const char *message; /* "" when bound */
    const char *decided_by; /* step of the node-choice cascade that picked nominated_node
                             * ("fewest PDB violations", ...); "" when not nominated */
    const char *scheduler_name; /* the profile that scheduled the pod (its spec.schedulerName) */
} kp_sched_pod_result;

/* The profiles the scheduler serves (one per schedulerName, in configuration order; one for the
 * default configuration) and profile i's schedulerName ("" out of range). */
size_t kp_sched_profile_count(const kp_sched *s);
const char *kp_sched_profile_name(const kp_sched *s, size_t i);

size_t kp_sched_result_count(const kp_sched *s);
/* Result i, in the order pods were first attempted; NULL out of range. Borrowed (the struct and
 * its arrays and message): valid until the scheduler runs again or is freed. */
const kp_sched_pod_result *kp_sched_result(const kp_sched *s, size_t i);

/* The result (index for kp_sched_result) whose preemption made pod a victim, first in result
 * order; KP_ENOTFOUND when the pod is nobody's victim. */
kp_status kp_sched_result_find_preemptor(const kp_sched *s, kp_index pod, size_t *result);

/* ---- PDB budgets over the whole run (docs/schedule.md "PDB budgets over the run") ---- */

/* One PodDisruptionBudget the run's preemptions took victims of. Preemption counts a PDB's budget
 * per decision (filterPodsWithPDBViolation), each from status.disruptionsAllowed as read: victims
 * above `allowed` with decisions_over 0 took more than the budget although every decision was
 * within it (the status lags the scheduler's own preemptions). */
typedef struct {
    kp_index pdb; /* kp_cluster_pdb_info */
    bool has_status; /* the PDB had a status (without one preemption counts 0 allowed) */
    int32_t allowed; /* status.disruptionsAllowed the scheduler read (0 without a status) */
    uint32_t victims; /* the run's victims it selects (each pod once), as preemption selects */
    uint32_t decisions; /* preemption decisions that took at least one of them */
    uint32_t
        decisions_over; /* decisions that alone took more than allowed (their PDB violations) */
    uint32_t max_per_decision; /* the most victims of it one decision took */
} kp_sched_pdb_use;

/* The PDBs the run's results took victims of (namespace/name order); pod >= 0: only the PDBs that
 * select that pod. *out NULL and *n 0 when none; else owned by the caller (kp_sched_pdb_uses_free).
 * Errors: KP_EINVAL (pod out of range), KP_ENOMEM. */
kp_status kp_sched_pdb_uses(const kp_sched *s, kp_index pod, kp_sched_pdb_use **out, size_t *n,
                            kp_error *err);
void kp_sched_pdb_uses_free(kp_sched_pdb_use *u);

/* ---- a cluster that changes between attempts (the simulator; src/sched/mutate.c) ---- */

/* Virtual time (unix seconds) for what preemption stamps and compares: the victims'
 * deletionTimestamp, and "now" for pods without a startTime. Default: none (deletion time 0,
 * nil start times rank as the newest). */
void kp_sched_set_time(kp_sched *s, int64_t now);
/* Catches up with the cluster's changes since the last attempt (include/kprio/cluster.h, "The
 * simulator's view"): deleted or finished pods leave the nominator (and
 * the per-pod arrays follow pods marked terminating); created pods or nodes and changed nodes
 * rebuild the scheduler's derived state, keeping its PRNG, node-search start, time and results.
 * kp_sched_schedule_one and kp_sched_run call it first. Errors: KP_ENOMEM. */
kp_status kp_sched_sync(kp_sched *s, kp_error *err);
/* The pod's result (its last attempt), NULL when it was never attempted. Borrowed, as
 * kp_sched_result's. */
const kp_sched_pod_result *kp_sched_result_of(const kp_sched *s, kp_index pod);
/* Whether one of the scheduler's profiles serves the pod (its spec.schedulerName). */
bool kp_sched_serves(const kp_sched *s, kp_index pod);
/* The pods whose nomination the last kp_sched_schedule_one cleared: lower-priority pods
 * nominated to the node its preemption nominated (prepareCandidate's ClearNominatedNodeName; each
 * such status update is an event for the scheduling queue). *pods borrowed until the next
 * attempt; 0 when none. */
size_t kp_sched_cleared_nominations(const kp_sched *s, const kp_index **pods);
/* The ResourceClaim (index among the cluster's claims) the last attempt's DynamicResources
 * PostFilter deallocated (its reservations, allocation and device status cleared: a claim
 * update event), -1 when none. */
kp_index kp_sched_deallocated_claim(const kp_sched *s);

/* ---- queueing hints (each plugin's EventsToRegister and QueueingHintFn) ---- */

/* The cluster events the scheduling queue reacts to (framework.ClusterEvent), as kprio models
 * them. */
typedef enum {
    KP_SCHED_EV_NODE_ADD = 0, /* a node created */
    KP_SCHED_EV_NODE_UPDATE, /* a node changed: the old object is kp_sched_node_before's */
    KP_SCHED_EV_POD_ADD, /* a pod assigned to a node: bound, or created with spec.nodeName */
    /* a pod deleted (or finished) while assigned, or a pending pod that held a nomination
     * deleted, bound or renominated (kubernetes#129058) */
    KP_SCHED_EV_POD_DELETE,
    KP_SCHED_EV_PVC_ADD, /* a PersistentVolumeClaim created (`object`: its index among them) */
    KP_SCHED_EV_PV_ADD, /* a PersistentVolume created */
    KP_SCHED_EV_STORAGE_CLASS_ADD, /* a StorageClass created */
    KP_SCHED_EV_CSI_NODE_ADD, /* a CSINode created */
    /* an assigned pod changed (framework.AssignedPodUpdate): its labels, or its requests (an
     * in-place resize the kubelet applied); the old object is kp_sched_pod_before's */
    KP_SCHED_EV_POD_UPDATE,
    /* a ResourceClaim created or its status changed (`object`: its index among the claims;
     * `deallocated`: the change removed its allocation) */
    KP_SCHED_EV_CLAIM_CHANGE,
    KP_SCHED_EV_SLICE_ADD, /* a ResourceSlice created or updated */
    KP_SCHED_EV_DEVICE_CLASS_ADD, /* a DeviceClass created or updated */
    KP_SCHED_EV_COUNT
} kp_sched_event_kind;

typedef struct {
    kp_sched_event_kind kind;
    kp_index node; /* NODE_*: the node; POD_*: the node the pod is / was on, -1 when none */
    kp_index pod; /* POD_*: the pod (its labels, ports, volumes as they were); -1 otherwise */
    bool nominated; /* POD_DELETE of a pod on no node: it held a nomination */
    kp_index object; /* the storage and DRA kinds: the object's index among its kind's */
    bool deallocated; /* CLAIM_CHANGE: the claim's allocation was removed */
} kp_sched_event;

typedef enum {
    KP_HINT_SKIP = 0, /* QueueSkip: the pod stays in unschedulablePods */
    KP_HINT_QUEUE /* Queue: to backoffQ while it backs off, else activeQ */
} kp_sched_hint;

/* Remembers node as it is now: the old object of the next KP_SCHED_EV_NODE_UPDATE of that node
 * (the informer's oldObj). Call it before changing the node. */
void kp_sched_node_before(kp_sched *s, kp_index node);
/* Remembers pod as it is now (its labels, the requests the scheduler counts for it): the old
 * object of the next KP_SCHED_EV_POD_UPDATE of that pod. Call it before changing the pod. */
void kp_sched_pod_before(kp_sched *s, kp_index pod);
/* mirrors PriorityQueue.isPodWorthRequeuing for one unschedulable pod and one event: the
 * QueueingHintFn of every plugin that rejected the pod in its last attempt and registers the
 * event; QUEUE when one says Queue, or when no plugin rejected it (no nodes, an error). With
 * SchedulerQueueingHints off (--compat before 1.32, or the gate set false), the queue of before
 * the hints: a rejecting plugin registers the event, a node event's pod passes the admission
 * check on the node (preCheckForNode), an assigned pod added matches one of the pod's required
 * affinity terms (AssignedPodAdded). */
kp_sched_hint kp_sched_queueing_hint(kp_sched *s, kp_index pod, const kp_sched_event *ev);
/* How many objects of a storage event's kind the cluster holds (PVC_ADD: PersistentVolumeClaims,
 * ...; 0 for the other kinds): those from a count taken before a create on are the new ones. */
size_t kp_sched_event_objects(const kp_sched *s, kp_sched_event_kind kind);
/* False when the event can queue no pod: no pod's last attempt was rejected by a plugin that
 * registers it (and none failed without a rejecting plugin). A shortcut for the queue, which
 * then asks no pod. */
bool kp_sched_event_may_queue(const kp_sched *s, kp_sched_event_kind kind);
/* The plugins that rejected the pod in its last attempt (UnschedulablePlugins), as upstream
 * names them, into names[cap]; returns how many there are (0: none, or never attempted). */
size_t kp_sched_rejecting_plugins(const kp_sched *s, kp_index pod, const char **names, size_t cap);

/* ---- --explain (kp_sched_explain): what the last attempt of the explained pod saw ---- */

/* framework.Status codes of a Filter verdict. */
typedef enum {
    KP_FILTER_SUCCESS = 0,
    KP_FILTER_UNSCHEDULABLE = 1,
    KP_FILTER_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KP_FILTER_ERROR = 3
} kp_filter_code;

/* "Success", "Unschedulable", "UnschedulableAndUnresolvable", "Error". */
const char *kp_filter_code_name(kp_filter_code c);

typedef struct {
    kp_index pod; /* the explained pod */
    bool attempted; /* false: not scheduled in this run */
    const char *prefilter_message; /* PreFilter rejection ("" when none) */
    const char *pre_enqueue_message; /* PreEnqueue rejection, not attempted: "waiting for
                                      * scheduling gates: [a b]" ("" when none) */
    bool nominated_node_first; /* decided on the nominated node without a full pass */
    kp_index selected_node; /* -1 */
    size_t n_nodes; /* nodes of the cluster (kp_sched_explain_node_get indices) */
    bool has_preemption; /* PostFilter ran (kp_sched_explain_preemption_get) */
    const char *scheduler_name; /* the pod's profile; "" when no profile serves it */
} kp_sched_explanation;

/* The explanation requested with kp_sched_explain; false when none was requested. Strings
 * borrow from the scheduler (valid until it runs again or is freed). */
bool kp_sched_explanation_get(const kp_sched *s, kp_sched_explanation *out);

typedef struct {
    bool evaluated; /* visited by the filter pass */
    kp_filter_code code; /* the overall verdict (RunFilterPluginsWithNominatedPods) */
    const char *plugin; /* the rejecting plugin; NULL on success */
    size_t n_reasons; /* kp_sched_explain_node_reason */
    size_t n_filters; /* every enabled filter's own verdict (kp_sched_explain_filter_get) */
    bool scored;
    int64_t total_score;
} kp_sched_explain_node;

/* Node `node`'s record. KP_EINVAL without an explanation or for a bad index. */
kp_status kp_sched_explain_node_get(const kp_sched *s, kp_index node, kp_sched_explain_node *out);
/* Reason i of the node's overall verdict (upstream's text); "" out of range. */
const char *kp_sched_explain_node_reason(const kp_sched *s, kp_index node, size_t i);

typedef struct {
    const char *plugin; /* upstream plugin name */
    kp_filter_code code;
    const char *reason; /* "" on success */
} kp_sched_explain_filter;

/* Filter i of node's record (configured order). KP_EINVAL for a bad index. */
kp_status kp_sched_explain_filter_get(const kp_sched *s, kp_index node, size_t i,
                                      kp_sched_explain_filter *out);

/* The Score plugins of the explained pod's profile (without an explanation: the first
 * profile's), in order, and a node's weighted score from plugin k. */
size_t kp_sched_score_plugin_count(const kp_sched *s);
const char *kp_sched_score_plugin_name(const kp_sched *s, size_t k);
int64_t kp_sched_explain_score(const kp_sched *s, kp_index node, size_t k);

/* ---- volumes: NodeVolumeLimits' attach slots ---- */

/* NodeVolumeLimits' count on one node for a pod: when the node would exceed a CSI driver's attach
 * limit (CSINode allocatable.count), the driver and the counts (CSILimits.Filter's unique
 * volumes: those of the node's pods, those only its VolumeAttachments hold, the pod's new ones). */
typedef struct {
    const char *driver; /* the CSI driver over its limit; NULL: the count does not reject */
    int64_t in_use; /* volumes of the driver used by the node's pods */
    int64_t held; /* held by the node's VolumeAttachments and used by none of its pods */
    int64_t fresh; /* the pod's volumes of the driver not on the node yet */
    int64_t limit;
    /* held + fresh > limit (held > 0): removing pods cannot free enough slots, so preemption
     * cannot help on the node (the attachments keep theirs) */
    bool cannot_help;
} kp_sched_attach_slots;

/* For pod (index) as the scheduler's state now holds the cluster, NodeVolumeLimits' count on
 * every node: out[i] for node index i, n_out (at least the node count) entries. Strings borrow
 * from the cluster. Errors: KP_EINVAL (index out of range, n_out too small), KP_ENOMEM. */
kp_status kp_sched_attach_slots_get(kp_sched *s, kp_index pod, kp_sched_attach_slots *out,
                                    size_t n_out, kp_error *err);

#ifdef __cplusplus
}
#endif
#endif
