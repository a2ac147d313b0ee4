/* usage[] of a Scenario (docs/scenario.md "Usage"): what pods (and nodes' systems) use over
 * their age, for the simulated kubelets (src/sim/sim_usage.c). The trace CSV reader is
 * decode_scenario_trace.c. */
#include <math.h>
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

static kp_status periodic(kp_dctx *d, scen *s, const kp_tnode *body, kp_scenario_usage *u) {
    static const char *const keys[] = {"shape", "period", "min", "max", NULL};
    char *shape = NULL;
    kp_status st;
    if ((st = kp__sc_only_keys(d, body, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, s, body, "shape", &shape)) != KP_OK)
        return st;
    if (strcmp(shape, "sine") != 0 && strcmp(shape, "square") != 0)
        return kp__dctx_fail(d, kp__tree_get(body, "shape"), KP_EINVAL, "shape",
                             "unsupported value \"%s\" (supported: square, sine)", shape);
    u->sine = shape[1] == 'i';
    if ((st = kp__sc_duration_ms(d, body, "period", true, &u->period_ms, NULL)) != KP_OK ||
        (st = qty(d, body, "min", &u->min, NULL)) != KP_OK ||
        (st = qty(d, body, "max", &u->max, NULL)) != KP_OK)
        return st;
    if (u->period_ms <= 0)
        return kp__dctx_fail(d, kp__tree_get(body, "period"), KP_EINVAL, "period",
                             "must be greater than 0");
    if (u->max < u->min)
        return kp__dctx_fail(d, kp__tree_get(body, "max"), KP_EINVAL, "max",
                             "must not be below min");
    return KP_OK;
}

static kp_status usage_model(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *n,
                             kp_scenario_usage *u) {
    static const char *const models[] = {"constant", "ramp", "step", "periodic", "trace"};
    static const char *const k_const[] = {"value", NULL};
    static const char *const k_ramp[] = {"start", "perMinute", "cap", NULL};
    static const char *const k_step[] = {"before", "after", "at", NULL};
    static const char *const k_trace[] = {"file", NULL};
    const kp_tnode *body = NULL;
    size_t found = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const kp_tnode *b = kp__tree_get(n, models[i]);
        if (!b) continue;
        if (found++) return kp__dctx_fail(d, b, KP_EINVAL, models[i], "more than one model");
        body = b;
        u->model = (kp_usage_model)i;
    }
    if (!body)
        return kp__dctx_fail(d, n, KP_EINVAL, NULL,
                             "one model required: constant, ramp, step, periodic or trace");
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
    case KP_USAGE_PERIODIC: st = periodic(d, s, body, u); break;
    case KP_USAGE_TRACE:
        if ((st = kp__sc_only_keys(d, body, k_trace)) == KP_OK &&
            (st = kp__sc_req_str(d, s, body, "file", &u->trace_file)) == KP_OK)
            st = kp__sc_read_trace(d, s, base_dir, kp__tree_get(body, "file"), u);
        break;
    }
    kp__dctx_pop(d, sv);
    return st;
}

static const char *const RESOURCES[KP_USE_COUNT] = {"memory", "rootfs", "logs",   "emptyDir",
                                                    "inodes", "pids",   "nodefs", "imagefs"};

/* Which fields an entry of this scope and resource may carry. */
static kp_status check_scope(kp_dctx *d, const kp_tnode *n, kp_scenario_usage *u) {
    bool node = u->node[0] != 0;
    const char *bad = NULL;
    if (node && kp__tree_get(n, "selector")) bad = "selector";
    else if (node && u->ns[0]) bad = "namespace";
    else if (node && u->container[0]) bad = "container";
    else if (u->volume[0] && u->res != KP_USE_EMPTYDIR) bad = "volume";
    else if (u->container[0] && (u->res == KP_USE_EMPTYDIR || u->res == KP_USE_PIDS))
        bad = "container";
    if (bad)
        return kp__dctx_fail(d, kp__tree_get(n, bad), KP_EINVAL, bad, "not allowed %s",
                             node ? "with node" : "with this resource");
    if (node && (u->res == KP_USE_ROOTFS || u->res == KP_USE_LOGS || u->res == KP_USE_EMPTYDIR))
        return kp__dctx_fail(d, kp__tree_get(n, "resource"), KP_EINVAL, "resource",
                             "\"%s\" is a pod resource (a node's: memory, nodefs, imagefs, "
                             "inodes, pids)",
                             u->resource);
    if (!node && (u->res == KP_USE_NODEFS || u->res == KP_USE_IMAGEFS))
        return kp__dctx_fail(d, kp__tree_get(n, "resource"), KP_EINVAL, "resource",
                             "\"%s\" is a node resource: give node", u->resource);
    if (!node) {
        const kp_tnode *sel = kp__tree_get(n, "selector");
        if (!sel || sel->type == KP_T_NULL)
            return kp__dctx_fail(d, n, KP_EINVAL, "selector", "required value");
    }
    return KP_OK;
}

