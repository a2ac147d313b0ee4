/* `kprio sweep` output (docs/reference.md "kprio sweep"): the SweepShard document a run of the
 * sweep (or one shard of it) writes, and the result read back from it as a table, a
 * kprio/v1alpha1 SweepResult document, CSV or an HTML page. On the public API only. */
#ifndef KP_RENDER_RENDER_SWEEP_H
#define KP_RENDER_RENDER_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buf.h"
#include "kprio/sweep.h"

/* The SweepShard document of shard `shard` of n_shards: the sweep's name, runs, variables and
 * kept figures, then rows[0..n_rows) (in order of run; figures: one value per kp_sweep_figure,
 * KP_FIG_COUNT each, of which the kept ones are written). Compact JSON, one row per line,
 * appended to out. KP_ENOMEM. */
kp_status kp_render_sweep_shard(kp__buf *out, const kp_sweep *sw, size_t shard, size_t n_shards,
                                const kp_sweep_row *rows, size_t n_rows);

typedef enum { KP_SWEEP_OUT_TABLE = 0, KP_SWEEP_OUT_JSON, KP_SWEEP_OUT_CSV } kp_sweep_outfmt;

/* The result: the runs (one row each) and the aggregates (over every run, then per value of
 * each variable but the seeds: runs, failed, and per figure mean, p50, p95 over the runs that
 * answered). KP_ENOMEM. */
kp_status kp_render_sweep(FILE *f, const kp_sweep_result *r, kp_sweep_outfmt fmt);

/* One self-contained HTML page: each figure against each variable (mean, p50 to p95), then the
 * runs. KP_ENOMEM. */
kp_status kp_render_sweep_html(FILE *f, const kp_sweep_result *r);

/* The aggregate of one figure over a group of runs: the runs that answered (n) and their mean,
 * p50 and p95 (nearest rank); all 0 when n = 0. */
typedef struct {
    size_t n, failed;
    double mean;
    int64_t p50, p95;
} kp__sweep_stat;

/* Figure column fig over the runs whose variable var has value index val (var == SIZE_MAX: every
 * run). scratch holds n_rows values. */
void kp__sweep_stat_of(const kp_sweep_result *r, size_t var, size_t val, size_t fig,
                       int64_t *scratch, kp__sweep_stat *out);
/* Run i's value index of variable v (the first variable varies slowest). */
size_t kp__sweep_value_of(const kp_sweep_result *r, size_t run, size_t v);

#endif
