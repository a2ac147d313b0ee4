/* Why the eviction manager evicted the pod it evicted and not another (`kprio why` for
 * evictions): the comparator that decided against every other pod, and what would have spared
 * it. Every answer reads the engine's own comparator (kp_evict_rank_compare, the one the
 * manager sorts with, evict_rank.c): the bounds are found by bisection on it, so they are exact
 * for the rule as the engine applies it, never a second copy of the ranking.
 *
 * Upstream: pkg/kubelet/eviction/helpers.go (rankMemoryPressure, rankDiskPressureFunc,
 * rankPIDPressure, exceedMemoryRequests, exceedDiskRequests, priority, memory, disk, process)
 * and eviction_manager.go (synchronize evicts the first pod of the ranking that evictPod does
 * not refuse: critical pods are refused). */
#include <string.h>

#include "kprio/eviction.h"

#define CRITICAL_PRIORITY \
    2000000000 /* scheduling.SystemCriticalPriority: kubetypes.IsCriticalPod */

/* e with one field changed ranks after the runner-up r: the engine would evict r instead */
static bool spared(kp_evict_rank_kind kind, const kp_evict_rank_entry *e,
                   const kp_evict_rank_entry *r) {
    return kp_evict_rank_compare(kind, e, r, NULL) > 0;
}

/* The smallest request in (e->request, INT64_MAX] that spares e; false when none does. The key
 * grows with the request (exceeds -> within, usage - request smaller). */
static bool min_request(kp_evict_rank_kind kind, const kp_evict_rank_entry *e,
                        const kp_evict_rank_entry *r, int64_t *out) {
    kp_evict_rank_entry x = *e;
    x.request = INT64_MAX;
    if (!spared(kind, &x, r)) return false;
    int64_t lo = e->request, hi = INT64_MAX; /* lo not spared, hi spared */
    while (hi - lo > 1) {
        x.request = lo + (hi - lo) / 2;
        if (spared(kind, &x, r)) hi = x.request;
        else lo = x.request;
    }
    *out = hi;
    return true;
}

/* The largest usage in [0, e->usage) that spares e; false when none does. */
static bool max_usage(kp_evict_rank_kind kind, const kp_evict_rank_entry *e,
                      const kp_evict_rank_entry *r, int64_t *out) {
    kp_evict_rank_entry x = *e;
    x.usage = 0;
    if (e->usage <= 0 || !spared(kind, &x, r)) return false;
    int64_t lo = 0, hi = e->usage; /* lo spared, hi not */
    while (hi - lo > 1) {
        x.usage = lo + (hi - lo) / 2;
        if (spared(kind, &x, r)) lo = x.usage;
        else hi = x.usage;
    }
    *out = lo;
    return true;
}

/* The smallest priority below CRITICAL_PRIORITY that spares e; false when none does. */
static bool min_priority(kp_evict_rank_kind kind, const kp_evict_rank_entry *e,
                         const kp_evict_rank_entry *r, int32_t *out) {
    kp_evict_rank_entry x = *e;
    x.priority = CRITICAL_PRIORITY - 1;
    if (e->priority >= CRITICAL_PRIORITY - 1 || !spared(kind, &x, r)) return false;
    int64_t lo = e->priority, hi = CRITICAL_PRIORITY - 1;
    while (hi - lo > 1) {
        x.priority = (int32_t)(lo + (hi - lo) / 2);
        if (spared(kind, &x, r)) hi = x.priority;
        else lo = x.priority;
    }
    *out = (int32_t)hi;
    return true;
}

kp_status kp_evict_explain(kp_evict_rank_kind kind, const kp_evict_rank_entry *ranking, size_t n,
                           size_t pos, kp_evict_rank_key *decisive, kp_evict_spare *spare,
                           kp_error *err) {
    if (pos >= n || ranking[pos].critical)
        return kp_error_set(err, KP_EINVAL, "evict: explain: not an evictable pod of the ranking");
    for (size_t i = 0; i < pos; i++)
        if (!ranking[i].critical)
            return kp_error_set(err, KP_EINVAL,
                                "evict: explain: a pod ranked before it could be evicted");
    const kp_evict_rank_entry *e = &ranking[pos];
    for (size_t i = 0; decisive && i < n; i++) {
        decisive[i] = KP_EVKEY_ORDER;
        if (i != pos) kp_evict_rank_compare(kind, e, &ranking[i], &decisive[i]);
    }
    memset(spare, 0, sizeof *spare);
    spare->position = pos;
    spare->runner_up = n;
    for (size_t i = pos + 1; i < n && spare->runner_up == n; i++)
        if (!ranking[i].critical) spare->runner_up = i;
    spare->min_priority = CRITICAL_PRIORITY;
    spare->priority_critical = true;
    if (spare->runner_up == n) return KP_OK; /* nobody else to evict: only criticality spares */
    const kp_evict_rank_entry *r = &ranking[spare->runner_up];
    if (kind != KP_EVRANK_PID) spare->by_request = min_request(kind, e, r, &spare->min_request);
    spare->by_usage = max_usage(kind, e, r, &spare->max_usage);
    if (min_priority(kind, e, r, &spare->min_priority)) spare->priority_critical = false;
    return KP_OK;
}
