/* InterPodAffinity plugin (pkg/scheduler/framework/plugins/interpodaffinity). */
#ifndef KP_SCHED_PLUGINS_INTER_POD_AFFINITY_H
#define KP_SCHED_PLUGINS_INTER_POD_AFFINITY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/selector.h"
#include "sched/framework.h"

/* The namespace's labels (NULL when the namespace is not in the input). */
const kp_labels *kp__ns_labels(const kp_sched *s, kp_str ns);
/* v1 PodAffinityTerm (owner's term) against pod: namespaces / namespaceSelector and selector. */
bool kp__term_matches(const kp_sched *s, const kp_pod_affinity_term *t, const kp_pod *owner,
                      const kp_pod *pod);
static inline bool kp__pod_has_required_anti(const kp_pod *p) {
    return p->pod_anti_affinity && p->pod_anti_affinity->n_required > 0;
}

/* PreFilter; sets c->ipa when the Filter must run. KP_ENOMEM. */
kp_status kp__ipa_prefilter(kp_cycle *c);
/* PreFilterExtensions.AddPod (mult 1) / RemovePod (mult -1) */
void kp__ipa_update(kp_cycle *c, const kp_pod *added, const kp_node *n, int64_t mult);
/* mirrors InterPodAffinity.Filter */
void kp__ipa_filter(const kp_cycle *c, const kp_node *n, kp_node_status *st);
void kp__ipa_fini(kp_cycle *c);
/* InterPodAffinity PreScore+Score+Normalize over feasible nodes: 1 scored, 0 Skip, KP_ENOMEM */
int kp__ipa_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n, int64_t *out);

#endif
