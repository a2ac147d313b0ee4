/* Scenario decoding helpers (internal, io/decode_scenario.h): members, durations and label
 * selectors, shared by decode_scenario.c and decode_scenario_usage.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/gosyntax.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_pod_gates.h"
#include "io/decode_scenario.h"
#include "io/tree.h"

char *kp__sc_sdup(scen *s, const char *p, size_t n) {
    char *c = kp__arena_alloc(&s->arena, n + 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

kp_status kp__sc_nomem(kp_dctx *d) {
    return kp__dctx_fail(d, NULL, KP_ENOMEM, NULL, "out of memory");
}

kp_status kp__sc_only_keys(kp_dctx *d, const kp_tnode *obj, const char *const *keys) {
    for (const kp_tnode *m = obj->first; m; m = m->next) {
        bool ok = false;
        for (size_t i = 0; keys[i] && !ok; i++) ok = kp__tree_key_is(m, keys[i]);
        if (!ok) {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)(m->key_len > 100 ? 100 : m->key_len), m->key);
            return kp__dctx_fail(d, m, KP_EINVAL, k, "unknown field");
        }
    }
    return KP_OK;
}

kp_status kp__sc_need_obj(kp_dctx *d, const kp_tnode *n, const char *field) {
    if (!n || n->type != KP_T_OBJ)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "expected an object");
    return KP_OK;
}

/* A required (non-empty) string member, copied into the scenario. */
kp_status kp__sc_req_str(kp_dctx *d, scen *s, const kp_tnode *obj, const char *key, char **out) {
    const char *v = NULL;
    bool has = false;
    kp_status st = kp__dget_str(d, obj, key, &v, &has);
    if (st != KP_OK) return st;
    if (!has || !v[0]) return kp__dctx_fail(d, obj, KP_EINVAL, key, "required value");
    *out = kp__sc_sdup(s, v, strlen(v));
    return *out ? KP_OK : kp__sc_nomem(d);
}

/* An optional string member ("" when absent). */
kp_status kp__sc_opt_str(kp_dctx *d, scen *s, const kp_tnode *obj, const char *key, char **out) {
    const char *v = "";
    kp_status st = kp__dget_str(d, obj, key, &v, NULL);
    if (st != KP_OK) return st;
    *out = kp__sc_sdup(s, v, strlen(v));
    return *out ? KP_OK : kp__sc_nomem(d);
}

/* A Go duration (time.ParseDuration) of at least 0, in whole milliseconds. */
kp_status kp__sc_duration_ms(kp_dctx *d, const kp_tnode *obj, const char *key, bool required,
                             int64_t *out, bool *present) {
    const char *v = NULL;
    bool has = false;
    kp_status st = kp__dget_str(d, obj, key, &v, &has);
    if (present) *present = has;
    if (st != KP_OK) return st;
    if (!has) return required ? kp__dctx_fail(d, obj, KP_EINVAL, key, "required value") : KP_OK;
    const kp_tnode *n = kp__tree_get(obj, key);
    int64_t ns = 0;
    char msg[256];
    if (kp__go_parse_duration(v, strlen(v), &ns, msg, sizeof msg) != KP_OK)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "%s",
                             strncmp(msg, "time: ", 6) == 0 ? msg + 6 : msg);
    char q[160];
    kp__go_quote(v, strlen(v), q, sizeof q);
    if (ns < 0) return kp__dctx_fail(d, n, KP_EINVAL, key, "%s must not be negative", q);
    if (ns % 1000000 != 0)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "%s is not a whole number of milliseconds", q);
    *out = ns / 1000000;
    return KP_OK;
}


/* ---------------------------------------------------------------- lifetimes */

const char *kp__sc_label_value_error(const char *v, size_t n) {
    if (n > 63) return "must be no more than 63 characters";
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && !((c == '-' || c == '_' || c == '.') && i > 0 && i + 1 < n))
            return "a valid label must be an empty string or consist of alphanumeric characters, "
                   "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                   "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                   "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    }
    return NULL;
}

