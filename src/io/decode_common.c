/* Shared field decoders: strings, label maps, resource lists, selectors, conditions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/resources.h"
#include "core/selector.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "kprio/quantity.h"

void *kp__d_alloc(kp_dctx *d, kp_cluster *cl, size_t n) {
    void *p = kp__arena_alloc(&cl->arena, n);
    if (!p) kp__dctx_fail(d, NULL, KP_ENOMEM, NULL, "out of memory");
    return p;
}

kp_status kp__d_intern(kp_dctx *d, kp_cluster *cl, const kp_tnode *n, const char *field,
                       const char *s, size_t len, kp_str *out) {
    kp_str id = kp__intern(&cl->strs, s, len);
    if (id != UINT32_MAX) {
        *out = id;
        return KP_OK;
    }
    /* kp__intern fails for want of memory, or when the ids it can hand out are used up */
    if (cl->strs.n >= ((uint32_t)1 << KP__INTERN_ID_BITS) - 2)
        return kp__dctx_fail(d, n, KP_ELIMIT, field,
                             "more than %u distinct strings in the input (the interner's limit)",
                             ((uint32_t)1 << KP__INTERN_ID_BITS) - 2);
    return kp__dctx_fail(d, n, KP_ENOMEM, field, "out of memory");
}

kp_status kp__d_check_count(kp_dctx *d, const kp_tnode *n, const char *key, uint32_t count,
                            uint32_t limit) {
    if (count <= limit) return KP_OK;
    return kp__dctx_fail(d, n, KP_ELIMIT, key, "%u entries exceed kprio's limit of %u", count,
                         limit);
}

kp_status kp__d_str(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key, kp_str *out) {
    const char *s = NULL;
    bool present = false;
    kp_status st = kp__dget_str(d, obj, key, &s, &present);
    if (st != KP_OK || !present) return st;
    return kp__d_intern(d, cl, kp__tree_get(obj, key), key, s, strlen(s), out);
}

static int label_cmp(const void *a, const void *b) {
    const kp_label *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Annotations kept in the model: only those a decision reads (static/mirror pod markers). Others
 * (often large and unique, e.g. checksums, JSON blobs) would cost memory on every pod and change
 * nothing kprio computes. */
static bool annotation_kept(const kp_tnode *c) {
    return c->key_len > 21 && memcmp(c->key, "kubernetes.io/config.", 21) == 0;
}

kp_status kp__d_labels(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                       kp_labels *out) {
    bool only_kept = strcmp(key, "annotations") == 0;
    const kp_tnode *m;
    kp_status st = kp__dget_obj(d, obj, key, &m);
    if (st != KP_OK || !m || m->n == 0) return st;
    if ((st = kp__d_check_count(d, m, key, m->n, KP_MAX_LIST)) != KP_OK) return st;
    /* built in scratch memory, then stored shared (replicas carry identical label maps) */
    kp_label local[64];
    kp_label *items = m->n <= 64 ? local : kp__malloc(m->n * sizeof *items);
    if (!items) return kp__dctx_fail(d, NULL, KP_ENOMEM, NULL, "out of memory");
    uint32_t n = 0;
    size_t saved = kp__dctx_push(d, key);
    for (const kp_tnode *c = m->first; c && st == KP_OK; c = c->next) {
        if (only_kept && !annotation_kept(c)) continue;
        if (c->type != KP_T_STR && !(c->plain && c->s && c->type != KP_T_NULL)) {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)c->key_len, c->key);
            st = kp__dctx_fail(d, c, KP_EINVAL, k, "expected a string value, got %s",
                               c->type == KP_T_NUM    ? "a number (quote it)"
                               : c->type == KP_T_BOOL ? "a boolean (quote it)"
                                                      : "a non-string");
            break;
        }
        kp_str k, v;
        if (memchr(c->key, 0, c->key_len) || memchr(c->s, 0, c->len)) {
            char kb[128];
            snprintf(kb, sizeof kb, "%.*s", (int)c->key_len, c->key);
            st = kp__d_no_nul(d, c, kb, c->key, c->key_len);
            if (st == KP_OK) st = kp__d_no_nul(d, c, kb, c->s, c->len);
            break;
        }
        if ((st = kp__d_intern(d, cl, c, NULL, c->key, c->key_len, &k)) != KP_OK ||
            (st = kp__d_intern(d, cl, c, NULL, c->s, c->len, &v)) != KP_OK)
            break;
        /* duplicate keys (possible in YAML): the last one wins, as in Go's map decoding */
        uint32_t j;
        for (j = 0; j < n && items[j].key != k; j++) {}
        items[j].key = k;
        items[j].val = v;
        if (j == n) n++;
    }
    kp__dctx_pop(d, saved);
    out->n = 0;
    out->items = NULL;
    if (st == KP_OK && n) {
        qsort(items, n, sizeof *items, label_cmp);
        out->items = kp__cluster_store_shared(cl, items, n * sizeof *items);
        out->n = out->items ? n : 0;
        if (!out->items) st = kp__dctx_fail(d, NULL, KP_ENOMEM, NULL, "out of memory");
    }
    if (items != local) kp__free(items);
    return st;
}

