/* ResourceSlice decoding (resource.k8s.io v1, v1beta2; v1beta1's `basic` device wrapper): the
 * driver's pool, node selection, devices with attributes, capacities, counters and taints, and
 * shared counter sets, validated as validateResourceSliceSpec does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"
#include "io/decode_pod_gates.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* limits of pkg/apis/resource/types.go */
enum {
    MAX_DEVICES = 128, /* ResourceSliceMaxDevices */
    MAX_DEVICES_ADVANCED = 64, /* ...WithTaintsOrConsumesCounters */
    MAX_ATTRS_CAPS = 32, /* ResourceSliceMaxAttributesAndCapacitiesPerDevice */
    MAX_VALUE_LEN = 64, /* DeviceAttributeMaxValueLength */
    MAX_TAINTS = 16, /* DeviceTaintsMaxLength */
    MAX_COUNTER_SETS = 8, /* ResourceSliceMaxCounterSets */
    MAX_COUNTERS = 32, /* ResourceSliceMaxCountersPerCounterSet (and per consumption) */
    MAX_CONSUMPTIONS = 2, /* ResourceSliceMaxDeviceCounterConsumptionsPerDevice */
    MAX_CONDITIONS = 4, /* BindingConditionsMaxSize, BindingFailureConditionsMaxSize */
    MAX_VALID_VALUES = 10 /* CapacityRequestPolicyDiscreteMaxOptions */
};

/* semverRe of validation.go: MAJOR.MINOR.PATCH (no leading zeros), optional -prerelease
 * (dot-separated; numeric parts without leading zeros) and +build (dot-separated) */
static bool numeric_id(const char *s, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return n == 1 || s[0] != '0';
}
static bool ident_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}
static bool dotted(const char *s, size_t n, bool pre) {
    const char *p = s, *end = s + n;
    for (;;) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        size_t l = (size_t)((dot ? dot : end) - p);
        if (l == 0) return false;
        bool digits = true;
        for (size_t i = 0; i < l; i++) {
            if (!ident_char(p[i])) return false;
            digits = digits && p[i] >= '0' && p[i] <= '9';
        }
        if (pre && digits && !numeric_id(p, l)) return false;
        if (!dot) return true;
        p = dot + 1;
    }
}
static bool is_semver(const char *s) {
    size_t n = strlen(s);
    const char *plus = memchr(s, '+', n);
    size_t core_end = plus ? (size_t)(plus - s) : n;
    const char *dash = memchr(s, '-', core_end);
    size_t vend = dash ? (size_t)(dash - s) : core_end;
    const char *p = s;
    for (int part = 0; part < 3; part++) {
        const char *e = part < 2 ? memchr(p, '.', (size_t)(s + vend - p)) : s + vend;
        if (!e || !numeric_id(p, (size_t)(e - p))) return false;
        p = e + 1;
    }
    if (dash && !dotted(dash + 1, core_end - vend - 1, true)) return false;
    if (plus && !dotted(plus + 1, n - core_end - 1, false)) return false;
    return true;
}

/* mirrors validateDeviceAttribute: exactly one of int, bool, string, version */
static kp_status attribute(kp_dctx *d, kp_cluster *cl, const kp_tnode *v, kp_dra_attr *a) {
    static const char *const keys[] = {"int", "bool", "string", "version"};
    int set = 0;
    const kp_tnode *which = NULL;
    if (v->type != KP_T_OBJ) return kp__dctx_fail(d, v, KP_EINVAL, NULL, "expected an object");
    for (int k = 0; k < 4; k++) {
        const kp_tnode *m = kp__tree_get(v, keys[k]);
        if (m && m->type != KP_T_NULL) set++, which = m, a->type = (uint8_t)k;
    }
    if (set != 1)
        return kp__dctx_fail(d, v, KP_EINVAL, NULL,
                             "Invalid value: %s: exactly one value must be specified",
                             set ? "multiple values" : "\"\"");
    switch ((kp_dra_attr_type)a->type) {
    case KP_DRA_ATTR_INT: return kp__dget_int(d, v, "int", INT64_MIN, INT64_MAX, &a->i, NULL);
    case KP_DRA_ATTR_BOOL: return kp__dget_bool(d, v, "bool", &a->b, NULL);
    case KP_DRA_ATTR_STRING:
    case KP_DRA_ATTR_VERSION: {
        const char *key = keys[a->type], *s = NULL;
        TRY(kp__dget_str(d, v, key, &s, NULL));
        if (a->type == KP_DRA_ATTR_VERSION && !is_semver(s))
            return kp__dctx_fail(d, which, KP_EINVAL, key,
                                 "Invalid value: \"%s\": must be a string compatible with "
                                 "semver.org spec 2.0.0",
                                 s);
        if (strlen(s) > MAX_VALUE_LEN)
            return kp__dctx_fail(d, which, KP_EINVAL, key,
                                 "Too long: may not be more than %d bytes", MAX_VALUE_LEN);
        return kp__d_intern(d, cl, which, key, s, strlen(s), &a->s);
    }
    }
    return KP_OK;
}

