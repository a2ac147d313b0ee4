/* `kprio simulate` output (docs/simulate.md): the event log as `kubectl events` prints it (TIME
 * is virtual time since the start, in Go's duration syntax), then a summary; or a kprio/v1alpha1
 * SimulationResult document. On the public API only. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/insight.h"
#include "kprio/sim.h"
#include "render/emit.h"
#include "render/render_report.h"
#include "render/render_sim.h"
#include "render/view.h"

static void vtime(int64_t ms, char *buf, size_t cap) { kp_duration_format(ms * 1000000, buf, cap); }

/* Whether the event is shown (-n, -l: render/view.h): a pod's by the pod, others by namespace. */
static bool event_shown(const kp_cluster *cl, const kp_sim_event *e) {
    return e->pod >= 0 ? kp_view_pod(cl, e->pod) : kp_view_object(e->ns);
}

/* kubectl events' OBJECT: kind/name, lower case, with the namespace for namespaced objects */
static void object_ref(const kp_sim_event *e, char *buf, size_t cap) {
    char kind[64];
    size_t i = 0;
    for (; e->kind[i] && i + 1 < sizeof kind; i++)
        kind[i] = (char)(e->kind[i] >= 'A' && e->kind[i] <= 'Z' ? e->kind[i] + 32 : e->kind[i]);
    kind[i] = 0;
    if (*e->ns) snprintf(buf, cap, "%s/%s/%s", kind, e->ns, e->name);
    else snprintf(buf, cap, "%s/%s", kind, e->name);
}

static kp_status events_table(FILE *f, const kp_sim *sim) {
    kp_table *t = kp_table_new(5);
    kp_table_add(t, "TIME");
    kp_table_add(t, "TYPE");
    kp_table_add(t, "REASON");
    kp_table_add(t, "OBJECT");
    kp_table_add(t, "MESSAGE");
    size_t rows = 0;
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *e = kp_sim_event_get(sim, i);
        char tb[40], ob[600];
        if (!event_shown(kp_sim_cluster(sim), e)) continue;
        rows++;
        if (kp_view_absolute()) kp_view_time_format(kp_sim_epoch(sim), e->t_ms, tb, sizeof tb);
        else vtime(e->t_ms, tb, sizeof tb);
        object_ref(e, ob, sizeof ob);
        kp_table_add(t, tb);
        kp_table_add(t, e->type == KP_SIM_WARNING ? "Warning" : "Normal");
        kp_table_add(t, e->reason);
        kp_table_add(t, ob);
        kp_table_add(t, e->message);
    }
    kp_status st = kp_table_status(t);
    if (st == KP_OK && !rows && kp_view_filters()) kp_view_none_found(f); /* -n, -l */
    else st = kp_table_print(t, f);
    kp_table_free(t);
    return st;
}

/* The workloads whose pods were preempted, evicted or rejected most (up to 5); cnt: a zeroed
 * counter per workload (allocated before anything is printed). */
static void disrupted(FILE *f, const kp_sim *sim, uint32_t *cnt) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    size_t nw = kp_cluster_workload_count(cl);
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (strcmp(p->cause, "preempted") != 0 && strcmp(p->cause, "evicted") != 0 &&
            strcmp(p->cause, "rejected") != 0)
            continue;
        kp_index w = kp_cluster_pod_workload(cl, p->pod);
        if (w >= 0 && (size_t)w < nw) cnt[w]++;
    }
    for (int shown = 0; shown < 5; shown++) {
        size_t best = nw;
        for (size_t w = 0; w < nw; w++)
            if (cnt[w] && (best == nw || cnt[w] > cnt[best])) best = w;
        if (best == nw) break;
        kp_workload_info in;
        if (kp_cluster_workload_info(cl, (kp_index)best, &in) == KP_OK) {
            if (shown == 0) fprintf(f, "Most disrupted workloads:\n");
            fprintf(f, "  %s %s/%s: %u pod(s) preempted, evicted or rejected\n", in.kind, in.ns,
                    in.name, cnt[best]);
        }
        cnt[best] = 0;
    }
}