kp_status kp__d_quantity(kp_dctx *d, const kp_tnode *n, const char *field, bool milli,
                         int64_t *out) {
    if (n->type != KP_T_STR && n->type != KP_T_NUM)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "expected a quantity string");
    kp_quantity q;
    kp_error qe;
    kp_error_clear(&qe);
    if (kp_quantity_parse(n->s, n->len, &q, &qe) != KP_OK)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "invalid quantity \"%s\": %s", n->s, qe.msg);
    kp_status st = milli ? kp_quantity_milli_value(&q, out) : kp_quantity_value(&q, out);
    /* upstream caps binary-suffixed magnitudes at 2^63-1 while parsing; an amount that large is
     * no real resource, so it is reported rather than carried as a silently capped value */
    if (st != KP_OK || *out == INT64_MAX || *out == INT64_MIN)
        return kp__dctx_fail(d, n, KP_ERANGE, field, "quantity \"%s\" is too large", n->s);
    return KP_OK;
}

static int resent_cmp(const void *a, const void *b) {
    const kp_resent *x = a, *y = b;
    return (int)x->res - (int)y->res;
}

/* The length rules of IsQualifiedName, which the API server applies to resource names
 * (validateResourceName): NULL when the name's parts are short enough, else upstream's message. */
static const char *resource_name_too_long(const char *s, size_t len) {
    const char *slash = memchr(s, '/', len);
    size_t prefix = slash ? (size_t)(slash - s) : 0;
    size_t name = slash ? len - prefix - 1 : len;
    if (prefix > 253) return "prefix part must be no more than 253 characters";
    if (name > 63) return "name part must be no more than 63 characters";
    return NULL;
}

/* Upstream compares the exact quantity with zero, so "-1m" of memory (0 once rounded up to an
 * integer) is negative too; the text is re-read only when it starts with a minus sign. */
static bool quantity_negative(const kp_tnode *n, int64_t v) {
    if (v < 0) return true;
    if (n->len == 0 || n->s[0] != '-') return false;
    kp_quantity q;
    return kp_quantity_parse(n->s, n->len, &q, NULL) == KP_OK && q.mant < 0;
}

