/* KubeSchedulerConfiguration decoding (kubescheduler.config.k8s.io/v1, YAML or JSON) into the
 * document of core/sched_config.h: syntax, fields, plugin names and args; the effective plugin
 * lists come from core's kp__sched_config_build. Reads the file for kp_sched_config_load_path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gosyntax.h"
#include "core/sched_config.h"
#include "io/dctx.h"
#include "io/input.h"
#include "io/tree.h"
#include "kprio/sched.h"

/* ================================================================ parsing */

typedef struct {
    kp_sched_config *c;
    const char *want_name;
    bool seen;
    kp_status st;
} pctx;

static kp_status only_keys(kp_dctx *d, const kp_tnode *obj, const char *const *keys) {
    for (const kp_tnode *m = obj->first; m; m = m->next) {
        bool ok = false;
        for (size_t i = 0; keys[i] && !ok; i++) ok = kp__tree_key_is(m, keys[i]);
        if (!ok) {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)m->key_len, m->key);
            return kp__dctx_fail(d, m, KP_EINVAL, k, "unknown or unsupported field");
        }
    }
    return KP_OK;
}

static kp_status need_obj(kp_dctx *d, const kp_tnode *n, const char *field) {
    if (n->type != KP_T_OBJ) return kp__dctx_fail(d, n, KP_EINVAL, field, "expected an object");
    return KP_OK;
}

static kp_status parse_pset(kp_dctx *d, const kp_tnode *arr, kp_cfg_pset *out, bool allow_star,
                            bool with_weight) {
    if (arr->type != KP_T_ARR) return kp__dctx_fail(d, arr, KP_EINVAL, NULL, "expected an array");
    uint32_t i = 0;
    for (const kp_tnode *e = arr->first; e; e = e->next, i++) {
        size_t sv = kp__dctx_push_index(d, i);
        kp_status st;
        static const char *const k_w[] = {"name", "weight", NULL}, *const k_n[] = {"name", NULL};
        if ((st = need_obj(d, e, NULL)) != KP_OK ||
            (st = only_keys(d, e, with_weight ? k_w : k_n)) != KP_OK)
            return st;
        const char *name = NULL;
        bool has;
        int64_t w = 0;
        if ((st = kp__dget_str(d, e, "name", &name, &has)) != KP_OK) return st;
        if (!has) return kp__dctx_fail(d, e, KP_EINVAL, "name", "required");
        if (with_weight && (st = kp__dget_int(d, e, "weight", 0, 100, &w, &has)) != KP_OK)
            return st;
        int pl = -1;
        if (!(allow_star && strcmp(name, "*") == 0)) {
            pl = kp__plugin_by_name(name);
            if (pl < 0)
                return kp__dctx_fail(d, e, KP_EINVAL, "name",
                                     "plugin \"%s\" does not exist (or is not supported by kprio)",
                                     name);
        }
        if (out->n >= KP_CFG_MAX_SET)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL, "more than %d plugins (kprio's limit)",
                                 KP_CFG_MAX_SET);
        out->pl[out->n] = (int16_t)pl;
        out->weight[out->n++] = (int32_t)w;
        kp__dctx_pop(d, sv);
    }
    return KP_OK;
}

static kp_status parse_pluginset(kp_dctx *d, const kp_tnode *o, kp_cfg_pluginset *ps, bool score) {
    static const char *const keys[] = {"enabled", "disabled", NULL};
    kp_status st;
    if ((st = need_obj(d, o, NULL)) != KP_OK || (st = only_keys(d, o, keys)) != KP_OK) return st;
    const kp_tnode *en = kp__tree_get(o, "enabled"), *dis = kp__tree_get(o, "disabled");
    size_t sv;
    if (en && en->type != KP_T_NULL) {
        sv = kp__dctx_push(d, "enabled");
        if ((st = parse_pset(d, en, &ps->enabled, false, score)) != KP_OK) return st;
        kp__dctx_pop(d, sv);
    }
    if (dis && dis->type != KP_T_NULL) {
        sv = kp__dctx_push(d, "disabled");
        if ((st = parse_pset(d, dis, &ps->disabled, true, false)) != KP_OK) return st;
        kp__dctx_pop(d, sv);
    }
    return KP_OK;
}

