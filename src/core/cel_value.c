/* CEL for DRA device selectors: values (mirrors cel-go's common/types as the device-selector
 * environment uses them: heterogeneous equality, CrossTypeNumericComparisons ordering, map and
 * list lookups) and compile.go's device as CEL sees it: device.attributes[domain] of a domain the
 * device does not have is an empty map (newStringInterfaceMapWithDefault), so only the lookup of
 * an id in it fails, "no such key: id". Values of the device are read in place, never copied
 * into maps, except when a device map is iterated, compared or counted (kp__cel_materialize). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cel_internal.h"
#include "core/cluster.h"

void *kp__cel_alloc(cel_ctx *x, size_t n) {
    size_t words = (n + 7) / 8;
    if (n && words <= sizeof x->inl / sizeof x->inl[0] - x->inl_used) {
        uint64_t *p = x->inl + x->inl_used;
        x->inl_used += words;
        memset(p, 0, words * 8);
        return p;
    }
    void *p = kp__arena_alloc(&x->scratch, n ? n : 1);
    if (!p) x->oom = true;
    return p;
}

cel_val kp__cel_err(cel_ctx *x, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = w < 0 ? 0 : (size_t)w >= sizeof buf ? sizeof buf - 1 : (size_t)w;
    cel_val v = {.k = CV_ERR};
    char *s = kp__cel_alloc(x, n + 1);
    if (!s) {
        v.u.s = "out of memory";
        return v;
    }
    memcpy(s, buf, n);
    s[n] = '\0';
    v.u.s = s;
    return v;
}

static cel_val err_static(const char *msg) {
    cel_val v = {.k = CV_ERR};
    v.u.s = msg;
    return v;
}

bool kp__cel_charge(cel_ctx *x, uint64_t c) {
    x->cost += c;
    return x->cost > KP__CEL_MAX_COST;
}

const char *kp__cel_go_type(const cel_val *v) {
    switch ((cel_vkind)v->k) {
    case CV_NULL: return "types.Null";
    case CV_BOOL: return "types.Bool";
    case CV_INT: return "types.Int";
    case CV_UINT: return "types.Uint";
    case CV_DOUBLE: return "types.Double";
    case CV_STRING: return "types.String";
    case CV_BYTES: return "types.Bytes";
    case CV_LIST: return "traits.Lister";
    case CV_MAP:
    case CV_DEVMAP:
    case CV_DEVDOM:
    case CV_DEVICE: return "traits.Mapper";
    case CV_QTY: return "cel.Quantity";
    case CV_SEMVER: return "cel.Semver";
    case CV_ERR: return "types.Err";
    }
    return "?";
}

/* ---- the device ---- */

static const char *istr(const cel_ctx *x, kp_str id, uint32_t *len) {
    *len = kp__strlen(&x->dev->cl->strs, id);
    return kp__str(&x->dev->cl->strs, id);
}

static bool str_is(const cel_ctx *x, kp_str id, const char *s, size_t n) {
    uint32_t l;
    const char *p = istr(x, id, &l);
    return l == n && memcmp(p, s, n) == 0;
}

/* mirrors getAttributeValue */
static cel_val attr_val(cel_ctx *x, const kp_dra_attr *a) {
    cel_val v = {0};
    uint32_t l;
    const char *s;
    switch ((kp_dra_attr_type)a->type) {
    case KP_DRA_ATTR_INT: return kp__cel_int(a->i);
    case KP_DRA_ATTR_BOOL: return kp__cel_bool(a->b);
    case KP_DRA_ATTR_STRING: s = istr(x, a->s, &l); return kp__cel_str(s, l);
    case KP_DRA_ATTR_VERSION: {
        s = istr(x, a->s, &l);
        cel_semver *sv = kp__cel_alloc(x, sizeof *sv);
        if (!sv) return err_static("out of memory");
        if (!kp__cel_semver_parse(s, l, false, sv))
            return kp__cel_err(x, "parse semantic version: %.*s", (int)l, s);
        v.k = CV_SEMVER;
        v.u.sv = sv;
        return v;
    }
    }
    return err_static("unsupported attribute value");
}