kp_status kp__d_resources(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                          kp_resv *out) {
    const kp_tnode *m;
    kp_status st = kp__dget_obj(d, obj, key, &m);
    if (st != KP_OK || !m || m->n == 0) return st;
    if (m->n > KP_MAX_RES)
        return kp__dctx_fail(d, m, KP_ELIMIT, key,
                             "%u resources exceed kprio's limit of %d distinct resource names",
                             m->n, KP_MAX_RES);
    kp_resent e[KP_MAX_RES];
    memset(e, 0, sizeof e); /* padding too: stored arrays are compared bytewise */
    uint16_t n = 0;
    size_t saved = kp__dctx_push(d, key);
    for (const kp_tnode *c = m->first; c; c = c->next) {
        char name[KP_RESOURCE_NAME_MAX + 1];
        size_t nl = c->key_len < sizeof name - 1 ? c->key_len : sizeof name - 1;
        memcpy(name, c->key, nl);
        name[nl] = 0;
        if ((st = kp__d_no_nul(d, c, name, c->key, c->key_len)) != KP_OK) break;
        const char *bad = resource_name_too_long(c->key, c->key_len);
        if (bad) {
            st = kp__dctx_fail(d, c, KP_EINVAL, name, "%s", bad);
            break;
        }
        int r = kp__res_index(cl, c->key, c->key_len);
        if (r == -2) {
            st = kp__dctx_fail(d, c, KP_ENOMEM, name, "out of memory");
            break;
        }
        if (r < 0) {
            st = kp__dctx_fail(
                d, c, KP_ELIMIT, name,
                "more than %d distinct resource names in the cluster (kprio's limit)", KP_MAX_RES);
            break;
        }
        int64_t v;
        st = kp__d_quantity(d, c, name, r == KP_RES_CPU, &v);
        if (st != KP_OK) break;
        if (quantity_negative(c, v)) {
            /* ValidateResourceQuantityValue (requests, limits, overhead, pod resources) and
             * ValidateNodeResources (capacity, allocatable) */
            st = kp__dctx_fail(d, c, KP_EINVAL, name, "must be greater than or equal to 0");
            break;
        }
        uint16_t j;
        for (j = 0; j < n && e[j].res != r; j++) {}
        e[j].res = (uint8_t)r;
        e[j].v = v;
        if ((st = kp__d_intern(d, cl, c, name, c->s, c->len, &e[j].text)) != KP_OK) break;
        if (j == n) n++;
    }
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    qsort(e, n, sizeof *e, resent_cmp);
    out->n = n;
    out->e = kp__cluster_store_shared(cl, e, n * sizeof *e);
    if (n && !out->e) return kp__dctx_fail(d, m, KP_ENOMEM, key, "out of memory");
    return KP_OK;
}

kp_status kp__d_dense_resources(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                                int64_t *vals, bool *has) {
    kp_resv v = {0};
    kp_status st = kp__d_resources(d, cl, obj, key, &v);
    if (st != KP_OK) return st;
    for (uint16_t i = 0; i < v.n; i++) {
        vals[v.e[i].res] = v.e[i].v;
        if (has) has[v.e[i].res] = true;
    }
    return KP_OK;
}

kp_status kp__d_str_list(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                         uint16_t *n, kp_str **out) {
    const kp_tnode *a;
    kp_status st = kp__dget_arr(d, obj, key, &a);
    if (st != KP_OK || !a || a->n == 0) return st;
    if ((st = kp__d_check_count(d, a, key, a->n, KP_MAX_ENTRIES)) != KP_OK) return st;
    kp_str *v = kp__d_alloc(d, cl, a->n * sizeof *v);
    if (!v) return KP_ENOMEM;
    uint16_t i = 0;
    for (const kp_tnode *c = a->first; c; c = c->next, i++) {
        if (c->type != KP_T_STR && !(c->plain && c->s && c->type != KP_T_NULL)) {
            size_t saved = kp__dctx_push(d, key);
            kp__dctx_push_index(d, i);
            st = kp__dctx_fail(d, c, KP_EINVAL, NULL, "expected a string");
            kp__dctx_pop(d, saved);
            return st;
        }
        if ((st = kp__d_intern(d, cl, c, key, c->s, c->len, &v[i])) != KP_OK) return st;
    }
    *n = i;
    *out = v;
    return KP_OK;
}

