/* Sweep files of `kprio sweep` (include/kprio/sweep.h; the format: docs/reference.md "kprio
 * sweep"): apiVersion kprio/v1alpha1, kind Sweep, YAML or JSON, decoded strictly (unknown fields
 * and duplicate keys are errors) with a field path in every error; then the scenario templates
 * checked against the numeric variables, and a run's scenario with its values substituted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/buf.h"
#include "io/dctx.h"
#include "io/decode_scenario.h"
#include "io/events.h"
#include "io/input.h"
#include "io/tree.h"
#include "kprio/priority_layout.h"
#include "kprio/sweep.h"

/* Named limits (errors say which): bytes of a Sweep file and of a scenario template. */
#define KP_SWEEP_MAX_FILE_BYTES ((size_t)64 << 20)

typedef struct {
    kp_sweep pub;
    kp_arena arena;
} sweep_t;

typedef struct {
    sweep_t *s;
    const char *source, *base_dir;
    bool seen;
} swctx;

static const char *const KIND_NAMES[KP_SWEEP_N_KINDS] = {
    "seeds", "values", "scenarios", "configs", "kubeletConfigs", "priorityLayouts"};

const char *kp_sweep_var_kind_name(kp_sweep_var_kind k) {
    return (unsigned)k < KP_SWEEP_N_KINDS ? KIND_NAMES[k] : "?";
}

static const char *const FIG_NAMES[KP_FIG_COUNT] = {
    "events",
    "scheduleAttempts",
    "scheduled",
    "unschedulable",
    "preemptionAttempts",
    "preemptions",
    "victims",
    "podsCreated",
    "podsDeleted",
    "podsSucceeded",
    "podsFailed",
    "pendingAtEnd",
    "gatedAtEnd",
    "kubeletEvictions",
    "kubeletRejections",
    "kubeletPreemptions",
    "oomKills",
    "disruptions.preemption",
    "disruptions.nodePressure",
    "disruptions.admission",
    "disruptions.evictionAPI",
    "disruptions.taintManager",
    "disruptions.deletion",
    "longestTimeToSchedule",
    "pendingTime.p50",
    "pendingTime.p90",
    "pendingTime.p99",
    "pendingTime.max",
    "findings",
    "findings.critical",
    "findings.warning",
    "findings.info",
    "findings.Loop",
    "findings.Cascade",
    "findings.Starvation",
    "findings.PDBPressure",
    "findings.PressureHotSpot",
    "pdbsViolated",
    "pdbsAtZero",
    "evictionsBlocked",
    "starvedPods",
    "starvedNeverBound",
    "starvedWorkloads",
    "pressureEvictions",
};

const char *kp_sweep_figure_name(kp_sweep_figure f) {
    return (unsigned)f < KP_FIG_COUNT ? FIG_NAMES[f] : "?";
}

static char *sdup(sweep_t *s, const char *p, size_t n) {
    char *c = kp__arena_alloc(&s->arena, n + 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

static kp_status nomem(kp_dctx *d) { return kp_error_set(d->err, KP_ENOMEM, "out of memory"); }

static bool is_text(const kp_tnode *n);

/* A path as written and resolved against the Sweep file's directory. */
static kp_status path_of(swctx *x, kp_dctx *d, const kp_tnode *n, const char *field,
                         const char **raw, const char **resolved) {
    if (!is_text(n) || n->len == 0)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "expected a file name");
    if (kp__d_no_nul(d, n, field, n->s, n->len) != KP_OK) return KP_EINVAL;
    char *r = sdup(x->s, n->s, n->len);
    char *p = r ? kp__sc_path(x->base_dir, r) : NULL;
    char *pa = p ? sdup(x->s, p, strlen(p)) : NULL;
    kp__free(p);
    if (!pa) return nomem(d);
    *raw = r;
    *resolved = pa;
    return KP_OK;
}

static kp_status opt_path(swctx *x, kp_dctx *d, const kp_tnode *obj, const char *key,
                          const char **raw, const char **resolved) {
    const kp_tnode *n = kp__tree_get(obj, key);
    if (!n || n->type == KP_T_NULL) return KP_OK;
    return path_of(x, d, n, key, raw, resolved);
}

/* A non-negative integer up to 2^64-1 (the simulator's seed). */
static bool parse_u64(const kp_tnode *n, uint64_t *out) {
    if (n->type != KP_T_NUM || n->len == 0 || n->len > 20) return false;
    uint64_t v = 0;
    for (uint32_t i = 0; i < n->len; i++) {
        if (n->s[i] < '0' || n->s[i] > '9') return false;
        unsigned dg = (unsigned)(n->s[i] - '0');
        if (v > (UINT64_MAX - dg) / 10) return false;
        v = v * 10 + dg;
    }
    *out = v;
    return true;
}

/* A number as a scenario writes one: -?DIGITS(.DIGITS)? */
static bool is_number(const char *s, size_t len) {
    size_t i = s[0] == '-' && len > 1 ? 1 : 0, digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (!digits) return false;
    if (i < len && s[i] == '.') {
        size_t frac = 0;
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) frac++;
        if (!frac) return false;
    }
    return i == len;
}

