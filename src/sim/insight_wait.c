/* Starvation and pressure hot spots (docs/simulate.md "Findings"). A pod starves when it was
 * pending (from its creation, or t = 0 for the snapshot's) longer than starvation_ms before it
 * was bound (or deleted, or the run ended); the finding says why it could not be placed (its last
 * FailedScheduling) and whether DefaultPreemption's PostFilter tried. A hot spot is a node under
 * a pressure condition (the kubelet's NodeHas* events): for how long and what it evicted then. */
#include <stdio.h>
#include <string.h>

#include "sim/insight_internal.h"

/* ---------------------------------------------------------------- starvation */

static const kp_sim_event *ev_of(const ins_run *r, long i) {
    return i < 0 ? NULL : kp_sim_event_get(r->sim, (size_t)i);
}

/* The preemption part of the FailedScheduling message (the FitError's PostFilter text, after
 * "preemption: "), and what it means. */
static kp_status preemption_line(const ins_run *r, kp_finding *f, const kp_sim_pod *sp) {
    char tb[40];
    if (sp->first_nominated_ms >= 0)
        return kp__ins_detail(
            f, "preemption: tried; nominated node %s at %s",
            sp->nominated_node >= 0 ? kp_cluster_node_name(r->cl, sp->nominated_node) : "?",
            kp__ins_dur(sp->first_nominated_ms, tb, sizeof tb));
    if (sp->attempts == 0)
        return kp__ins_detail(f, "preemption: not tried; never attempted (scheduling gates, or "
                                 "no profile serves it)");
    if (!*sp->last_message)
        return kp__ins_detail(f, "preemption: not tried; no scheduling attempt failed (scheduling "
                                 "gates)");
    const char *m = strstr(sp->last_message, "preemption: ");
    if (!m) return kp__ins_detail(f, "preemption: not tried");
    m += strlen("preemption: ");
    if (strncmp(m, "not eligible", 12) == 0)
        return kp__ins_detail(f, "preemption: not tried; %s", m);
    return kp__ins_detail(f, "preemption: tried; no victims found (%s)", m);
}

static kp_status one_starving(const ins_run *r, kp_insight *in, const kp_sim_pod *sp, int64_t from,
                              int64_t to) {
    kp_index p = sp->pod;
    bool bound = sp->bound_ms >= 0;
    /* never bound: critical, unless no attempt was made (held by scheduling gates) */
    bool held = !bound && sp->attempts == 0;
    kp_finding *f = kp__ins_add(in, KP_FINDING_STARVATION,
                                bound || held ? KP_SEVERITY_WARNING : KP_SEVERITY_CRITICAL, "Pod",
                                kp_cluster_pod_namespace(r->cl, p), kp_cluster_pod_name(r->cl, p));
    if (!f) return KP_ENOMEM;
    f->first_ms = from;
    f->last_ms = to;
    f->duration_ms = to - from;
    f->count = sp->attempts;
    kp_status st;
    if ((st = kp__ins_pod(f, p)) != KP_OK || (st = kp__ins_event(f, r->created[p])) != KP_OK ||
        (st = kp__ins_event(f, r->first_failed[p])) != KP_OK ||
        (st = kp__ins_event(f, r->last_failed[p])) != KP_OK ||
        (bound && (st = kp__ins_event(f, r->scheduled[p])) != KP_OK) ||
        (bound && (st = kp__ins_node(f, sp->node)) != KP_OK) ||
        (st = kp__ins_event(f, r->deleted[p])) != KP_OK)
        return st;
    char wb[40], fb[40], tb[40], pb[600], end[700];
    kp__ins_dur(to, tb, sizeof tb);
    if (bound)
        snprintf(end, sizeof end, "bound at %s to %s", tb, kp_cluster_node_name(r->cl, sp->node));
    else if (sp->gone_ms >= 0) snprintf(end, sizeof end, "gone at %s unscheduled", tb);
    else snprintf(end, sizeof end, "still pending at the end");
    if ((st = kp__ins_summary(f, "Pod %s: pending for %s (from %s; %s), %u attempt(s)",
                              kp__ins_pod_ref(r, p, pb, sizeof pb),
                              kp__ins_dur(to - from, wb, sizeof wb),
                              kp__ins_dur(from, fb, sizeof fb), end, sp->attempts)) != KP_OK)
        return st;
    const kp_sim_event *lf = ev_of(r, r->last_failed[p]);
    if (lf && (st = kp__ins_detail(f, "last FailedScheduling (%s): %s",
                                   kp__ins_dur(lf->t_ms, tb, sizeof tb), lf->message)) != KP_OK)
        return st;
    return preemption_line(r, f, sp);
}

