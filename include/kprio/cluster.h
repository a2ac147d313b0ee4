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
 * '[', YAML otherwise. Errors: KP_ESYNTAX (with line/column), KP_EINVAL (a field; also a cluster
 * already finalized), KP_ELIMIT (a named limit of the decoder), KP_ENOMEM. */
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
 * After an error (of a load or of finalize) the cluster is only fit for kp_cluster_free. */
kp_status kp_cluster_finalize(kp_cluster *cl, kp_error *err);

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

/* Workload expansion (`kprio schedule --expand-workloads`, docs/schedule.md): at
 * kp_cluster_finalize every ReplicationController, ReplicaSet, Deployment, StatefulSet, DaemonSet
 * and Job of the input becomes the pending pods its controller would create now — the replicas
 * its existing active pods do not cover (a DaemonSet: one pod per eligible node without one,
 * with the controller's node affinity and tolerations; a Job: min(parallelism, completions -
 * succeeded) less its active pods) — with deterministic generated names, the template's labels
 * and priority class (resolved like any pod's), created after every pod of the input.
 * KP_EXPAND_CRONJOBS also fires each CronJob once now (one Job's worth of pods, unless it is
 * suspended or its concurrencyPolicy Forbid meets an active Job); without it CronJobs make no
 * pods (a warning counts them). KP_WORKLOAD_TEMPLATES alone expands nothing and keeps the
 * decoded pod templates (the simulator's use). Pod templates are decoded only when a flag is set:
 * call before the first load (a template costs as much as a pod to decode); flags 0 (the
 * default) turns expansion off. Finalize errors: a workload whose pods are needed without
 * spec.template, or whose template names a missing PriorityClass (KP_EINVAL, naming the
 * workload's file, kind, namespace/name and field); more generated pods than
 * KP_EXPAND_MAX_PODS (KP_ELIMIT). */
#define KP_EXPAND_WORKLOADS 1u
#define KP_EXPAND_CRONJOBS 2u
#define KP_WORKLOAD_TEMPLATES 4u
#define KP_EXPAND_MAX_PODS 10000000u
/* KP_EINVAL (and nothing changes) once an object was loaded. */
kp_status kp_cluster_set_expand(kp_cluster *cl, unsigned flags);
/* How many pods expansion made (after finalize). They are appended after the loaded pods, except
 * a StatefulSet pod that replaces a Succeeded/Failed pod of its name: made in that pod's place. */
size_t kp_cluster_expanded_pod_count(const kp_cluster *cl);

/* Feature gates (kube-scheduler's and the kubelet's --feature-gates, KubeletConfiguration's
 * featureGates): the gates whose behaviour kprio reproduces, with the defaults and locks of a
 * release line (the mirrored one, KP_KUBERNETES_VERSION, unless kp_feature_gates_init_compat
 * names an older one); docs/upstream.md "Feature gates" says what each changes. */
typedef enum {
    KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS = 0, /* locked false from 1.35 */
    KP_GATE_DYNAMIC_RESOURCE_ALLOCATION, /* on from 1.34, locked from 1.35 */
    KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING, /* from 1.35; on from 1.36 */
    KP_GATE_IN_PLACE_POD_VERTICAL_SCALING, /* GA, locked true from 1.35 */
    KP_GATE_POD_LEVEL_RESOURCES, /* from 1.32; on from 1.34 */
    KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS, /* from 1.37, on */
    KP_GATE_COUNT
} kp_gate;
typedef struct {
    bool on[KP_GATE_COUNT];
    bool set[KP_GATE_COUNT]; /* given explicitly (kp_feature_gates_set / _parse) */
    uint16_t line; /* the release line's minor version (37 for 1.37): its defaults and locks; the
                    * kubelet side's other per-line rules (docs/upstream.md "Compatibility")
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

#ifdef __cplusplus
}
#endif
#endif