/* device.attributes[dom][id] / device.capacity[dom][id]: *found false when absent. */
static cel_val dev_lookup(cel_ctx *x, uint8_t sub, const char *dom, size_t dn, const char *id,
                          size_t in, bool *found) {
    const kp_dra_device *d = x->dev->dev;
    *found = false;
    if (sub == 0) {
        for (uint16_t i = 0; i < d->n_attrs; i++) {
            const kp_dra_attr *a = &d->attrs[i];
            if (str_is(x, a->domain, dom, dn) && str_is(x, a->name, id, in)) {
                *found = true;
                return attr_val(x, a);
            }
        }
    } else {
        for (uint16_t i = 0; i < d->n_caps; i++) {
            const kp_dra_capacity *c = &d->caps[i];
            if (str_is(x, c->domain, dom, dn) && str_is(x, c->name, id, in)) {
                cel_val v = {.k = CV_QTY};
                v.u.q = c->value;
                *found = true;
                return v;
            }
        }
    }
    cel_val none = {0};
    return none;
}

static bool dev_has_domain(cel_ctx *x, uint8_t sub, const char *dom, size_t dn) {
    const kp_dra_device *d = x->dev->dev;
    if (sub == 0) {
        for (uint16_t i = 0; i < d->n_attrs; i++)
            if (str_is(x, d->attrs[i].domain, dom, dn)) return true;
    } else {
        for (uint16_t i = 0; i < d->n_caps; i++)
            if (str_is(x, d->caps[i].domain, dom, dn)) return true;
    }
    return false;
}

cel_val kp__cel_materialize(cel_ctx *x, const cel_val *v) {
    if (v->k != CV_DEVMAP && v->k != CV_DEVDOM) return *v;
    const kp_dra_device *d = x->dev->dev;
    uint32_t total = v->sub == 0 ? d->n_attrs : d->n_caps, n = 0;
    cel_val *ks = kp__cel_alloc(x, (total + 1) * sizeof *ks);
    cel_val *vs = kp__cel_alloc(x, (total + 1) * sizeof *vs);
    cel_map *m = kp__cel_alloc(x, sizeof *m);
    if (!ks || !vs || !m) return err_static("out of memory");
    for (uint32_t i = 0; i < total; i++) {
        kp_str dom = v->sub == 0 ? d->attrs[i].domain : d->caps[i].domain;
        kp_str id = v->sub == 0 ? d->attrs[i].name : d->caps[i].name;
        uint32_t dl, il;
        const char *ds = istr(x, dom, &dl), *is = istr(x, id, &il);
        if (v->k == CV_DEVMAP) {
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = ks[j].n == dl && memcmp(ks[j].u.s, ds, dl) == 0;
            if (dup) continue;
            ks[n] = kp__cel_str(ds, dl);
            vs[n] = (cel_val){.k = CV_DEVDOM, .sub = v->sub, .n = dl};
            vs[n].u.s = ds;
            n++;
        } else if (dl == v->n && memcmp(ds, v->u.s, dl) == 0) {
            ks[n] = kp__cel_str(is, il);
            if (v->sub == 0) {
                vs[n] = attr_val(x, &d->attrs[i]);
            } else {
                vs[n] = (cel_val){.k = CV_QTY};
                vs[n].u.q = d->caps[i].value;
            }
            n++;
        }
    }
    m->n = n;
    m->k = ks;
    m->v = vs;
    cel_val r = {.k = CV_MAP};
    r.u.m = m;
    return r;
}

/* ---- equality and ordering ---- */

static bool num_of(const cel_val *v) {
    return v->k == CV_INT || v->k == CV_UINT || v->k == CV_DOUBLE;
}

/* numbers across kinds: -1, 0, 1, or 2 (unordered: NaN) */
static int num_cmp(const cel_val *a, const cel_val *b) {
    if (a->k == CV_DOUBLE || b->k == CV_DOUBLE) {
        double x = a->k == CV_DOUBLE ? a->u.d : a->k == CV_INT ? (double)a->u.i : (double)a->u.u;
        double y = b->k == CV_DOUBLE ? b->u.d : b->k == CV_INT ? (double)b->u.i : (double)b->u.u;
        if (isnan(x) || isnan(y)) return 2;
        return x < y ? -1 : x > y;
    }
    if (a->k == CV_INT && b->k == CV_INT) return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
    if (a->k == CV_UINT && b->k == CV_UINT) return a->u.u < b->u.u ? -1 : a->u.u > b->u.u;
    if (a->k == CV_INT) {
        if (a->u.i < 0) return -1;
        return (uint64_t)a->u.i < b->u.u ? -1 : (uint64_t)a->u.i > b->u.u;
    }
    if (b->u.i < 0) return 1;
    return a->u.u < (uint64_t)b->u.i ? -1 : a->u.u > (uint64_t)b->u.i;
}

