/* Findings about devices (docs/simulate.md "Findings"): per device class of the run's claims
 * (kp_sim_device_class), a DeviceContention finding for each of
 *   Wait            pods with a claim of the class pending longer than the starvation threshold
 *                   while the scheduler could not allocate their claims;
 *   Churn           allocations released and made again at least loop_min_turns times;
 *   PreemptionLoop  device holders preempted at least loop_min_turns times (their devices freed
 *                   and taken again).
 * Each names the class, the numbers and what to change. Public API only; deterministic (classes
 * in the order the run met them, pods in index order). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/insight_internal.h"

/* The DynamicResources plugin's rejections (dynamicresources.go: its Filter's and PreFilter's
 * messages all name the claims) */
static bool device_message(const char *msg) { return strstr(msg, "claim") != NULL; }

static const char *cls_name(const kp_sim_device_class *d) {
    return *d->device_class ? d->device_class : "(no class)";
}

static kp_finding *add(kp_insight *in, kp_finding_severity sev, const kp_sim_device_class *d,
                       const char *cond) {
    kp_finding *f =
        kp__ins_add(in, KP_FINDING_DEVICE_CONTENTION, sev, "DeviceClass", "", cls_name(d));
    if (f) f->condition = cond;
    return f;
}

/* Wait: the pods of the class pending longer than the threshold for their devices */
static kp_status waits(const ins_run *r, kp_insight *in, const kp_sim_device_class *d, size_t ci) {
    kp_finding *f = NULL;
    uint32_t unbound = 0;
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < r->n_pods; i++) {
        const kp_sim_pod *sp = kp_sim_pod_get(r->sim, i);
        if (sp->attempts == 0 || r->last_failed[i] < 0) continue;
        int64_t from = sp->created_ms >= 0 ? sp->created_ms : 0;
        int64_t to = sp->bound_ms >= 0 ? sp->bound_ms : sp->gone_ms >= 0 ? sp->gone_ms : r->end_ms;
        if (to - from <= r->o.starvation_ms || !kp_sim_pod_device_class(r->sim, i, ci)) continue;
        const kp_sim_event *lf = kp_sim_event_get(r->sim, (size_t)r->last_failed[i]);
        if (!lf || !device_message(lf->message)) continue;
        if (!f && !(f = add(in, KP_SEVERITY_WARNING, d, "Wait"))) return KP_ENOMEM;
        if (!f->count || to - from > f->duration_ms) {
            f->duration_ms = to - from;
            f->pod = (kp_index)i;
        }
        if (!f->count || from < f->first_ms) f->first_ms = from;
        if (to > f->last_ms) f->last_ms = to;
        f->count++;
        unbound += sp->bound_ms < 0;
        if ((st = kp__ins_pod(f, (kp_index)i)) == KP_OK) st = kp__ins_event(f, r->last_failed[i]);
    }
    if (st != KP_OK || !f) return st;
    f->never_bound = unbound;
    if (unbound) f->severity = KP_SEVERITY_CRITICAL;
    char th[40], lw[40], pb[600], list[2048];
    kp__ins_sort_links(f);
    st = kp__ins_summary(f,
                         "DeviceClass %s: %u pod(s) waited longer than %s for devices (%u never "
                         "bound); longest %s: %s",
                         cls_name(d), f->count, kp__ins_dur(r->o.starvation_ms, th, sizeof th),
                         unbound, kp__ins_dur(f->duration_ms, lw, sizeof lw),
                         kp__ins_pod_ref(r, f->pod, pb, sizeof pb));
    const kp_sim_event *lf = kp_sim_event_get(r->sim, (size_t)r->last_failed[f->pod]);
    if (st == KP_OK && lf) st = kp__ins_detail(f, "last FailedScheduling: %s", lf->message);
    if (st == KP_OK)
        st = kp__ins_detail(
            f,
            "the class over the run: %" PRIu64 " allocation(s) of %" PRIu64 " device(s), %" PRIu64
            " released; %" PRIu64 " pod(s) bound, %" PRIu64 " still waiting",
            d->allocations, d->devices_allocated, d->deallocations, d->pods_bound, d->pods_waiting);
    if (st == KP_OK) st = kp__ins_detail(f, "pods: %s", kp__ins_pod_list(r, f, list, sizeof list));
    if (st == KP_OK)
        st = kp__ins_detail(f,
                            "to change: publish more devices matching class %s (ResourceSlices) "
                            "or request fewer; the scheduler does not preempt device holders "
                            "for devices (no DRA preemption in v1.37)",
                            cls_name(d));
    return st;
}