static kp_status parse_resources(kp_dctx *d, const kp_tnode *arr, kp_cfg_resource *out,
                                 uint8_t *n) {
    if (arr->type != KP_T_ARR) return kp__dctx_fail(d, arr, KP_EINVAL, NULL, "expected an array");
    *n = 0;
    uint32_t i = 0;
    for (const kp_tnode *e = arr->first; e; e = e->next, i++) {
        size_t sv = kp__dctx_push_index(d, i);
        static const char *const keys[] = {"name", "weight", NULL};
        kp_status st;
        if ((st = need_obj(d, e, NULL)) != KP_OK || (st = only_keys(d, e, keys)) != KP_OK)
            return st;
        const char *name = NULL;
        bool has;
        int64_t w = 1;
        if ((st = kp__dget_str(d, e, "name", &name, &has)) != KP_OK) return st;
        if (!has || !*name) return kp__dctx_fail(d, e, KP_EINVAL, "name", "required");
        if ((st = kp__dget_int(d, e, "weight", 1, 100, &w, &has)) != KP_OK) return st;
        if (*n >= KP_CFG_MAX_RES)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL, "more than %d resources (kprio's limit)",
                                 KP_CFG_MAX_RES);
        if (strlen(name) >= sizeof out[*n].name)
            return kp__dctx_fail(d, e, KP_ELIMIT, "name",
                                 "longer than %zu characters (kprio's limit)",
                                 sizeof out[*n].name - 1);
        snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
        out[*n].weight = w;
        (*n)++;
        kp__dctx_pop(d, sv);
    }
    return KP_OK;
}

static kp_status parse_strlist(kp_dctx *d, const kp_tnode *arr, char (*out)[64], uint8_t *n) {
    if (arr->type != KP_T_ARR) return kp__dctx_fail(d, arr, KP_EINVAL, NULL, "expected an array");
    uint32_t i = 0;
    for (const kp_tnode *e = arr->first; e; e = e->next, i++) {
        if (e->type != KP_T_STR)
            return kp__dctx_fail(d, e, KP_EINVAL, NULL, "[%u]: expected a string", i);
        if (*n >= KP_CFG_MAX_RES)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL, "more than %d entries (kprio's limit)",
                                 KP_CFG_MAX_RES);
        if (strlen(e->s) >= 64)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL,
                                 "[%u]: longer than 63 characters (kprio's limit)", i);
        snprintf(out[(*n)++], 64, "%s", e->s);
    }
    return KP_OK;
}

