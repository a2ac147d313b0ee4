/* The victim importance order and PDB classification (order.c). */
#ifndef KP_SCHED_PREEMPT_ORDER_H
#define KP_SCHED_PREEMPT_ORDER_H

#include "core/cluster.h"
#include "core/meta.h"
#include "core/pod.h"
#include "sched/preempt/victims.h"

/* The pod's start time as an ordering key (nil -> x->now_key). */
static inline int64_t kp__preempt_start_key(const kp_pctx *x, uint32_t pod) {
    int64_t t = x->cl->pods[pod].start_time;
    return t == KP_TIME_NONE ? x->now_key : t;
}
/* mirrors MoreImportantVictim (newest) / MoreImportantPod (--compat 1.35): true if a is more
 * important than b. */
bool kp__preempt_more_important(const kp_pctx *x, uint32_t a, uint32_t b);
/* Sorts pods most important first (stable insertion/merge sort on the total order). */
void kp__preempt_sort(const kp_pctx *x, uint32_t *pods, uint32_t n);
/* One pod against the PDBs that select it, consuming their budgets (x->pdbix): true when it
 * violates one (or is the what-if protected pod). */
bool kp__preempt_pod_violates(kp_pctx *x, uint32_t pod);
/* mirrors filterPodsWithPDBViolation: splits sorted pods into violating / non-violating
 * (order-preserving). Budgets start fresh from each PDB's status (kp__pdbix_reset). */
void kp__preempt_classify_pdb(kp_pctx *x, const uint32_t *pods, uint32_t n, uint32_t *viol,
                              uint32_t *n_viol, uint32_t *nonviol, uint32_t *n_nonviol);

#endif
