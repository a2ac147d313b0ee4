/* PDB pressure (docs/simulate.md "Findings"): the disruption controller's count of a
 * PodDisruptionBudget rebuilt over the run from the pods' timelines (healthy: Ready, not
 * terminating, as kp_ctrl_disruption_sync counts; from the first time a pod was Ready: a pod not
 * Ready again after a container restart still counts), against its desiredHealthy as the controller
 * wrote it at each instant (kp_sim_pdb_desired_at: a scale of the pods' controller moves it),
 * while it existed (kp_sim_pdb_span), and the preemptions that took a victim it protected when it
 * allowed no more disruptions (violations() below). */
#include <stdlib.h>
#include <string.h>

#include "sim/insight_internal.h"

/* A pod's healthy span: from (t0, ev0) to (t1, ev1), an event index -1 when no event marks it
 * (then it counts as the first change of its instant); t1 -1: to the end. */
typedef struct {
    kp_index pod;
    int64_t t0, t1;
    long ev0, ev1;
} ins_span;

static bool span_of(const ins_run *r, kp_index pod, ins_span *s) {
    const kp_sim_pod *sp = kp_sim_pod_get(r->sim, (size_t)pod);
    s->pod = pod;
    if (sp->ready_ms < 0) return false; /* never Ready: never healthy */
    if (r->first_ready[pod] >= 0) { /* Ready some time after its start */
        s->t0 = sp->ready_ms, s->ev0 = r->first_ready[pod];
    } else if (sp->bound_ms >= 0) {
        s->t0 = sp->bound_ms, s->ev0 = sp->ready_ms == sp->bound_ms ? r->scheduled[pod] : -1;
    } else {
        /* the snapshot's running pods are healthy from t = 0; a terminating one never */
        bool term0 = sp->terminating_ms < 0 &&
                     (sp->state == KP_SIM_POD_TERMINATING ||
                      (sp->state == KP_SIM_POD_DELETED && strcmp(sp->cause, "deleted") == 0));
        if (sp->created_ms >= 0 || sp->node < 0 || term0 || sp->state == KP_SIM_POD_SUCCEEDED ||
            (sp->state == KP_SIM_POD_FAILED && sp->gone_ms < 0))
            return false;
        s->t0 = 0, s->ev0 = -1;
    }
    if (sp->terminating_ms >= 0) {
        s->t1 = sp->terminating_ms;
        s->ev1 = r->displaced[pod] >= 0 ? r->displaced[pod] : r->deleted[pod];
    } else {
        s->t1 = sp->gone_ms, s->ev1 = -1;
    }
    return true;
}

/* (t, ev) strictly before (t2, ev2): ev -1 counts first in its instant */
static bool before(int64_t t, long ev, int64_t t2, long ev2) { return t != t2 ? t < t2 : ev < ev2; }

static int32_t healthy_before(const ins_span *sp, size_t n, int64_t t, long ev) {
    int32_t h = 0;
    for (size_t i = 0; i < n; i++)
        if (before(sp[i].t0, sp[i].ev0, t, ev) &&
            (sp[i].t1 < 0 || !before(sp[i].t1, sp[i].ev1, t, ev)))
            h++;
    return h;
}

typedef struct {
    int64_t t;
    int d;
    long ev;
} ins_change;

/* One PDB at a time: its pods' spans, which pods it selects, the changes of its count; and,
 * once for all, the events a PDB answers for (Preempted, EvictionBlocked), in time order. */
typedef struct {
    ins_span *sp;
    bool *sel;
    ins_change *ch;
    size_t cap_ch;
    long *evs;
    size_t n_evs;
} ins_scratch;

