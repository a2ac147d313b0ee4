/* Victim selection on one node (DefaultPreemption.SelectVictimsOnNode), the victim importance
 * order (MoreImportantVictim / MoreImportantPod) and PDB classification
 * (filterPodsWithPDBViolation).
 *
 * (The importance order and the PDB classification are order.c's; the arithmetic path's per-node
 * cache is cache.c's.)
 *
 * Three interchangeable implementations of SelectVictimsOnNode give identical decisions:
 *  - reference:   upstream step by step, naively: every Filter call starts from the untouched
 *                 node and removes the pods that step needs removed, then puts everything back
 *                 (O(victims^2) pod moves). Kept as an oracle for tests and the benchmark.
 *  - incremental: upstream's sequence of Filter calls (1 + |potential victims|) on the live node,
 *                 removing/adding one pod at a time through the cluster mutators and the cycle's
 *                 PreFilterExtensions, then restoring the node's exact pod order. No node copy.
 *  - arithmetic:  when the only pod-dependent filter that can change its verdict is
 *                 NodeResourcesFit (preemptor without pod (anti-)affinity, spread constraints or
 *                 host ports; no pod in the cluster carrying (anti-)affinity; the node failed in
 *                 NodeResourcesFit), each reprieve is a resource sum instead of a Filter call.
 *                 The first check ("fits with all lower-priority pods gone") that fails still
 *                 runs the real filter to get upstream's exact status text.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/node_volume_limits.h"
#include "sched/preempt/order.h"
#include "sched/preempt/victims.h"

/* ---------------------------------------------------------------- node mutation ---- */

static void filter(kp_pctx *x, uint32_t node, kp_node_status *st) {
    x->o->filter_calls++;
    kp__cycle_filter(x->c, node, st);
}

static void take_out(kp_pctx *x, uint32_t node, uint32_t pod) {
    kp__node_remove_pod(x->cl, pod);
    kp__sched_hot_update(x->s, pod);
    kp__cycle_remove_pod(x->c, pod, node);
}

static kp_status put_back(kp_pctx *x, uint32_t node, uint32_t pod, kp_error *err) {
    kp_status rc = kp__node_add_pod(x->cl, node, pod);
    if (rc != KP_OK) return kp_error_set(err, rc, "preemption: cannot re-add pod to node");
    kp__sched_hot_update(x->s, pod);
    kp__cycle_add_pod(x->c, pod, node);
    return KP_OK;
}

/* Puts node->pods back into the saved order (same set of pods; only positions differ). */
static void restore_order(kp_cluster *cl, uint32_t node, const uint32_t *saved, uint32_t n) {
    kp_node *nd = &cl->nodes[node];
    if (n) memcpy(nd->pods, saved, n * sizeof *saved); /* a node without pods has no array */
    for (uint32_t i = 0; i < n; i++) cl->pods[saved[i]].pos_in_node = i;
}

/* ---------------------------------------------------------------- arithmetic fit ---- */

/* NodeResourcesFit.fitsRequest for the preemptor against `used[k]` (amount of the preemptor's
 * k-th requested resource already taken on the node) and `n_used` pods. */
