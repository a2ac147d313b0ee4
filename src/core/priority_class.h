/* PriorityClass objects (internal). */
#ifndef KP_CORE_PRIORITY_CLASS_H
#define KP_CORE_PRIORITY_CLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/meta.h"

typedef enum { KP_PREEMPT_LOWER = 0, KP_PREEMPT_NEVER } kp_preempt_policy;

typedef struct {
    kp_str name;
    int32_t value;
    bool global_default;
    kp_preempt_policy preemption_policy;
    bool has_preemption_policy;
    kp_str description;
    bool builtin;
    bool deleted; /* kp_cluster_delete_priority_class: not found by name, never the default */
    kp_origin origin; /* file and object it was read from (NULL, NULL: built in, never read) */
} kp_priority_class;

#endif
