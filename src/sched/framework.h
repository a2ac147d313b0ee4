/* The scheduler's state (framework.Handle plus the queue's and cache's state kprio keeps) and the
 * per-pod CycleState. Plugins read these types and call no framework function; the framework
 * (cycle.c, score.c), preemption (preempt/) and the scheduler API (sched.c) sit above them.
 *
 * Model: a kp_sched wraps a finalized kp_cluster plus configuration, a seeded PRNG and the
 * in-memory nominator. A kp_cycle is the per-pod CycleState: PreFilter results for one pod
 * (affinity / spread precomputation) that can be updated incrementally when pods are removed
 * from or added back to a node (PreFilterExtensions.RemovePod/AddPod). */
#ifndef KP_SCHED_FRAMEWORK_H
#define KP_SCHED_FRAMEWORK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/prng.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "core/selector.h"
#include "core/volume.h"
#include "kprio/sched.h"
#include "sched/explain.h"
#include "sched/hot.h"
#include "sched/pairmap.h"
#include "sched/podindex.h"
#include "sched/preempt/preempt.h"
#include "sched/status.h"

typedef struct kp_cycle kp_cycle;

/* One plugin's entry points as the framework calls them (upstream's framework.PreFilterPlugin,
 * FilterPlugin, PreFilterExtensions, ScorePlugin interfaces), NULL where the plugin has none. The
 * table, indexed by kp_plugin, is the registry's (sched/registry.c, upstream's
 * plugins/registry.go); kp_sched_new hands it to the framework, which calls no plugin by name:
 * framework <- plugins <- registry. */
typedef struct {
    /* CycleState preparation run for every pod (NodeResourcesFit's computePodResourceRequest) */
    void (*prepare)(kp_cycle *c);
    /* PreFilter; *skip (may be NULL) set when the plugin has nothing to check (PreFilter Skip) */
    kp_status (*prefilter)(kp_cycle *c, kp_node_status *pre, bool *skip);
    void (*filter)(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st);
    /* PreFilterExtensions.AddPod (sign 1) / RemovePod (sign -1) of pod q on node n */
    void (*update)(kp_cycle *c, const kp_pod *q, const kp_node *n, int sign);
    /* the PreFilter state kept around the nominated-pods pass (save, then restore) */
    void (*save)(kp_cycle *c);
    void (*restore)(kp_cycle *c);
    /* a rejection's detail for --explain ("" when none) */
    void (*note)(const kp_cycle *c, const kp_node *n, char *buf, size_t cap);
    /* normalised, unweighted scores: 1 scored, 0 skipped (PreScore Skip), KP_ENOMEM (< 0) */
    int (*score)(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out);
    void (*fini)(kp_cycle *c); /* the plugin's CycleState freed */
} kp__plugin_ops;

#define KP_MAX_NODE_SCORE 100 /* rule 8: not a limit: upstream's framework.MaxNodeScore */

/* ---- per-pod result of a run ---- */
typedef struct {
    /* What kp_sched_result(s, i) returns (borrowed): pod, priority, outcome, node,
     * nominated_node, pdb_violations; victims, victim_nodes and message alias the owned fields
     * below (message is "" while none is set). */
    kp_sched_pod_result pub;
    size_t cap_victims;
    kp_index *victims; /* every victim this pod caused (in upstream order per attempt) */
    kp_index *victim_nodes; /* node each victim was preempted on */
    char *message; /* heap */
    uint32_t attempts;
    /* the plugins that rejected the pod in its last attempt, one bit per kp_plugin
     * (QueuedPodInfo.UnschedulablePlugins; queueing_hints.c) */
    uint32_t rejectors;
} kp_result_int;

typedef struct kp_spread_defaults kp_spread_defaults;

/* Cluster-dependent Filter reasons (reasons.c) */
typedef struct {
    char **insufficient; /* per resource: "Insufficient <name>" */
    char **taint; /* per node taint (taint_off[node] + i): NoSchedule / NoExecute only */
    uint32_t *taint_off; /* n_nodes + 1 offsets */
    uint32_t n_res, n_taints;
    bool generic_taint; /* TaintToleration names no taint (sched/compat.h) */
} kp_reasons;

/* One profile of the scheduler (profile.Map's framework for one schedulerName): its
 * configuration and what kp_sched_new resolves from it against the cluster. The active profile's
 * copy lives in the kp_sched fields of the same names, which plugins read. */
typedef struct {
    kp_sched_config cfg; /* cfg.more == NULL */
    kp_str name; /* interned schedulerName (UINT32_MAX: no pod of the cluster names it) */
    bool postfilter_dra;
    int fit_res_idx[KP_CFG_MAX_RES];
    int bal_res_idx[KP_CFG_MAX_RES];
    bool ignored_res[KP_MAX_RES];
    kp_spread_defaults *def;
} kp_sched_profile;

