/* NodeAffinity plugin. */
#ifndef KP_SCHED_PLUGINS_NODE_AFFINITY_H
#define KP_SCHED_PLUGINS_NODE_AFFINITY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "sched/framework.h"

/* mirrors NodeAffinity.Filter */
void kp__filter_node_affinity(const kp_cycle *c, const kp_node *n, kp_node_status *st);
/* NodeAffinity PreFilter: PreFilterResult from matchFields metadata.name (conflict -> status) */
kp_status kp__prefilter_node_affinity(kp_cycle *c, kp_node_status *pre);
/* PreScore + Score + NormalizeScore over nodes[n]; false = Skip */
bool kp__node_affinity_score(const kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out);

#endif
