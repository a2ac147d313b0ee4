/* framework.Status of one node for one pod: a code, the failing plugin and upstream's reason
 * strings. */
#ifndef KP_SCHED_STATUS_H
#define KP_SCHED_STATUS_H

#include <stdint.h>

#include "core/resources.h"

typedef enum {
    KP_CODE_SUCCESS = 0,
    KP_CODE_UNSCHEDULABLE = 1,
    KP_CODE_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KP_CODE_ERROR = 3
} kp_code;

/* The most reasons a status can hold, a bound and not a cap: NodeResourcesFit gives "Too many
 * pods" plus one "Insufficient <resource>" per resource of the cluster (at most KP_MAX_RES);
 * every other plugin gives one reason. Upstream keeps every reason, so does kprio.
 * rule 8: a bound that cannot be reached, not a limit. */
#define KP_STATUS_MAX_REASONS (1 + KP_MAX_RES)
/* framework.Status of one node for one pod. Reasons are upstream's strings, borrowed: static
 * strings, or the scheduler's formatted reasons (sched/reasons.h), valid as long as it lives. */
typedef struct {
    kp_code code;
    const char *plugin; /* failing plugin name (static string), NULL on success */
    uint8_t n_reasons;
    const char *reasons[KP_STATUS_MAX_REASONS];
} kp_node_status;

void kp__status_reset(kp_node_status *st);
/* Appends reason (borrowed: it must outlive the status). Inline: filters call it per rejected
 * node. */
static inline void kp__status_add_reason(kp_node_status *st, const char *reason) {
    if (st->n_reasons >= KP_STATUS_MAX_REASONS) return; /* cannot happen: see the bound */
    st->reasons[st->n_reasons++] = reason;
}

#endif
