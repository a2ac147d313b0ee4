/* Pod lifecycle in the simulation and the controllers that react to it: ReplicaSet and
 * ReplicationController (replicas kept, ReplicaSetController.manageReplicas), StatefulSet
 * (ordinals recreated under their name once the old pod is gone, OrderedReady one at a time,
 * StatefulSetControl), the
 * Deployment through its ReplicaSet, and the disruption controller (PDB status recounted after
 * every change of a pod it selects). Controllers act in the instant of the change (their work
 * queues take no virtual time). */
#include <stdio.h>
#include <string.h>

#include "sim/sim_internal.h"

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: out of memory");
}

static kp_status wl_add_pod(sim_wl *w, uint32_t pod) {
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 8;
        uint32_t *np = kp_realloc(w->pods, cap * sizeof *np);
        if (!np) return KP_ENOMEM;
        w->pods = np;
        w->cap = cap;
    }
    w->pods[w->n++] = pod;
    return KP_OK;
}

void kp__sim_mark_workload(kp_sim *s, int64_t wl) {
    if (wl < 0 || (size_t)wl >= s->n_wls) return;
    s->wls[wl].dirty = true;
    s->any_dirty = true;
}

kp_status kp__sim_index_workloads(kp_sim *s) {
    size_t n = kp_cluster_workload_count(s->cl);
    if (!(s->wls = kp_calloc(n ? n : 1, sizeof *s->wls))) return KP_ENOMEM;
    s->n_wls = n;
    for (size_t i = 0; i < s->n_pods; i++) {
        int64_t w = s->pods[i].workload;
        if (w < 0 || (size_t)w >= s->n_wls) continue;
        if (wl_add_pod(&s->wls[w], (uint32_t)i) != KP_OK) return KP_ENOMEM;
    }
    for (size_t w = 0; w < s->n_wls; w++) kp__sim_mark_workload(s, (int64_t)w);
    return KP_OK;
}

kp_status kp__sim_grow_workloads(kp_sim *s) {
    size_t n = kp_cluster_workload_count(s->cl);
    if (n <= s->n_wls) return KP_OK;
    sim_wl *nw = kp_realloc(s->wls, n * sizeof *nw);
    if (!nw) return KP_ENOMEM;
    memset(nw + s->n_wls, 0, (n - s->n_wls) * sizeof *nw);
    s->wls = nw;
    size_t from = s->n_wls;
    s->n_wls = n; /* first: kp__sim_mark_workload ignores indices past n_wls */
    for (size_t w = from; w < n; w++) kp__sim_mark_workload(s, (int64_t)w);
    return KP_OK;
}

/* A Deployment scales through its ReplicaSet (the last one it owns that has replicas, else its
 * last one): the deployment controller's "Scaled up/down replica set" step. */
long kp__sim_deployment_rs(const kp_sim *s, const kp_workload_info *d) {
    long best = -1;
    int32_t best_rep = -1;
    for (size_t i = 0; i < kp_cluster_workload_count(s->cl); i++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(s->cl, (kp_index)i, &in) != KP_OK) continue;
        if (in.deleted || strcmp(in.kind, "ReplicaSet") != 0 || strcmp(in.ns, d->ns) != 0 ||
            strcmp(in.owner_kind, "Deployment") != 0 || strcmp(in.owner_name, d->name) != 0)
            continue;
        if (in.replicas > 0 || best_rep <= 0) {
            best = (long)i;
            best_rep = in.replicas;
        }
    }
    return best;
}

/* Background cascading deletion (the garbage collector): the workload makes no more pods, its
 * pods go, and so do the workloads it controls (a Deployment's ReplicaSets, a CronJob's Jobs)
 * with theirs. */
