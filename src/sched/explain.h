/* What --explain records for one pod: per node, each filter's verdict and each score plugin's
 * weighted score; the node chosen; preemption's per-node verdicts. */
#ifndef KP_SCHED_EXPLAIN_H
#define KP_SCHED_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sched_config.h"
#include "sched/preempt/preempt.h"
#include "sched/status.h"

typedef struct {
    uint8_t plugin;
    kp_code code;
    size_t reason; /* offset in the record's text store (kp_explain.text) */
} kp_explain_filter;

typedef struct {
    bool evaluated; /* visited by the scheduler's filter pass */
    kp_node_status overall; /* RunFilterPluginsWithNominatedPods result */
    uint8_t n_filters;
    kp_explain_filter filters[KP_PL_COUNT];
    bool feasible, scored;
    int64_t plugin_score[KP_PL_COUNT]; /* weighted, after normalisation */
    int64_t total;
} kp_explain_node;

typedef struct kp_explain {
    uint32_t pod;
    bool attempted;
    size_t prefilter_msg; /* offset in `text`; PreFilter's joined reasons ("" if it passed) */
    size_t pre_enqueue_msg; /* offset in `text`; PreEnqueue's rejection (KP_TEXT_NONE: none) */
    int32_t selected; /* chosen node or -1 */
    bool nominated_first; /* decided on the nominated node without a full pass */
    uint32_t n_nodes;
    kp_explain_node *nodes;
    bool has_preempt;
    kp_preempt_result preempt;
    kp_textbuf text; /* the reason texts, whole (grows; reset by each attempt) */
    bool enomem; /* a text could not be stored: the attempt reports KP_ENOMEM */
} kp_explain;

typedef struct kp_sched kp_sched;
typedef struct kp_cycle kp_cycle;

/* The recorder: the scheduling attempt calls these only for the explained pod, each behind one
 * branch, so an attempt without --explain does no per-node bookkeeping and builds no text. */
/* A fresh record for this attempt. */
void kp__explain_begin(kp_explain *e, uint32_t n_nodes);
/* PreFilter's rejection, its reasons joined (FitError's PreFilterMsg). */
void kp__explain_prefilter(kp_explain *e, const kp_node_status *pre);
/* Node's overall Filter verdict and every enabled filter's own verdict on it. */
void kp__explain_filters(kp_sched *s, kp_cycle *c, uint32_t node, const kp_node_status *overall);
/* Plugin pl's weighted scores of the n_feas feasible nodes (weight 0: the plugin was skipped). */
void kp__explain_plugin_scores(kp_sched *s, kp_plugin pl, uint32_t n_feas, int64_t weight);
/* The feasible nodes' total scores. */
void kp__explain_totals(kp_sched *s, uint32_t n_feas);

#endif
