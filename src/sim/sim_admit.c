/* The kubelets' admission in the simulation (docs/simulate.md "Kubelets: admission"): a pod
 * bound to a node, by the scheduler or because it named the node at creation, is seen by that
 * node's kubelet KP__SIM_ADMIT_DELAY_MS later and admitted with kprio's admission engine
 * (kprio/admission.h, the same kp_admit as `kprio admit`), under the node-pressure conditions
 * the node's simulated eviction manager reports then.
 *
 * Upstream: pkg/kubelet/kubelet.go HandlePodAdditions (canAdmitPod over the admit handlers, then
 * rejectPod: a Warning event of the result's reason and message, status Failed with that reason
 * and "Pod was rejected: " + message), pkg/kubelet/preemption/preemption.go
 * (CriticalPodAdmissionHandler.HandleAdmissionFailure / evictPodsToFreeRequests: each victim a
 * Warning "Preempting" event "Preempted in order to admit critical pod", killed with its own
 * grace period, status Failed reason Preempting). The admissions are planned by
 * sim_admit_plan.c (the delay, and why there is one). */
#include <stdio.h>
#include <string.h>

#include "kprio/admission.h"
#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory");
}

void kp__sim_admit_free(kp_sim *s) {
    kp_admission_free(s->adm.a);
    kp_free(s->adm.unseen);
    memset(&s->adm, 0, sizeof s->adm);
}

/* The pod's status is Failed with reason / message (the kubelet's status update): it frees its
 * node, its controller replaces it (the loss is event `ev`), its PDBs are recounted and the
 * unschedulable pods move (an assigned pod changed). */
static kp_status fail_pod(kp_sim *s, uint32_t pod, const char *reason, const char *message,
                          const char *cause, long ev, kp_error *err) {
    /* a victim of the kubelet's preemption also gets DisruptionTarget (evictPodsToFreeRequests'
     * status function); a rejected pod does not (rejectPod) */
    bool victim = strcmp(cause, "preempted") == 0;
    kp_status st =
        kp_cluster_finish_pod_disrupted(s->cl, pod, KP_POD_PHASE_FAILED, reason, message,
                                        victim ? KP_ADMIT_VICTIM_CONDITION_REASON : NULL,
                                        victim ? KP_ADMIT_VICTIM_CONDITION_MESSAGE : NULL, err);
    if (st != KP_OK) return st;
    sim_pod *p = &s->pods[pod];
    p->pub.gone_ms = s->now;
    p->pub.cause = cause;
    if (p->lost_ev < 0) p->lost_ev = ev;
    s->c.pods_failed++;
    if (kp__sim_pod_changed(s, pod) != KP_OK) return nomem(err);
    if ((st = kp__sim_recount_pdbs(s, pod, err)) != KP_OK) return st;
    /* its node's resources are freed: the queueing hints see it as the assigned pod deleted */
    return kp__sim_move_pod_gone(s, pod, p->pub.node, false, 0) == KP_OK ? KP_OK : nomem(err);
}

/* mirrors kubelet.rejectPod: a Warning event of the admit result's reason and message, then
 * status Failed, that reason, "Pod was rejected: " + message. */
static kp_status reject(kp_sim *s, uint32_t pod, kp_index node, const kp_admission *a,
                        kp_error *err) {
    const char *reason = kp_admission_reason(a), *msg = kp_admission_message(a);
    long ev = kp__sim_logf(s, KP_SIM_WARNING, reason, (kp_index)pod, node, -1, "%s", msg);
    if (ev < 0) return nomem(err);
    s->c.kubelet_rejections++;
    size_t n = strlen(msg) + sizeof "Pod was rejected: ";
    char buf[1024], *status = buf;
    if (n > sizeof buf && !(status = kp_malloc(n))) return nomem(err);
    snprintf(status, n > sizeof buf ? n : sizeof buf, "Pod was rejected: %s", msg);
    kp_status st = fail_pod(s, pod, reason, status, "rejected", ev, err);
    if (status != buf) kp_free(status);
    return st;
}

/* mirrors evictPodsToFreeRequests: each victim gets the Warning event and is killed with its
 * grace period (killPodFunc with no override); it ends Failed, reason Preempting, once killed
 * (SIM_EV_ADMIT_KILLED). Its controller replaces it then: until killed it is active. */