/* Per device class (a run whose cluster has claims): the churn of its devices, the pods' wait
 * for them and the device holders preempted */
static void devices(FILE *f, const kp_sim *sim) {
    size_t n = kp_sim_device_class_count(sim);
    if (n) fprintf(f, "Devices by class:\n");
    for (size_t i = 0; i < n; i++) {
        kp_sim_device_class d;
        if (kp_sim_device_class_get(sim, i, &d) != KP_OK) continue;
        char mean[40] = "-", max[40] = "-";
        if (d.pods_bound) {
            vtime(d.wait_ms_sum / (int64_t)d.pods_bound, mean, sizeof mean);
            vtime(d.wait_ms_max, max, sizeof max);
        }
        fprintf(f,
                "  %s: %" PRIu64 " allocation(s), %" PRIu64 " released; %" PRIu64
                " pod(s) bound (wait mean %s, max %s), %" PRIu64 " still waiting; %" PRIu64
                " holder(s) preempted\n",
                *d.device_class ? d.device_class : "(no class)", d.allocations, d.deallocations,
                d.pods_bound, mean, max, d.pods_waiting, d.holders_preempted);
    }
}

static kp_status summary(FILE *f, const kp_sim *sim, uint32_t *cnt) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    char tb[40];
    vtime(kp_sim_now(sim), tb, sizeof tb);
    fprintf(f, "\nSimulated %s of virtual time (ended: %s).\n", tb, kp_sim_end_reason(sim));
    fprintf(f,
            "Scheduled %" PRIu64 " pod(s) in %" PRIu64 " attempt(s); %" PRIu64
            " preemption(s) with %" PRIu64 " victim(s); %" PRIu64 " pod(s) created, %" PRIu64
            " deleted, %" PRIu64 " succeeded.\n",
            c.scheduled, c.attempts, c.preemptions, c.victims, c.pods_created, c.pods_deleted,
            c.pods_succeeded);
    if (c.kubelet_evictions || c.kubelet_rejections || c.kubelet_preemptions || c.oom_kills)
        fprintf(f,
                "Kubelets: %" PRIu64 " eviction(s), %" PRIu64
                " pod(s) rejected at admission, %" PRIu64
                " preempted to admit critical pods, %" PRIu64 " container(s) OOM-killed.\n",
                c.kubelet_evictions, c.kubelet_rejections, c.kubelet_preemptions, c.oom_kills);
    uint64_t n_disrupted = 0;
    for (int d = 0; d < KP_SIM_N_DISRUPT; d++) n_disrupted += c.disruptions[d];
    if (n_disrupted) { /* by cause, as counters.disruptions in -o json */
        fprintf(f, "Running pods disrupted: %" PRIu64 " (", n_disrupted);
        const char *sep = "";
        for (int d = 0; d < KP_SIM_N_DISRUPT; d++) {
            if (!c.disruptions[d]) continue;
            fprintf(f, "%s%s %" PRIu64, sep, kp_sim_disruption_title((kp_sim_disruption)d),
                    c.disruptions[d]);
            sep = ", ";
        }
        fputs(").\n", f);
    }
    if (c.longest_wait_pod >= 0) {
        vtime(c.longest_wait_ms, tb, sizeof tb);
        fprintf(f, "Longest time to schedule: %s (%s/%s).\n", tb,
                kp_cluster_pod_namespace(cl, c.longest_wait_pod),
                kp_cluster_pod_name(cl, c.longest_wait_pod));
    }
    fprintf(f, "Still pending: %" PRIu64 " pod(s)", c.pending_at_end);
    if (c.gated_at_end) fprintf(f, " and %" PRIu64 " gated", c.gated_at_end);
    fprintf(f, "%s\n", c.pending_at_end ? ":" : ".");
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (p->state != KP_SIM_POD_PENDING || !*p->last_message || !kp_view_pod(cl, p->pod))
            continue;
        fprintf(f, "  %s/%s: %s\n", kp_cluster_pod_namespace(cl, p->pod),
                kp_cluster_pod_name(cl, p->pod), p->last_message);
    }
    disrupted(f, sim, cnt);
    devices(f, sim);
    return KP_OK;
}

