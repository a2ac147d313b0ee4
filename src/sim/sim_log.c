/* The simulator's bottom layer: the timed-event heap, the event log (texts kept in chunks that
 * never move, so events can point into them), the per-pod timeline array (a pod's state derived
 * from the cluster as it is read) and the PDBs' lifetimes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_internal.h"

/* ---------------------------------------------------------------- timers */

static bool timer_less(const sim_timer *a, const sim_timer *b) {
    return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

/* Timers that do not keep a run without a duration going (kp_sim "quiet"): the leftover flush,
 * an idle kubelet's pass, a CronJob's next time (a schedule fires for ever) */
static bool background(sim_ev_kind kind) {
    return kind == SIM_EV_FLUSH_UNSCHED || kind == SIM_EV_KUBELET_IDLE || kind == SIM_EV_CRON ||
           kind == SIM_EV_WORKLOAD_CHECK || kind == SIM_EV_CLAIM_RETRY;
}

/* A kubelet pass planned no earlier than the last one queued joins the queue: the queue stays in
 * (t, seq) order (seq only grows), and the thousands of passes of a large cluster cost no heap
 * walk. KP_ENOMEM. */
static kp_status fifo_add(kp_sim *s, const sim_timer *x, bool *queued) {
    *queued = false;
    if (x->kind != SIM_EV_KUBELET && x->kind != SIM_EV_KUBELET_IDLE) return KP_OK;
    if (s->n_fifo > s->fifo_head && x->t < s->fifo[s->n_fifo - 1].t) return KP_OK;
    /* the popped room is reused once it is half the queue (each entry moves at most once per
     * pop that made the room: linear in all), else the queue grows */
    if (s->n_fifo == s->cap_fifo && s->fifo_head > 0 && s->fifo_head >= s->cap_fifo / 2) {
        memmove(s->fifo, s->fifo + s->fifo_head, (s->n_fifo - s->fifo_head) * sizeof *s->fifo);
        s->n_fifo -= s->fifo_head;
        s->fifo_head = 0;
    }
    void *nf = s->fifo;
    if (!kp__grow(&nf, &s->cap_fifo, s->n_fifo + 1, sizeof *s->fifo, 64)) return KP_ENOMEM;
    s->fifo = nf;
    s->fifo[s->n_fifo++] = *x;
    *queued = true;
    return KP_OK;
}

const sim_timer *kp__sim_timer_next(const kp_sim *s) {
    const sim_timer *h = s->n_timers ? &s->timers[0] : NULL;
    const sim_timer *f = s->n_fifo > s->fifo_head ? &s->fifo[s->fifo_head] : NULL;
    return !f || (h && timer_less(h, f)) ? h : f;
}

kp_status kp__sim_timer_add(kp_sim *s, int64_t t, sim_ev_kind kind, int64_t arg, uint32_t gen) {
    sim_timer x = {t < s->now ? s->now : t, s->seq++, (uint32_t)kind, gen, arg};
    bool queued;
    if (fifo_add(s, &x, &queued) != KP_OK) return KP_ENOMEM;
    if (queued) {
        if (!background(kind)) s->n_real_timers++;
        return KP_OK;
    }
    void *nt = s->timers;
    if (!kp__grow(&nt, &s->cap_timers, s->n_timers + 1, sizeof *s->timers, 64)) return KP_ENOMEM;
    s->timers = nt;
    size_t i = s->n_timers++;
    while (i > 0 && timer_less(&x, &s->timers[(i - 1) / 2])) {
        s->timers[i] = s->timers[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->timers[i] = x;
    if (!background(kind)) s->n_real_timers++;
    return KP_OK;
}

sim_timer kp__sim_timer_pop(kp_sim *s) {
    const sim_timer *next = kp__sim_timer_next(s);
    if (!s->n_timers || next != &s->timers[0]) { /* the queue's head */
        sim_timer top = s->fifo[s->fifo_head++];
        if (s->fifo_head == s->n_fifo) s->fifo_head = s->n_fifo = 0;
        if (!background((sim_ev_kind)top.kind)) s->n_real_timers--;
        return top;
    }
    sim_timer top = s->timers[0], last = s->timers[--s->n_timers];
    size_t i = 0, n = s->n_timers;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const sim_timer *best = &last;
        if (l < n && timer_less(&s->timers[l], best)) best = &s->timers[m = l];
        if (l + 1 < n && timer_less(&s->timers[l + 1], best)) m = l + 1;
        if (m == i) break;
        s->timers[i] = s->timers[m];
        i = m;
    }
    if (n) s->timers[i] = last;
    if (!background((sim_ev_kind)top.kind)) s->n_real_timers--;
    return top;
}

/* ---------------------------------------------------------------- the log */

static const char *keep(kp_sim *s, const char *text) {
    if (!text) text = "";
    size_t len = strlen(text) + 1;
    if (s->chunk_used + len > s->chunk_cap) {
        size_t cap = len > 65536 ? len : 65536;
        void *c = s->chunks;
        if (!kp__grow(&c, &s->cap_chunks, s->n_chunks + 1, sizeof *s->chunks, 16)) return NULL;
        s->chunks = c;
        if (!(s->chunks[s->n_chunks] = kp_malloc(cap))) return NULL;
        s->n_chunks++;
        s->chunk_used = 0;
        s->chunk_cap = cap;
    }
    char *out = s->chunks[s->n_chunks - 1] + s->chunk_used;
    memcpy(out, text, len);
    s->chunk_used += len;
    return out;
}

long kp__sim_log(kp_sim *s, kp_sim_event_type type, const char *reason, const char *kind,
                 const char *ns, const char *name, const char *message, kp_index pod, kp_index node,
                 long cause) {
    void *ne = s->events;
    if (!kp__grow(&ne, &s->cap_events, s->n_events + 1, sizeof *s->events, 256)) return -1;
    s->events = ne;
    kp_sim_event *e = &s->events[s->n_events];
    e->t_ms = s->now;
    e->type = type;
    e->pod = pod;
    e->node = node;
    e->cause = cause;
    if (!(e->reason = keep(s, reason)) || !(e->kind = keep(s, kind)) || !(e->ns = keep(s, ns)) ||
        !(e->name = keep(s, name)) || !(e->message = keep(s, message)))
        return -1;
    s->c.events++;
    return (long)s->n_events++;
}

long kp__sim_logf(kp_sim *s, kp_sim_event_type type, const char *reason, kp_index pod,
                  kp_index node, long cause, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *big = NULL;
    if (n >= (int)sizeof buf) { /* long FitError texts: format again at their size */
        if (!(big = kp_malloc((size_t)n + 1))) return -1;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    const char *kind = pod >= 0 ? "Pod" : "Node";
    const char *ns = pod >= 0 ? kp_cluster_pod_namespace(s->cl, pod) : "";
    const char *name =
        pod >= 0 ? kp_cluster_pod_name(s->cl, pod) : kp_cluster_node_name(s->cl, node);
    long at = kp__sim_log(s, type, reason, kind, ns, name, big ? big : buf, pod, node, cause);
    kp_free(big);
    return at;
}

/* ---------------------------------------------------------------- PDB lifetimes */

/* One PDB's desiredHealthy over the run: (t, value) in time order, a new entry when it changed. */
struct sim_pdb_desired {
    int64_t *t;
    int32_t *v;
    uint32_t n, cap;
};

kp_status kp__sim_pdb_spans_grow(kp_sim *s) {
    size_t n = kp_cluster_pdb_count(s->cl);
    if (n <= s->n_pdb_spans) return KP_OK;
    int64_t *f = kp_realloc(s->pdb_from, n * sizeof *f);
    if (f) s->pdb_from = f;
    int64_t *t = f ? kp_realloc(s->pdb_to, n * sizeof *t) : NULL;
    if (t) s->pdb_to = t;
    struct sim_pdb_desired *d = t ? kp_realloc(s->pdb_desired, n * sizeof *d) : NULL;
    if (!d) return KP_ENOMEM;
    s->pdb_desired = d;
    for (size_t i = s->n_pdb_spans; i < n; i++) {
        s->pdb_from[i] = s->now, s->pdb_to[i] = -1;
        memset(&s->pdb_desired[i], 0, sizeof s->pdb_desired[i]);
    }
    s->n_pdb_spans = n;
    return KP_OK;
}

void kp__sim_pdb_spans_free(kp_sim *s) {
    for (size_t i = 0; i < s->n_pdb_spans; i++) {
        kp_free(s->pdb_desired[i].t);
        kp_free(s->pdb_desired[i].v);
    }
    kp_free(s->pdb_desired);
    kp_free(s->pdb_from);
    kp_free(s->pdb_to);
}

kp_status kp__sim_pdb_recount(kp_sim *s, kp_index pdb, kp_error *err) {
    kp_status st = kp_ctrl_disruption_sync(s->ctrl, pdb, err);
    if (st != KP_OK) return st;
    if (kp__sim_pdb_spans_grow(s) != KP_OK) goto oom;
    kp_pdb_info in;
    if ((size_t)pdb >= s->n_pdb_spans || kp_cluster_pdb_info(s->cl, pdb, &in) != KP_OK)
        return KP_OK;
    struct sim_pdb_desired *d = &s->pdb_desired[pdb];
    if (d->n && d->v[d->n - 1] == in.desired_healthy) return KP_OK;
    if (d->n && d->t[d->n - 1] == s->now) { /* a second change at this instant: the last counts */
        d->v[d->n - 1] = in.desired_healthy;
        return KP_OK;
    }
    if (d->n == d->cap) {
        /* t first, then v at the capacity t got */
        uint32_t c = d->cap;
        void *nt = d->t;
        if (!kp__grow32(&nt, &c, (size_t)d->n + 1, sizeof *d->t, 4)) goto oom;
        d->t = nt;
        int32_t *nv = kp__realloc(d->v, (size_t)c * sizeof *nv);
        if (!nv) goto oom;
        d->v = nv;
        d->cap = c;
    }
    d->t[d->n] = s->now;
    d->v[d->n++] = in.desired_healthy;
    return KP_OK;
oom:
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

bool kp_sim_pdb_span(const kp_sim *s, kp_index pdb, int64_t *from_ms, int64_t *to_ms) {
    if (pdb < 0 || (size_t)pdb >= s->n_pdb_spans) return false;
    *from_ms = s->pdb_from[pdb];
    *to_ms = s->pdb_to[pdb];
    return true;
}

size_t kp_sim_pdb_desired_history(const kp_sim *s, kp_index pdb, const int64_t **t_ms,
                                  const int32_t **values) {
    if (pdb < 0 || (size_t)pdb >= s->n_pdb_spans) return 0;
    *t_ms = s->pdb_desired[pdb].t;
    *values = s->pdb_desired[pdb].v;
    return s->pdb_desired[pdb].n;
}

int32_t kp_sim_pdb_desired_at(const kp_sim *s, kp_index pdb, int64_t t_ms) {
    if (pdb < 0 || (size_t)pdb >= s->n_pdb_spans) return 0;
    const struct sim_pdb_desired *d = &s->pdb_desired[pdb];
    uint32_t lo = 0, hi = d->n; /* the last entry at or before t_ms */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->t[mid] <= t_ms) lo = mid + 1;
        else hi = mid;
    }
    return lo ? d->v[lo - 1] : d->n ? d->v[0] : 0;
}

/* ---------------------------------------------------------------- pods */

kp_status kp__sim_grow_pods(kp_sim *s) {
    size_t n = kp_cluster_pod_count(s->cl);
    if (n <= s->n_pods) return KP_OK;
    void *np = s->pods;
    if (!kp__grow(&np, &s->cap_pods, n, sizeof *s->pods, 64)) return KP_ENOMEM;
    s->pods = np;
    for (size_t i = s->n_pods; i < n; i++) {
        sim_pod *p = &s->pods[i];
        memset(p, 0, sizeof *p);
        p->pub.pod = (kp_index)i;
        p->pub.created_ms = s->started ? s->now : -1;
        p->pub.first_nominated_ms = p->pub.bound_ms = p->pub.terminating_ms = -1;
        p->pub.gone_ms = p->pub.ready_ms = -1;
        p->pub.node = kp_cluster_pod_node(s->cl, (kp_index)i);
        p->pub.nominated_node = -1;
        p->pub.cause = "";
        p->pub.last_message = "";
        p->pub.preempted_by = p->pub.replaces = -1;
        p->lost_ev = -1;
        p->heap_pos = p->unsched_pos = -1;
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, (kp_index)i, &pi);
        p->arrived_terminating = !pi.deleted && pi.deletion_ts != KP_TIME_UNSET;
        if (!s->started && pi.ready) p->pub.ready_ms = 0; /* Ready in the snapshot */
    }
    s->n_pods = n;
    return KP_OK;
}

/* ---------------------------------------------------------------- pod states */

kp_sim_pod_state kp__sim_pod_state(const kp_sim *s, uint32_t pod) {
    kp_pod_info pi;
    if (pod >= s->n_pods || kp_cluster_pod_info(s->cl, pod, &pi) != KP_OK)
        return KP_SIM_POD_PENDING;
    if (pi.deleted) return KP_SIM_POD_DELETED;
    if (pi.phase == KP_POD_PHASE_SUCCEEDED) return KP_SIM_POD_SUCCEEDED;
    if (pi.phase == KP_POD_PHASE_FAILED) return KP_SIM_POD_FAILED;
    if (pi.deletion_ts != KP_TIME_UNSET) return KP_SIM_POD_TERMINATING;
    if (pi.node < 0) return KP_SIM_POD_PENDING;
    /* its kubelet is stopping it: the kubelet's view, not the API's (its status turns Failed
     * once the containers stopped) */
    return s->pods[pod].pub.terminating_ms >= 0 ? KP_SIM_POD_TERMINATING : KP_SIM_POD_BOUND;
}

/* The state is written into the timeline as it is read (the field is a view, refreshed at each
 * read, not a second record of the pod's state). */
const kp_sim_pod *kp__sim_pod_view(const kp_sim *s, uint32_t pod) {
    if (pod >= s->n_pods) return NULL;
    s->pods[pod].pub.state = kp__sim_pod_state(s, pod);
    s->pods[pod].pub.ready = kp_cluster_pod_ready(s->cl, (kp_index)pod);
    return &s->pods[pod].pub;
}

/* ---------------------------------------------------------------- samples */

/* The queue's sizes now: what kube-scheduler reports as scheduler_pending_pods{queue}. */
static void sample_queue(const kp_sim *s, kp_sim_sample *x) {
    x->active = s->active.n;
    x->backoff = s->backoff.n;
    x->unschedulable = x->gated = 0;
    for (size_t i = 0; i < s->n_unsched; i++) {
        if (s->pods[s->unsched[i]].q == SIM_Q_GATED) x->gated++;
        else x->unschedulable++;
    }
}

/* The series stays bounded (a run of 100000 h on one idle node is 36 million steps of 10 s): at
 * KP_SIM_MAX_SAMPLES points every other one goes and the step doubles, so point i is still the
 * state at i * step, and an idle stretch costs at most a few passes over the series. */
static void halve_samples(kp_sim *s) {
    for (size_t i = 0; 2 * i < s->n_samples; i++) s->samples[i] = s->samples[2 * i];
    s->n_samples = (s->n_samples + 1) / 2;
    s->o.sample_every_ms *= 2;
}

kp_status kp__sim_sample_until(kp_sim *s, int64_t until) {
    if (s->o.sample_every_ms <= 0) return KP_OK;
    int64_t step;
    while ((int64_t)s->n_samples * (step = s->o.sample_every_ms) < until) {
        if (s->n_samples >= KP_SIM_MAX_SAMPLES) {
            halve_samples(s);
            continue;
        }
        void *ns = s->samples;
        if (!kp__grow(&ns, &s->cap_samples, s->n_samples + 1, sizeof *s->samples, 64))
            return KP_ENOMEM;
        s->samples = ns;
        kp_sim_sample *x = &s->samples[s->n_samples];
        const kp_sim_sample *prev = s->n_samples ? x - 1 : NULL;
        /* an idle stretch (no event, same queue sizes) copies the last sample: no scan */
        if (prev && s->sampled_events == s->c.events && prev->active == s->active.n &&
            prev->backoff == s->backoff.n && prev->unschedulable + prev->gated == s->n_unsched) {
            *x = *prev;
        } else {
            sample_queue(s, x);
            x->c = s->c;
            x->c.pending_at_end = x->c.gated_at_end = 0;
            s->sampled_events = s->c.events;
        }
        x->t_ms = (int64_t)s->n_samples * step;
        s->n_samples++;
    }
    return KP_OK;
}
