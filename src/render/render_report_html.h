/* Shared by the HTML report's files (render_report*.c): escaping, times, the charts. */
#ifndef KPRIO_RENDER_REPORT_HTML_H
#define KPRIO_RENDER_REPORT_HTML_H

#include <stdio.h>

#include "kprio/metrics.h"
#include "kprio/sim.h"
#include "render/render_report.h"

/* text escaped for HTML element content and attribute values (& < > " ') */
void kp__html_esc(FILE *f, const char *s);
/* virtual time as a Go duration ("1m30s") */
void kp__html_vtime(int64_t ms, char *buf, size_t cap);
/* the page's head (inline style, no external resource) up to <body>, and its end (the inline
 * script that wires the filters and marks the page built: data-report-ready) */
void kp__html_head(FILE *f, const char *title);
void kp__html_tail(FILE *f);
/* the charts (render_report_svg.c), each an <svg id="chart-..."> */
void kp__html_chart_pending(FILE *f, const kp_metrics *m);
void kp__html_chart_disruptions(FILE *f, const kp_metrics *m);
kp_status kp__html_chart_pressure(FILE *f, const kp_sim *sim);
kp_status kp__html_chart_cascade(FILE *f, const kp_sim *sim, const kp_finding *fd, size_t k);

#endif