/* ---- the scheduler ---- */
struct kp_sched {
    kp_cluster *cl;
    const kp__plugin_ops *plugins; /* the registry's table, KP_PL_COUNT entries */
    kp_sched_config cfg; /* the active profile's (prof[cur]) */
    kp_prng prng;
    /* DynamicResources' extended-resource claims' generated names (dynamic_resources_ext.c):
     * the run's seed, a PRNG of their own so that the node choices' draws stay */
    kp_prng ext_prng;
    kp_str sched_name; /* interned profile name (UINT32_MAX if absent in the cluster) */
    /* every profile served (one queue, one cache: upstream's Scheduler.Profiles); the fields
     * marked "active profile" are prof[cur]'s, copied in by kp__sched_use_profile */
    kp_sched_profile *prof;
    uint32_t n_prof, cur;
    bool until_settled;
    /* kp_sched_options.stop_when_settled (-1: off), and the last run's counts (kp_sched_run) */
    int32_t settle_pod, settle_after;
    bool stopped_early, settle_victim, settle_after_done; /* in the run: settle_pod is a victim,
                                                           * settle_after was attempted */
    uint32_t run_attempted, run_queued;
    kp_preempt_compat preempt_compat; /* --compat VERSION, parsed once by kp_sched_new */
    int32_t protect_pod; /* what-if PDB for every preemption (kp_sched_options), -1 = none */
    uint16_t compat; /* the same as a minor version (sched/compat.h: KP_COMPAT_NEWEST) */
    bool postfilter_dra; /* DynamicResources' PostFilter runs (active profile and compat) */
    bool async_preemption; /* SchedulerAsyncPreemption: the cluster's gate, else the line's */

    uint32_t *order; /* zone round-robin node order (node_tree) */
    uint32_t n_order;
    uint32_t next_start;

    /* nominator: per node insertion-ordered pod list; per pod its node (-1) */
    uint32_t **nom_pods;
    uint32_t *nom_n, *nom_cap;
    int32_t *nom_of;
    /* scratch for the Filter's nominated pass (kp__cycle_filter), as long as the longest list */
    uint32_t *nom_scratch;
    uint32_t cap_nom_scratch;
    /* the nominated pods' requests per node, summed by priority, cumulative from the highest
     * (nominator.c; NULL until the first nomination): per node KP_NOM_INLINE groups in one dense
     * array (nom_agg, nom_words int64 per group), a node with more groups has them all in its
     * own block (nom_big) */
    int64_t *nom_agg;
    int64_t **nom_big;
    uint32_t *nom_n_groups, *nom_cap_big;
    uint32_t nom_res, nom_words, nom_nodes; /* resources summed, words per group, nodes */

    /* active profile: resolved resource indices for score args (-1 = resource unknown to the
     * cluster) */
    int fit_res_idx[KP_CFG_MAX_RES];
    int bal_res_idx[KP_CFG_MAX_RES];
    bool ignored_res[KP_MAX_RES];

    /* image name -> number of nodes having it (ImageStateSummary.NumNodes) */
    kp_pairmap image_nodes;
    /* namespace name id -> index into cl->namespaces + 1 */
    kp_pairmap ns_index;
    /* pods with required anti-affinity currently bound (skip existing-anti scan when 0) */
    uint32_t n_anti_pods;
    /* pods bound (now or earlier in the run) that carry pod (anti-)affinity: upstream's
     * HavePodsWithAffinityList, kept as a pod list; entries whose pod left its node are skipped */
    uint32_t *aff_pods;
    uint32_t n_aff_pods, cap_aff_pods;
    /* the compact per-pod array of the hot loops (hot.h; built on first use, kept in step by
     * kp__sched_hot_update) */
    kp_hot_pod *hot;
    uint32_t n_hot;
    bool hot_stale; /* a pod past the array changed: rebuild on the next use */
    /* DynamicResources (plugins/dynamic_resources.c): the index of the DRA objects (sched/dra/
     * index.h), and the CycleState of the pod being scheduled (its Score reads it) */
    struct kp_dra_index *dra_ix;
    struct kp_dra_cycle *dra_cur;
    bool dra_reference; /* test hook: the index rebuilt from the cluster for every pod */
    /* preemption's per-node cache (preempt/cache.c), freed by kp_sched_free */
    void *preempt_cache;
    /* pods by namespace / label for the InterPodAffinity and PodTopologySpread PreFilters
     * (podindex.h; built on first use, never stale: readers check pod->node) */
    kp_podindex ix;
    bool no_index; /* test hook: PreFilters scan every pod on every node (reference path) */
    uint32_t
        *ix_count; /* per-node scratch counts (PodTopologySpread PreFilter), zero between uses */
    /* active profile: PodTopologySpread default constraints and per-pod DefaultSelector
     * (plugins/pod_topology_spread_default.c) */
    kp_spread_defaults *def;

