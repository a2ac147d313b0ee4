/* Scenario files for `kprio simulate` (apiVersion kprio/v1alpha1, kind Scenario): timed actions
 * played against a loaded cluster over virtual time. The contract is documented in
 * docs/scenario.md; this header is its decoded form, plain data owned by the kp_scenario.
 *
 * Typical use:
 *     kp_scenario *sc = NULL;
 *     if (kp_scenario_load_path("scenario.yaml", &sc, &err) != KP_OK) ...
 *     for (size_t i = 0; i < sc->n_actions; i++) printf("%lld\n", (long long)sc->actions[i].at_ms);
 *     kp_scenario_free(sc);
 *
 * Times are virtual milliseconds from the start of the simulation (Go duration syntax in the
 * file: "90s", "1m30s", "250ms"). Actions are kept in file order; the simulator plays actions
 * with equal `at` in that order. */
#ifndef KP_SCENARIO_H
#define KP_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KP_ACT_CREATE = 0, /* objects: Pods, ReplicaSets & other workloads, PriorityClasses, PDBs,
                        * Nodes (inline or from a file) */
    KP_ACT_DELETE, /* ref: a Pod, Node, PriorityClass, PodDisruptionBudget or workload */
    KP_ACT_SCALE, /* ref: ReplicaSet / StatefulSet / ReplicationController / Deployment;
                   * replicas */
    KP_ACT_CORDON, /* ref: a Node */
    KP_ACT_UNCORDON,
    KP_ACT_TAINT, /* ref: a Node; taint */
    KP_ACT_UNTAINT, /* ref: a Node; taint (key, and effect when given) */
    KP_ACT_DRAIN, /* ref: a Node (or drain.node_reqs): cordon, then evict its pods through the
                   * Eviction API rules, as kubectl drain with drain's options */
    KP_ACT_SET_PRIORITY_CLASS, /* ref: a PriorityClass; value */
    KP_ACT_PATCH, /* ref: an object (kprio/update.h's kinds); patch, subresource */
    KP_ACT_FAIL, /* ref: a Node: its kubelet stops posting status (node failure) */
    KP_ACT_RECOVER /* ref: a Node: its kubelet posts again */
} kp_action_type;

/* An object reference as written: kind (as the API spells it, "Pod"), namespace ("" for
 * cluster-scoped kinds; "default" when a namespaced kind omits it), name. */
typedef struct {
    char *kind, *ns, *name;
} kp_object_ref;

/* One object to create: its text (a complete JSON or YAML document that kp_cluster_load_buffer
 * reads) and the name errors use for it ("FILE: actions[2].create.objects[0]", or the file an
 * action's `file:` named). */
typedef struct {
    char *source;
    char *text;
    size_t len;
} kp_scenario_object;

typedef struct {
    char *key, *value, *effect; /* value "" when none; effect "" when none (untaint: any) */
} kp_scenario_taint;

/* drain: kubectl drain's options (docs/scenario.md). The nodes: ref.name, or every node whose
 * labels match node_reqs (nodeSelector, as `kubectl drain --selector`: has_node_selector; a
 * label selector string, `k=v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, parsed into
 * requirements as labels.Parse does). */
typedef struct {
    bool has_node_selector;
    kp_selector_req *node_reqs; /* nodeSelector */
    size_t n_node_reqs;
    kp_selector_req *pod_reqs; /* podSelector: only the pods it selects are evicted */
    size_t n_pod_reqs;
    int32_t concurrency; /* nodes drained at once (>= 1; default 1) */
    int64_t grace_period; /* seconds for the evictions' DeleteOptions; -1: the pod's own */
    bool ignore_daemonsets, delete_emptydir_data, force; /* kubectl's defaults: false */
} kp_scenario_drain;