kp_status kp__ins_starvation(const ins_run *r, kp_insight *in) {
    for (size_t i = 0; i < r->n_pods; i++) {
        const kp_sim_pod *sp = kp_sim_pod_get(r->sim, i);
        if (sp->bound_ms < 0 && sp->attempts == 0 && sp->state != KP_SIM_POD_PENDING) continue;
        int64_t from = sp->created_ms >= 0 ? sp->created_ms : 0;
        int64_t to = sp->bound_ms >= 0 ? sp->bound_ms : sp->gone_ms >= 0 ? sp->gone_ms : r->end_ms;
        if (to - from <= r->o.starvation_ms) continue;
        kp_status st = one_starving(r, in, sp, from, to);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- pressure hot spots */

/* The kubelet's node status events (recordNodeStatusEvent, as src/sim/sim_kubelet.c logs them):
 * the condition each reason turns on or off */
static const struct {
    const char *cond, *on, *off;
} COND[] = {
    {"MemoryPressure", "NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
    {"DiskPressure", "NodeHasDiskPressure", "NodeHasNoDiskPressure"},
    {"PIDPressure", "NodeHasInsufficientPID", "NodeHasSufficientPID"},
};
#define N_COND (sizeof COND / sizeof COND[0])

typedef struct {
    int64_t since; /* -1: not under it now */
    long slot; /* the finding's index in the insight, -1 */
    uint32_t spells;
} ins_spot;

static kp_status spot_on(const ins_run *r, kp_insight *in, ins_spot *s, const kp_sim_event *e,
                         long at, const char *cond) {
    if (s->since >= 0) return KP_OK;
    if (s->slot < 0) {
        kp_finding *f = kp__ins_add(in, KP_FINDING_PRESSURE_HOTSPOT, KP_SEVERITY_INFO, "Node", "",
                                    kp_cluster_node_name(r->cl, e->node));
        if (!f) return KP_ENOMEM;
        f->first_ms = e->t_ms;
        f->condition = cond;
        s->slot = (long)(in->n - 1);
        if (kp__ins_node(f, e->node) != KP_OK) return KP_ENOMEM;
    }
    s->since = e->t_ms;
    s->spells++;
    return kp__ins_event(&in->f[s->slot], at);
}

static void spot_off(kp_insight *in, ins_spot *s, int64_t t) {
    if (s->since < 0) return;
    kp_finding *f = &in->f[s->slot];
    f->duration_ms += t - s->since;
    f->last_ms = t;
    s->since = -1;
}

static kp_status spot_summaries(const ins_run *r, kp_insight *in, ins_spot *spots, size_t n) {
    for (size_t i = 0; i < n; i++) {
        ins_spot *s = &spots[i];
        if (s->slot < 0) continue;
        kp_finding *f = &in->f[s->slot];
        kp__ins_sort_links(f);
        char db[40], fb[40], pods[2048];
        kp_status st = kp__ins_summary(
            f, "Node %s: %s for %s (from %s, %u spell(s)); %u pod(s) evicted%s%s", f->subject_name,
            COND[i % N_COND].cond, kp__ins_dur(f->duration_ms, db, sizeof db),
            kp__ins_dur(f->first_ms, fb, sizeof fb), s->spells, f->count, f->count ? ": " : "",
            f->count ? kp__ins_pod_list(r, f, pods, sizeof pods) : "");
        if (st != KP_OK) return st;
        if (f->count) f->severity = KP_SEVERITY_WARNING;
    }
    return KP_OK;
}

kp_status kp__ins_hotspots(const ins_run *r, kp_insight *in) {
    size_t nn = kp_cluster_node_count(r->cl), n = nn * N_COND;
    ins_spot *spots = kp_malloc((n ? n : 1) * sizeof *spots);
    if (!spots) return KP_ENOMEM;
    for (size_t i = 0; i < n; i++) spots[i] = (ins_spot){-1, -1, 0};
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < r->n_events; i++) {
        const kp_sim_event *e = kp_sim_event_get(r->sim, i);
        if (e->node < 0 || (size_t)e->node >= nn) continue;
        ins_spot *at = &spots[(size_t)e->node * N_COND];
        if (e->pod >= 0 && e->type == KP_SIM_WARNING && strcmp(e->reason, "Evicted") == 0) {
            for (size_t c = 0; st == KP_OK && c < N_COND; c++) { /* the kubelet's eviction */
                if (at[c].since < 0) continue;
                kp_finding *f = &in->f[at[c].slot];
                f->count++;
                if ((st = kp__ins_event(f, (long)i)) == KP_OK) st = kp__ins_pod(f, e->pod);
            }
            continue;
        }
        if (e->pod >= 0) continue;
        for (size_t c = 0; c < N_COND; c++) {
            if (strcmp(e->reason, COND[c].on) == 0)
                st = spot_on(r, in, &at[c], e, (long)i, COND[c].cond);
            else if (strcmp(e->reason, COND[c].off) == 0 && at[c].since >= 0) {
                spot_off(in, &at[c], e->t_ms);
                st = kp__ins_event(&in->f[at[c].slot], (long)i);
            }
        }
    }
    for (size_t i = 0; i < n; i++) spot_off(in, &spots[i], r->end_ms);
    if (st == KP_OK) st = spot_summaries(r, in, spots, n);
    kp_free(spots);
    return st;
}
