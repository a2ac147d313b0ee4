/* Score helpers shared by plugins (pkg/scheduler/framework/plugins/helper). */

#include "sched/plugins/helper.h"

/* mirrors helper.DefaultNormalizeScore */
void kp__default_normalize_score(int64_t *sc, uint32_t n, bool reverse) {
    int64_t mx = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sc[i] > mx) mx = sc[i];
    if (mx == 0) {
        if (reverse)
            for (uint32_t i = 0; i < n; i++) sc[i] = KP_MAX_NODE_SCORE;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t v = KP_MAX_NODE_SCORE * sc[i] / mx;
        sc[i] = reverse ? KP_MAX_NODE_SCORE - v : v;
    }
}
