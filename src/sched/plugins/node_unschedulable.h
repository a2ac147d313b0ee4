/* NodeUnschedulable plugin. */
#ifndef KP_SCHED_PLUGINS_NODE_UNSCHEDULABLE_H
#define KP_SCHED_PLUGINS_NODE_UNSCHEDULABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "sched/framework.h"

/* Filter: a cordoned node rejects pods not tolerating its unschedulable taint. */
void kp__filter_node_unschedulable(const kp_cycle *c, const kp_node *n, kp_node_status *st);

#endif
