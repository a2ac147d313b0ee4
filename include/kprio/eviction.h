/* Kubelet node-pressure eviction: the eviction manager's synchronize loop as a library.
 *
 * Mirrors k8s.io/kubernetes/pkg/kubelet/eviction (managerImpl.synchronize and helpers.go) of the
 * newest release line. Three inputs, each with its own handle:
 *   - kp_evict_config: eviction thresholds and timings, from a KubeletConfiguration document
 *     and/or the equivalent kubelet flags (ParseThresholdConfig rules and error texts);
 *   - kp_evict_summary: one parsed Summary API document (/stats/summary), one synchronize step
 *     (or one filled from values: kprio/summary_builder.h);
 *   - kp_evict_manager: the state carried between steps for one node of a loaded cluster.
 *
 * Typical use:
 *     kp_evict_config *cfg = kp_evict_config_new();
 *     kp_evict_config_set_flag(cfg, "eviction-hard", "memory.available<1Gi", &err);
 *     kp_evict_config_finish(cfg, &err);
 *     kp_evict_manager *m;
 *     kp_evict_manager_new(cl, kp_cluster_find_node(cl, "node-1"), cfg, &m, &err);
 *     for each summary file:
 *         kp_evict_summary *s;
 *         kp_evict_summary_load_path(path, &s, &err);   (or kp_evict_summary_load_buffer on bytes)
 *         kp_evict_result res;
 *         kp_evict_manager_step(m, s, &res, &err);       (res: this step's decision)
 *         for (size_t i = 0; i < res.n_evicted; i++)
 *             printf("evict %s\n", kp_cluster_pod_name(cl, res.evicted[i].pod));
 *         kp_evict_summary_free(s);
 *     kp_evict_manager_free(m); kp_evict_config_free(cfg);
 *
 * Where upstream is nondeterministic (Go map order: the order of thresholds met, of node
 * conditions, of fully tied pods) kprio uses documented deterministic rules (docs/evict.md).
 * No function here prints or exits; only the *_load_path functions read files. Handles are not
 * thread-safe; distinct handles may be used from distinct threads. */
#ifndef KP_EVICTION_H
#define KP_EVICTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/node_conditions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eviction signals (evictionapi.Signal), in the order kprio reports them. */
typedef enum {
    KP_EVSIG_MEMORY_AVAILABLE = 0, /* memory.available */
    KP_EVSIG_ALLOCATABLE_MEMORY_AVAILABLE, /* allocatableMemory.available */
    KP_EVSIG_NODEFS_AVAILABLE, /* nodefs.available */
    KP_EVSIG_NODEFS_INODES_FREE, /* nodefs.inodesFree */
    KP_EVSIG_IMAGEFS_AVAILABLE, /* imagefs.available */
    KP_EVSIG_IMAGEFS_INODES_FREE, /* imagefs.inodesFree */
    KP_EVSIG_CONTAINERFS_AVAILABLE, /* containerfs.available */
    KP_EVSIG_CONTAINERFS_INODES_FREE, /* containerfs.inodesFree */
    KP_EVSIG_PID_AVAILABLE, /* pid.available */
    KP_EVSIG_COUNT
} kp_evict_signal;

/* Upstream spelling of a signal ("memory.available"). */
const char *kp_evict_signal_name(kp_evict_signal s);
/* Parses an upstream signal name; false if it is not a supported signal (validSignal). */
bool kp_evict_signal_parse(const char *s, size_t len, kp_evict_signal *out);
/* Resource a signal reclaims (signalToResource): "memory", "ephemeral-storage", "inodes",
 * "pids". */
const char *kp_evict_signal_resource(kp_evict_signal s);

/* The node conditions a step reports are the KP_NODE_COND_* bits (kprio/node_conditions.h). */

/* Filesystem layout (HasDedicatedImageFs / HasDedicatedContainerFs). AUTO detects it from the
 * first summary: dedicated when runtime.imageFs is a different filesystem from node.fs, split
 * when runtime.containerFs is a different filesystem from runtime.imageFs. */
typedef enum {
    KP_EVFS_AUTO = 0,
    KP_EVFS_SHARED,
    KP_EVFS_DEDICATED,
    KP_EVFS_SPLIT
} kp_evict_fs_layout;

/* ---------------------------------------------------------------- configuration */

