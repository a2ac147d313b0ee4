/* Workload expansion's shared state (src/ctrl/, internal): kp_ctrl_expand (expand.c) indexes the
 * snapshot's pods by controller once (expand_index.c), then each controller's file makes the pods
 * of its workloads at t = 0 (kp__ctrl_*_expand next to its sync function), through the helpers
 * below.
 */
#ifndef KP_CTRL_EXPAND_INDEX_H
#define KP_CTRL_EXPAND_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/workload.h"
#include "kprio/common.h"

/* A pod keyed by its controller: kind is a kp_workload_kind (KP_WL_KINDS: terminating pods of a
 * Job, counted apart for podReplacementPolicy Failed). */
typedef struct {
    uint32_t kind;
    kp_str ns, name;
    kp_str node; /* DaemonSet pods: the node it runs on or targets */
} kp__expand_key;

typedef struct {
    kp_cluster *cl;
    kp_error *err;
    kp__expand_key *keys;
    uint32_t n_keys;
    kp__expand_key *wl; /* the input's workloads, node = index, sorted */
    uint32_t n_wl;
    kp__expand_key *scaled; /* ReplicaSets with replicas > 0 controlled by a Deployment: name = the
                       Deployment's, node = the ReplicaSet's index, sorted */
    uint32_t n_scaled;
    uint32_t *orphans; /* non-terminal pods without a controller, by namespace */
    uint32_t n_orphans;
    uint8_t *adopted; /* per orphan */
    int64_t now; /* creationTimestamp of the generated pods */
    unsigned flags; /* kp_cluster_set_expand's */
    kp_str s_apps_v1, s_batch_v1, s_v1, s_rs, s_hash_key;
} kp__expand;


/* expand_index.c: the snapshot's pods indexed by controller, orphans apart; KP_ENOMEM */
kp_status kp__expand_index_pods(kp__expand *x);
/* the keys (pods) of one controller (kind, ns, name); with node != 0, of one
 * controller on one node */
uint32_t kp__expand_count_keys(const kp__expand *x, uint32_t kind, kp_str ns, kp_str name,
                               kp_str node);
/* Deployment d's current ReplicaSet (its one ReplicaSet with replicas) and its pod-template-hash
 * in hash; -1 when none or several */
long kp__expand_deployment_rs(const kp__expand *x, const kp_workload *d, char *hash, size_t cap);
/* the snapshot's workload (kind, ns, name): its index or -1 */
long kp__expand_find_workload(const kp__expand *x, kp_workload_kind kind, kp_str ns, kp_str name);
/* first key of v[0..n) >= k (node compared when with_node) */
uint32_t kp__expand_lower(const kp__expand_key *v, uint32_t n, const kp__expand_key *k,
                          bool with_node);
kp_str kp__expand_intern(kp_cluster *cl, const char *s); /* UINT32_MAX: out of memory */
/* orphans of w's namespace its selector matches, not adopted yet, adopted now (ClaimPods); with
 * node != 0 only those on or targeting it. Returns how many. */
uint32_t kp__expand_adopt(kp__expand *x, const kp_workload *w, kp_str node);
/* w has a template whose PriorityClass exists, else KP_EINVAL naming the workload's field */
kp_status kp__expand_check_template(kp__expand *x, const kp_workload *w);
/* a pending pod from w's template named name, owned by (owner_kind, owner_name, owner_api)
 * (slot >= 0: in the place of that terminal pod); *out its index. KP_ELIMIT, KP_ENOMEM. */
kp_status kp__expand_make_pod(kp__expand *x, const kp_workload *w, const char *name, long slot,
                              kp_str owner_kind, kp_str owner_name, kp_str owner_api,
                              uint32_t *out);
kp_status kp__expand_nomem(kp__expand *x);
/* the template's labels, plus key=val when key is set */
kp_status kp__expand_pod_labels(kp__expand *x, const kp_workload *w, kp_labels *out,
                                const char *key, const char *val);

/* Each controller's pass at t = 0 over workload wi (one kind each; replicaset.c also makes a
 * Deployment's pods, under the ReplicaSet deployment.c names: *made_rs when that ReplicaSet is
 * to be created). */
kp_status kp__ctrl_replicaset_expand(kp__expand *x, uint32_t wi, bool *made_rs);
kp_status kp__ctrl_statefulset_expand(kp__expand *x, uint32_t wi);
kp_status kp__ctrl_daemonset_expand(kp__expand *x, uint32_t wi);
/* job.c: the Job's pass (job_name: the Job's, or a CronJob's made-up Job's when from_cronjob);
 * cronjob.c: a CronJob fired once now (KP_EXPAND_CRONJOBS) */
kp_status kp__ctrl_job_expand(kp__expand *x, uint32_t wi, const char *job_name, bool from_cronjob);
kp_status kp__ctrl_cronjob_expand(kp__expand *x, uint32_t wi);

#endif