static int cmp_change(const void *a, const void *b) {
    const ins_change *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The PDB's lifetime in the run (kp_sim_pdb_span): created by the scenario, deleted. */
typedef struct {
    int64_t from, to; /* to -1: to the end */
} ins_life;

static bool alive(const ins_life *l, int64_t t) { return t >= l->from && (l->to < 0 || t < l->to); }

/* Time at zero allowed disruptions while the PDB existed: the healthy count after each instant's
 * changes (its creation and deletion are instants too). */
static kp_status zero_time(const ins_run *r, kp_finding *f, const ins_span *sp, size_t n,
                           kp_index pdb, const ins_life *life, ins_change *ch, int32_t *lo,
                           int32_t *hi, int32_t *dlo, int32_t *dhi, int64_t *below_ms) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        ch[m++] = (ins_change){sp[i].t0, +1, sp[i].ev0};
        if (sp[i].t1 >= 0) ch[m++] = (ins_change){sp[i].t1, -1, sp[i].ev1};
    }
    ch[m++] = (ins_change){life->from, 0, -1};
    if (life->to >= 0) ch[m++] = (ins_change){life->to, 0, -1};
    const int64_t *dt = NULL;
    const int32_t *dv = NULL;
    size_t nd = kp_sim_pdb_desired_history(r->sim, pdb, &dt, &dv);
    for (size_t i = 0; i < nd; i++) ch[m++] = (ins_change){dt[i], 0, -1}; /* a new desiredHealthy */
    qsort(ch, m, sizeof *ch, cmp_change);
    int32_t h = 0;
    int64_t since = -1, below_since = -1;
    *lo = *dlo = INT32_MAX, *hi = *dhi = 0;
    for (size_t i = 0; i < m;) {
        int64_t t = ch[i].t;
        long last_ev = -1;
        for (; i < m && ch[i].t == t; i++) {
            h += ch[i].d;
            if (ch[i].ev >= 0 && ch[i].d < 0) last_ev = ch[i].ev;
        }
        bool in = alive(life, t);
        int32_t desired = kp_sim_pdb_desired_at(r->sim, pdb, t); /* as the controller wrote it */
        if (in && h < *lo) *lo = h;
        if (in && h > *hi) *hi = h;
        if (in && desired < *dlo) *dlo = desired;
        if (in && desired > *dhi) *dhi = desired;
        bool zero = in && desired > 0 && h <= desired; /* a PDB that asks for nothing never is */
        bool below = in && h < desired; /* the budget violated */
        if (below && below_since < 0) below_since = t;
        else if (!below && below_since >= 0) *below_ms += t - below_since, below_since = -1;
        if (zero && since < 0) {
            since = t;
            if (!f->duration_ms && f->first_ms < 0) f->first_ms = t;
            if (kp__ins_event(f, last_ev) != KP_OK) return KP_ENOMEM;
        } else if (!zero && since >= 0) {
            f->duration_ms += t - since;
            f->last_ms = t;
            since = -1;
        }
    }
    int64_t end = life->to >= 0 && life->to < r->end_ms ? life->to : r->end_ms;
    if (below_since >= 0 && below_since < end) *below_ms += end - below_since;
    if (since >= 0 && since < end) {
        f->duration_ms += end - since;
        f->last_ms = end;
    }
    return KP_OK;
}

/* mirrors filterPodsWithPDBViolation, its budget count over a decision's victims: each victim
 * spends one allowed disruption of every PDB that selects it and violates once none is left;
 * here, over the run's Preempted events, from the PDB's count rebuilt just before the decision.
 * Also the evictions the PDB blocked (the Eviction API's 429: it was at zero then). */