static int qcmp(kp_str ad, kp_str an, kp_str bd, kp_str bn) {
    if (ad != bd) return ad < bd ? -1 : 1;
    return an < bn ? -1 : an > bn;
}
static int attr_cmp(const void *x, const void *y) {
    const kp_dra_attr *a = x, *b = y;
    return qcmp(a->domain, a->name, b->domain, b->name);
}
static int cap_cmp(const void *x, const void *y) {
    const kp_dra_capacity *a = x, *b = y;
    return qcmp(a->domain, a->name, b->domain, b->name);
}

/* The map at obj[key] with its keys as qualified names: count into *n, entries walked by fn.
 * Keys given twice once qualified ("model" and "<driver>/model") keep the explicit one, as
 * lookupQualifiedAttribute does. */
static kp_status attributes(kp_dctx *d, kp_cluster *cl, const kp_tnode *dev, kp_str driver,
                            kp_dra_device *o) {
    const kp_tnode *m = NULL;
    TRY(kp__dget_obj(d, dev, "attributes", &m));
    if (!m || !m->n) return KP_OK;
    if (!(o->attrs = kp__d_alloc(d, cl, m->n * sizeof *o->attrs))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "attributes");
    kp_status st = KP_OK;
    uint32_t n = 0;
    for (const kp_tnode *t = m->first; t && st == KP_OK; t = t->next) {
        char key[320];
        snprintf(key, sizeof key, "%.*s", (int)(t->key_len > 300 ? 300 : t->key_len), t->key);
        kp_dra_attr *a = &o->attrs[n];
        st = kp__dra_qname(d, cl, t, key, key, driver, false, &a->domain, &a->name);
        if (st != KP_OK) break;
        size_t s2 = kp__dctx_push(d, key);
        st = attribute(d, cl, t, a);
        kp__dctx_pop(d, s2);
        bool explicit_key = strchr(key, '/') != NULL;
        uint32_t j = 0;
        while (j < n && (o->attrs[j].domain != a->domain || o->attrs[j].name != a->name)) j++;
        if (j == n) n++;
        else if (explicit_key) o->attrs[j] = *a;
    }
    kp__dctx_pop(d, saved);
    o->n_attrs = (uint16_t)n;
    if (n) qsort(o->attrs, n, sizeof *o->attrs, attr_cmp);
    return st;
}