static kp_status parse_fit_args(kp_dctx *d, kp_sched_config *c, const kp_tnode *a) {
    static const char *const keys[] = {
        "apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy", NULL};
    kp_status st;
    if ((st = only_keys(d, a, keys)) != KP_OK) return st;
    const kp_tnode *n;
    size_t sv;
    if ((n = kp__tree_get(a, "ignoredResources")) && n->type != KP_T_NULL) {
        sv = kp__dctx_push(d, "ignoredResources");
        if ((st = parse_strlist(d, n, c->ignored, &c->n_ignored)) != KP_OK) return st;
        kp__dctx_pop(d, sv);
    }
    if ((n = kp__tree_get(a, "ignoredResourceGroups")) && n->type != KP_T_NULL) {
        sv = kp__dctx_push(d, "ignoredResourceGroups");
        if ((st = parse_strlist(d, n, c->ignored_groups, &c->n_ignored_groups)) != KP_OK) return st;
        kp__dctx_pop(d, sv);
    }
    const kp_tnode *ss = kp__tree_get(a, "scoringStrategy");
    if (!ss || ss->type == KP_T_NULL) return KP_OK;
    sv = kp__dctx_push(d, "scoringStrategy");
    static const char *const skeys[] = {"type", "resources", "requestedToCapacityRatio", NULL};
    if ((st = need_obj(d, ss, NULL)) != KP_OK || (st = only_keys(d, ss, skeys)) != KP_OK) return st;
    const char *type = NULL;
    bool has;
    if ((st = kp__dget_str(d, ss, "type", &type, &has)) != KP_OK) return st;
    if (!has || strcmp(type, "LeastAllocated") == 0) c->strategy = KP_STRAT_LEAST;
    else if (strcmp(type, "MostAllocated") == 0) c->strategy = KP_STRAT_MOST;
    else if (strcmp(type, "RequestedToCapacityRatio") == 0) c->strategy = KP_STRAT_RTCR;
    else
        return kp__dctx_fail(
            d, ss, KP_EINVAL, "type",
            "unsupported value \"%s\" (LeastAllocated, MostAllocated, RequestedToCapacityRatio)",
            type);
    if ((n = kp__tree_get(ss, "resources")) && n->type != KP_T_NULL) {
        size_t sv2 = kp__dctx_push(d, "resources");
        if ((st = parse_resources(d, n, c->fit_res, &c->n_fit_res)) != KP_OK) return st;
        kp__dctx_pop(d, sv2);
    }
    const kp_tnode *r = kp__tree_get(ss, "requestedToCapacityRatio");
    if (c->strategy == KP_STRAT_RTCR) {
        if (!r || r->type != KP_T_OBJ)
            return kp__dctx_fail(d, ss, KP_EINVAL, "requestedToCapacityRatio",
                                 "required for RequestedToCapacityRatio");
        size_t sv2 = kp__dctx_push(d, "requestedToCapacityRatio");
        static const char *const rkeys[] = {"shape", NULL};
        if ((st = only_keys(d, r, rkeys)) != KP_OK) return st;
        const kp_tnode *shape = kp__tree_get(r, "shape");
        if (!shape || shape->type != KP_T_ARR || shape->n == 0)
            return kp__dctx_fail(d, r, KP_EINVAL, "shape", "at least one point required");
        size_t sv3 = kp__dctx_push(d, "shape");
        uint32_t i = 0;
        c->n_shape = 0;
        for (const kp_tnode *e = shape->first; e; e = e->next, i++) {
            size_t sv4 = kp__dctx_push_index(d, i);
            static const char *const pkeys[] = {"utilization", "score", NULL};
            if ((st = need_obj(d, e, NULL)) != KP_OK || (st = only_keys(d, e, pkeys)) != KP_OK)
                return st;
            int64_t u = 0, sc = 0;
            if ((st = kp__dget_int(d, e, "utilization", 0, 100, &u, &has)) != KP_OK) return st;
            if ((st = kp__dget_int(d, e, "score", 0, 10, &sc, &has)) != KP_OK) return st;
            if (c->n_shape && u <= c->shape[c->n_shape - 1].utilization)
                return kp__dctx_fail(d, e, KP_EINVAL, "utilization",
                                     "values must be sorted in increasing order");
            if (c->n_shape >= KP_CFG_MAX_SHAPE)
                return kp__dctx_fail(d, e, KP_ELIMIT, NULL, "more than %d points (kprio's limit)",
                                     KP_CFG_MAX_SHAPE);
            c->shape[c->n_shape].utilization = u;
            c->shape[c->n_shape].score = sc * 10; /* MaxNodeScore / MaxCustomPriorityScore */
            c->n_shape++;
            kp__dctx_pop(d, sv4);
        }
        kp__dctx_pop(d, sv3);
        kp__dctx_pop(d, sv2);
    } else if (r && r->type != KP_T_NULL) {
        return kp__dctx_fail(d, r, KP_EINVAL, "requestedToCapacityRatio",
                             "only valid with type RequestedToCapacityRatio");
    }
    kp__dctx_pop(d, sv);
    return KP_OK;
}

/* DynamicResourcesArgs.bindingTimeout (ValidateDynamicResourcesArgs: at least one second) */
static kp_status binding_timeout(kp_dctx *d, kp_sched_config *c, const kp_tnode *a) {
    const char *v = NULL;
    bool has = false;
    kp_status st = kp__dget_str(d, a, "bindingTimeout", &v, &has);
    if (st != KP_OK || !has) return st;
    int64_t ns = 0;
    char msg[160];
    if (kp__go_parse_duration(v, strlen(v), &ns, msg, sizeof msg) != KP_OK)
        return kp__dctx_fail(d, kp__tree_get(a, "bindingTimeout"), KP_EINVAL, "bindingTimeout",
                             "%s", msg);
    if (ns < 1000000000)
        return kp__dctx_fail(d, kp__tree_get(a, "bindingTimeout"), KP_EINVAL, "bindingTimeout",
                             "Invalid value: \"%s\": must be at least 1s", v);
    c->dra_binding_timeout_s = ns / 1000000000;
    return KP_OK;
}

