/* Findings of a simulation (kprio/insight.h, docs/simulate.md "Findings"): the run indexed once
 * (per pod, the events the finders link to), the finders of insight_*.c, then the order: most
 * severe first, ties by kind, first time, subject. The builder the finders share is
 * insight_build.c. */
#include <stdlib.h>
#include <string.h>

#include "sim/insight_internal.h"

void kp_insight_options_init(kp_insight_options *o) {
    memset(o, 0, sizeof *o);
    o->starvation_ms = 5 * 60 * 1000;
    o->loop_min_turns = 3;
    o->cascade_min_depth = 2;
}

/* ---------------------------------------------------------------- the run, indexed */

static void run_free(ins_run *r) {
    kp_free(r->displaced);
    kp_free(r->created);
    kp_free(r->first_failed);
    kp_free(r->last_failed);
    kp_free(r->scheduled);
    kp_free(r->first_ready);
    kp_free(r->deleted);
    kp_free(r->replaced_by);
}

static long *minus_ones(size_t n) {
    long *a = kp_malloc((n ? n : 1) * sizeof *a);
    if (a)
        for (size_t i = 0; i < n; i++) a[i] = -1;
    return a;
}

/* The kubelet's refusal of a pod it was handed (kubelet.rejectPod: a Warning of the admit
 * result's reason, OutOfcpu, NodeAffinity, ...): the pod's timeline ends "rejected". */
static bool rejection(const ins_run *r, const kp_sim_event *e) {
    return e->type == KP_SIM_WARNING && e->node >= 0 &&
           strcmp(e->reason, "FailedScheduling") != 0 &&
           strcmp(kp_sim_pod_get(r->sim, (size_t)e->pod)->cause, "rejected") == 0;
}