/* ---------------------------------------------------------------- documents */

static void kv_time(kp_emit *e, const char *key, int64_t ms) {
    kp_emit_key(e, key);
    if (ms < 0) {
        kp_emit_null(e);
        return;
    }
    char tb[40];
    vtime(ms, tb, sizeof tb);
    kp_emit_str(e, tb);
}

static void kv_pod(kp_emit *e, const kp_cluster *cl, const char *key, kp_index pod) {
    kp_emit_key(e, key);
    if (pod < 0) {
        kp_emit_null(e);
        return;
    }
    kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
}

static void kv_node(kp_emit *e, const kp_cluster *cl, const char *key, kp_index node) {
    kp_emit_key(e, key);
    if (node < 0) kp_emit_null(e);
    else kp_emit_str(e, kp_cluster_node_name(cl, node));
}

static void emit_events(kp_emit *e, const kp_sim *sim) {
    kp_emit_key(e, "events");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_sim_event_count(sim); i++) {
        const kp_sim_event *ev = kp_sim_event_get(sim, i);
        if (!event_shown(kp_sim_cluster(sim), ev)) continue;
        kp_emit_obj_begin(e);
        kv_time(e, "time", ev->t_ms);
        kp_emit_kv_int(e, "timeMs", ev->t_ms);
        if (kp_view_absolute()) { /* --start */
            char ts[48];
            kp_view_time_format(kp_sim_epoch(sim), ev->t_ms, ts, sizeof ts);
            kp_emit_kv_str(e, "timestamp", ts);
        }
        kp_emit_kv_str(e, "type", ev->type == KP_SIM_WARNING ? "Warning" : "Normal");
        kp_emit_kv_str(e, "reason", ev->reason);
        kp_emit_key(e, "involvedObject");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "kind", ev->kind);
        if (*ev->ns) kp_emit_kv_str(e, "namespace", ev->ns);
        kp_emit_kv_str(e, "name", ev->name);
        kp_emit_obj_end(e);
        kp_emit_kv_str(e, "message", ev->message);
        kp_emit_key(e, "cause");
        if (ev->cause < 0) kp_emit_null(e);
        else kp_emit_int(e, ev->cause);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static void emit_pods(kp_emit *e, const kp_sim *sim) {
    const kp_cluster *cl = kp_sim_cluster(sim);
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_sim_pod_count(sim); i++) {
        const kp_sim_pod *p = kp_sim_pod_get(sim, i);
        if (!kp_view_pod(cl, p->pod)) continue; /* -n, -l */
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "namespace", kp_cluster_pod_namespace(cl, p->pod));
        kp_emit_kv_str(e, "name", kp_cluster_pod_name(cl, p->pod));
        kp_emit_kv_str(e, "state", kp_sim_pod_state_name(p->state));
        kv_time(e, "created", p->created_ms);
        kv_time(e, "nominated", p->first_nominated_ms);
        kv_time(e, "bound", p->bound_ms);
        kv_time(e, "terminating", p->terminating_ms);
        kv_time(e, "gone", p->gone_ms);
        kv_node(e, cl, "node", p->node);
        kv_node(e, cl, "nominatedNode", p->nominated_node);
        kp_emit_kv_int(e, "attempts", p->attempts);
        kp_emit_kv_str(e, "cause", p->cause);
        kv_pod(e, cl, "preemptedBy", p->preempted_by);
        kv_pod(e, cl, "replaces", p->replaces);
        kp_emit_kv_str(e, "lastMessage", p->last_message);
        if (p->restarts) kp_emit_kv_int(e, "restarts", p->restarts);
        /* readiness, when it lagged the pod's start (or never came for a pod still bound) */
        int64_t started = p->bound_ms > 0 ? p->bound_ms : 0;
        if (p->ready_ms > started || (p->ready_ms < 0 && p->state == KP_SIM_POD_BOUND))
            kv_time(e, "ready", p->ready_ms);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

/* Per device class (runs whose cluster has claims): the account of kp_sim_device_class, as the
 * text summary's "Devices by class" */