static int bytes_cmp(const cel_val *a, const cel_val *b) {
    size_t n = a->n < b->n ? a->n : b->n;
    int c = n ? memcmp(a->u.s, b->u.s, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
}

bool kp__cel_compare(const cel_val *a, const cel_val *b, int *out) {
    if (num_of(a) && num_of(b)) {
        *out = num_cmp(a, b);
        return true;
    }
    if (a->k != b->k) return false;
    switch ((cel_vkind)a->k) {
    case CV_BOOL: *out = (int)a->u.b - (int)b->u.b; return true;
    case CV_STRING:
    case CV_BYTES: *out = bytes_cmp(a, b); return true;
    default: return false;
    }
}


cel_val kp__cel_equals(cel_ctx *x, const cel_val *a, const cel_val *b) {
    if (a->k == CV_ERR) return *a;
    if (b->k == CV_ERR) return *b;
    if (num_of(a) && num_of(b)) return kp__cel_bool(num_cmp(a, b) == 0);
    if (a->k == CV_DEVMAP || a->k == CV_DEVDOM || b->k == CV_DEVMAP || b->k == CV_DEVDOM) {
        cel_val ma = kp__cel_materialize(x, a), mb = kp__cel_materialize(x, b);
        if (ma.k == CV_ERR) return ma;
        if (mb.k == CV_ERR) return mb;
        return kp__cel_equals(x, &ma, &mb);
    }
    if (a->k != b->k) return kp__cel_bool(false);
    switch ((cel_vkind)a->k) {
    case CV_NULL: return kp__cel_bool(true);
    case CV_BOOL: return kp__cel_bool(a->u.b == b->u.b);
    case CV_STRING:
    case CV_BYTES: return kp__cel_bool(a->n == b->n && bytes_cmp(a, b) == 0);
    case CV_QTY: return kp__cel_bool(kp_quantity_cmp(&a->u.q, &b->u.q) == 0);
    case CV_SEMVER: return kp__cel_bool(kp__cel_semver_cmp(a->u.sv, b->u.sv) == 0);
    case CV_DEVICE: return kp__cel_bool(true);
    case CV_LIST: {
        if (a->u.l->n != b->u.l->n) return kp__cel_bool(false);
        for (uint32_t i = 0; i < a->u.l->n; i++) {
            cel_val e = kp__cel_equals(x, &a->u.l->v[i], &b->u.l->v[i]);
            if (e.k != CV_BOOL || !e.u.b) return e;
        }
        return kp__cel_bool(true);
    }
    case CV_MAP: {
        if (a->u.m->n != b->u.m->n) return kp__cel_bool(false);
        for (uint32_t i = 0; i < a->u.m->n; i++) {
            const cel_val *bv;
            if (!kp__cel_map_find(x, b->u.m, &a->u.m->k[i], &bv)) return kp__cel_bool(false);
            cel_val e = kp__cel_equals(x, &a->u.m->v[i], bv);
            if (e.k != CV_BOOL || !e.u.b) return e;
        }
        return kp__cel_bool(true);
    }
    default: return kp__cel_bool(false);
    }
}

bool kp__cel_map_find(cel_ctx *x, const cel_map *m, const cel_val *k, const cel_val **out) {
    for (uint32_t i = 0; i < m->n; i++) {
        cel_val e = kp__cel_equals(x, &m->k[i], k);
        if (e.k == CV_BOOL && e.u.b) {
            *out = &m->v[i];
            return true;
        }
    }
    return false;
}

/* A short rendering of a key for "no such key: K". */
void kp__cel_key_text(const cel_val *k, char *buf, size_t cap) {
    switch (k->k) {
    case CV_STRING: snprintf(buf, cap, "%.*s", (int)(k->n > 100 ? 100 : k->n), k->u.s); break;
    case CV_INT: snprintf(buf, cap, "%" PRId64, k->u.i); break;
    case CV_UINT: snprintf(buf, cap, "%" PRIu64, k->u.u); break;
    case CV_BOOL: snprintf(buf, cap, "%s", k->u.b ? "true" : "false"); break;
    case CV_DOUBLE: snprintf(buf, cap, "%g", k->u.d); break;
    default: snprintf(buf, cap, "%s", kp__cel_go_type(k)); break;
    }
}

/* ---- selection and indexing ---- */

cel_val kp__cel_select(cel_ctx *x, const cel_val *v, const char *name, size_t len, bool test_only) {
    cel_val r = {0};
    switch ((cel_vkind)v->k) {
    case CV_DEVICE: {
        const kp_cel_device *d = x->dev;
        if (test_only) return kp__cel_bool(true);
        if (!strcmp(name, "driver")) {
            uint32_t l;
            const char *s = istr(x, d->driver, &l);
            return kp__cel_str(s, l);
        }
        if (!strcmp(name, "attributes") || !strcmp(name, "capacity")) {
            r.k = CV_DEVMAP;
            r.sub = name[0] == 'c';
            return r;
        }
        if (!strcmp(name, "allowMultipleAllocations")) return kp__cel_bool(d->dev->allow_multiple);
        return kp__cel_err(x, "no such key: %s", name);
    }
    case CV_DEVMAP:
        /* mirrors newStringInterfaceMapWithDefault (its mapper.Find): every domain is "found",
         * an empty map by default, so has() is true too */
        if (test_only) return kp__cel_bool(true);
        r.k = CV_DEVDOM;
        r.sub = v->sub;
        r.u.s = name;
        r.n = (uint32_t)len;
        return r;
    case CV_DEVDOM: {
        bool found;
        r = dev_lookup(x, v->sub, v->u.s, v->n, name, len, &found);
        if (test_only) return kp__cel_bool(found);
        if (!found) return kp__cel_err(x, "no such key: %s", name);
        return r;
    }
    case CV_MAP: {
        cel_val k = kp__cel_str(name, len);
        const cel_val *out;
        bool found = kp__cel_map_find(x, v->u.m, &k, &out);
        if (test_only) return kp__cel_bool(found);
        if (!found) return kp__cel_err(x, "no such key: %s", name);
        return *out;
    }
    default: return err_static("no such overload");
    }
}

cel_val kp__cel_index(cel_ctx *x, const cel_val *a, const cel_val *k) {
    if (a->k == CV_LIST) {
        int64_t i;
        if (k->k == CV_INT) i = k->u.i;
        else if (k->k == CV_UINT && k->u.u <= INT64_MAX) i = (int64_t)k->u.u;
        else if (k->k == CV_DOUBLE && k->u.d == floor(k->u.d) && fabs(k->u.d) < 9e18)
            i = (int64_t)k->u.d;
        else return err_static("unsupported index type");
        if (i < 0 || (uint64_t)i >= a->u.l->n)
            return kp__cel_err(x, "index '%" PRId64 "' out of range in list size '%u'", i,
                               a->u.l->n);
        return a->u.l->v[i];
    }
    if (a->k == CV_DEVMAP || a->k == CV_DEVDOM) {
        if (k->k != CV_STRING) {
            if (a->k == CV_DEVMAP) {
                cel_val r = {.k = CV_DEVDOM, .sub = a->sub, .n = 0};
                r.u.s = "";
                return r; /* the default empty map */
            }
            char kt[128];
            kp__cel_key_text(k, kt, sizeof kt);
            return kp__cel_err(x, "no such key: %s", kt);
        }
        return kp__cel_select(x, a, k->u.s, k->n, false);
    }
    if (a->k == CV_MAP) {
        const cel_val *out;
        if (kp__cel_map_find(x, a->u.m, k, &out)) return *out;
        char kt[128];
        kp__cel_key_text(k, kt, sizeof kt);
        return kp__cel_err(x, "no such key: %s", kt);
    }
    return err_static("no such overload");
}

cel_val kp__cel_contains(cel_ctx *x, const cel_val *e, const cel_val *c) {
    if (c->k == CV_DEVMAP) {
        if (e->k != CV_STRING) return kp__cel_bool(false);
        return kp__cel_bool(dev_has_domain(x, c->sub, e->u.s, e->n));
    }
    if (c->k == CV_DEVDOM) {
        if (e->k != CV_STRING) return kp__cel_bool(false);
        bool found;
        cel_val r = dev_lookup(x, c->sub, c->u.s, c->n, e->u.s, e->n, &found);
        (void)r;
        return kp__cel_bool(found);
    }
    if (c->k == CV_MAP) {
        const cel_val *out;
        return kp__cel_bool(kp__cel_map_find(x, c->u.m, e, &out));
    }
    if (c->k == CV_LIST) {
        for (uint32_t i = 0; i < c->u.l->n; i++) {
            cel_val r = kp__cel_equals(x, e, &c->u.l->v[i]);
            if (r.k != CV_BOOL || r.u.b) return r;
        }
        return kp__cel_bool(false);
    }
    return err_static("no such overload");
}


cel_val kp__cel_list_of(cel_ctx *x, cel_val *v, uint32_t n) {
    cel_list *l = kp__cel_alloc(x, sizeof *l);
    if (!l) return err_static("out of memory");
    l->n = n;
    l->v = v;
    cel_val r = {.k = CV_LIST};
    r.u.l = l;
    return r;
}
