/* Host ports: the single copy of the rule the scheduler's NodePorts plugin and the kubelet's
 * admission (nodeports.Fits) share.
 *
 * A pod's host ports are those of its regular containers and its sidecar init containers
 * (schedutil.GetHostPorts). Two ports conflict when port and protocol match and the addresses
 * overlap: 0.0.0.0 overlaps every address, a specific address overlaps itself and 0.0.0.0
 * (HostPortInfo.CheckConflict). Checked pairwise, without a copy and without a cap. */
#ifndef KP_CORE_HOST_PORTS_H
#define KP_CORE_HOST_PORTS_H

#include <stdbool.h>

#include "core/pod.h"

/* Container c's ports count as the pod's host ports (regular or sidecar init container). */
static inline bool kp__host_ports_counted(const kp_container *c) {
    return !c->is_init || c->is_sidecar;
}

/* mirrors HostPortInfo.CheckConflict: want conflicts with the used port. */
bool kp__host_port_conflicts(const kp_cluster *cl, const kp_port *want, const kp_port *used);

/* Pod has at least one host port (NodePorts' PreFilter Skip when false). */
bool kp__pod_has_host_ports(const kp_pod *p);

/* mirrors fitsPorts for one pod already on the node: true if a host port of `want` conflicts
 * with a host port of `used`. */
bool kp__host_ports_conflict(const kp_cluster *cl, const kp_pod *want, const kp_pod *used);

#endif
