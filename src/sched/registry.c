/* The in-tree plugin registry: one entry per plugin kprio models, each extension point adapted to
 * the framework's calling convention (mirrors plugins.NewInTreeRegistry). The framework (cycle.c,
 * score.c) reads the table through kp_sched.plugins and names no plugin; only the scheduler above
 * it (sched.c) names the table: framework <- plugins <- registry, as upstream's runtime, plugins
 * and plugins/registry.go. */
#include "sched/registry.h"

#include "sched/plugins/balanced_allocation.h"
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/image_locality.h"
#include "sched/plugins/inter_pod_affinity.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/node_name.h"
#include "sched/plugins/node_ports.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/node_unschedulable.h"
#include "sched/plugins/node_volume_limits.h"
#include "sched/plugins/pod_topology_spread.h"
#include "sched/plugins/taint_toleration.h"
#include "sched/plugins/volume_binding.h"
#include "sched/plugins/volume_binding_match.h"
#include "sched/plugins/volume_restrictions.h"
#include "sched/plugins/volume_zone.h"

/* ---- adapters: each plugin's function as the framework calls it ---- */

static void filter_node_unschedulable(const kp_cycle *c, uint32_t node, const kp_node *n,
                                      kp_node_status *st) {
    (void)node;
    kp__filter_node_unschedulable(c, n, st);
}
static void filter_node_name(const kp_cycle *c, uint32_t node, const kp_node *n,
                             kp_node_status *st) {
    (void)n;
    kp__filter_node_name(c, node, st);
}
static void filter_taints(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st) {
    (void)node;
    kp__filter_taints(c, n, st);
}
static void filter_node_affinity(const kp_cycle *c, uint32_t node, const kp_node *n,
                                 kp_node_status *st) {
    (void)node;
    kp__filter_node_affinity(c, n, st);
}
static void filter_node_ports(const kp_cycle *c, uint32_t node, const kp_node *n,
                              kp_node_status *st) {
    (void)node;
    kp__filter_node_ports(c, n, st);
}
static void filter_fit(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st) {
    (void)node;
    kp__filter_fit(c, n, st);
}
static void filter_spread(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st) {
    (void)node;
    kp__spread_filter(c, n, st);
}
static void filter_ipa(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st) {
    (void)node;
    kp__ipa_filter(c, n, st);
}
static void filter_volume_zone(const kp_cycle *c, uint32_t node, const kp_node *n,
                               kp_node_status *st) {
    (void)node;
    kp__filter_volume_zone(c, n, st);
}
static void filter_volume_restrictions(const kp_cycle *c, uint32_t node, const kp_node *n,
                                       kp_node_status *st) {
    (void)node;
    kp__filter_volume_restrictions(c, n, st);
}
static void filter_volume_binding(const kp_cycle *c, uint32_t node, const kp_node *n,
                                  kp_node_status *st) {
    (void)node;
    kp__filter_volume_binding(c, n, st);
}
static void filter_node_volume_limits(const kp_cycle *c, uint32_t node, const kp_node *n,
                                      kp_node_status *st) {
    (void)node;
    kp__filter_node_volume_limits(c, n, st);
}

static void filter_dra(const kp_cycle *c, uint32_t node, const kp_node *n, kp_node_status *st) {
    (void)n;
    kp__dra_filter(c, node, st);
}

static kp_status prefilter_node_affinity(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)skip;
    return kp__prefilter_node_affinity(c, pre);
}
static kp_status prefilter_ipa(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)pre;
    (void)skip;
    return kp__ipa_prefilter(c);
}
static kp_status prefilter_spread(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)pre;
    (void)skip;
    return kp__spread_prefilter(c);
}
static kp_status prefilter_volume_zone(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)skip;
    return kp__volume_zone_prefilter(c, pre);
}
static kp_status prefilter_volume_binding(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)skip;
    return kp__volume_binding_prefilter(c, pre);
}
static kp_status prefilter_volume_restrictions(kp_cycle *c, kp_node_status *pre, bool *skip) {
    return kp__volume_restrictions_prefilter(c, pre, skip);
}
static kp_status prefilter_node_volume_limits(kp_cycle *c, kp_node_status *pre, bool *skip) {
    (void)pre;
    return kp__node_volume_limits_prefilter(c, skip);
}

