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
    char reason[112];
} kp_explain_filter;

typedef struct {
    bool evaluated;         /* visited by the scheduler's filter pass */
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
    char prefilter_msg[256];
    int32_t selected;      /* chosen node or -1 */
    bool nominated_first;  /* decided on the nominated node without a full pass */
    uint32_t n_nodes;
    kp_explain_node *nodes;
    bool has_preempt;
    kp_preempt_result preempt;
} kp_explain;

#endif
