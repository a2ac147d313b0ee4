/* Host ports: see host_ports.h. */
#include "core/host_ports.h"
#include "core/cluster.h"
#include "core/pod.h"

bool kp__host_port_conflicts(const kp_cluster *cl, const kp_port *want, const kp_port *used) {
    if (want->host_port <= 0 || want->host_port != used->host_port) return false;
    if (want->protocol != used->protocol) return false;
    return want->host_ip == cl->s_any_ip || used->host_ip == cl->s_any_ip ||
           used->host_ip == want->host_ip;
}

bool kp__pod_has_host_ports(const kp_pod *p) {
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *ct = &p->containers[i];
        if (kp__host_ports_counted(ct) && ct->n_ports) return true;
    }
    return false;
}

/* One wanted port against every host port of `used`. */
static bool port_conflicts_with_pod(const kp_cluster *cl, const kp_port *want, const kp_pod *used) {
    for (uint32_t i = 0; i < (uint32_t)used->n_containers + used->n_init; i++) {
        const kp_container *ct = &used->containers[i];
        if (!kp__host_ports_counted(ct)) continue;
        for (uint16_t j = 0; j < ct->n_ports; j++)
            if (kp__host_port_conflicts(cl, want, &ct->ports[j])) return true;
    }
    return false;
}

bool kp__host_ports_conflict(const kp_cluster *cl, const kp_pod *want, const kp_pod *used) {
    for (uint32_t i = 0; i < (uint32_t)want->n_containers + want->n_init; i++) {
        const kp_container *ct = &want->containers[i];
        if (!kp__host_ports_counted(ct)) continue;
        for (uint16_t j = 0; j < ct->n_ports; j++)
            if (port_conflicts_with_pod(cl, &ct->ports[j], used)) return true;
    }
    return false;
}
