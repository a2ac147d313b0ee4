/* ResourceClaim specs (of claims and of templates) and claim status decoding: requests
 * (`exactly`, `firstAvailable`; v1beta1's flat requests), constraints, config, the allocation and
 * reservedFor, validated as validateDeviceClaim and validateResourceClaimStatusUpdate do. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/meta.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* limits of pkg/apis/resource/types.go */
enum {
    REQUESTS_MAX = 32, /* DeviceRequestsMaxSize */
    CONSTRAINTS_MAX = 32, /* DeviceConstraintsMaxSize */
    CONFIG_MAX = 32, /* DeviceConfigMaxSize */
    FIRST_AVAILABLE_MAX = 8, /* FirstAvailableDeviceRequestMaxSize */
    RESULTS_MAX = 32, /* AllocationResultsMaxSize */
    RESERVED_MAX = 256 /* ResourceClaimReservedForMaxSize */
};

/* capacity.requests (DRAConsumableCapacity): qualified names to quantities */
static kp_status cap_requests(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_dra_exact *e) {
    const kp_tnode *c = NULL, *m = NULL;
    TRY(kp__dget_obj(d, obj, "capacity", &c));
    if (!c) return KP_OK;
    size_t saved = kp__dctx_push(d, "capacity");
    kp_status st = kp__dget_obj(d, c, "requests", &m);
    if (st == KP_OK && m && m->n &&
        !(e->cap_requests = kp__d_alloc(d, cl, m->n * sizeof *e->cap_requests)))
        st = KP_ENOMEM;
    size_t s2 = kp__dctx_push(d, "requests");
    uint32_t i = 0;
    for (const kp_tnode *t = m ? m->first : NULL; t && st == KP_OK; t = t->next, i++) {
        char key[320];
        snprintf(key, sizeof key, "%.*s", (int)(t->key_len > 300 ? 300 : t->key_len), t->key);
        kp_dra_capacity *q = &e->cap_requests[i];
        memset(q, 0, sizeof *q);
        st = kp__dra_qname(d, cl, t, key, key, 0, false, &q->domain, &q->name);
        if (st == KP_OK) st = kp__dra_quantity(d, t, key, &q->value);
    }
    e->n_cap_requests = (uint16_t)i;
    kp__dctx_pop(d, s2);
    kp__dctx_pop(d, saved);
    return st;
}

/* mirrors validateExactDeviceRequest / validateDeviceSubRequest with SetDefaults_* of v1
 * (allocationMode ExactCount, count 1 when ExactCount and unset or 0) */
static kp_status exact(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, bool sub, kp_dra_exact *e) {
    if (obj->type != KP_T_OBJ) return kp__dctx_fail(d, obj, KP_EINVAL, NULL, "expected an object");
    if (sub) TRY(kp__dra_req_str(d, cl, obj, "name", KP_DRA_NAME_LABEL, &e->name));
    TRY(kp__dra_req_str(d, cl, obj, "deviceClassName", KP_DRA_NAME_SUBDOMAIN, &e->class_name));
    TRY(kp__dra_selectors(d, cl, obj, &e->n_selectors, &e->selectors));
    const char *mode = NULL;
    bool has_mode = false, has_count = false;
    TRY(kp__dget_str(d, obj, "allocationMode", &mode, &has_mode));
    if (has_mode && strcmp(mode, "All") == 0) e->mode = KP_DRA_MODE_ALL;
    else if (has_mode && mode[0] && strcmp(mode, "ExactCount") != 0)
        return kp__dctx_fail(d, kp__tree_get(obj, "allocationMode"), KP_EINVAL, "allocationMode",
                             "Unsupported value: \"%s\": supported values: \"All\", "
                             "\"ExactCount\"",
                             mode);
    TRY(kp__dget_int(d, obj, "count", INT64_MIN, INT64_MAX, &e->count, &has_count));
    const kp_tnode *cn = kp__tree_get(obj, "count");
    if (e->mode == KP_DRA_MODE_ALL && e->count != 0)
        return kp__dctx_fail(d, cn, KP_EINVAL, "count",
                             "Invalid value: %lld: must not be specified when allocationMode is "
                             "'All'",
                             (long long)e->count);
    if (e->mode == KP_DRA_MODE_EXACT && e->count == 0) e->count = 1;
    if (e->mode == KP_DRA_MODE_EXACT && e->count < 0)
        return kp__dctx_fail(d, cn, KP_EINVAL, "count",
                             "Invalid value: %lld: must be greater than zero", (long long)e->count);
    if (!sub) TRY(kp__dget_bool(d, obj, "adminAccess", &e->admin_access, NULL));
    TRY(kp__dra_tolerations(d, cl, obj, &e->n_tolerations, &e->tolerations));
    return cap_requests(d, cl, obj, e);
}