static void emit_devices(kp_emit *e, const kp_sim *sim) {
    size_t n = kp_sim_device_class_count(sim);
    if (!n) return;
    kp_emit_key(e, "devices");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < n; i++) {
        kp_sim_device_class d;
        if (kp_sim_device_class_get(sim, i, &d) != KP_OK) continue;
        int64_t mean = d.pods_bound ? d.wait_ms_sum / (int64_t)d.pods_bound : -1;
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "deviceClass", d.device_class);
        kp_emit_kv_int(e, "claimsCreated", (int64_t)d.claims_created);
        kp_emit_kv_int(e, "claimsDeleted", (int64_t)d.claims_deleted);
        kp_emit_kv_int(e, "allocations", (int64_t)d.allocations);
        kp_emit_kv_int(e, "devicesAllocated", (int64_t)d.devices_allocated);
        kp_emit_kv_int(e, "deallocations", (int64_t)d.deallocations);
        kp_emit_kv_int(e, "podsBound", (int64_t)d.pods_bound);
        kv_time(e, "waitMean", mean);
        kv_time(e, "waitMax", d.pods_bound ? d.wait_ms_max : -1);
        kp_emit_kv_int(e, "waitMsSum", d.wait_ms_sum);
        kp_emit_kv_int(e, "podsWaiting", (int64_t)d.pods_waiting);
        kp_emit_kv_int(e, "holdersPreempted", (int64_t)d.holders_preempted);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
}

static void emit_counters(kp_emit *e, const kp_sim *sim) {
    kp_sim_counters c;
    kp_sim_counters_get(sim, &c);
    kp_emit_key(e, "counters");
    kp_emit_obj_begin(e);
    kp_emit_kv_int(e, "events", (int64_t)c.events);
    kp_emit_kv_int(e, "scheduleAttempts", (int64_t)c.attempts);
    kp_emit_kv_int(e, "scheduled", (int64_t)c.scheduled);
    kp_emit_kv_int(e, "unschedulable", (int64_t)c.unschedulable);
    kp_emit_kv_int(e, "preemptionAttempts", (int64_t)c.preemption_attempts);
    kp_emit_kv_int(e, "preemptions", (int64_t)c.preemptions);
    kp_emit_kv_int(e, "victims", (int64_t)c.victims);
    kp_emit_kv_int(e, "podsCreated", (int64_t)c.pods_created);
    kp_emit_kv_int(e, "podsDeleted", (int64_t)c.pods_deleted);
    kp_emit_kv_int(e, "podsSucceeded", (int64_t)c.pods_succeeded);
    kp_emit_kv_int(e, "podsFailed", (int64_t)c.pods_failed);
    kp_emit_kv_int(e, "pendingAtEnd", (int64_t)c.pending_at_end);
    kp_emit_kv_int(e, "gatedAtEnd", (int64_t)c.gated_at_end);
    /* the kubelets' counters, when they did anything (runs without kubelets keep their shape) */
    if (c.kubelet_evictions) kp_emit_kv_int(e, "kubeletEvictions", (int64_t)c.kubelet_evictions);
    if (c.kubelet_rejections) kp_emit_kv_int(e, "kubeletRejections", (int64_t)c.kubelet_rejections);
    if (c.kubelet_preemptions)
        kp_emit_kv_int(e, "kubeletPreemptions", (int64_t)c.kubelet_preemptions);
    if (c.oom_kills) kp_emit_kv_int(e, "oomKills", (int64_t)c.oom_kills);
    /* running pods disrupted, by cause (every cause, when any pod was) */
    uint64_t any = 0;
    for (int i = 0; i < KP_SIM_N_DISRUPT; i++) any += c.disruptions[i];
    if (any) {
        kp_emit_key(e, "disruptions");
        kp_emit_obj_begin(e);
        for (int i = 0; i < KP_SIM_N_DISRUPT; i++)
            kp_emit_kv_int(e, kp_sim_disruption_name((kp_sim_disruption)i),
                           (int64_t)c.disruptions[i]);
        kp_emit_obj_end(e);
    }
    kv_time(e, "longestTimeToSchedule", c.longest_wait_pod >= 0 ? c.longest_wait_ms : -1);
    kv_pod(e, kp_sim_cluster(sim), "longestTimeToSchedulePod", c.longest_wait_pod);
    kp_emit_obj_end(e);
}

