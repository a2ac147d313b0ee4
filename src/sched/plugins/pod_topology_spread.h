/* PodTopologySpread plugin (pkg/scheduler/framework/plugins/podtopologyspread). */
#ifndef KP_SCHED_PLUGINS_POD_TOPOLOGY_SPREAD_H
#define KP_SCHED_PLUGINS_POD_TOPOLOGY_SPREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "core/pod.h"
#include "sched/framework.h"

/* PreFilter: the pod's hard constraints and their counts (c->n_spread). KP_ENOMEM. */
kp_status kp__spread_prefilter(kp_cycle *c);
/* PreFilterExtensions.AddPod (delta 1) / RemovePod (delta -1) */
void kp__spread_update(kp_cycle *c, const kp_pod *added, const kp_node *n, int64_t delta);
/* mirrors PodTopologySpread.Filter */
void kp__spread_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__spread_fini(kp_cycle *c);
/* Saves / restores every constraint's criticalPaths (around the nominated pass; not nested). */
void kp__spread_save(kp_cycle *c);
void kp__spread_restore(kp_cycle *c);
/* PreScore + Score + NormalizeScore over nodes[n]: 1 scored, 0 Skip, KP_ENOMEM */
int kp__spread_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out);
/* the constraints a pod is spread by: its own, else the default ones (KP_ENOMEM on failure) */
kp_status kp__spread_constraints(kp_sched *s, const kp_pod *p, kp_when_unsat when,
                                 kp_spread_c **out, uint16_t *n_out);
/* the constraint's selector (with its matchLabelKeys requirements) matches labels l
 * (c.Selector.Matches; the queueing hint's podLabelsMatchSpreadConstraints) */
bool kp__spread_selector_matches(const kp_cluster *cl, const kp_spread_c *c, const kp_labels *l);
/* node passes nodeAffinityPolicy / nodeTaintsPolicy for the pod (MatchNodeInclusionPolicies) */
bool kp__spread_node_included(const kp_cluster *cl, const kp_pod *p, kp_inclusion_policy aff,
                              kp_inclusion_policy taint, const kp_node *n);

#endif
