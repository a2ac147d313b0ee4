/* NodeVolumeLimits plugin (pkg/scheduler/framework/plugins/nodevolumelimits, CSILimits). */
#ifndef KP_SCHED_PLUGINS_NODE_VOLUME_LIMITS_H
#define KP_SCHED_PLUGINS_NODE_VOLUME_LIMITS_H

#include <stddef.h>

#include "core/node.h"
#include "kprio/sched.h"
#include "sched/framework.h"

/* mirrors CSILimits.PreFilter: *skip unless the pod has a claim, a generic ephemeral volume or
 * an in-tree volume csi-translation-lib can translate. Otherwise fills c->nvl with the pod's own
 * CSI volumes (filterAttachableVolumes for the new pod: they do not depend on the node) and, when
 * needed, indexes the VolumeAttachments by node. KP_ENOMEM when out of memory. */
kp_status kp__node_volume_limits_prefilter(kp_cycle *c, bool *skip);
/* mirrors CSILimits.Filter; the node's pods include, in the nominated pass, c->extra */
void kp__filter_node_volume_limits(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* --explain: when the plugin rejects node n for the count, a note naming the driver, the
 * volumes in use by pods and held by VolumeAttachments (which removing pods cannot free), the
 * pod's new ones and the limit, written to buf (NUL-terminated, cut at cap); else buf is "". */
void kp__node_volume_limits_note(const kp_cycle *c, const kp_node *n, char *buf, size_t cap);
/* The counts behind a rejection for the count on node n (kp_sched_attach_slots: driver NULL when
 * the plugin does not reject the node for it); the one rule of "preemption cannot help" (the
 * VolumeAttachments' slots plus the pod's new volumes exceed the limit). */
void kp__node_volume_limits_slots(const kp_cycle *c, const kp_node *n, kp_sched_attach_slots *o);
void kp__node_volume_limits_fini(kp_cycle *c);
/* Preemption: no volume Filter's verdict for the pod on node can change when pods are removed, and
 * they all pass apart from that (so the resource arithmetic decides alone). True for a pod
 * without volumes. */
bool kp__volume_filters_steady(const kp_cycle *c, uint32_t node);

#endif
