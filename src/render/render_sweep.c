/* `kprio sweep` output (render/render_sweep.h, docs/reference.md "kprio sweep"): the SweepShard
 * document, and the result as a table, a SweepResult document or CSV. The aggregates are
 * computed here from the rows, the same for every output. On the public API only. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "render/emit.h"
#include "render/render_sweep.h"

/* ---------------------------------------------------------------- the shard */

static void json_vars(kp__json *j, const kp_sweep_var *vars, size_t n) {
    kp__json_key(j, "variables");
    kp__json_arr(j);
    for (size_t i = 0; i < n; i++) {
        kp__json_obj(j);
        kp__json_key(j, "name");
        kp__json_str(j, vars[i].name);
        kp__json_key(j, "kind");
        kp__json_str(j, kp_sweep_var_kind_name(vars[i].kind));
        kp__json_key(j, "values");
        kp__json_arr(j);
        for (size_t k = 0; k < vars[i].n_values; k++) kp__json_str(j, vars[i].values[k]);
        kp__json_end_arr(j);
        kp__json_end_obj(j);
    }
    kp__json_end_arr(j);
}

static void json_figs(kp__json *j, const kp_sweep_figure *figs, size_t n) {
    kp__json_key(j, "figures");
    kp__json_arr(j);
    for (size_t i = 0; i < n; i++) kp__json_str(j, kp_sweep_figure_name(figs[i]));
    kp__json_end_arr(j);
}

kp_status kp_render_sweep_shard(kp__buf *out, const kp_sweep *sw, size_t shard, size_t n_shards,
                                const kp_sweep_row *rows, size_t n_rows) {
    kp__json j;
    kp__json_init(&j, false, NULL, NULL, NULL);
    j.line_depth = 2; /* one row (one variable) per line */
    kp__json_obj(&j);
    kp__json_key(&j, "apiVersion");
    kp__json_str(&j, "kprio/v1alpha1");
    kp__json_key(&j, "kind");
    kp__json_str(&j, "SweepShard");
    kp__json_key(&j, "sweep");
    kp__json_str(&j, sw->name);
    kp__json_key(&j, "runs");
    kp__json_int(&j, (int64_t)sw->n_runs);
    kp__json_key(&j, "shard");
    kp__json_int(&j, (int64_t)shard);
    kp__json_key(&j, "shards");
    kp__json_int(&j, (int64_t)n_shards);
    json_vars(&j, sw->vars, sw->n_vars);
    json_figs(&j, sw->figures, sw->n_figures);
    kp__json_key(&j, "rows");
    kp__json_arr(&j);
    for (size_t i = 0; i < n_rows; i++) {
        kp__json_obj(&j);
        kp__json_key(&j, "run");
        kp__json_int(&j, (int64_t)rows[i].run);
        kp__json_key(&j, "error");
        if (rows[i].error) kp__json_str(&j, rows[i].error);
        else kp__json_null(&j);
        if (!rows[i].error) {
            kp__json_key(&j, "figures");
            kp__json_arr(&j);
            for (size_t k = 0; k < sw->n_figures; k++)
                kp__json_int(&j, rows[i].figures[sw->figures[k]]);
            kp__json_end_arr(&j);
        }
        kp__json_end_obj(&j);
    }
    kp__json_end_arr(&j);
    kp__json_end_obj(&j);
    kp__json_raw(&j, "\n", 1);
    kp_status st = j.st;
    if (st == KP_OK && !kp__buf_append(out, j.out.p, j.out.len)) st = KP_ENOMEM;
    kp__json_free(&j);
    return st;
}

/* ---------------------------------------------------------------- aggregates */

size_t kp__sweep_value_of(const kp_sweep_result *r, size_t run, size_t v) {
    for (size_t i = r->n_vars; i-- > v + 1;) run /= r->vars[i].n_values;
    return run % r->vars[v].n_values;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void kp__sweep_stat_of(const kp_sweep_result *r, size_t var, size_t val, size_t fig,
                       int64_t *scratch, kp__sweep_stat *out) {
    memset(out, 0, sizeof *out);
    double sum = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        if (var != SIZE_MAX && kp__sweep_value_of(r, row->run, var) != val) continue;
        if (row->error) {
            out->failed++;
            continue;
        }
        scratch[out->n++] = row->figures[fig];
        sum += (double)row->figures[fig];
    }
    if (!out->n) return;
    qsort(scratch, out->n, sizeof *scratch, cmp_i64);
    out->mean = sum / (double)out->n;
    size_t r50 = (out->n * 50 + 99) / 100, r95 = (out->n * 95 + 99) / 100; /* nearest rank */
    out->p50 = scratch[r50 ? r50 - 1 : 0];
    out->p95 = scratch[r95 ? r95 - 1 : 0];
}

