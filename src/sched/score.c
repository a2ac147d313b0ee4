/* The Score extension point over the plugin table: each enabled score plugin's raw ->
 * normalised, unweighted scores per feasible node (the plugin part of prioritizeNodes; the
 * weighting and the sum are schedule_one.c's). */
#include "sched/score.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "sched/plugins/balanced_allocation.h"
#include "sched/plugins/image_locality.h"
#include "sched/plugins/inter_pod_affinity.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/pod_topology_spread.h"
#include "sched/plugins/taint_toleration.h"
#include "sched/plugins/volume_binding_match.h"

int kp__score_plugin(kp_sched *s, kp_plugin pl, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                     int64_t *out) {
    switch (pl) {
    case KP_PL_FIT: kp__fit_score(s, p, nodes, n, out); return 1;
    case KP_PL_BALANCED: return kp__balanced_allocation_score(s, p, nodes, n, out);
    case KP_PL_TAINT_TOLERATION: kp__taint_toleration_score(s, p, nodes, n, out); return 1;
    case KP_PL_NODE_AFFINITY: return kp__node_affinity_score(s, p, nodes, n, out);
    case KP_PL_IMAGE_LOCALITY: return kp__image_locality_score(s, p, nodes, n, out);
    case KP_PL_INTERPOD: return kp__ipa_score(s, p, nodes, n, out);
    case KP_PL_SPREAD: return kp__spread_score(s, p, nodes, n, out);
    case KP_PL_VOLUME_BINDING: return kp__volume_binding_score(s, p, nodes, n, out);
    default: return 0;
    }
}