static kp_status violations(const ins_run *r, kp_finding *f, const ins_scratch *x, size_t n,
                            kp_index pdb, const ins_life *life, uint32_t *blocked) {
    long decision = -1;
    int32_t allowed = 0;
    const ins_span *sp = x->sp;
    for (size_t k = 0; k < x->n_evs; k++) {
        size_t i = (size_t)x->evs[k];
        const kp_sim_event *e = kp_sim_event_get(r->sim, i);
        if (!x->sel[e->pod] || !alive(life, e->t_ms)) continue; /* it protected nothing then */
        if (strcmp(e->reason, "EvictionBlocked") == 0) { /* the Eviction API's 429: at zero */
            char tb[40], pb[600];
            ++*blocked;
            if (f->first_ms < 0 || e->t_ms < f->first_ms) f->first_ms = e->t_ms;
            if (e->t_ms > f->last_ms) f->last_ms = e->t_ms;
            if (kp__ins_event(f, (long)i) != KP_OK || kp__ins_pod(f, e->pod) != KP_OK ||
                kp__ins_node(f, e->node) != KP_OK ||
                kp__ins_detail(f, "at %s: the eviction of %s was blocked (%s)",
                               kp__ins_dur(e->t_ms, tb, sizeof tb),
                               kp__ins_pod_ref(r, e->pod, pb, sizeof pb), e->message) != KP_OK)
                return KP_ENOMEM;
            continue;
        }
        if (strcmp(e->reason, "Preempted") != 0) continue;
        if (e->cause != decision || decision < 0) {
            decision = e->cause;
            allowed = healthy_before(sp, n, e->t_ms, e->cause) -
                      kp_sim_pdb_desired_at(r->sim, pdb, e->t_ms);
        }
        if (--allowed >= 0) continue;
        f->count++;
        if (f->first_ms < 0 || e->t_ms < f->first_ms) f->first_ms = e->t_ms;
        if (e->t_ms > f->last_ms) f->last_ms = e->t_ms;
        kp_index by = kp_sim_pod_get(r->sim, (size_t)e->pod)->preempted_by;
        char tb[40], pb[600], bb[600];
        kp_status st;
        if ((st = kp__ins_event(f, e->cause)) != KP_OK ||
            (st = kp__ins_event(f, (long)i)) != KP_OK || (st = kp__ins_pod(f, e->pod)) != KP_OK ||
            (st = kp__ins_pod(f, by)) != KP_OK || (st = kp__ins_node(f, e->node)) != KP_OK)
            return st;
        if ((st = kp__ins_detail(f,
                                 "at %s: %s preempted on %s by %s although no disruption was "
                                 "allowed",
                                 kp__ins_dur(e->t_ms, tb, sizeof tb),
                                 kp__ins_pod_ref(r, e->pod, pb, sizeof pb),
                                 kp_cluster_node_name(r->cl, e->node),
                                 by >= 0 ? kp__ins_pod_ref(r, by, bb, sizeof bb) : "?")) != KP_OK)
            return st;
    }
    return KP_OK;
}

