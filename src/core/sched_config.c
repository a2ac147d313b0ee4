/* KubeSchedulerConfiguration's defaulting and plugin-set expansion (see sched_config.h). Mirrors
 * pkg/scheduler/apis/config/v1/{default_plugins.go (getDefaultPlugins, mergePlugins),
 * defaults.go} and frameworkImpl.expandMultiPointPlugins for the effective plugin lists. */
#include <stdio.h>
#include <string.h>

#include "core/sched_config.h"

static const char *const PL_NAMES[KP_PL_COUNT] = {
    "SchedulingGates",    "PrioritySort",
    "NodeUnschedulable",  "NodeName",
    "TaintToleration",    "NodeAffinity",
    "NodePorts",          "NodeResourcesFit",
    "VolumeRestrictions", "NodeVolumeLimits",
    "VolumeBinding",      "VolumeZone",
    "PodTopologySpread",  "InterPodAffinity",
    "DefaultPreemption",  "NodeResourcesBalancedAllocation",
    "ImageLocality",      "DefaultBinder",
    "DynamicResources"};

/* extension points each plugin implements (upstream's plugin types) */
static const uint16_t PL_EPS[KP_PL_COUNT] = {
    KP_EP_PREENQUEUE, /* SchedulingGates */
    KP_EP_QUEUESORT, /* PrioritySort */
    KP_EP_FILTER, /* NodeUnschedulable */
    KP_EP_FILTER, /* NodeName */
    KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE, /* TaintToleration */
    KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE, /* NodeAffinity */
    KP_EP_PREFILTER | KP_EP_FILTER, /* NodePorts */
    KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE, /* NodeResourcesFit */
    KP_EP_PREFILTER | KP_EP_FILTER, /* VolumeRestrictions */
    KP_EP_PREFILTER | KP_EP_FILTER, /* NodeVolumeLimits */
    KP_EP_PREENQUEUE | KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE |
        KP_EP_RESERVE | KP_EP_PREBIND, /* VolumeBinding */
    KP_EP_PREFILTER | KP_EP_FILTER, /* VolumeZone */
    KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE, /* PodTopologySpread */
    KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_PRESCORE | KP_EP_SCORE, /* InterPodAffinity */
    KP_EP_PREENQUEUE | KP_EP_POSTFILTER, /* DefaultPreemption */
    KP_EP_PRESCORE | KP_EP_SCORE, /* BalancedAllocation */
    KP_EP_SCORE, /* ImageLocality */
    KP_EP_BIND, /* DefaultBinder */
    KP_EP_PREENQUEUE | KP_EP_PREFILTER | KP_EP_FILTER | KP_EP_POSTFILTER | KP_EP_SCORE |
        KP_EP_RESERVE | KP_EP_PREBIND, /* DynamicResources */
};

/* default MultiPoint set (getDefaultPlugins) with weights */
static const struct {
    kp_plugin pl;
    int32_t weight;
} DEFAULT_MP[] = {
    {KP_PL_SCHEDULING_GATES, 0},
    {KP_PL_PRIORITY_SORT, 0},
    {KP_PL_NODE_UNSCHEDULABLE, 0},
    {KP_PL_NODE_NAME, 0},
    {KP_PL_TAINT_TOLERATION, 3},
    {KP_PL_NODE_AFFINITY, 2},
    {KP_PL_NODE_PORTS, 0},
    {KP_PL_FIT, 1},
    {KP_PL_VOLUME_RESTRICTIONS, 0},
    {KP_PL_NODE_VOLUME_LIMITS, 0},
    {KP_PL_VOLUME_BINDING, 0},
    {KP_PL_VOLUME_ZONE, 0},
    {KP_PL_SPREAD, 2},
    {KP_PL_INTERPOD, 2},
    /* applyFeatureGates: DynamicResourceAllocation is on by default (GA in 1.34), so
     * DynamicResources comes right before DefaultPreemption */
    {KP_PL_DYNAMIC_RESOURCES, 0},
    {KP_PL_DEFAULT_PREEMPTION, 0},
    {KP_PL_BALANCED, 1},
    {KP_PL_IMAGE_LOCALITY, 1},
    {KP_PL_DEFAULT_BINDER, 0},
};

static const char *const EP_KEYS[KP_N_EP] = {"preEnqueue", "queueSort", "preFilter", "filter",
                                             "postFilter", "preScore",  "score",     "reserve",
                                             "permit",     "preBind",   "bind",      "postBind"};

const char *kp__plugin_name(kp_plugin p) { return (unsigned)p < KP_PL_COUNT ? PL_NAMES[p] : "?"; }

int kp__plugin_by_name(const char *n) {
    for (int i = 0; i < KP_PL_COUNT; i++)
        if (strcmp(PL_NAMES[i], n) == 0) return i;
    return -1;
}

/* ---- plugin sets ---- */


