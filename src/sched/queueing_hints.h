/* Queueing hints (queueing_hints.c): the public calls are in include/kprio/sched.h; the attempt
 * records the rejecting plugins through kp__sched_rejectors_of. */
#ifndef KP_SCHED_QUEUEING_HINTS_H
#define KP_SCHED_QUEUEING_HINTS_H

#include <stdint.h>

#include "sched/framework.h"

/* The plugins of the statuses the attempt recorded in s->statuses (Diagnosis.UnschedulablePlugins:
 * every rejected node's failing plugin, a PreFilter rejection's), one bit per kp_plugin. */
uint32_t kp__sched_rejectors_of(const kp_sched *s);

#endif
