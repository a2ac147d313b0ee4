/* A simulation's metrics (kprio/metrics.h, docs/simulate.md "Metrics"): the final values under
 * upstream's names and the time series at the sample step, computed after the run from the
 * samples (queue sizes, cumulative counters), the event log and the pod timelines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/metrics.h"

#define N_SIGNALS 12
#define PRIO_LABEL 16

/* kubelet_evictions' label values, in the order a run reports them */
static const char *const SIGNALS[N_SIGNALS] = {
    "memory.available",      "allocatableMemory.available", "nodefs.available",
    "nodefs.inodesFree",     "imagefs.available",           "imagefs.inodesFree",
    "containerfs.available", "containerfs.inodesFree",      "pid.available",
    "emptydirfs.limit",      "ephemeralpodfs.limit",        "ephemeralcontainerfs.limit"};

/* upstream's buckets: PreemptionVictims ExponentialBuckets(1, 2, 7), PodSchedulingAttempts
 * ExponentialBuckets(1, 2, 5), PodSchedulingSLIDuration ExponentialBuckets(0.01, 2, 20) */
#define N_VICTIM_B 7
#define N_ATTEMPT_B 5
#define N_SLI_B 20

enum {
    F_ATTEMPTS,
    F_PREEMPT_ATTEMPTS,
    F_VICTIMS,
    F_PENDING,
    F_POD_ATTEMPTS,
    F_SLI,
    F_EVICTIONS,
    F_DISRUPTIONS,
    N_F,
    /* devices, per device class: listed only when the run met a device class */
    F_DRA_CREATED = N_F,
    F_DRA_ALLOC,
    F_DRA_DEALLOC,
    F_DRA_BOUND,
    F_DRA_WAIT,
    F_DRA_WAITING,
    F_DRA_PREEMPTED,
    N_F_ALL
};
#define N_DRA (N_F_ALL - N_F)

struct kp_metrics {
    kp_metric_family fam[N_F_ALL];
    size_t n_fam;
    kp_metric_sample *dra; /* N_DRA per device class */
    kp_sim_device_class *dra_classes;
    kp_metric_sample attempts[3], preempt_attempts, victims, pending[4], pod_attempts;
    kp_metric_sample *sli; /* one per attempts value */
    kp_metric_sample evictions[N_SIGNALS];
    kp_metric_sample disruptions[KP_SIM_N_DISRUPT];
    double victim_b[N_VICTIM_B], attempt_b[N_ATTEMPT_B], sli_b[N_SLI_B];
    uint64_t victim_c[N_VICTIM_B], attempt_c[N_ATTEMPT_B];
    uint64_t *sli_c; /* N_SLI_B per sli sample */
    char (*sli_labels)[PRIO_LABEL];
    int64_t *times;
    size_t n_times;
    int64_t step;
    kp_metric_series *series;
    size_t n_series;
    int64_t *values; /* n_series * n_times */
    char (*prio_labels)[PRIO_LABEL];
};

const char *kp_metrics_eviction_signal(const char *msg) {
    static const char LOW[] = "The node was low on resource: ";
    if (strncmp(msg, LOW, sizeof LOW - 1) == 0) {
        /* signalToResource read backwards: the message names the resource to reclaim */
        const char *r = msg + sizeof LOW - 1;
        if (strncmp(r, "memory.", 7) == 0) return "memory.available";
        if (strncmp(r, "ephemeral-storage.", 18) == 0) return "nodefs.available";
        if (strncmp(r, "inodes.", 7) == 0) return "nodefs.inodesFree";
        if (strncmp(r, "pids.", 5) == 0) return "pid.available";
        return "";
    }
    if (strncmp(msg, "Usage of EmptyDir volume", 24) == 0) return "emptydirfs.limit";
    if (strncmp(msg, "Pod ephemeral local storage usage exceeds", 41) == 0)
        return "ephemeralpodfs.limit";
    if (strncmp(msg, "Container ", 10) == 0 && strstr(msg, "exceeded its local ephemeral storage"))
        return "ephemeralcontainerfs.limit";
    return "";
}

static int signal_index(const char *sig) {
    for (int i = 0; i < N_SIGNALS; i++)
        if (strcmp(SIGNALS[i], sig) == 0) return i;
    return -1;
}

static bool is_eviction(const kp_sim_event *e) {
    return e->type == KP_SIM_WARNING && strcmp(e->reason, "Evicted") == 0 && e->pod >= 0;
}