static kp_status parse_args(kp_dctx *d, kp_sched_config *c, const char *name, const kp_tnode *a) {
    kp_status st;
    bool has;
    if (a->type != KP_T_OBJ) return kp__dctx_fail(d, a, KP_EINVAL, NULL, "expected an object");
    if (strcmp(name, "NodeResourcesFit") == 0) return parse_fit_args(d, c, a);
    if (strcmp(name, "NodeResourcesBalancedAllocation") == 0) {
        static const char *const keys[] = {"apiVersion", "kind", "resources", NULL};
        if ((st = only_keys(d, a, keys)) != KP_OK) return st;
        const kp_tnode *r = kp__tree_get(a, "resources");
        if (r && r->type != KP_T_NULL) {
            size_t sv = kp__dctx_push(d, "resources");
            if ((st = parse_resources(d, r, c->bal_res, &c->n_bal_res)) != KP_OK) return st;
            kp__dctx_pop(d, sv);
        }
        return KP_OK;
    }
    if (strcmp(name, "DefaultPreemption") == 0) {
        static const char *const keys[] = {"apiVersion", "kind", "minCandidateNodesPercentage",
                                           "minCandidateNodesAbsolute", NULL};
        if ((st = only_keys(d, a, keys)) != KP_OK) return st;
        int64_t v;
        if ((st = kp__dget_int(d, a, "minCandidateNodesPercentage", 0, 100, &v, &has)) != KP_OK)
            return st;
        if (has) c->min_candidate_pct = (int32_t)v;
        if ((st = kp__dget_int(d, a, "minCandidateNodesAbsolute", 0, INT32_MAX, &v, &has)) != KP_OK)
            return st;
        if (has) c->min_candidate_abs = (int32_t)v;
        if (c->min_candidate_pct == 0 && c->min_candidate_abs == 0)
            return kp__dctx_fail(d, a, KP_EINVAL, "minCandidateNodesPercentage",
                                 "cannot be zero at the same time as minCandidateNodesAbsolute");
        return KP_OK;
    }
    if (strcmp(name, "InterPodAffinity") == 0) {
        static const char *const keys[] = {"apiVersion", "kind", "hardPodAffinityWeight",
                                           "ignorePreferredTermsOfExistingPods", NULL};
        if ((st = only_keys(d, a, keys)) != KP_OK) return st;
        int64_t v;
        if ((st = kp__dget_int(d, a, "hardPodAffinityWeight", 0, 100, &v, &has)) != KP_OK)
            return st;
        if (has) c->hard_pod_affinity_weight = (int32_t)v;
        return kp__dget_bool(d, a, "ignorePreferredTermsOfExistingPods",
                             &c->ignore_preferred_terms_of_existing_pods, &has);
    }
    if (strcmp(name, "PodTopologySpread") == 0) {
        static const char *const keys[] = {"apiVersion", "kind", "defaultConstraints",
                                           "defaultingType", NULL};
        if ((st = only_keys(d, a, keys)) != KP_OK) return st;
        const char *dt = NULL;
        if ((st = kp__dget_str(d, a, "defaultingType", &dt, &has)) != KP_OK) return st;
        if (has && strcmp(dt, "List") == 0) c->spread_system_defaulting = false;
        else if (has && strcmp(dt, "System") != 0)
            return kp__dctx_fail(d, a, KP_EINVAL, "defaultingType",
                                 "unsupported value \"%s\" (System, List)", dt);
        const kp_tnode *dc = kp__tree_get(a, "defaultConstraints");
        if (dc && dc->type != KP_T_NULL) {
            if (dc->type != KP_T_ARR)
                return kp__dctx_fail(d, dc, KP_EINVAL, "defaultConstraints", "expected an array");
            if (c->spread_system_defaulting && dc->n)
                return kp__dctx_fail(
                    d, dc, KP_EINVAL, "defaultConstraints",
                    "when defaultingType is System, defaultConstraints must be empty");
            size_t sv = kp__dctx_push(d, "defaultConstraints");
            uint32_t i = 0;
            for (const kp_tnode *e = dc->first; e; e = e->next, i++) {
                size_t sv2 = kp__dctx_push_index(d, i);
                static const char *const ck[] = {"maxSkew", "topologyKey", "whenUnsatisfiable",
                                                 NULL};
                if ((st = need_obj(d, e, NULL)) != KP_OK || (st = only_keys(d, e, ck)) != KP_OK)
                    return st;
                if (c->n_default_spread >= KP_CFG_MAX_DEFAULT_SPREAD)
                    return kp__dctx_fail(d, e, KP_ELIMIT, NULL,
                                         "more than %d constraints (kprio's limit)",
                                         KP_CFG_MAX_DEFAULT_SPREAD);
                kp_cfg_spread *cs = &c->default_spread[c->n_default_spread++];
                int64_t v = 0;
                if ((st = kp__dget_int(d, e, "maxSkew", 1, INT32_MAX, &v, &has)) != KP_OK)
                    return st;
                if (!has) return kp__dctx_fail(d, e, KP_EINVAL, "maxSkew", "required");
                cs->max_skew = (int32_t)v;
                const char *tk = NULL, *wu = NULL;
                if ((st = kp__dget_str(d, e, "topologyKey", &tk, &has)) != KP_OK) return st;
                if (!has || !*tk) return kp__dctx_fail(d, e, KP_EINVAL, "topologyKey", "required");
                if (strlen(tk) >= sizeof cs->topology_key)
                    return kp__dctx_fail(d, e, KP_ELIMIT, "topologyKey",
                                         "longer than %zu characters (kprio's limit)",
                                         sizeof cs->topology_key - 1);
                snprintf(cs->topology_key, sizeof cs->topology_key, "%s", tk);
                if ((st = kp__dget_str(d, e, "whenUnsatisfiable", &wu, &has)) != KP_OK) return st;
                if (!has || (strcmp(wu, "DoNotSchedule") != 0 && strcmp(wu, "ScheduleAnyway") != 0))
                    return kp__dctx_fail(d, e, KP_EINVAL, "whenUnsatisfiable",
                                         "must be DoNotSchedule or ScheduleAnyway");
                cs->schedule_anyway = strcmp(wu, "ScheduleAnyway") == 0;
                kp__dctx_pop(d, sv2);
            }
            kp__dctx_pop(d, sv);
        }
        return KP_OK;
    }
    if (strcmp(name, "DynamicResources") == 0) {
        /* DynamicResourcesArgs: filterTimeout accepted and ignored (the allocator has no
         * clock); bindingTimeout: how long PreBind waits for binding conditions */
        static const char *const keys[] = {"apiVersion", "kind", "filterTimeout", "bindingTimeout",
                                           NULL};
        kp_status ok = only_keys(d, a, keys);
        return ok == KP_OK ? binding_timeout(d, c, a) : ok;
    }
    if (strcmp(name, "NodeAffinity") == 0) {
        static const char *const keys[] = {"apiVersion", "kind", NULL};
        return only_keys(d, a, keys); /* addedAffinity is not supported: reported as unknown */
    }
    if (kp__plugin_by_name(name) >= 0) {
        static const char *const keys[] = {"apiVersion", "kind", NULL};
        return only_keys(d, a, keys);
    }
    return kp__dctx_fail(d, a, KP_EINVAL, NULL,
                         "plugin \"%s\" does not exist (or is not supported by kprio)", name);
}