/* mirrors validateRequestPolicy (validValues xor validRange; default required with either) */
static kp_status request_policy(kp_dctx *d, kp_cluster *cl, const kp_tnode *p,
                                const kp_quantity *cap, kp_dra_cap_policy *o) {
    const kp_tnode *def = kp__tree_get(p, "default"), *vv = NULL, *vr = NULL;
    if (def && def->type != KP_T_NULL) {
        o->has_default = true;
        TRY(kp__dra_quantity(d, def, "default", &o->def));
    }
    TRY(kp__dra_arr(d, p, "validValues", MAX_VALID_VALUES, &vv));
    TRY(kp__dget_obj(d, p, "validRange", &vr));
    if (vv && vv->n && vr)
        return kp__dctx_fail(d, p, KP_EINVAL, NULL,
                             "Forbidden: exactly one policy can be specified, cannot specify "
                             "\"validValues\" and \"validRange\" at the same time");
    if (((vv && vv->n) || vr) && !o->has_default)
        return kp__dctx_fail(d, p, KP_EINVAL, "default",
                             "Required value: required when %s is "
                             "defined",
                             vr ? "validRange" : "validValues");
    if (vv && vv->n) {
        if (!(o->valid = kp__d_alloc(d, cl, vv->n * sizeof *o->valid))) return KP_ENOMEM;
        size_t saved = kp__dctx_push(d, "validValues");
        kp_status st = KP_OK;
        bool found = false;
        uint32_t i = 0;
        for (const kp_tnode *t = vv->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            st = kp__dra_quantity(d, t, NULL, &o->valid[i]);
            if (st == KP_OK && i && kp_quantity_cmp(&o->valid[i - 1], &o->valid[i]) > 0)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL,
                                   "Invalid value: \"%s\": values must be sorted in ascending "
                                   "order",
                                   t->s);
            if (st == KP_OK && kp_quantity_cmp(&o->valid[i], cap) > 0)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL,
                                   "Invalid value: \"%s\": option is larger than capacity value: "
                                   "%s",
                                   t->s, kp_quantity_string(cap).s);
            found = found || (st == KP_OK && kp_quantity_cmp(&o->valid[i], &o->def) == 0);
            kp__dctx_pop(d, s2);
        }
        o->n_valid = (uint16_t)i;
        if (st == KP_OK && !found)
            st = kp__dctx_fail(d, vv, KP_EINVAL, NULL,
                               "Invalid value: \"%s\": default value is not valid according to "
                               "the requestPolicy",
                               kp_quantity_string(&o->def).s);
        kp__dctx_pop(d, saved);
        return st;
    }
    if (!vr) return KP_OK;
    o->has_range = true;
    size_t saved = kp__dctx_push(d, "validRange");
    const kp_tnode *mn = kp__tree_get(vr, "min"), *mx = kp__tree_get(vr, "max"),
                   *sp = kp__tree_get(vr, "step");
    kp_status st = KP_OK;
    if (!mn || mn->type == KP_T_NULL)
        st = kp__dctx_fail(d, vr, KP_EINVAL, "min",
                           "Required value: required when validRange is "
                           "defined");
    if (st == KP_OK) st = kp__dra_quantity(d, mn, "min", &o->min);
    if (st == KP_OK && mx && mx->type != KP_T_NULL) {
        o->has_max = true;
        st = kp__dra_quantity(d, mx, "max", &o->max);
    }
    if (st == KP_OK && sp && sp->type != KP_T_NULL) {
        o->has_step = true;
        st = kp__dra_quantity(d, sp, "step", &o->step);
    }
    if (st == KP_OK && kp_quantity_cmp(&o->min, cap) > 0)
        st = kp__dctx_fail(d, mn, KP_EINVAL, "min",
                           "Invalid value: \"%s\": min is larger than capacity value: %s",
                           kp_quantity_string(&o->min).s, kp_quantity_string(cap).s);
    if (st == KP_OK && kp_quantity_cmp(&o->def, &o->min) < 0)
        st = kp__dctx_fail(d, def, KP_EINVAL, "default",
                           "Invalid value: \"%s\": default is less than min: %s",
                           kp_quantity_string(&o->def).s, kp_quantity_string(&o->min).s);
    if (st == KP_OK && o->has_max && kp_quantity_cmp(&o->min, &o->max) > 0)
        st = kp__dctx_fail(d, mx, KP_EINVAL, "max",
                           "Invalid value: \"%s\": min is larger than max: %s",
                           kp_quantity_string(&o->min).s, kp_quantity_string(&o->max).s);
    if (st == KP_OK && o->has_max && kp_quantity_cmp(&o->max, cap) > 0)
        st = kp__dctx_fail(d, mx, KP_EINVAL, "max",
                           "Invalid value: \"%s\": max is larger than capacity value: %s",
                           kp_quantity_string(&o->max).s, kp_quantity_string(cap).s);
    if (st == KP_OK && o->has_step && o->step.mant <= 0)
        st = kp__dctx_fail(d, sp, KP_EINVAL, "step",
                           "Invalid value: \"%s\": must be greater than zero",
                           kp_quantity_string(&o->step).s);
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status capacities(kp_dctx *d, kp_cluster *cl, const kp_tnode *dev, kp_str driver,
                            kp_dra_device *o) {
    const kp_tnode *m = NULL;
    TRY(kp__dget_obj(d, dev, "capacity", &m));
    if (!m || !m->n) return KP_OK;
    if (!(o->caps = kp__d_alloc(d, cl, m->n * sizeof *o->caps))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "capacity");
    kp_status st = KP_OK;
    uint32_t n = 0;
    for (const kp_tnode *t = m->first; t && st == KP_OK; t = t->next) {
        char key[320];
        snprintf(key, sizeof key, "%.*s", (int)(t->key_len > 300 ? 300 : t->key_len), t->key);
        kp_dra_capacity *c = &o->caps[n];
        memset(c, 0, sizeof *c);
        st = kp__dra_qname(d, cl, t, key, key, driver, false, &c->domain, &c->name);
        if (st != KP_OK) break;
        size_t s2 = kp__dctx_push(d, key);
        const kp_tnode *v = t->type == KP_T_OBJ ? kp__tree_get(t, "value") : NULL, *rp = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        else if (!v || v->type == KP_T_NULL)
            st = kp__dctx_fail(d, t, KP_EINVAL, "value", "Required value");
        if (st == KP_OK) st = kp__dra_quantity(d, v, "value", &c->value);
        if (st == KP_OK) st = kp__dget_obj(d, t, "requestPolicy", &rp);
        /* validateSingleAllocatableDeviceCapacity */
        if (st == KP_OK && rp && !o->allow_multiple)
            st = kp__dctx_fail(d, rp, KP_EINVAL, "requestPolicy",
                               "Forbidden: allowMultipleAllocations must be true");
        if (st == KP_OK && rp) {
            if (!(c->policy = kp__d_alloc(d, cl, sizeof *c->policy))) st = KP_ENOMEM;
            else {
                memset(c->policy, 0, sizeof *c->policy);
                size_t s3 = kp__dctx_push(d, "requestPolicy");
                st = request_policy(d, cl, rp, &c->value, c->policy);
                kp__dctx_pop(d, s3);
            }
        }
        kp__dctx_pop(d, s2);
        uint32_t j = 0;
        while (j < n && (o->caps[j].domain != c->domain || o->caps[j].name != c->name)) j++;
        if (j == n) n++;
        else if (strchr(key, '/')) o->caps[j] = *c;
    }
    kp__dctx_pop(d, saved);
    o->n_caps = (uint16_t)n;
    if (n) qsort(o->caps, n, sizeof *o->caps, cap_cmp);
    return st;
}

