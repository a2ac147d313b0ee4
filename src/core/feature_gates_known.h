/* The feature gate names a v1.37 kubelet and kube-scheduler recognise (feature_gates_known.c),
 * for the gates kprio does not model: accepted, and changing nothing. */
#ifndef KP_CORE_FEATURE_GATES_KNOWN_H
#define KP_CORE_FEATURE_GATES_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    KP__GATE_UNKNOWN = -1, /* not a gate name upstream registers */
    KP__GATE_FREE, /* either value accepted */
    KP__GATE_LOCKED_OFF, /* LockToDefault at false: true is an error */
    KP__GATE_LOCKED_ON, /* LockToDefault at true: false is an error */
} kp__gate_lock;

/* Binary search of the table for name[0..len) at release line 1.line: KP__GATE_UNKNOWN also for
 * a gate that line does not have yet or any more (where known); the lock only at 1.37 (the
 * table's), KP__GATE_FREE for older lines. */
kp__gate_lock kp__gate_known(const char *name, size_t len, uint16_t line);
/* The table, in strcmp order (for the unit test that checks the order). */
size_t kp__gate_known_count(void);
const char *kp__gate_known_name(size_t i);

#endif
