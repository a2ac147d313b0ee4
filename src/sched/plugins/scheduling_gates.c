/* SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates). A pod it rejects never
 * enters the active queue: the queue keeps it in unschedulablePods (gated) until its gates are
 * removed, so it is never attempted, never preempts and is never nominated by the scheduler. */

#include "sched/plugins/scheduling_gates.h"
#include "core/pod.h"

bool kp__pre_enqueue_gates(const kp_sched *s, const kp_pod *p) {
    return !(s->cfg.preenqueue_gates && p->gates);
}
