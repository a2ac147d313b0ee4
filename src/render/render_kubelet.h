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
/* wide (-o wide, table format): after the steps, a table of every step's ranking: for each pod
 * the rank function's keys (stats, exceeds requests, priority, usage, request, usage - request)
 * and whether it was evicted. */
void kp_evict_report_set_wide(kp_evict_report *r, bool on);
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

/* The eviction of one pod to explain (`kprio evict --why`, `kprio simulate --why`): the
 * ranking it was evicted from (the step's kp_evict_result.rank_entries, or a simulation's
 * kp_sim_eviction_ranking) and the pod's place in it. Strings are borrowed. */
typedef struct {
    const char *node; /* the node whose kubelet evicted it */
    const char *when; /* the step's time, as printed */
    const char *signal; /* the threshold's signal */
    const char *message; /* the pod status message (upstream text) */
    kp_evict_rank_kind kind;
    const kp_evict_rank_entry *ranking;
    size_t n_ranking;
    size_t position; /* the evicted pod's place */
} kp_evict_why_input;

/* Writes why the pod at in->position was evicted and not another: the ranking with its keys,
 * the comparator that decided it against each other pod and what would have spared it
 * (kp_evict_explain); a table and text, or an EvictionWhy document. Errors: those of
 * kp_evict_explain, KP_ENOMEM. */
kp_status kp_render_evict_why(FILE *f, kp_outfmt fmt, const kp_cluster *cl,
                              const kp_evict_why_input *in, kp_error *err);
/* Writes that pod was not evicted by a kubelet's ranking, and why (text). node may be NULL.
 * KP_ENOMEM. */
kp_status kp_render_evict_not_evicted(FILE *f, kp_outfmt fmt, const kp_cluster *cl, kp_index pod,
                                      const char *node, const char *why);

/* Internal to the renderers: a step's `ranking` object (JSON / YAML), and the -o wide ranking
 * table (TIME, RANK, POD, the ranking columns, OUTCOME) with one step's rows. */
void kp__render_emit_ranking(kp_emit *e, const kp_cluster *cl, const kp_evict_result *r);
kp_table *kp__render_ranking_table_new(void);
void kp__render_ranking_rows(kp_table *t, const kp_cluster *cl, const char *when,
                             const kp_evict_result *r);

#ifdef __cplusplus
}
#endif

#endif
