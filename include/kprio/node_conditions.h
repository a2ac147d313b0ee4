/* kprio: node-pressure conditions (v1.NodeConditionType MemoryPressure, DiskPressure,
 * PIDPressure) as bits. The eviction manager reports them (kp_evict_result.conditions) and its
 * admit handler reads them (kp_admit_options.conditions).
 *
 * Typical use:
 *     unsigned bit;
 *     if (kp_node_condition_parse("MemoryPressure", 14, &bit)) o.conditions |= bit;
 *     if (res.conditions & KP_NODE_COND_DISK_PRESSURE)
 * puts(kp_node_condition_name(KP_NODE_COND_DISK_PRESSURE)); */
#ifndef KP_KPRIO_NODE_CONDITIONS_H
#define KP_KPRIO_NODE_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Node-pressure conditions (bitmask). */
enum {
    KP_NODE_COND_MEMORY_PRESSURE = 1u,
    KP_NODE_COND_DISK_PRESSURE = 2u,
    KP_NODE_COND_PID_PRESSURE = 4u
};
#define KP_NODE_COND_COUNT 3

/* The condition type of one bit ("MemoryPressure", "DiskPressure", "PIDPressure"); "" for
 * anything else. */
const char *kp_node_condition_name(unsigned bit);
/* The bit of a condition type name[0..len) (exact spelling); false when it is none of them. */
bool kp_node_condition_parse(const char *name, size_t len, unsigned *bit);

#ifdef __cplusplus
}
#endif

#endif