static kp_status first_available(kp_dctx *d, kp_cluster *cl, const kp_tnode *fa,
                                 kp_dra_request *r) {
    if (fa->n > FIRST_AVAILABLE_MAX)
        return kp__dctx_fail(d, fa, KP_EINVAL, "firstAvailable",
                             "Too many: %u: must have at most %d items", fa->n,
                             FIRST_AVAILABLE_MAX);
    r->first_available = true;
    if (!(r->subs = kp__d_alloc(d, cl, fa->n * sizeof *r->subs))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "firstAvailable");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = fa->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        memset(&r->subs[i], 0, sizeof r->subs[i]);
        st = exact(d, cl, t, true, &r->subs[i]);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (r->subs[j].name == r->subs[i].name)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"",
                                   kp__s(cl, r->subs[i].name));
        kp__dctx_pop(d, s2);
    }
    r->n_subs = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

static const char ONE_OF[] = "exactly one of `exactly` or `firstAvailable` is required";

/* mirrors validateDeviceRequest (v1beta1: the flat fields are its `exactly`) */
static kp_status request(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_dra_version v,
                         kp_dra_request *r) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__dra_req_str(d, cl, t, "name", KP_DRA_NAME_LABEL, &r->name));
    const kp_tnode *fa = NULL, *ex = NULL;
    TRY(kp__dget_arr(d, t, "firstAvailable", &fa));
    bool has_fa = fa && fa->n > 0;
    if (v == KP_DRA_V1BETA1) {
        const kp_tnode *dc = kp__tree_get(t, "deviceClassName");
        bool has_ex = dc && dc->type != KP_T_NULL && !(dc->type == KP_T_STR && dc->len == 0);
        if (has_fa && has_ex)
            return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                                 "Invalid value: null: %s, but multiple fields are set", ONE_OF);
        if (has_fa) return first_available(d, cl, fa, r);
        return exact(d, cl, t, false, &r->exactly);
    }
    TRY(kp__dget_obj(d, t, "exactly", &ex));
    if (has_fa && ex)
        return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                             "Invalid value: null: %s, but multiple fields are set", ONE_OF);
    if (!has_fa && !ex) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "Required value: %s", ONE_OF);
    if (has_fa) return first_available(d, cl, fa, r);
    size_t saved = kp__dctx_push(d, "exactly");
    kp_status st = exact(d, cl, ex, false, &r->exactly);
    kp__dctx_pop(d, saved);
    return st;
}

/* validateRequestNameRef: "req" or "req/sub" naming a request (and sub-request) of spec */
static kp_status request_ref(kp_dctx *d, kp_cluster *cl, const kp_tnode *n, const char *field,
                             const char *ref, const kp_dra_claim_spec *spec, kp_str *out) {
    static const char MSG[] = "must be the name of a request in the claim or the name of a "
                              "request and a subrequest separated by '/'";
    const char *slash = strchr(ref, '/');
    if (slash && strchr(slash + 1, '/'))
        return kp__dctx_fail(d, n, KP_EINVAL, field, "Invalid value: \"%s\": %s", ref, MSG);
    bool found = false;
    size_t rl = slash ? (size_t)(slash - ref) : strlen(ref);
    for (uint16_t i = 0; i < spec->n_requests && !found; i++) {
        const kp_dra_request *r = &spec->requests[i];
        const char *rn = kp__s(cl, r->name);
        if (strlen(rn) != rl || memcmp(rn, ref, rl) != 0) continue;
        if (!slash) found = true;
        for (uint16_t j = 0; slash && j < r->n_subs && !found; j++)
            found = strcmp(kp__s(cl, r->subs[j].name), slash + 1) == 0;
    }
    if (!found) return kp__dctx_fail(d, n, KP_EINVAL, field, "Invalid value: \"%s\": %s", ref, MSG);
    return kp__d_intern(d, cl, n, field, ref, strlen(ref), out);
}

