/* libFuzzer harness for Sweep files and SweepShard documents (kp_sweep_load_buffer,
 * kp_sweep_result_load_buffer; src/io/decode_sweep*.c): any input must end in KP_OK or a clean
 * error with a message (crashes, leaks and sanitizer reports are bugs). The input is read both
 * ways. A Sweep that loads is checked: at least one run, every variable with values (files with
 * their resolved paths, seeds with their numbers), figures from the catalogue; each of its
 * first runs' values index their variables, and a text with a ${NAME} of each numeric variable
 * substitutes. A shard that loads has its rows in order, in its shard, each with figures or an
 * error, and merges alone when it is the whole sweep. Files are relative to a directory that
 * does not exist (so only a Sweep without a scenario loads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sweep(const kp_sweep *sw) {
    if (sw->n_runs < 1 || sw->n_runs > KP_SWEEP_MAX_RUNS || sw->n_snapshot < 1) abort();
    if (sw->n_figures < 1 || sw->n_figures > KP_FIG_COUNT) abort();
    for (size_t i = 0; i < sw->n_figures; i++)
        if ((unsigned)sw->figures[i] >= KP_FIG_COUNT) abort();
    char text[4096];
    size_t off = 0;
    for (size_t i = 0; i < sw->n_vars; i++) {
        const kp_sweep_var *v = &sw->vars[i];
        if (!v->name || !v->name[0] || v->n_values < 1) abort();
        if ((v->kind >= KP_SWEEP_SCENARIOS) != (v->paths != NULL)) abort();
        if ((v->kind == KP_SWEEP_SEEDS) != (v->seeds != NULL)) abort();
        if (v->kind == KP_SWEEP_VALUES && off < sizeof text - 200)
            off += (size_t)snprintf(text + off, sizeof text - off, "%.100s: ${%.80s}\n", v->name,
                                    v->name);
    }
    size_t idx[64];
    if (sw->n_vars > 64) return;
    for (size_t r = 0; r < sw->n_runs && r < 4; r++) {
        kp_sweep_run_values(sw, r, idx);
        for (size_t i = 0; i < sw->n_vars; i++)
            if (idx[i] >= sw->vars[i].n_values) abort();
        char *out = NULL;
        size_t len = 0;
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp_sweep_substitute(sw, idx, "t", text, off, &out, &len, &err);
        if (st != KP_OK && st != KP_ENOMEM) abort();
        if (st == KP_OK && (!out || strlen(out) != len)) abort();
        kp_free(out);
    }
}

static void check_result(const kp_sweep_result *r) {
    if (r->shard >= r->n_shards || r->n_runs < 1) abort();
    for (size_t i = 0; i < r->n_rows; i++) {
        const kp_sweep_row *row = &r->rows[i];
        if (row->run != r->shard + i * r->n_shards || row->run >= r->n_runs) abort();
        if ((row->error == NULL) == (row->figures == NULL)) abort();
    }
    if (r->n_shards != 1) return;
    kp_sweep_result *m = NULL;
    const char *src = "fuzz.json";
    kp_error err;
    kp_error_clear(&err);
    const kp_sweep_result *parts[1] = {r};
    kp_status st = kp_sweep_result_merge(parts, &src, 1, &m, &err);
    if (st != KP_OK && st != KP_ENOMEM) abort();
    if (st == KP_OK && m->n_rows != r->n_rows) abort();
    kp_sweep_result_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    kp_sweep *sw = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_sweep_load_buffer("fuzz.yaml", (const char *)data, size,
                                        "/nonexistent-kprio-fuzz", &sw, &err);
    if (st != KP_OK && (err.msg[0] == 0 || sw)) abort();
    if (st == KP_OK) check_sweep(sw);
    kp_sweep_free(sw);
    kp_sweep_result *r = NULL;
    kp_error_clear(&err);
    st = kp_sweep_result_load_buffer("fuzz.json", (const char *)data, size, &r, &err);
    if (st != KP_OK && (err.msg[0] == 0 || r)) abort();
    if (st == KP_OK) check_result(r);
    kp_sweep_result_free(r);
    return 0;
}