static bool fits_arith(const kp_pctx *x, const kp_node *nd, const int64_t *used, uint32_t n_used) {
    const kp_pod *p = &x->cl->pods[x->pod];
    if ((int64_t)n_used + 1 > nd->alloc[KP_RES_PODS]) return false;
    for (uint16_t k = 0; k < p->req.n; k++) {
        int r = p->req.e[k].res;
        int64_t v = p->req.e[k].v;
        if (r == KP_RES_PODS) continue;
        int64_t avail = nd->alloc[r] - used[k];
        if (r < KP_RES_FIXED) {
            if (v > 0 && v > avail) return false;
        } else if (v > avail) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- SelectVictimsOnNode ---- */


/* Orders the chosen victims (upstream re-sorts only when both classes contributed). */
static void finish_victims(kp_pctx *x, kp_pwork *w, bool both) {
    if (both) kp__preempt_sort(x, w->victims, w->n_victims);
}

/* Reference: each Filter call from the untouched node. */
static kp_status select_reference(kp_pctx *x, uint32_t node, kp_pwork *w, kp_pvict *out,
                                  kp_error *err) {
    kp_status rc = KP_OK;
    /* step 1: all potential victims removed */
    for (uint32_t i = 0; i < w->n_potential; i++) take_out(x, node, w->potential[i]);
    filter(x, node, &out->st);
    for (uint32_t i = 0; i < w->n_potential && rc == KP_OK; i++)
        rc = put_back(x, node, w->potential[i], err);
    restore_order(x->cl, node, w->saved, w->n_saved);
    if (rc != KP_OK || out->st.code != KP_CODE_SUCCESS) return rc;

    /* naive selection sort by importance */
    for (uint32_t i = 0; i < w->n_potential; i++) {
        uint32_t best = i;
        for (uint32_t j = i + 1; j < w->n_potential; j++)
            if (kp__preempt_more_important(x, w->potential[j], w->potential[best])) best = j;
        uint32_t t = w->potential[i];
        w->potential[i] = w->potential[best];
        w->potential[best] = t;
    }
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    /* reprieve in order: violating, then non-violating. A pod is "kept" when reprieved. */
    uint32_t n_order = w->n_viol + w->n_nonviol;
    bool *kept = kp__calloc(n_order ? n_order : 1, sizeof *kept);
    uint32_t *order = kp__malloc((n_order ? n_order : 1) * sizeof *order);
    if (!kept || !order) {
        kp__free(kept);
        kp__free(order);
        return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
    }
    memcpy(order, w->viol, w->n_viol * sizeof *order);
    memcpy(order + w->n_viol, w->nonviol, w->n_nonviol * sizeof *order);
    for (uint32_t i = 0; i < n_order && rc == KP_OK; i++) {
        /* state: everything back except the potential pods not yet reprieved, then pod i back */
        for (uint32_t j = 0; j < n_order; j++)
            if (j != i && !kept[j]) take_out(x, node, order[j]);
        kp_node_status st;
        filter(x, node, &st);
        for (uint32_t j = 0; j < n_order && rc == KP_OK; j++)
            if (j != i && !kept[j]) rc = put_back(x, node, order[j], err);
        restore_order(x->cl, node, w->saved, w->n_saved);
        if (st.code == KP_CODE_SUCCESS) {
            kept[i] = true;
        } else {
            w->victims[w->n_victims++] = order[i];
            if (i < w->n_viol) w->n_viol_victims++;
        }
    }
    kp__free(kept);
    kp__free(order);
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return rc;
}

/* Incremental: upstream's exact sequence of Filter calls on the live node. */
static kp_status select_incremental(kp_pctx *x, uint32_t node, kp_pwork *w, kp_pvict *out,
                                    kp_error *err) {
    kp_status rc = KP_OK;
    for (uint32_t i = 0; i < w->n_potential; i++) take_out(x, node, w->potential[i]);
    filter(x, node, &out->st);
    if (out->st.code != KP_CODE_SUCCESS) {
        for (uint32_t i = 0; i < w->n_potential && rc == KP_OK; i++)
            rc = put_back(x, node, w->potential[i], err);
        restore_order(x->cl, node, w->saved, w->n_saved);
        return rc;
    }
    kp__preempt_sort(x, w->potential, w->n_potential);
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    for (int pass = 0; pass < 2 && rc == KP_OK; pass++) {
        const uint32_t *list = pass == 0 ? w->viol : w->nonviol;
        uint32_t n = pass == 0 ? w->n_viol : w->n_nonviol;
        for (uint32_t i = 0; i < n && rc == KP_OK; i++) {
            rc = put_back(x, node, list[i], err);
            if (rc != KP_OK) break;
            kp_node_status st;
            filter(x, node, &st);
            if (st.code != KP_CODE_SUCCESS) {
                take_out(x, node, list[i]);
                w->victims[w->n_victims++] = list[i];
                if (pass == 0) w->n_viol_victims++;
            }
        }
    }
    for (uint32_t i = 0; i < w->n_victims && rc == KP_OK; i++)
        rc = put_back(x, node, w->victims[i], err);
    restore_order(x->cl, node, w->saved, w->n_saved);
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return rc;
}

/* Arithmetic: NodeResourcesFit is the only verdict that can change (see file comment). */
static kp_status select_arith(kp_pctx *x, uint32_t node, kp_pwork *w, kp_pvict *out,
                              kp_error *err) {
    const kp_cluster *cl = x->cl;
    const kp_node *nd = &cl->nodes[node];
    const kp_pod *pre = &cl->pods[x->pod];
    int64_t used[KP_MAX_RES];
    uint32_t n_used = nd->n_pods;
    for (uint16_t k = 0; k < pre->req.n; k++) used[k] = nd->requested[pre->req.e[k].res];
    /* pass 1 of RunFilterPluginsWithNominatedPods: nominated pods of >= priority count too; for
     * resources pass 1 failing is the only way the pair of passes can fail. */
    int64_t nom_sum[KP_MAX_RES];
    n_used += kp__sched_nominated_sum(x->s, node, x->prio, x->pod, nom_sum);
    for (uint16_t k = 0; k < pre->req.n; k++) used[k] += nom_sum[pre->req.e[k].res];
    for (uint32_t i = 0; i < w->n_potential; i++) {
        const kp_pod *v = &cl->pods[w->potential[i]];
        n_used--;
        for (uint16_t k = 0; k < pre->req.n; k++)
            used[k] -= kp__resv_get(&v->req, pre->req.e[k].res);
    }
    if (!fits_arith(x, nd, used, n_used)) /* exact status text from the real filter */
        return select_incremental(x, node, w, out, err);
    kp__status_reset(&out->st);
    kp__preempt_sort(x, w->potential, w->n_potential);
    kp__preempt_classify_pdb(x, w->potential, w->n_potential, w->viol, &w->n_viol, w->nonviol,
                             &w->n_nonviol);
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *list = pass == 0 ? w->viol : w->nonviol;
        uint32_t n = pass == 0 ? w->n_viol : w->n_nonviol;
        for (uint32_t i = 0; i < n; i++) {
            const kp_pod *v = &cl->pods[list[i]];
            int64_t v_req[KP_MAX_RES];
            for (uint16_t k = 0; k < pre->req.n; k++) {
                v_req[k] = kp__resv_get(&v->req, pre->req.e[k].res);
                used[k] += v_req[k];
            }
            if (fits_arith(x, nd, used, n_used + 1)) {
                n_used++;
                continue;
            }
            for (uint16_t k = 0; k < pre->req.n; k++) used[k] -= v_req[k];
            w->victims[w->n_victims++] = list[i];
            if (pass == 0) w->n_viol_victims++;
        }
    }
    finish_victims(x, w, w->n_viol > 0 && w->n_nonviol > 0);
    return KP_OK;
}

/* mirrors DefaultPreemption.SelectVictimsOnNode on the reference / incremental / arithmetic
 * paths (the cached arithmetic path and the entry point, kp__preempt_select_victims, are in
 * cache.c): out reset and w's slices set by the caller. */
kp_status kp__preempt_select_generic(kp_pctx *x, uint32_t node, const kp_node_status *filter_st,
                                     kp_pwork *w, kp_pvict *out, kp_error *err) {
    kp_cluster *cl = x->cl;
    kp_node *nd = &cl->nodes[node];
    w->n_saved = nd->n_pods;
    if (nd->n_pods) memcpy(w->saved, nd->pods, nd->n_pods * sizeof *nd->pods);
    for (uint32_t i = 0; i < nd->n_pods; i++)
        if (cl->pods[nd->pods[i]].priority < x->prio) w->potential[w->n_potential++] = nd->pods[i];
    if (w->n_potential == 0) {
        kp__preempt_no_victims(out);
        return KP_OK;
    }
    kp_status rc;
    if (x->o->reference) rc = select_reference(x, node, w, out, err);
    else if (x->fast && kp__preempt_failed_in_fit(x, node, filter_st) &&
             kp__volume_filters_steady(x->c, node) && kp__dra_filter_steady(x->c, node))
        rc = select_arith(x, node, w, out, err);
    else rc = select_incremental(x, node, w, out, err);
    if (rc != KP_OK || out->st.code != KP_CODE_SUCCESS) return rc;
    out->n_viol = w->n_viol_victims;
    out->n_victims = w->n_victims;
    if (w->n_victims) {
        out->victims = kp__malloc(w->n_victims * sizeof *out->victims);
        if (!out->victims) return kp_error_set(err, KP_ENOMEM, "preemption: out of memory");
        memcpy(out->victims, w->victims, w->n_victims * sizeof *out->victims);
    }
    return KP_OK;
}
