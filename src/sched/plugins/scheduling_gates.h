/* SchedulingGates plugin (PreEnqueue). */
#ifndef KP_SCHED_PLUGINS_SCHEDULING_GATES_H
#define KP_SCHED_PLUGINS_SCHEDULING_GATES_H

#include <stdbool.h>

#include "sched/framework.h"

/* The condition message the API server sets on a gated pod (PodScheduled=False, reason
 * SchedulingGated; applySchedulingGatedCondition in pkg/registry/core/pod/strategy.go). */
#define KP_SCHEDULING_GATED_MESSAGE "Scheduling is blocked due to non-empty scheduling gates"

/* mirrors SchedulingGates.PreEnqueue: false (UnschedulableAndUnresolvable, "waiting for scheduling
 * gates: [a b]") when the pod has a gate and the profile runs the plugin at PreEnqueue. */
bool kp__pre_enqueue_gates(const kp_sched *s, const kp_pod *p);

#endif