typedef struct kp_evict_config kp_evict_config;

/* New configuration holding kubelet defaults: evictionHard = the Linux defaults
 * (memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%,
 * imagefs.inodesFree<5%), transition period 5m, max pod grace 0, enforceNodeAllocatable [pods],
 * localStorageCapacityIsolation true. NULL on allocation failure. */
kp_evict_config *kp_evict_config_new(void);
/* Releases a configuration. NULL is a no-op. */
void kp_evict_config_free(kp_evict_config *cfg);

/* Reads a KubeletConfiguration (YAML or JSON) and takes its eviction fields: evictionHard,
 * evictionSoft, evictionSoftGracePeriod, evictionMinimumReclaim,
 * evictionPressureTransitionPeriod, evictionMaxPodGracePeriod, enforceNodeAllocatable,
 * mergeDefaultEvictionSettings, localStorageCapacityIsolation. As the kubelet's loader
 * (loadConfigFile): kind KubeletConfiguration and apiVersion kubelet.config.k8s.io/v1beta1 are
 * required; an unknown top-level field (or, in JSON, a duplicate one) is a strict decoding error
 * the kubelet tolerates by decoding leniently: it becomes a warning
 * (kp_evict_config_warning); an absent evictionHard keeps the defaults and, with
 * mergeDefaultEvictionSettings, the missing defaults are merged into a present one, here, before
 * any flag (so call this before kp_evict_config_set_flag). Also accepts what /configz serves,
 * {"kubeletconfig": {...}} (kind and apiVersion optional): the effective configuration, taken as
 * is (nothing merged; an omitted evictionHard, evictionSoft, ... or enforceNodeAllocatable is
 * empty, as the kubelet omits empty ones). Errors (KP_ESYNTAX, KP_EINVAL) name source, object and
 * field. Values are checked by kp_evict_config_finish. */
kp_status kp_evict_config_load_buffer(kp_evict_config *cfg, const char *source, const char *buf,
                                      size_t len, kp_error *err);
/* kp_evict_config_load_buffer on the contents of the file at path (the path names it in errors).
 * KP_EIO when the file cannot be read, KP_ELIMIT beyond 64 MiB. */
kp_status kp_evict_config_load_path(kp_evict_config *cfg, const char *path, kp_error *err);

/* Applies one kubelet flag (name without dashes) as the kubelet command line does, on top of any
 * loaded configuration: "eviction-hard" / "eviction-soft" ("sig<val,..."),
 * "eviction-soft-grace-period" / "eviction-minimum-reclaim" ("sig=val,..."; the first use of a
 * map flag replaces the whole map, defaults and merged defaults included, later uses add to
 * it), "eviction-pressure-transition-period"
 * (duration), "eviction-max-pod-grace-period" (int32), "enforce-node-allocatable"
 * (comma list), "local-storage-capacity-isolation" (bool). Errors use upstream's words
 * ("malformed pair, expect string<string"): KP_EINVAL for a bad value, KP_ENOTFOUND for an
 * unknown flag name, KP_ENOMEM. */
kp_status kp_evict_config_set_flag(kp_evict_config *cfg, const char *name, const char *value,
                                   kp_error *err);

/* Models node-level reclaim (container and image garbage collection): "SIGNAL=QUANTITY" says GC
 * would free QUANTITY on the filesystem of SIGNAL (bytes for *.available, inodes for
 * *.inodesFree). Without it GC frees nothing, as on a node with nothing to collect. Errors:
 * KP_EINVAL (a bad signal or quantity), KP_ERANGE (a quantity that cannot be held). */
kp_status kp_evict_config_set_reclaimable(kp_evict_config *cfg, const char *spec, kp_error *err);
/* The file's featureGates on top of the defaults (kp_feature_gates_init when no file or no
 * field); .set marks the gates the file names. A name kprio does not know, a non-boolean value
 * or a locked gate set to the other value fails the load (KP_EINVAL, upstream's wording:
 * "featureGates: unrecognized feature gate: X"). Borrowed from the configuration. */