static void label1(kp_metric_sample *s, const char *name, const char *value) {
    s->n_labels = 1;
    s->label_names[0] = name;
    s->label_values[0] = value;
}

static void observe(const double *bounds, uint64_t *cum, size_t n, double v) {
    for (size_t i = 0; i < n; i++)
        if (v <= bounds[i]) cum[i]++;
}

static void family(kp_metrics *m, int i, const char *name, kp_metric_type type,
                   const char *stability, const char *upstream, const char *help) {
    m->fam[i].name = name;
    m->fam[i].type = type;
    m->fam[i].stability = stability;
    m->fam[i].upstream = upstream;
    m->fam[i].help = help;
}

static const char SCHED_SRC[] = "pkg/scheduler/metrics/metrics.go";

static void define_families(kp_metrics *m) {
    family(m, F_ATTEMPTS, "scheduler_schedule_attempts_total", KP_METRIC_COUNTER, "STABLE",
           SCHED_SRC,
           "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
           "not be scheduled, while 'error' means an internal scheduler problem.");
    family(m, F_PREEMPT_ATTEMPTS, "scheduler_preemption_attempts_total", KP_METRIC_COUNTER,
           "STABLE", SCHED_SRC, "Total preemption attempts in the cluster till now");
    family(m, F_VICTIMS, "scheduler_preemption_victims", KP_METRIC_HISTOGRAM, "STABLE", SCHED_SRC,
           "Number of selected preemption victims for preemption initiated by a single pod");
    family(m, F_PENDING, "scheduler_pending_pods", KP_METRIC_GAUGE, "STABLE", SCHED_SRC,
           "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
           "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
           "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is "
           "the number of unschedulable pods that the scheduler never attempted to schedule "
           "because they are gated.");
    family(m, F_POD_ATTEMPTS, "scheduler_pod_scheduling_attempts", KP_METRIC_HISTOGRAM, "STABLE",
           SCHED_SRC, "Number of attempts to successfully schedule a pod.");
    family(m, F_SLI, "scheduler_pod_scheduling_sli_duration_seconds", KP_METRIC_HISTOGRAM, "BETA",
           SCHED_SRC,
           "E2e latency for a pod being scheduled, from the time the pod enters the scheduling "
           "queue and might involve multiple scheduling attempts.");
    family(m, F_EVICTIONS, "kubelet_evictions", KP_METRIC_COUNTER, "ALPHA",
           "pkg/kubelet/metrics/metrics.go",
           "Cumulative number of pod evictions by eviction signal");
    family(m, F_DISRUPTIONS, "kprio_pod_disruptions_total", KP_METRIC_COUNTER, "", "",
           "Running pods disrupted, by what disrupted them (each pod once, its first cause)");
    static const char *const DRA[N_DRA][2] = {
        {"kprio_dra_claims_created_total",
         "ResourceClaims the resourceclaim controller made from templates, by device class"},
        {"kprio_dra_allocations_total", "Claims allocated at a binding, by device class"},
        {"kprio_dra_deallocations_total",
         "Allocations cleared when the claim's last consumer ended, by device class"},
        {"kprio_dra_pods_bound_total", "Pods with a claim of the device class bound"},
        {"kprio_dra_pod_wait_seconds_total",
         "Time the pods bound with a claim of the device class waited, from creation (t = 0 "
         "for the snapshot's) to binding"},
        {"kprio_dra_pods_waiting", "Pods with a claim of the device class still pending"},
        {"kprio_dra_preempted_holders_total",
         "Preemption victims that held an allocated claim of the device class"}};
    for (int i = 0; i < N_DRA; i++)
        family(m, N_F + i, DRA[i][0],
               i == F_DRA_WAITING - N_F ? KP_METRIC_GAUGE : KP_METRIC_COUNTER, "", "", DRA[i][1]);
    for (int i = 0; i < N_VICTIM_B; i++) m->victim_b[i] = (double)(1 << i);
    for (int i = 0; i < N_ATTEMPT_B; i++) m->attempt_b[i] = (double)(1 << i);
    double b = 0.01;
    for (int i = 0; i < N_SLI_B; i++, b *= 2) m->sli_b[i] = b;
}

/* PreemptionVictims.Observe as Evaluator.prepareCandidate calls it: one observation per
 * preemption, its victims = the Preempted events that follow from one FailedScheduling */
