/* Parameter sweeps (`kprio sweep`, docs/reference.md "kprio sweep"): a Sweep file (kind: Sweep,
 * apiVersion kprio/v1alpha1) names a base run (snapshot, scenario, configurations, duration,
 * seed) and a matrix of variables; every combination of their values is one run of the
 * simulator. This header holds the decoded Sweep file, the scenario of one run (numeric
 * variables substituted into its text), the figures a run keeps, and the result of a sweep or
 * of one shard of it (the SweepShard document, decoded and merged).
 *
 * Typical use:
 *     kp_sweep *sw;
 *     if (kp_sweep_load_path("sweep.yaml", &sw, &err) != KP_OK) ...
 *     size_t idx[sw->n_vars];
 *     kp_sweep_run_values(sw, run, idx);
 *     kp_scenario *sc;
 *     kp_sweep_scenario_load(sw, idx, &sc, &err);      // NULL when the run has no scenario
 *     ...
 *     kp_sweep_free(sw); */
#ifndef KP_SWEEP_H
#define KP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"
#include "kprio/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a variable varies: the seed, a number substituted as ${NAME} into the run's scenario,
 * the scenario file, the KubeSchedulerConfiguration file, the KubeletConfiguration file, the
 * PriorityLayout file (include/kprio/priority_layout.h) given to the run's cluster. */
typedef enum {
    KP_SWEEP_SEEDS = 0,
    KP_SWEEP_VALUES,
    KP_SWEEP_SCENARIOS,
    KP_SWEEP_CONFIGS,
    KP_SWEEP_KUBELET_CONFIGS,
    KP_SWEEP_PRIORITY_LAYOUTS
} kp_sweep_var_kind;

#define KP_SWEEP_N_KINDS 6

/* "seeds", "values", "scenarios", "configs", "kubeletConfigs", "priorityLayouts" (the Sweep
 * file's keys); "?". */
const char *kp_sweep_var_kind_name(kp_sweep_var_kind k);

typedef struct {
    const char *name;
    kp_sweep_var_kind kind;
    size_t n_values;
    const char *const *values; /* each value's text as written (files: the path as written) */
    const char *const *paths; /* files: resolved against the Sweep file's directory; else NULL */
    const uint64_t *seeds; /* KP_SWEEP_SEEDS: the values; else NULL */
} kp_sweep_var;

/* The figures a run keeps, in this order (docs/reference.md "kprio sweep" lists them): the
 * counters of `kprio simulate -o json`, its pending-time percentiles (kp_insight_pending_times),
 * its findings by severity and kind and its findings summary. Times in milliseconds. */
typedef enum {
    KP_FIG_EVENTS = 0,
    KP_FIG_SCHEDULE_ATTEMPTS,
    KP_FIG_SCHEDULED,
    KP_FIG_UNSCHEDULABLE,
    KP_FIG_PREEMPTION_ATTEMPTS,
    KP_FIG_PREEMPTIONS,
    KP_FIG_VICTIMS,
    KP_FIG_PODS_CREATED,
    KP_FIG_PODS_DELETED,
    KP_FIG_PODS_SUCCEEDED,
    KP_FIG_PODS_FAILED,
    KP_FIG_PENDING_AT_END,
    KP_FIG_GATED_AT_END,
    KP_FIG_KUBELET_EVICTIONS,
    KP_FIG_KUBELET_REJECTIONS,
    KP_FIG_KUBELET_PREEMPTIONS,
    KP_FIG_OOM_KILLS,
    KP_FIG_DISRUPTIONS, /* then one per kp_sim_disruption, in its order (6) */
    KP_FIG_LONGEST_WAIT = KP_FIG_DISRUPTIONS + 6,
    KP_FIG_PENDING_P50,
    KP_FIG_PENDING_P90,
    KP_FIG_PENDING_P99,
    KP_FIG_PENDING_MAX,
    KP_FIG_FINDINGS,
    KP_FIG_FINDINGS_CRITICAL,
    KP_FIG_FINDINGS_WARNING,
    KP_FIG_FINDINGS_INFO,
    KP_FIG_FINDINGS_KIND, /* then one per kp_finding_kind, in its order (5) */
    KP_FIG_PDBS_VIOLATED = KP_FIG_FINDINGS_KIND + 5,
    KP_FIG_PDBS_AT_ZERO,
    KP_FIG_EVICTIONS_BLOCKED,
    KP_FIG_STARVED_PODS,
    KP_FIG_STARVED_NEVER_BOUND,
    KP_FIG_STARVED_WORKLOADS,
    KP_FIG_PRESSURE_EVICTIONS,
    KP_FIG_COUNT
} kp_sweep_figure;