/* requests[] of a constraint or a config entry */
static kp_status request_refs(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj,
                              const kp_dra_claim_spec *spec, uint16_t *n, kp_str **out) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, obj, "requests", REQUESTS_MAX, &a));
    if (!a || !a->n) return KP_OK;
    kp_str *refs = kp__d_alloc(d, cl, a->n * sizeof *refs);
    if (!refs) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "requests");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        if (t->type != KP_T_STR) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected a string");
        if (st == KP_OK) st = request_ref(d, cl, t, NULL, t->s, spec, &refs[i]);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (refs[j] == refs[i])
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"", t->s);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    if (n) *n = (uint16_t)i;
    if (out) *out = refs;
    return st;
}

/* mirrors validateDeviceConstraint (DRAConsumableCapacity on: matchAttribute or
 * distinctAttribute) */
static kp_status constraint(kp_dctx *d, kp_cluster *cl, const kp_tnode *t,
                            const kp_dra_claim_spec *spec, kp_dra_constraint *c) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(request_refs(d, cl, t, spec, &c->n_requests, &c->requests));
    const char *ma = NULL, *da = NULL;
    bool has_ma = false, has_da = false;
    TRY(kp__dget_str(d, t, "matchAttribute", &ma, &has_ma));
    TRY(kp__dget_str(d, t, "distinctAttribute", &da, &has_da));
    if (has_ma == has_da)
        return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                             "%s: exactly one of \"matchAttribute\" or \"distinctAttribute\" is "
                             "required, but multiple fields are set",
                             has_ma ? "Invalid value" : "Required value");
    const char *key = has_ma ? "matchAttribute" : "distinctAttribute", *s = has_ma ? ma : da;
    const kp_tnode *n = kp__tree_get(t, key);
    kp_str dom = 0, nm = 0;
    TRY(kp__dra_qname(d, cl, n, key, s, 0, true, &dom, &nm));
    return kp__d_intern(d, cl, n, key, s, strlen(s),
                        has_ma ? &c->match_attribute : &c->distinct_attribute);
}

kp_status kp__dra_claim_spec(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_dra_version v,
                             kp_dra_claim_spec *out) {
    const kp_tnode *dev = NULL, *a;
    TRY(kp__dget_obj(d, obj, "devices", &dev));
    if (!dev) return KP_OK;
    size_t saved = kp__dctx_push(d, "devices");
    kp_status st = kp__dra_arr(d, dev, "requests", REQUESTS_MAX, &a);
    if (st == KP_OK && a && a->n &&
        !(out->requests = kp__d_alloc(d, cl, a->n * sizeof *out->requests)))
        st = KP_ENOMEM;
    size_t s1 = kp__dctx_push(d, "requests");
    uint32_t i = 0;
    for (const kp_tnode *t = a ? a->first : NULL; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_dra_request *r = &out->requests[i];
        memset(r, 0, sizeof *r);
        st = request(d, cl, t, v, r);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (out->requests[j].name == r->name)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"",
                                   kp__s(cl, r->name));
        kp__dctx_pop(d, s2);
    }
    out->n_requests = (uint16_t)i;
    kp__dctx_pop(d, s1);
    if (st == KP_OK) st = kp__dra_arr(d, dev, "constraints", CONSTRAINTS_MAX, &a);
    if (st == KP_OK && a && a->n &&
        !(out->constraints = kp__d_alloc(d, cl, a->n * sizeof *out->constraints)))
        st = KP_ENOMEM;
    s1 = kp__dctx_push(d, "constraints");
    i = 0;
    for (const kp_tnode *t = st == KP_OK && a ? a->first : NULL; t && st == KP_OK;
         t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        memset(&out->constraints[i], 0, sizeof out->constraints[i]);
        st = constraint(d, cl, t, out, &out->constraints[i]);
        kp__dctx_pop(d, s2);
    }
    out->n_constraints = (uint16_t)i;
    kp__dctx_pop(d, s1);
    if (st == KP_OK) st = kp__dra_arr(d, dev, "config", CONFIG_MAX, &a);
    s1 = kp__dctx_push(d, "config");
    i = 0;
    for (const kp_tnode *t = st == KP_OK && a ? a->first : NULL; t && st == KP_OK;
         t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        st = t->type == KP_T_OBJ ? request_refs(d, cl, t, out, NULL, NULL)
                                 : kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dra_opaque(d, t);
        kp__dctx_pop(d, s2);
    }
    out->n_config = (uint16_t)i;
    kp__dctx_pop(d, s1);
    kp__dctx_pop(d, saved);
    return st;
}

