/* A simulation's metrics (`kprio simulate --metrics FILE`, docs/simulate.md "Metrics"): the
 * run's final values under upstream's metric names where one exists (kube-scheduler's
 * pkg/scheduler/metrics/metrics.go, the kubelet's pkg/kubelet/metrics/metrics.go), and their
 * time series at the simulation's sample step (kp_sim_sample_*). Computed after the run from
 * its samples, events and pod timelines (kprio/sim.h); built on the public API only.
 *
 * Typical use:
 *     kp_sim_run(sim, &err);
 *     kp_metrics *m;
 *     kp_metrics_new(sim, &m, &err);
 *     for (size_t i = 0; i < kp_metrics_family_count(m); i++)
 *         puts(kp_metrics_family_get(m, i)->name);
 *     kp_metrics_free(m);   // before the simulation: names borrow its strings */
#ifndef KP_METRICS_H
#define KP_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"
#include "kprio/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KP_METRIC_COUNTER = 0, KP_METRIC_GAUGE, KP_METRIC_HISTOGRAM } kp_metric_type;

/* One labelled value of a family (a child of upstream's *Vec). Up to two labels. */
typedef struct {
    size_t n_labels;
    const char *label_names[2], *label_values[2];
    double value; /* counter, gauge */
    /* histogram: cumulative counts per upper bound of the family (n_bounds), sum and count */
    const uint64_t *buckets;
    double sum;
    uint64_t count;
} kp_metric_sample;

typedef struct {
    const char *name; /* "scheduler_preemption_attempts_total" */
    const char *help; /* upstream's Help text */
    const char *stability; /* "STABLE", "BETA", "ALPHA" (upstream's), "" for kprio's own */
    const char *upstream; /* where upstream defines it ("pkg/scheduler/metrics/metrics.go") */
    kp_metric_type type;
    const double *bounds; /* histogram upper bounds (without +Inf) */
    size_t n_bounds;
    const kp_metric_sample *samples;
    size_t n_samples;
} kp_metric_family;

/* A time series: one value per sample time (kp_metrics_times). Counters are cumulative. */
typedef struct {
    const char *name; /* metric name (a family's, or kprio's own series name) */
    const char *label_name, *label_value; /* "" when the series has no label */
    const int64_t *values;
} kp_metric_series;

typedef struct kp_metrics kp_metrics;

/* The metrics of a run (ended or not). sim borrowed: free the metrics first. KP_ENOMEM. */
kp_status kp_metrics_new(const kp_sim *sim, kp_metrics **out, kp_error *err);
void kp_metrics_free(kp_metrics *m);

/* Final values, in a fixed order (docs/simulate.md lists them). */
size_t kp_metrics_family_count(const kp_metrics *m);
const kp_metric_family *kp_metrics_family_get(const kp_metrics *m, size_t i);

/* The series' sample times (virtual ms: 0, step, 2*step, ...; kp_sim_sample_step) */
size_t kp_metrics_time_count(const kp_metrics *m);
const int64_t *kp_metrics_times(const kp_metrics *m);
int64_t kp_metrics_step(const kp_metrics *m);
size_t kp_metrics_series_count(const kp_metrics *m);
const kp_metric_series *kp_metrics_series_get(const kp_metrics *m, size_t i);

/* kubelet_evictions' eviction_signal of an Evicted event's message: the signal whose resource
 * the message names ("The node was low on resource: memory." -> "memory.available"), or the
 * local-storage limit ("emptydirfs.limit", "ephemeralpodfs.limit",
 * "ephemeralcontainerfs.limit"); "" when it names none. */
const char *kp_metrics_eviction_signal(const char *message);

#ifdef __cplusplus
}
#endif
#endif