static kp_status one_pdb(const ins_run *r, kp_insight *in, kp_index k, ins_scratch *x) {
    ins_span *sp = x->sp;
    bool *sel = x->sel;
    kp_pdb_info pi;
    if (kp_cluster_pdb_info(r->cl, k, &pi) != KP_OK) return KP_OK;
    size_t n = 0;
    bool any = false;
    for (size_t p = 0; p < r->n_pods; p++) {
        sel[p] = kp_cluster_pdb_selected(r->cl, k, (kp_index)p);
        any |= sel[p];
        if (sel[p] && span_of(r, (kp_index)p, &sp[n])) n++;
    }
    if (!any) return KP_OK;
    kp_finding f0;
    memset(&f0, 0, sizeof f0);
    f0.first_ms = f0.last_ms = -1;
    f0.summary = f0.detail = "";
    int32_t lo, hi, dlo, dhi;
    uint32_t blocked = 0;
    /* room for each pod's two changes, the PDB's creation and deletion, its desiredHealthy's */
    const int64_t *dt = NULL;
    const int32_t *dv = NULL;
    size_t need = 2 * n + 2 + kp_sim_pdb_desired_history(r->sim, k, &dt, &dv);
    if (need > x->cap_ch) {
        ins_change *nc = kp_realloc(x->ch, need * sizeof *nc);
        if (!nc) return KP_ENOMEM;
        x->ch = nc;
        x->cap_ch = need;
    }
    ins_life life = {0, -1};
    if (!kp_sim_pdb_span(r->sim, k, &life.from, &life.to)) life.from = 0, life.to = -1;
    kp_status st =
        zero_time(r, &f0, sp, n, k, &life, x->ch, &lo, &hi, &dlo, &dhi, &in->pdb_below_ms);
    if (st == KP_OK) st = violations(r, &f0, x, n, k, &life, &blocked);
    if (st == KP_OK && (f0.duration_ms > 0 || f0.count > 0 || blocked > 0)) {
        kp_finding *f = kp__ins_add(in, KP_FINDING_PDB_PRESSURE,
                                    f0.count ? KP_SEVERITY_CRITICAL : KP_SEVERITY_WARNING,
                                    "PodDisruptionBudget", pi.ns, pi.name);
        if (!f) st = KP_ENOMEM;
        else {
            const char *detail = f0.detail;
            f0.kind = f->kind, f0.severity = f->severity, f0.kind_name = f->kind_name;
            f0.subject_kind = f->subject_kind, f0.subject_ns = f->subject_ns;
            f0.subject_name = f->subject_name, f0.summary = "", f0.detail = "";
            f0.condition = "";
            *f = f0;
            f->pod = -1;
            f->blocked = blocked;
            kp__ins_sort_links(f);
            char db[40], fb[40];
            st = kp__ins_summary(f,
                                 "PodDisruptionBudget %s/%s: 0 disruptions allowed for %s (from "
                                 "%s); %u eviction(s) blocked; %u preemption victim(s) violated it",
                                 pi.ns, pi.name, kp__ins_dur(f->duration_ms, db, sizeof db),
                                 kp__ins_dur(f->first_ms < 0 ? 0 : f->first_ms, fb, sizeof fb),
                                 blocked, f->count);
            if (st == KP_OK && dlo < dhi)
                st = kp__ins_detail(f,
                                    "desiredHealthy between %d and %d; healthy pods between %d "
                                    "and %d",
                                    (int)dlo, (int)dhi, (int)(lo == INT32_MAX ? 0 : lo), (int)hi);
            else if (st == KP_OK)
                st = kp__ins_detail(f, "desiredHealthy %d; healthy pods between %d and %d",
                                    (int)(dlo == INT32_MAX ? pi.desired_healthy : dlo),
                                    (int)(lo == INT32_MAX ? 0 : lo), (int)hi);
            if (st == KP_OK && detail && *detail) st = kp__ins_detail(f, "%s", detail);
            if (detail && *detail) kp_free((void *)detail);
            return st;
        }
    }
    if (f0.detail && *f0.detail) kp_free((void *)f0.detail);
    kp_free((void *)f0.events);
    kp_free((void *)f0.pods);
    kp_free((void *)f0.nodes);
    return st;
}

kp_status kp__ins_pdbs(const ins_run *r, kp_insight *in) {
    size_t np = kp_cluster_pdb_count(r->cl), n = r->n_pods ? r->n_pods : 1;
    if (!np) return KP_OK;
    ins_scratch x;
    x.sp = kp_malloc(n * sizeof *x.sp);
    x.sel = kp_malloc(n * sizeof *x.sel);
    x.cap_ch = 2 * n + 2; /* grown per PDB (one_pdb) */
    x.ch = kp_malloc(x.cap_ch * sizeof *x.ch);
    x.evs = kp_malloc((r->n_events ? r->n_events : 1) * sizeof *x.evs);
    x.n_evs = 0;
    kp_status st = x.sp && x.sel && x.ch && x.evs ? KP_OK : KP_ENOMEM;
    for (size_t i = 0; st == KP_OK && i < r->n_events; i++) { /* what a PDB answers for */
        const kp_sim_event *e = kp_sim_event_get(r->sim, i);
        if (e->pod >= 0 && (size_t)e->pod < r->n_pods &&
            (strcmp(e->reason, "Preempted") == 0 || strcmp(e->reason, "EvictionBlocked") == 0))
            x.evs[x.n_evs++] = (long)i;
    }
    for (size_t k = 0; st == KP_OK && k < np; k++) st = one_pdb(r, in, (kp_index)k, &x);
    kp_free(x.sp);
    kp_free(x.sel);
    kp_free(x.ch);
    kp_free(x.evs);
    return st;
}