/* a UID in RFC 4122 normalized form (validateUID) */
static bool uid_ok(const char *s) {
    if (strlen(s) != 36) return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = s[i];
        if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

/* mirrors validateDeviceRequestAllocationResult */
static kp_status result(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, const kp_dra_claim *c,
                        kp_dra_result *r) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    const char *req = NULL;
    TRY(kp__dget_str(d, t, "request", &req, NULL));
    const kp_tnode *rn = kp__tree_get(t, "request");
    if (!req || !req[0])
        return kp__dctx_fail(d, rn ? rn : t, KP_EINVAL, "request", "Required value");
    TRY(request_ref(d, cl, rn, "request", req, &c->spec, &r->request));
    TRY(kp__dra_req_str(d, cl, t, "driver", KP_DRA_NAME_DRIVER, &r->driver));
    TRY(kp__dra_req_str(d, cl, t, "pool", KP_DRA_NAME_POOL, &r->pool));
    TRY(kp__dra_req_str(d, cl, t, "device", KP_DRA_NAME_LABEL, &r->device));
    TRY(kp__dget_bool(d, t, "adminAccess", &r->admin_access, NULL));
    const char *share = NULL;
    bool has = false;
    TRY(kp__dget_str(d, t, "shareID", &share, &has));
    if (has && !uid_ok(share))
        return kp__dctx_fail(d, kp__tree_get(t, "shareID"), KP_EINVAL, "shareID",
                             "Invalid value: \"%s\": uid must be in RFC 4122 normalized form, "
                             "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal "
                             "characters",
                             share);
    if (has)
        TRY(kp__d_intern(d, cl, kp__tree_get(t, "shareID"), "shareID", share, strlen(share),
                         &r->share_id));
    TRY(kp__dra_result_binding(d, cl, t, r)); /* DRADeviceBindingConditions */
    const kp_tnode *m = NULL;
    TRY(kp__dget_obj(d, t, "consumedCapacity", &m));
    if (!m || !m->n) return KP_OK;
    if (!(r->consumed = kp__d_alloc(d, cl, m->n * sizeof *r->consumed))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "consumedCapacity");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *q = m->first; q && st == KP_OK; q = q->next, i++) {
        char key[320];
        snprintf(key, sizeof key, "%.*s", (int)(q->key_len > 300 ? 300 : q->key_len), q->key);
        memset(&r->consumed[i], 0, sizeof r->consumed[i]);
        st = kp__dra_qname(d, cl, q, key, key, r->driver, false, &r->consumed[i].domain,
                           &r->consumed[i].name);
        if (st == KP_OK) st = kp__dra_quantity(d, q, key, &r->consumed[i].value);
    }
    r->n_consumed = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status allocation(kp_dctx *d, kp_cluster *cl, const kp_tnode *al, kp_dra_claim *c) {
    const kp_tnode *dev = NULL, *a = NULL;
    c->allocated = true;
    TRY(kp__dget_obj(d, al, "devices", &dev));
    if (dev) {
        size_t saved = kp__dctx_push(d, "devices");
        kp_status st = kp__dra_arr(d, dev, "results", RESULTS_MAX, &a);
        if (st == KP_OK && a && a->n &&
            !(c->results = kp__d_alloc(d, cl, a->n * sizeof *c->results)))
            st = KP_ENOMEM;
        size_t s1 = kp__dctx_push(d, "results");
        uint32_t i = 0;
        for (const kp_tnode *t = a ? a->first : NULL; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            memset(&c->results[i], 0, sizeof c->results[i]);
            st = result(d, cl, t, c, &c->results[i]);
            kp__dctx_pop(d, s2);
        }
        c->n_results = (uint16_t)i;
        kp__dctx_pop(d, s1);
        kp__dctx_pop(d, saved);
        TRY(st);
    }
    /* the scheduler writes one term (or none: every node); more would not be one model value */
    TRY(kp__dra_node_selector(d, cl, al, "nodeSelector", false, &c->alloc_nodes.selector,
                              &c->alloc_nodes.has_selector));
    c->alloc_has_nodes = c->alloc_nodes.has_selector;
    const kp_tnode *ns = kp__tree_get(al, "nodeSelector"),
                   *terms = ns ? kp__tree_get(ns, "nodeSelectorTerms") : NULL;
    if (terms && terms->n > 1)
        return kp__dctx_fail(d, terms, KP_ELIMIT, "nodeSelector.nodeSelectorTerms",
                             "%u terms exceed kprio's limit of 1 (the scheduler writes one)",
                             terms->n);
    return kp__dget_time(d, al, "allocationTimestamp", &c->alloc_ts, NULL);
}