/* A scalar read as text: a string, or a YAML plain scalar where a string is expected (`name: n`
 * is the string "n", as sigs.k8s.io/yaml reads it). */
static bool is_text(const kp_tnode *n) {
    return n && (n->type == KP_T_STR ||
                 (n->plain && n->s && n->type != KP_T_OBJ && n->type != KP_T_ARR));
}

static bool name_ok(const char *s, size_t len) {
    if (!len || (s[0] >= '0' && s[0] <= '9')) return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- base */

static kp_status decode_base(swctx *x, kp_dctx *d, const kp_tnode *base) {
    kp_sweep *sw = &x->s->pub;
    size_t sv = kp__dctx_push(d, "base");
    kp_status st;
    if (!base || base->type != KP_T_OBJ)
        return kp__dctx_fail(d, base, KP_EINVAL, NULL, "expected an object (snapshot: required)");
    static const char *const keys[] = {"snapshot", "scenario", "config", "kubeletConfig",
                                       "duration", "seed",     NULL};
    if ((st = kp__sc_only_keys(d, base, keys)) != KP_OK) return st;
    const kp_tnode *snap = kp__tree_get(base, "snapshot");
    if (snap && is_text(snap)) { /* one file: the list of one */
        const char **raw = kp__arena_alloc(&x->s->arena, sizeof *raw);
        const char **res = kp__arena_alloc(&x->s->arena, sizeof *res);
        if (!raw || !res) return nomem(d);
        if ((st = path_of(x, d, snap, "snapshot", &raw[0], &res[0])) != KP_OK) return st;
        sw->snapshot_raw = raw;
        sw->snapshot = res;
        sw->n_snapshot = 1;
    } else {
        if (!snap || snap->type != KP_T_ARR || snap->n == 0)
            return kp__dctx_fail(d, snap ? snap : base, KP_EINVAL, "snapshot",
                                 "required: a file or directory, or a list of them (as -f)");
        const char **raw = kp__arena_alloc(&x->s->arena, snap->n * sizeof *raw);
        const char **res = kp__arena_alloc(&x->s->arena, snap->n * sizeof *res);
        if (!raw || !res) return nomem(d);
        size_t sv2 = kp__dctx_push(d, "snapshot");
        uint32_t i = 0;
        for (const kp_tnode *e = snap->first; e; e = e->next, i++) {
            size_t sv3 = kp__dctx_push_index(d, i);
            if ((st = path_of(x, d, e, NULL, &raw[i], &res[i])) != KP_OK) return st;
            kp__dctx_pop(d, sv3);
        }
        kp__dctx_pop(d, sv2);
        sw->snapshot_raw = raw;
        sw->snapshot = res;
        sw->n_snapshot = i;
    }
    if ((st = opt_path(x, d, base, "scenario", &sw->scenario_raw, &sw->scenario)) != KP_OK ||
        (st = opt_path(x, d, base, "config", &sw->config_raw, &sw->config)) != KP_OK ||
        (st = opt_path(x, d, base, "kubeletConfig", &sw->kubelet_config_raw,
                       &sw->kubelet_config)) != KP_OK ||
        (st = kp__sc_duration_ms(d, base, "duration", false, &sw->duration_ms,
                                 &sw->has_duration)) != KP_OK)
        return st;
    if (sw->has_duration && sw->duration_ms <= 0)
        return kp__dctx_fail(d, kp__tree_get(base, "duration"), KP_EINVAL, "duration",
                             "expected a positive duration");
    const kp_tnode *seed = kp__tree_get(base, "seed");
    if (seed && seed->type != KP_T_NULL) {
        if (!parse_u64(seed, &sw->seed))
            return kp__dctx_fail(d, seed, KP_EINVAL, "seed",
                                 "expected an integer from 0 to 18446744073709551615");
        sw->has_seed = true;
    }
    kp__dctx_pop(d, sv);
    return KP_OK;
}

/* ---------------------------------------------------------------- matrix */

static kp_status decode_values(swctx *x, kp_dctx *d, const kp_tnode *list, kp_sweep_var *v) {
    sweep_t *s = x->s;
    size_t sv = kp__dctx_push(d, kp_sweep_var_kind_name(v->kind));
    if (list->type != KP_T_ARR || list->n == 0)
        return kp__dctx_fail(d, list, KP_EINVAL, NULL, "expected a list of at least one value");
    if (list->n > KP_SWEEP_MAX_RUNS)
        return kp__dctx_fail(d, list, KP_ELIMIT, NULL,
                             "more than %u values (KP_SWEEP_MAX_RUNS, kprio's limit)",
                             KP_SWEEP_MAX_RUNS);
    const char **vals = kp__arena_alloc(&s->arena, list->n * sizeof *vals);
    const char **paths = NULL;
    uint64_t *seeds = NULL;
    if (!vals) return nomem(d);
    bool file = v->kind >= KP_SWEEP_SCENARIOS;
    if (file && !(paths = kp__arena_alloc(&s->arena, list->n * sizeof *paths))) return nomem(d);
    if (v->kind == KP_SWEEP_SEEDS && !(seeds = kp__arena_alloc(&s->arena, list->n * sizeof *seeds)))
        return nomem(d);
    uint32_t i = 0;
    kp_status st;
    for (const kp_tnode *e = list->first; e; e = e->next, i++) {
        size_t sv2 = kp__dctx_push_index(d, i);
        if (file) {
            if ((st = path_of(x, d, e, NULL, &vals[i], &paths[i])) != KP_OK) return st;
        } else if (v->kind == KP_SWEEP_SEEDS) {
            if (!parse_u64(e, &seeds[i]))
                return kp__dctx_fail(d, e, KP_EINVAL, NULL,
                                     "expected an integer from 0 to 18446744073709551615");
        } else if ((e->type != KP_T_NUM && e->type != KP_T_STR) || !is_number(e->s, e->len)) {
            return kp__dctx_fail(d, e, KP_EINVAL, NULL,
                                 "expected a number (digits, an optional sign and fraction)");
        }
        if (!file && !(vals[i] = sdup(s, e->s, e->len))) return nomem(d);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(vals[k], vals[i]) == 0)
                return kp__dctx_fail(d, e, KP_EINVAL, NULL, "\"%s\" is already values[%u]", vals[i],
                                     k);
        kp__dctx_pop(d, sv2);
    }
    v->values = vals;
    v->paths = paths;
    v->seeds = seeds;
    v->n_values = i;
    kp__dctx_pop(d, sv);
    return KP_OK;
}