/* A counters map (name -> {value}) of a counter set or a consumption: at most 32, names DNS
 * labels, required. */
static kp_status counters(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_dra_counter_set *o) {
    const kp_tnode *m = NULL;
    TRY(kp__dget_obj(d, obj, "counters", &m));
    if (!m || !m->n) return kp__dctx_fail(d, obj, KP_EINVAL, "counters", "Required value");
    if (m->n > MAX_COUNTERS)
        return kp__dctx_fail(d, m, KP_EINVAL, "counters",
                             "Too many: %u: must have at most %d items", m->n, MAX_COUNTERS);
    if (!(o->counters = kp__d_alloc(d, cl, m->n * sizeof *o->counters))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "counters");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = m->first; t && st == KP_OK; t = t->next, i++) {
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(t->key_len > 100 ? 100 : t->key_len), t->key);
        st = kp__dra_name(d, t, key, key, KP_DRA_NAME_LABEL);
        if (st == KP_OK) st = kp__d_intern(d, cl, t, key, t->key, t->key_len, &o->counters[i].name);
        const kp_tnode *v = t->type == KP_T_OBJ ? kp__tree_get(t, "value") : NULL;
        size_t s2 = kp__dctx_push(d, key);
        if (st == KP_OK && (!v || v->type == KP_T_NULL))
            st = kp__dctx_fail(d, t, KP_EINVAL, "value", "Required value");
        if (st == KP_OK) st = kp__dra_quantity(d, v, "value", &o->counters[i].value);
        kp__dctx_pop(d, s2);
    }
    o->n_counters = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