static kp_status victims_histogram(kp_metrics *m, const kp_sim *sim) {
    size_t n = kp_sim_event_count(sim);
    uint32_t *per = kp_calloc(n ? n : 1, sizeof *per);
    if (!per) return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        if (e->cause >= 0 && (size_t)e->cause < n && strcmp(e->reason, "Preempted") == 0)
            per[e->cause]++;
    }
    kp_metric_sample *s = &m->victims;
    s->buckets = m->victim_c;
    for (size_t i = 0; i < n; i++) {
        if (!per[i]) continue;
        observe(m->victim_b, m->victim_c, N_VICTIM_B, (double)per[i]);
        s->sum += (double)per[i];
        s->count++;
    }
    kp_free(per);
    return KP_OK;
}

/* Pods the scheduler bound during the run: their attempts (PodSchedulingAttempts) and the time
 * from entering the queue (creation, or t = 0 for the snapshot's) to binding
 * (PodSchedulingSLIDuration, labelled by attempts). */
static kp_status pod_histograms(kp_metrics *m, const kp_sim *sim) {
    size_t np = kp_sim_pod_count(sim);
    uint32_t max_att = 0;
    for (size_t i = 0; i < np; i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (p->bound_ms >= 0 && p->attempts > max_att) max_att = p->attempts;
    }
    size_t nl = (size_t)max_att + 1;
    uint32_t *slot = kp_calloc(nl, sizeof *slot); /* attempts -> sample index + 1 */
    m->sli = kp_calloc(nl, sizeof *m->sli);
    m->sli_c = kp_calloc(nl * N_SLI_B, sizeof *m->sli_c);
    m->sli_labels = kp_calloc(nl, sizeof *m->sli_labels);
    if (!slot || !m->sli || !m->sli_c || !m->sli_labels) {
        kp_free(slot);
        return KP_ENOMEM;
    }
    size_t ns = 0;
    for (size_t i = 0; i < np; i++) { /* label values in increasing attempts */
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (p->bound_ms >= 0 && p->attempts) slot[p->attempts] = 1;
    }
    for (size_t a = 1; a < nl; a++) {
        if (!slot[a]) continue;
        slot[a] = (uint32_t)++ns;
        kp_metric_sample *s = &m->sli[ns - 1];
        snprintf(m->sli_labels[ns - 1], PRIO_LABEL, "%zu", a);
        label1(s, "attempts", m->sli_labels[ns - 1]);
        s->buckets = m->sli_c + (ns - 1) * N_SLI_B;
    }
    m->pod_attempts.buckets = m->attempt_c;
    for (size_t i = 0; i < np; i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (p->bound_ms < 0 || !p->attempts) continue;
        observe(m->attempt_b, m->attempt_c, N_ATTEMPT_B, p->attempts);
        m->pod_attempts.sum += p->attempts;
        m->pod_attempts.count++;
        kp_metric_sample *s = &m->sli[slot[p->attempts] - 1];
        double secs = (double)(p->bound_ms - (p->created_ms >= 0 ? p->created_ms : 0)) / 1000.0;
        observe(m->sli_b, (uint64_t *)s->buckets, N_SLI_B, secs);
        s->sum += secs;
        s->count++;
    }
    kp_free(slot);
    m->fam[F_SLI].samples = m->sli;
    m->fam[F_SLI].n_samples = ns;
    m->fam[F_SLI].bounds = m->sli_b;
    m->fam[F_SLI].n_bounds = N_SLI_B;
    return KP_OK;
}