static kp_status decode_var(swctx *x, kp_dctx *d, const kp_tnode *e, kp_sweep_var *v) {
    static const char *const keys[] = {"name",    "seeds",          "values",          "scenarios",
                                       "configs", "kubeletConfigs", "priorityLayouts", NULL};
    kp_status st;
    if (e->type != KP_T_OBJ) return kp__dctx_fail(d, e, KP_EINVAL, NULL, "expected an object");
    if ((st = kp__sc_only_keys(d, e, keys)) != KP_OK) return st;
    const kp_tnode *nm = kp__tree_get(e, "name");
    if (!is_text(nm) || !name_ok(nm->s, nm->len))
        return kp__dctx_fail(d, nm ? nm : e, KP_EINVAL, "name",
                             "required: letters, digits and _, not starting with a digit");
    if (!(v->name = sdup(x->s, nm->s, nm->len))) return nomem(d);
    const kp_tnode *list = NULL;
    for (int k = 0; k < KP_SWEEP_N_KINDS; k++) {
        const kp_tnode *l = kp__tree_get(e, KIND_NAMES[k]);
        if (!l) continue;
        if (list)
            return kp__dctx_fail(d, l, KP_EINVAL, KIND_NAMES[k],
                                 "a variable has one kind (%s "
                                 "given too)",
                                 kp_sweep_var_kind_name(v->kind));
        list = l;
        v->kind = (kp_sweep_var_kind)k;
    }
    if (!list)
        return kp__dctx_fail(d, e, KP_EINVAL, NULL,
                             "one of seeds, values, scenarios, configs, kubeletConfigs, "
                             "priorityLayouts required");
    return decode_values(x, d, list, v);
}