kp_status kp__sim_delete_workload(kp_sim *s, long w, kp_error *err) {
    if (w < 0 || (size_t)w >= s->n_wls || s->wls[w].deleted) return KP_OK;
    s->wls[w].deleted = true;
    kp_status dst = kp_cluster_delete_workload(s->cl, (kp_index)w, err);
    if (dst != KP_OK) return dst;
    for (uint32_t i = 0; i < s->wls[w].n; i++) {
        uint32_t p = s->wls[w].pods[i];
        s->pods[p].replaced = true;
        kp_status st = kp__sim_pod_terminating(s, p, "deleted", -1, err);
        if (st != KP_OK) return st;
    }
    kp_workload_info in;
    if (kp_cluster_workload_info(s->cl, (kp_index)w, &in) != KP_OK) return KP_OK;
    for (size_t o = 0; o < s->n_wls; o++) {
        kp_workload_info oi;
        if ((long)o == w || kp_cluster_workload_info(s->cl, (kp_index)o, &oi) != KP_OK ||
            strcmp(oi.ns, in.ns) != 0 || strcmp(oi.owner_kind, in.kind) != 0 ||
            strcmp(oi.owner_name, in.name) != 0)
            continue;
        kp_status st = kp__sim_delete_workload(s, (long)o, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- the disruption controller */

kp_status kp__sim_recount_pdbs(kp_sim *s, uint32_t pod, kp_error *err) {
    size_t n = kp_cluster_pdb_count(s->cl);
    for (size_t i = 0; i < n; i++) {
        if (!kp_cluster_pdb_selects(s->cl, (kp_index)i, (kp_index)pod)) continue;
        kp_status st = kp__sim_pdb_recount(s, (kp_index)i, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* ---------------------------------------------------------------- pod lifecycle */

kp_status kp__sim_pod_added(kp_sim *s, uint32_t pod, long replaces) {
    kp_status st = kp__sim_grow_pods(s);
    if (st != KP_OK) return st;
    sim_pod *p = &s->pods[pod];
    p->pub.created_ms = s->now;
    p->pub.replaces = replaces;
    s->c.pods_created++;
    if (p->workload >= 0 && (size_t)p->workload < s->n_wls &&
        (st = wl_add_pod(&s->wls[p->workload], pod)) != KP_OK)
        return st;
    /* DisruptionController.addPod: the PDBs that select it sync (expectedPods counts it; a
     * percentage follows its controller's scale) */
    if ((st = kp__sim_recount_pdbs(s, pod, NULL)) != KP_OK) return st;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.node < 0 && !pi.terminal && kp_sched_serves(s->sched, pod))
        return kp__sim_enqueue_new(s, pod);
    if (pi.node >= 0 && !pi.terminal) return kp__sim_admit_bound(s, pod); /* named its node */
    return KP_OK;
}

/* The kubelet stops each container of a pod it kills (a deletion it sees, its own eviction or
 * admission preemption: killPodFunc): Normal Killing "Stopping container NAME" per container
 * (mirrors kubeGenericRuntimeManager.killContainer). */
kp_status kp__sim_log_killing(kp_sim *s, uint32_t pod, kp_index node, long cause_ev) {
    for (size_t c = 0; c < kp_cluster_pod_container_count(s->cl, pod); c++)
        if (kp__sim_logf(s, KP_SIM_NORMAL, "Killing", pod, node, cause_ev, "Stopping container %s",
                         kp_cluster_pod_container_name(s->cl, pod, c)) < 0)
            return KP_ENOMEM;
    return KP_OK;
}

/* A deletion request for a pod: deletionTimestamp set; a bound pod keeps its resources until its
 * grace period ends, and its kubelet stops each container at once with the event Normal Killing
 * "Stopping container NAME" (mirrors kubeGenericRuntimeManager.killContainer); a pod not bound
 * goes at once. */
kp_status kp__sim_pod_terminating(kp_sim *s, uint32_t pod, const char *cause, long cause_ev,
                                  kp_error *err) {
    sim_pod *p = &s->pods[pod];
    if (p->lost_ev < 0) p->lost_ev = cause_ev;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal) return KP_OK;
    if (pi.node < 0) { /* not running anywhere: the API server deletes it at once */
        p->pub.cause = cause;
        return kp__sim_pod_gone(s, pod, cause, err);
    }
    kp_status st = KP_OK;
    if (pi.deletion_ts == KP_TIME_UNSET) {
        st = kp_cluster_mark_terminating(s->cl, pod, s->epoch + s->now / 1000, NULL, err);
        if (st != KP_OK) return st;
        kp_cluster_pod_info(s->cl, pod, &pi);
    }
    p->pub.terminating_ms = s->now;
    p->pub.cause = cause;
    /* the kubelet sees the deletion and stops each container (killContainer) */
    if (kp__sim_log_killing(s, pod, pi.node, cause_ev) != KP_OK) return nomem(err);
    /* the kubelet stops the containers within the grace period; the pod object goes then */
    if ((st = kp__sim_timer_add(s, s->now + pi.grace_seconds * 1000, SIM_EV_POD_GONE, pod, 0)) !=
        KP_OK)
        return nomem(err);
    kp__sim_mark_workload(s, p->workload); /* FilterActivePods: no longer active */
    return kp__sim_recount_pdbs(s, pod, err);
}

kp_status kp__sim_pod_gone(kp_sim *s, uint32_t pod, const char *cause, kp_error *err) {
    if (pod >= s->n_pods) return KP_OK;
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted) return KP_OK;
    bool was_bound = pi.node >= 0;
    kp_status st = kp_cluster_delete_pod(s->cl, pod, err);
    if (st != KP_OK) return st;
    kp__sim_dequeue(s, pod);
    if (cause) p->pub.cause = cause;
    if (!*p->pub.cause) p->pub.cause = "deleted";
    p->pub.gone_ms = s->now;
    s->c.pods_deleted++;
    kp__sim_mark_workload(s, p->workload);
    if ((st = kp__sim_recount_pdbs(s, pod, err)) != KP_OK) return st;
    /* AssignedPodDelete: resources freed, unschedulable pods may fit now */
    if (was_bound && (st = kp__sim_move_all(s, "AssignedPodDelete")) != KP_OK) return nomem(err);
    /* deletePodFromSchedulingQueue: a pending pod that held a nomination was counted on its node
     * by the pods of lower or equal priority */
    if (!was_bound && *pi.nominated_node && s->nomination_moves &&
        (st = kp__sim_move_le(s, "AssignedPodDelete", pi.priority)) != KP_OK)
        return nomem(err);
    return KP_OK;
}

static kp_status plan_lifetime(kp_sim *s, uint32_t pod) {
    if (!s->sc) return KP_OK;
    for (size_t i = 0; i < s->sc->n_lifetimes; i++) {
        const kp_scenario_lifetime *l = &s->sc->lifetimes[i];
        if (l->ns && *l->ns && strcmp(l->ns, kp_cluster_pod_namespace(s->cl, pod)) != 0) continue;
        if (!kp_cluster_pod_matches(s->cl, pod, l->reqs, l->n_reqs)) continue;
        return kp__sim_timer_add(s, s->now + l->after_ms, SIM_EV_LIFETIME, pod, 0);
    }
    return KP_OK;
}

kp_status kp__sim_pod_bound(kp_sim *s, uint32_t pod, kp_error *err) {
    sim_pod *p = &s->pods[pod];
    p->pub.bound_ms = s->now;
    p->pub.node = kp_cluster_pod_node(s->cl, pod);
    kp_status st = kp_cluster_pod_set_running(s->cl, pod, s->epoch + s->now / 1000, err);
    if (st != KP_OK) return st;
    if (plan_lifetime(s, pod) != KP_OK || kp__sim_admit_bound(s, pod) != KP_OK) return nomem(err);
    kp_workload_info wi;
    if (p->workload >= 0 && kp_cluster_workload_info(s->cl, p->workload, &wi) == KP_OK &&
        strcmp(wi.kind, "StatefulSet") == 0)
        kp__sim_mark_workload(s,
                              p->workload); /* running and ready: an ordered scale-down goes on */
    return kp__sim_recount_pdbs(s, pod, err);
}

kp_status kp__sim_pod_finished(kp_sim *s, uint32_t pod, kp_pod_phase phase, const char *reason,
                               const char *message, bool by_kubelet, kp_error *err) {
    if (pod >= s->n_pods) return KP_OK;
    sim_pod *p = &s->pods[pod];
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.deleted || pi.terminal || pi.node < 0) return KP_OK;
    kp_index node = pi.node;
    /* a pod the kubelet evicted also gets DisruptionTarget (TerminationByKubelet, the eviction
     * message), with its terminal status (managerImpl.evictPod's status function) */
    bool failed = phase == KP_POD_PHASE_FAILED; /* a Succeeded pod's status has no reason */
    kp_status st = kp_cluster_finish_pod_disrupted(
        s->cl, pod, phase, failed ? reason : NULL, message,
        by_kubelet ? "TerminationByKubelet" : NULL, by_kubelet ? message : NULL, err);
    if (st != KP_OK) return st;
    bool ok = phase == KP_POD_PHASE_SUCCEEDED;
    p->pub.gone_ms = s->now;
    p->pub.cause = ok ? "succeeded" : "failed";
    if (ok) s->c.pods_succeeded++;
    else s->c.pods_failed++;
    if (kp__sim_logf(s, KP_SIM_NORMAL, reason, pod, node, -1, "Pod %s (%s)",
                     ok ? "succeeded" : "failed", ok ? "its scenario lifetime ended" : reason) < 0)
        return nomem(err);
    kp__sim_mark_workload(s, p->workload);
    if ((st = kp__sim_recount_pdbs(s, pod, err)) != KP_OK) return st;
    return kp__sim_move_all(s, "AssignedPodUpdate") == KP_OK ? KP_OK : nomem(err);
}

/* ---------------------------------------------------------------- controllers */

/* FilterActivePods: not terminal, not being deleted */
static bool active(const kp_sim *s, uint32_t pod) {
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    return !pi.deleted && !pi.terminal && pi.deletion_ts == KP_TIME_UNSET;
}

/* The pod a new one replaces: the earliest lost (inactive) pod of the workload not replaced
 * yet (node >= 0, a DaemonSet's: one that targeted that node), for the cascade's links; -1 when
 * it is a scale-up. */
static long lost_pod(kp_sim *s, sim_wl *w, kp_index node) {
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        if (active(s, q) || s->pods[q].replaced) continue;
        if (node >= 0 && s->pods[q].pub.node != node &&
            kp_cluster_pod_target_node(s->cl, q) != node)
            continue;
        s->pods[q].replaced = true;
        return (long)q;
    }
    return -1;
}

/* A new pod of workload wi named name (node >= 0: a DaemonSet's pod for that node), with the
 * controller's SuccessfulCreate event, or its FailedCreate. */
static kp_status create_one(kp_sim *s, size_t wi, const kp_workload_info *wi_info, const char *name,
                            kp_index node, kp_error *err) {
    sim_wl *w = &s->wls[wi];
    long like = -1;
    if (!wi_info->has_template)
        for (uint32_t i = 0; i < w->n && like < 0; i++) like = (long)w->pods[i];
    kp_index idx = -1;
    kp_error e2;
    kp_error_clear(&e2);
    int64_t now = s->epoch + s->now / 1000;
    kp_status st =
        node >= 0 ? kp_cluster_create_daemon_pod(s->cl, (kp_index)wi, node, name, now, &idx, &e2)
                  : kp_cluster_create_pod(s->cl, wi_info->has_template ? (kp_index)wi : -1, like,
                                          name, now, &idx, &e2);
    if (st == KP_ENOMEM) return nomem(err);
    if (st != KP_OK) { /* the controller's FailedCreate event; it tries again on its next sync */
        if (kp__sim_log(s, KP_SIM_WARNING, "FailedCreate", wi_info->kind, wi_info->ns,
                        wi_info->name, e2.msg, -1, -1, -1) < 0)
            return nomem(err);
        return KP_OK;
    }
    long replaces = lost_pod(s, &s->wls[wi], node);
    long cause = replaces >= 0 ? s->pods[replaces].lost_ev : -1;
    char msg[600];
    if (strcmp(wi_info->kind, "StatefulSet") == 0)
        snprintf(msg, sizeof msg, "create Pod %s in StatefulSet %s successful", name,
                 wi_info->name);
    else snprintf(msg, sizeof msg, "Created pod: %s", name);
    if (kp__sim_log(s, KP_SIM_NORMAL, "SuccessfulCreate", wi_info->kind, wi_info->ns, wi_info->name,
                    msg, idx, -1, cause) < 0)
        return nomem(err);
    if ((st = kp__sim_pod_added(s, (uint32_t)idx, replaces)) != KP_OK) return nomem(err);
    return KP_OK;
}

/* A controller deletes one of its pods (RealPodControl.DeletePod: SuccessfulDelete "Deleted pod:
 * NAME"); nothing replaces it. A pod already terminal goes at once. */
static kp_status ctrl_delete(kp_sim *s, const kp_workload_info *in, uint32_t pod, kp_error *err) {
    char msg[400];
    snprintf(msg, sizeof msg, "Deleted pod: %s", kp_cluster_pod_name(s->cl, pod));
    long ev = kp__sim_log(s, KP_SIM_NORMAL, "SuccessfulDelete", in->kind, in->ns, in->name, msg,
                          pod, -1, -1);
    if (ev < 0) return nomem(err);
    s->pods[pod].replaced = true;
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    if (pi.terminal) return kp__sim_pod_gone(s, pod, NULL, err);
    return kp__sim_pod_terminating(s, pod, "deleted", ev, err);
}

/* getPodsToDelete's first keys: unassigned before assigned, then the newest first */
static long pick_to_delete(kp_sim *s, const sim_wl *w) {
    long best = -1;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        if (!active(s, q)) continue;
        if (best < 0) {
            best = q;
            continue;
        }
        bool qa = kp_cluster_pod_node(s->cl, q) >= 0, ba = kp_cluster_pod_node(s->cl, best) >= 0;
        if (qa != ba) {
            if (!qa) best = q;
            continue;
        }
        if (q > (uint32_t)best) best = q; /* created later */
    }
    return best;
}

