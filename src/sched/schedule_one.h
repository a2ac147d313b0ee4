/* One scheduling attempt (mirrors schedulingCycle / ScheduleOne). */
#ifndef KP_SCHED_SCHEDULE_ONE_H
#define KP_SCHED_SCHEDULE_ONE_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/framework.h"

/* One scheduling attempt of pod; *changed: bound or caused victims. */
kp_status kp__sched_attempt(kp_sched *s, uint32_t pod, bool *changed, kp_error *err);
/* The result of a pod PreEnqueue kept out of the queue: outcome GATED with the pod's
 * SchedulingGated condition message (SchedulingGates), or DynamicResources' PreEnqueue message
 * (a claim not there yet; its rejector DynamicResources, whose hints move the pod); the pod is
 * not attempted. KP_ENOMEM. */
kp_status kp__sched_record_gated(kp_sched *s, uint32_t pod);
/* mirrors numFeasibleNodesToFind */
uint32_t kp__num_feasible_to_find(int32_t pct, uint32_t n_all);
/* mirrors selectHost (reservoir sampling among the max total score) */
uint32_t kp__select_host(kp_sched *s, const uint32_t *nodes, const int64_t *totals, uint32_t n);
/* FitError message ("0/N nodes are available: ...") from the per-node statuses. KP_ENOMEM. */
kp_status kp__fit_error_message(const kp_sched *s, const kp_node_status *prefilter, char **out);

#endif
