/* The Score extension point over the plugin table. */
#ifndef KP_SCHED_SCORE_H
#define KP_SCHED_SCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/framework.h"

/* Plugin pl's normalised, unweighted scores for nodes[n] (out[n]): 1 scored, 0 plugin skipped
 * (PreScore Skip), KP_ENOMEM (< 0). */
int kp__score_plugin(kp_sched *s, kp_plugin pl, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                     int64_t *out);

#endif