static bool pset_has(const kp_cfg_pset *s, int pl) {
    for (uint8_t i = 0; i < s->n; i++)
        if (s->pl[i] == pl) return true;
    return false;
}

static int pset_find(const kp_cfg_pset *s, int pl) {
    for (uint8_t i = 0; i < s->n; i++)
        if (s->pl[i] == pl) return i;
    return -1;
}

/* mirrors mergePluginSet */
static void merge_set(const kp_cfg_pluginset *def, const kp_cfg_pluginset *custom,
                      kp_cfg_pluginset *out) {
    memset(out, 0, sizeof *out);
    out->disabled = custom->disabled;
    for (uint8_t i = 0; i < def->disabled.n && out->disabled.n < KP_CFG_MERGED_SET; i++)
        out->disabled.pl[out->disabled.n++] = def->disabled.pl[i];
    bool replaced[KP_CFG_MERGED_SET] = {false};
    if (!pset_has(&out->disabled, -1)) {
        for (uint8_t i = 0; i < def->enabled.n; i++) {
            int pl = def->enabled.pl[i];
            if (pset_has(&out->disabled, pl)) continue;
            int ci = pset_find(&custom->enabled, pl);
            int32_t w = def->enabled.weight[i];
            if (ci >= 0) {
                w = custom->enabled.weight[ci];
                replaced[ci] = true;
            }
            out->enabled.pl[out->enabled.n] = (int16_t)pl;
            out->enabled.weight[out->enabled.n++] = w;
        }
    }
    for (uint8_t i = 0; i < custom->enabled.n && out->enabled.n < KP_CFG_MERGED_SET; i++) {
        if (replaced[i]) continue;
        out->enabled.pl[out->enabled.n] = custom->enabled.pl[i];
        out->enabled.weight[out->enabled.n++] = custom->enabled.weight[i];
    }
}

/* mirrors expandMultiPointPlugins for one extension point: override plugins, then MultiPoint
 * plugins, then the point's own plugins. Returns KP_EINVAL on double registration. */
static kp_status expand(const kp_cfg_pluginset *mp, const kp_cfg_pluginset *ep, uint16_t ep_bit,
                        uint8_t *out, uint8_t *n_out, int32_t *weights, char *why, size_t why_cap) {
    *n_out = 0;
    int16_t order[3 * KP_CFG_MERGED_SET];
    int32_t w[3 * KP_CFG_MERGED_SET];
    uint8_t n = 0;
    for (uint8_t i = 0; i < ep->enabled.n; i++) {
        int pl = ep->enabled.pl[i];
        if (!(PL_EPS[pl] & ep_bit)) {
            snprintf(why, why_cap, "plugin \"%s\" does not extend this extension point",
                     PL_NAMES[pl]);
            return KP_EINVAL;
        }
        if (pset_find(&ep->enabled, pl) != i) {
            snprintf(why, why_cap, "plugin \"%s\" is enabled twice", PL_NAMES[pl]);
            return KP_EINVAL;
        }
    }
    if (!pset_has(&ep->disabled, -1)) {
        int16_t ov[KP_CFG_MERGED_SET], mpe[KP_CFG_MERGED_SET];
        int32_t mpw[KP_CFG_MERGED_SET];
        uint8_t n_ov = 0, n_mp = 0;
        for (uint8_t i = 0; i < mp->enabled.n; i++) {
            int pl = mp->enabled.pl[i];
            if (!(PL_EPS[pl] & ep_bit)) continue;
            if (pset_has(&ep->disabled, pl)) continue;
            if (pset_has(&ep->enabled, pl)) {
                /* overridePlugins is a set: a plugin MultiPoint enables twice is overridden once */
                bool seen = false;
                for (uint8_t k = 0; k < n_ov && !seen; k++) seen = ov[k] == pl;
                if (!seen) ov[n_ov++] = (int16_t)pl;
                continue;
            }
            for (uint8_t k = 0; k < n_mp; k++)
                if (mpe[k] == pl) {
                    snprintf(why, why_cap, "plugin \"%s\" already registered", PL_NAMES[pl]);
                    return KP_EINVAL;
                }
            mpe[n_mp] = (int16_t)pl;
            mpw[n_mp++] = mp->enabled.weight[i];
        }
        for (uint8_t i = 0; i < n_ov; i++) {
            order[n] = ov[i];
            w[n++] = ep->enabled.weight[pset_find(&ep->enabled, ov[i])];
        }
        for (uint8_t i = 0; i < n_mp; i++) {
            order[n] = mpe[i];
            w[n++] = mpw[i];
        }
    }
    for (uint8_t i = 0; i < ep->enabled.n; i++) {
        bool dup = false;
        for (uint8_t k = 0; k < n && !dup; k++) dup = order[k] == ep->enabled.pl[i];
        if (dup) continue;
        order[n] = ep->enabled.pl[i];
        w[n++] = ep->enabled.weight[i];
    }
    for (uint8_t i = 0; i < n; i++) {
        out[(*n_out)++] = (uint8_t)order[i];
        if (weights) weights[order[i]] = w[i] > 0 ? w[i] : 1;
    }
    return KP_OK;
}