static kp_status decode_matrix(swctx *x, kp_dctx *d, const kp_tnode *m) {
    kp_sweep *sw = &x->s->pub;
    sw->n_runs = 1;
    if (!m || m->type == KP_T_NULL) return KP_OK;
    size_t sv = kp__dctx_push(d, "matrix");
    if (m->type != KP_T_ARR) return kp__dctx_fail(d, m, KP_EINVAL, NULL, "expected a list");
    kp_sweep_var *vars = kp__arena_alloc(&x->s->arena, (m->n ? m->n : 1) * sizeof *vars);
    if (!vars) return nomem(d);
    uint32_t i = 0;
    for (const kp_tnode *e = m->first; e; e = e->next, i++) {
        size_t sv2 = kp__dctx_push_index(d, i);
        kp_status st = decode_var(x, d, e, &vars[i]);
        if (st != KP_OK) return st;
        for (uint32_t k = 0; k < i; k++) {
            if (strcmp(vars[k].name, vars[i].name) == 0)
                return kp__dctx_fail(d, kp__tree_get(e, "name"), KP_EINVAL, "name",
                                     "\"%s\" is already matrix[%u]'s name", vars[i].name, k);
            if (vars[k].kind == vars[i].kind && vars[i].kind != KP_SWEEP_VALUES)
                return kp__dctx_fail(d, e, KP_EINVAL, NULL,
                                     "matrix[%u] is a %s variable already (one per kind)", k,
                                     kp_sweep_var_kind_name(vars[i].kind));
        }
        if (vars[i].n_values > KP_SWEEP_MAX_RUNS / sw->n_runs)
            return kp__dctx_fail(d, e, KP_ELIMIT, NULL,
                                 "more than %u runs in the matrix (KP_SWEEP_MAX_RUNS, kprio's "
                                 "limit)",
                                 KP_SWEEP_MAX_RUNS);
        sw->n_runs *= vars[i].n_values;
        kp__dctx_pop(d, sv2);
    }
    sw->vars = vars;
    sw->n_vars = i;
    kp__dctx_pop(d, sv);
    return KP_OK;
}

/* ---------------------------------------------------------------- figures */

/* figures: names of the catalogue, or a prefix and `*` ("pendingTime.*", "*"); each kept once,
 * in the order first named. Absent: scheduled, preemptions, victims, pendingAtEnd,
 * pendingTime.p50, pendingTime.p99 and findings (`*` keeps every one). */
