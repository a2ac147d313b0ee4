/* The JSON encoding of kp_cluster_encode_json on base/json.h's writer: the encoder's nesting
 * limit and the spellings of the values the API server prints (sorted maps, quantities, RFC 3339
 * times). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/civil.h"
#include "core/cluster.h"
#include "core/meta.h"
#include "core/quantity.h"
#include "io/encode_json.h"
#include "kprio/quantity.h"

kp_status kp__enc_init(kp__enc *e, const kp_cluster *cl, bool pretty, kp_write_fn w, void *ctx,
                       kp_error *err) {
    memset(e, 0, sizeof *e);
    e->cl = cl;
    e->err = err;
    kp__json_init(&e->j, pretty, w, ctx, err);
    e->qcache = e->j.st == KP_OK ? kp__calloc(KP__ENC_QCACHE, sizeof *e->qcache) : NULL;
    if (!e->qcache) kp__json_fail(&e->j, KP_ENOMEM);
    return e->j.st;
}

kp_status kp__enc_finish(kp__enc *e) {
    kp_status st = kp__json_flush(&e->j);
    kp__json_free(&e->j);
    kp__free(e->pairs);
    kp__free(e->qcache);
    e->pairs = NULL;
    e->qcache = NULL;
    return st;
}

static void key(kp__enc *e, const char *k) {
    if (k) kp__json_key(&e->j, k);
}

/* Containers: the encoder's own nesting is fixed by the code (KP__ENC_MAX_DEPTH). */
static bool depth_ok(kp__enc *e) {
    if (e->j.st != KP_OK) return false;
    if (e->j.depth < KP__ENC_MAX_DEPTH) return true;
    kp__json_fail(&e->j, kp_error_set(e->err, KP_ELIMIT,
                                      "encoder nesting deeper than KP__ENC_MAX_DEPTH (%d): a bug",
                                      KP__ENC_MAX_DEPTH));
    return false;
}

void kp__enc_obj(kp__enc *e, const char *k) {
    key(e, k);
    if (depth_ok(e)) kp__json_obj(&e->j);
}

void kp__enc_arr(kp__enc *e, const char *k) {
    key(e, k);
    if (depth_ok(e)) kp__json_arr(&e->j);
}

void kp__enc_end_obj(kp__enc *e) { kp__json_end_obj(&e->j); }
void kp__enc_end_arr(kp__enc *e) { kp__json_end_arr(&e->j); }

void kp__enc_str(kp__enc *e, const char *k, const char *s) {
    key(e, k);
    kp__json_str(&e->j, s ? s : "");
}

void kp__enc_int(kp__enc *e, const char *k, int64_t v) {
    key(e, k);
    kp__json_int(&e->j, v);
}

void kp__enc_bool(kp__enc *e, const char *k, bool v) {
    key(e, k);
    kp__json_bool(&e->j, v);
}

void kp__enc_sid(kp__enc *e, const char *key, kp_str s) {
    if (s) kp__enc_str(e, key, kp__s(e->cl, s));
}

/* metav1.Time's JSON: RFC 3339 in UTC, whole seconds (the model keeps no fraction). */
void kp__enc_time(kp__enc *e, const char *key, int64_t secs) {
    if (secs == KP_TIME_NONE) return;
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    int mo, d;
    kp__civil_from_days(days, &y, &mo, &d);
    char b[64];
    snprintf(b, sizeof b, "%04" PRId64 "-%02d-%02dT%02u:%02u:%02uZ", y, mo, d,
             (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60));
    kp__enc_str(e, key, b);
}

void kp__enc_head(kp__enc *e, const char *api, const char *kind, kp_str ns, kp_str name) {
    kp__enc_str(e, "apiVersion", api);
    kp__enc_str(e, "kind", kind);
    kp__enc_obj(e, "metadata");
    kp__enc_str(e, "name", kp__s(e->cl, name));
    kp__enc_sid(e, "namespace", ns);
}

static int pair_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void kp__enc_labels(kp__enc *e, const char *key, const kp_labels *l, bool always) {
    kp__enc_labels_plus(e, key, l, NULL, always);
}

void kp__enc_labels_plus(kp__enc *e, const char *key, const kp_labels *l, const kp_label *extra,
                         bool always) {
    kp_str v;
    if (extra && kp__labels_get(l, extra->key, &v)) extra = NULL;
    uint32_t n = l->n + (extra != NULL);
    if (e->j.st != KP_OK || (!n && !always)) return;
    if (n > e->cap_pairs / 2) {
        void *p = e->pairs;
        if (!kp__grow(&p, &e->cap_pairs, (size_t)n * 2, sizeof *e->pairs, 64)) {
            kp__json_fail(&e->j, KP_ENOMEM);
            return;
        }
        e->pairs = p;
    }
    for (uint32_t i = 0; i < l->n; i++) {
        e->pairs[2 * i] = kp__s(e->cl, l->items[i].key);
        e->pairs[2 * i + 1] = kp__s(e->cl, l->items[i].val);
    }
    if (extra) {
        e->pairs[2 * l->n] = kp__s(e->cl, extra->key);
        e->pairs[2 * l->n + 1] = kp__s(e->cl, extra->val);
    }
    qsort(e->pairs, n, 2 * sizeof *e->pairs, pair_cmp);
    kp__enc_obj(e, key);
    for (uint32_t i = 0; i < n; i++) kp__enc_str(e, e->pairs[2 * i], e->pairs[2 * i + 1]);
    kp__enc_end_obj(e);
}