/* Churn: allocations released and made again */
static kp_status churn(const ins_run *r, kp_insight *in, const kp_sim_device_class *d) {
    uint64_t again = d->allocations < d->deallocations ? d->allocations : d->deallocations;
    if (again < r->o.loop_min_turns) return KP_OK;
    kp_finding *f = add(in, KP_SEVERITY_INFO, d, "Churn");
    if (!f) return KP_ENOMEM;
    f->count = (uint32_t)(again > UINT32_MAX ? UINT32_MAX : again);
    f->first_ms = 0;
    f->last_ms = r->end_ms;
    f->duration_ms = r->end_ms;
    char tb[40], pb[40];
    kp_status st = kp__ins_summary(
        f,
        "DeviceClass %s: %" PRIu64 " allocation(s) released and %" PRIu64
        " made over %s (about one release every %s)",
        cls_name(d), d->deallocations, d->allocations, kp__ins_dur(r->end_ms, tb, sizeof tb),
        kp__ins_dur(r->end_ms / (int64_t)(d->deallocations ? d->deallocations : 1), pb, sizeof pb));
    if (st == KP_OK)
        st = kp__ins_detail(f,
                            "%" PRIu64 " device(s) allocated; %" PRIu64 " claim(s) made from "
                            "templates, %" PRIu64 " deleted with their pods",
                            d->devices_allocated, d->claims_created, d->claims_deleted);
    if (st == KP_OK)
        st = kp__ins_detail(f, "to change: short-lived pods each allocate and release their "
                               "devices; a ResourceClaim shared by the pods (spec.resourceClaims "
                               "naming one claim) or longer-lived pods keep them allocated");
    return st;
}

/* PreemptionLoop: holders of the class's devices preempted again and again */
static kp_status preemptions(const ins_run *r, kp_insight *in, const kp_sim_device_class *d,
                             size_t ci) {
    if (d->holders_preempted < r->o.loop_min_turns) return KP_OK;
    kp_finding *f = add(in, KP_SEVERITY_WARNING, d, "PreemptionLoop");
    if (!f) return KP_ENOMEM;
    f->count = (uint32_t)(d->holders_preempted > UINT32_MAX ? UINT32_MAX : d->holders_preempted);
    kp_status st = KP_OK;
    bool any = false;
    for (size_t i = 0; st == KP_OK && i < r->n_pods; i++) {
        const kp_sim_pod *sp = kp_sim_pod_get(r->sim, i);
        long ev = r->displaced[i];
        if (strcmp(sp->cause, "preempted") != 0 || ev < 0 ||
            !kp_sim_pod_device_class(r->sim, i, ci))
            continue;
        const kp_sim_event *e = kp_sim_event_get(r->sim, (size_t)ev);
        if (!any || e->t_ms < f->first_ms) f->first_ms = e->t_ms;
        if (!any || e->t_ms > f->last_ms) f->last_ms = e->t_ms;
        any = true;
        if ((st = kp__ins_pod(f, (kp_index)i)) == KP_OK) st = kp__ins_event(f, ev);
    }
    if (st != KP_OK) return st;
    f->duration_ms = f->last_ms - f->first_ms;
    kp__ins_sort_links(f);
    char tb[40], list[2048];
    st = kp__ins_summary(f,
                         "DeviceClass %s: %" PRIu64 " device holder(s) preempted over %s; their "
                         "devices were released and allocated again",
                         cls_name(d), d->holders_preempted,
                         kp__ins_dur(f->last_ms - f->first_ms, tb, sizeof tb));
    if (st == KP_OK && f->n_pods)
        st = kp__ins_detail(f, "pods: %s", kp__ins_pod_list(r, f, list, sizeof list));
    if (st == KP_OK)
        st = kp__ins_detail(f, "to change: the holders lose their devices when preempted for "
                               "other resources (cpu, memory) and their replacements allocate "
                               "again; a PriorityClass at or above the preemptors' keeps them "
                               "(a PodDisruptionBudget is best effort against preemption)");
    return st;
}

kp_status kp__ins_devices(const ins_run *r, kp_insight *in) {
    size_t n = kp_sim_device_class_count(r->sim);
    kp_status st = KP_OK;
    for (size_t i = 0; st == KP_OK && i < n; i++) {
        kp_sim_device_class d;
        if (kp_sim_device_class_get(r->sim, i, &d) != KP_OK) continue;
        st = waits(r, in, &d, i);
        if (st == KP_OK) st = churn(r, in, &d);
        if (st == KP_OK) st = preemptions(r, in, &d, i);
    }
    return st;
}