static kp_status decode_figures(swctx *x, kp_dctx *d, const kp_tnode *f) {
    kp_sweep *sw = &x->s->pub;
    kp_sweep_figure *figs = kp__arena_alloc(&x->s->arena, KP_FIG_COUNT * sizeof *figs);
    if (!figs) return nomem(d);
    bool kept[KP_FIG_COUNT] = {false};
    size_t n = 0;
    if (!f || f->type == KP_T_NULL) {
        static const kp_sweep_figure DEFAULT[] = {
            KP_FIG_SCHEDULED,   KP_FIG_PREEMPTIONS, KP_FIG_VICTIMS, KP_FIG_PENDING_AT_END,
            KP_FIG_PENDING_P50, KP_FIG_PENDING_P99, KP_FIG_FINDINGS};
        for (size_t k = 0; k < sizeof DEFAULT / sizeof DEFAULT[0]; k++) figs[n++] = DEFAULT[k];
    } else {
        size_t sv = kp__dctx_push(d, "figures");
        if (f->type != KP_T_ARR || f->n == 0)
            return kp__dctx_fail(d, f, KP_EINVAL, NULL, "expected a list of figure names");
        uint32_t i = 0;
        for (const kp_tnode *e = f->first; e; e = e->next, i++) {
            size_t sv2 = kp__dctx_push_index(d, i);
            if (!is_text(e) || e->len == 0)
                return kp__dctx_fail(d, e, KP_EINVAL, NULL, "expected a figure name");
            bool star = e->s[e->len - 1] == '*';
            size_t plen = star ? e->len - 1 : e->len, matched = 0;
            for (int k = 0; k < KP_FIG_COUNT; k++) {
                const char *nm = FIG_NAMES[k];
                bool hit = star ? strncmp(nm, e->s, plen) == 0
                                : strlen(nm) == plen && memcmp(nm, e->s, plen) == 0;
                if (!hit) continue;
                matched++;
                if (!kept[k]) figs[n++] = (kp_sweep_figure)k, kept[k] = true;
            }
            if (!matched)
                return kp__dctx_fail(d, e, KP_EINVAL, NULL,
                                     "\"%.*s\" names no figure (docs/reference.md \"kprio "
                                     "sweep\" lists them)",
                                     (int)(e->len > 100 ? 100 : e->len), e->s);
            kp__dctx_pop(d, sv2);
        }
        kp__dctx_pop(d, sv);
    }
    sw->figures = figs;
    sw->n_figures = n;
    return KP_OK;
}

/* ---------------------------------------------------------------- templates */

/* Calls ref(ctx, name, len, offset) for every ${NAME} of text (not $${); an unclosed ${ or a
 * bad name fails at its offset. */
typedef kp_status (*ref_fn)(void *ctx, const char *name, size_t len, size_t off);

static kp_status scan_refs(const char *text, size_t len, ref_fn ref, void *ctx, size_t *bad) {
    for (size_t i = 0; i + 1 < len; i++) {
        if (text[i] != '$') continue;
        if (text[i + 1] == '$' && i + 2 < len && text[i + 2] == '{') { /* $${: a literal ${ */
            i += 2;
            continue;
        }
        if (text[i + 1] != '{') continue;
        size_t j = i + 2;
        while (j < len && text[j] != '}' && text[j] != '\n') j++;
        if (j >= len || text[j] != '}' || !name_ok(text + i + 2, j - i - 2)) {
            *bad = i;
            return KP_EINVAL;
        }
        kp_status st = ref(ctx, text + i + 2, j - i - 2, i);
        if (st != KP_OK) return st;
        i = j;
    }
    return KP_OK;
}

static const kp_sweep_var *numeric_var(const kp_sweep *sw, const char *name, size_t len) {
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].kind == KP_SWEEP_VALUES && strlen(sw->vars[i].name) == len &&
            memcmp(sw->vars[i].name, name, len) == 0)
            return &sw->vars[i];
    return NULL;
}

typedef struct {
    const kp_sweep *sw;
    bool *used;
    const char *source, *text;
    size_t len;
    kp_error *err;
} check_ctx;

static kp_status line_error(kp_error *err, const char *source, const char *text, size_t len,
                            size_t off, const char *what, const char *name, size_t nlen) {
    long line = 0, col = 0;
    kp__offset_to_linecol(text, len, off, &line, &col);
    if (what) kp_error_set(err, KP_EINVAL, "line %ld: ${%.*s}: %s", line, (int)nlen, name, what);
    else
        kp_error_set(err, KP_EINVAL,
                     "line %ld: an unclosed ${ or a bad variable name (letters, digits, _)", line);
    if (err) {
        err->line = line;
        err->column = col;
        snprintf(err->source, sizeof err->source, "%s", source);
    }
    return KP_EINVAL;
}