/* sharedCounters[] of the slice or consumesCounters[] of a device */
static kp_status counter_sets(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                              const char *name_key, uint32_t max, uint16_t *n,
                              kp_dra_counter_set **out) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, obj, key, max, &a));
    if (!a || !a->n) return KP_OK;
    if (!(*out = kp__d_alloc(d, cl, a->n * sizeof **out))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, key);
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_dra_counter_set *cs = &(*out)[i];
        memset(cs, 0, sizeof *cs);
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dra_req_str(d, cl, t, name_key, KP_DRA_NAME_LABEL, &cs->name);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if ((*out)[j].name == cs->name)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"",
                                   kp__s(cl, cs->name));
        if (st == KP_OK) st = counters(d, cl, t, cs);
        kp__dctx_pop(d, s2);
    }
    *n = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

/* validateDeviceTaint: key a qualified name, value a label value, effect NoSchedule, NoExecute
 * or None */
static kp_status taints(kp_dctx *d, kp_cluster *cl, const kp_tnode *dev, kp_dra_device *o) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, dev, "taints", MAX_TAINTS, &a));
    if (!a || !a->n) return KP_OK;
    if (!(o->taints = kp__d_alloc(d, cl, a->n * sizeof *o->taints))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "taints");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_dra_taint *tt = &o->taints[i];
        memset(tt, 0, sizeof *tt);
        const char *key = NULL, *eff = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_str(d, t, "key", &key, NULL);
        if (st == KP_OK && (!key || !key[0]))
            st = kp__dctx_fail(d, t, KP_EINVAL, "key", "Required value");
        const char *why = st == KP_OK ? kp__qualified_name_error(key, strlen(key)) : NULL;
        if (why) st = kp__dctx_fail(d, t, KP_EINVAL, "key", "Invalid value: \"%s\": %s", key, why);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "key", &tt->key);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "value", &tt->value);
        if (st == KP_OK) st = kp__dget_str(d, t, "effect", &eff, NULL);
        if (st == KP_OK) {
            if (!eff || !eff[0]) st = kp__dctx_fail(d, t, KP_EINVAL, "effect", "Required value");
            else if (strcmp(eff, "NoSchedule") == 0) tt->effect = KP_EFFECT_NOSCHEDULE;
            else if (strcmp(eff, "NoExecute") == 0) tt->effect = KP_EFFECT_NOEXECUTE;
            else if (strcmp(eff, "None") == 0) tt->effect = KP_EFFECT_NONE;
            else
                st = kp__dctx_fail(d, t, KP_EINVAL, "effect",
                                   "Unsupported value: \"%s\": supported values: \"NoExecute\", "
                                   "\"NoSchedule\", \"None\"",
                                   eff);
        }
        if (st == KP_OK) st = kp__dget_time(d, t, "timeAdded", &tt->time_added, NULL);
        kp__dctx_pop(d, s2);
    }
    o->n_taints = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

/* exactly one of nodeName, nodeSelector, allNodes (per device, or of the slice with
 * perDeviceNodeSelection as a fourth); *n_set counts them, names lists them for the error */
static kp_status node_selection(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_dra_nodes *o,
                                int *n_set, char *names, size_t cap) {
    const char *nn = NULL;
    bool has_nn = false, all = false, has_all = false, has_sel = false;
    TRY(kp__dget_str(d, obj, "nodeName", &nn, &has_nn));
    if (has_nn) {
        const kp_tnode *n = kp__tree_get(obj, "nodeName");
        if (!nn[0])
            return kp__dctx_fail(d, n, KP_EINVAL, "nodeName",
                                 "Invalid value: \"\": must be either unset or set to a non-empty "
                                 "string");
        TRY(kp__dra_name(d, n, "nodeName", nn, KP_DRA_NAME_SUBDOMAIN));
        TRY(kp__d_intern(d, cl, n, "nodeName", nn, strlen(nn), &o->node_name));
        (*n_set)++;
        snprintf(names + strlen(names), cap - strlen(names), "%s`nodeName`", names[0] ? ", " : "");
    }
    TRY(kp__dra_node_selector(d, cl, obj, "nodeSelector", true, &o->selector, &has_sel));
    if (has_sel) {
        o->has_selector = true;
        (*n_set)++;
        snprintf(names + strlen(names), cap - strlen(names), "%s`nodeSelector`",
                 names[0] ? ", " : "");
    }
    TRY(kp__dget_bool(d, obj, "allNodes", &all, &has_all));
    if (has_all && !all)
        return kp__dctx_fail(d, kp__tree_get(obj, "allNodes"), KP_EINVAL, "allNodes",
                             "Invalid value: false: must be either unset or set to true");
    if (all) {
        o->all_nodes = true;
        (*n_set)++;
        snprintf(names + strlen(names), cap - strlen(names), "%s`allNodes`", names[0] ? ", " : "");
    }
    return KP_OK;
}

