/* kprio: reports of the kubelet engines, as the `kprio evict` and `kprio admit` commands print
 * them (tables, or JSON / YAML documents through render/emit.h). Built on the public API only.
 *
 * Typical use:
 *     kp_render_admission(stdout, KP_OUT_TABLE, cl, node, pod, o.conditions, a);  // after kp_admit
 *     kp_evict_report *r = kp_evict_report_new(stdout, KP_OUT_YAML, cl, "node-1");
 *     for each step: kp_evict_report_step(r, m, "summary-1.json", &res);   // after
 * kp_evict_manager_step kp_evict_report_finish(r); kp_evict_report_free(r); */
#ifndef KP_RENDER_RENDER_KUBELET_H
#define KP_RENDER_RENDER_KUBELET_H

#include <stdbool.h>
#include <stdio.h>

#include "kprio/admission.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one admission decision of pod `pod` on node `node` to f: a table plus the message and
 * victims (KP_OUT_TABLE), or an AdmissionResult document. conditions: the KP_NODE_COND_* bits
 * the decision used. KP_ENOMEM: nothing was written. */
kp_status kp_render_admission(FILE *f, kp_outfmt fmt, const kp_cluster *cl, kp_index node,
                              kp_index pod, unsigned conditions, const kp_admission *a);

/* An eviction report being written: one table row or one `steps` entry per synchronize step. */
typedef struct kp_evict_report kp_evict_report;

/* A report for node_name on f (node_name and cl are borrowed). NULL when out of memory. */
kp_evict_report *kp_evict_report_new(FILE *f, kp_outfmt fmt, const kp_cluster *cl,
                                     const char *node_name);
/* explain: after the table, the thresholds in force with where each came from
 * (kp_evict_threshold_info.origin) and a table of how each step joined pod stats; in JSON / YAML,
 * an `origin` per threshold and a `podStats` object per step that read pod stats. */
void kp_evict_report_set_explain(kp_evict_report *r, bool on);
/* Adds the step of summary file `summary` (its result res from manager m). The first step of a
 * document also writes the image filesystem layout and the thresholds in force. */
void kp_evict_report_step(kp_evict_report *r, const kp_evict_manager *m, const char *summary,
                          const kp_evict_result *res);
/* Ends the report and writes it: the table, or the document. KP_ENOMEM (a step or this call ran
 * out of memory): nothing was written. */
kp_status kp_evict_report_finish(kp_evict_report *r);
/* Releases r. A report not finished writes nothing (the report is built in memory and written
 * by kp_evict_report_finish only). NULL is a no-op. */
void kp_evict_report_free(kp_evict_report *r);

#ifdef __cplusplus
}
#endif

#endif