static kp_status check_ref(void *ctx, const char *name, size_t len, size_t off) {
    check_ctx *c = ctx;
    const kp_sweep_var *v = numeric_var(c->sw, name, len);
    if (!v)
        return line_error(c->err, c->source, c->text, c->len, off,
                          "no numeric variable of that name in the sweep (matrix[].values)", name,
                          len);
    c->used[v - c->sw->vars] = true;
    return KP_OK;
}

static kp_status check_template(const kp_sweep *sw, bool *used, const char *path, kp_error *err) {
    char *buf = NULL;
    size_t len = 0, bad = 0;
    kp_status st = kp__read_file(path, KP_SWEEP_MAX_FILE_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    check_ctx c = {sw, used, path, buf, len, err};
    st = scan_refs(buf, len, check_ref, &c, &bad);
    if (st == KP_EINVAL && (!err || !err->msg[0]))
        line_error(err, path, buf, len, bad, NULL, "", 0);
    kp__free(buf);
    return st;
}

/* Every scenario a run may use is read and its ${NAME}s checked; then each numeric variable
 * must appear in one of them. */
static kp_status check_templates(const kp_sweep *sw, kp_error *err) {
    bool used_inline[16] = {false};
    bool *used = sw->n_vars <= 16 ? used_inline : kp__calloc(sw->n_vars, sizeof *used);
    if (!used) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = KP_OK;
    const kp_sweep_var *sv = NULL;
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].kind == KP_SWEEP_SCENARIOS) sv = &sw->vars[i];
    if (sv) {
        for (size_t k = 0; k < sv->n_values && st == KP_OK; k++)
            st = check_template(sw, used, sv->paths[k], err);
    } else if (sw->scenario) {
        st = check_template(sw, used, sw->scenario, err);
    }
    for (size_t i = 0; i < sw->n_vars && st == KP_OK; i++) {
        if (sw->vars[i].kind != KP_SWEEP_VALUES || used[i]) continue;
        st = kp_error_set(err, KP_EINVAL,
                          "matrix[%zu].name: variable \"%s\" appears in no scenario (write "
                          "${%s} in base.scenario or in the files of a scenarios variable)",
                          i, sw->vars[i].name, sw->vars[i].name);
        if (err) snprintf(err->source, sizeof err->source, "%s", sw->source);
    }
    if (used != used_inline) kp__free(used);
    return st;
}

/* Every PriorityLayout file of a priorityLayouts variable is decoded now, as the Sweep is
 * checked whole before anything runs: an error names the variable's field, then what the layout
 * decoder says (the layout file and its field). */