const kp_feature_gates *kp_evict_config_feature_gates(const kp_evict_config *cfg);
/* The release line (--compat VERSION, "[v]1.MINOR[.PATCH]"; NULL or "" = the mirrored one) whose
 * gate defaults and locks the file's featureGates are read against: call before
 * kp_evict_config_load_* (it resets the gates to that line's defaults). The kubelet-side rules
 * follow the line of the cluster's gates (kp_feature_gates_init_compat, kp_cluster_set_feature_
 * gates); docs/compat.md "Compatibility". KP_EINVAL if version is not a version. */
kp_status kp_evict_config_set_compat(kp_evict_config *cfg, const char *version, kp_error *err);
/* Forces the filesystem layout instead of detecting it (--imagefs). */
void kp_evict_config_set_fs_layout(kp_evict_config *cfg, kp_evict_fs_layout layout);

/* Builds the threshold list exactly as ParseThresholdConfig does (hard, then soft, then the
 * allocatableMemory.available copies of hard memory thresholds when enforceNodeAllocatable holds
 * "pods") and validates every value. Errors carry upstream's text, e.g.
 * "unsupported eviction signal mem.available" (KP_EINVAL); KP_ENOMEM. Must succeed before
 * kp_evict_manager_new. */
kp_status kp_evict_config_finish(kp_evict_config *cfg, kp_error *err);

/* A configured threshold, for display. */
typedef struct {
    kp_evict_signal signal;
    bool hard; /* grace period == 0 */
    int64_t grace_ns; /* grace period, nanoseconds */
    const char *value; /* "100Mi", "10%" */
    const char *min_reclaim; /* "" when none */
    const char *origin; /* where the kubelet took it from: "default", "config file", "default,
                           merged into the config file's map", "configz", "--eviction-hard",
                           "--eviction-soft", or a derived copy ("copy of ...") */
} kp_evict_threshold_info;

/* Warnings from loading the configuration file (lenient decoding: "FILE: KubeletConfiguration:
 * using lenient decoding as strict decoding failed: strict decoding error: unknown field
 * \"evictonHard\""), in order. Borrowed from the configuration. */
size_t kp_evict_config_warning_count(const kp_evict_config *cfg);
const char *kp_evict_config_warning(const kp_evict_config *cfg, size_t i);

/* Number of thresholds after kp_evict_config_finish (0 before). */
size_t kp_evict_config_threshold_count(const kp_evict_config *cfg);
/* Threshold i; NULL out of range (or before kp_evict_config_finish). Borrowed from the
 * configuration (valid until it is changed or freed). */
const kp_evict_threshold_info *kp_evict_config_threshold(const kp_evict_config *cfg, size_t i);
/* evictionPressureTransitionPeriod (ns) and evictionMaxPodGracePeriod (s). */
int64_t kp_evict_config_transition_ns(const kp_evict_config *cfg);
int64_t kp_evict_config_max_pod_grace(const kp_evict_config *cfg);

/* A duration as Go's time.Duration.String() prints it ("0s", "2m0s", "1.5s"; at most 25 bytes),
 * by value. */
typedef struct {
    char s[32];
} kp_duration_str;
kp_duration_str kp_duration_string(int64_t ns);

/* ---------------------------------------------------------------- summaries */

typedef struct kp_evict_summary kp_evict_summary;

/* Parses one Summary API document (JSON, as the kubelet serves /stats/summary; YAML accepted
 * too) from buf[0..len) (not retained; no padding required: the bytes are copied once into a
 * buffer the decoder may over-read). It must have a "node" object and no "kind" (a Pod manifest,
 * a NodeList or {} is not a summary: KP_EINVAL). Every numeric field is optional. On success *out
 * owns the parsed stats (NULL on error). Errors: KP_ESYNTAX with line/column, KP_EINVAL naming the
 * field
 * ("pods[3].containers[0].rootfs.usedBytes: expected an unsigned integer"), KP_ENOMEM. */
kp_status kp_evict_summary_load_buffer(const char *source, const char *buf, size_t len,
                                       kp_evict_summary **out, kp_error *err);
/* kp_evict_summary_load_buffer on the contents of the file at path (the path names it in
 * errors). KP_EIO when the file cannot be read, KP_ELIMIT beyond 1 GiB. */
