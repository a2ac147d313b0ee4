/* VolumeZone plugin. */
#ifndef KP_SCHED_PLUGINS_VOLUME_ZONE_H
#define KP_SCHED_PLUGINS_VOLUME_ZONE_H

#include "core/node.h"
#include "sched/framework.h"

/* mirrors VolumeZone.PreFilter: fills c->vz; rejects the pod in *pre (claims or volumes missing)
 * and returns KP_ENOMEM when out of memory. No topology: c->n_vz is 0 (Skip). */
kp_status kp__volume_zone_prefilter(kp_cycle *c, kp_node_status *pre);
/* Rejects the pod in *pre with the listers' NotFound text, `RESOURCE "NAME" not found`
 * (apierrors.NewNotFound: UnschedulableAndUnresolvable), kept in the cluster's strings so the
 * status may borrow it. KP_ENOMEM when out of memory. */
kp_status kp__volume_not_found(kp_cluster *cl, kp_node_status *pre, const char *resource,
                               kp_str name);
/* mirrors VolumeZone.Filter */
void kp__filter_volume_zone(const kp_cycle *c, const kp_node *n, kp_node_status *st);

#endif