static kp_status decode_selreq(kp_dctx *d, kp_cluster *cl, const kp_tnode *e, bool node_ops,
                               kp_selreq *r) {
    const char *op = NULL;
    kp_status st = kp__d_str(d, cl, e, "key", &r->key);
    if (st != KP_OK) return st;
    bool has_op = false;
    if ((st = kp__dget_str(d, e, "operator", &op, &has_op)) != KP_OK) return st;
    if (!has_op) return kp__dctx_fail(d, e, KP_EINVAL, "operator", "required value");
    if (strcmp(op, "In") == 0) r->op = KP_OP_IN;
    else if (strcmp(op, "NotIn") == 0) r->op = KP_OP_NOTIN;
    else if (strcmp(op, "Exists") == 0) r->op = KP_OP_EXISTS;
    else if (strcmp(op, "DoesNotExist") == 0) r->op = KP_OP_DOESNOTEXIST;
    else if (node_ops && strcmp(op, "Gt") == 0) r->op = KP_OP_GT;
    else if (node_ops && strcmp(op, "Lt") == 0) r->op = KP_OP_LT;
    else
        return kp__dctx_fail(d, kp__tree_get(e, "operator"), KP_EINVAL, "operator",
                             "unsupported value \"%s\"", op);
    if ((st = kp__d_str_list(d, cl, e, "values", &r->n_values, &r->values)) != KP_OK) return st;
    /* validation as the API server does it (ValidateLabelSelectorRequirement /
     * validateNodeSelectorRequirement) */
    if ((r->op == KP_OP_IN || r->op == KP_OP_NOTIN) && r->n_values == 0)
        return kp__dctx_fail(d, e, KP_EINVAL, "values",
                             "must be specified when `operator` is 'In' or 'NotIn'");
    if ((r->op == KP_OP_EXISTS || r->op == KP_OP_DOESNOTEXIST) && r->n_values != 0)
        return kp__dctx_fail(d, e, KP_EINVAL, "values",
                             "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    if ((r->op == KP_OP_GT || r->op == KP_OP_LT) && r->n_values != 1)
        return kp__dctx_fail(d, e, KP_EINVAL, "values",
                             "must be specified single value when `operator` is 'Lt' or 'Gt'");
    return KP_OK;
}

kp_status kp__d_selreqs(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                        bool node_ops, uint16_t *n, kp_selreq **out) {
    const kp_tnode *a;
    kp_status st = kp__dget_arr(d, obj, key, &a);
    if (st != KP_OK || !a || a->n == 0) return st;
    if ((st = kp__d_check_count(d, a, key, a->n, KP_MAX_ENTRIES)) != KP_OK) return st;
    kp_selreq *v = kp__d_alloc(d, cl, a->n * sizeof *v);
    if (!v) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, key);
    uint16_t i = 0;
    for (const kp_tnode *c = a->first; c; c = c->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        if (c->type != KP_T_OBJ) st = kp__dctx_fail(d, c, KP_EINVAL, NULL, "expected an object");
        else st = decode_selreq(d, cl, c, node_ops, &v[i]);
        kp__dctx_pop(d, s2);
        if (st != KP_OK) break;
    }
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    *n = i;
    *out = v;
    return KP_OK;
}

kp_status kp__d_label_selector(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                               kp_label_selector *out) {
    const kp_tnode *s;
    kp_status st = kp__dget_obj(d, obj, key, &s);
    if (st != KP_OK || !s) return st;
    out->is_set = true;
    size_t saved = kp__dctx_push(d, key);
    st = kp__d_labels(d, cl, s, "matchLabels", &out->match_labels);
    if (st == KP_OK)
        st = kp__d_selreqs(d, cl, s, "matchExpressions", false, &out->n_exprs, &out->exprs);
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__d_conditions(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                           const char *only_type, uint16_t *n, kp_condition **out) {
    const kp_tnode *a;
    kp_status st = kp__dget_arr(d, obj, key, &a);
    if (st != KP_OK || !a || a->n == 0) return st;
    if ((st = kp__d_check_count(d, a, key, a->n, KP_MAX_ENTRIES)) != KP_OK) return st;
    uint32_t want = 0;
    for (const kp_tnode *c = a->first; c; c = c->next) {
        const kp_tnode *t = kp__tree_get(c, "type");
        if (!only_type || (t && t->type == KP_T_STR && strcmp(t->s, only_type) == 0)) want++;
    }
    kp_condition *v = want ? kp__d_alloc(d, cl, want * sizeof *v) : NULL;
    if (want && !v) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, key);
    uint16_t i = 0, k = 0;
    for (const kp_tnode *c = a->first; c && st == KP_OK; c = c->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_condition cond = {0};
        if (c->type != KP_T_OBJ) {
            st = kp__dctx_fail(d, c, KP_EINVAL, NULL, "expected an object");
        } else {
            st = kp__d_str(d, cl, c, "type", &cond.type);
            if (st == KP_OK) st = kp__d_str(d, cl, c, "status", &cond.status);
            if (st == KP_OK) st = kp__d_str(d, cl, c, "reason", &cond.reason);
            if (st == KP_OK) st = kp__d_str(d, cl, c, "message", &cond.message);
        }
        if (st == KP_OK && k < want && (!only_type || strcmp(kp__s(cl, cond.type), only_type) == 0))
            v[k++] = cond;
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    *n = k;
    *out = v;
    return KP_OK;
}