kp_status kp__sc_decode_usage(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *n,
                              uint32_t i, kp_scenario_usage *u) {
    static const char *const keys[] = {"selector",  "namespace", "node",     "resource",
                                       "container", "volume",    "constant", "ramp",
                                       "step",      "periodic",  "trace",    NULL};
    snprintf(d->object, sizeof d->object, "usage[%u]", i);
    kp_status st;
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "namespace", &u->ns)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "node", &u->node)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "container", &u->container)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "volume", &u->volume)) != KP_OK ||
        (st = kp__sc_req_str(d, s, n, "resource", &u->resource)) != KP_OK)
        return st;
    size_t r = 0;
    while (r < KP_USE_COUNT && strcmp(u->resource, RESOURCES[r]) != 0) r++;
    if (r == KP_USE_COUNT)
        return kp__dctx_fail(d, kp__tree_get(n, "resource"), KP_EINVAL, "resource",
                             "unsupported resource \"%s\" (supported: memory, rootfs, logs, "
                             "emptyDir, inodes, pids; for a node: memory, nodefs, imagefs, "
                             "inodes, pids)",
                             u->resource);
    u->res = (kp_usage_resource)r;
    if ((st = check_scope(d, n, u)) != KP_OK) return st;
    const kp_tnode *sel = kp__tree_get(n, "selector");
    if (sel && sel->type != KP_T_NULL) {
        size_t sv = kp__dctx_push(d, "selector");
        st = kp__sc_decode_selector(d, s, sel, &u->reqs, &u->n_reqs);
        kp__dctx_pop(d, sv);
    }
    return st == KP_OK ? usage_model(d, s, base_dir, n, u) : st;
}

/* ---------------------------------------------------------------- values */

static int64_t ramp_at(const kp_scenario_usage *u, int64_t age_ms) {
    /* start + perMinute * age / 60000 without overflow: whole minutes, then the rest */
    int64_t lim = u->has_cap ? u->cap : INT64_MAX;
    int64_t mins = age_ms / 60000, rest = age_ms % 60000;
    if (u->per_minute && mins > (lim - u->start) / u->per_minute) return lim;
    int64_t v = u->start + u->per_minute * mins;
    int64_t frac = u->per_minute / 60000 * rest + u->per_minute % 60000 * rest / 60000;
    return v > lim - frac ? lim : v + frac;
}

/* the last point at or before age (binary search); the first point before it */
static size_t trace_index(const kp_scenario_usage *u, int64_t age_ms) {
    size_t lo = 0, hi = u->n_trace;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->trace_ms[mid] <= age_ms) lo = mid;
        else hi = mid;
    }
    return lo;
}

int64_t kp_scenario_usage_at(const kp_scenario_usage *u, int64_t age_ms) {
    if (age_ms < 0) age_ms = 0;
    switch (u->model) {
    case KP_USAGE_CONSTANT: return u->value;
    case KP_USAGE_STEP: return age_ms < u->at_ms ? u->before : u->after;
    case KP_USAGE_RAMP: return ramp_at(u, age_ms);
    case KP_USAGE_PERIODIC: {
        int64_t ph = age_ms % u->period_ms;
        if (!u->sine) return ph * 2 < u->period_ms ? u->min : u->max;
        double x =
            (1.0 - cos(2.0 * 3.14159265358979323846 * (double)ph / (double)u->period_ms)) / 2.0;
        double v = (double)u->min + (double)(u->max - u->min) * x;
        int64_t r = (int64_t)llround(v);
        return r < u->min ? u->min : r > u->max ? u->max : r;
    }
    case KP_USAGE_TRACE: return u->n_trace ? u->trace_v[trace_index(u, age_ms)] : 0;
    }
    return 0;
}

bool kp_scenario_usage_moves(const kp_scenario_usage *u, int64_t age_ms) {
    switch (u->model) {
    case KP_USAGE_CONSTANT: return false;
    case KP_USAGE_STEP: return age_ms < u->at_ms && u->before != u->after;
    case KP_USAGE_RAMP: return u->per_minute > 0 && (!u->has_cap || ramp_at(u, age_ms) < u->cap);
    case KP_USAGE_PERIODIC: return u->min != u->max;
    case KP_USAGE_TRACE: return u->n_trace && u->trace_ms[u->n_trace - 1] > age_ms;
    }
    return false;
}
