/* Shared by the HTML report's files (render_report*.c): escaping, times, the charts. */
#ifndef KPRIO_RENDER_REPORT_HTML_H
#define KPRIO_RENDER_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "kprio/metrics.h"
#include "kprio/sim.h"
#include "render/render_report.h"

/* text escaped for HTML element content and attribute values (& < > " ') */
void kp__html_esc(FILE *f, const char *s);
/* virtual time as a Go duration ("1m30s") */
void kp__html_vtime(int64_t ms, char *buf, size_t cap);
/* the page's head (inline style, no external resource) up to <body> (wide: 1400 px instead of
 * 1000, for two columns), and its end (the inline script that wires the filters and marks the
 * page built: data-report-ready) */
void kp__html_head(FILE *f, const char *title, bool wide);
void kp__html_tail(FILE *f);
/* the charts (render_report_svg.c), each an <svg id="..."> and, but the cascades, an HTML
 * legend under it (<div class="legend" id="ID-legend">). The options put two runs' charts on
 * one scale (the comparison page); 0 = the chart's own. */
typedef struct {
    int width; /* the drawing's width (900) */
    int64_t end_ms; /* the time axis: 0 .. end_ms */
    int64_t ymax;
} kp__chart_opts;
int64_t kp__html_metrics_end(const kp_metrics *m);
int64_t kp__html_pending_max(const kp_metrics *m);
int64_t kp__html_disruptions_max(const kp_metrics *m);
const char *kp__html_cause_color(kp_sim_disruption d);
/* a priority's label: the PriorityClass names of the run's pods of that priority and the value,
 * "system-cluster-critical (2000000000)" (escaped) */
void kp__html_priority_name(FILE *f, const kp_sim *sim, const char *value);
void kp__html_chart_pending(FILE *f, const kp_sim *sim, const kp_metrics *m, const char *id,
                            const kp__chart_opts *o);
void kp__html_chart_disruptions(FILE *f, const kp_metrics *m, const char *id,
                                const kp__chart_opts *o);
/* the first max_rows nodes that reported pressure get a row; the legend says how many more */
kp_status kp__html_chart_pressure(FILE *f, const kp_sim *sim, size_t max_rows);
kp_status kp__html_chart_cascade(FILE *f, const kp_sim *sim, const kp_finding *fd, size_t k);

#endif
