/* VolumeRestrictions plugin. */
#ifndef KP_SCHED_PLUGINS_VOLUME_RESTRICTIONS_H
#define KP_SCHED_PLUGINS_VOLUME_RESTRICTIONS_H

#include <stdbool.h>

#include "core/node.h"
#include "core/pod.h"
#include "sched/framework.h"

/* mirrors VolumeRestrictions.PreFilter: fills c->rwop / c->rwop_refs; rejects the pod in *pre
 * (a claim missing); *skip when the Filter has nothing to check. KP_ENOMEM when out of memory. */
kp_status kp__volume_restrictions_prefilter(kp_cycle *c, kp_node_status *pre, bool *skip);
/* mirrors VolumeRestrictions.AddPod (sign 1) / RemovePod (sign -1) */
void kp__volume_restrictions_update(kp_cycle *c, const kp_pod *q, int sign);
/* mirrors VolumeRestrictions.Filter */
void kp__filter_volume_restrictions(const kp_cycle *c, const kp_node *n, kp_node_status *st);

#endif
