/* Loading a cluster snapshot: Kubernetes objects as kubectl prints them (JSON or YAML, single
 * objects, Lists, multi-document YAML) merged into one model.
 *
 * Typical use:
 *     kp_cluster *cl = kp_cluster_new();
 *     kp_cluster_load_path(cl, "snapshot.json", false, &err);   // as often as needed
 *     kp_cluster_finalize(cl, &err);   // resolves priorities, QoS, binds pods to nodes
 *     ... engines ...
 *     kp_cluster_free(cl);
 * A cluster is not thread-safe; engines mutate it through explicit calls only. */
#ifndef KP_CLUSTER_H
#define KP_CLUSTER_H

#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_cluster kp_cluster;

/* Index of a pod or a node in a cluster (load order; stable for the cluster's life); -1 = none.
 * Every module's API takes and returns indices of this type. */
typedef long kp_index;

/* New empty cluster with the built-in PriorityClasses system-cluster-critical (2000000000) and
 * system-node-critical (2000001000). NULL on allocation failure. */
kp_cluster *kp_cluster_new(void);
/* Releases everything the cluster owns. NULL is a no-op. */
void kp_cluster_free(kp_cluster *cl);

/* Loads every object of a buffer. `source` names it in errors (file name, "-" for stdin).
 * The buffer is not retained. Format is detected: JSON if the first non-blank byte is '{' or
 * '[', YAML otherwise. Errors: KP_ESYNTAX (with line/column), KP_EINVAL (a field; after
 * finalize, an object that exists already), KP_ELIMIT (a named limit of the decoder), KP_ENOMEM. */
kp_status kp_cluster_load_buffer(kp_cluster *cl, const char *source, const char *buf, size_t len,
                                 kp_error *err);
/* Loads a file, "-" (stdin) or a directory (files ending in .json, .yaml, .yml; subdirectories
 * only when recursive), like kubectl -f / -R. Directory entries are read in name order.
 * Inside a directory only regular files (and symbolic links to them) are read: FIFOs, sockets
 * and devices are skipped, so a walk never blocks; named directly, a FIFO or character device
 * is read to its end like stdin (as kubectl -f does), within the input limit.
 * Errors: those of kp_cluster_load_buffer, KP_EIO (a file or directory that cannot be read, a
 * socket, a file that changed while it was read), KP_ELIMIT (directories nested deeper than
 * kprio's limit, an input over kp_cluster_set_max_input_bytes), KP_ENOMEM. */
kp_status kp_cluster_load_path(kp_cluster *cl, const char *path, bool recursive, kp_error *err);

/* Completes the model after all loads: validates and resolves PriorityClasses and each pod's
 * priority and preemptionPolicy as the Priority admission plugin does, computes QoS class,
 * criticality and request vectors, and attaches bound pods to their nodes. Must be called once
 * before any engine runs. Errors: KP_EINVAL / KP_ENOTFOUND (a class or a pod's priority),
 * KP_ERANGE (a sum of requests that does not fit in int64, naming the pod and field), KP_ENOMEM.
 * After an error (of a load or of finalize) the cluster is only fit for kp_cluster_free, unless
 * it was finalized before: then the objects added since the last finalize are dropped and the
 * cluster is as it was (see "Loading objects into a finalized cluster"). */
kp_status kp_cluster_finalize(kp_cluster *cl, kp_error *err);
/* kp_cluster_finalize for objects loaded into a finalized cluster that are an API create at unix
 * time `now` (the simulator's `create`): each new pod is stored as the API server stores a
 * create (rest.BeforeCreate, podStrategy.PrepareForCreate): metadata.creationTimestamp `now`, no
 * deletionTimestamp, its status replaced by phase Pending (a loaded status, startTime,
 * nominatedNodeName, reason, message, conditions or resize status is dropped); spec.nodeName is
 * kept (the pod is bound there). On a cluster not finalized yet: kp_cluster_finalize. Errors:
 * kp_cluster_finalize's. */
kp_status kp_cluster_finalize_create(kp_cluster *cl, int64_t now, kp_error *err);

/* Progress of a long load: called when a mapped file (1 MB or more) starts (done = 0), about
 * every 32 MB of an input file and once at its end, with the file name, bytes read so far and
 * the file size. The CLI uses it for its progress line.
 * A file that changes while it is read (its size or modification time; checked after each call
 * and at every 16 MB) fails the load with KP_EIO "file changed while it was read". */
typedef void (*kp_progress_fn)(void *ctx, const char *source, uint64_t done, uint64_t total);
void kp_cluster_set_progress(kp_cluster *cl, kp_progress_fn fn, void *ctx);

/* Largest input one load may read, in bytes: a file, a stream (stdin, a FIFO, a device) or a
 * buffer. Beyond it a load fails with KP_ELIMIT "input is larger than the limit of N bytes",
 * naming the file in err->source; an endless input (/dev/zero) stops there. 0 restores the
 * default, KP_CLUSTER_MAX_INPUT_BYTES_DEFAULT (16 GiB). A mapped file costs little memory
 * whatever its size; a stream is held whole while it is parsed. */