static kp_status parse_profile(kp_dctx *d, kp_sched_config *c, const kp_tnode *p,
                               kp_cfg_pluginset *queue_sort) {
    static const char *const keys[] = {"schedulerName", "percentageOfNodesToScore", "plugins",
                                       "pluginConfig", NULL};
    kp_status st;
    if ((st = need_obj(d, p, NULL)) != KP_OK || (st = only_keys(d, p, keys)) != KP_OK) return st;
    bool has;
    int64_t v;
    if ((st = kp__dget_int(d, p, "percentageOfNodesToScore", 0, 100, &v, &has)) != KP_OK) return st;
    if (has) c->pct_nodes_to_score = (int32_t)v;
    kp_cfg_pluginset mp, eps[KP_N_EP];
    memset(&mp, 0, sizeof mp);
    memset(eps, 0, sizeof eps);
    const kp_tnode *pl = kp__tree_get(p, "plugins");
    if (pl && pl->type != KP_T_NULL) {
        size_t sv = kp__dctx_push(d, "plugins");
        if ((st = need_obj(d, pl, NULL)) != KP_OK) return st;
        for (const kp_tnode *m = pl->first; m; m = m->next) {
            char k[64];
            snprintf(k, sizeof k, "%.*s", (int)m->key_len, m->key);
            size_t sv2 = kp__dctx_push(d, k);
            if (strcmp(k, "multiPoint") == 0) {
                if ((st = parse_pluginset(d, m, &mp, true)) != KP_OK) return st;
            } else {
                int e = -1;
                for (int i = 0; i < KP_N_EP; i++)
                    if (strcmp(kp__ep_key(i), k) == 0) e = i;
                if (e < 0) {
                    kp__dctx_pop(d, sv2);
                    return kp__dctx_fail(d, m, KP_EINVAL, k, "unknown extension point");
                }
                if ((st = parse_pluginset(d, m, &eps[e], (1u << e) == KP_EP_SCORE)) != KP_OK)
                    return st;
            }
            kp__dctx_pop(d, sv2);
        }
        kp__dctx_pop(d, sv);
    }
    for (int e = 0; e < KP_N_EP; e++)
        if ((1u << e) == KP_EP_QUEUESORT) *queue_sort = eps[e];
    char why[160];
    int bad = 0;
    if (kp__sched_config_build(c, &mp, eps, why, sizeof why, &bad) != KP_OK) {
        size_t sv = kp__dctx_push(d, "plugins");
        kp_status r = kp__dctx_fail(d, pl, KP_EINVAL, kp__ep_key(bad), "%s", why);
        kp__dctx_pop(d, sv);
        return r;
    }
    const kp_tnode *pc = kp__tree_get(p, "pluginConfig");
    if (pc && pc->type != KP_T_NULL) {
        if (pc->type != KP_T_ARR)
            return kp__dctx_fail(d, pc, KP_EINVAL, "pluginConfig", "expected an array");
        size_t sv = kp__dctx_push(d, "pluginConfig");
        uint32_t i = 0;
        for (const kp_tnode *e = pc->first; e; e = e->next, i++) {
            size_t sv2 = kp__dctx_push_index(d, i);
            static const char *const ck[] = {"name", "args", NULL};
            if ((st = need_obj(d, e, NULL)) != KP_OK || (st = only_keys(d, e, ck)) != KP_OK)
                return st;
            const char *name = NULL;
            if ((st = kp__dget_str(d, e, "name", &name, &has)) != KP_OK) return st;
            if (!has) return kp__dctx_fail(d, e, KP_EINVAL, "name", "required");
            const kp_tnode *a = kp__tree_get(e, "args");
            if (a && a->type != KP_T_NULL) {
                size_t sv3 = kp__dctx_push(d, "args");
                if ((st = parse_args(d, c, name, a)) != KP_OK) return st;
                kp__dctx_pop(d, sv3);
            }
            kp__dctx_pop(d, sv2);
        }
        kp__dctx_pop(d, sv);
    }
    return KP_OK;
}

