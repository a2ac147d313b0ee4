/* SweepShard documents (include/kprio/sweep.h, docs/reference.md "kprio sweep"): what `kprio
 * sweep --shard I/N` writes and `kprio sweep merge` reads, decoded strictly; and the merge of a
 * sweep's shards into its whole result. A local sweep writes the same document for all of its
 * runs and reads it back, so a merge and a local run render from the same decoded form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "io/dctx.h"
#include "io/decode_scenario.h"
#include "io/events.h"
#include "io/input.h"
#include "io/tree.h"
#include "kprio/sweep.h"

#define KP_SWEEP_MAX_SHARD_BYTES ((size_t)1 << 30)

typedef struct {
    kp_sweep_result pub;
    kp_arena arena;
} result_t;

typedef struct {
    result_t *r;
    bool seen;
} rctx;

static kp_status nomem(kp_dctx *d) { return kp_error_set(d->err, KP_ENOMEM, "out of memory"); }

static char *sdup(result_t *r, const char *p, size_t n) {
    char *c = kp__arena_alloc(&r->arena, n + 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

/* An integer member in [min, max]. */
static kp_status req_int(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t min, int64_t max,
                         int64_t *out) {
    bool has = false;
    kp_status st = kp__dget_int(d, obj, key, min, max, out, &has);
    if (st == KP_OK && !has) return kp__dctx_fail(d, obj, KP_EINVAL, key, "required value");
    return st;
}

static kp_status decode_vars(result_t *r, kp_dctx *d, const kp_tnode *vars) {
    kp_sweep_result *res = &r->pub;
    size_t sv = kp__dctx_push(d, "variables");
    if (!vars || vars->type != KP_T_ARR)
        return kp__dctx_fail(d, vars, KP_EINVAL, NULL, "expected a list");
    kp_sweep_var *v = kp__arena_alloc(&r->arena, (vars->n ? vars->n : 1) * sizeof *v);
    if (!v) return nomem(d);
    uint64_t runs = 1;
    uint32_t i = 0;
    kp_status st;
    for (const kp_tnode *e = vars->first; e; e = e->next, i++) {
        size_t sv2 = kp__dctx_push_index(d, i);
        static const char *const keys[] = {"name", "kind", "values", NULL};
        const char *name = NULL, *kind = NULL;
        bool hn = false, hk = false;
        const kp_tnode *vals = NULL;
        if (e->type != KP_T_OBJ) return kp__dctx_fail(d, e, KP_EINVAL, NULL, "expected an object");
        if ((st = kp__sc_only_keys(d, e, keys)) != KP_OK ||
            (st = kp__dget_str(d, e, "name", &name, &hn)) != KP_OK ||
            (st = kp__dget_str(d, e, "kind", &kind, &hk)) != KP_OK ||
            (st = kp__dget_arr(d, e, "values", &vals)) != KP_OK)
            return st;
        if (!hn || !name[0]) return kp__dctx_fail(d, e, KP_EINVAL, "name", "required value");
        int k = 0;
        while (k < KP_SWEEP_N_KINDS &&
               (!hk || strcmp(kind, kp_sweep_var_kind_name((kp_sweep_var_kind)k)) != 0))
            k++;
        if (k == KP_SWEEP_N_KINDS)
            return kp__dctx_fail(d, e, KP_EINVAL, "kind",
                                 "expected seeds, values, scenarios, configs, kubeletConfigs or "
                                 "priorityLayouts");
        if (!vals || vals->n == 0 || vals->n > KP_SWEEP_MAX_RUNS)
            return kp__dctx_fail(d, e, KP_EINVAL, "values", "expected 1 to %u values",
                                 KP_SWEEP_MAX_RUNS);
        const char **vs = kp__arena_alloc(&r->arena, vals->n * sizeof *vs);
        if (!vs || !(v[i].name = sdup(r, name, strlen(name)))) return nomem(d);
        uint32_t j = 0;
        for (const kp_tnode *x = vals->first; x; x = x->next, j++) {
            if (x->type != KP_T_STR)
                return kp__dctx_fail(d, x, KP_EINVAL, "values", "expected strings");
            if (!(vs[j] = sdup(r, x->s, x->len))) return nomem(d);
        }
        v[i].kind = (kp_sweep_var_kind)k;
        v[i].values = vs;
        v[i].n_values = j;
        runs *= j;
        if (runs > KP_SWEEP_MAX_RUNS)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL, "more than %u runs (KP_SWEEP_MAX_RUNS)",
                                 KP_SWEEP_MAX_RUNS);
        kp__dctx_pop(d, sv2);
    }
    if (runs != res->n_runs)
        return kp__dctx_fail(d, vars, KP_EINVAL, NULL,
                             "the variables make %llu runs, not runs: %zu",
                             (unsigned long long)runs, res->n_runs);
    res->vars = v;
    res->n_vars = i;
    kp__dctx_pop(d, sv);
    return KP_OK;
}