/* the final values: the counters, the last sample's queue, the histograms, the evictions */
static void final_values(kp_metrics *m, const kp_sim *sim) {
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    static const char *const RES[3] = {"scheduled", "unschedulable", "error"};
    const uint64_t by[3] = {c.scheduled, c.unschedulable, c.errors};
    for (int i = 0; i < 3; i++) {
        kp_metric_sample *s = &m->attempts[i];
        label1(s, "result", RES[i]);
        s->n_labels = 2;
        s->label_names[1] = "profile";
        s->label_values[1] = "default-scheduler";
        s->value = (double)by[i];
    }
    m->preempt_attempts.value = (double)c.preemption_attempts;
    static const char *const Q[4] = {"active", "backoff", "unschedulable", "gated"};
    size_t ns = kp_sim_sample_count(sim);
    const kp_sim_sample *last = ns ? kp_sim_sample_get(sim, ns - 1) : NULL;
    for (int i = 0; i < 4; i++) label1(&m->pending[i], "queue", Q[i]);
    if (last) {
        m->pending[0].value = last->active;
        m->pending[1].value = last->backoff;
        m->pending[2].value = last->unschedulable;
        m->pending[3].value = last->gated;
    }
    for (int i = 0; i < N_SIGNALS; i++) label1(&m->evictions[i], "eviction_signal", SIGNALS[i]);
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        int k = is_eviction(e) ? signal_index(kp_metrics_eviction_signal(e->message)) : -1;
        if (k >= 0) m->evictions[k].value++;
    }
    /* only the signals that evicted (a CounterVec shows the children it made) */
    size_t ne = 0;
    for (int i = 0; i < N_SIGNALS; i++)
        if (m->evictions[i].value > 0) m->evictions[ne++] = m->evictions[i];
    /* kprio's own: the simulator's counters by cause, only the causes that occurred */
    size_t nd = 0;
    for (int i = 0; i < KP_SIM_N_DISRUPT; i++) {
        if (!c.disruptions[i]) continue;
        label1(&m->disruptions[nd], "cause", kp_sim_disruption_name((kp_sim_disruption)i));
        m->disruptions[nd++].value = (double)c.disruptions[i];
    }
    kp_metric_family *f = m->fam;
    f[F_DISRUPTIONS].samples = m->disruptions;
    f[F_DISRUPTIONS].n_samples = nd;
    f[F_ATTEMPTS].samples = m->attempts;
    f[F_ATTEMPTS].n_samples = 3;
    f[F_PREEMPT_ATTEMPTS].samples = &m->preempt_attempts;
    f[F_PREEMPT_ATTEMPTS].n_samples = 1;
    f[F_VICTIMS].samples = &m->victims;
    f[F_VICTIMS].n_samples = 1;
    f[F_VICTIMS].bounds = m->victim_b;
    f[F_VICTIMS].n_bounds = N_VICTIM_B;
    f[F_PENDING].samples = m->pending;
    f[F_PENDING].n_samples = 4;
    f[F_POD_ATTEMPTS].samples = &m->pod_attempts;
    f[F_POD_ATTEMPTS].n_samples = 1;
    f[F_POD_ATTEMPTS].bounds = m->attempt_b;
    f[F_POD_ATTEMPTS].n_bounds = N_ATTEMPT_B;
    f[F_EVICTIONS].samples = m->evictions;
    f[F_EVICTIONS].n_samples = ne;
}

/* The interval [from, to) a pod was pending (not bound, not terminating, not gone); false
 * when it never was: a pod of the snapshot bound or finished from the start. */
static bool pending_span(const kp_sim_pod *p, int64_t *from, int64_t *to) {
    if (p->created_ms >= 0) *from = p->created_ms;
    else if (p->bound_ms >= 0 ||
             (p->node < 0 && p->state != KP_SIM_POD_SUCCEEDED && p->state != KP_SIM_POD_FAILED))
        *from = 0;
    else return false;
    *to = INT64_MAX;
    const int64_t ends[3] = {p->bound_ms, p->terminating_ms, p->gone_ms};
    for (int i = 0; i < 3; i++)
        if (ends[i] >= 0 && ends[i] < *to) *to = ends[i];
    return true;
}

/* ---------------------------------------------------------------- series */

static int cmp_desc(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x > y ? -1 : x < y;
}

/* the first sample index at or after t (a sample holds every event of its instant) */
static size_t sample_at_or_after(int64_t t, int64_t step, size_t n) {
    if (t == INT64_MAX || step <= 0) return n;
    int64_t i = (t + step - 1) / step;
    return i < 0 ? 0 : (size_t)i < n ? (size_t)i : n;
}

static kp_metric_series *add_series(kp_metrics *m, const char *name, const char *label,
                                    const char *value) {
    kp_metric_series *s = &m->series[m->n_series];
    s->name = name;
    s->label_name = label;
    s->label_value = value;
    s->values = m->values + m->n_series * m->n_times;
    m->n_series++;
    return s;
}

/* distinct priorities of the pods that were pending at some time, highest first */
static size_t pending_priorities(const kp_sim *sim, int32_t *prio) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t n = 0;
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        int64_t from, to;
        if (pending_span(p, &from, &to)) prio[n++] = kp_cluster_pod_priority(cl, p->pod);
    }
    qsort(prio, n, sizeof *prio, cmp_desc);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || prio[u - 1] != prio[i]) prio[u++] = prio[i];
    return u;
}