kp_status kp_evict_summary_load_path(const char *path, kp_evict_summary **out, kp_error *err);
/* Releases a summary. NULL is a no-op. */
void kp_evict_summary_free(kp_evict_summary *s);
/* Writes the Summary API document json[0..len) to DIR/NODE/TIME.json, TIME the virtual
 * milliseconds on 13 digits (names sort by time; `kprio evict --summary DIR/NODE` replays
 * them), creating DIR and DIR/NODE when missing (`kprio simulate --dump-summaries`). Each file
 * is written to a temporary file beside it and renamed into place when complete: never left
 * half-written. Errors: KP_EIO / KP_EINVAL (a node name that is no file name) with
 * the path as the error's source. */
kp_status kp_evict_summary_write_dir(const char *dir, const char *node, int64_t t_ms,
                                     const char *json, size_t len, kp_error *err);
/* The step's time: the newest `time` among the node-level stats, unix nanoseconds; false when
 * the summary carries no node-level time. */
bool kp_evict_summary_time(const kp_evict_summary *s, int64_t *unix_ns);
/* Number of pod entries. */
size_t kp_evict_summary_pod_count(const kp_evict_summary *s);
/* node.nodeName ("" when absent). Borrowed from the summary. */
const char *kp_evict_summary_node_name(const kp_evict_summary *s);

/* ---------------------------------------------------------------- the manager */

typedef struct kp_evict_manager kp_evict_manager;

/* Observation of one signal in a step (signalObservation). */
typedef struct {
    bool present; /* false when an input the signal needs is missing */
    int64_t available; /* bytes, inodes or PIDs (may be negative for pids) */
    int64_t capacity;
    int64_t time_ns; /* the stat's time, 0 when absent (upstream zero time) */
} kp_evict_observation;

/* One threshold met in a step. */
typedef struct {
    size_t index; /* threshold index in the manager's list (kp_evict_manager_threshold); at or
                     past kp_evict_manager_threshold_count for a user containerfs threshold
                     that the first step evaluated before it was rewritten (docs/evict.md) */
    kp_evict_signal signal;
    bool hard;
    int64_t grace_ns;
    bool grace_met; /* passed the grace period (thresholdsMetGracePeriod) */
    bool acted; /* grace met and its stats were updated (thresholdsUpdatedStats) */
    int64_t quantity; /* threshold resolved against the capacity (GetThresholdQuantity) */
    const char *value; /* configured value, "100Mi" / "10%" */
    const char *quantity_str; /* resolved quantity as upstream prints it ("100Mi") */
} kp_evict_met;

/* ---------------------------------------------------------------- the ranking */

/* The rank function a step ordered the active pods with (buildSignalToRankFunc), i.e. its chain
 * of comparators (pkg/kubelet/eviction/helpers.go):
 *   MEMORY       rankMemoryPressure: exceedMemoryRequests, priority, memory (usage - request);
 *   DISK         rankDiskPressureFunc for bytes: exceedDiskRequests, priority, disk;
 *   DISK_INODES  rankDiskPressureFunc for inodes: exceedDiskRequests compares the inodes used with
 *                no request (none exists), disk subtracts the ephemeral-storage request;
 *   PID          rankPIDPressure: priority, process (count). */
typedef enum {
    KP_EVRANK_MEMORY = 0,
    KP_EVRANK_DISK,
    KP_EVRANK_DISK_INODES,
    KP_EVRANK_PID
} kp_evict_rank_kind;

/* Upstream name of a rank function ("rankMemoryPressure", ...). */
const char *kp_evict_rank_kind_name(kp_evict_rank_kind k);

/* One pod as the rank function saw it (a plain value). */
typedef struct {
    kp_index pod;
    uint32_t order; /* its place among the active pods: the last key (ties keep the input order) */
    bool has_stats; /* the summary had stats for it (a pod without ranks first for memory/disk) */
    bool critical; /* a critical pod: ranked, but evictPod refuses it */
    int32_t priority;
    int64_t usage; /* memory: working set bytes; disk: podDiskUsage on the signal's filesystems
                      (bytes, or inodes for DISK_INODES); pid: processes */
    int64_t request; /* memory or ephemeral-storage request (GetResourceRequestQuantity); 0 for
                        pid */
} kp_evict_rank_entry;

