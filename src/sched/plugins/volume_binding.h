/* VolumeBinding plugin (its Filter side; binding itself is the simulator's). */
#ifndef KP_SCHED_PLUGINS_VOLUME_BINDING_H
#define KP_SCHED_PLUGINS_VOLUME_BINDING_H

#include "core/node.h"
#include "sched/framework.h"

/* mirrors VolumeBinding.PreFilter: fills c->vb_*; rejects the pod in *pre; c->n_vb_bound and
 * c->n_vb_unbound both 0 means Skip. KP_ENOMEM when out of memory. */
kp_status kp__volume_binding_prefilter(kp_cycle *c, kp_node_status *pre);
/* mirrors VolumeBinding.Filter */
void kp__filter_volume_binding(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* frees c->vb (plugins/volume_binding_match.c) */
void kp__volume_binding_fini(kp_cycle *c);

#endif
