/* A pod's readiness as the input gives it (internal): the probes' initialDelaySeconds of each
 * container and the status's Ready condition. */
#ifndef KP_IO_DECODE_POD_READY_H
#define KP_IO_DECODE_POD_READY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/tree.h"

/* The container c's probes (readinessProbe, startupProbe) into ct (is_init, is_sidecar already
 * set): objects, initialDelaySeconds an int32 >= 0 (ValidateNonnegativeField); an init container
 * that is not a sidecar may carry neither (validateInitContainers). *delay: the startupProbe's
 * plus the readinessProbe's initialDelaySeconds, each when set (0 without probes). */
kp_status kp__decode_container_probes(kp_dctx *d, const kp_tnode *c, kp_container *ct,
                                      int64_t *delay);
/* status.conditions' Ready condition (the first of its type, as upstream reads it): status True,
 * False or Unknown, its lastTransitionTime; without one kp__pod_ready_default decides. */
kp_status kp__decode_pod_ready(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p);

#endif
