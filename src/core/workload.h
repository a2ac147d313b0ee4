/* Workload objects (internal), kept only for PodTopologySpread's default selector
 * (helper.DefaultSelector): namespace, name and the selector, nothing else. */
#ifndef KP_CORE_WORKLOAD_H
#define KP_CORE_WORKLOAD_H

#include <stdbool.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/selector.h"

typedef enum { KP_WL_SERVICE = 0, KP_WL_RC, KP_WL_RS, KP_WL_STS, KP_WL_KINDS } kp_workload_kind;
typedef struct {
    kp_str ns, name;
    kp_workload_kind kind;
    bool has_map; /* Service / ReplicationController: spec.selector present (not nil) */
    kp_labels map; /* Service / ReplicationController: spec.selector (map) */
    kp_label_selector sel; /* ReplicaSet / StatefulSet: spec.selector (LabelSelector) */
} kp_workload;

#endif