/* Quantity.String() of an amount the model keeps as an integer without its spelling: millicores
 * for cpu, else NewQuantity in BinarySI when it is a whole number of KiB (kubelets report memory
 * that way), DecimalSI otherwise. */
static kp_quantity_str amount_string(int res, int64_t v) {
    if (res == KP_RES_CPU) return kp_quantity_string_milli(v, KP_QFMT_DECIMAL_SI);
    return kp_quantity_string_int(v, (v != 0 && v % 1024 == 0) ? KP_QFMT_BINARY_SI
                                                               : KP_QFMT_DECIMAL_SI);
}

/* Quantity.String() (what MarshalJSON prints) of a quantity read from text: the text itself when
 * ParseQuantity keeps it, else the canonical form. */
void kp__enc_quantity(kp__enc *e, const char *key, int res, kp_str text, int64_t v) {
    const char *t = text ? kp__s(e->cl, text) : NULL;
    size_t len = t ? kp__strlen(&e->cl->strs, text) : 0;
    kp_quantity q;
    if (len && len < KP_QUANTITY_STR_MAX) {
        kp__enc_qslot *c = &e->qcache[text & (KP__ENC_QCACHE - 1)];
        if (c->text != text && kp_quantity_parse(t, len, &q, NULL) == KP_OK) {
            c->text = text;
            if (kp_quantity_parse_keeps_string(t, len)) memcpy(c->s.s, t, len + 1);
            else c->s = kp_quantity_string(&q);
        }
        if (c->text == text) {
            kp__enc_str(e, key, c->s.s);
            return;
        }
    } else if (len && kp_quantity_parse(t, len, &q, NULL) == KP_OK) {
        kp__enc_str(e, key, kp_quantity_parse_keeps_string(t, len) ? t : kp_quantity_string(&q).s);
        return;
    }
    kp__enc_str(e, key, amount_string(res, v).s);
}

typedef struct {
    const char *name;
    int res;
    kp_str text;
    int64_t v;
} res_item;

static int res_cmp(const void *a, const void *b) {
    return strcmp(((const res_item *)a)->name, ((const res_item *)b)->name);
}

static void res_items(kp__enc *e, const char *key, res_item *it, size_t n) {
    qsort(it, n, sizeof *it, res_cmp);
    kp__enc_obj(e, key);
    for (size_t i = 0; i < n; i++) kp__enc_quantity(e, it[i].name, it[i].res, it[i].text, it[i].v);
    kp__enc_end_obj(e);
}

void kp__enc_resv(kp__enc *e, const char *key, const kp_resv *v, bool always) {
    if (!v->n && !always) return;
    res_item it[KP_MAX_RES] = {{0}};
    size_t n = 0;
    for (uint16_t i = 0; i < v->n && n < KP_MAX_RES; i++)
        it[n++] = (res_item){kp__s(e->cl, e->cl->res_names[v->e[i].res]), v->e[i].res, v->e[i].text,
                             v->e[i].v};
    res_items(e, key, it, n);
}

void kp__enc_dense(kp__enc *e, const char *key, const int64_t *v, const bool *has) {
    res_item it[KP_MAX_RES] = {{0}};
    size_t n = 0;
    for (uint32_t r = 0; r < e->cl->n_res && r < KP_MAX_RES; r++)
        if (has ? has[r] : v[r] != 0)
            it[n++] = (res_item){kp__s(e->cl, e->cl->res_names[r]), (int)r, 0, v[r]};
    if (n) res_items(e, key, it, n);
}

void kp__enc_strs(kp__enc *e, const char *key, uint16_t n, const kp_str *s) {
    if (!n) return;
    kp__enc_arr(e, key);
    for (uint16_t i = 0; i < n; i++) kp__enc_str(e, NULL, kp__s(e->cl, s[i]));
    kp__enc_end_arr(e);
}

void kp__enc_selreqs(kp__enc *e, const char *key, uint16_t n, const kp_selreq *r) {
    static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    if (!n) return;
    kp__enc_arr(e, key);
    for (uint16_t i = 0; i < n; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "key", kp__s(e->cl, r[i].key));
        kp__enc_str(e, "operator", (unsigned)r[i].op < 6 ? ops[r[i].op] : "");
        kp__enc_strs(e, "values", r[i].n_values, r[i].values);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

void kp__enc_selector(kp__enc *e, const char *key, const kp_label_selector *s) {
    if (!s->is_set) return;
    kp__enc_obj(e, key);
    kp__enc_labels(e, "matchLabels", &s->match_labels, false);
    kp__enc_selreqs(e, "matchExpressions", s->n_exprs, s->exprs);
    kp__enc_end_obj(e);
}

void kp__enc_nsterm(kp__enc *e, const char *key, const kp_nsterm *t) {
    kp__enc_obj(e, key);
    kp__enc_selreqs(e, "matchExpressions", t->n_exprs, t->exprs);
    kp__enc_selreqs(e, "matchFields", t->n_fields, t->fields);
    kp__enc_end_obj(e);
}

void kp__enc_newline(kp__enc *e) { kp__json_raw(&e->j, "\n", 1); }
