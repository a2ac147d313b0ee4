/* The decoded Summary API document: its public accessors (summary.h, include/kprio/eviction.h). */
#include "base/alloc.h"
#include "core/summary.h"

void kp_evict_summary_free(kp_evict_summary *s) { kp__free(s); }

bool kp_evict_summary_time(const kp_evict_summary *s, int64_t *unix_ns) {
    if (s->has_time) *unix_ns = s->time_ns;
    return s->has_time;
}

size_t kp_evict_summary_pod_count(const kp_evict_summary *s) { return s->n_pods; }
