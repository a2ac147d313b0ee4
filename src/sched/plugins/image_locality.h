/* ImageLocality plugin. */
#ifndef KP_SCHED_PLUGINS_IMAGE_LOCALITY_H
#define KP_SCHED_PLUGINS_IMAGE_LOCALITY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pod.h"
#include "sched/framework.h"

/* Score over nodes[n]: 1 scored, KP_ENOMEM */
int kp__image_locality_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out);

#endif
