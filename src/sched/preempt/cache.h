/* The arithmetic path's per-node cache (cache.c), kept per scheduler across attempts. */
#ifndef KP_SCHED_PREEMPT_CACHE_H
#define KP_SCHED_PREEMPT_CACHE_H

#include "sched/preempt/victims.h"

/* Prepares x->cache for this attempt (drops it when now_key / compat changed). */
void kp__preempt_cache_begin(kp_pctx *x);
/* Cache-prefetch hint for a node the dry run visits soon (far: header only). No effect on
 * results. */
void kp__preempt_prefetch(const kp_pctx *x, uint32_t node, bool far);
/* SelectVictimsOnNode from the node's cache entry; false when the entry cannot answer (the
 * caller takes another path), else *rc is the result. */
bool kp__preempt_select_cached(kp_pctx *x, uint32_t node, kp_pwork *w, kp_pvict *out, kp_status *rc,
                               kp_error *err);

#endif