#define KP_CLUSTER_MAX_INPUT_BYTES_DEFAULT ((uint64_t)16 << 30)
void kp_cluster_set_max_input_bytes(kp_cluster *cl, uint64_t max_bytes);
/* Object names are checked as the API server checks them at a create (per kind: a DNS-1123
 * subdomain, a label for Namespaces, Services and StatefulSets, a path segment for
 * PodDisruptionBudgets; metadata.namespace a label: docs/schedule.md "Object names"), a bad one
 * failing the load with KP_EINVAL. On by default; off (before loading), only a name's presence is
 * required: fixtures that replay upstream's unit tests, whose names never met the API server. */
void kp_cluster_set_name_rules(kp_cluster *cl, bool on);

/* Workload expansion (`kprio schedule --expand-workloads`, docs/schedule.md): kp_ctrl_expand
 * (kprio/ctrl.h; call it after kp_cluster_finalize) runs the controllers' sync at t = 0, so every
 * ReplicationController, ReplicaSet, Deployment, StatefulSet, DaemonSet and Job of the input gets
 * the pending pods its controller creates now: the replicas its active pods (adopted orphans
 * included) do not cover (a Deployment through its ReplicaSet; a DaemonSet: one pod per eligible
 * node without one; a Job: min(parallelism, completions - succeeded) less its active pods; an
 * OrderedReady StatefulSet: its first missing ordinal), with generated names, created after
 * every pod of the input (t = 0: their newest creationTimestamp). KP_EXPAND_CRONJOBS also fires
 * each CronJob once, at its next scheduled time (its Job NAME-<that time in minutes>, unless it
 * is suspended or its concurrencyPolicy Forbid meets an active Job); without it CronJobs make no
 * pods (a warning counts them). KP_WORKLOAD_TEMPLATES alone expands nothing and keeps the
 * decoded pod templates (the simulator's use). Pod templates are decoded only when a flag is set:
 * call before the first load (a template costs as much as a pod to decode); flags 0 (the
 * default) turns expansion off. kp_ctrl_expand's errors: a workload whose pods are needed without
 * spec.template, or whose template names a missing PriorityClass (KP_EINVAL, naming the
 * workload's file, kind, namespace/name and field); more generated pods than
 * KP_EXPAND_MAX_PODS (KP_ELIMIT). */
#define KP_EXPAND_WORKLOADS 1u
#define KP_EXPAND_CRONJOBS 2u
#define KP_WORKLOAD_TEMPLATES 4u
#define KP_EXPAND_MAX_PODS 10000000u
/* KP_EINVAL (and nothing changes) once an object was loaded. */
kp_status kp_cluster_set_expand(kp_cluster *cl, unsigned flags);
/* How many pods expansion made (kp_ctrl_expand): the last ones of the cluster's pods (a
 * Succeeded/Failed StatefulSet pod a new one replaces is deleted first, its slot a tombstone). */
size_t kp_cluster_expanded_pod_count(const kp_cluster *cl);

/* A priority-class layout (kprio/priority_layout.h; `kprio simulate --compare-priorities`),
 * borrowed: it must outlive the cluster. Set before kp_cluster_finalize, which applies it before
 * it resolves priorities: the snapshot's PriorityClasses but the built-in system- ones are
 * deleted and the layout's created; each pod the layout assigns gets its class, and every pod and
 * workload pod template of a layout class loses spec.priority and spec.preemptionPolicy, which
 * finalize then resolves as the Priority admission plugin does (static pods and pods of the
 * system- classes are left alone). Objects loaded into the finalized cluster later (the
 * simulator's creates, controllers' pods) are assigned the same way. kp_cluster_finalize fails
 * (KP_EINVAL, naming the pod or workload and the layout) when a pod or template that no
 * assignment matches names a class the layout does not have. NULL: none. KP_EINVAL once the
 * cluster is finalized. */
struct kp_priority_layout;
kp_status kp_cluster_set_priority_layout(kp_cluster *cl, const struct kp_priority_layout *layout);
/* The value of PriorityClass pc (kp_cluster_find_priority_class); 0 out of range. */
int32_t kp_cluster_priority_class_value(const kp_cluster *cl, kp_index pc);

/* Feature gates (kube-scheduler's and the kubelet's --feature-gates, KubeletConfiguration's
 * featureGates): the gates whose behaviour kprio reproduces, with the defaults and locks of a
 * release line (the mirrored one, KP_KUBERNETES_VERSION, unless kp_feature_gates_init_compat
 * names an older one); docs/compat.md "Feature gates" says what each changes. */
