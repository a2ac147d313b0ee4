/* The Score extension point over the plugin table: each enabled score plugin's raw ->
 * normalised, unweighted scores per feasible node (the plugin part of prioritizeNodes; the
 * weighting and the sum are schedule_one.c's). */
#include "sched/score.h"
#include "core/pod.h"
#include "core/sched_config.h"

int kp__score_plugin(kp_sched *s, kp_plugin pl, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                     int64_t *out) {
    const kp__plugin_ops *ops = &s->plugins[pl];
    return ops->score ? ops->score(s, p, nodes, n, out) : 0;
}
