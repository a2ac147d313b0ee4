/* NodePorts (pkg/scheduler/framework/plugins/nodeports). */

#include "sched/plugins/node_ports.h"

typedef struct {
    kp_str ip, proto;
    int32_t port;
} hport;

static bool ports_conflict(const kp_cluster *cl, const hport *used, uint32_t n_used, const kp_port *want) {
    for (uint32_t i = 0; i < n_used; i++) {
        if (used[i].port != want->host_port || used[i].proto != want->protocol) continue;
        /* mirrors HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every IP */
        if (want->host_ip == cl->s_any_ip || used[i].ip == cl->s_any_ip || used[i].ip == want->host_ip)
            return true;
    }
    return false;
}

static uint32_t collect_ports(const kp_pod *p, hport *out, uint32_t n, uint32_t cap) {
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *ct = &p->containers[i];
        if (ct->is_init && !ct->is_sidecar) continue;
        for (uint16_t j = 0; j < ct->n_ports && n < cap; j++) {
            out[n].ip = ct->ports[j].host_ip;
            out[n].proto = ct->ports[j].protocol;
            out[n].port = ct->ports[j].host_port;
            n++;
        }
    }
    return n;
}

/* mirrors NodePorts.Filter (fitsPorts against NodeInfo.UsedPorts) */
void kp__filter_node_ports(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    hport used[512];
    uint32_t n_used = 0;
    for (uint32_t i = 0; i < n->n_pods; i++) n_used = collect_ports(&cl->pods[n->pods[i]], used, n_used, 512);
    for (uint32_t i = 0; i < c->n_extra; i++) n_used = collect_ports(&cl->pods[c->extra[i]], used, n_used, 512);
    const kp_pod *p = c->p;
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *ct = &p->containers[i];
        if (ct->is_init && !ct->is_sidecar) continue;
        for (uint16_t j = 0; j < ct->n_ports; j++) {
            if (ports_conflict(cl, used, n_used, &ct->ports[j])) {
                st->code = KP_CODE_UNSCHEDULABLE;
                kp__status_add_reason(st, "node(s) didn't have free ports for the requested pod ports");
                return;
            }
        }
    }
}