    /* scratch for one scheduling attempt */
    kp_node_status *statuses; /* per node */
    bool *has_status;
    uint32_t n_statuses; /* nodes with has_status set */
    uint32_t *feasible;
    int64_t *scores, *plug_scores;
    uint8_t *ignored_nodes;

    /* results */
    kp_result_int *res;
    uint32_t n_res, cap_res;
    int32_t *res_of_pod; /* pod -> result index or -1 */
    kp_explain *explain; /* NULL unless requested */
    kp_reasons reasons; /* cluster-dependent Filter reasons (reasons.c) */
    /* a cluster that changes between attempts (mutate.c) */
    int64_t now; /* virtual time for preemption (kp_sched_set_time), KP_TIME_NONE */
    uint32_t n_pods_seen; /* pods when built: per-pod arrays have this many (cl->n_pods may
                           * have grown since: kp_sched_sync catches up before the next attempt) */
    uint32_t n_nodes_seen; /* nodes when built: per-node arrays have this many */
    uint32_t seen_changed; /* entries of cl->changed_log caught up with */
    uint64_t gen; /* cl->gen_struct when built or last caught up with */
    kp__cluster_mark seen_mark; /* the cluster's object counts then (kp__sched_catch_up) */
    uint64_t seen_gen_nodes, seen_gen_pods; /* cl->gen_nodes, cl->gen_pods then */
    uint32_t seen_nodes_deleted; /* cl->n_nodes_deleted then */
    uint32_t seen_n_res; /* cl->n_res then */
    /* the failed-attempt memo (memo.h), and the count of the scheduler's own changes that it
     * watches: every bind, nomination change and preemption actuation bumps memo_mut */
    struct kp_memo *memo;
    uint64_t memo_mut;
    bool no_memo; /* test hook: every attempt in full (the memo never used) */
    uint64_t memo_hits; /* statistics (tests): attempts replayed from the memo */
    uint32_t n_rebuilds; /* statistics (tests): kp_sched_sync rebuilds */
    /* the pods whose nomination the last attempt's preemption cleared (kp__preempt_actuate;
     * kp_sched_cleared_nominations), reset by each attempt */
    kp_index *cleared_nom;
    uint32_t n_cleared_nom, cap_cleared_nom;
    /* the claim DynamicResources' PostFilter deallocated in the last attempt, -1
     * (kp_sched_deallocated_claim) */
    kp_index dra_deallocated;
    /* queueing hints (queueing_hints.c): SchedulerQueueingHints on; the old object of the next
     * node update (kp_sched_node_before) */
    bool queueing_hints, has_node_old;
    kp_index node_old_idx;
    kp_node node_old;
    /* the old object of the next assigned pod update (kp_sched_pod_before): its labels (core
     * replaces a pod's label array on a change) and the requests counted for it */
    bool has_pod_old;
    kp_index pod_old_idx;
    kp_labels pod_old_labels;
    int64_t pod_old_req[KP_MAX_RES];
    /* results whose rejectors have each plugin's bit (the last: failed, no plugin) */
    uint32_t n_rejected_by[KP_PL_COUNT + 1];
};

/* ---- per-pod CycleState ---- */
typedef struct {
    const kp_pod_affinity_term *t;
    const kp_pod *owner;
} kp_term_ref;

typedef struct {
    kp_str key;
    int32_t max_skew;
    bool has_min_domains;
    int32_t min_domains;
    kp_inclusion_policy aff_policy, taint_policy;
    const kp_label_selector *sel;
    /* matchLabelKeys: extra `key In (value)` requirements from the pod's labels (every key the
     * pod has a label for; the array lives in the same allocation as the constraints) */
    uint16_t n_extra;
    kp_label *extra;
    bool self_match;
    kp_pairmap counts; /* value id -> matching pods (keep_zero: Go keeps entries) */
    struct {
        kp_str val;
        int64_t num;
    } paths[2], saved_paths[2]; /* criticalPaths; their copy around the nominated pass */
} kp_spread_c;

typedef struct {
    kp_str key; /* label key id (one of the four topology labels) */
    kp_str ga_key; /* translateToGALabel(key) */
    kp_str values; /* the PV's label value: a `__`-separated zone set */
} kp_vz_topo;

struct kp_cycle {
    kp_sched *s;
    uint32_t pod;
    const kp_pod *p;
    bool run[KP_PL_COUNT]; /* filter enabled for this pod (not skipped by PreFilter) */
    uint8_t active[KP_PL_COUNT], n_active; /* the filters to run, in order */
    uint8_t *allowed; /* PreFilterResult node subset (NULL = all nodes) */
    /* NodeResourcesFit: the pod's requests the filter checks (kp__fit_prepare) */
    uint8_t n_fit;
    uint8_t fit_res[KP_MAX_RES];
    int64_t fit_want[KP_MAX_RES];