static kp_status str_list(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                          uint16_t *n, kp_str **out) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, obj, key, MAX_CONDITIONS, &a));
    return kp__d_str_list(d, cl, obj, key, n, out);
}

/* mirrors validateDevice; dev is the device (v1beta1: its `basic`), named by name */
static kp_status device(kp_dctx *d, kp_cluster *cl, const kp_tnode *dev, const kp_dra_slice *s,
                        kp_dra_device *o) {
    TRY(kp__dget_bool(d, dev, "allowMultipleAllocations", &o->allow_multiple, NULL));
    const kp_tnode *am = kp__tree_get(dev, "attributes"), *cm = kp__tree_get(dev, "capacity");
    uint32_t total =
        (am && am->type == KP_T_OBJ ? am->n : 0) + (cm && cm->type == KP_T_OBJ ? cm->n : 0);
    if (total > MAX_ATTRS_CAPS)
        return kp__dctx_fail(d, dev, KP_EINVAL, NULL,
                             "Invalid value: %u: the total number of attributes and capacities "
                             "must not exceed %d",
                             total, MAX_ATTRS_CAPS);
    TRY(attributes(d, cl, dev, s->driver, o));
    TRY(capacities(d, cl, dev, s->driver, o));
    TRY(taints(d, cl, dev, o));
    TRY(counter_sets(d, cl, dev, "consumesCounters", "counterSet", MAX_CONSUMPTIONS, &o->n_consumes,
                     &o->consumes));
    int n_set = 0;
    char names[80] = "";
    TRY(node_selection(d, cl, dev, &o->nodes, &n_set, names, sizeof names));
    if (s->per_device_nodes && n_set != 1)
        return kp__dctx_fail(d, dev, KP_EINVAL, NULL,
                             "%s%s%sexactly one of `nodeName`, `nodeSelector`, or `allNodes` is "
                             "required when `perDeviceNodeSelection` is set to true in the "
                             "ResourceSlice spec",
                             n_set ? "Invalid value: \"{" : "Required value: ", names,
                             n_set ? "}\": " : "");
    if (!s->per_device_nodes && n_set)
        return kp__dctx_fail(d, dev, KP_EINVAL, NULL,
                             "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can "
                             "only be set if `perDeviceNodeSelection` is set to true in the "
                             "ResourceSlice spec");
    o->has_nodes = n_set == 1;
    TRY(kp__dget_bool(d, dev, "bindsToNode", &o->binds_to_node, NULL));
    TRY(str_list(d, cl, dev, "bindingConditions", &o->n_binding_conditions,
                 &o->binding_conditions));
    return str_list(d, cl, dev, "bindingFailureConditions", &o->n_binding_failure_conditions,
                    &o->binding_failure_conditions);
}

static kp_status devices(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_version v,
                         kp_dra_slice *s) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, spec, "devices", 0, &a));
    if (!a || !a->n) return KP_OK;
    /* 64 devices when any has taints or consumes counters (checked after reading them) */
    if (a->n > MAX_DEVICES)
        return kp__dctx_fail(d, a, KP_EINVAL, "devices", "Too many: %u: must have at most %d items",
                             a->n, MAX_DEVICES);
    if (!(s->devices = kp__d_alloc(d, cl, a->n * sizeof *s->devices))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "devices");
    kp_status st = KP_OK;
    bool advanced = false;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_dra_device *o = &s->devices[i];
        memset(o, 0, sizeof *o);
        const kp_tnode *dev = t;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dra_req_str(d, cl, t, "name", KP_DRA_NAME_LABEL, &o->name);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (s->devices[j].name == o->name)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s\"",
                                   kp__s(cl, o->name));
        if (st == KP_OK && v == KP_DRA_V1BETA1) {
            /* v1beta1.Device: the fields sit in `basic` (an empty device without it) */
            st = kp__dget_obj(d, t, "basic", &dev);
            if (st == KP_OK && dev) {
                size_t s3 = kp__dctx_push(d, "basic");
                st = device(d, cl, dev, s, o);
                kp__dctx_pop(d, s3);
            }
        } else if (st == KP_OK) {
            st = device(d, cl, dev, s, o);
        }
        advanced = advanced || o->n_taints || o->n_consumes;
        kp__dctx_pop(d, s2);
    }
    s->n_devices = i;
    kp__dctx_pop(d, saved);
    if (st == KP_OK && advanced && i > MAX_DEVICES_ADVANCED)
        st = kp__dctx_fail(d, a, KP_EINVAL, "devices", "Too many: %u: must have at most %d items",
                           i, MAX_DEVICES_ADVANCED);
    return st;
}