/* kprio_pending_pods{priority}: +1 where a pod's pending span starts, -1 where it ends */
static void pending_by_priority(kp_metrics *m, const kp_sim *sim, const int32_t *prio, size_t np,
                                int64_t *first) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t nt = m->n_times;
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        int64_t from, to;
        if (!pending_span(p, &from, &to)) continue;
        int32_t pr = kp_cluster_pod_priority(cl, p->pod);
        size_t k = 0;
        while (k + 1 < np && prio[k] != pr) k++;
        int64_t *v = first + k * nt;
        size_t a = sample_at_or_after(from, m->step, nt), b = sample_at_or_after(to, m->step, nt);
        if (a >= b) continue;
        v[a]++;
        if (b < nt) v[b]--;
    }
    for (size_t k = 0; k < np; k++)
        for (size_t t = 1; t < nt; t++) first[k * nt + t] += first[k * nt + t - 1];
}

static void sample_series(kp_metrics *m, const kp_sim *sim) {
    static const char *const Q[4] = {"active", "backoff", "unschedulable", "gated"};
    static const char *const RES[3] = {"scheduled", "unschedulable", "error"};
    int64_t *v[10];
    for (int i = 0; i < 4; i++)
        v[i] = (int64_t *)add_series(m, "scheduler_pending_pods", "queue", Q[i])->values;
    for (int i = 0; i < 3; i++)
        v[4 + i] =
            (int64_t *)add_series(m, "scheduler_schedule_attempts_total", "result", RES[i])->values;
    v[7] = (int64_t *)add_series(m, "scheduler_preemption_attempts_total", "", "")->values;
    v[8] = (int64_t *)add_series(m, "kprio_preemptions_total", "", "")->values;
    v[9] = (int64_t *)add_series(m, "kprio_preemption_victims_total", "", "")->values;
    for (size_t t = 0; t < m->n_times; t++) {
        const kp_sim_sample *x = kp_sim_sample_get(sim, t);
        m->times[t] = x->t_ms;
        const int64_t val[10] = {x->active,
                                 x->backoff,
                                 x->unschedulable,
                                 x->gated,
                                 (int64_t)x->c.scheduled,
                                 (int64_t)x->c.unschedulable,
                                 (int64_t)x->c.errors,
                                 (int64_t)x->c.preemption_attempts,
                                 (int64_t)x->c.preemptions,
                                 (int64_t)x->c.victims};
        for (int i = 0; i < 10; i++) v[i][t] = val[i];
    }
}

static kp_status build_series(kp_metrics *m, const kp_sim *sim) {
    m->n_times = kp_sim_sample_count(sim);
    m->step = kp_sim_sample_step(sim);
    size_t nsig = m->fam[F_EVICTIONS].n_samples, npods = kp_sim_pod_count(sim);
    int32_t *prio = kp_calloc(npods ? npods : 1, sizeof *prio);
    if (!prio) return KP_ENOMEM;
    size_t np = pending_priorities(sim, prio);
    size_t ndis = m->fam[F_DISRUPTIONS].n_samples;
    size_t total = 10 + nsig + ndis + np, nt = m->n_times ? m->n_times : 1;
    m->times = kp_calloc(nt, sizeof *m->times);
    m->series = kp_calloc(total, sizeof *m->series);
    m->values = kp_calloc(total * nt, sizeof *m->values);
    m->prio_labels = kp_calloc(np ? np : 1, sizeof *m->prio_labels);
    if (!m->times || !m->series || !m->values || !m->prio_labels) {
        kp_free(prio);
        return KP_ENOMEM;
    }
    sample_series(m, sim);
    for (size_t k = 0; k < nsig; k++) { /* cumulative: +1 at the eviction's sample */
        const char *sig = m->fam[F_EVICTIONS].samples[k].label_values[0];
        int64_t *v = (int64_t *)add_series(m, "kubelet_evictions", "eviction_signal", sig)->values;
        for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
            const kp_sim_event *e = kp_sim_event_get(sim, i);
            if (!is_eviction(e) || strcmp(kp_metrics_eviction_signal(e->message), sig) != 0)
                continue;
            size_t a = sample_at_or_after(e->t_ms, m->step, m->n_times);
            if (a < m->n_times) v[a]++;
        }
        for (size_t t = 1; t < m->n_times; t++) v[t] += v[t - 1];
    }
    for (size_t k = 0; k < ndis; k++) { /* the samples' counters, cumulative */
        const char *cause = m->fam[F_DISRUPTIONS].samples[k].label_values[0];
        int d = 0;
        while (d + 1 < KP_SIM_N_DISRUPT &&
               strcmp(kp_sim_disruption_name((kp_sim_disruption)d), cause) != 0)
            d++;
        int64_t *v =
            (int64_t *)add_series(m, "kprio_pod_disruptions_total", "cause", cause)->values;
        for (size_t t = 0; t < m->n_times; t++)
            v[t] = (int64_t)kp_sim_sample_get(sim, t)->c.disruptions[d];
    }
    int64_t *first = m->values + m->n_series * m->n_times;
    for (size_t k = 0; k < np; k++) {
        snprintf(m->prio_labels[k], PRIO_LABEL, "%d", (int)prio[k]);
        add_series(m, "kprio_pending_pods", "priority", m->prio_labels[k]);
    }
    pending_by_priority(m, sim, prio, np, first);
    kp_free(prio);
    return KP_OK;
}