/* Two configured plugin sets are the same list (names, weights and order): cmp.Equal on the
 * defaulted PluginSets, as validateCommonQueueSort compares them. */
static bool pluginset_equal(const kp_cfg_pluginset *a, const kp_cfg_pluginset *b) {
    const kp_cfg_pset *x[2] = {&a->enabled, &a->disabled}, *y[2] = {&b->enabled, &b->disabled};
    for (int k = 0; k < 2; k++) {
        if (x[k]->n != y[k]->n) return false;
        for (uint8_t i = 0; i < x[k]->n; i++)
            if (x[k]->pl[i] != y[k]->pl[i] || x[k]->weight[i] != y[k]->weight[i]) return false;
    }
    return true;
}

/* profiles[i].schedulerName; NULL when unset. */
static const char *profile_name(const kp_tnode *p) {
    const kp_tnode *sn = p->type == KP_T_OBJ ? kp__tree_get(p, "schedulerName") : NULL;
    return sn && sn->type == KP_T_STR ? sn->s : NULL;
}

/* Fails at profiles[i].field (the path is popped again). */
static kp_status profile_fail(kp_dctx *d, const kp_tnode *n, uint32_t i, kp_status st,
                              const char *field, const char *what) {
    size_t sv = kp__dctx_push(d, "profiles");
    kp__dctx_push_index(d, i);
    kp_status r = kp__dctx_fail(d, n, st, field, "%s", what);
    kp__dctx_pop(d, sv);
    return r;
}

/* The names of every profile: set (a lone profile defaults to "default-scheduler", v1
 * SetDefaults_KubeSchedulerConfiguration), unique and within kprio's field
 * (ValidateKubeSchedulerConfiguration's profile loop). *chosen: the profile named want (or -1). */
