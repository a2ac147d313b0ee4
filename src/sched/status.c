/* framework.Status helpers. */
#include "sched/status.h"

void kp__status_reset(kp_node_status *st) {
    st->code = KP_CODE_SUCCESS;
    st->plugin = NULL;
    st->n_reasons = 0;
}