typedef enum {
    KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS = 0, /* locked false from 1.35 */
    KP_GATE_DRA_ADMIN_ACCESS, /* from 1.32; on from 1.34, locked from 1.36 */
    KP_GATE_DRA_CONSUMABLE_CAPACITY, /* from 1.34; on from 1.36 */
    KP_GATE_DRA_DEVICE_BINDING_CONDITIONS, /* from 1.34; on from 1.36 */
    KP_GATE_DRA_DEVICE_TAINTS, /* from 1.33; on from 1.36 */
    KP_GATE_DRA_EXTENDED_RESOURCE, /* from 1.34; on from 1.36, locked from 1.37 */
    KP_GATE_DRA_PARTITIONABLE_DEVICES, /* from 1.33; on from 1.36 */
    KP_GATE_DRA_PRIORITIZED_LIST, /* from 1.33; on from 1.34, locked from 1.37 */
    KP_GATE_DYNAMIC_RESOURCE_ALLOCATION, /* on from 1.34, locked from 1.35 */
    KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING, /* from 1.35; on from 1.36 */
    KP_GATE_IN_PLACE_POD_VERTICAL_SCALING, /* GA, locked true from 1.35 */
    KP_GATE_POD_LEVEL_RESOURCES, /* from 1.32; on from 1.34 */
    KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS, /* from 1.37, on */
    KP_GATE_SCHEDULER_ASYNC_PREEMPTION, /* from 1.32; on from 1.33 (simulate) */
    KP_GATE_SCHEDULER_POP_FROM_BACKOFF_Q, /* from 1.33, on (simulate) */
    KP_GATE_SCHEDULER_QUEUEING_HINTS, /* beta off 1.28, on 1.32, GA locked 1.34 (simulate) */
    KP_GATE_COUNT
} kp_gate;
typedef struct {
    bool on[KP_GATE_COUNT];
    bool set[KP_GATE_COUNT]; /* given explicitly (kp_feature_gates_set / _parse) */
    uint16_t line; /* the release line's minor version (37 for 1.37): its defaults and locks; the
                    * kubelet side's other per-line rules (docs/compat.md "Compatibility")
                    * follow the line of the cluster's gates */
} kp_feature_gates;
/* The defaults of the mirrored line (KP_KUBERNETES_VERSION). */
void kp_feature_gates_init(kp_feature_gates *g);
/* The defaults of the release line version names ("[v]1.MINOR[.PATCH]", as --compat; NULL or
 * "" = the mirrored line; newer lines behave as the mirrored one). A gate that line does not have
 * is off (the behaviour before it) and setting it is "unrecognized feature gate". KP_EINVAL,
 * g unchanged, if version is not such a version. */
kp_status kp_feature_gates_init_compat(kp_feature_gates *g, const char *version, kp_error *err);
/* The gate's upstream name ("PodLevelResources"); "" out of range. */
const char *kp_gate_name(kp_gate gate);
/* The gate's default in the mirrored line. */
bool kp_gate_default(kp_gate gate);
/* The gate's default in g's line (g->line). */
bool kp_feature_gates_default(const kp_feature_gates *g, kp_gate gate);
/* Sets gate name[0..len) to value as featuregate's SetFromMap does, with the locks of g's line.
 * Any other gate a 1.37 kubelet or kube-scheduler registers is accepted and changes nothing
 * (kprio does not model it; with an older line its 1.37 lock is not checked).
 * KP_EINVAL with upstream's message: "unrecognized feature gate: NAME", "cannot set feature gate
 * NAME to false, feature is locked to true"; g is unchanged then. */
kp_status kp_feature_gates_set(kp_feature_gates *g, const char *name, size_t len, bool value,
                               kp_error *err);
/* Applies "Key=true,Other=false" (featuregate's Set: comma-separated pairs, blanks around keys
 * and values trimmed, empty pairs skipped, values as Go's strconv.ParseBool: 1 t T TRUE true True
 * 0 f F FALSE false False) on top of g. KP_EINVAL, g unchanged: "missing bool value for KEY",
 * "invalid value of KEY=V, err: strconv.ParseBool: parsing \"V\": invalid syntax", and those
 * of kp_feature_gates_set (every pair's value is checked before any name). This is
 * kube-scheduler's --feature-gates. */
kp_status kp_feature_gates_parse(kp_feature_gates *g, const char *text, kp_error *err);
/* The kubelet's --feature-gates (cliflag.MapStringBool, then SetFromMap): the same syntax, with
 * its own texts for a bad pair: "malformed pair, expect string=bool", "invalid value of KEY: V,
 * err: strconv.ParseBool: parsing \"V\": invalid syntax". */
kp_status kp_feature_gates_parse_kubelet(kp_feature_gates *g, const char *text, kp_error *err);
/* The gates the cluster's rules follow (request helpers and QoS at finalize, admission,
 * eviction, scheduling); defaults until set. KP_EINVAL once the cluster is finalized. */
kp_status kp_cluster_set_feature_gates(kp_cluster *cl, const kp_feature_gates *g);
const kp_feature_gates *kp_cluster_feature_gates(const kp_cluster *cl);

/* Counts. */
size_t kp_cluster_node_count(const kp_cluster *cl);
size_t kp_cluster_pod_count(const kp_cluster *cl);
/* Bytes of input loaded so far and bytes held by the model's arena. */
uint64_t kp_cluster_bytes_loaded(const kp_cluster *cl);
size_t kp_cluster_model_bytes(const kp_cluster *cl);

/* Warnings collected while loading and finalizing (valid until the cluster is freed). */
size_t kp_cluster_warning_count(const kp_cluster *cl);
const char *kp_cluster_warning(const kp_cluster *cl, size_t i);

/* Names and basic facts of pods and nodes, for rendering (strings borrow from the cluster and
 * live as long as it; an index out of range gives "" / 0 / -1). */
