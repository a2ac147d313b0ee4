/* framework.Status of one node for one pod: a code, the failing plugin and upstream's reason
 * strings. */
#ifndef KP_SCHED_STATUS_H
#define KP_SCHED_STATUS_H

#include <stdint.h>

typedef enum {
    KP_CODE_SUCCESS = 0,
    KP_CODE_UNSCHEDULABLE = 1,
    KP_CODE_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KP_CODE_ERROR = 3
} kp_code;

#define KP_STATUS_MAX_REASONS 6
/* framework.Status of one node for one pod. Reasons are upstream's strings. */
typedef struct {
    kp_code code;
    const char *plugin; /* failing plugin name (static string), NULL on success */
    uint8_t n_reasons;
    char reasons[KP_STATUS_MAX_REASONS][112];
} kp_node_status;

void kp__status_reset(kp_node_status *st);
void kp__status_add_reason(kp_node_status *st, const char *reason);

#endif