static kp_status check_key(kp_dctx *d, const kp_tnode *at, const char *field, const char *k) {
    const char *bad = kp__qualified_name_error(k, strlen(k));
    if (!bad) return KP_OK;
    return kp__dctx_fail(d, at, KP_EINVAL, field, "Invalid value: \"%s\": %s", k, bad);
}

static kp_status check_value(kp_dctx *d, const kp_tnode *at, const char *field, const char *v) {
    const char *bad = kp__sc_label_value_error(v, strlen(v));
    if (!bad) return KP_OK;
    return kp__dctx_fail(d, at, KP_EINVAL, field, "Invalid value: \"%s\": %s", v, bad);
}

static int req_cmp(const void *a, const void *b) {
    return strcmp(((const kp_selector_req *)a)->key, ((const kp_selector_req *)b)->key);
}

/* matchLabels: `In` with one value each, sorted by key (labels.Selector.Add sorts its
 * requirements by key). */
static kp_status match_labels(kp_dctx *d, scen *s, const kp_tnode *ml, kp_selector_req *out) {
    uint32_t i = 0;
    for (const kp_tnode *m = ml->first; m; m = m->next, i++) {
        char *key = kp__sc_sdup(s, m->key, m->key_len),
             **vals = kp__arena_alloc(&s->arena, sizeof *vals);
        if (!key || !vals) return kp__sc_nomem(d);
        kp_status st = kp__d_no_nul(d, m, key, m->key, m->key_len);
        if (st == KP_OK) st = check_key(d, m, NULL, key);
        if (st != KP_OK) return st;
        if (m->type != KP_T_STR && !(m->plain && m->s))
            return kp__dctx_fail(d, m, KP_EINVAL, key, "expected a string");
        if ((st = kp__d_no_nul(d, m, key, m->s, m->len)) != KP_OK) return st;
        if (!(vals[0] = kp__sc_sdup(s, m->s, m->len))) return kp__sc_nomem(d);
        if ((st = check_value(d, m, NULL, vals[0])) != KP_OK) return st;
        out[i] = (kp_selector_req){key, kp__sc_sdup(s, "In", 2), vals, 1};
        if (!out[i].op) return kp__sc_nomem(d);
    }
    if (i > 1) qsort(out, i, sizeof *out, req_cmp);
    return KP_OK;
}

/* mirrors ValidateLabelSelectorRequirement (apimachinery metav1 validation) */
static kp_status match_expr(kp_dctx *d, scen *s, const kp_tnode *e, kp_selector_req *r) {
    static const char *const keys[] = {"key", "operator", "values", NULL};
    kp_status st;
    const kp_tnode *vals = NULL;
    if ((st = kp__sc_need_obj(d, e, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, e, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, s, e, "key", &r->key)) != KP_OK ||
        (st = kp__sc_req_str(d, s, e, "operator", &r->op)) != KP_OK ||
        (st = kp__dget_arr(d, e, "values", &vals)) != KP_OK)
        return st;
    size_t nv = vals ? vals->n : 0;
    bool in = strcmp(r->op, "In") == 0 || strcmp(r->op, "NotIn") == 0;
    bool ex = strcmp(r->op, "Exists") == 0 || strcmp(r->op, "DoesNotExist") == 0;
    if (!in && !ex)
        return kp__dctx_fail(d, kp__tree_get(e, "operator"), KP_EINVAL, "operator",
                             "Invalid value: \"%s\": not a valid selector operator", r->op);
    if (in && nv == 0)
        return kp__dctx_fail(d, e, KP_EINVAL, "values",
                             "Required value: must be specified when `operator` is 'In' or "
                             "'NotIn'");
    if (ex && nv > 0)
        return kp__dctx_fail(d, vals, KP_EINVAL, "values",
                             "Forbidden: may not be specified when `operator` is 'Exists' or "
                             "'DoesNotExist'");
    if ((st = check_key(d, kp__tree_get(e, "key"), "key", r->key)) != KP_OK) return st;
    r->values = nv ? kp__arena_alloc(&s->arena, nv * sizeof *r->values) : NULL;
    if (nv && !r->values) return kp__sc_nomem(d);
    size_t sv = kp__dctx_push(d, "values");
    for (const kp_tnode *v = vals ? vals->first : NULL; v && st == KP_OK; v = v->next) {
        size_t s2 = kp__dctx_push_index(d, (uint32_t)r->n_values);
        if (v->type != KP_T_STR && !(v->plain && v->s))
            st = kp__dctx_fail(d, v, KP_EINVAL, NULL, "expected a string");
        if (st == KP_OK) st = kp__d_no_nul(d, v, NULL, v->s, v->len);
        if (st == KP_OK && !(r->values[r->n_values] = kp__sc_sdup(s, v->s, v->len)))
            st = kp__sc_nomem(d);
        if (st == KP_OK)
            r->n_values++; /* values are not validated (ValidateLabelSelectorRequirement) */
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, sv);
    return st;
}

