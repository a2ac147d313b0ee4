/* Rendering of a simulation (`kprio simulate`, docs/simulate.md): the events as a kubectl-events
 * table and a summary, or a kprio/v1alpha1 SimulationResult document (events, per-pod
 * timelines, counters). Built on the public API only.
 *
 * Typical use:
 *     kp_sim_run(sim, &err);
 *     kp_render_simulation(stdout, sim, KP_OUT_TABLE, false); */
#ifndef KPRIO_RENDER_SIM_H
#define KPRIO_RENDER_SIM_H

#include <stdbool.h>
#include <stdio.h>

#include "kprio/common.h"
#include "kprio/emit.h"
#include "kprio/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The run so far in fmt; events_only: the event log alone (no summary, no timelines).
 * KP_ENOMEM (nothing written). */
kp_status kp_render_simulation(FILE *f, const kp_sim *sim, kp_outfmt fmt, bool events_only);

#ifdef __cplusplus
}
#endif
#endif