typedef struct {
    int64_t at_ms;
    kp_action_type type;
    kp_object_ref ref; /* delete, scale, cordon, uncordon, taint, untaint, drain, setPriority */
    int32_t replicas; /* scale */
    int32_t value; /* setPriorityClass */
    kp_scenario_taint taint; /* taint, untaint */
    kp_scenario_drain drain; /* drain */
    kp_scenario_object *objects; /* create */
    size_t n_objects;
    char *subresource; /* patch: "", "status" (a Node's) or "resize" (a Pod's) */
    char *patch; /* patch: the JSON merge patch as text, for kp_cluster_patch (JSON; YAML when
                  * it starts with "---", the scenario's plain scalars kept as written) */
    size_t patch_len;
    /* delete of a Pod by its controller (a replayed trace's pod whose name the API server
     * generated, kprio/trace.h; not written in Scenario files): when owner.kind is set
     * (ReplicaSet, ReplicationController, Job or DaemonSet, in ref.ns), the pod deleted is the
     * owner_rank-th (0: the first) pod that controller created during the run, in creation
     * order; ref.name is the recorded pod's name. No such pod, or one deleted already: an
     * ActionFailed event, the run goes on. NULL / 0 otherwise. */
    kp_object_ref owner;
    uint32_t owner_rank;
} kp_scenario_action;

/* lifetimes[]: pods whose labels match the selector (and namespace, when given) run for
 * `after_ms` once bound, then Succeed and stop holding resources (Job-like work). The first
 * matching entry wins. The selector is a metav1.LabelSelector: matchLabels become `In`
 * requirements with one value, then matchExpressions in order (kp_selector_req,
 * include/kprio/cluster.h; matched by kp_cluster_pod_matches). */
typedef struct {
    char *ns; /* "" = every namespace */
    kp_selector_req *reqs;
    size_t n_reqs;
    int64_t after_ms;
} kp_scenario_lifetime;

/* readiness[]: the same entries (kp_scenario_lifetime) for readiness: pods matching the selector
 * (and namespace) become Ready `after_ms` once their containers start (bound, or restarted after
 * an OOM kill). The first matching entry wins; a pod no entry matches is Ready after its probes'
 * initialDelaySeconds (kp_cluster_pod_probe_delay), at once without probes. */

/* usage[]: what the pods matching the selector (and namespace, when given) use of `resource`
 * over their age (virtual ms since the simulation saw them bound, or since their containers
 * last restarted after an OOM kill; 0 for the snapshot's running pods at t = 0), as the
 * simulated kubelets' Summary API reports it; or, for an entry with `node`, what that node's
 * system uses (its overhead) over the simulation's time. The first entry matching a pod (and
 * its container or volume) for a resource wins; what no entry covers uses the defaults of
 * docs/scenario.md "Usage" (memory: the pod's request). Quantities in bytes (inodes, pids:
 * counts). */
typedef enum {
    KP_USAGE_CONSTANT = 0, /* value */
    KP_USAGE_RAMP, /* start + per_minute * age / 1m, at most cap when has_cap (a leak) */
    KP_USAGE_STEP, /* before until age `at_ms`, after from then on */
    KP_USAGE_PERIODIC, /* square: min for the first half of each period, max for the second;
                        * sine: min + (max - min) * (1 - cos(2 pi age / period)) / 2 */
    KP_USAGE_TRACE /* the value of the last trace point at or before age (the first before it) */
} kp_usage_model;

typedef enum {
    KP_USE_MEMORY = 0, /* working set (pod: split over its containers by memory request) */
    KP_USE_ROOTFS, /* a container's writable layer, bytes */
    KP_USE_LOGS, /* a container's logs, bytes */
    KP_USE_EMPTYDIR, /* an emptyDir volume (not medium Memory), bytes */
    KP_USE_INODES, /* inodes of a container's writable layer (node: of the node's filesystem) */
    KP_USE_PIDS, /* the pod's processes (node: the system's) */
    KP_USE_NODEFS, /* node only: bytes the system keeps on the node's filesystem */
    KP_USE_IMAGEFS /* node only: bytes of container images */
} kp_usage_resource;
#define KP_USE_COUNT 8