const char *kp_cluster_pod_namespace(const kp_cluster *cl, kp_index pod);
const char *kp_cluster_pod_name(const kp_cluster *cl, kp_index pod);
/* Effective priority (spec.priority, or resolved at finalize). */
int32_t kp_cluster_pod_priority(const kp_cluster *cl, kp_index pod);
/* Node the pod is bound to (after finalize or a binding), -1 when pending. */
kp_index kp_cluster_pod_node(const kp_cluster *cl, kp_index pod);
const char *kp_cluster_node_name(const kp_cluster *cl, kp_index node);

/* Pod lookup by "namespace/name" (or "name" for namespace default): index or -1 (no error
 * codes: a lookup that finds nothing is not an error here; callers report KP_ENOTFOUND). */
kp_index kp_cluster_find_pod(const kp_cluster *cl, const char *ref);
/* Node lookup by name: index or -1. */
kp_index kp_cluster_find_node(const kp_cluster *cl, const char *name);

/* ---- The simulator's view of a finalized cluster, and the explicit changes it makes ----
 * The cluster stands for the API server: objects change only through these calls (a pod's own
 * state through "Pod state changes" below, which a scheduler's binding and preemption,
 * include/kprio/sched.h, call too). A scheduler created over the cluster catches up with them
 * at its next attempt, as upstream's informers would: deleted pods leave its nominator; a
 * created pod or node, or a changed node, rebuilds its node order and indexes. Indices are stable:
 * a deleted pod keeps its index (kp_pod_info.deleted) and a new object gets the next one, never a
 * reused one. Times are unix seconds. */

/* A label selector requirement (metav1.LabelSelectorRequirement; matchLabels entries are `In`
 * with one value). op: "In", "NotIn", "Exists", "DoesNotExist". */
typedef struct {
    char *key, *op;
    char **values;
    size_t n_values;
} kp_selector_req;

/* Whether the pod's labels satisfy every requirement (n == 0: every pod), as
 * metav1.LabelSelectorAsSelector + Matches. An unknown op never matches. */
bool kp_cluster_pod_matches(const kp_cluster *cl, kp_index pod, const kp_selector_req *reqs,
                            size_t n);
/* The same for a node's labels (a kubelet pool's nodeSelector). */
bool kp_cluster_node_matches(const kp_cluster *cl, kp_index node, const kp_selector_req *reqs,
                             size_t n);

typedef enum {
    KP_POD_PHASE_UNKNOWN = 0,
    KP_POD_PHASE_PENDING,
    KP_POD_PHASE_RUNNING,
    KP_POD_PHASE_SUCCEEDED,
    KP_POD_PHASE_FAILED
} kp_pod_phase;

/* What the simulator reads of a pod. Strings borrow from the cluster ("" when unset). */
typedef struct {
    const char *ns, *name, *uid;
    const char *scheduler_name, *priority_class;
    const char *nominated_node; /* status.nominatedNodeName */
    const char *owner_kind, *owner_name; /* the controller ownerReference ("" when none) */
    int32_t priority;
    kp_index node; /* bound node, -1 */
    kp_pod_phase phase;
    int64_t creation_ts; /* KP_TIME_UNSET when unset */
    int64_t deletion_ts; /* KP_TIME_UNSET unless terminating */
    int64_t grace_seconds; /* terminationGracePeriodSeconds (default 30) */
    bool terminal; /* Succeeded or Failed */
    bool deleted; /* removed by kp_cluster_delete_pod */
    bool gated; /* spec.schedulingGates not empty */
    bool is_static, is_mirror, is_critical;
    bool ready; /* kp_cluster_pod_ready */
    int64_t start_time; /* status.startTime (unix seconds), KP_TIME_UNSET when unset */
} kp_pod_info;
#define KP_TIME_UNSET INT64_MIN

/* Fills *out; KP_EINVAL when pod is out of range. */
kp_status kp_cluster_pod_info(const kp_cluster *cl, kp_index pod, kp_pod_info *out);

/* ---- Pod state changes ----
 * The one writer of each piece of a pod's state after finalize: its node (spec.nodeName and the
 * node's requested resources, pod count and ports), status.nominatedNodeName, the deletion
 * request (deletionTimestamp) with the DisruptionTarget condition, the kubelet's status (phase,
 * startTime, reason, message) and the final delete. The scheduler's binding and preemption, the
 * kubelets' actions and the controllers go through these; kp_cluster_pod_info reads them. A
 * scheduler over the cluster catches up at its next attempt (see "The simulator's view"). */

/* Binds a pending pod to node (the binding subresource): the pod joins the node's pods and
 * aggregates; schedulers over the cluster rebuild. No-op when it is bound there already.
 * KP_EINVAL: an index out of range, a deleted or ended pod, a deleted node, a pod bound to
 * another node ("Operation cannot be fulfilled on pods/binding ..."); KP_ERANGE: the node's
 * requested resources would not fit in int64; KP_ENOMEM. Nothing changes on error. */
kp_status kp_cluster_bind_pod(kp_cluster *cl, kp_index pod, kp_index node, kp_error *err);
/* Sets status.nominatedNodeName to node's name, or clears it (node -1). Errors as
 * kp_cluster_bind_pod's checks (KP_EINVAL). */
