/* Scheduling-cycle internals shared by the files of src/sched/ that implement issue 3 (framework,
 * plugins, queue). Preemption code should use only sched.h. */
#ifndef KP_SCHED_SCHED_INT_H
#define KP_SCHED_SCHED_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/sched.h"
#include "sched/config.h"
#include "sched/pairmap.h"
#include "sched/podindex.h"
#include "sched/preempt/preempt.h"
#include "sched/sched.h"

#define KP_MAX_NODE_SCORE 100

/* ---- per-pod result of a run ---- */
typedef struct {
    uint32_t pod;
    kp_sched_outcome outcome;
    int32_t node;      /* bound node or -1 */
    int32_t nominated; /* nominated node or -1 */
    uint32_t n_victims, cap_victims;
    uint32_t *victims; /* every victim this pod caused (in upstream order per attempt) */
    int32_t *victim_nodes; /* node each victim was preempted on */
    int32_t pdb_violations;
    char *message; /* heap */
    uint32_t attempts;
} kp_result_int;

/* ---- --explain ---- */
typedef struct {
    uint8_t plugin;
    kp_code code;
    char reason[112];
} kp_explain_filter;

typedef struct {
    bool evaluated;         /* visited by the scheduler's filter pass */
    kp_node_status overall; /* RunFilterPluginsWithNominatedPods result */
    uint8_t n_filters;
    kp_explain_filter filters[KP_PL_COUNT];
    bool feasible, scored;
    int64_t plugin_score[KP_PL_COUNT]; /* weighted, after normalisation */
    int64_t total;
} kp_explain_node;

typedef struct kp_explain {
    uint32_t pod;
    bool attempted;
    char prefilter_msg[256];
    int32_t selected;      /* chosen node or -1 */
    bool nominated_first;  /* decided on the nominated node without a full pass */
    uint32_t n_nodes;
    kp_explain_node *nodes;
    bool has_preempt;
    kp_preempt_result preempt;
} kp_explain;

typedef struct kp_spread_defaults kp_spread_defaults;

/* ---- the scheduler ---- */
struct kp_sched {
    kp_cluster *cl;
    kp_sched_config cfg;
    kp_prng prng;
    kp_str sched_name; /* interned profile name (UINT32_MAX if absent in the cluster) */
    bool until_settled;
    char compat[32]; /* --compat VERSION ("" = newest) */
    int compat_minor; /* 0 = newest, else 1.<minor> */

    uint32_t *order; /* zone round-robin node order (node_tree) */
    uint32_t n_order;
    uint32_t next_start;

    /* nominator: per node insertion-ordered pod list; per pod its node (-1) */
    uint32_t **nom_pods;
    uint32_t *nom_n, *nom_cap;
    int32_t *nom_of;

    /* resolved resource indices for score args (-1 = resource unknown to the cluster) */
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
    /* preemption's per-node cache (preempt_victims.c), freed by kp_sched_free */
    void *preempt_cache;
    /* pods by namespace / label for the InterPodAffinity and PodTopologySpread PreFilters
     * (podindex.h; built on first use, never stale: readers check pod->node) */
    kp_podindex ix;
    bool no_index;      /* test hook: PreFilters scan every pod on every node (reference path) */
    uint32_t *ix_count; /* per-node scratch counts (PodTopologySpread PreFilter), zero between uses */
    /* PodTopologySpread default constraints and per-pod DefaultSelector (spread_default.c) */
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
    /* matchLabelKeys: extra `key In (value)` requirements from the pod's labels */
    uint16_t n_extra;
    kp_label extra[8];
    bool self_match;
    kp_pairmap counts; /* value id -> matching pods (keep_zero: Go keeps entries) */
    struct {
        kp_str val;
        int64_t num;
    } paths[2]; /* criticalPaths */
} kp_spread_c;

struct kp_cycle {
    kp_sched *s;
    uint32_t pod;
    const kp_pod *p;
    bool run[KP_PL_COUNT]; /* filter enabled for this pod (not skipped by PreFilter) */
    uint8_t active[KP_PL_COUNT], n_active; /* the filters to run, in order */
    uint8_t *allowed;      /* PreFilterResult node subset (NULL = all nodes) */
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

    /* nominated pods added for pass 1 (virtual NodeInfo) */
    const uint32_t *extra;
    uint32_t n_extra;
};

/* ---- helpers (sched.c) ---- */
kp_status kp__sched_track_affinity_pod(kp_sched *s, uint32_t pod);
const kp_labels *kp__ns_labels(const kp_sched *s, kp_str ns);
/* v1 PodAffinityTerm (owner's term) against pod: namespaces / namespaceSelector and selector. */
bool kp__term_matches(const kp_sched *s, const kp_pod_affinity_term *t, const kp_pod *owner,
                      const kp_pod *pod);