/* mirrors ReplicaSetController.manageReplicas (ReplicaSet, ReplicationController) */
static kp_status sync_replicated(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    sim_wl *w = &s->wls[wi];
    int64_t have = 0;
    for (uint32_t i = 0; i < w->n; i++) have += active(s, w->pods[i]);
    char base[300], name[400];
    snprintf(base, sizeof base, "%s-", in->name);
    for (; have < in->replicas; have++) {
        kp_cluster_generate_pod_name(s->cl, in->ns, base, s->wls[wi].name_seq++, name, sizeof name);
        kp_status st = create_one(s, wi, in, name, -1, err);
        if (st != KP_OK) return st;
    }
    for (; have > in->replicas; have--) {
        long victim = pick_to_delete(s, &s->wls[wi]);
        if (victim < 0) break;
        kp_status st = ctrl_delete(s, in, (uint32_t)victim, err); /* scaled down */
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* The ordinal of a pod named SET-N (getParentNameAndOrdinal: the set's name, "-", a decimal);
 * -1 when the name has no ordinal of this set. */
static int64_t ordinal_of(const char *pod, const char *set) {
    size_t n = strlen(set);
    if (strncmp(pod, set, n) != 0 || pod[n] != '-' || !pod[n + 1]) return -1;
    int64_t v = 0;
    for (const char *c = pod + n + 1; *c; c++) {
        if (*c < '0' || *c > '9' || v > INT32_MAX) return -1;
        v = v * 10 + (*c - '0');
    }
    return v;
}

static kp_status delete_condemned(kp_sim *s, const kp_workload_info *in, uint32_t pod,
                                  kp_error *err) {
    char msg[700];
    snprintf(msg, sizeof msg, "delete Pod %s in StatefulSet %s successful",
             kp_cluster_pod_name(s->cl, pod), in->name);
    long ev = kp__sim_log(s, KP_SIM_NORMAL, "SuccessfulDelete", in->kind, in->ns, in->name, msg,
                          pod, -1, -1);
    if (ev < 0) return nomem(err);
    s->pods[pod].replaced = true; /* scaled down: nothing replaces it */
    return kp__sim_pod_terminating(s, pod, "deleted", ev, err);
}

/* mirrors StatefulSetControl.processCondemned: pods whose ordinal is outside [lo, hi) go,
 * the highest ordinal first. Parallel: all at once. OrderedReady (monotonic): one at a time,
 * only once the one before is gone and while every other pod of the set is running and ready
 * (bound and not terminating, in kprio); the next sync (a pod of the set gone or bound) goes on. */
static kp_status scale_down_statefulset(kp_sim *s, size_t wi, const kp_workload_info *in,
                                        int64_t lo, int64_t hi, kp_error *err) {
    sim_wl *w = &s->wls[wi];
    for (;;) {
        long target = -1;
        int64_t tord = -1;
        bool unhealthy = false, target_unhealthy = false;
        for (uint32_t i = 0; i < w->n; i++) {
            uint32_t q = w->pods[i];
            kp_pod_info pi;
            kp_cluster_pod_info(s->cl, q, &pi);
            int64_t ord = ordinal_of(kp_cluster_pod_name(s->cl, q), in->name);
            if (pi.deleted || pi.terminal || ord < 0) continue;
            bool bad = pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET;
            bool condemned = ord < lo || ord >= hi;
            if (in->parallel_pods && condemned && pi.deletion_ts != KP_TIME_UNSET) continue;
            if (condemned && ord > tord) {
                if (target >= 0) unhealthy |= target_unhealthy;
                target = q, tord = ord, target_unhealthy = bad;
            } else {
                unhealthy |= bad;
            }
        }
        if (target < 0) return KP_OK;
        if (!in->parallel_pods) {
            kp_pod_info pi;
            kp_cluster_pod_info(s->cl, target, &pi);
            if (pi.deletion_ts != KP_TIME_UNSET || unhealthy) return KP_OK; /* wait */
            return delete_condemned(s, in, (uint32_t)target, err);
        }
        kp_status st = delete_condemned(s, in, (uint32_t)target, err);
        if (st != KP_OK) return st;
    }
}

/* mirrors StatefulSetControl.UpdateStatefulSet (processReplica, runForAll) for pods
 * NAME-ORDINAL, ordinals from spec.ordinals.start: a missing ordinal is created once the old pod
 * of that name is gone (a terminating one blocks it); ordinals outside the range go
 * (scale_down_statefulset). OrderedReady (monotonic): the ordinals in increasing order, one at a
 * time: after a creation, or at a pod terminating or not running and ready (kprio: bound), the
 * sync stops; the pod's binding or deletion syncs again. Parallel: every missing ordinal at once.
 */
static kp_status sync_statefulset(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    int64_t lo = in->ordinals_start, hi = lo + in->replicas;
    bool monotonic = !in->parallel_pods;
    for (int64_t ord = lo; ord < hi; ord++) {
        char name[400], ref[800];
        snprintf(name, sizeof name, "%s-%lld", in->name, (long long)ord);
        snprintf(ref, sizeof ref, "%s/%s", in->ns, name);
        kp_index cur = kp_cluster_find_pod(s->cl, ref);
        if (cur >= 0) {
            kp_pod_info pi;
            kp_cluster_pod_info(s->cl, cur, &pi);
            if (!pi.terminal) { /* running, pending or still terminating */
                if (monotonic && (pi.node < 0 || pi.deletion_ts != KP_TIME_UNSET)) return KP_OK;
                continue;
            }
            kp_status st = kp__sim_pod_gone(s, (uint32_t)cur, NULL, err);
            if (st != KP_OK) return st;
        }
        kp_status st = create_one(s, wi, in, name, -1, err);
        if (st != KP_OK || monotonic) return st; /* monotonic: wait for it to be ready */
    }
    return scale_down_statefulset(s, wi, in, lo, hi, err);
}

/* The completion index of an Indexed Job's pod NAME-INDEX-xxxxx (podGenerateNameWithIndex; the
 * completion-index annotation kprio does not read back carries the same), -1 when none. */
static int64_t job_index_of(const char *pod, const char *job) {
    size_t n = strlen(job);
    if (strncmp(pod, job, n) != 0 || pod[n] != '-') return -1;
    int64_t v = 0;
    const char *c = pod + n + 1;
    for (; *c >= '0' && *c <= '9' && v <= INT32_MAX; c++) v = v * 10 + (*c - '0');
    return c > pod + n + 1 && *c == '-' && v <= INT32_MAX ? v : -1;
}

/* What syncJob reads of the Job's pods: active ones, succeeded ones (Indexed: distinct succeeded
 * indexes) and failed ones (isPodFailed: phase Failed, or being or been deleted without having
 * succeeded, podReplacementPolicy TerminatingOrFailed). done[i]: index i succeeded (1) or has an
 * active pod (2). */
typedef struct {
    int64_t active, succeeded, failed;
    uint8_t *done;
    int64_t last_success_ms, last_failure_ms; /* -1 when none */
    int64_t failures_after_success; /* backoffRecord.failuresAfterLastSuccess */
} job_pods;

/* When a pod failed (getFinishedTime: a Failed pod when it ended, a deleted one when its deletion
 * was requested) or succeeded. */
static int64_t finish_ms(const kp_sim_pod *p) {
    if (p->state != KP_SIM_POD_FAILED && p->state != KP_SIM_POD_SUCCEEDED && p->terminating_ms >= 0)
        return p->terminating_ms;
    return p->gone_ms;
}

static void count_job_pods(kp_sim *s, const sim_wl *w, const kp_workload_info *in, job_pods *c) {
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t q = w->pods[i];
        int64_t ix = c->done ? job_index_of(kp_cluster_pod_name(s->cl, q), in->name) : -1;
        if (ix >= in->completions) ix = -1;
        if (kp__sim_pod_state(s, q) == KP_SIM_POD_SUCCEEDED) {
            s->pods[q].replaced = true; /* done: nothing replaces it */
            if (finish_ms(kp__sim_pod_view(s, q)) > c->last_success_ms)
                c->last_success_ms = finish_ms(kp__sim_pod_view(s, q));
            if (!c->done) c->succeeded++;
            else if (ix >= 0 && c->done[ix] != 1) c->succeeded++, c->done[ix] = 1;
            continue;
        }
        if (active(s, q)) {
            c->active++;
            if (ix >= 0 && !c->done[ix]) c->done[ix] = 2;
            continue;
        }
        c->failed++;
    }
    /* newBackoffRecord: the failures after the last success, the latest failure's time */
    for (uint32_t i = 0; i < w->n; i++) {
        const kp_sim_pod *p = kp__sim_pod_view(s, w->pods[i]);
        if (p->state == KP_SIM_POD_SUCCEEDED || active(s, w->pods[i])) continue;
        int64_t t = finish_ms(p);
        if (t <= c->last_success_ms) continue;
        c->failures_after_success++;
        if (t > c->last_failure_ms) c->last_failure_ms = t;
    }
}

/* mirrors backoffRecord.getRemainingTime: 10s (DefaultJobPodFailureBackOff) doubled per failure
 * after the last success, at most 10 min (MaxJobPodFailureBackOff), from the last failure. */
static int64_t job_backoff_left(const kp_sim *s, const job_pods *c) {
    if (c->failures_after_success == 0) return 0;
    int64_t d = 10000;
    for (int64_t i = 1; i < c->failures_after_success && d < 600000; i++) d *= 2;
    if (d > 600000) d = 600000;
    int64_t elapsed = s->now - c->last_failure_ms;
    return d < elapsed ? 0 : d - elapsed;
}

/* The Job failed (pastBackoffLimitOnFailure / exceedsBackoffLimit: more failed pods than
 * spec.backoffLimit): its active pods are deleted (deleteActivePods) and the event Warning
 * BackoffLimitExceeded "Job has reached the specified backoff limit" follows. */
static kp_status fail_job(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    s->wls[wi].done = true;
    for (uint32_t i = 0; i < s->wls[wi].n; i++) {
        uint32_t q = s->wls[wi].pods[i];
        if (!active(s, q)) continue;
        kp_status st = ctrl_delete(s, in, q, err);
        if (st != KP_OK) return st;
    }
    return kp__sim_log(s, KP_SIM_WARNING, "BackoffLimitExceeded", in->kind, in->ns, in->name,
                       "Job has reached the specified backoff limit", -1, -1, -1) < 0
               ? nomem(err)
               : KP_OK;
}

/* mirrors Controller.syncJob / manageJob (pkg/controller/job): `parallelism` active pods
 * (FilterActivePods) while fewer than `completions` pods succeeded (wantActive: completions -
 * succeeded, at most parallelism; without completions, parallelism until a pod succeeded, then
 * none new); complete once `completions` pods succeeded (without completions: one succeeded and
 * none active), with the event Completed "Job completed"; failed once more pods failed than
 * spec.backoffLimit (fail_job). Indexed (indexed_job_utils.go): one pod per completion index,
 * named NAME-INDEX-xxxxx with the completion-index label and annotation, the lowest indexes
 * neither succeeded nor active first (firstPendingIndexes): a failed index is retried under the
 * same index. After failures, new pods wait for the pod failure backoff (job_backoff_left; the
 * Job syncs again when it ends). Pods Succeed through the scenario's lifetimes; without one they
 * run forever. Not modelled: backoffLimitPerIndex, pod failure policies, activeDeadlineSeconds,
 * deleting pods beyond parallelism or of a suspended Job. */
static kp_status sync_job(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    sim_wl *w = &s->wls[wi];
    if (w->done || in->suspend) return KP_OK; /* suspended: no pods (its active ones stay) */
    job_pods c = {0, 0, 0, NULL, -1, -1, 0};
    if (in->indexed && in->completions > 0 && !(c.done = kp_calloc((size_t)in->completions, 1)))
        return nomem(err);
    count_job_pods(s, w, in, &c);
    int64_t have = c.active;
    bool complete =
        in->completions >= 0 ? c.succeeded >= in->completions : c.succeeded > 0 && !have;
    kp_status st = KP_OK;
    if (complete) {
        w->done = true;
        if (kp__sim_log(s, KP_SIM_NORMAL, "Completed", in->kind, in->ns, in->name, "Job completed",
                        -1, -1, -1) < 0)
            st = nomem(err);
    } else if (c.failed > in->backoff_limit) {
        st = fail_job(s, wi, in, err);
    } else {
        int64_t want = in->replicas;
        if (in->completions < 0 && c.succeeded > 0) want = have;
        if (in->completions >= 0 && in->completions - c.succeeded < want)
            want = in->completions - c.succeeded;
        int64_t next = 0, left = have < want ? job_backoff_left(s, &c) : 0;
        if (left > 0 && s->wls[wi].resync_at != s->now + left) { /* enqueueSyncJobWithDelay */
            s->wls[wi].resync_at = s->now + left;
            if (kp__sim_timer_add(s, s->now + left, SIM_EV_WORKLOAD_SYNC, (int64_t)wi, 0) != KP_OK)
                st = nomem(err);
        }
        for (; left == 0 && have < want && st == KP_OK; have++) {
            char base[320], name[400];
            if (c.done) {
                while (next < in->completions && c.done[next]) next++;
                if (next >= in->completions) break;
                c.done[next] = 2;
                snprintf(base, sizeof base, "%s-%lld-", in->name, (long long)next);
            } else {
                snprintf(base, sizeof base, "%s-", in->name);
            }
            kp_cluster_generate_pod_name(s->cl, in->ns, base, s->wls[wi].name_seq++, name,
                                         sizeof name);
            st = create_one(s, wi, in, name, -1, err);
        }
    }
    kp_free(c.done);
    return st;
}

/* The oldest of two running daemon pods (podByCreationTimestampAndPhase: bound first, then the
 * earlier creationTimestamp, then the name). */
static bool daemon_older(kp_sim *s, uint32_t a, uint32_t b) {
    kp_pod_info x, y;
    kp_cluster_pod_info(s->cl, a, &x);
    kp_cluster_pod_info(s->cl, b, &y);
    if ((x.node >= 0) != (y.node >= 0)) return x.node >= 0;
    if (x.creation_ts != y.creation_ts) return x.creation_ts < y.creation_ts;
    return strcmp(x.name, y.name) < 0;
}

/* mirrors DaemonSetsController.podsShouldBeOnNode (no surge) for one node, its pods of the set
 * in pods[0..n): should run and none there: a pod for it; a Failed pod is deleted
 * (FailedDaemonPod, no failedPodsBackoff in kprio) and a Succeeded one too (SucceededDaemonPod),
 * then replaced at the next sync; of several running pods the oldest stays; a pod that should
 * not continue running (an untolerated NoExecute taint, a selector that no longer fits) goes.
 * A terminating pod still counts as there: its replacement waits until it is gone. */
static kp_status daemon_node(kp_sim *s, size_t wi, const kp_workload_info *in, kp_index node,
                             const uint32_t *pods, uint32_t n, kp_error *err) {
    bool run = false, cont = false;
    kp_cluster_daemonset_should_run(s->cl, (kp_index)wi, node, &run, &cont);
    char name[400];
    if (run && n == 0) {
        char base[320];
        snprintf(base, sizeof base, "%s-", in->name);
        kp_cluster_generate_pod_name(s->cl, in->ns, base, s->wls[wi].name_seq++, name, sizeof name);
        return create_one(s, wi, in, name, node, err);
    }
    long keep = -1;
    for (uint32_t i = 0; i < n; i++) {
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, pods[i], &pi);
        if (pi.deletion_ts != KP_TIME_UNSET) continue;
        kp_status st = KP_OK;
        if (!cont) {
            st = ctrl_delete(s, in, pods[i], err);
        } else if (pi.terminal) {
            bool failed = pi.phase == KP_POD_PHASE_FAILED;
            char msg[800];
            snprintf(msg, sizeof msg, "Found %s daemon pod %s/%s on node %s, will try to %s",
                     failed ? "failed" : "succeeded", pi.ns, pi.name,
                     kp_cluster_node_name(s->cl, node), failed ? "kill it" : "delete it");
            if (kp__sim_log(s, failed ? KP_SIM_WARNING : KP_SIM_NORMAL,
                            failed ? "FailedDaemonPod" : "SucceededDaemonPod", in->kind, in->ns,
                            in->name, msg, pods[i], node, s->pods[pods[i]].lost_ev) < 0)
                return nomem(err);
            s->pods[pods[i]].replaced = false; /* its replacement links to it */
            char del[400];
            snprintf(del, sizeof del, "Deleted pod: %s", pi.name);
            if (kp__sim_log(s, KP_SIM_NORMAL, "SuccessfulDelete", in->kind, in->ns, in->name, del,
                            pods[i], -1, -1) < 0)
                return nomem(err);
            st = kp__sim_pod_gone(s, pods[i], NULL, err);
        } else if (keep < 0 || daemon_older(s, pods[i], (uint32_t)keep)) {
            if (keep >= 0) st = ctrl_delete(s, in, (uint32_t)keep, err);
            keep = pods[i];
        } else {
            st = ctrl_delete(s, in, pods[i], err);
        }
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

/* mirrors DaemonSetsController.manage: getNodesToDaemonPods (the set's pods by target node,
 * GetTargetNodeName), podsShouldBeOnNode for every node (daemon_node), and
 * getUnscheduledPodsWithoutNode (a pending pod whose node is gone is deleted). Node added,
 * changed or deleted: kp__sim_mark_daemonsets syncs every set. */
static kp_status sync_daemonset(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    if (!in->has_template) return KP_OK;
    size_t nn = kp_cluster_node_count(s->cl);
    uint32_t nw = s->wls[wi].n;
    /* by node: first[node] -> next[i] chains over the set's pods (indices into list) */
    int64_t *first = kp_malloc((nn + 1) * sizeof *first);
    int64_t *next = kp_malloc(((size_t)nw + 1) * sizeof *next);
    uint32_t *list = kp_malloc(((size_t)nw + 1) * sizeof *list), *on = NULL;
    if (!first || !next || !list || !(on = kp_malloc(((size_t)nw + 1) * sizeof *on))) {
        kp_free(first), kp_free(next), kp_free(list);
        return nomem(err);
    }
    for (size_t k = 0; k < nn; k++) first[k] = -1;
    uint32_t m = 0;
    for (uint32_t i = nw; i-- > 0;) { /* chains in creation order */
        uint32_t q = s->wls[wi].pods[i];
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, q, &pi);
        if (pi.deleted) continue;
        kp_index t = pi.node >= 0 ? pi.node : kp_cluster_pod_target_node(s->cl, q);
        if (t == -2 && pi.deletion_ts == KP_TIME_UNSET) /* getUnscheduledPodsWithoutNode */
            on[m++] = q;
        if (t < 0) continue; /* no target node: GetTargetNodeName's error, skipped */
        list[i] = q;
        next[i] = first[t];
        first[t] = i;
    }
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < m && st == KP_OK; i++) st = ctrl_delete(s, in, on[i], err);
    for (size_t k = 0; k < nn && st == KP_OK; k++) {
        if (kp_cluster_node_deleted(s->cl, (kp_index)k)) continue;
        uint32_t n = 0;
        for (int64_t i = first[k]; i >= 0; i = next[i]) on[n++] = list[i];
        st = daemon_node(s, wi, in, (kp_index)k, on, n, err);
    }
    kp_free(first), kp_free(next), kp_free(list), kp_free(on);
    return st;
}

/* A Deployment without a ReplicaSet (created by the scenario, or one the snapshot lacks): the
 * deployment controller makes its new ReplicaSet (getNewReplicaSet, kp_cluster_deployment_new_-
 * replicaset) and logs ScalingReplicaSet "Scaled up replica set NAME from 0 to N"; the
 * ReplicaSet's controller then creates the pods. A Deployment with one scales through it (the
 * scenario's scale). */
static kp_status sync_deployment(kp_sim *s, size_t wi, const kp_workload_info *in, kp_error *err) {
    if (!in->has_template || kp__sim_deployment_rs(s, in) >= 0) return KP_OK;
    kp_index rs = -1;
    kp_status st = kp_cluster_deployment_new_replicaset(s->cl, (kp_index)wi, &rs, err);
    if (st != KP_OK) return st;
    kp_workload_info ri;
    if (kp__sim_grow_workloads(s) != KP_OK || kp_cluster_workload_info(s->cl, rs, &ri) != KP_OK)
        return nomem(err);
    char msg[600];
    snprintf(msg, sizeof msg, "Scaled up replica set %s from 0 to %d", ri.name, ri.replicas);
    if (kp__sim_log(s, KP_SIM_NORMAL, "ScalingReplicaSet", "Deployment", in->ns, in->name, msg, -1,
                    -1, -1) < 0)
        return nomem(err);
    kp__sim_mark_workload(s, rs);
    return KP_OK;
}

void kp__sim_mark_daemonsets(kp_sim *s) {
    for (size_t wi = 0; wi < s->n_wls; wi++) {
        kp_workload_info in;
        if (kp_cluster_workload_info(s->cl, (kp_index)wi, &in) == KP_OK &&
            strcmp(in.kind, "DaemonSet") == 0)
            kp__sim_mark_workload(s, (int64_t)wi);
    }
}

kp_status kp__sim_sync_controllers(kp_sim *s, kp_error *err) {
    while (s->any_dirty) {
        s->any_dirty = false;
        for (size_t wi = 0; wi < s->n_wls; wi++) {
            if (!s->wls[wi].dirty) continue;
            s->wls[wi].dirty = false;
            if (s->wls[wi].deleted) continue;
            kp_workload_info in;
            if (kp_cluster_workload_info(s->cl, (kp_index)wi, &in) != KP_OK) continue;
            kp_status st = KP_OK;
            if (strcmp(in.kind, "ReplicaSet") == 0 || strcmp(in.kind, "ReplicationController") == 0)
                st = sync_replicated(s, wi, &in, err);
            else if (strcmp(in.kind, "StatefulSet") == 0) st = sync_statefulset(s, wi, &in, err);
            else if (strcmp(in.kind, "Job") == 0) st = sync_job(s, wi, &in, err);
            else if (strcmp(in.kind, "DaemonSet") == 0) st = sync_daemonset(s, wi, &in, err);
            else if (strcmp(in.kind, "Deployment") == 0) st = sync_deployment(s, wi, &in, err);
            if (st != KP_OK) return st;
        }
    }
    return KP_OK;
}
