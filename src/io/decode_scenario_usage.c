/* usage[] of a Scenario (docs/scenario.md "Usage"): what pods use over their age, for the
 * simulated kubelets (src/sim/sim_kubelet.c). */
#include <stdio.h>
#include <string.h>

#include "io/decode_common.h"
#include "io/decode_scenario.h"

/* ---------------------------------------------------------------- usage */

/* A quantity member (required unless has is given). */
static kp_status qty(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out, bool *has) {
    const kp_tnode *n = kp__tree_get(obj, key);
    if (has) *has = n && n->type != KP_T_NULL;
    if (!n || n->type == KP_T_NULL)
        return has ? KP_OK : kp__dctx_fail(d, obj, KP_EINVAL, key, "required value");
    kp_status st = kp__d_quantity(d, n, key, false, out);
    if (st == KP_OK && *out < 0) return kp__dctx_fail(d, n, KP_EINVAL, key, "must not be negative");
    return st;
}

static kp_status usage_model(kp_dctx *d, const kp_tnode *n, kp_scenario_usage *u) {
    static const char *const models[] = {"constant", "ramp", "step"};
    static const char *const k_const[] = {"value", NULL};
    static const char *const k_ramp[] = {"start", "perMinute", "cap", NULL};
    static const char *const k_step[] = {"before", "after", "at", NULL};
    const kp_tnode *body = NULL;
    size_t found = 0;
    for (size_t i = 0; i < 3; i++) {
        const kp_tnode *b = kp__tree_get(n, models[i]);
        if (!b) continue;
        if (found++) return kp__dctx_fail(d, b, KP_EINVAL, models[i], "more than one model");
        body = b;
        u->model = (kp_usage_model)i;
    }
    if (!body)
        return kp__dctx_fail(d, n, KP_EINVAL, NULL, "one model required: constant, ramp or step");
    const char *name = models[u->model];
    kp_status st;
    if ((st = kp__sc_need_obj(d, body, name)) != KP_OK) return st;
    size_t sv = kp__dctx_push(d, name);
    switch (u->model) {
    case KP_USAGE_CONSTANT:
        if ((st = kp__sc_only_keys(d, body, k_const)) == KP_OK)
            st = qty(d, body, "value", &u->value, NULL);
        break;
    case KP_USAGE_RAMP:
        if ((st = kp__sc_only_keys(d, body, k_ramp)) == KP_OK &&
            (st = qty(d, body, "start", &u->start, NULL)) == KP_OK &&
            (st = qty(d, body, "perMinute", &u->per_minute, NULL)) == KP_OK)
            st = qty(d, body, "cap", &u->cap, &u->has_cap);
        if (st == KP_OK && u->has_cap && u->cap < u->start)
            st = kp__dctx_fail(d, kp__tree_get(body, "cap"), KP_EINVAL, "cap",
                               "must not be below start");
        break;
    case KP_USAGE_STEP:
        if ((st = kp__sc_only_keys(d, body, k_step)) == KP_OK &&
            (st = qty(d, body, "before", &u->before, NULL)) == KP_OK &&
            (st = qty(d, body, "after", &u->after, NULL)) == KP_OK)
            st = kp__sc_duration_ms(d, body, "at", true, &u->at_ms, NULL);
        break;
    }
    kp__dctx_pop(d, sv);
    return st;
}

kp_status kp__sc_decode_usage(kp_dctx *d, scen *s, const kp_tnode *n, uint32_t i,
                              kp_scenario_usage *u) {
    static const char *const keys[] = {"selector", "namespace", "resource", "constant",
                                       "ramp",     "step",      NULL};
    snprintf(d->object, sizeof d->object, "usage[%u]", i);
    kp_status st;
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "namespace", &u->ns)) != KP_OK ||
        (st = kp__sc_req_str(d, s, n, "resource", &u->resource)) != KP_OK)
        return st;
    if (strcmp(u->resource, "memory") != 0)
        return kp__dctx_fail(d, kp__tree_get(n, "resource"), KP_EINVAL, "resource",
                             "unsupported resource \"%s\" (supported: memory)", u->resource);
    const kp_tnode *sel = kp__tree_get(n, "selector");
    if (!sel || sel->type == KP_T_NULL)
        return kp__dctx_fail(d, n, KP_EINVAL, "selector", "required value");
    size_t sv = kp__dctx_push(d, "selector");
    st = kp__sc_decode_selector(d, s, sel, &u->reqs, &u->n_reqs);
    kp__dctx_pop(d, sv);
    return st == KP_OK ? usage_model(d, n, u) : st;
}

int64_t kp_scenario_usage_at(const kp_scenario_usage *u, int64_t age_ms) {
    if (age_ms < 0) age_ms = 0;
    switch (u->model) {
    case KP_USAGE_CONSTANT: return u->value;
    case KP_USAGE_STEP: return age_ms < u->at_ms ? u->before : u->after;
    case KP_USAGE_RAMP: {
        /* start + perMinute * age / 60000 without overflow: whole minutes, then the rest */
        int64_t lim = u->has_cap ? u->cap : INT64_MAX;
        int64_t mins = age_ms / 60000, rest = age_ms % 60000;
        if (u->per_minute && mins > (lim - u->start) / u->per_minute) return lim;
        int64_t v = u->start + u->per_minute * mins;
        int64_t frac = u->per_minute / 60000 * rest + u->per_minute % 60000 * rest / 60000;
        return v > lim - frac ? lim : v + frac;
    }
    }
    return 0;
}
