/* NodeName plugin. */
#ifndef KP_SCHED_PLUGINS_NODE_NAME_H
#define KP_SCHED_PLUGINS_NODE_NAME_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/framework.h"

/* mirrors NodeName.Filter */
void kp__filter_node_name(const kp_cycle *c, uint32_t node, kp_node_status *st);

#endif
