/* Rendering of the scheduler's answers (the output of `kprio schedule` and `kprio why`): tables
 * and kprio/v1alpha1 JSON / YAML documents. Built on the public API only; the library itself
 * never prints, these write to the stream they are given.
 *
 * Typical use:
 *     kp_sched_run(s, &err);
 *     kp_status st = kp_render_schedule(stdout, s, cl, KP_OUT_TABLE);   // cl: the scheduled
 * cluster
 *     ...
 *     kp_render_why(stdout, &answer, cl, "prod/web-0", KP_OUT_JSON); */
#ifndef KP_RENDER_RENDER_SCHED_H
#define KP_RENDER_RENDER_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SchedulePlan of a run (and the --explain section when one was requested) in fmt. cl is
 * the cluster s schedules. KP_ENOMEM. */
kp_status kp_render_schedule(FILE *f, const kp_sched *s, const kp_cluster *cl, kp_outfmt fmt);

/* Renders a (kprio/why.h) for pod `target` ("namespace/name"); cl is the cluster a's indices
 * refer to (pod and node names; may be NULL when the pod is not preempted). */
kp_status kp_render_why(FILE *f, const kp_why_answer *a, const kp_cluster *cl, const char *target,
                        kp_outfmt fmt);

#ifdef __cplusplus
}
#endif
#endif