/* The groups the aggregates are over: every run, then each value of each variable but the
 * seeds. Returns false at the end. */
static bool next_group(const kp_sweep_result *r, size_t *var, size_t *val) {
    if (*var == SIZE_MAX - 1) { /* start */
        *var = SIZE_MAX;
        *val = 0;
        return true;
    }
    size_t v = *var == SIZE_MAX ? 0 : *var, k = *var == SIZE_MAX ? 0 : *val + 1;
    for (; v < r->n_vars; v++, k = 0) {
        if (r->vars[v].kind == KP_SWEEP_SEEDS || k >= r->vars[v].n_values) continue;
        *var = v;
        *val = k;
        return true;
    }
    return false;
}

static size_t failed_count(const kp_sweep_result *r) {
    size_t n = 0;
    for (size_t i = 0; i < r->n_rows; i++) n += r->rows[i].error != NULL;
    return n;
}

/* ---------------------------------------------------------------- table */

static kp_status table_out(FILE *f, const kp_sweep_result *r, int64_t *scratch) {
    bool any_error = failed_count(r) > 0;
    int cols = 1 + (int)r->n_vars + (int)r->n_figures + any_error;
    kp_table *t = kp_table_new(cols);
    kp_table_add(t, "RUN");
    for (size_t v = 0; v < r->n_vars; v++) kp_table_add(t, r->vars[v].name);
    for (size_t k = 0; k < r->n_figures; k++) kp_table_add(t, kp_sweep_figure_name(r->figures[k]));
    if (any_error) kp_table_add(t, "ERROR");
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        kp_table_addf(t, "%zu", row->run);
        for (size_t v = 0; v < r->n_vars; v++)
            kp_table_add(t, r->vars[v].values[kp__sweep_value_of(r, row->run, v)]);
        for (size_t k = 0; k < r->n_figures; k++) {
            if (row->error) kp_table_add(t, "-");
            else kp_table_addf(t, "%" PRId64, row->figures[k]);
        }
        if (any_error) kp_table_add(t, row->error ? row->error : "");
    }
    kp_status st = kp_table_print(t, f);
    kp_table_free(t);
    if (st != KP_OK || !r->n_figures) return st;
    fprintf(f, "\n");
    t = kp_table_new(8);
    static const char *const H[8] = {"VARIABLE", "VALUE", "FIGURE", "RUNS",
                                     "FAILED",   "MEAN",  "P50",    "P95"};
    for (int c = 0; c < 8; c++) kp_table_add(t, H[c]);
    size_t var = SIZE_MAX - 1, val = 0;
    while (next_group(r, &var, &val)) {
        for (size_t k = 0; k < r->n_figures; k++) {
            kp__sweep_stat s;
            kp__sweep_stat_of(r, var, val, k, scratch, &s);
            kp_table_add(t, var == SIZE_MAX ? "(all)" : r->vars[var].name);
            kp_table_add(t, var == SIZE_MAX ? "" : r->vars[var].values[val]);
            kp_table_add(t, kp_sweep_figure_name(r->figures[k]));
            kp_table_addf(t, "%zu", s.n);
            kp_table_addf(t, "%zu", s.failed);
            if (!s.n) {
                for (int c = 0; c < 3; c++) kp_table_add(t, "-");
                continue;
            }
            kp_table_addf(t, "%.3f", s.mean);
            kp_table_addf(t, "%" PRId64, s.p50);
            kp_table_addf(t, "%" PRId64, s.p95);
        }
    }
    st = kp_table_print(t, f);
    kp_table_free(t);
    return st;
}

/* ---------------------------------------------------------------- CSV */

/* RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
static void csv_field(FILE *f, const char *s, bool first) {
    if (!first) fputc(',', f);
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static kp_status csv_out(FILE *f, const kp_sweep_result *r) {
    csv_field(f, "run", true);
    for (size_t v = 0; v < r->n_vars; v++) csv_field(f, r->vars[v].name, false);
    csv_field(f, "error", false);
    for (size_t k = 0; k < r->n_figures; k++)
        csv_field(f, kp_sweep_figure_name(r->figures[k]), false);
    fputs("\r\n", f);
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        fprintf(f, "%zu", row->run);
        for (size_t v = 0; v < r->n_vars; v++)
            csv_field(f, r->vars[v].values[kp__sweep_value_of(r, row->run, v)], false);
        csv_field(f, row->error ? row->error : "", false);
        for (size_t k = 0; k < r->n_figures; k++) {
            if (row->error) fputc(',', f);
            else fprintf(f, ",%" PRId64, row->figures[k]);
        }
        fputs("\r\n", f);
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- JSON */