static kp_status check_layouts(const kp_sweep *sw, kp_error *err) {
    for (size_t i = 0; i < sw->n_vars; i++) {
        const kp_sweep_var *v = &sw->vars[i];
        if (v->kind != KP_SWEEP_PRIORITY_LAYOUTS) continue;
        for (size_t k = 0; k < v->n_values; k++) {
            kp_error e;
            kp_error_clear(&e);
            kp_priority_layout *l = NULL;
            kp_status st = kp_priority_layout_load_path(v->paths[k], &l, &e);
            kp_priority_layout_free(l);
            if (st == KP_OK) continue;
            if (st == KP_ENOMEM) return kp_error_set(err, KP_ENOMEM, "out of memory");
            st = kp_error_set(err, st, "matrix[%zu].priorityLayouts[%zu]: %s: %s", i, k,
                              e.source[0] ? e.source : v->paths[k], e.msg);
            if (err) snprintf(err->source, sizeof err->source, "%s", sw->source);
            return st;
        }
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- the document */

static kp_status on_doc(void *ctx, const kp_tnode *root, const kp_tdoc *doc, kp_error *err) {
    swctx *x = ctx;
    kp_sweep *sw = &x->s->pub;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    kp_status st;
    if (x->seen) return kp__dctx_fail(&d, root, KP_EINVAL, NULL, "more than one document");
    x->seen = true;
    if ((st = kp__d_dup_keys(&d, (kp_tnode *)root, true, NULL, NULL)) != KP_OK) return st;
    static const char *const keys[] = {"apiVersion", "kind",    "metadata", "base",
                                       "matrix",     "figures", NULL};
    const char *av = NULL, *kind = NULL;
    bool has_av = false, has_kind = false;
    if ((st = kp__dget_str(&d, root, "apiVersion", &av, &has_av)) != KP_OK ||
        (st = kp__dget_str(&d, root, "kind", &kind, &has_kind)) != KP_OK)
        return st;
    if (!has_kind || strcmp(kind, "Sweep") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "kind", "expected Sweep%s%s%s",
                             has_kind ? ", got \"" : "", has_kind ? kind : "",
                             has_kind ? "\"" : "");
    if (!has_av || strcmp(av, "kprio/v1alpha1") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "apiVersion", "expected kprio/v1alpha1%s%s%s",
                             has_av ? ", got \"" : "", has_av ? av : "", has_av ? "\"" : "");
    if ((st = kp__sc_only_keys(&d, root, keys)) != KP_OK) return st;
    const kp_tnode *md = kp__tree_get(root, "metadata");
    const char *name = "";
    bool has_name = false;
    if (md && md->type != KP_T_NULL) {
        static const char *const mkeys[] = {"name", NULL};
        size_t sv = kp__dctx_push(&d, "metadata");
        if (md->type != KP_T_OBJ)
            return kp__dctx_fail(&d, md, KP_EINVAL, NULL, "expected an object");
        if ((st = kp__sc_only_keys(&d, md, mkeys)) != KP_OK ||
            (st = kp__dget_str(&d, md, "name", &name, &has_name)) != KP_OK)
            return st;
        if (has_name && kp__d_no_nul(&d, md, "name", name, strlen(name)) != KP_OK) return KP_EINVAL;
        kp__dctx_pop(&d, sv);
    }
    if (!(sw->name = sdup(x->s, name, strlen(name)))) return nomem(&d);
    if ((st = decode_base(x, &d, kp__tree_get(root, "base"))) != KP_OK ||
        (st = decode_matrix(x, &d, kp__tree_get(root, "matrix"))) != KP_OK ||
        (st = decode_figures(x, &d, kp__tree_get(root, "figures"))) != KP_OK)
        return st;
    return KP_OK;
}

void kp_sweep_free(kp_sweep *sw) {
    if (!sw) return;
    sweep_t *s = (sweep_t *)sw;
    kp__arena_fini(&s->arena);
    kp__free(s);
}

/* buf carries KP_JSON_PADDING readable bytes after len. */
static kp_status load_padded(const char *source, const char *buf, size_t len, const char *base_dir,
                             kp_sweep **out, kp_error *err) {
    sweep_t *s = kp__calloc(1, sizeof *s);
    if (!s) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__arena_init(&s->arena);
    swctx x = {s, source, base_dir, false};
    kp_status st = KP_OK;
    if (!(s->pub.source = sdup(s, source, strlen(source))))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) st = kp__tree_parse(source, buf, len, false, on_doc, &x, err);
    if (st == KP_OK && !x.seen) st = kp_error_set(err, KP_EINVAL, "empty document");
    if (st != KP_OK && err && !err->source[0])
        snprintf(err->source, sizeof err->source, "%s", source);
    if (st == KP_OK) st = check_templates(&s->pub, err);
    if (st == KP_OK) st = check_layouts(&s->pub, err);
    if (st != KP_OK) {
        kp_sweep_free(&s->pub);
        return st;
    }
    *out = &s->pub;
    return KP_OK;
}

kp_status kp_sweep_load_buffer(const char *source, const char *buf, size_t len,
                               const char *base_dir, kp_sweep **out, kp_error *err) {
    *out = NULL;
    if (!source) source = "";
    if (len > KP_SWEEP_MAX_FILE_BYTES) {
        kp_status st = kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                                    KP_SWEEP_MAX_FILE_BYTES);
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        return st;
    }
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (len) memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = load_padded(source, copy, len, base_dir, out, err);
    kp__free(copy);
    return st;
}

/* The directory of path (NULL for a bare name or "-"), kp__malloc'd in *dir. */
static kp_status dir_of(const char *path, char **dir) {
    *dir = NULL;
    const char *slash = strrchr(path, '/');
    if (!slash || strcmp(path, "-") == 0) return KP_OK;
    *dir = kp__strndup(path, slash == path ? 1 : (size_t)(slash - path));
    return *dir ? KP_OK : KP_ENOMEM;
}