kp_status kp_cluster_nominate_pod(kp_cluster *cl, kp_index pod, kp_index node, kp_error *err);
/* Marks a pod terminating at `now` (a deletion request: deletionTimestamp set, resources kept
 * until kp_cluster_delete_pod). reason non-NULL adds the DisruptionTarget condition with that
 * reason ("PreemptionByScheduler", "EvictionByEvictionAPI", "DeletionByTaintManager") and no
 * message. No-op when it is deleted or terminating already. */
kp_status kp_cluster_mark_terminating(kp_cluster *cl, kp_index pod, int64_t now, const char *reason,
                                      kp_error *err);
/* The same with the condition's message too (NULL: none), as the scheduler's preemption writes
 * it ("default-scheduler: preempting to accommodate a higher priority pod"). */
kp_status kp_cluster_mark_terminating_disrupted(kp_cluster *cl, kp_index pod, int64_t now,
                                                const char *reason, const char *message,
                                                kp_error *err);
/* The kubelet started the pod on its node: phase Running, status.startTime `now` (what
 * preemption's victim order reads). KP_EINVAL when the pod is not bound. */
kp_status kp_cluster_pod_set_running(kp_cluster *cl, kp_index pod, int64_t now, kp_error *err);
/* Readiness (the kubelet's status manager: the Ready and ContainersReady conditions, kept equal:
 * no readiness gates). Sets both to `ready` at `now` (unix seconds): lastTransitionTime becomes
 * now when the status changes (or the pod had no condition yet), else it stays. KP_EINVAL: an
 * index out of range, or ready true for a pod not running on a node (pending, ended, deleted). */
kp_status kp_cluster_pod_set_ready(kp_cluster *cl, kp_index pod, bool ready, int64_t now,
                                   kp_error *err);
/* podutil.IsPodReady: the Ready condition is True, and the pod has neither ended nor been
 * deleted. A loaded pod without a Ready condition is Ready when it is bound and Running (or has
 * no phase): a running pod from `kubectl get` always carries the condition, so one without it is
 * a hand-written snapshot's shorthand (docs/simulate.md). false out of range. */
bool kp_cluster_pod_ready(const kp_cluster *cl, kp_index pod);
/* podutil.IsPodAvailable: Ready, and min_ready_seconds (<= 0: none) passed since the Ready
 * condition's lastTransitionTime at `now` (unix seconds): lastTransitionTime + min_ready_seconds
 * <= now, as the newest line compares. A Ready pod of the input
 * whose condition it assumed (above) without any timestamp counts as Ready long ago. */
bool kp_cluster_pod_available(const kp_cluster *cl, kp_index pod, int32_t min_ready_seconds,
                              int64_t now);
/* The Ready condition's lastTransitionTime (unix seconds) of a Ready pod; KP_TIME_UNSET when it
 * is not Ready or the time is unknown. */
int64_t kp_cluster_pod_ready_time(const kp_cluster *cl, kp_index pod);
/* Seconds from a pod's start to its Ready as its probes model it: the largest, over its
 * containers and sidecars, of the startupProbe's plus the readinessProbe's initialDelaySeconds;
 * 0 without probes (Ready at once). */
int64_t kp_cluster_pod_probe_delay(const kp_cluster *cl, kp_index pod);
/* Ends a pod in phase Succeeded or Failed (a container that ran to completion, an eviction,
 * an admission rejection): it stops holding resources on its node and loses its nomination.
 * reason / message go to status.reason / status.message (NULL = unchanged). A terminal phase is
 * final: no-op for an ended or deleted pod. */
kp_status kp_cluster_finish_pod(kp_cluster *cl, kp_index pod, kp_pod_phase phase,
                                const char *reason, const char *message, kp_error *err);
/* The same, and the DisruptionTarget condition (status True) with condition_reason /
 * condition_message (NULL: none) added or replaced: the kubelet's status of a pod it evicted or
 * preempted (TerminationByKubelet), set with the terminal phase once its containers stopped
 * (mergePodStatus delays both until then). */
kp_status kp_cluster_finish_pod_disrupted(kp_cluster *cl, kp_index pod, kp_pod_phase phase,
                                          const char *reason, const char *message,
                                          const char *condition_reason,
                                          const char *condition_message, kp_error *err);
/* Deletes a pod (the API server's final delete, after its grace period): it leaves its node and
 * every scheduler's nominator, and is kept as a tombstone. No-op for a deleted pod. */
kp_status kp_cluster_delete_pod(kp_cluster *cl, kp_index pod, kp_error *err);

/* A new pod the way a controller makes one: a copy of the pod template of workload `workload`
 * (kp_cluster_workload_*), or of pod `like` (workload -1: the template is an existing pod of
 * the same owner), named `name`, with creationTimestamp `now`, pending, no status; labels the
 * controller adds (pod-template-hash, statefulset.kubernetes.io/pod-name, ...) included. Its
 * priority is resolved as the Priority admission plugin does at creation (the class's value
 * now). *out gets its index. Errors: KP_EINVAL (bad index; no template; an unknown
 * PriorityClass, with upstream's message), KP_ENOMEM. */
