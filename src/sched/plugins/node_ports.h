/* NodePorts plugin. */
#ifndef KP_SCHED_PLUGINS_NODE_PORTS_H
#define KP_SCHED_PLUGINS_NODE_PORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "sched/framework.h"

/* mirrors NodePorts.Filter */
void kp__filter_node_ports(const kp_cycle *c, const kp_node *n, kp_node_status *st);

#endif