/* mirrors the checks of validateResourceClaimStatusUpdate on a status as it is stored */
kp_status kp__dra_claim_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                               kp_dra_claim *c) {
    const kp_tnode *al = NULL, *a = NULL;
    TRY(kp__dget_obj(d, status, "allocation", &al));
    if (al) {
        size_t saved = kp__dctx_push(d, "allocation");
        kp_status st = allocation(d, cl, al, c);
        kp__dctx_pop(d, saved);
        TRY(st);
    }
    TRY(kp__dra_claim_devices(d, cl, status,
                              c)); /* status.devices (DRAResourceClaimDeviceStatus) */
    TRY(kp__dra_arr(d, status, "reservedFor", RESERVED_MAX, &a));
    if (!a || !a->n) return KP_OK;
    if (!c->allocated)
        return kp__dctx_fail(d, a, KP_EINVAL, "reservedFor",
                             "Forbidden: may not be specified when `allocated` is not set");
    if (!(c->reserved = kp__d_alloc(d, cl, a->n * sizeof *c->reserved))) return KP_ENOMEM;
    c->cap_reserved = a->n;
    size_t saved = kp__dctx_push(d, "reservedFor");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_dra_consumer *u = &c->reserved[i];
        memset(u, 0, sizeof *u);
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        static const char *const keys[] = {"resource", "name", "uid"};
        kp_str *dst[] = {&u->resource, &u->name, &u->uid};
        /* the uid may be missing, as a pod's may in a hand-written snapshot (kprio reserves
         * claims for such pods too, and --final-snapshot writes what it reserved) */
        for (int k = 0; k < 3 && st == KP_OK; k++) {
            st = kp__d_str(d, cl, t, keys[k], dst[k]);
            if (st == KP_OK && !*dst[k] && k < 2)
                st = kp__dctx_fail(d, t, KP_EINVAL, keys[k], "Required value");
        }
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (u->uid ? c->reserved[j].uid == u->uid
                       : !c->reserved[j].uid && c->reserved[j].name == u->name)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"",
                                   kp__s(cl, u->uid ? u->uid : u->name));
        kp__dctx_pop(d, s2);
    }
    c->n_reserved = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}