/* The comparator that orders two pods (the first of the chain on which they differ). */
typedef enum {
    KP_EVKEY_ORDER = 0, /* equal on every comparator: the input order */
    KP_EVKEY_STATS, /* one has stats, the other not: the one without ranks first (pid: after
                       priority) */
    KP_EVKEY_EXCEEDS, /* one uses more than its request, the other not: it ranks first */
    KP_EVKEY_PRIORITY, /* the lower priority ranks first */
    KP_EVKEY_USAGE /* the larger usage - request (pid: process count) ranks first */
} kp_evict_rank_key;

/* Short name of a comparator ("exceedsRequests", "priority", "usage", "stats", "order"). */
const char *kp_evict_rank_key_name(kp_evict_rank_key k);

/* The engine's comparison of two pods under rank function kind: negative when a ranks before b
 * (is evicted first), positive when after, 0 only for entries equal in every field, order
 * included. *decisive (optional) gets the comparator that decided. This is the comparator the
 * manager sorts with. */
int kp_evict_rank_compare(kp_evict_rank_kind kind, const kp_evict_rank_entry *a,
                          const kp_evict_rank_entry *b, kp_evict_rank_key *decisive);

/* What would have spared the pod evicted from a ranking, in that step (the first non-critical pod
 * of the ranking is evicted; a spared pod ranks after the next non-critical pod, the runner-up,
 * which is evicted in its place). Every value is the exact bound at which the engine's comparator
 * (kp_evict_rank_compare) ranks it after the runner-up, other pods unchanged. */
typedef struct {
    size_t position; /* the evicted pod's place in the ranking */
    size_t runner_up; /* place of the pod evicted in its place; == n when none */
    bool by_request; /* some request spares it (memory or ephemeral storage; not pid) */
    int64_t min_request; /* ... the smallest */
    bool by_usage; /* some usage spares it */
    int64_t max_usage; /* ... the largest (working set, disk usage, processes) */
    int32_t min_priority; /* the smallest priority that spares it: the comparator's bound, or
                             2000000000 (a critical pod is never evicted) when none below */
    bool priority_critical; /* min_priority spares it only by making the pod critical */
} kp_evict_spare;

/* Explains ranking[pos] (n entries in ranking order, as kp_evict_result.rank_entries): the
 * comparator deciding it against every other pod (decisive, n entries, optional; decisive[pos]
 * is KP_EVKEY_ORDER) and what would have spared it (*spare). KP_EINVAL when pos >= n or
 * ranking[pos] is critical. */
kp_status kp_evict_explain(kp_evict_rank_kind kind, const kp_evict_rank_entry *ranking, size_t n,
                           size_t pos, kp_evict_rank_key *decisive, kp_evict_spare *spare,
                           kp_error *err);

/* One evicted pod. */
typedef struct {
    kp_index pod;
    const char *signal; /* threshold signal, or emptydirfs.limit / ephemeralpodfs.limit /
                               ephemeralcontainerfs.limit for local-storage evictions */
    int64_t grace_seconds; /* grace period override */
    const char *message; /* pod status message, upstream text */
    size_t n_annotations; /* event annotations, keys sorted */
    const char *const *ann_keys;
    const char *const *ann_values;
    bool local_storage;
} kp_evict_eviction;

/* A step's decision. Every pointer borrows from the manager and stays valid until the next
 * kp_evict_manager_step or kp_evict_manager_free. */
typedef struct {
    int64_t time_ns; /* step time */
    kp_evict_observation obs[KP_EVSIG_COUNT]; /* observations, by signal */
    size_t n_met; /* thresholds met (with min-reclaim hysteresis) */
    const kp_evict_met *met;
    unsigned conditions; /* KP_NODE_COND_* bits reported after this step */
    bool has_reclaim; /* a threshold was chosen to reclaim */
    size_t reclaim_threshold; /* its index */
    const char *reclaim_resource; /* "memory", "ephemeral-storage", ... */
    unsigned node_reclaim; /* 1 = container GC ran, 2 = image GC ran */
    bool node_reclaim_enough; /* GC relieved every threshold: no pod evicted */
    size_t n_ranking; /* pods in eviction order, when ranking ran */
    const kp_index *ranking;
    kp_evict_rank_kind rank_kind; /* the rank function, when ranking ran */
    const kp_evict_rank_entry *rank_entries; /* n_ranking entries, ranking order: the keys */
    size_t n_evicted;
    const kp_evict_eviction *evicted;
    const char *note; /* why nothing was evicted, or NULL */
    kp_evict_fs_layout layout; /* layout in use (never AUTO) */
    /* How pod stats were joined to the active pods, when this step read them (stats_joined):
     * by podRef.uid as upstream's cachedStatsFunc, by namespace/name where the pod or the entry
     * has no uid, or not at all (no entry; an entry with another uid does not join). */
    bool stats_joined;
    size_t n_stats_by_uid, n_stats_by_name, n_stats_missing;
} kp_evict_result;