kp_status kp_cluster_create_pod(kp_cluster *cl, kp_index workload, kp_index like, const char *name,
                                int64_t now, kp_index *out, kp_error *err);
/* A DaemonSet's pod for node `node` (the DaemonSet controller's syncNodes): kp_cluster_create_pod
 * from the DaemonSet's template with the controller's tolerations added
 * (AddOrUpdateDaemonPodTolerations: not-ready and unreachable NoExecute; disk-, memory- and
 * pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule with hostNetwork)
 * and the required node affinity replaced by metadata.name In [NODE]
 * (ReplaceDaemonSetPodNodeNameNodeAffinity); the default scheduler binds it. Errors as
 * kp_cluster_create_pod; KP_EINVAL when workload is not a DaemonSet or node is out of range. */
kp_status kp_cluster_create_daemon_pod(kp_cluster *cl, kp_index workload, kp_index node,
                                       const char *name, int64_t now, kp_index *out, kp_error *err);
/* The node a pod runs on or targets (GetTargetNodeName: spec.nodeName, else its required node
 * affinity's matchFields metadata.name In [NODE], as a DaemonSet's pending pod has); -1 when it
 * names none (or pod is out of range), -2 when it names a node the cluster does not have (never
 * had, or deleted). */
kp_index kp_cluster_pod_target_node(const kp_cluster *cl, kp_index pod);
/* A name generateName would give (base + 5 characters of upstream's alphabet), unique among
 * the namespace's pods; deterministic in (ns, base, seq). Writes buf (cap >= 64). */
void kp_cluster_generate_pod_name(const kp_cluster *cl, const char *ns, const char *base,
                                  uint64_t seq, char *buf, size_t cap);

/* Nodes: spec.unschedulable, and taints (kp_cluster_node_taint: effect "NoSchedule",
 * "PreferNoSchedule" or "NoExecute"; value may be ""). Untaint removes the taints with that key
 * (and that effect, when effect is non-NULL and non-empty); *removed counts them. */
kp_status kp_cluster_node_set_unschedulable(kp_cluster *cl, kp_index node, bool unschedulable,
                                            kp_error *err);
bool kp_cluster_node_unschedulable(const kp_cluster *cl, kp_index node);
kp_status kp_cluster_node_taint(kp_cluster *cl, kp_index node, const char *key, const char *value,
                                const char *effect, kp_error *err);
kp_status kp_cluster_node_untaint(kp_cluster *cl, kp_index node, const char *key,
                                  const char *effect, size_t *removed, kp_error *err);
/* The node lifecycle controller's reads and writes (src/ctrl/node_lifecycle.c).
 * kp_cluster_node_has_taint: whether the node has a taint key:effect (effect "NoSchedule",
 * "PreferNoSchedule" or "NoExecute"), with its timeAdded (unix seconds, 0 when unset: the
 * snapshot's, as the API server stamps NoExecute taints) in *time_added (may be NULL).
 * kp_cluster_node_condition: status.conditions[type].status ("True", "False", "Unknown"; "" when
 * the node has no such condition). kp_cluster_node_set_condition: that condition replaced or
 * added with status, reason and message (NULL: ""); KP_EINVAL (bad index, deleted node),
 * KP_ENOMEM. */
bool kp_cluster_node_has_taint(const kp_cluster *cl, kp_index node, const char *key,
                               const char *effect, int64_t *time_added);
const char *kp_cluster_node_condition(const kp_cluster *cl, kp_index node, const char *type);
kp_status kp_cluster_node_set_condition(kp_cluster *cl, kp_index node, const char *type,
                                        const char *status, const char *reason, const char *message,
                                        kp_error *err);
/* Deletes a node: it leaves every scheduler's node order; its pods are not touched (the caller
 * deletes them, as the pod garbage collector does). */
kp_status kp_cluster_delete_node(kp_cluster *cl, kp_index node, kp_error *err);
bool kp_cluster_node_deleted(const kp_cluster *cl, kp_index node);
/* Pods bound to the node now (terminating ones included), in the node's order. */
size_t kp_cluster_node_pod_count(const kp_cluster *cl, kp_index node);
kp_index kp_cluster_node_pod(const kp_cluster *cl, kp_index node, size_t i);
/* The node's pod-list generation: changes with every change of the list above (a pod bound,
 * finished, deleted, or leaving it as a preemption victim; a scheduler's dry run that takes pods
 * off and puts them back changes it too) and with nothing else, so that a reader may keep what it
 * derived from the list while the generation is the one it read then (modulo 2^32 changes).
 * 0 for an unknown node. */
uint32_t kp_cluster_node_generation(const kp_cluster *cl, kp_index node);

/* Memory as a node's kubelet sees it (the simulated Summary API): status.capacity and
 * status.allocatable memory in bytes (capacity = allocatable when the node states none; 0 when
 * neither is stated or node is out of range). */
void kp_cluster_node_memory(const kp_cluster *cl, kp_index node, int64_t *capacity,
                            int64_t *allocatable);
/* The same for ephemeral-storage (status.capacity / status.allocatable, bytes). */
void kp_cluster_node_ephemeral_storage(const kp_cluster *cl, kp_index node, int64_t *capacity,
                                       int64_t *allocatable);
