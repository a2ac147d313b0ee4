/* NodeName (pkg/scheduler/framework/plugins/nodename). */

#include "sched/plugins/node_name.h"
#include "core/cluster.h"
#include "core/pod.h"

void kp__filter_node_name(const kp_cycle *c, uint32_t node, kp_node_status *st) {
    const kp_pod *p = c->p;
    if (!p->node_name || p->node_name == c->s->cl->nodes[node].name) return;
    st->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(st, "node(s) didn't match the requested node name");
}