typedef struct {
    char *ns; /* "" = every namespace */
    kp_selector_req *reqs;
    size_t n_reqs;
    char *node; /* a node entry: the node's name, "*" every node; "" = a pod entry */
    char *resource; /* as written: "memory", "rootfs", "logs", "emptyDir", "inodes", "pids",
                     * "nodefs", "imagefs" */
    kp_usage_resource res;
    char *container; /* memory, rootfs, logs, inodes: one container by name; "" = the pod (memory)
                      * or each of its containers */
    char *volume; /* emptyDir: one volume by name; "" = each of the pod's emptyDir volumes */
    kp_usage_model model;
    int64_t value; /* constant */
    int64_t start, per_minute, cap; /* ramp */
    bool has_cap;
    int64_t before, after, at_ms; /* step */
    bool sine; /* periodic: shape (false: square) */
    int64_t period_ms, min, max; /* periodic */
    char *trace_file; /* trace: the CSV as named (relative to the scenario's directory) */
    int64_t *trace_ms, *trace_v; /* trace: points in increasing time */
    size_t n_trace;
} kp_scenario_usage;

/* The usage of entry u at age_ms (ramp: rounded toward zero; sine: to the nearest unit). */
int64_t kp_scenario_usage_at(const kp_scenario_usage *u, int64_t age_ms);
/* Whether the value of u can still change after age_ms (a ramp below its cap, a step or trace
 * point ahead, a periodic model). */
bool kp_scenario_usage_moves(const kp_scenario_usage *u, int64_t age_ms);

/* kubelets[]: per node pool, the KubeletConfiguration the kubelets of the nodes whose labels
 * match nodeSelector (a metav1.LabelSelector, as above; kp_cluster_node_matches) run with,
 * for eviction and admission. The first matching entry wins (after `kprio simulate
 * --kubelet-config SELECTOR=FILE` pools). config: the file's path as given, joined to the
 * scenario's directory when relative; the caller reads it (kp_evict_config_load_path). */
typedef struct {
    kp_selector_req *reqs;
    size_t n_reqs;
    char *config;
} kp_scenario_kubelet;

/* A file the scenario names: a create action's file, a trace usage model's file, a kubelets[]
 * pool's config. What `kprio sweep --emit-job` puts in the Job's ConfigMap beside the scenario
 * (include/kprio/sweep.h kp_sweep_inputs). */
typedef struct {
    char *field; /* "actions[2].create.file", "usage[0].trace.file", "kubelets[1].config" */
    char *name; /* as written: relative to the scenario's directory unless absolute */
} kp_scenario_file;

typedef struct kp_scenario {
    char *source; /* the file name errors use */
    bool has_duration, has_seed;
    int64_t duration_ms;
    uint64_t seed;
    kp_scenario_action *actions;
    size_t n_actions;
    kp_scenario_lifetime *lifetimes;
    size_t n_lifetimes;
    kp_scenario_lifetime *readiness;
    size_t n_readiness;
    kp_scenario_usage *usage;
    size_t n_usage;
    kp_scenario_kubelet *kubelets;
    size_t n_kubelets;
    kp_scenario_file *files; /* every file the scenario names, in the order it names them */
    size_t n_files;
} kp_scenario;

/* Loads a Scenario (YAML or JSON) from path into *out (NULL on error). A `file:` of a create
 * action is read now, relative to the scenario's directory, so a bad file fails here. Errors:
 * one line naming the file, the action index and the field ("scenario.yaml: actions[3]: at:
 * invalid duration \"9x\""): KP_EINVAL, KP_ESYNTAX, KP_EIO, KP_ELIMIT, KP_ENOMEM. */
kp_status kp_scenario_load_path(const char *path, kp_scenario **out, kp_error *err);
/* The same from buf[0..len) (not retained); source names it in errors; `file:` entries are
 * relative to base_dir (NULL = the current directory). */
kp_status kp_scenario_load_buffer(const char *source, const char *buf, size_t len,
                                  const char *base_dir, kp_scenario **out, kp_error *err);
/* Releases a scenario. NULL is a no-op. */
void kp_scenario_free(kp_scenario *sc);

#ifdef __cplusplus
}
#endif
#endif