/* A figure's name ("scheduled", "disruptions.preemption", "pendingTime.p90", "findings.Loop");
 * "?" out of range. */
const char *kp_sweep_figure_name(kp_sweep_figure f);

/* A decoded Sweep file. Strings and arrays live with it (kp_sweep_free). Paths are resolved
 * against the Sweep file's directory; *_raw keep them as written. */
typedef struct kp_sweep {
    const char *source; /* the file name errors use */
    const char *name; /* metadata.name ("" when absent) */
    const char *const *snapshot, *const *snapshot_raw; /* base.snapshot: -f inputs, >= 1 */
    size_t n_snapshot;
    const char *scenario, *scenario_raw; /* base.scenario (NULL: none) */
    const char *config, *config_raw; /* base.config: KubeSchedulerConfiguration (NULL: none) */
    const char *kubelet_config, *kubelet_config_raw; /* base.kubeletConfig (NULL: none) */
    bool has_duration, has_seed;
    int64_t duration_ms; /* base.duration */
    uint64_t seed; /* base.seed */
    const kp_sweep_var *vars; /* matrix, in order */
    size_t n_vars;
    const kp_sweep_figure *figures; /* kept figures, in the order figures: names them (default:
                                     * scheduled, preemptions, victims, pendingAtEnd,
                                     * pendingTime.p50, pendingTime.p99, findings) */
    size_t n_figures;
    size_t n_runs; /* the product of the variables' value counts (1 without variables) */
} kp_sweep;

/* Loads a Sweep file (YAML or JSON) and checks it whole: unknown fields, duplicate keys, a
 * variable kind given twice, a name twice, figures that name nothing, more runs than
 * KP_SWEEP_MAX_RUNS; and the scenario templates: every file the runs use as scenario (base and
 * a scenarios variable's) is read now, and a ${NAME} naming no numeric variable, or a numeric
 * variable no scenario names, is an error ("sweep.yaml: matrix[1].name: variable \"x\" appears
 * in no scenario"); every PriorityLayout file of a priorityLayouts variable is read and decoded
 * now too (an error names the variable's field, then the layout file's). One line naming the file
 * and the field. KP_EINVAL, KP_ESYNTAX, KP_EIO, KP_ELIMIT, KP_ENOMEM. */
kp_status kp_sweep_load_path(const char *path, kp_sweep **out, kp_error *err);
/* The same from buf[0..len) (not retained): relative paths against base_dir (NULL: the current
 * directory). */
kp_status kp_sweep_load_buffer(const char *source, const char *buf, size_t len,
                               const char *base_dir, kp_sweep **out, kp_error *err);
void kp_sweep_free(kp_sweep *sw);

#define KP_SWEEP_MAX_RUNS 1000000u

/* Run r's value of each variable (idx[i] indexes vars[i].values): the first variable varies
 * slowest, the last fastest. r < n_runs. */
void kp_sweep_run_values(const kp_sweep *sw, size_t r, size_t *idx);

/* The run's scenario (a scenarios variable's file, else base.scenario) with every ${NAME}
 * replaced by the run's value of numeric variable NAME ($${ is a literal ${), decoded as
 * kp_scenario_load_buffer does (`file:` entries relative to the scenario's directory); *out
 * NULL when the run has none. Errors name the scenario file. */