/* The pod's memory request as the kubelet's eviction ranking reads it (GetResourceRequestQuantity:
 * containers, init containers, overhead, pod-level resources); 0 out of range. */
int64_t kp_cluster_pod_memory_request(const kp_cluster *cl, kp_index pod);
/* The pod's app containers (spec.containers, in order; init containers not included): how many,
 * and container i's name and memory request (bytes, 0 when none). 0 / "" / 0 out of range. */
size_t kp_cluster_pod_container_count(const kp_cluster *cl, kp_index pod);
const char *kp_cluster_pod_container_name(const kp_cluster *cl, kp_index pod, size_t i);
int64_t kp_cluster_pod_container_memory_request(const kp_cluster *cl, kp_index pod, size_t i);
/* Container i's memory limit (bytes, 0 when none): past it the kernel OOM-kills it. */
int64_t kp_cluster_pod_container_memory_limit(const kp_cluster *cl, kp_index pod, size_t i);
/* The pod's emptyDir volumes on the node's filesystem (medium not Memory nor HugePages), in
 * spec order: how many, and volume i's name ("" out of range). */
size_t kp_cluster_pod_empty_dir_count(const kp_cluster *cl, kp_index pod);
const char *kp_cluster_pod_empty_dir_name(const kp_cluster *cl, kp_index pod, size_t i);
/* Whether the pod has an emptyDir volume of any medium (kubectl drain's hasLocalStorage). */
bool kp_cluster_pod_has_empty_dir(const kp_cluster *cl, kp_index pod);

/* Workloads: the controllers of the snapshot (ReplicationController, ReplicaSet, StatefulSet,
 * Deployment, DaemonSet, Job, CronJob) and Services (kind "Service", no template), in load
 * order. */
typedef struct {
    const char *kind, *ns, *name, *uid;
    const char *owner_kind, *owner_name; /* its controller (a ReplicaSet's Deployment) */
    int32_t replicas; /* spec.replicas (Job: parallelism) */
    int32_t completions; /* Job: spec.completions (-1 when nil) */
    bool has_template;
    int32_t ordinals_start; /* StatefulSet: spec.ordinals.start (0) */
    int32_t min_ready_seconds; /* spec.minReadySeconds (0) */
    bool parallel_pods; /* StatefulSet: podManagementPolicy Parallel (else OrderedReady) */
    bool suspend; /* Job, CronJob: spec.suspend */
    bool indexed; /* Job: completionMode Indexed */
    int32_t backoff_limit; /* Job: spec.backoffLimit (default 6) */
    const char *schedule; /* CronJob: spec.schedule ("" otherwise) */
    const char *time_zone; /* CronJob: spec.timeZone ("" when unset) */
    const char *concurrency; /* CronJob: spec.concurrencyPolicy ("Allow", "Forbid", "Replace") */
    bool deleted; /* kp_cluster_delete_workload */
    /* Deployment: its status as the deployment controller wrote it (src/ctrl/deployment.c):
     * the revision (0: none written), the Progressing condition's reason ("" when none) and
     * lastUpdateTime (unix seconds) */
    int64_t revision;
    const char *progressing_reason;
    int64_t progressing_time;
} kp_workload_info;
size_t kp_cluster_workload_count(const kp_cluster *cl);
kp_status kp_cluster_workload_info(const kp_cluster *cl, kp_index workload, kp_workload_info *out);
/* The controller workload of pod (its controller ownerReference's kind and name, same
 * namespace), or -1. */
kp_index kp_cluster_pod_workload(const kp_cluster *cl, kp_index pod);
/* The workload's top controller: up its controller ownerReferences while they name a workload
 * of the input (a ReplicaSet's Deployment, a Job's CronJob), else the workload itself; -1 out of
 * range. What findings and roll-ups group a pod's workload by. */
kp_index kp_cluster_workload_top(const kp_cluster *cl, kp_index workload);
/* Deletes a workload (the API object; its pods are the caller's, as the garbage collector's):
 * no longer found by name nor written by the encoder, its selector leaves default spreading
 * (schedulers rebuild), its name is free; its index stays (kp_workload_info.deleted). No-op when
 * deleted already. */
kp_status kp_cluster_delete_workload(kp_cluster *cl, kp_index workload, kp_error *err);
/* Changes spec.replicas (the scale subresource). */
kp_status kp_cluster_workload_scale(kp_cluster *cl, kp_index workload, int32_t replicas,
                                    kp_error *err);

/* PodDisruptionBudgets: the disruption controller's inputs and the status it writes. */
typedef struct {
    const char *ns, *name;
    int32_t current_healthy, desired_healthy, expected_pods, disruptions_allowed;
    bool deleted; /* kp_cluster_delete_pdb */
} kp_pdb_info;
/* PDBs ever loaded, deleted ones included (their indices stay). */
size_t kp_cluster_pdb_count(const kp_cluster *cl);
kp_status kp_cluster_pdb_info(const kp_cluster *cl, kp_index pdb, kp_pdb_info *out);
/* The live PDB ns/name, -1 when none. */
kp_index kp_cluster_find_pdb(const kp_cluster *cl, const char *ns, const char *name);
/* Deletes a PDB: from now on it selects no pod (kp_cluster_pdb_selects), protects no preemption
 * victim and no eviction, is not recounted and not written by the encoder; kp_cluster_pdb_selected
 * still answers for the time it lived; its name is free for a new PDB. No-op when deleted. */
