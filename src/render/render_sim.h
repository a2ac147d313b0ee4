/* Rendering of a simulation (`kprio simulate`, docs/simulate.md): the events as a kubectl-events
 * table and a summary, or a kprio/v1alpha1 SimulationResult document (events, per-pod
 * timelines, counters). Built on the public API only.
 *
 * Typical use:
 *     kp_sim_run(sim, &err);
 *     kp_render_simulation(stdout, sim, KP_OUT_TABLE, false); */
#ifndef KP_RENDER_RENDER_SIM_H
#define KP_RENDER_RENDER_SIM_H

#include <stdbool.h>
#include <stdio.h>

#include "kprio/common.h"
#include "kprio/insight.h"
#include "kprio/sim.h"
#include "kprio/trace.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The run so far in fmt; events_only: the event log alone (no summary, no timelines).
 * KP_ENOMEM (nothing written). */
kp_status kp_render_simulation(FILE *f, const kp_sim *sim, kp_outfmt fmt, bool events_only);
/* The same with the findings in (kp_render_simulation: with the default options; NULL: none):
 * the table's "Findings" section after the summary, the document's findings[]. */
kp_status kp_render_simulation_insight(FILE *f, const kp_sim *sim, const kp_insight *in,
                                       kp_outfmt fmt, bool events_only);
/* The findings as the table prints them ("Findings: none." when there is none; the headline, then
 * the first `limit`, 0 = all, and how many more), and as the document's array (only: the indices
 * to emit, NULL = all). */
void kp_render_findings_text(FILE *f, const kp_insight *in, size_t limit);
/* The findings' answer in one line, e.g. "1 PDB violated, 1 loop, 47 pods of 3 workloads
 * starved" ("none" without findings), into buf (cut to cap). */
const char *kp_render_findings_headline(const kp_insight *in, char *buf, size_t cap);
/* The document's "findingsSummary" object (kp_insight_totals and the headline). */
void kp_render_findings_summary_emit(kp_emit *e, const kp_insight *in);
/* The table shows the first KP_FINDINGS_TOP findings (-o wide: all). */
#define KP_FINDINGS_TOP 10
void kp_render_findings_emit(kp_emit *e, const kp_sim *sim, const kp_insight *in,
                             const size_t *only, size_t n_only);

/* `kprio simulate --compare` (docs/simulate.md "What-if comparison"): runs a and b side by side
 * (label_a / label_b name them: the scenario or configuration files) as a table or a
 * kprio/v1alpha1 SimulationComparison document. KP_ENOMEM. */
kp_status kp_render_compare(FILE *f, const kp_sim *a, const kp_insight *ia, const char *label_a,
                            const kp_sim *b, const kp_insight *ib, const char *label_b,
                            const kp_compare *c, kp_outfmt fmt);

/* `kprio simulate --trace` (docs/live.md "Replaying a trace"): the replay's agreement with the
 * recorded decisions and the first max_divergences divergences, as a table or a kprio/v1alpha1
 * TraceReplay document. KP_ENOMEM. */
kp_status kp_render_trace(FILE *f, const kp_trace *tr, const kp_trace_comparison *c, kp_outfmt fmt,
                          size_t max_divergences);

#ifdef __cplusplus
}
#endif
#endif
