/* Internals shared by the preemption files (preempt.c: PostFilter driver, dry run, node choice,
 * actuation; victims.c: SelectVictimsOnNode; order.c: importance order, PDB classification;
 * cache.c: the arithmetic path's per-node cache). Not used outside src/sched/preempt/. */
#ifndef KP_SCHED_PREEMPT_INT_H
#define KP_SCHED_PREEMPT_INT_H

#include <string.h>

#include "sched/preempt/preempt.h"

/* One preemption attempt (one call of kp__preempt_postfilter_ex). */
typedef struct {
    kp_sched *s;
    kp_cycle *c;
    kp_cluster *cl;
    uint32_t pod; /* the preemptor */
    int32_t prio; /* its priority */
    kp_preempt_opts *o;
    const kp_node_status *statuses; /* the failed Filter pass's verdicts (index = node), for
                                     * prefetching; NULL when o->codes stands in for them */
    int64_t now_key; /* start time used for pods with nil startTime */
    bool fast; /* resource arithmetic allowed for reprieve (see victims.c) */
    struct kp_pdbix *pdbix; /* the PDB index (pdb_index.h; NULL without PDBs): the PDBs that
                             * select each pod, in namespace/name order, and the budgets */
    bool pdbix_owned; /* built for this attempt only (no scheduler to keep it) */
    uint32_t *scratch; /* scratch pod arrays, sized for the largest node */
    uint32_t scratch_cap;
    bool defer; /* arithmetic path may defer the exact status of a node that cannot
                 * fit even with all lower-priority pods gone (computed only if the
                 * message needs it: no candidate at all) */
    bool lazy; /* cached arithmetic path: candidates get n_victims and scores but
                * no victim list (the caller materialises the winner's) */
    struct kp_pcache *cache; /* per-scheduler per-node sorted view (cache.c) or NULL */
    int64_t pre_req[3]; /* preemptor's cpu / memory / ephemeral-storage requests */
    const char *fit_plugin; /* kp__plugin_name(KP_PL_FIT), the name the Filter statuses carry */
} kp_pctx;

/* Node-choice scores (SelectCandidate's table, higher wins), steps 1..5. */
#define KP_PREEMPT_N_SCORES 5

/* Result of SelectVictimsOnNode for one node. victims: heap, most important first. */
typedef struct {
    kp_node_status st; /* code SUCCESS when a candidate */
    uint32_t *victims;
    uint32_t n_victims;
    int32_t n_viol;
    bool deferred; /* status not computed yet (see kp_pctx.defer); code UNSCHEDULABLE */
    bool has_scores; /* score[] filled by the victim selection */
    int64_t score[KP_PREEMPT_N_SCORES];
    const int64_t *score4_at; /* non-NULL: score[4] is *score4_at, read by the node choice only
                               * when steps 1..4 tie (points into the node's cache entry, valid
                               * for the rest of the attempt: each node is selected once) */
} kp_pvict;

/* Scratch of one SelectVictimsOnNode call (slices of kp_pctx.scratch). */
typedef struct {
    uint32_t *potential, *saved, *viol, *nonviol, *victims;
    uint32_t n_potential, n_saved, n_viol, n_nonviol, n_victims;
    int32_t n_viol_victims;
} kp_pwork;

/* SelectVictimsOnNode on the reference / incremental / arithmetic paths (victims.c), for
 * kp__preempt_select_victims (cache.c) when the cached path cannot answer: out reset (no
 * victims, Success), w's slices set and its counts zero. Leaves the node exactly as found. */
kp_status kp__preempt_select_generic(kp_pctx *x, uint32_t node, const kp_node_status *filter_st,
                                     kp_pwork *w, kp_pvict *out, kp_error *err);

/* The node failed the Filter pass in NodeResourcesFit (from the compact codes when given). */
static inline bool kp__preempt_failed_in_fit(const kp_pctx *x, uint32_t node,
                                             const kp_node_status *st) {
    if (x->o->codes) return (x->o->codes[node] & KP_PREEMPT_CODE_FIT) != 0;
    if (!st || !st->plugin) return false;
    /* the filters name themselves by kp__plugin_name's strings: the pointer decides at once */
    return st->plugin == x->fit_plugin || strcmp(st->plugin, "NodeResourcesFit") == 0;
}

/* A result with no victims and a Success status. */
static inline void kp__preempt_no_victims(kp_pvict *out) {
    out->st.code = KP_CODE_UNRESOLVABLE;
    out->st.plugin = "DefaultPreemption";
    kp__status_add_reason(&out->st, "No preemption victims found for incoming pod");
}

/* Fills v->score[] from the victims (used when the selection did not). */
void kp__preempt_scores(const kp_pctx *x, kp_pvict *v);

#endif