static kp_status check_names(kp_dctx *d, const kp_tnode *profiles, const char *want,
                             int64_t *chosen) {
    uint32_t i = 0;
    *chosen = -1;
    for (const kp_tnode *p = profiles->first; p; p = p->next, i++) {
        const char *name = profile_name(p);
        const kp_tnode *at = p->type == KP_T_OBJ ? kp__tree_get(p, "schedulerName") : NULL;
        if (!name && profiles->n > 1 && p->type == KP_T_OBJ)
            return profile_fail(d, p, i, KP_EINVAL, "schedulerName",
                                "required when there are several profiles");
        if (!name) name = "default-scheduler";
        char what[192];
        if (strlen(name) >= sizeof((kp_sched_config *)0)->scheduler_name) {
            snprintf(what, sizeof what, "longer than %zu characters (kprio's limit)",
                     sizeof((kp_sched_config *)0)->scheduler_name - 1);
            return profile_fail(d, at, i, KP_ELIMIT, "schedulerName", what);
        }
        uint32_t j = 0;
        for (const kp_tnode *q = profiles->first; q != p; q = q->next, j++) {
            const char *qn = profile_name(q);
            if (strcmp(qn ? qn : "default-scheduler", name) != 0) continue;
            snprintf(what, sizeof what, "duplicate value \"%s\" (profiles[%u] has it)", name, j);
            return profile_fail(d, at ? at : p, i, KP_EINVAL, "schedulerName", what);
        }
        if (*chosen < 0 && want && strcmp(name, want) == 0) *chosen = i;
    }
    return KP_OK;
}

/* Every profile, parsed into its own configuration (mirrors the profile loop of
 * ValidateKubeSchedulerConfiguration and validateCommonQueueSort: every profile is checked even
 * when want_name keeps only one; the queueSort sets must be equal). x->c receives profiles[0]
 * (or the profile named want_name), x->c->more the others. */
static kp_status parse_profiles(kp_dctx *d, pctx *x, const kp_tnode *profiles, int32_t global_pct) {
    int64_t chosen = -1;
    kp_status st = check_names(d, profiles, x->want_name, &chosen);
    if (st != KP_OK) return st;
    if (x->want_name && chosen < 0)
        return kp__dctx_fail(d, profiles, KP_EINVAL, "profiles",
                             "no profile has schedulerName \"%s\"", x->want_name);
    uint32_t n = (uint32_t)profiles->n;
    kp_sched_config *all = kp__calloc(n, sizeof *all);
    kp_cfg_pluginset *qs = kp__calloc(n, sizeof *qs);
    if (!all || !qs) {
        kp__free(all);
        kp__free(qs);
        return kp_error_set(d->err, KP_ENOMEM, "out of memory");
    }
    uint32_t i = 0;
    for (const kp_tnode *p = profiles->first; p && st == KP_OK; p = p->next, i++) {
        kp_sched_config *c = &all[i];
        kp__sched_config_defaults(c);
        memcpy(c->source, x->c->source, sizeof c->source);
        c->pct_nodes_to_score = global_pct;
        const char *name = profile_name(p);
        if (name) snprintf(c->scheduler_name, sizeof c->scheduler_name, "%s", name);
        size_t sv = kp__dctx_push(d, "profiles");
        kp__dctx_push_index(d, i);
        st = parse_profile(d, c, p, &qs[i]);
        kp__dctx_pop(d, sv);
        if (st == KP_OK && i > 0 && !pluginset_equal(&qs[0], &qs[i]))
            st = profile_fail(d, kp__tree_get(p, "plugins"), i, KP_EINVAL, "plugins.queueSort",
                              "has to match for all profiles");
    }
    kp__free(qs);
    if (st == KP_OK && chosen >= 0) {
        *x->c = all[chosen];
    } else if (st == KP_OK) {
        *x->c = all[0];
        if (n > 1) {
            memmove(all, all + 1, (n - 1) * sizeof *all);
            x->c->more = all;
            x->c->n_more = n - 1;
            return KP_OK;
        }
    }
    kp__free(all);
    return st;
}

