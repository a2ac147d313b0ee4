/* Starvation and pressure hot spots (docs/simulate.md "Findings"). A pod starves when it was
 * pending (from its creation, or t = 0 for the snapshot's) longer than starvation_ms before it
 * was bound (or deleted, or the run ended); the finding says why it could not be placed (its last
 * FailedScheduling) and whether DefaultPreemption's PostFilter tried. A hot spot is a node under
 * a pressure condition (the kubelet's NodeHas* events): for how long and what it evicted then. */
#include <stdio.h>
#include <stdlib.h>
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

/* A starving pod and the group its finding is about: its top workload (a ReplicaSet's pods are
 * their Deployment's, a Job's its CronJob's: kp_cluster_workload_top), else its namespace and
 * priorityClassName (pods without owner). */
typedef struct {
    kp_index pod;
    int64_t from, to;
    kp_index wl; /* -1: no owner */
    const char *ns, *pc;
    bool unbound; /* never bound though attempted: Critical */
} ins_starving;

static int cmp_starving(const void *a, const void *b) {
    const ins_starving *x = a, *y = b;
    if (x->wl != y->wl) return x->wl < y->wl ? -1 : 1;
    int c;
    if (x->wl < 0 && ((c = strcmp(x->ns, y->ns)) || (c = strcmp(x->pc, y->pc)))) return c;
    /* within a group: the longest wait first, then pod order */
    if (x->to - x->from != y->to - y->from) return x->to - x->from > y->to - y->from ? -1 : 1;
    return (x->pod > y->pod) - (x->pod < y->pod);
}

static bool same_group(const ins_starving *x, const ins_starving *y) {
    return x->wl == y->wl && (x->wl >= 0 || (!strcmp(x->ns, y->ns) && !strcmp(x->pc, y->pc)));
}

/* "pending for 12m0s (from 0s; still pending at the end), 14 attempt(s)" of one pod into buf */
static const char *wait_text(const ins_run *r, const ins_starving *w, char *buf, size_t cap) {
    const kp_sim_pod *sp = kp_sim_pod_get(r->sim, (size_t)w->pod);
    char wb[40], fb[40], tb[40], end[700];
    kp__ins_dur(w->to, tb, sizeof tb);
    if (sp->bound_ms >= 0)
        snprintf(end, sizeof end, "bound at %s to %s", tb, kp_cluster_node_name(r->cl, sp->node));
    else if (sp->gone_ms >= 0) snprintf(end, sizeof end, "gone at %s unscheduled", tb);
    else snprintf(end, sizeof end, "still pending at the end");
    snprintf(buf, cap, "pending for %s (from %s; %s), %u attempt(s)",
             kp__ins_dur(w->to - w->from, wb, sizeof wb), kp__ins_dur(w->from, fb, sizeof fb), end,
             sp->attempts);
    return buf;
}

static kp_status link_pod(const ins_run *r, kp_finding *f, const ins_starving *w) {
    kp_index p = w->pod;
    const kp_sim_pod *sp = kp_sim_pod_get(r->sim, (size_t)p);
    bool bound = sp->bound_ms >= 0;
    kp_status st;
    if ((st = kp__ins_pod(f, p)) != KP_OK || (st = kp__ins_event(f, r->created[p])) != KP_OK ||
        (st = kp__ins_event(f, r->first_failed[p])) != KP_OK ||
        (st = kp__ins_event(f, r->last_failed[p])) != KP_OK ||
        (bound && (st = kp__ins_event(f, r->scheduled[p])) != KP_OK) ||
        (bound && (st = kp__ins_node(f, sp->node)) != KP_OK) ||
        (st = kp__ins_event(f, r->deleted[p])) != KP_OK)
        return st;
    return KP_OK;
}

/* One finding for the group g[0..n) (the longest wait first): the count of pods, the longest wait
 * and its reason (that pod's last FailedScheduling and whether preemption was tried). */