    /* InterPodAffinity */
    bool ipa;
    kp_pairmap aff_counts, anti_counts, existing_anti;

    /* PodTopologySpread (hard constraints) */
    uint16_t n_spread;
    kp_spread_c *spread;

    /* volume plugins (plugins/volume_zone.c, plugins/volume_restrictions.c) */
    kp_vz_topo *vz; /* VolumeZone: the bound PVs' zone / region labels (podPVTopologies) */
    uint32_t n_vz;
    kp_str vz_keys[4]; /* the topology label keys' ids (UINT32_MAX: no object has that key) */
    kp_str *rwop; /* VolumeRestrictions: the pod's ReadWriteOncePod claim names */
    uint32_t n_rwop;
    int64_t rwop_refs; /* conflictingPVCRefCount */
    const kp_pv **vb_bound; /* VolumeBinding: the bound claims' PVs (NULL: the PV is missing) */
    uint32_t n_vb_bound;
    const kp_pvc **vb_unbound; /* the unbound WaitForFirstConsumer claims, in the pod's order */
    uint32_t n_vb_unbound;
    struct kp_vb *vb; /* their matching state (plugins/volume_binding.c) */
    /* VolumeBinding's PreFilterResult (local PVs' hostnames) narrowed c->allowed: 1 alone, 2 after
     * NodeAffinity's (the absent nodes' status names the plugins) */
    uint8_t vb_narrowed;
    struct kp_nvl *nvl; /* NodeVolumeLimits (plugins/node_volume_limits.c; its Filter scratch) */
    struct kp_dra_cycle *dra; /* DynamicResources (plugins/dynamic_resources.c), NULL: no claims */
    /* NodeResourcesFit: the pod's requests of extended resources a DeviceClass serves (DRA),
     * checked only on nodes that advertise them (plugins/dynamic_resources_ext.c) */
    uint8_t n_fit_dra;
    uint8_t fit_dra_res[KP_MAX_RES];
    int64_t fit_dra_want[KP_MAX_RES];

    /* KP_ENOMEM once a PreFilter state update (AddPod / RemovePod) could not allocate: the
     * cycle's verdicts are then unusable and its users report the error (kp__cycle_status) */
    kp_status st;

    /* nominated pods added for pass 1 (virtual NodeInfo): the pods (extra), or when no filter
     * needs the pods themselves, their requests summed per resource (extra_sum, in nom_sum) */
    const uint32_t *extra;
    uint32_t n_extra;
    const int64_t *extra_sum;
    int64_t nom_sum[KP_MAX_RES];
};


/* The cluster the scheduler works on. */
kp_cluster *kp__sched_cluster(kp_sched *s);
/* The PRNG (candidate offset, final ties). */
kp_prng *kp__sched_prng(kp_sched *s);
/* DefaultPreemptionArgs from the configuration. */
void kp__sched_preemption_args(const kp_sched *s, int32_t *min_pct, int32_t *min_abs);
/* Number of bound pods carrying pod (anti-)affinity ever tracked by the scheduler (upper bound;
 * 0 means no pod on any node has (anti-)affinity). */
uint32_t kp__sched_affinity_pod_bound(const kp_sched *s);
/* Slot for the preemption code's per-scheduler cache (opaque); kp_sched_free releases it with
 * kp__preempt_cache_free (preempt/preempt.h). */
void **kp__sched_preempt_cache(kp_sched *s);
/* The profile serving pod (its spec.schedulerName), -1 when none does. */
static inline int32_t kp__sched_profile_of(const kp_sched *s, const kp_pod *p) {
    for (uint32_t i = 0; i < s->n_prof; i++)
        if (s->prof[i].name == p->scheduler_name) return (int32_t)i;
    return -1;
}
/* Makes pod's profile the active one (mirrors Scheduler.frameworkForPod); a pod no profile
 * serves keeps the first. No work when it is already active. */
void kp__sched_use_profile(kp_sched *s, uint32_t pod);
/* Makes profile k (< n_prof) the active one. */
void kp__sched_activate(kp_sched *s, uint32_t k);
/* Appends pod (now bound, with pod (anti-)affinity) to the affinity pod list. KP_ENOMEM. */
kp_status kp__sched_track_affinity_pod(kp_sched *s, uint32_t pod);
/* kp_sched_sync's catching up with pending pods added and nodes cordoned or tainted (and nothing
 * else changed) without a rebuild (mutate.c); *done false: the caller rebuilds. KP_ENOMEM. */
kp_status kp__sched_catch_up(kp_sched *s, bool *done);

#endif