/* Creates the manager for node `node` (kp_cluster_find_node) of a finalized cluster with a
 * finished configuration into *out (NULL on error). The active pods are the node's bound pods
 * that are not terminal, in load order. cl and cfg are borrowed and must outlive the manager.
 * Errors: KP_EINVAL (configuration not finished, cluster not finalized, node index out of
 * range), KP_ENOMEM. */
kp_status kp_evict_manager_new(const kp_cluster *cl, kp_index node, const kp_evict_config *cfg,
                               kp_evict_manager **out, kp_error *err);
/* Releases a manager. NULL is a no-op. */
void kp_evict_manager_free(kp_evict_manager *m);

/* Re-reads the node's active pods from the cluster (bound, not terminal), keeping the state
 * carried between steps (thresholds first observed, node conditions, the last observations): for
 * a caller whose cluster changes between steps (kprio/sim.h's kubelets). Pods evicted by an
 * earlier step come back unless the caller ended them. Errors: KP_ENOMEM. */
kp_status kp_evict_manager_sync_pods(kp_evict_manager *m, kp_error *err);

/* Runs one synchronize step on summary s (borrowed for the call only) and writes the decision
 * to *res. Steps must come in time order. Evicted pods leave the active set for later steps.
 * Errors: KP_EINVAL when the step time goes backwards, KP_ENOMEM. */
kp_status kp_evict_manager_step(kp_evict_manager *m, const kp_evict_summary *s,
                                kp_evict_result *res, kp_error *err);

/* Pod spec quantities that eviction messages print (upstream prints Quantity.String(), which
 * depends on how the quantity was written: "100Mi" prints "100Mi", "104857600" prints
 * "104857600", "1.5Gi" prints "1536Mi"). The cluster model keeps each quantity's spelling from the
 * manifest and is the default source; a caller may install another. A quantity with no known
 * spelling prints in BinarySI when it is a multiple of 1024, else in DecimalSI. */
typedef enum {
    KP_EVSPEC_REQUEST = 0, /* container or init container NAME: resources.requests[RESOURCE] */
    KP_EVSPEC_LIMIT, /* container or init container NAME: resources.limits[RESOURCE] */
    KP_EVSPEC_POD_REQUEST, /* pod-level spec.resources.requests[RESOURCE] (NAME is "") */
    KP_EVSPEC_OVERHEAD, /* spec.overhead[RESOURCE] (NAME is "") */
    KP_EVSPEC_SIZE_LIMIT /* volume NAME: emptyDir.sizeLimit (RESOURCE is "") */
} kp_evict_spec_field;

/* Returns the text of a quantity as written in the pod's spec (not necessarily NUL-terminated,
 * its length in *len), or NULL when unknown or absent. pod is a cluster pod index. The text must
 * stay valid until the next call. A text that does not parse or disagrees with the model's value
 * is ignored. */
typedef const char *(*kp_evict_spec_text_fn)(void *ctx, kp_index pod, kp_evict_spec_field field,
                                             const char *name, const char *resource, size_t *len);
/* Installs the spec-text source (NULL: none). It is called only while a step builds the message
 * of an eviction, from the thread running kp_evict_manager_step. */
void kp_evict_manager_set_spec_text(kp_evict_manager *m, kp_evict_spec_text_fn fn, void *ctx);

/* Thresholds the manager evaluates (the configuration's, plus the derived containerfs ones once
 * the layout is known). */
size_t kp_evict_manager_threshold_count(const kp_evict_manager *m);
/* Threshold i; NULL out of range. Borrowed from the manager (valid until its next step or its
 * free). */
const kp_evict_threshold_info *kp_evict_manager_threshold(const kp_evict_manager *m, size_t i);
/* Number of pods still active. */
size_t kp_evict_manager_active_count(const kp_evict_manager *m);

#ifdef __cplusplus
}
#endif
#endif
