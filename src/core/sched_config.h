/* KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): the parts that change decisions.
 *
 * A configuration holds every profile of the file (profile 0 is the struct itself, the others
 * are in `more`); one scheduler serves them all with one queue and one cache (sched/sched.c).
 * Plugin sets
 * are merged with the default MultiPoint set exactly as upstream's mergePlugins and the
 * framework's expandMultiPointPlugins do, so the effective per-extension-point lists (order and
 * weights) are what kube-scheduler would build. Unknown plugins, unknown fields and settings kprio
 * cannot honour are errors naming the file and the field. */
#ifndef KP_CORE_SCHED_CONFIG_H
#define KP_CORE_SCHED_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/common.h"

typedef enum {
    KP_PL_SCHEDULING_GATES = 0,
    KP_PL_PRIORITY_SORT,
    KP_PL_NODE_UNSCHEDULABLE,
    KP_PL_NODE_NAME,
    KP_PL_TAINT_TOLERATION,
    KP_PL_NODE_AFFINITY,
    KP_PL_NODE_PORTS,
    KP_PL_FIT,
    KP_PL_VOLUME_RESTRICTIONS,
    KP_PL_NODE_VOLUME_LIMITS,
    KP_PL_VOLUME_BINDING,
    KP_PL_VOLUME_ZONE,
    KP_PL_SPREAD,
    KP_PL_INTERPOD,
    KP_PL_DEFAULT_PREEMPTION,
    KP_PL_BALANCED,
    KP_PL_IMAGE_LOCALITY,
    KP_PL_DEFAULT_BINDER,
    KP_PL_DYNAMIC_RESOURCES, /* DRA: only its PostFilter is modelled (pods without claims) */
    KP_PL_COUNT
} kp_plugin;

/* Extension points (bit per point). */
enum {
    KP_EP_PREENQUEUE = 1 << 0,
    KP_EP_QUEUESORT = 1 << 1,
    KP_EP_PREFILTER = 1 << 2,
    KP_EP_FILTER = 1 << 3,
    KP_EP_POSTFILTER = 1 << 4,
    KP_EP_PRESCORE = 1 << 5,
    KP_EP_SCORE = 1 << 6,
    KP_EP_RESERVE = 1 << 7,
    KP_EP_PERMIT = 1 << 8,
    KP_EP_PREBIND = 1 << 9,
    KP_EP_BIND = 1 << 10,
    KP_EP_POSTBIND = 1 << 11
};
#define KP_N_EP 12

/* Upstream plugin name ("NodeResourcesFit"). */
const char *kp__plugin_name(kp_plugin p);

typedef enum { KP_STRAT_LEAST = 0, KP_STRAT_MOST, KP_STRAT_RTCR } kp_strategy;

#define KP_CFG_MAX_RES 16
typedef struct {
    char name[64];
    int64_t weight;
} kp_cfg_resource;

#define KP_CFG_MAX_SHAPE 16
typedef struct {
    int64_t utilization, score; /* score already scaled to 0..100 (x10) */
} kp_cfg_shape;

#define KP_CFG_MAX_DEFAULT_SPREAD 8
typedef struct {
    int32_t max_skew;
    char topology_key[128];
    bool schedule_anyway; /* whenUnsatisfiable */
} kp_cfg_spread;