static void update_ipa(kp_cycle *c, const kp_pod *q, const kp_node *n, int sign) {
    kp__ipa_update(c, q, n, sign);
}
static void update_spread(kp_cycle *c, const kp_pod *q, const kp_node *n, int sign) {
    kp__spread_update(c, q, n, sign);
}
static void update_volume_restrictions(kp_cycle *c, const kp_pod *q, const kp_node *n, int sign) {
    (void)n;
    kp__volume_restrictions_update(c, q, sign);
}

static int score_fit(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                     int64_t *out) {
    kp__fit_score(s, p, nodes, n, out);
    return 1;
}
static int score_balanced(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                          int64_t *out) {
    return kp__balanced_allocation_score(s, p, nodes, n, out);
}
static int score_taint_toleration(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                                  int64_t *out) {
    kp__taint_toleration_score(s, p, nodes, n, out);
    return 1;
}
static int score_node_affinity(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                               int64_t *out) {
    return kp__node_affinity_score(s, p, nodes, n, out);
}
static int score_image_locality(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                                int64_t *out) {
    return kp__image_locality_score(s, p, nodes, n, out);
}

/* ---- the table ---- */

const kp__plugin_ops kp__plugin_registry[KP_PL_COUNT] = {
    [KP_PL_NODE_UNSCHEDULABLE] = {.filter = filter_node_unschedulable},
    [KP_PL_NODE_NAME] = {.filter = filter_node_name},
    [KP_PL_TAINT_TOLERATION] = {.filter = filter_taints, .score = score_taint_toleration},
    [KP_PL_NODE_AFFINITY] = {.prefilter = prefilter_node_affinity,
                             .filter = filter_node_affinity,
                             .score = score_node_affinity},
    [KP_PL_NODE_PORTS] = {.filter = filter_node_ports},
    [KP_PL_FIT] = {.prepare = kp__fit_prepare, .filter = filter_fit, .score = score_fit},
    [KP_PL_BALANCED] = {.score = score_balanced},
    [KP_PL_IMAGE_LOCALITY] = {.score = score_image_locality},
    [KP_PL_SPREAD] = {.prefilter = prefilter_spread,
                      .filter = filter_spread,
                      .update = update_spread,
                      .save = kp__spread_save,
                      .restore = kp__spread_restore,
                      .score = kp__spread_score,
                      .fini = kp__spread_fini},
    [KP_PL_INTERPOD] = {.prefilter = prefilter_ipa,
                        .filter = filter_ipa,
                        .update = update_ipa,
                        .score = kp__ipa_score,
                        .fini = kp__ipa_fini},
    [KP_PL_VOLUME_ZONE] = {.prefilter = prefilter_volume_zone, .filter = filter_volume_zone},
    [KP_PL_VOLUME_RESTRICTIONS] = {.prefilter = prefilter_volume_restrictions,
                                   .filter = filter_volume_restrictions,
                                   .update = update_volume_restrictions},
    [KP_PL_VOLUME_BINDING] = {.prefilter = prefilter_volume_binding,
                              .filter = filter_volume_binding,
                              .score = kp__volume_binding_score,
                              .fini = kp__volume_binding_fini},
    [KP_PL_DYNAMIC_RESOURCES] = {.prefilter = kp__dra_prefilter,
                                 .filter = filter_dra,
                                 .note = kp__dra_note,
                                 .score = kp__dra_score,
                                 .fini = kp__dra_fini},
    [KP_PL_NODE_VOLUME_LIMITS] = {.prefilter = prefilter_node_volume_limits,
                                  .filter = filter_node_volume_limits,
                                  .note = kp__node_volume_limits_note,
                                  .fini = kp__node_volume_limits_fini},
};
