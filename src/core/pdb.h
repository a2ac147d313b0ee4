/* PodDisruptionBudget objects (internal). */
#ifndef KP_CORE_PDB_H
#define KP_CORE_PDB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/selector.h"

typedef struct {
    kp_str ns, name;
    kp_label_selector selector;
    bool has_min_available, has_max_unavailable;
    kp_str min_available, max_unavailable; /* int-or-string, as text */
    bool has_status;
    int32_t disruptions_allowed;
    int32_t current_healthy, desired_healthy, expected_pods;
    uint32_t n_disrupted;
    kp_str *disrupted; /* pod names in status.disruptedPods */
    bool deleted; /* kp_cluster_delete_pdb: selects nothing, protects nothing, not written */
    bool always_allow; /* spec.unhealthyPodEvictionPolicy AlwaysAllow (else IfHealthyBudget, the
                        * default) */
} kp_pdb;

#endif