/* ---------------------------------------------------------------- findings */

static const char *severity_str(kp_finding_severity s) {
    return s == KP_SEVERITY_CRITICAL ? "Critical" : s == KP_SEVERITY_WARNING ? "Warning" : "Info";
}

/* appends "N THING(s)" (plural "s" unless irregular) to buf at *off, ", " between parts */
static void part(char *buf, size_t cap, size_t *off, uint32_t n, const char *one,
                 const char *many) {
    if (!n || *off >= cap) return;
    int w = snprintf(buf + *off, cap - *off, "%s%u %s", *off ? ", " : "", n, n == 1 ? one : many);
    if (w > 0) *off += (size_t)w;
    if (*off > cap) *off = cap;
}

const char *kp_render_findings_headline(const kp_insight *in, char *buf, size_t cap) {
    kp_insight_totals t;
    kp_insight_totals_get(in, &t);
    size_t off = 0;
    buf[0] = 0;
    part(buf, cap, &off, t.pdbs_violated, "PDB violated", "PDBs violated");
    part(buf, cap, &off, t.loops, "loop", "loops");
    part(buf, cap, &off, t.cascades, "cascade", "cascades");
    part(buf, cap, &off, t.hotspot_evictions, "pod evicted under node pressure",
         "pods evicted under node pressure");
    uint32_t owned = t.starved_owned_pods, loose = t.starved_pods - t.starved_owned_pods;
    if (owned && off < cap) {
        int w = snprintf(buf + off, cap - off, "%s%u pod%s of %u workload%s%s", off ? ", " : "",
                         owned, owned == 1 ? "" : "s", t.starved_workloads,
                         t.starved_workloads == 1 ? "" : "s", loose ? "" : " starved");
        if (w > 0) off += (size_t)w;
        if (off > cap) off = cap;
    }
    if (loose && off < cap) {
        int w = snprintf(buf + off, cap - off, "%s%u pod%s without owner starved",
                         owned ? " and "
                         : off ? ", "
                               : "",
                         loose, loose == 1 ? "" : "s");
        if (w > 0) off += (size_t)w;
        if (off > cap) off = cap;
    }
    part(buf, cap, &off, t.pdbs_at_zero, "PDB at zero disruptions allowed",
         "PDBs at zero disruptions allowed");
    part(buf, cap, &off, t.evictions_blocked, "eviction blocked", "evictions blocked");
    if (t.hotspots && !t.hotspot_evictions)
        part(buf, cap, &off, t.hotspots, "node pressure spell", "node pressure spells");
    part(buf, cap, &off, t.device_contentions, "device contention", "device contentions");
    if (!off) snprintf(buf, cap, "none");
    return buf;
}

void kp_render_findings_summary_emit(kp_emit *e, const kp_insight *in) {
    kp_insight_totals t;
    kp_insight_totals_get(in, &t);
    char line[1024];
    kp_emit_key(e, "findingsSummary");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "headline", kp_render_findings_headline(in, line, sizeof line));
    kp_emit_kv_int(e, "findings", (int64_t)kp_insight_finding_count(in));
    kp_emit_kv_int(e, "critical", t.critical);
    kp_emit_kv_int(e, "warning", t.warning);
    kp_emit_kv_int(e, "info", t.info);
    kp_emit_kv_int(e, "pdbsViolated", t.pdbs_violated);
    kp_emit_kv_int(e, "pdbsAtZero", t.pdbs_at_zero);
    kp_emit_kv_int(e, "evictionsBlocked", t.evictions_blocked);
    kp_emit_kv_int(e, "loops", t.loops);
    kp_emit_kv_int(e, "cascades", t.cascades);
    kp_emit_kv_int(e, "starvedPods", t.starved_pods);
    kp_emit_kv_int(e, "starvedNeverBound", t.starved_never_bound);
    kp_emit_kv_int(e, "starvedWorkloads", t.starved_workloads);
    kp_emit_kv_int(e, "starvedWorkloadPods", t.starved_owned_pods);
    kp_emit_kv_int(e, "starvedGroupsWithoutOwner", t.starved_groups);
    kp_emit_kv_int(e, "pressureHotSpots", t.hotspots);
    kp_emit_kv_int(e, "pressureEvictions", t.hotspot_evictions);
    if (t.device_contentions) kp_emit_kv_int(e, "deviceContentions", t.device_contentions);
    kp_emit_obj_end(e);
}