static kp_status preempt(kp_sim *s, uint32_t pod, kp_index node, const kp_admission *a,
                         kp_error *err) {
    for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
        kp_index v = kp_admission_victim(a, i)->pod;
        kp_pod_info vi;
        kp_cluster_pod_info(s->cl, v, &vi);
        kp__sim_disrupted(s, v, KP_SIM_DISRUPT_ADMISSION);
        long ev = kp__sim_logf(s, KP_SIM_WARNING, KP_ADMIT_VICTIM_REASON, v, node, -1, "%s",
                               KP_ADMIT_VICTIM_MESSAGE);
        /* killPodFunc: the victim's containers are stopped */
        if (ev < 0 || kp__sim_log_killing(s, (uint32_t)v, node, ev) != KP_OK) return nomem(err);
        sim_pod *vp = &s->pods[v];
        if (vp->lost_ev < 0) vp->lost_ev = ev;
        vp->pub.preempted_by = (kp_index)pod;
        /* its kubelet stops it: Terminating until killed (kp__sim_pod_state) */
        if (kp__sim_pod_state(s, (uint32_t)v) == KP_SIM_POD_BOUND) vp->pub.terminating_ms = s->now;
        s->c.kubelet_preemptions++;
        if (kp__sim_timer_add(s, s->now + vi.grace_seconds * 1000, SIM_EV_ADMIT_KILLED, v, 0) !=
            KP_OK)
            return nomem(err);
    }
    return KP_OK;
}

/* kp_admit_options.unseen: bound pods their kubelet has not been handed yet (upstream's
 * HandlePodAdditions admits against the pods its pod manager holds). */
static bool unseen(const void *ctx, kp_index pod) {
    const sim_admit *m = ctx;
    return (size_t)pod < m->n_unseen && m->unseen[pod];
}

/* HandlePodAdditions for one pod: canAdmitPod, then start it or reject it. */
static kp_status admit(kp_sim *s, uint32_t pod, kp_error *err) {
    kp_pod_info pi;
    if (kp_cluster_pod_info(s->cl, pod, &pi) != KP_OK) return KP_OK;
    if (pod < s->adm.n_unseen) s->adm.unseen[pod] = 0; /* the kubelet is handed it now */
    /* gone, ended or being deleted before its kubelet saw it: nothing to admit */
    if (pi.deleted || pi.terminal || pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET ||
        kp_cluster_node_deleted(s->cl, pi.node))
        return KP_OK;
    if (!s->adm.a && !(s->adm.a = kp_admission_new())) return nomem(err);
    kp_admit_options o;
    kp_admit_options_init(&o);
    o.override_conditions = true; /* the simulated eviction manager's, not the snapshot's */
    o.conditions = kp__sim_kubelet_conditions(s, pi.node);
    o.unseen = unseen;
    o.unseen_ctx = &s->adm;
    kp_status st = kp_admit(s->cl, pi.node, (kp_index)pod, &o, s->adm.a, err);
    if (st != KP_OK) return st;
    const kp_admission *a = s->adm.a;
    if (s->o.admit_hook)
        s->o.admit_hook(s->o.admit_ctx, s, pi.node, (kp_index)pod, o.conditions, a);
    if (!kp_admission_admitted(a)) return reject(s, pod, pi.node, a, err);
    if ((st = preempt(s, pod, pi.node, a, err)) != KP_OK) return st;
    if (pi.phase != KP_POD_PHASE_RUNNING) /* named its node: started now */
        return kp_cluster_pod_set_running(s->cl, pod, s->epoch + s->now / 1000, err);
    return KP_OK;
}

kp_status kp__sim_admit_timer(kp_sim *s, const sim_timer *t, kp_error *err) {
    uint32_t pod = (uint32_t)t->arg;
    if (pod >= s->n_pods) return KP_OK;
    if (t->kind == SIM_EV_ADMIT) return admit(s, pod, err);
    kp_pod_info pi; /* SIM_EV_ADMIT_KILLED */
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal) return KP_OK;
    return fail_pod(s, pod, KP_ADMIT_VICTIM_REASON, KP_ADMIT_VICTIM_MESSAGE, "preempted",
                    s->pods[pod].lost_ev, err);
}
