/* The in-place resize fields of a Pod's status (internal): container statuses' resources and
 * allocatedResources, the pod-level status resources and the PodResizePending condition. */
#ifndef KP_IO_DECODE_POD_RESIZE_H
#define KP_IO_DECODE_POD_RESIZE_H

#include "core/cluster.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/tree.h"

/* Reads them from status into p->resize (left NULL when the status has none); the pod's
 * containers must be decoded already. */
kp_status kp__decode_pod_resize(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p);

#endif