static kp_status one_group(const ins_run *r, kp_insight *in, const ins_starving *g, size_t n) {
    uint32_t unbound = 0;
    for (size_t i = 0; i < n; i++) unbound += g[i].unbound;
    bool held = true; /* every pod held by scheduling gates (never attempted): Warning */
    for (size_t i = 0; i < n; i++) held &= kp_sim_pod_get(r->sim, (size_t)g[i].pod)->attempts == 0;
    kp_finding_severity sev = unbound && !held ? KP_SEVERITY_CRITICAL : KP_SEVERITY_WARNING;
    kp_workload_info wi;
    bool owned = g[0].wl >= 0 && kp_cluster_workload_info(r->cl, g[0].wl, &wi) == KP_OK;
    kp_index p0 = g[0].pod;
    kp_finding *f = owned   ? kp__ins_add(in, KP_FINDING_STARVATION, sev, wi.kind, wi.ns, wi.name)
                    : n > 1 ? kp__ins_add(in, KP_FINDING_STARVATION, sev, "PodGroup", g[0].ns,
                                          *g[0].pc ? g[0].pc : "<none>")
                            : kp__ins_add(in, KP_FINDING_STARVATION, sev, "Pod", g[0].ns,
                                          kp_cluster_pod_name(r->cl, p0));
    if (!f) return KP_ENOMEM;
    f->first_ms = g[0].from;
    f->last_ms = g[0].to;
    f->duration_ms = g[0].to - g[0].from;
    f->count = (uint32_t)n;
    f->pod = p0;
    f->never_bound = unbound;
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < n; i++) {
        if (g[i].from < f->first_ms) f->first_ms = g[i].from;
        if (g[i].to > f->last_ms) f->last_ms = g[i].to;
        st = link_pod(r, f, &g[i]);
    }
    if (st != KP_OK) return st;
    char pb[600], wt[1600], th[40];
    wait_text(r, &g[0], wt, sizeof wt);
    kp__ins_pod_ref(r, p0, pb, sizeof pb);
    if (!owned && n == 1) st = kp__ins_summary(f, "Pod %s: %s", pb, wt);
    else {
        char who[600];
        if (owned) snprintf(who, sizeof who, "%s %s/%s", wi.kind, wi.ns, wi.name);
        else
            snprintf(who, sizeof who, "Pods without owner in %s, priorityClassName %s", g[0].ns,
                     *g[0].pc ? g[0].pc : "<none>");
        char lw[40];
        st = kp__ins_summary(
            f, "%s: %zu pod(s) pending longer than %s (%u never bound); longest %s: %s", who, n,
            kp__ins_dur(r->o.starvation_ms, th, sizeof th), unbound,
            kp__ins_dur(f->duration_ms, lw, sizeof lw), pb);
        if (st == KP_OK) st = kp__ins_detail(f, "longest: %s %s", pb, wt);
    }
    const kp_sim_event *lf = ev_of(r, r->last_failed[p0]);
    if (st == KP_OK && lf)
        st = kp__ins_detail(f, "last FailedScheduling (%s): %s",
                            kp__ins_dur(lf->t_ms, th, sizeof th), lf->message);
    if (st == KP_OK) st = preemption_line(r, f, kp_sim_pod_get(r->sim, (size_t)p0));
    if (st == KP_OK && n > 1) {
        char list[2048];
        kp__ins_sort_links(f);
        st = kp__ins_detail(f, "pods: %s", kp__ins_pod_list(r, f, list, sizeof list));
    }
    return st;
}

kp_status kp__ins_starvation(const ins_run *r, kp_insight *in) {
    ins_starving *v = kp_malloc((r->n_pods ? r->n_pods : 1) * sizeof *v);
    if (!v) return KP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < r->n_pods; i++) {
        const kp_sim_pod *sp = kp_sim_pod_get(r->sim, i);
        if (sp->bound_ms < 0 && sp->attempts == 0 && sp->state != KP_SIM_POD_PENDING) continue;
        int64_t from = sp->created_ms >= 0 ? sp->created_ms : 0;
        int64_t to = sp->bound_ms >= 0 ? sp->bound_ms : sp->gone_ms >= 0 ? sp->gone_ms : r->end_ms;
        if (to - from <= r->o.starvation_ms) continue;
        kp_pod_info pi;
        if (kp_cluster_pod_info(r->cl, (kp_index)i, &pi) != KP_OK) continue;
        v[n++] = (ins_starving){
            (kp_index)i,
            from,
            to,
            kp_cluster_workload_top(r->cl, kp_cluster_pod_workload(r->cl, (kp_index)i)),
            pi.ns,
            pi.priority_class,
            sp->bound_ms < 0 && sp->attempts > 0};
    }
    if (n > 1) qsort(v, n, sizeof *v, cmp_starving);
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < n;) {
        size_t j = i + 1;
        while (j < n && same_group(&v[i], &v[j])) j++;
        st = one_group(r, in, &v[i], j - i);
        i = j;
    }
    kp_free(v);
    return st;
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
