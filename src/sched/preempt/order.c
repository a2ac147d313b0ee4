/* The victim importance order (MoreImportantVictim / MoreImportantPod) and the PDB
 * classification (filterPodsWithPDBViolation) of SelectVictimsOnNode. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/meta.h"
#include "core/pod.h"
#include "sched/preempt/order.h"
#include "sched/preempt/pdb_index.h"

/* ---------------------------------------------------------------- importance order ---- */

/* mirrors MoreImportantVictim of v1.37 (single pods: priority, then start time) and, with
 * --compat 1.35, util.MoreImportantPod (the same keys). Equal keys fall back to load order, a
 * deterministic stand-in for Go's unstable sort.Slice. The UID tie-break (kubernetes PR #140999)
 * came after v1.37.0 (its MoreImportantVictim already ranks CompositePodGroups, a 1.38 type): it
 * waits for the release that ships it. */
bool kp__preempt_more_important(const kp_pctx *x, uint32_t a, uint32_t b) {
    const kp_pod *pa = &x->cl->pods[a], *pb = &x->cl->pods[b];
    if (pa->priority != pb->priority) return pa->priority > pb->priority;
    int64_t ta = kp__preempt_start_key(x, a), tb = kp__preempt_start_key(x, b);
    if (ta != tb) return ta < tb;
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

/* One pod against the PDBs that select it, consuming budget (pdb_index.c). Newest: stop at the
 * first PDB whose budget goes negative; --compat 1.35: decrement every matching PDB. */
bool kp__preempt_pod_violates(kp_pctx *x, uint32_t pod) {
    bool viol = x->pdbix &&
                kp__pdbix_pod_violates(x->pdbix, x->cl, pod,
                                       x->o->compat == KP_PREEMPT_COMPAT_NEWEST, &x->o->pdb_checks);
    if ((int64_t)pod == (int64_t)x->o->protect_pod) viol = true; /* what-if PDB, allowed 0 */
    return viol;
}

void kp__preempt_classify_pdb(kp_pctx *x, const uint32_t *pods, uint32_t n, uint32_t *viol,
                              uint32_t *n_viol, uint32_t *nonviol, uint32_t *n_nonviol) {
    *n_viol = *n_nonviol = 0;
    if (!x->pdbix && x->o->protect_pod < 0) {
        memcpy(nonviol, pods, n * sizeof *pods);
        *n_nonviol = n;
        return;
    }
    if (x->pdbix) kp__pdbix_reset(x->pdbix);
    for (uint32_t i = 0; i < n; i++) {
        if (kp__preempt_pod_violates(x, pods[i])) viol[(*n_viol)++] = pods[i];
        else nonviol[(*n_nonviol)++] = pods[i];
    }
}