typedef struct kp_sched_config {
    char source[256];
    char scheduler_name[128]; /* profile's schedulerName ("default-scheduler") */
    int32_t pct_nodes_to_score; /* 0 = adaptive */

    /* effective plugin lists per extension point, in execution order */
    uint8_t n_prefilter, n_filter, n_score, n_prescore;
    uint8_t prefilter[KP_PL_COUNT], filter[KP_PL_COUNT], prescore[KP_PL_COUNT], score[KP_PL_COUNT];
    int32_t score_weight[KP_PL_COUNT]; /* indexed by plugin */
    bool postfilter_preemption; /* DefaultPreemption enabled at PostFilter */
    bool preenqueue_gates; /* SchedulingGates enabled at PreEnqueue */
    bool postfilter_dra; /* DynamicResources enabled at PostFilter */
    bool dra_before_preemption; /* ... and it runs before DefaultPreemption (the default) */
    /* DynamicResources at PreFilter, Filter and Score: kept out of those lists (it skips every
     * pod without resource claims) and run last, where upstream's default order has it, for a
     * pod with claims (sched/plugins/dynamic_resources.c) */
    bool dra_prefilter, dra_filter, dra_score;
    /* DynamicResourcesArgs.bindingTimeout in seconds (0: upstream's default, 600 s) */
    int64_t dra_binding_timeout_s;

    /* NodeResourcesFitArgs */
    kp_strategy strategy;
    uint8_t n_fit_res;
    kp_cfg_resource fit_res[KP_CFG_MAX_RES];
    uint8_t n_shape;
    kp_cfg_shape shape[KP_CFG_MAX_SHAPE];
    uint8_t n_ignored, n_ignored_groups;
    char ignored[KP_CFG_MAX_RES][64];
    char ignored_groups[KP_CFG_MAX_RES][64];
    /* NodeResourcesBalancedAllocationArgs */
    uint8_t n_bal_res;
    kp_cfg_resource bal_res[KP_CFG_MAX_RES];
    /* DefaultPreemptionArgs */
    int32_t min_candidate_pct, min_candidate_abs;
    /* PodTopologySpreadArgs */
    bool spread_system_defaulting; /* defaultingType System (default) vs List */
    uint8_t n_default_spread;
    kp_cfg_spread default_spread[KP_CFG_MAX_DEFAULT_SPREAD];
    /* InterPodAffinityArgs */
    int32_t hard_pod_affinity_weight;
    bool ignore_preferred_terms_of_existing_pods;

    /* profiles[1..] of a loaded configuration, in file order (each with more == NULL); NULL in
     * a single-profile configuration and in every copy a scheduler keeps. Owned by the loaded
     * configuration (kp_sched_config_free). */
    struct kp_sched_config *more;
    uint32_t n_more;
} kp_sched_config;

/* Plugin sets as configured (v1.PluginSet): a configured list holds at most KP_CFG_MAX_SET
 * entries (beyond that the decoder fails naming the list); a merged list (defaults + configured)
 * at most KP_CFG_MERGED_SET, so merging never drops an entry. */
#define KP_CFG_MAX_SET 32
#define KP_CFG_MERGED_SET (2 * KP_CFG_MAX_SET + KP_PL_COUNT)
typedef struct {
    int16_t pl[KP_CFG_MERGED_SET]; /* plugin, -1 = "*" (disabled only) */
    int32_t weight[KP_CFG_MERGED_SET];
    uint8_t n;
} kp_cfg_pset;

typedef struct {
    kp_cfg_pset enabled, disabled;
} kp_cfg_pluginset;

/* Plugin by upstream name; -1 when kprio does not know it. */
int kp__plugin_by_name(const char *name);
/* Extension point e's key in the configuration ("preFilter"). */
const char *kp__ep_key(int e);
/* The effective per-extension-point lists of c from the profile's MultiPoint set and the
 * extension points' own sets (eps[KP_N_EP]): mergePlugins with the defaults, then
 * expandMultiPointPlugins. KP_EINVAL with *bad_ep and why (e.g. a double registration). */
kp_status kp__sched_config_build(kp_sched_config *c, const kp_cfg_pluginset *mp,
                                 const kp_cfg_pluginset *eps, char *why, size_t why_cap,
                                 int *bad_ep);

/* The default profile (default plugins, weights and args). */
void kp__sched_config_defaults(kp_sched_config *c);
/* Parses a KubeSchedulerConfiguration from buf into c (every profile: c is profiles[0], c->more
 * the others; scheduler_name keeps only that profile, NULL keeps all). On success the caller
 * releases c->more with kp__free; on failure nothing is left allocated. Errors: KP_EINVAL /
 * KP_ESYNTAX with "FILE: KubeSchedulerConfiguration: FIELD: what" messages. */
kp_status kp__sched_config_parse(kp_sched_config *c, const char *source, const char *buf,
                                 size_t len, const char *scheduler_name, kp_error *err);

#endif