kp_status kp_sweep_scenario_load(const kp_sweep *sw, const size_t *idx, kp_scenario **out,
                                 kp_error *err);
/* The substitution alone: text[0..len) with the run's values, into a kp_malloc'd *out (*out_len
 * bytes, NUL after them). source names the text in errors (an unknown ${NAME}, an unclosed
 * ${). */
kp_status kp_sweep_substitute(const kp_sweep *sw, const size_t *idx, const char *source,
                              const char *text, size_t len, char **out, size_t *out_len,
                              kp_error *err);

/* One input of the sweep with its bytes (what an Indexed Job's ConfigMap holds). */
typedef struct {
    const char *path; /* where the pods find it below the mount: as the Sweep file writes it (the
                       * Sweep file itself: its base name); a file a scenario names: joined to
                       * the scenario's directory */
    char *data;
    size_t len;
} kp_sweep_input;

/* The Sweep file, then every file it names (base.snapshot, base.scenario, base.config,
 * base.kubeletConfig, the files of the matrix), then every file the runs' scenarios name
 * (kp_scenario.files: each scenario the runs use, decoded with each combination of the numeric
 * variables it names), each once, with its bytes. Every path must be relative and stay below the
 * Sweep file's directory, a path a ConfigMap's item can hold (no "." or ".." element, not
 * starting with "..", at most 4096 bytes and 255 per element), a file (no directory) of at most
 * 1 MiB: else KP_EINVAL naming the file that names it and the field ("scenario.yaml:
 * usage[0].trace.file: \"/data/u.csv\": ..."). Release with kp_sweep_inputs_free. KP_EIO,
 * KP_ELIMIT, KP_ENOMEM, and a scenario's own errors. */
kp_status kp_sweep_inputs(const kp_sweep *sw, kp_sweep_input **out, size_t *n, kp_error *err);
void kp_sweep_inputs_free(kp_sweep_input *in, size_t n);

/* ---- results: a SweepShard document (one shard of the runs, or all of them) ---- */

/* One run: its figures (n_figures values, the result's order), or the error that ended it. */
typedef struct {
    size_t run;
    const char *error; /* NULL: the run answered */
    const int64_t *figures; /* NULL when error */
} kp_sweep_row;

typedef struct kp_sweep_result {
    const char *sweep; /* the Sweep's metadata.name */
    size_t n_runs; /* every run of the sweep */
    size_t shard, n_shards; /* this document's shard (0 of 1: the whole sweep) */
    const kp_sweep_var *vars; /* values as written (paths NULL) */
    size_t n_vars;
    const kp_sweep_figure *figures;
    size_t n_figures;
    const kp_sweep_row *rows; /* by run, each run of the shard once */
    size_t n_rows;
} kp_sweep_result;

/* Decodes a SweepShard document (what `kprio sweep --shard` writes): strictly, every row's run
 * in the shard (run % n_shards == shard), once each, in order. KP_EINVAL, KP_ESYNTAX, KP_EIO,
 * KP_ENOMEM; errors name the file and the field. */
kp_status kp_sweep_result_load_buffer(const char *source, const char *buf, size_t len,
                                      kp_sweep_result **out, kp_error *err);
kp_status kp_sweep_result_load_path(const char *path, kp_sweep_result **out, kp_error *err);
/* The shards of one sweep combined into its whole result (0 of 1): each shard 0..N-1 exactly
 * once, all of the same sweep (name, runs, variables, figures). Errors name the shard's source
 * (sources[i]). */
kp_status kp_sweep_result_merge(const kp_sweep_result *const *parts, const char *const *sources,
                                size_t n, kp_sweep_result **out, kp_error *err);
void kp_sweep_result_free(kp_sweep_result *r);

#ifdef __cplusplus
}
#endif
#endif