static kp_status on_doc(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    pctx *x = ctx;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    snprintf(d.object, sizeof d.object, "KubeSchedulerConfiguration");
    kp_status st;
    if (obj->type != KP_T_OBJ) return kp__dctx_fail(&d, obj, KP_EINVAL, NULL, "expected an object");
    if (x->seen) return kp__dctx_fail(&d, obj, KP_EINVAL, NULL, "more than one document");
    x->seen = true;
    /* duplicate keys: an error in YAML, the last value in JSON (no warning sink here) */
    if ((st = kp__d_dup_keys(&d, (kp_tnode *)obj, kp__d_doc_is_yaml(doc), NULL, NULL)) != KP_OK)
        return st;
    const char *av = NULL, *kind = NULL;
    bool has;
    if ((st = kp__dget_str(&d, obj, "kind", &kind, &has)) != KP_OK) return st;
    if (has && strcmp(kind, "ConfigMap") == 0)
        /* the configuration as deployed (kube-system ConfigMap): the file is inside its data */
        return kp__dctx_fail(&d, obj, KP_EINVAL, "kind",
                             "expected KubeSchedulerConfiguration, got ConfigMap: extract the "
                             "configuration from its data first (kubectl get configmap NAME -n "
                             "NAMESPACE -o jsonpath='{.data.KEY}' > FILE)");
    if (!has || strcmp(kind, "KubeSchedulerConfiguration") != 0)
        return kp__dctx_fail(&d, obj, KP_EINVAL, "kind", "expected KubeSchedulerConfiguration%s%s",
                             has && kind[0] ? ", got " : "", has ? kind : "");
    if ((st = kp__dget_str(&d, obj, "apiVersion", &av, &has)) != KP_OK) return st;
    if (!has || strcmp(av, "kubescheduler.config.k8s.io/v1") != 0)
        return kp__dctx_fail(&d, obj, KP_EINVAL, "apiVersion",
                             "unsupported \"%s\" (expected kubescheduler.config.k8s.io/v1)",
                             has ? av : "");
    /* settings that do not change decisions in a single-threaded replay are accepted */
    static const char *const keys[] = {"apiVersion",
                                       "kind",
                                       "parallelism",
                                       "leaderElection",
                                       "clientConnection",
                                       "healthzBindAddress",
                                       "metricsBindAddress",
                                       "enableProfiling",
                                       "enableContentionProfiling",
                                       "percentageOfNodesToScore",
                                       "podInitialBackoffSeconds",
                                       "podMaxBackoffSeconds",
                                       "profiles",
                                       "delayCacheUntilActive",
                                       NULL};
    if ((st = only_keys(&d, obj, keys)) != KP_OK) return st;
    kp_sched_config *c = x->c;
    int64_t v;
    if ((st = kp__dget_int(&d, obj, "percentageOfNodesToScore", 0, 100, &v, &has)) != KP_OK)
        return st;
    int32_t global_pct = has ? (int32_t)v : 0;
    const kp_tnode *profiles = kp__tree_get(obj, "profiles");
    c->pct_nodes_to_score = global_pct;
    if (!profiles || profiles->type == KP_T_NULL || profiles->n == 0) return KP_OK;
    if (profiles->type != KP_T_ARR)
        return kp__dctx_fail(&d, profiles, KP_EINVAL, "profiles", "expected an array");
    return parse_profiles(&d, x, profiles, global_pct);
}

kp_status kp__sched_config_parse(kp_sched_config *c, const char *source, const char *buf,
                                 size_t len, const char *scheduler_name, kp_error *err) {
    kp__sched_config_defaults(c);
    snprintf(c->source, sizeof c->source, "%s", source);
    pctx x = {c, scheduler_name, false, KP_OK};
    kp_status st = kp__tree_parse(source, buf, len, false, on_doc, &x, err);
    if (st == KP_OK && !x.seen)
        st = kp_error_set(err, KP_EINVAL, "KubeSchedulerConfiguration: empty document");
    if (st != KP_OK && err) snprintf(err->source, sizeof err->source, "%s", source);
    if (st != KP_OK) {
        kp__free(c->more);
        c->more = NULL;
        c->n_more = 0;
    }
    return st;
}

/* ---- public wrappers ---- */

kp_status kp_sched_config_load_buffer(const char *source, const char *buf, size_t len,
                                      const char *scheduler_name, kp_sched_config **out,
                                      kp_error *err) {
    *out = NULL;
    kp_sched_config *c = kp__malloc(sizeof *c);
    if (!c) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp__sched_config_parse(c, source, buf, len, scheduler_name, err);
    if (st != KP_OK) {
        kp__free(c);
        return st;
    }
    *out = c;
    return KP_OK;
}

kp_status kp_sched_config_load_path(const char *path, const char *scheduler_name,
                                    kp_sched_config **out, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, (size_t)16 << 20, &buf, &len, err);
    if (st != KP_OK) {
        kp_error_prefix(err, "%s", path); /* every error names the file */
        return st;
    }
    st = kp_sched_config_load_buffer(path, buf, len, scheduler_name, out, err);
    kp__free(buf);
    return st;
}

void kp_sched_config_free(kp_sched_config *cfg) {
    if (cfg) kp__free(cfg->more);
    kp__free(cfg);
}