bool kp__pod_has_required_anti(const kp_pod *p);

/* ---- plugins ---- */
/* filters (filter_basic.c): statuses use upstream's reason strings */
void kp__filter_node_unschedulable(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__filter_node_name(const kp_cycle *c, uint32_t node, kp_node_status *st);
void kp__filter_taints(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__filter_node_affinity(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__filter_node_ports(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__filter_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* NodeResourcesFit's per-pod preparation (kp__cycle_new calls it) */
void kp__fit_prepare(kp_cycle *c);
/* NodeAffinity PreFilter: PreFilterResult from matchFields metadata.name (conflict -> status) */
kp_status kp__prefilter_node_affinity(kp_cycle *c, kp_node_status *pre);

/* InterPodAffinity (filter_affinity.c) */
kp_status kp__ipa_prefilter(kp_cycle *c);
void kp__ipa_update(kp_cycle *c, const kp_pod *added, const kp_node *n, int64_t mult);
void kp__ipa_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__ipa_fini(kp_cycle *c);
/* InterPodAffinity PreScore+Score+Normalize over feasible nodes; false = Skip */
bool kp__ipa_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out);

/* PodTopologySpread (filter_spread.c) */
kp_status kp__spread_prefilter(kp_cycle *c);
void kp__spread_update(kp_cycle *c, const kp_pod *added, const kp_node *n, int64_t delta);
void kp__spread_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__spread_fini(kp_cycle *c);
void kp__spread_save(const kp_cycle *c, kp_str *vals, int64_t *nums);
void kp__spread_restore(kp_cycle *c, const kp_str *vals, const int64_t *nums);
bool kp__spread_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                      int64_t *out);
/* the constraints a pod is spread by: its own, else the default ones (KP_ENOMEM on failure) */
kp_status kp__spread_constraints(kp_sched *s, const kp_pod *p, kp_when_unsat when, kp_spread_c **out,
                                 uint16_t *n_out);
/* node passes nodeAffinityPolicy / nodeTaintsPolicy for the pod (MatchNodeInclusionPolicies) */
bool kp__spread_node_included(const kp_cluster *cl, const kp_pod *p, kp_inclusion_policy aff,
                              kp_inclusion_policy taint, const kp_node *n);

/* PodTopologySpread default constraints (spread_default.c) */
kp_status kp__spread_defaults_init(kp_sched *s);
void kp__spread_defaults_free(kp_sched *s);
/* The default constraints (*out, returns their count; selectors unset: the pod's DefaultSelector
 * applies; only maxSkew, topologyKey and whenUnsatisfiable are set). */
uint8_t kp__spread_defaults_get(const kp_sched *s, const kp_spread **out);
/* defaultingType System (PreScore's requireAllTopologies is then false for pods without constraints) */
bool kp__spread_defaults_system(const kp_sched *s);
/* helper.DefaultSelector for pod, cached; *out NULL when it is empty (no default constraint applies,
 * as buildDefaultConstraints decides). KP_ENOMEM on allocation failure. */
kp_status kp__default_selector(kp_sched *s, uint32_t pod, const kp_label_selector **out);

/* scores (score.c): raw -> normalised, unweighted, per feasible node; false = plugin skipped */
bool kp__score_plugin(kp_sched *s, kp_plugin pl, const kp_pod *p, const uint32_t *nodes,
                      uint32_t n, int64_t *out);
/* mirrors selectHost (reservoir sampling among the max total score) */
uint32_t kp__select_host(kp_sched *s, const uint32_t *nodes, const int64_t *totals, uint32_t n);

/* --explain: each filter's own verdict on node (cycle.c) */
void kp__cycle_explain_filters(const kp_cycle *c, uint32_t node, kp_explain_node *en);
/* One scheduling attempt of pod (schedule_one.c); *changed: bound or caused victims. */
kp_status kp__sched_attempt(kp_sched *s, uint32_t pod, bool *changed, kp_error *err);
/* Resource r is a scalar resource for NodeResourcesFit / an extended resource. */
bool kp__res_is_scalar(const char *name);
bool kp__res_is_extended(const char *name);

/* mirrors numFeasibleNodesToFind */
uint32_t kp__num_feasible_to_find(int32_t pct, uint32_t n_all);

/* FitError message ("0/N nodes are available: ...") from the per-node statuses. */
void kp__fit_error_message(const kp_sched *s, const char *prefilter_msg, char *buf, size_t cap);

#endif