/* mirrors validateResourcePool */
static kp_status pool(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_slice *s) {
    const kp_tnode *p = NULL;
    TRY(kp__dget_obj(d, spec, "pool", &p));
    if (!p) return kp__dctx_fail(d, spec, KP_EINVAL, "pool.name", "Required value");
    size_t saved = kp__dctx_push(d, "pool");
    kp_status st = kp__dra_req_str(d, cl, p, "name", KP_DRA_NAME_POOL, &s->pool);
    if (st == KP_OK)
        st = kp__dget_int(d, p, "resourceSliceCount", INT64_MIN, INT64_MAX, &s->slice_count, NULL);
    if (st == KP_OK && s->slice_count <= 0)
        st = kp__dctx_fail(d, p, KP_EINVAL, "resourceSliceCount",
                           "Invalid value: %lld: must be greater than zero",
                           (long long)s->slice_count);
    if (st == KP_OK)
        st = kp__dget_int(d, p, "generation", INT64_MIN, INT64_MAX, &s->generation, NULL);
    if (st == KP_OK && s->generation < 0)
        st = kp__dctx_fail(d, p, KP_EINVAL, "generation",
                           "Invalid value: %lld: must be greater than or equal to zero",
                           (long long)s->generation);
    kp__dctx_pop(d, saved);
    return st;
}

/* mirrors validateResourceSliceSpec */
kp_status kp__dra_decode_slice(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_version v,
                               kp_dra_slice *s) {
    TRY(kp__dra_req_str(d, cl, spec, "driver", KP_DRA_NAME_DRIVER, &s->driver));
    TRY(pool(d, cl, spec, s));
    int n_set = 0;
    char names[120] = "";
    TRY(node_selection(d, cl, spec, &s->nodes, &n_set, names, sizeof names));
    bool pdn = false, has_pdn = false;
    TRY(kp__dget_bool(d, spec, "perDeviceNodeSelection", &pdn, &has_pdn));
    if (has_pdn && !pdn)
        return kp__dctx_fail(d, kp__tree_get(spec, "perDeviceNodeSelection"), KP_EINVAL,
                             "perDeviceNodeSelection",
                             "Invalid value: false: must be either unset or set to true");
    if (pdn) {
        s->per_device_nodes = true;
        n_set++;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s`perDeviceNodeSelection`",
                 names[0] ? ", " : "");
    }
    if (n_set == 0)
        return kp__dctx_fail(d, spec, KP_EINVAL, NULL,
                             "Required value: exactly one of `nodeName`, `nodeSelector`, "
                             "`allNodes`, `perDeviceNodeSelection` is required");
    if (n_set > 1)
        return kp__dctx_fail(d, spec, KP_EINVAL, NULL,
                             "Invalid value: \"{%s}\": exactly one of `nodeName`, `nodeSelector`, "
                             "`allNodes`, `perDeviceNodeSelection` is required, but multiple "
                             "fields are set",
                             names);
    const kp_tnode *sc = kp__tree_get(spec, "sharedCounters"), *dv = kp__tree_get(spec, "devices");
    if (sc && sc->type != KP_T_NULL && dv && dv->type != KP_T_NULL)
        return kp__dctx_fail(d, spec, KP_EINVAL, NULL,
                             "Invalid value: \"\": only one of `sharedCounters` or `devices` is "
                             "allowed");
    TRY(devices(d, cl, spec, v, s));
    return counter_sets(d, cl, spec, "sharedCounters", "name", MAX_COUNTER_SETS, &s->n_counter_sets,
                        &s->counter_sets);
}