static kp_status decode_figs(result_t *r, kp_dctx *d, const kp_tnode *f) {
    size_t sv = kp__dctx_push(d, "figures");
    if (!f || f->type != KP_T_ARR || f->n > KP_FIG_COUNT)
        return kp__dctx_fail(d, f, KP_EINVAL, NULL, "expected a list of figure names");
    kp_sweep_figure *figs = kp__arena_alloc(&r->arena, (f->n ? f->n : 1) * sizeof *figs);
    if (!figs) return nomem(d);
    uint32_t i = 0;
    for (const kp_tnode *e = f->first; e; e = e->next, i++) {
        int k = 0;
        while (k < KP_FIG_COUNT &&
               (e->type != KP_T_STR || strlen(kp_sweep_figure_name((kp_sweep_figure)k)) != e->len ||
                memcmp(kp_sweep_figure_name((kp_sweep_figure)k), e->s, e->len) != 0))
            k++;
        if (k == KP_FIG_COUNT) {
            kp__dctx_push_index(d, i);
            return kp__dctx_fail(d, e, KP_EINVAL, NULL, "not a figure name");
        }
        figs[i] = (kp_sweep_figure)k;
    }
    r->pub.figures = figs;
    r->pub.n_figures = i;
    kp__dctx_pop(d, sv);
    return KP_OK;
}

static kp_status decode_row(result_t *r, kp_dctx *d, const kp_tnode *e, size_t expect,
                            kp_sweep_row *row) {
    static const char *const keys[] = {"run", "error", "figures", NULL};
    kp_status st;
    int64_t run = 0;
    if (e->type != KP_T_OBJ) return kp__dctx_fail(d, e, KP_EINVAL, NULL, "expected an object");
    if ((st = kp__sc_only_keys(d, e, keys)) != KP_OK ||
        (st = req_int(d, e, "run", 0, (int64_t)r->pub.n_runs - 1, &run)) != KP_OK)
        return st;
    if ((size_t)run != expect)
        return kp__dctx_fail(d, e, KP_EINVAL, "run",
                             "expected %zu (the shard's runs in order: run %% shards == shard)",
                             expect);
    row->run = (size_t)run;
    const kp_tnode *er = kp__tree_get(e, "error");
    if (er && er->type != KP_T_NULL) {
        if (er->type != KP_T_STR || !er->len)
            return kp__dctx_fail(d, er, KP_EINVAL, "error", "expected a message or null");
        if (!(row->error = sdup(r, er->s, er->len))) return nomem(d);
        if (kp__tree_get(e, "figures"))
            return kp__dctx_fail(d, e, KP_EINVAL, "figures", "a failed run has no figures");
        return KP_OK;
    }
    const kp_tnode *f = kp__tree_get(e, "figures");
    if (!f || f->type != KP_T_ARR || f->n != r->pub.n_figures)
        return kp__dctx_fail(d, f ? f : e, KP_EINVAL, "figures",
                             "expected a list of %zu integers (one per figure)", r->pub.n_figures);
    int64_t *v = kp__arena_alloc(&r->arena, (f->n ? f->n : 1) * sizeof *v);
    if (!v) return nomem(d);
    uint32_t i = 0;
    for (const kp_tnode *x = f->first; x; x = x->next, i++) {
        char *end = NULL, num[32];
        if (x->type != KP_T_NUM || x->len >= sizeof num)
            return kp__dctx_fail(d, x, KP_EINVAL, "figures", "expected integers");
        memcpy(num, x->s, x->len);
        num[x->len] = '\0';
        long long n = strtoll(num, &end, 10);
        if (*end || end == num)
            return kp__dctx_fail(d, x, KP_EINVAL, "figures", "expected integers");
        v[i] = n;
    }
    row->figures = v;
    return KP_OK;
}