kp_status kp_cluster_delete_pdb(kp_cluster *cl, kp_index pdb, kp_error *err);
/* Whether the PDB selects the pod (same namespace, its selector; an empty selector selects
 * every pod of the namespace, as policy/v1 does). */
bool kp_cluster_pdb_selects(const kp_cluster *cl, kp_index pdb, kp_index pod);
/* The same for a pod deleted since (its tombstone's labels): whether the PDB selected it while it
 * lived (the simulation's findings, kprio/insight.h). */
bool kp_cluster_pdb_selected(const kp_cluster *cl, kp_index pdb, kp_index pod);
/* The status is written by the disruption controller (kprio/ctrl.h, kp_ctrl_disruption_sync). */

/* The Eviction API's answer for a pod (pkg/registry/core/pod/storage/eviction.go): whether an
 * eviction may delete it now. */
typedef enum {
    KP_EVICT_ALLOWED = 0, /* no PDB read (a pending, ended or terminating pod), none selects it,
                           * or its PDB allows a disruption (the eviction spends it) */
    KP_EVICT_ALLOWED_UNHEALTHY, /* a pod that is not Ready: its PDB's unhealthyPodEvictionPolicy
                                 * (AlwaysAllow; IfHealthyBudget while currentHealthy >=
                                 * desiredHealthy > 0) lets it go without spending a disruption */
    KP_EVICT_TOO_MANY_REQUESTS, /* 429 "Cannot evict pod as it would violate the pod's
                                 * disruption budget." (disruptionsAllowed 0) */
    KP_EVICT_MULTIPLE_PDBS /* 500 "This pod has more than one PodDisruptionBudget, which the
                            * eviction subresource does not support." */
} kp_evict_verdict;
/* The Eviction API's PDB checks for pod (EvictionREST.Create), on the PDBs' status as the
 * disruption controller last wrote it. *pdb: the PDB that decided (-1: none). A PDB with an empty
 * selector selects nothing here (getPodDisruptionBudgets), unlike the disruption controller. */
kp_evict_verdict kp_cluster_evict_check(const kp_cluster *cl, kp_index pod, kp_index *pdb);

/* PriorityClasses: find by name (-1), value, and change the value (existing pods keep theirs;
 * pods created later get the new one, as the Priority admission plugin reads it then). */
kp_index kp_cluster_find_priority_class(const kp_cluster *cl, const char *name);
kp_status kp_cluster_priority_class_set_value(kp_cluster *cl, kp_index pc, int32_t value,
                                              kp_error *err);
/* Deletes a PriorityClass: no longer found by name (pods created later that name it are refused
 * by the Priority admission plugin's rule; a deleted globalDefault class is nobody's default),
 * admitted pods keep their priority, the name is free for a new class. The system- classes are
 * refused (KP_EINVAL, the API server's message). No-op when deleted already. */
kp_status kp_cluster_delete_priority_class(kp_cluster *cl, kp_index pc, kp_error *err);

/* Loading objects into a finalized cluster (the simulator's `create`): kp_cluster_load_buffer
 * (or _path) on a finalized cluster adds the objects, refusing one whose identity (kind,
 * namespace, name) exists already (KP_EINVAL, "SOURCE: Pod ns/x: already exists", as the API
 * server's create is; nothing of that load is kept then; a deleted pod's, PDB's or
 * PriorityClass's name is free again, as once the object is gone from the API), and
 * kp_cluster_finalize then finalizes only the objects added since (priorities resolved against
 * the classes as they are now, pods bound when they name a node). The objects a load added are
 * the indices from the count before to the count after. kind: "Pod", "Node",
 * "PriorityClass", "PodDisruptionBudget", or a workload kind ("ReplicaSet", ...). */
size_t kp_cluster_object_count(const kp_cluster *cl, const char *kind);

/* ResourceClaims (Dynamic Resource Allocation) as the simulator follows them: claim indices go
 * from 0 to kp_cluster_claim_count (deleted ones stay, flagged); a pod's claims by the order of
 * its spec.resourceClaims (-1: the entry names no claim yet, or it does not exist), then the
 * claim of its DRA-backed extended resources when its status names one. */
typedef struct {
    const char *ns, *name;
    const char *device_class; /* the first request's deviceClassName ("" when none) */
    const char *owner_pod; /* a generated claim's pod (its controller reference), "" */
    bool allocated, deleted;
    size_t n_reserved, n_devices; /* status.reservedFor, status.allocation's results */
} kp_claim_info;
size_t kp_cluster_claim_count(const kp_cluster *cl);
/* KP_EINVAL: claim out of range */
kp_status kp_cluster_claim_info(const kp_cluster *cl, kp_index claim, kp_claim_info *out);
size_t kp_cluster_pod_claim_count(const kp_cluster *cl, kp_index pod);
kp_index kp_cluster_pod_claim(const kp_cluster *cl, kp_index pod, size_t i);

#ifdef __cplusplus
}
#endif
#endif
