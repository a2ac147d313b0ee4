/* The victim importance order (MoreImportantVictim / MoreImportantPod) and the PDB
 * classification (filterPodsWithPDBViolation) of SelectVictimsOnNode. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/meta.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/preempt/order.h"

/* ---------------------------------------------------------------- importance order ---- */

/* mirrors MoreImportantVictim (single pods: priority, start time, UID) and, with --compat 1.35,
 * util.MoreImportantPod (priority, start time; equal keys -> load order, a deterministic stand-in
 * for Go's unstable sort). */
bool kp__preempt_more_important(const kp_pctx *x, uint32_t a, uint32_t b) {
    const kp_pod *pa = &x->cl->pods[a], *pb = &x->cl->pods[b];
    if (pa->priority != pb->priority) return pa->priority > pb->priority;
    int64_t ta = kp__preempt_start_key(x, a), tb = kp__preempt_start_key(x, b);
    if (ta != tb) return ta < tb;
    if (x->o->compat == KP_PREEMPT_COMPAT_NEWEST && pa->uid != pb->uid) {
        int c = strcmp(kp__s(x->cl, pa->uid), kp__s(x->cl, pb->uid));
        if (c != 0) return c < 0;
    }
    return pa->src_index < pb->src_index;
}

static void merge_sort(const kp_pctx *x, uint32_t *a, uint32_t *tmp, uint32_t n) {
    if (n <= 12) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = a[i], j = i;
            while (j > 0 && kp__preempt_more_important(x, v, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint32_t h = n / 2;
    merge_sort(x, a, tmp, h);
    merge_sort(x, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = kp__preempt_more_important(x, a[j], a[i]) ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void kp__preempt_sort(const kp_pctx *x, uint32_t *pods, uint32_t n) {
    if (n <= 12) {
        merge_sort(x, pods, NULL, n);
        return;
    }
    uint32_t *tmp = kp__malloc(n * sizeof *tmp);
    if (!tmp) { /* fall back to insertion sort: same order, slower */
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = pods[i], j = i;
            while (j > 0 && kp__preempt_more_important(x, v, pods[j - 1])) {
                pods[j] = pods[j - 1];
                j--;
            }
            pods[j] = v;
        }
        return;
    }
    merge_sort(x, pods, tmp, n);
    kp__free(tmp);
}

/* ---------------------------------------------------------------- PDB classification ---- */

static bool in_disrupted(const kp_pdb *pdb, kp_str name) {
    for (uint32_t i = 0; i < pdb->n_disrupted; i++)
        if (pdb->disrupted[i] == name) return true;
    return false;
}

/* One pod against every PDB, consuming budget (x->pdb_allowed). Newest: stop at the first PDB
 * whose budget goes negative; --compat 1.35: decrement every matching PDB. */
bool kp__preempt_pod_violates(kp_pctx *x, uint32_t pod) {
    const kp_cluster *cl = x->cl;
    const kp_pod *p = &cl->pods[pod];
    bool viol = false;
    if (p->labels.n > 0) { /* a pod without labels never matches a PDB */
        for (uint32_t k = 0; k < cl->n_pdbs; k++) {
            uint32_t i = x->pdb_order[k];
            const kp_pdb *pdb = &cl->pdbs[i];
            if (pdb->ns != p->ns) continue;
            const kp_label_selector *sel = &pdb->selector;
            if (!sel->is_set || (sel->match_labels.n == 0 && sel->n_exprs == 0)) continue;
            if (!kp__selector_matches(cl, sel, &p->labels)) continue;
            if (in_disrupted(pdb, p->name)) continue; /* already being evicted: no decrement */
            x->pdb_allowed[i]--;
            if (x->pdb_allowed[i] < 0) {
                viol = true;
                if (x->o->compat == KP_PREEMPT_COMPAT_NEWEST) break;
            }
        }
    }
    if ((int64_t)pod == (int64_t)x->o->protect_pod) viol = true; /* what-if PDB, allowed 0 */
    return viol;
}

void kp__preempt_classify_pdb(kp_pctx *x, const uint32_t *pods, uint32_t n, uint32_t *viol,
                              uint32_t *n_viol, uint32_t *nonviol, uint32_t *n_nonviol) {
    *n_viol = *n_nonviol = 0;
    if (x->cl->n_pdbs == 0 && x->o->protect_pod < 0) {
        memcpy(nonviol, pods, n * sizeof *pods);
        *n_nonviol = n;
        return;
    }
    for (uint32_t i = 0; i < x->cl->n_pdbs; i++)
        x->pdb_allowed[i] = x->cl->pdbs[i].has_status ? x->cl->pdbs[i].disruptions_allowed : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (kp__preempt_pod_violates(x, pods[i])) viol[(*n_viol)++] = pods[i];
        else nonviol[(*n_nonviol)++] = pods[i];
    }
}
