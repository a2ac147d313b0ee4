/* framework.Status helpers. */
#include <stdio.h>

#include "sched/status.h"

void kp__status_reset(kp_node_status *st) {
    st->code = KP_CODE_SUCCESS;
    st->plugin = NULL;
    st->n_reasons = 0;
}

void kp__status_add_reason(kp_node_status *st, const char *reason) {
    if (st->n_reasons >= KP_STATUS_MAX_REASONS) return;
    snprintf(st->reasons[st->n_reasons], sizeof st->reasons[0], "%s", reason);
    st->n_reasons++;
}
