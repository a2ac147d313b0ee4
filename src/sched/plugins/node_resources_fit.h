/* NodeResourcesFit plugin. */
#ifndef KP_SCHED_PLUGINS_NODE_RESOURCES_FIT_H
#define KP_SCHED_PLUGINS_NODE_RESOURCES_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "sched/framework.h"
#include "sched/status.h"

/* NodeResourcesFit's per-pod preparation (kp__cycle_new calls it) */
void kp__fit_prepare(kp_cycle *c);
/* mirrors NodeResourcesFit.Filter (fitsRequest) */
void kp__filter_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* fitsRequest's status against explicit cpu / memory / ephemeral-storage use and pod count
 * (node_resources_fit.c); false when the pod's Filter checks another resource. */
bool kp__fit_status3(const kp_cycle *c, const kp_node *n, const int64_t *used, int64_t n_pods,
                     kp_node_status *st);
/* mirrors NodeResourcesFit.Score over nodes[n] */
void kp__fit_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                   int64_t *out);

#endif