static void set_default_args(kp_sched_config *c) {
    c->strategy = KP_STRAT_LEAST;
    c->n_fit_res = 2;
    snprintf(c->fit_res[0].name, sizeof c->fit_res[0].name, "cpu");
    c->fit_res[0].weight = 1;
    snprintf(c->fit_res[1].name, sizeof c->fit_res[1].name, "memory");
    c->fit_res[1].weight = 1;
    c->n_bal_res = 2;
    c->bal_res[0] = c->fit_res[0];
    c->bal_res[1] = c->fit_res[1];
    c->min_candidate_pct = 10;
    c->min_candidate_abs = 100;
    c->spread_system_defaulting = true;
    c->hard_pod_affinity_weight = 1;
}

kp_status kp__sched_config_build(kp_sched_config *c, const kp_cfg_pluginset *mp_custom,
                                 const kp_cfg_pluginset *eps, char *why, size_t why_cap,
                                 int *bad_ep) {
    kp_cfg_pluginset def;
    memset(&def, 0, sizeof def);
    for (size_t i = 0; i < sizeof DEFAULT_MP / sizeof DEFAULT_MP[0]; i++) {
        def.enabled.pl[def.enabled.n] = (int16_t)DEFAULT_MP[i].pl;
        def.enabled.weight[def.enabled.n++] = DEFAULT_MP[i].weight;
    }
    kp_cfg_pluginset mp;
    merge_set(&def, mp_custom, &mp);
    uint8_t tmp[KP_PL_COUNT], n_tmp;
    for (int e = 0; e < KP_N_EP; e++) {
        uint16_t bit = (uint16_t)(1u << e);
        uint8_t *dst = tmp, *n_dst = &n_tmp;
        int32_t *weights = NULL;
        if (bit == KP_EP_PREFILTER) dst = c->prefilter, n_dst = &c->n_prefilter;
        else if (bit == KP_EP_FILTER) dst = c->filter, n_dst = &c->n_filter;
        else if (bit == KP_EP_PRESCORE) dst = c->prescore, n_dst = &c->n_prescore;
        else if (bit == KP_EP_SCORE) dst = c->score, n_dst = &c->n_score, weights = c->score_weight;
        if (expand(&mp, &eps[e], bit, dst, n_dst, weights, why, why_cap) != KP_OK) {
            *bad_ep = e;
            return KP_EINVAL;
        }
        if (bit == KP_EP_POSTFILTER) {
            c->postfilter_preemption = c->postfilter_dra = c->dra_before_preemption = false;
            for (uint8_t i = 0; i < n_tmp; i++) {
                if (tmp[i] == KP_PL_DEFAULT_PREEMPTION) c->postfilter_preemption = true;
                if (tmp[i] == KP_PL_DYNAMIC_RESOURCES) {
                    c->postfilter_dra = true;
                    c->dra_before_preemption = !c->postfilter_preemption;
                }
            }
        }
        if (bit == KP_EP_PREENQUEUE) {
            c->preenqueue_gates = false;
            for (uint8_t i = 0; i < n_tmp; i++)
                if (tmp[i] == KP_PL_SCHEDULING_GATES) c->preenqueue_gates = true;
        }
        /* DynamicResources' PreFilter returns Skip for a pod without resource claims, which
         * skips its Filter; its Score gives such a pod 0 everywhere: it leaves those lists and
         * runs last for a pod with claims (dra_prefilter, dra_filter, dra_score) */
        uint8_t k = 0;
        bool has_dra = false;
        for (uint8_t i = 0; i < *n_dst; i++) {
            if (dst[i] != KP_PL_DYNAMIC_RESOURCES) dst[k++] = dst[i];
            else has_dra = true;
        }
        *n_dst = k;
        if (bit == KP_EP_PREFILTER) c->dra_prefilter = has_dra;
        else if (bit == KP_EP_FILTER) c->dra_filter = has_dra;
        else if (bit == KP_EP_SCORE) c->dra_score = has_dra;
    }
    return KP_OK;
}

void kp__sched_config_defaults(kp_sched_config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->scheduler_name, sizeof c->scheduler_name, "default-scheduler");
    set_default_args(c);
    kp_cfg_pluginset none[KP_N_EP], mp;
    memset(none, 0, sizeof none);
    memset(&mp, 0, sizeof mp);
    char why[160];
    int bad;
    (void)kp__sched_config_build(c, &mp, none, why, sizeof why, &bad);
}


/* every member of obj must be one of keys[] (NULL-terminated) */

const char *kp__ep_key(int e) { return e >= 0 && e < KP_N_EP ? EP_KEYS[e] : "?"; }