void kp_render_findings_text(FILE *f, const kp_insight *in, size_t limit) {
    size_t n = kp_insight_finding_count(in);
    if (!n) {
        fprintf(f, "Findings: none.\n");
        return;
    }
    char line[1024];
    fprintf(f, "Findings: %s.\n", kp_render_findings_headline(in, line, sizeof line));
    size_t shown = limit && limit < n ? limit : n;
    fprintf(f, "%zu finding%s, most severe first (#N: an event's position in the log, from 0):\n",
            n, n == 1 ? "" : "s");
    for (size_t i = 0; i < shown; i++) {
        const kp_finding *x = kp_insight_finding_get(in, i);
        fprintf(f, "%zu. %s %s: %s\n", i + 1, severity_str(x->severity), x->kind_name, x->summary);
        for (const char *d = x->detail; *d;) {
            const char *nl = strchr(d, '\n');
            size_t len = nl ? (size_t)(nl - d) : strlen(d);
            fprintf(f, "   %.*s\n", (int)len, d);
            d += len + (nl != NULL);
        }
        if (!x->n_events) continue;
        fprintf(f, "   events:");
        for (size_t k = 0; k < x->n_events; k++) fprintf(f, " #%ld", x->events[k]);
        fprintf(f, "\n");
    }
    if (shown < n) fprintf(f, "%zu more (-o wide or -o json for all)\n", n - shown);
}

static void emit_finding(kp_emit *e, const kp_cluster *cl, const kp_finding *x) {
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "kind", x->kind_name);
    kp_emit_kv_str(e, "severity", severity_str(x->severity));
    kp_emit_key(e, "subject");
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "kind", x->subject_kind);
    if (*x->subject_ns) kp_emit_kv_str(e, "namespace", x->subject_ns);
    kp_emit_kv_str(e, "name", x->subject_name);
    kp_emit_obj_end(e);
    if (*x->condition) kp_emit_kv_str(e, "condition", x->condition);
    kp_emit_kv_str(e, "summary", x->summary);
    kp_emit_key(e, "details");
    kp_emit_arr_begin(e);
    for (const char *d = x->detail; *d;) {
        const char *nl = strchr(d, '\n');
        size_t len = nl ? (size_t)(nl - d) : strlen(d);
        kp_emit_strn(e, d, len);
        d += len + (nl != NULL);
    }
    kp_emit_arr_end(e);
    kv_time(e, "first", x->first_ms);
    kp_emit_kv_int(e, "firstMs", x->first_ms);
    kv_time(e, "last", x->last_ms);
    kp_emit_kv_int(e, "lastMs", x->last_ms);
    kp_emit_kv_int(e, "count", x->count);
    if (x->kind == KP_FINDING_LOOP) kv_time(e, "period", x->period_ms);
    if (x->kind == KP_FINDING_CASCADE) kp_emit_kv_int(e, "depth", x->depth);
    if (x->kind >= KP_FINDING_STARVATION) kv_time(e, "duration", x->duration_ms);
    if (x->kind == KP_FINDING_STARVATION) {
        kv_pod(e, cl, "longestWaitPod", x->pod);
        kp_emit_kv_int(e, "neverBound", x->never_bound);
    }
    if (x->kind == KP_FINDING_PDB_PRESSURE) kp_emit_kv_int(e, "evictionsBlocked", x->blocked);
    if (x->kind == KP_FINDING_DEVICE_CONTENTION && x->pod >= 0) { /* condition Wait */
        kv_pod(e, cl, "longestWaitPod", x->pod);
        kp_emit_kv_int(e, "neverBound", x->never_bound);
    }
    kp_emit_key(e, "events");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < x->n_events; k++) kp_emit_int(e, x->events[k]);
    kp_emit_arr_end(e);
    kp_emit_key(e, "pods");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < x->n_pods; k++)
        kp_emit_pod_ref(e, kp_cluster_pod_namespace(cl, x->pods[k]),
                        kp_cluster_pod_name(cl, x->pods[k]));
    kp_emit_arr_end(e);
    kp_emit_key(e, "nodes");
    kp_emit_arr_begin(e);
    for (size_t k = 0; k < x->n_nodes; k++) kp_emit_str(e, kp_cluster_node_name(cl, x->nodes[k]));
    kp_emit_arr_end(e);
    if (x->kind == KP_FINDING_CASCADE) {
        kp_emit_key(e, "tree");
        kp_emit_arr_begin(e);
        for (size_t k = 0; k < x->n_tree; k++) {
            kp_emit_obj_begin(e);
            kp_emit_kv_int(e, "event", x->tree[k].event);
            kv_pod(e, cl, "pod", x->tree[k].pod);
            kp_emit_kv_int(e, "parent", x->tree[k].parent);
            kp_emit_kv_int(e, "depth", x->tree[k].depth);
            kp_emit_obj_end(e);
        }
        kp_emit_arr_end(e);
    }
    kp_emit_obj_end(e);
}

