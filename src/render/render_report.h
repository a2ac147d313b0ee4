/* Rendering of a simulation's metrics and its HTML report (`kprio simulate --metrics FILE`,
 * `--report FILE.html`, `--compare ... --report`; docs/simulate.md "Metrics", "HTML report").
 * Built on the public API only; the caller opens and closes the FILE.
 *
 * Typical use:
 *     kp_sim_run(sim, &err);
 *     kp_render_metrics_prometheus(f, sim);            // Prometheus text format 0.0.4
 *     kp_insight *in;
 *     kp_insight_new(sim, NULL, &in, &err);
 *     kp_report_findings fs = kp_report_findings_of(in);
 *     kp_render_report_html(html, sim, &fs);           // one self-contained HTML file */
#ifndef KP_RENDER_RENDER_REPORT_H
#define KP_RENDER_RENDER_REPORT_H

#include <stdio.h>

#include "kprio/common.h"
#include "kprio/insight.h"
#include "kprio/metrics.h"
#include "kprio/sim.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The final values of kp_metrics_new(sim) in the Prometheus text exposition format 0.0.4 (# HELP
 * and # TYPE lines; histograms as _bucket{le=...}, _sum, _count). KP_ENOMEM (nothing
 * written). */
kp_status kp_render_metrics_prometheus(FILE *f, const kp_sim *sim);

/* The time series as the "series" key of a SimulationResult document being written in e:
 * {stepMs, timesMs: [...], metrics: [{name, labels: {...}, values: [...]}]}. KP_ENOMEM (the
 * emitter is marked failed). */
kp_status kp_render_metrics_series(kp_emit *e, const kp_sim *sim);

/* The findings a report shows: what kp_insight_finding_get gives, or any array (tests). */
typedef struct {
    const kp_finding *const *items;
    size_t n;
} kp_report_findings;

/* The findings of an insight (items allocated with kp_malloc: free with
 * kp_report_findings_free). n = 0 on out of memory or in == NULL. */
kp_report_findings kp_report_findings_of(const kp_insight *in);
void kp_report_findings_free(kp_report_findings *fs);

/* One self-contained HTML page: a headline summary, the findings, inline SVG charts (pending
 * pods by priority, preemptions and evictions over time, node x time pressure heat map, cascade
 * trees), the event log with a filter. Every text escaped. fs NULL = no findings. KP_ENOMEM. */
kp_status kp_render_report_html(FILE *f, const kp_sim *sim, const kp_report_findings *fs);

/* One run of a what-if comparison: its simulation (node names), a title (e.g. its file name), its
 * findings (NULL = none), indexed as kp_compare.only_a / only_b. */
typedef struct {
    const kp_sim *sim;
    const char *title;
    const kp_report_findings *findings;
} kp_report_run;

/* The what-if comparison (kp_insight_compare_get) as a two-column HTML page, run a beside run
 * b: counters, pending-time percentiles, the pods that ended differently, the findings of one
 * run only. Self-contained like kp_render_report_html. KP_ENOMEM. */
kp_status kp_render_compare_html(FILE *f, const kp_compare *c, const kp_report_run *a,
                                 const kp_report_run *b);

#ifdef __cplusplus
}
#endif
#endif