static void json_stats(kp__json *j, const kp_sweep_result *r, size_t var, size_t val,
                       int64_t *scratch) {
    size_t failed = 0, runs = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        if (var != SIZE_MAX && kp__sweep_value_of(r, r->rows[i].run, var) != val) continue;
        runs++;
        failed += r->rows[i].error != NULL;
    }
    kp__json_key(j, "runs");
    kp__json_int(j, (int64_t)runs);
    kp__json_key(j, "failed");
    kp__json_int(j, (int64_t)failed);
    kp__json_key(j, "figures");
    kp__json_obj(j);
    for (size_t k = 0; k < r->n_figures; k++) {
        kp__sweep_stat s;
        kp__sweep_stat_of(r, var, val, k, scratch, &s);
        kp__json_key(j, kp_sweep_figure_name(r->figures[k]));
        if (!s.n) {
            kp__json_null(j);
            continue;
        }
        kp__json_obj(j);
        char num[64];
        int w = snprintf(num, sizeof num, "%.3f", s.mean);
        kp__json_key(j, "mean");
        kp__json_number(j, num, (size_t)w);
        kp__json_key(j, "p50");
        kp__json_int(j, s.p50);
        kp__json_key(j, "p95");
        kp__json_int(j, s.p95);
        kp__json_end_obj(j);
    }
    kp__json_end_obj(j);
}

static kp_status json_out(FILE *f, const kp_sweep_result *r, int64_t *scratch) {
    kp__json j;
    kp__json_init(&j, true, NULL, NULL, NULL);
    kp__json_obj(&j);
    kp__json_key(&j, "apiVersion");
    kp__json_str(&j, "kprio/v1alpha1");
    kp__json_key(&j, "kind");
    kp__json_str(&j, "SweepResult");
    kp__json_key(&j, "sweep");
    kp__json_str(&j, r->sweep);
    json_vars(&j, r->vars, r->n_vars);
    json_figs(&j, r->figures, r->n_figures);
    kp__json_key(&j, "rows");
    kp__json_arr(&j);
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        kp__json_obj(&j);
        kp__json_key(&j, "run");
        kp__json_int(&j, (int64_t)row->run);
        kp__json_key(&j, "values");
        kp__json_obj(&j);
        for (size_t v = 0; v < r->n_vars; v++) {
            kp__json_key(&j, r->vars[v].name);
            kp__json_str(&j, r->vars[v].values[kp__sweep_value_of(r, row->run, v)]);
        }
        kp__json_end_obj(&j);
        kp__json_key(&j, "error");
        if (row->error) kp__json_str(&j, row->error);
        else kp__json_null(&j);
        kp__json_key(&j, "figures");
        if (row->error) kp__json_null(&j);
        else {
            kp__json_obj(&j);
            for (size_t k = 0; k < r->n_figures; k++) {
                kp__json_key(&j, kp_sweep_figure_name(r->figures[k]));
                kp__json_int(&j, row->figures[k]);
            }
            kp__json_end_obj(&j);
        }
        kp__json_end_obj(&j);
    }
    kp__json_end_arr(&j);
    kp__json_key(&j, "overall");
    kp__json_obj(&j);
    json_stats(&j, r, SIZE_MAX, 0, scratch);
    kp__json_end_obj(&j);
    kp__json_key(&j, "aggregates");
    kp__json_arr(&j);
    size_t var = SIZE_MAX - 1, val = 0;
    next_group(r, &var, &val); /* (every run: "overall" above) */
    while (next_group(r, &var, &val)) {
        kp__json_obj(&j);
        kp__json_key(&j, "variable");
        kp__json_str(&j, r->vars[var].name);
        kp__json_key(&j, "value");
        kp__json_str(&j, r->vars[var].values[val]);
        json_stats(&j, r, var, val, scratch);
        kp__json_end_obj(&j);
    }
    kp__json_end_arr(&j);
    kp__json_end_obj(&j);
    kp__json_raw(&j, "\n", 1);
    kp_status st = j.st;
    if (st == KP_OK && fwrite(j.out.p, 1, j.out.len, f) != j.out.len) st = KP_EIO;
    kp__json_free(&j);
    return st;
}

kp_status kp_render_sweep(FILE *f, const kp_sweep_result *r, kp_sweep_outfmt fmt) {
    int64_t *scratch = kp_malloc((r->n_rows ? r->n_rows : 1) * sizeof *scratch);
    if (!scratch) return KP_ENOMEM;
    kp_status st = fmt == KP_SWEEP_OUT_CSV    ? csv_out(f, r)
                   : fmt == KP_SWEEP_OUT_JSON ? json_out(f, r, scratch)
                                              : table_out(f, r, scratch);
    kp_free(scratch);
    return st;
}
