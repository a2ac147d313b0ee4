/* PodTopologySpread default constraints and helper.DefaultSelector. */
#ifndef KP_SCHED_PLUGINS_POD_TOPOLOGY_SPREAD_DEFAULT_H
#define KP_SCHED_PLUGINS_POD_TOPOLOGY_SPREAD_DEFAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"
#include "core/selector.h"
#include "sched/framework.h"

kp_status kp__spread_defaults_init(kp_sched *s);
void kp__spread_defaults_free(kp_sched *s);
/* The active profile's defaults after pods were added to the cluster (kp_sched_sync without a
 * rebuild; workloads unchanged): the per-pod selector cache grows from old_n pods to the
 * cluster's, and the ids of the names init looks up are looked up again (a new pod may have
 * brought one of them), as init would find them now. KP_ENOMEM. */
kp_status kp__spread_defaults_grow(kp_sched *s, uint32_t old_n);
/* The default constraints (*out, returns their count; selectors unset: the pod's DefaultSelector
 * applies; only maxSkew, topologyKey and whenUnsatisfiable are set). */
uint8_t kp__spread_defaults_get(const kp_sched *s, const kp_spread **out);
/* defaultingType System (PreScore's requireAllTopologies is then false for pods without
 * constraints) */
bool kp__spread_defaults_system(const kp_sched *s);
/* helper.DefaultSelector for pod, cached; *out NULL when it is empty (no default constraint
 * applies, as buildDefaultConstraints decides). KP_ENOMEM on allocation failure. */
kp_status kp__default_selector(kp_sched *s, uint32_t pod, const kp_label_selector **out);

#endif