void kp_render_findings_emit(kp_emit *e, const kp_sim *sim, const kp_insight *in,
                             const size_t *only, size_t n_only) {
    kp_emit_arr_begin(e);
    size_t n = only ? n_only : kp_insight_finding_count(in);
    for (size_t i = 0; i < n; i++)
        emit_finding(e, kp_sim_cluster(sim), kp_insight_finding_get(in, only ? only[i] : i));
    kp_emit_arr_end(e);
}

kp_status kp_render_simulation(FILE *f, const kp_sim *sim, kp_outfmt fmt, bool events_only) {
    kp_insight *in = NULL;
    kp_error err;
    if (!events_only && kp_insight_new(sim, NULL, &in, &err) != KP_OK) return KP_ENOMEM;
    kp_status st = kp_render_simulation_insight(f, sim, in, fmt, events_only);
    kp_insight_free(in);
    return st;
}

kp_status kp_render_simulation_insight(FILE *f, const kp_sim *sim, const kp_insight *in,
                                       kp_outfmt fmt, bool events_only) {
    if (fmt == KP_OUT_TABLE || fmt == KP_OUT_WIDE) { /* no wider form */
        size_t nw = kp_cluster_workload_count(kp_sim_cluster(sim));
        uint32_t *cnt = kp_calloc(nw ? nw : 1, sizeof *cnt);
        if (!cnt) return KP_ENOMEM;
        kp_status st = events_table(f, sim);
        if (st == KP_OK && !events_only) st = summary(f, sim, cnt);
        if (st == KP_OK && !events_only && in) {
            fprintf(f, "\n");
            kp_render_findings_text(f, in, fmt == KP_OUT_WIDE ? 0 : KP_FINDINGS_TOP);
        }
        kp_free(cnt);
        return st;
    }
    kp_emit *e = kp_emit_new(f, fmt);
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "SimulationResult");
    kv_time(e, "duration", kp_sim_now(sim));
    kp_emit_kv_str(e, "endReason", kp_sim_end_reason(sim));
    kp_emit_kv_int(e, "startUnix", kp_sim_epoch(sim));
    if (kp_view_absolute()) { /* --start: t = 0 as given */
        char ts[48];
        kp_view_time_format(kp_sim_epoch(sim), 0, ts, sizeof ts);
        kp_emit_kv_str(e, "startTime", ts);
    }
    emit_events(e, sim);
    if (!events_only) {
        emit_counters(e, sim);
        emit_devices(e, sim);
        emit_pods(e, sim);
        if (in) {
            kp_render_findings_summary_emit(e, in);
            kp_emit_key(e, "findings");
            kp_render_findings_emit(e, sim, in, NULL, 0);
        }
        kp_render_metrics_series(e, sim); /* render_metrics.c */
    }
    kp_emit_obj_end(e);
    kp_status st = kp_emit_status(e);
    kp_emit_free(e);
    return st;
}
