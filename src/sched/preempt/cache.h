/* The arithmetic path's per-node cache (cache.c), kept per scheduler across attempts. */
#ifndef KP_SCHED_PREEMPT_CACHE_H
#define KP_SCHED_PREEMPT_CACHE_H

#include "sched/preempt/victims.h"

/* Prepares x->cache for this attempt (drops it when now_key / compat changed). */
void kp__preempt_cache_begin(kp_pctx *x);
/* Sets x->pdbix: the scheduler's PDB index (built on first use, kept with the cache), or one
 * owned by the attempt when there is no scheduler; NULL without PDBs. KP_ENOMEM. */
kp_status kp__preempt_pdbix_begin(kp_pctx *x);
/* Cache-prefetch hint for a node the dry run visits soon (far: header only). No effect on
 * results. */
void kp__preempt_prefetch(const kp_pctx *x, uint32_t node, bool far);
/* mirrors SelectVictimsOnNode. Leaves the node exactly as found (pods, order, aggregates, cycle
 * state). Chooses the cached arithmetic path (here, inlined: the dry run's hot path) or the
 * reference / incremental / arithmetic path (victims.c) from x. */
kp_status kp__preempt_select_victims(kp_pctx *x, uint32_t node, const kp_node_status *filter_st,
                                     kp_pvict *out, kp_error *err);

#endif