static kp_status run_index(ins_run *r) {
    size_t n = r->n_pods;
    if (!(r->displaced = minus_ones(n)) || !(r->created = minus_ones(n)) ||
        !(r->first_failed = minus_ones(n)) || !(r->last_failed = minus_ones(n)) ||
        !(r->scheduled = minus_ones(n)) || !(r->deleted = minus_ones(n)) ||
        !(r->first_ready = minus_ones(n)) ||
        !(r->replaced_by = kp_malloc((n ? n : 1) * sizeof *r->replaced_by)))
        return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) r->replaced_by[i] = -1;
    for (size_t i = 0; i < n; i++) {
        const kp_sim_pod *p = kp_sim_pod_get(r->sim, i);
        if (p->replaces >= 0 && (size_t)p->replaces < n) r->replaced_by[p->replaces] = (kp_index)i;
    }
    for (size_t i = 0; i < r->n_events; i++) {
        const kp_sim_event *e = kp_sim_event_get(r->sim, i);
        if (e->pod < 0 || (size_t)e->pod >= n) continue;
        size_t p = (size_t)e->pod;
        long at = (long)i;
        if (strcmp(e->reason, "Preempted") == 0 || strcmp(e->reason, "Evicted") == 0 ||
            strcmp(e->reason, "Preempting") == 0 || rejection(r, e)) {
            if (r->displaced[p] < 0) r->displaced[p] = at;
        } else if (strcmp(e->reason, "SuccessfulCreate") == 0 ||
                   strcmp(e->reason, "Created") == 0) {
            if (r->created[p] < 0) r->created[p] = at;
        } else if (strcmp(e->reason, "FailedScheduling") == 0) {
            if (r->first_failed[p] < 0) r->first_failed[p] = at;
            r->last_failed[p] = at;
        } else if (strcmp(e->reason, "Scheduled") == 0) {
            r->scheduled[p] = at;
        } else if (strcmp(e->reason, "PodReady") == 0) {
            if (r->first_ready[p] < 0) r->first_ready[p] = at;
        } else if (strcmp(e->reason, "SuccessfulDelete") == 0 ||
                   strcmp(e->reason, "Deleted") == 0) {
            if (r->deleted[p] < 0) r->deleted[p] = at;
        }
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- the insight */

static int cmp_first_event(const kp_finding *x, const kp_finding *y) {
    if (!x->n_events || !y->n_events) return 0;
    return (x->events[0] > y->events[0]) - (x->events[0] < y->events[0]);
}

/* Within a severity, what broke a guarantee (a PDB, a loop, a cascade, evictions under
 * pressure) before what waited (devices contended, starvation). */
static int kind_rank(kp_finding_kind k) {
    switch (k) {
    case KP_FINDING_PDB_PRESSURE: return 0;
    case KP_FINDING_LOOP: return 1;
    case KP_FINDING_CASCADE: return 2;
    case KP_FINDING_PRESSURE_HOTSPOT: return 3;
    case KP_FINDING_DEVICE_CONTENTION: return 4;
    case KP_FINDING_STARVATION: return 5;
    }
    return 6;
}

static int cmp_finding(const void *a, const void *b) {
    const kp_finding *x = a, *y = b;
    if (x->severity != y->severity) return x->severity > y->severity ? -1 : 1;
    if (x->kind != y->kind) return kind_rank(x->kind) < kind_rank(y->kind) ? -1 : 1;
    if (x->kind == KP_FINDING_STARVATION && x->count != y->count) /* the biggest group first */
        return x->count > y->count ? -1 : 1;
    if (x->kind == KP_FINDING_STARVATION && x->duration_ms != y->duration_ms)
        return x->duration_ms > y->duration_ms ? -1 : 1;
    if (x->first_ms != y->first_ms) return x->first_ms < y->first_ms ? -1 : 1;
    int c = strcmp(x->subject_ns, y->subject_ns);
    if (c) return c;
    if ((c = strcmp(x->subject_name, y->subject_name))) return c;
    if ((c = strcmp(x->summary, y->summary))) return c;
    return cmp_first_event(x, y);
}

kp_status kp_insight_new(const kp_sim *sim, const kp_insight_options *opt, kp_insight **out,
                         kp_error *err) {
    *out = NULL;
    kp_insight *in = kp_calloc(1, sizeof *in);
    if (!in) return kp_error_set(err, KP_ENOMEM, "insight: out of memory");
    ins_run r;
    memset(&r, 0, sizeof r);
    r.sim = sim;
    r.cl = kp_sim_cluster(sim);
    if (opt) r.o = *opt;
    else kp_insight_options_init(&r.o);
    r.end_ms = kp_sim_now(sim);
    r.n_pods = kp_sim_pod_count(sim);
    r.n_events = kp_sim_event_count(sim);
    kp_status st = run_index(&r);
    if (st == KP_OK) st = kp__ins_loops(&r, in);
    if (st == KP_OK) st = kp__ins_cascades(&r, in);
    if (st == KP_OK) st = kp__ins_starvation(&r, in);
    if (st == KP_OK) st = kp__ins_pdbs(&r, in);
    if (st == KP_OK) st = kp__ins_hotspots(&r, in);
    if (st == KP_OK) st = kp__ins_devices(&r, in);
    run_free(&r);
    if (st != KP_OK) {
        kp_insight_free(in);
        return kp_error_set(err, st, "insight: out of memory");
    }
    for (size_t i = 0; i < in->n; i++) kp__ins_sort_links(&in->f[i]);
    if (in->n > 1) qsort(in->f, in->n, sizeof *in->f, cmp_finding);
    *out = in;
    return KP_OK;
}

void kp_insight_free(kp_insight *in) {
    if (!in) return;
    for (size_t i = 0; i < in->n; i++) {
        kp_finding *f = &in->f[i];
        if (*f->summary) kp_free((void *)f->summary);
        if (*f->detail) kp_free((void *)f->detail);
        kp_free((void *)f->events);
        kp_free((void *)f->pods);
        kp_free((void *)f->nodes);
        kp_free((void *)f->tree);
    }
    kp_free(in->f);
    kp_free(in);
}

size_t kp_insight_finding_count(const kp_insight *in) { return in->n; }
const kp_finding *kp_insight_finding_get(const kp_insight *in, size_t i) {
    return i < in->n ? &in->f[i] : NULL;
}

void kp_insight_totals_get(const kp_insight *in, kp_insight_totals *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; in && i < in->n; i++) {
        const kp_finding *f = &in->f[i];
        switch (f->severity) {
        case KP_SEVERITY_CRITICAL: out->critical++; break;
        case KP_SEVERITY_WARNING: out->warning++; break;
        case KP_SEVERITY_INFO: out->info++; break;
        }
        switch (f->kind) {
        case KP_FINDING_LOOP: out->loops++; break;
        case KP_FINDING_CASCADE: out->cascades++; break;
        case KP_FINDING_STARVATION:
            out->starved_pods += f->count;
            out->starved_never_bound += f->never_bound;
            if (strcmp(f->subject_kind, "Pod") == 0 || strcmp(f->subject_kind, "PodGroup") == 0)
                out->starved_groups++;
            else {
                out->starved_workloads++;
                out->starved_owned_pods += f->count;
            }
            break;
        case KP_FINDING_PDB_PRESSURE:
            if (f->count) out->pdbs_violated++;
            else out->pdbs_at_zero++;
            out->evictions_blocked += f->blocked;
            break;
        case KP_FINDING_PRESSURE_HOTSPOT:
            out->hotspots++;
            out->hotspot_evictions += f->count;
            break;
        case KP_FINDING_DEVICE_CONTENTION: out->device_contentions++; break;
        }
    }
}
