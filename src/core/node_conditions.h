/* Node-pressure conditions (internal): the single copy of their names and order, and of reading
 * them from a node's status. The bits are public (include/kprio/node_conditions.h). */
#ifndef KP_CORE_NODE_CONDITIONS_H
#define KP_CORE_NODE_CONDITIONS_H

#include <stddef.h>

#include "core/node.h"
#include "kprio/node_conditions.h"

/* The KP_NODE_COND_* bits node n reports in status.conditions (type MemoryPressure,
 * DiskPressure or PIDPressure with status "True"). */
unsigned kp__node_pressure_conditions(const kp_cluster *cl, const kp_node *n);
/* The condition types of the bits in conds, in the fixed order MemoryPressure, DiskPressure,
 * PIDPressure, separated by sep, into buf[0..cap) (NUL-terminated, truncated to fit). Upstream
 * prints Go map order; kprio's order is one of them. */
void kp__node_conditions_format(unsigned conds, const char *sep, char *buf, size_t cap);
/* Index of a single bit (0 memory, 1 disk, 2 pid) for per-condition state. */
static inline int kp__node_condition_index(unsigned bit) {
    return bit == KP_NODE_COND_MEMORY_PRESSURE ? 0 : bit == KP_NODE_COND_DISK_PRESSURE ? 1 : 2;
}

#endif
