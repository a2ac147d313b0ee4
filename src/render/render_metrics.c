/* A simulation's metrics (kprio/metrics.h) as Prometheus text exposition format 0.0.4 (what
 * `kprio simulate --metrics FILE` writes: the final values) and as the "series" of a
 * SimulationResult document (docs/simulate.md "Metrics"). On the public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/metrics.h"
#include "render/render_report.h"

/* Go's strconv.FormatFloat(v, 'g', -1, 64), as client_golang writes a value: the fewest digits
 * that read back the same double, %e form when the exponent is < -4 or >= 6 ("3", "0.01",
 * "5242.88", "1e+06"). */
static void fmt_float(double v, char *buf, size_t cap) {
    if (v == 0) {
        snprintf(buf, cap, "0");
        return;
    }
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(buf, cap, "%.*e", digits - 1, v);
        if (strtod(buf, NULL) == v) break;
    }
    snprintf(buf, cap, "%.*e", digits - 1, v);
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp < -4 || exp >= 6) return;
    int dec = digits - 1 - exp;
    snprintf(buf, cap, "%.*f", dec > 0 ? dec : 0, v);
}

/* text exposition escapes: HELP escapes \ and newline; label values also " */
static void put_escaped(FILE *f, const char *s, bool quote) {
    for (; *s; s++) {
        if (*s == '\\') fputs("\\\\", f);
        else if (*s == '\n') fputs("\\n", f);
        else if (quote && *s == '"') fputs("\\\"", f);
        else fputc(*s, f);
    }
}

static void put_labels(FILE *f, const kp_metric_sample *s, const char *le) {
    if (!s->n_labels && !le) return;
    fputc('{', f);
    for (size_t i = 0; i < s->n_labels; i++) {
        fprintf(f, "%s%s=\"", i ? "," : "", s->label_names[i]);
        put_escaped(f, s->label_values[i], true);
        fputc('"', f);
    }
    if (le) fprintf(f, "%sle=\"%s\"", s->n_labels ? "," : "", le);
    fputc('}', f);
}

static void put_family(FILE *f, const kp_metric_family *fam) {
    static const char *const TYPE[] = {"counter", "gauge", "histogram"};
    fprintf(f, "# HELP %s ", fam->name);
    if (*fam->stability) fprintf(f, "[%s] ", fam->stability);
    put_escaped(f, fam->help, false);
    fprintf(f, "\n# TYPE %s %s\n", fam->name, TYPE[fam->type]);
    char num[40];
    for (size_t i = 0; i < fam->n_samples; i++) {
        const kp_metric_sample *s = &fam->samples[i];
        if (fam->type != KP_METRIC_HISTOGRAM) {
            fputs(fam->name, f);
            put_labels(f, s, NULL);
            fmt_float(s->value, num, sizeof num);
            fprintf(f, " %s\n", num);
            continue;
        }
        for (size_t b = 0; b <= fam->n_bounds; b++) {
            if (b < fam->n_bounds) fmt_float(fam->bounds[b], num, sizeof num);
            else snprintf(num, sizeof num, "+Inf");
            fprintf(f, "%s_bucket", fam->name);
            put_labels(f, s, num);
            fprintf(f, " %llu\n",
                    (unsigned long long)(b < fam->n_bounds ? s->buckets[b] : s->count));
        }
        fprintf(f, "%s_sum", fam->name);
        put_labels(f, s, NULL);
        fmt_float(s->sum, num, sizeof num);
        fprintf(f, " %s\n%s_count", num, fam->name);
        put_labels(f, s, NULL);
        fprintf(f, " %llu\n", (unsigned long long)s->count);
    }
}

kp_status kp_render_metrics_prometheus(FILE *f, const kp_sim *sim) {
    kp_metrics *m;
    kp_error err;
    if (kp_metrics_new(sim, &m, &err) != KP_OK) return KP_ENOMEM;
    for (size_t i = 0; i < kp_metrics_family_count(m); i++)
        put_family(f, kp_metrics_family_get(m, i));
    kp_metrics_free(m);
    return KP_OK;
}

kp_status kp_render_metrics_series(kp_emit *e, const kp_sim *sim) {
    kp_metrics *m;
    kp_error err;
    if (kp_metrics_new(sim, &m, &err) != KP_OK) {
        kp_emit_fail(e, KP_ENOMEM);
        return KP_ENOMEM;
    }
    size_t nt = kp_metrics_time_count(m);
    kp_emit_key(e, "series");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "stepMs", kp_metrics_step(m));
    kp_emit_key(e, "timesMs");
    kp_emit_arr_begin(e);
    for (size_t t = 0; t < nt; t++) kp_emit_int(e, kp_metrics_times(m)[t]);
    kp_emit_arr_end(e);
    kp_emit_key(e, "metrics");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_metrics_series_count(m); i++) {
        const kp_metric_series *s = kp_metrics_series_get(m, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "name", s->name);
        kp_emit_key(e, "labels");
        kp_emit_obj_begin(e);
        if (*s->label_name) kp_emit_kv_str(e, s->label_name, s->label_value);
        kp_emit_obj_end(e);
        kp_emit_key(e, "values");
        kp_emit_arr_begin(e);
        for (size_t t = 0; t < nt; t++) kp_emit_int(e, s->values[t]);
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
    kp_metrics_free(m);
    return KP_OK;
}
