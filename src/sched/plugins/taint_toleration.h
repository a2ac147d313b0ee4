/* TaintToleration plugin. */
#ifndef KP_SCHED_PLUGINS_TAINT_TOLERATION_H
#define KP_SCHED_PLUGINS_TAINT_TOLERATION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "sched/framework.h"

/* TaintToleration.Filter's reason on the newest line (PR #134740): the taint is not named. */
#define KP_REASON_UNTOLERATED_TAINTS "node(s) had untolerated taint(s)"
/* The first NoSchedule / NoExecute taint of n (node order) that p does not tolerate, or -1
 * (v1helper.FindMatchingUntoleratedTaint). */
int kp__first_untolerated_taint(const kp_pod *p, const kp_node *n);
/* mirrors TaintToleration.Filter */
void kp__filter_taints(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* mirrors TaintToleration.Score + NormalizeScore over nodes[n] */
void kp__taint_toleration_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes,
                                uint32_t n, int64_t *out);

#endif
