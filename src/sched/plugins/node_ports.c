/* NodePorts (pkg/scheduler/framework/plugins/nodeports). The rule itself (which ports count,
 * when two conflict) is core/host_ports.c's, shared with the kubelet's admission. */
#include "sched/plugins/node_ports.h"
#include "core/cluster.h"
#include "core/host_ports.h"
#include "core/node.h"
#include "core/pod.h"
#include "sched/status.h"

/* mirrors NodePorts.Filter (fitsPorts against NodeInfo.UsedPorts, which holds the host ports of
 * the pods on the node and, in the nominated pass, of the nominated pods c->extra) */
void kp__filter_node_ports(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    bool conflict = false;
    for (uint32_t i = 0; i < n->n_pods && !conflict; i++)
        conflict = kp__host_ports_conflict(cl, p, &cl->pods[n->pods[i]]);
    for (uint32_t i = 0; i < c->n_extra && !conflict; i++)
        conflict = kp__host_ports_conflict(cl, p, &cl->pods[c->extra[i]]);
    if (!conflict) return;
    st->code = KP_CODE_UNSCHEDULABLE;
    kp__status_add_reason(st, "node(s) didn't have free ports for the requested pod ports");
}