/* kprio's own device families: one sample per device class the run met (kp_sim_device_class) */
static kp_status dra_values(kp_metrics *m, const kp_sim *sim) {
    size_t n = kp_sim_device_class_count(sim);
    m->n_fam = n ? N_F_ALL : N_F;
    if (!n) return KP_OK;
    m->dra = kp_calloc(n * N_DRA, sizeof *m->dra);
    m->dra_classes = kp_calloc(n, sizeof *m->dra_classes);
    if (!m->dra || !m->dra_classes) return KP_ENOMEM;
    for (size_t c = 0; c < n; c++) {
        kp_sim_device_class *d = &m->dra_classes[c];
        kp_sim_device_class_get(sim, c, d);
        const double v[N_DRA] = {(double)d->claims_created,       (double)d->allocations,
                                 (double)d->deallocations,        (double)d->pods_bound,
                                 (double)d->wait_ms_sum / 1000.0, (double)d->pods_waiting,
                                 (double)d->holders_preempted};
        for (int f = 0; f < N_DRA; f++) {
            kp_metric_sample *s = &m->dra[(size_t)f * n + c];
            label1(s, "device_class", d->device_class);
            s->value = v[f];
        }
    }
    for (int f = 0; f < N_DRA; f++) {
        m->fam[N_F + f].samples = &m->dra[(size_t)f * n];
        m->fam[N_F + f].n_samples = n;
    }
    return KP_OK;
}

kp_status kp_metrics_new(const kp_sim *sim, kp_metrics **out, kp_error *err) {
    kp_metrics *m = kp_calloc(1, sizeof *m);
    *out = NULL;
    if (!m) return kp_error_set(err, KP_ENOMEM, "metrics: out of memory");
    define_families(m);
    final_values(m, sim);
    if (victims_histogram(m, sim) != KP_OK || pod_histograms(m, sim) != KP_OK ||
        build_series(m, sim) != KP_OK || dra_values(m, sim) != KP_OK) {
        kp_metrics_free(m);
        return kp_error_set(err, KP_ENOMEM, "metrics: out of memory");
    }
    *out = m;
    return KP_OK;
}

void kp_metrics_free(kp_metrics *m) {
    if (!m) return;
    kp_free(m->sli);
    kp_free(m->sli_c);
    kp_free(m->sli_labels);
    kp_free(m->times);
    kp_free(m->series);
    kp_free(m->values);
    kp_free(m->prio_labels);
    kp_free(m->dra);
    kp_free(m->dra_classes);
    kp_free(m);
}

size_t kp_metrics_family_count(const kp_metrics *m) { return m->n_fam; }
const kp_metric_family *kp_metrics_family_get(const kp_metrics *m, size_t i) {
    return i < m->n_fam ? &m->fam[i] : NULL;
}
size_t kp_metrics_time_count(const kp_metrics *m) { return m->n_times; }
const int64_t *kp_metrics_times(const kp_metrics *m) { return m->times; }
int64_t kp_metrics_step(const kp_metrics *m) { return m->step; }
size_t kp_metrics_series_count(const kp_metrics *m) { return m->n_series; }
const kp_metric_series *kp_metrics_series_get(const kp_metrics *m, size_t i) {
    return i < m->n_series ? &m->series[i] : NULL;
}
