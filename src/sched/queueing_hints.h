/* Queueing hints (queueing_hints.c): the public calls are in include/kprio/sched.h; the attempt
 * records the rejecting plugins through kp__sched_rejectors_of. */
#ifndef KP_SCHED_QUEUEING_HINTS_H
#define KP_SCHED_QUEUEING_HINTS_H

#include <stdint.h>

#include "sched/framework.h"

/* The plugins of the statuses the attempt recorded in s->statuses (Diagnosis.UnschedulablePlugins:
 * every rejected node's failing plugin, a PreFilter rejection's), one bit per kp_plugin. */
uint32_t kp__sched_rejectors_of(const kp_sched *s);

/* Records the rejecting plugins of the pod's last attempt (0 for a failure no plugin rejected:
 * no nodes) in res and the scheduler's per-plugin counts (kp_sched_event_may_queue). */
void kp__sched_set_rejectors(kp_sched *s, kp_result_int *res, uint32_t rejectors);

#endif