kp_status kp_sweep_load_path(const char *path, kp_sweep **out, kp_error *err) {
    char *buf = NULL, *dir = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, KP_SWEEP_MAX_FILE_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    if (dir_of(path, &dir) != KP_OK) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) st = load_padded(path, buf, len, dir, out, err);
    kp__free(dir);
    kp__free(buf);
    return st;
}

/* ---------------------------------------------------------------- a run */

void kp_sweep_run_values(const kp_sweep *sw, size_t r, size_t *idx) {
    for (size_t i = sw->n_vars; i-- > 0;) {
        idx[i] = r % sw->vars[i].n_values;
        r /= sw->vars[i].n_values;
    }
}

typedef struct {
    const kp_sweep *sw;
    const size_t *idx;
    kp__buf *out;
    const char *text;
    size_t done; /* text[0..done) copied */
    const char *source;
    size_t len;
    kp_error *err;
} subst_ctx;

static kp_status put_ref(void *ctx, const char *name, size_t len, size_t off) {
    subst_ctx *c = ctx;
    const kp_sweep_var *v = numeric_var(c->sw, name, len);
    if (!v)
        return line_error(c->err, c->source, c->text, c->len, off,
                          "no numeric variable of that name in the sweep (matrix[].values)", name,
                          len);
    /* the text before it, with each $${ written as ${ */
    for (size_t i = c->done; i < off; i++) {
        if (c->text[i] == '$' && i + 2 < c->len && c->text[i + 1] == '$' && c->text[i + 2] == '{')
            continue;
        if (!kp__buf_putc(c->out, c->text[i])) return KP_ENOMEM;
    }
    if (!kp__buf_puts(c->out, v->values[c->idx[v - c->sw->vars]])) return KP_ENOMEM;
    c->done = off + len + 3;
    return KP_OK;
}

kp_status kp_sweep_substitute(const kp_sweep *sw, const size_t *idx, const char *source,
                              const char *text, size_t len, char **out, size_t *out_len,
                              kp_error *err) {
    kp__buf b;
    kp__buf_init(&b);
    subst_ctx c = {sw, idx, &b, text, 0, source, len, err};
    size_t bad = 0;
    *out = NULL;
    kp_status st = scan_refs(text, len, put_ref, &c, &bad);
    if (st == KP_EINVAL && (!err || !err->msg[0]))
        line_error(err, source, text, len, bad, NULL, "", 0);
    for (size_t i = c.done; st == KP_OK && i < len; i++) {
        if (text[i] == '$' && i + 2 < len && text[i + 1] == '$' && text[i + 2] == '{') continue;
        if (!kp__buf_putc(&b, text[i])) st = KP_ENOMEM;
    }
    if (st == KP_OK && !kp__buf_reserve(&b, 1)) st = KP_ENOMEM;
    if (st == KP_ENOMEM) kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st != KP_OK) {
        kp__buf_free(&b);
        return st;
    }
    *out_len = b.len;
    *out = b.len || b.p ? b.p : kp__calloc(1, 1);
    if (!*out) return kp_error_set(err, KP_ENOMEM, "out of memory");
    (*out)[b.len] = '\0';
    return KP_OK;
}

kp_status kp_sweep_scenario_load(const kp_sweep *sw, const size_t *idx, kp_scenario **out,
                                 kp_error *err) {
    *out = NULL;
    const char *path = sw->scenario;
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].kind == KP_SWEEP_SCENARIOS) path = sw->vars[i].paths[idx[i]];
    if (!path) return KP_OK;
    char *buf = NULL, *text = NULL, *dir = NULL;
    size_t len = 0, tlen = 0;
    kp_status st = kp__read_file(path, KP_SWEEP_MAX_FILE_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    st = kp_sweep_substitute(sw, idx, path, buf, len, &text, &tlen, err);
    if (st == KP_OK && dir_of(path, &dir) != KP_OK)
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) st = kp_scenario_load_buffer(path, text, tlen, dir, out, err);
    kp__free(dir);
    kp__free(text);
    kp__free(buf);
    return st;
}