static kp_status on_doc(void *ctx, const kp_tnode *root, const kp_tdoc *doc, kp_error *err) {
    rctx *x = ctx;
    result_t *r = x->r;
    kp_sweep_result *res = &r->pub;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    kp_status st;
    if (x->seen) return kp__dctx_fail(&d, root, KP_EINVAL, NULL, "more than one document");
    x->seen = true;
    if ((st = kp__d_dup_keys(&d, (kp_tnode *)root, true, NULL, NULL)) != KP_OK) return st;
    static const char *const keys[] = {"apiVersion", "kind",      "sweep",   "runs", "shard",
                                       "shards",     "variables", "figures", "rows", NULL};
    const char *av = NULL, *kind = NULL, *sweep = "";
    bool has_av = false, has_kind = false, has_sweep = false;
    if ((st = kp__dget_str(&d, root, "apiVersion", &av, &has_av)) != KP_OK ||
        (st = kp__dget_str(&d, root, "kind", &kind, &has_kind)) != KP_OK)
        return st;
    if (!has_kind || strcmp(kind, "SweepShard") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "kind", "expected SweepShard");
    if (!has_av || strcmp(av, "kprio/v1alpha1") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "apiVersion", "expected kprio/v1alpha1");
    int64_t runs = 0, shard = 0, shards = 0;
    if ((st = kp__sc_only_keys(&d, root, keys)) != KP_OK ||
        (st = kp__dget_str(&d, root, "sweep", &sweep, &has_sweep)) != KP_OK ||
        (st = req_int(&d, root, "runs", 1, KP_SWEEP_MAX_RUNS, &runs)) != KP_OK ||
        (st = req_int(&d, root, "shards", 1, KP_SWEEP_MAX_RUNS, &shards)) != KP_OK ||
        (st = req_int(&d, root, "shard", 0, shards - 1, &shard)) != KP_OK)
        return st;
    if (!(res->sweep = sdup(r, sweep, strlen(sweep)))) return nomem(&d);
    res->n_runs = (size_t)runs;
    res->shard = (size_t)shard;
    res->n_shards = (size_t)shards;
    if ((st = decode_vars(r, &d, kp__tree_get(root, "variables"))) != KP_OK ||
        (st = decode_figs(r, &d, kp__tree_get(root, "figures"))) != KP_OK)
        return st;
    const kp_tnode *rows = kp__tree_get(root, "rows");
    size_t want = res->shard < res->n_runs
                      ? (res->n_runs - res->shard + res->n_shards - 1) / res->n_shards
                      : 0;
    size_t sv = kp__dctx_push(&d, "rows");
    if (!rows || rows->type != KP_T_ARR || rows->n != want)
        return kp__dctx_fail(&d, rows ? rows : root, KP_EINVAL, NULL,
                             "expected %zu rows (runs %zu, %zu shards)", want, res->n_runs,
                             res->n_shards);
    kp_sweep_row *rw = kp__arena_alloc(&r->arena, (want ? want : 1) * sizeof *rw);
    if (!rw) return nomem(&d);
    uint32_t i = 0;
    for (const kp_tnode *e = rows->first; e; e = e->next, i++) {
        size_t sv2 = kp__dctx_push_index(&d, i);
        if ((st = decode_row(r, &d, e, res->shard + (size_t)i * res->n_shards, &rw[i])) != KP_OK)
            return st;
        kp__dctx_pop(&d, sv2);
    }
    kp__dctx_pop(&d, sv);
    res->rows = rw;
    res->n_rows = i;
    return KP_OK;
}

void kp_sweep_result_free(kp_sweep_result *res) {
    if (!res) return;
    result_t *r = (result_t *)res;
    kp__arena_fini(&r->arena);
    kp__free(r);
}

static kp_status load_padded(const char *source, const char *buf, size_t len, kp_sweep_result **out,
                             kp_error *err) {
    result_t *r = kp__calloc(1, sizeof *r);
    if (!r) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__arena_init(&r->arena);
    rctx x = {r, false};
    kp_status st = kp__tree_parse(source, buf, len, false, on_doc, &x, err);
    if (st == KP_OK && !x.seen) st = kp_error_set(err, KP_EINVAL, "empty document");
    if (st != KP_OK) {
        if (err && !err->source[0]) snprintf(err->source, sizeof err->source, "%s", source);
        kp_sweep_result_free(&r->pub);
        return st;
    }
    *out = &r->pub;
    return KP_OK;
}

kp_status kp_sweep_result_load_buffer(const char *source, const char *buf, size_t len,
                                      kp_sweep_result **out, kp_error *err) {
    *out = NULL;
    if (!source) source = "";
    if (len > KP_SWEEP_MAX_SHARD_BYTES) {
        kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                     KP_SWEEP_MAX_SHARD_BYTES);
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        return KP_ELIMIT;
    }
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (len) memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = load_padded(source, copy, len, out, err);
    kp__free(copy);
    return st;
}

kp_status kp_sweep_result_load_path(const char *path, kp_sweep_result **out, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, KP_SWEEP_MAX_SHARD_BYTES, &buf, &len, err);
    if (st == KP_OK) st = load_padded(path, buf, len, out, err);
    else if (err) snprintf(err->source, sizeof err->source, "%s", path);
    kp__free(buf);
    return st;
}

/* ---------------------------------------------------------------- merge */