kp_status kp__sc_decode_selector(kp_dctx *d, scen *s, const kp_tnode *sel, kp_selector_req **reqs,
                                 size_t *n_reqs) {
    static const char *const keys[] = {"matchLabels", "matchExpressions", NULL};
    kp_status st;
    const kp_tnode *ml = NULL, *me = NULL;
    if ((st = kp__sc_need_obj(d, sel, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, sel, keys)) != KP_OK ||
        (st = kp__dget_obj(d, sel, "matchLabels", &ml)) != KP_OK ||
        (st = kp__dget_arr(d, sel, "matchExpressions", &me)) != KP_OK)
        return st;
    size_t n = (ml ? ml->n : 0) + (me ? me->n : 0);
    *reqs = n ? kp__arena_alloc(&s->arena, n * sizeof *(*reqs)) : NULL;
    if (n && !(*reqs)) return kp__sc_nomem(d);
    if (ml) {
        size_t sv = kp__dctx_push(d, "matchLabels");
        st = match_labels(d, s, ml, (*reqs));
        kp__dctx_pop(d, sv);
        if (st != KP_OK) return st;
        *n_reqs = ml->n;
    }
    uint32_t i = 0;
    for (const kp_tnode *e = me ? me->first : NULL; e; e = e->next, i++) {
        size_t sv = kp__dctx_push(d, "matchExpressions");
        kp__dctx_push_index(d, i);
        st = match_expr(d, s, e, &(*reqs)[(*n_reqs)]);
        kp__dctx_pop(d, sv);
        if (st != KP_OK) return st;
        (*n_reqs)++;
    }
    return KP_OK;
}

char *kp__sc_path(const char *base, const char *f) {
    size_t bl = f[0] != '/' && base && base[0] ? strlen(base) : 0;
    char *path = kp__malloc(bl + strlen(f) + 2);
    if (!path) return NULL;
    if (bl) snprintf(path, bl + strlen(f) + 2, "%s/%s", base, f);
    else memcpy(path, f, strlen(f) + 1);
    return path;
}

kp_status kp__sc_name_file(kp_dctx *d, scen *s, const char *key, const char *name) {
    kp_scenario *sc = &s->pub;
    if (!kp__grow((void **)&sc->files, &s->files_cap, sc->n_files + 1, sizeof *sc->files, 4))
        return kp__sc_nomem(d);
    char field[700];
    snprintf(field, sizeof field, "%s%s%s%s%s", d->object, d->object[0] && d->path_len ? "." : "",
             d->path, d->object[0] || d->path_len ? "." : "", key);
    kp_scenario_file *f = &sc->files[sc->n_files];
    f->field = kp__sc_sdup(s, field, strlen(field));
    f->name = kp__sc_sdup(s, name, strlen(name));
    if (!f->field || !f->name) return kp__sc_nomem(d);
    sc->n_files++;
    return KP_OK;
}