/* Whether two shards come from one sweep: name, runs, shard count, variables, figures. */
static const char *differs(const kp_sweep_result *a, const kp_sweep_result *b) {
    if (strcmp(a->sweep, b->sweep) != 0) return "sweep";
    if (a->n_runs != b->n_runs) return "runs";
    if (a->n_shards != b->n_shards) return "shards";
    if (a->n_vars != b->n_vars) return "variables";
    for (size_t i = 0; i < a->n_vars; i++) {
        const kp_sweep_var *x = &a->vars[i], *y = &b->vars[i];
        if (strcmp(x->name, y->name) != 0 || x->kind != y->kind || x->n_values != y->n_values)
            return "variables";
        for (size_t k = 0; k < x->n_values; k++)
            if (strcmp(x->values[k], y->values[k]) != 0) return "variables";
    }
    if (a->n_figures != b->n_figures ||
        memcmp(a->figures, b->figures, a->n_figures * sizeof *a->figures) != 0)
        return "figures";
    return NULL;
}

static kp_status merge_fail(kp_error *err, const char *source, const char *msg) {
    kp_error_set(err, KP_EINVAL, "%s", msg);
    if (err) snprintf(err->source, sizeof err->source, "%s", source);
    return KP_EINVAL;
}

/* n elements of size sz (room for one at least: never a NULL for an empty array) */
static void *dup_n(result_t *r, const void *p, size_t n, size_t sz) {
    void *c = kp__arena_alloc(&r->arena, (n ? n : 1) * sz);
    if (c && n) memcpy(c, p, n * sz);
    return c;
}

kp_status kp_sweep_result_merge(const kp_sweep_result *const *parts, const char *const *sources,
                                size_t n, kp_sweep_result **out, kp_error *err) {
    *out = NULL;
    if (n == 0) return kp_error_set(err, KP_EINVAL, "no shard to merge");
    const kp_sweep_result *first = parts[0];
    const kp_sweep_result **by = kp__calloc(first->n_shards, sizeof *by);
    if (!by) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = KP_OK;
    for (size_t i = 0; i < n && st == KP_OK; i++) {
        const char *what = differs(first, parts[i]);
        char msg[600];
        if (what) {
            snprintf(msg, sizeof msg,
                     "%s: not the same as in %s: a shard of another sweep or sharding", what,
                     sources[0]);
            st = merge_fail(err, sources[i], msg);
        } else if (by[parts[i]->shard]) {
            snprintf(msg, sizeof msg, "shard %zu: given twice", parts[i]->shard);
            st = merge_fail(err, sources[i], msg);
        } else {
            by[parts[i]->shard] = parts[i];
        }
    }
    for (size_t s = 0; s < first->n_shards && st == KP_OK; s++)
        if (!by[s]) {
            char msg[160];
            snprintf(msg, sizeof msg, "shard %zu of %zu is missing", s, first->n_shards);
            st = merge_fail(err, sources[0], msg);
        }
    result_t *r = st == KP_OK ? kp__calloc(1, sizeof *r) : NULL;
    if (st == KP_OK && !r) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) {
        kp__arena_init(&r->arena);
        r->pub = *first; /* strings and values borrowed until copied below */
        r->pub.shard = 0;
        r->pub.n_shards = 1;
        kp_sweep_row *rows = kp__arena_alloc(&r->arena, first->n_runs * sizeof *rows);
        char *name = sdup(r, first->sweep, strlen(first->sweep));
        kp_sweep_var *vars = kp__arena_alloc(&r->arena, (first->n_vars + 1) * sizeof *vars);
        kp_sweep_figure *figs = dup_n(r, first->figures, first->n_figures, sizeof *figs);
        bool ok = rows && name && vars && figs;
        for (size_t i = 0; ok && i < first->n_vars; i++) {
            const kp_sweep_var *v = &first->vars[i];
            const char **vs = kp__arena_alloc(&r->arena, v->n_values * sizeof *vs);
            ok = vs && (vars[i].name = sdup(r, v->name, strlen(v->name)));
            for (size_t k = 0; ok && k < v->n_values; k++)
                ok = (vs[k] = sdup(r, v->values[k], strlen(v->values[k]))) != NULL;
            vars[i].kind = v->kind;
            vars[i].values = vs;
            vars[i].n_values = v->n_values;
        }
        for (size_t run = 0; ok && run < first->n_runs; run++) {
            const kp_sweep_row *src = &by[run % first->n_shards]->rows[run / first->n_shards];
            rows[run].run = run;
            if (src->error) ok = (rows[run].error = sdup(r, src->error, strlen(src->error)));
            else
                ok =
                    (rows[run].figures = dup_n(r, src->figures, first->n_figures, sizeof(int64_t)));
        }
        if (!ok) {
            st = kp_error_set(err, KP_ENOMEM, "out of memory");
            kp_sweep_result_free(&r->pub);
        } else {
            r->pub.sweep = name;
            r->pub.vars = vars;
            r->pub.figures = figs;
            r->pub.rows = rows;
            r->pub.n_rows = first->n_runs;
            *out = &r->pub;
        }
    }
    kp__free(by);
    return st;
}
