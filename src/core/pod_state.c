/* Pod state changes (include/kprio/cluster.h, "Pod state changes"; internal face
 * core/pod_state.h): the one writer of each piece of a pod's state after finalize. Binding
 * (spec.nodeName, the node's aggregates), nomination (status.nominatedNodeName), a deletion
 * request (deletionTimestamp, the DisruptionTarget condition), the kubelet's status (phase
 * Running and startTime; the Ready and ContainersReady conditions; a terminal phase with
 * reason, message and condition) and the final delete. The scheduler's binding and preemption, the
 * kubelets and the controllers call these; nothing else writes those kp_pod fields (io's decoders
 * and core's construction set them once, before finalize or at a pod's creation).
 *
 * The change log (core/cluster.h) is how the schedulers over the cluster catch up: a pod deleted,
 * marked terminating or finished is appended to cl->changed_log; a pod bound or nominated by
 * a caller other than the scheduler moves cl->gen_struct (schedulers rebuild, reading every
 * pod's node and nomination again). */
#include "core/pod_state.h"

#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "kprio/cluster.h"

static bool pod_ok(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods;
}

static kp_status bad_index(kp_error *err, const char *what, kp_index i) {
    return kp_error_set(err, KP_EINVAL, "%s index %ld is out of range", what, (long)i);
}

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static kp_status nomem(kp_cluster *cl, const kp_pod *p, const char *doing, kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory %s", kp__s(cl, p->ns),
                        kp__s(cl, p->name), doing);
}

/* Logs a change a scheduler must catch up with (cl->changed_log): the pod was deleted, began
 * terminating or finished. KP_ENOMEM naming the change (nothing changed then). */
static kp_status log_change(kp_cluster *cl, const kp_pod *p, uint32_t pod, const char *doing,
                            kp_error *err) {
    if (!kp__grow32((void **)&cl->changed_log, &cl->cap_changed_log, (size_t)cl->n_changed_log + 1,
                    sizeof *cl->changed_log, 64))
        return nomem(cl, p, doing, err);
    cl->changed_log[cl->n_changed_log++] = pod;
    return KP_OK;
}

/* The pod keeps only its DisruptionTarget condition (core/pod.h): replaced, or added
 * (podutil.UpdatePodCondition), status True; a new array, the old one may be shared. */
static kp_status set_disruption(kp_cluster *cl, kp_pod *p, const char *reason, const char *message,
                                const char *doing, kp_error *err) {
    kp_str type = intern(cl, "DisruptionTarget"), yes = intern(cl, "True"),
           why = intern(cl, reason), msg = message ? intern(cl, message) : 0;
    uint16_t n = p->n_conditions, at = n;
    for (uint16_t i = 0; i < n && at == n; i++)
        if (p->conditions[i].type == type) at = i;
    kp_condition *c = kp__arena_alloc(&cl->arena, ((size_t)n + (at == n ? 1 : 0)) * sizeof *c);
    if (type == UINT32_MAX || yes == UINT32_MAX || why == UINT32_MAX || msg == UINT32_MAX || !c)
        return nomem(cl, p, doing, err);
    if (n) memcpy(c, p->conditions, n * sizeof *c);
    c[at] = (kp_condition){type, yes, why, msg};
    p->conditions = c;
    p->n_conditions = (uint16_t)(n + (at == n ? 1 : 0));
    return KP_OK;
}

/* ---- bind, nominate ---- */

kp_status kp__pod_bind(kp_cluster *cl, uint32_t pod, uint32_t node) {
    kp_status st = kp__node_add_pod(cl, node, pod);
    if (st != KP_OK) return st;
    cl->pods[pod].node_name = cl->nodes[node].name;
    return KP_OK;
}

/* The checks both calls make: a live pod (not deleted, not ended) and a live node (or none). */
static kp_status pod_node_check(const kp_cluster *cl, kp_index pod, kp_index node, bool none_ok,
                                kp_error *err) {
    if (!pod_ok(cl, pod)) return bad_index(err, "pod", pod);
    if (node < 0 && none_ok) node = -1;
    else if (node < 0 || (size_t)node >= cl->n_nodes) return bad_index(err, "node", node);
    const kp_pod *p = &cl->pods[pod];
    if (p->deleted || kp__pod_is_terminal(p))
        return kp_error_set(err, KP_EINVAL, "Pod %s/%s: it %s", kp__s(cl, p->ns),
                            kp__s(cl, p->name), p->deleted ? "was deleted" : "has ended");
    if (node >= 0 && cl->nodes[node].deleted)
        return kp_error_set(err, KP_EINVAL, "Node %s: it was deleted",
                            kp__s(cl, cl->nodes[node].name));
    return KP_OK;
}

kp_status kp_cluster_bind_pod(kp_cluster *cl, kp_index pod, kp_index node, kp_error *err) {
    kp_status st = pod_node_check(cl, pod, node, false, err);
    if (st != KP_OK) return st;
    kp_pod *p = &cl->pods[pod];
    if (p->node == node) return KP_OK;
    if (p->node >= 0) /* the binding subresource's conflict (assignPod) */
        return kp_error_set(err, KP_EINVAL,
                            "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is "
                            "already assigned to node \"%s\"",
                            kp__s(cl, p->name), kp__s(cl, p->name),
                            kp__s(cl, cl->nodes[p->node].name));
    st = kp__pod_bind(cl, (uint32_t)pod, (uint32_t)node);
    if (st == KP_ERANGE)
        return kp_error_set(err, KP_ERANGE,
                            "Pod %s/%s: binding it to node %s: the node's requested resources "
                            "would not fit in int64",
                            kp__s(cl, p->ns), kp__s(cl, p->name), kp__s(cl, cl->nodes[node].name));
    if (st != KP_OK) return nomem(cl, p, "binding it", err);
    cl->gen_struct++; /* schedulers rebuild: their caches of pods per node */
    return KP_OK;
}

kp_status kp_cluster_nominate_pod(kp_cluster *cl, kp_index pod, kp_index node, kp_error *err) {
    kp_status st = pod_node_check(cl, pod, node, true, err);
    if (st != KP_OK) return st;
    kp_str before = cl->pods[pod].nominated_node;
    kp__pod_nominate(cl, (uint32_t)pod, node < 0 ? -1 : (int32_t)node);
    if (cl->pods[pod].nominated_node != before) cl->gen_struct++; /* schedulers' nominators */
    return KP_OK;
}

/* ---- deletion: mark terminating, delete ---- */

kp_status kp__pod_mark_terminating(kp_cluster *cl, uint32_t pod, int64_t now, const char *reason,
                                   const char *message, kp_error *err) {
    kp_pod *p = &cl->pods[pod];
    if (p->deleted || p->deletion_ts != KP_TIME_NONE) return KP_OK;
    kp_status st = log_change(cl, p, pod, "marking it terminating", err);
    if (st != KP_OK) return st;
    if (reason &&
        (st = set_disruption(cl, p, reason, message, "marking it terminating", err)) != KP_OK)
        return st;
    p->deletion_ts = now;
    return KP_OK;
}

kp_status kp_cluster_mark_terminating(kp_cluster *cl, kp_index pod, int64_t now, const char *reason,
                                      kp_error *err) {
    return kp_cluster_mark_terminating_disrupted(cl, pod, now, reason, NULL, err);
}

kp_status kp_cluster_mark_terminating_disrupted(kp_cluster *cl, kp_index pod, int64_t now,
                                                const char *reason, const char *message,
                                                kp_error *err) {
    if (!pod_ok(cl, pod)) return bad_index(err, "pod", pod);
    return kp__pod_mark_terminating(cl, (uint32_t)pod, now, reason, message, err);
}

kp_status kp_cluster_delete_pod(kp_cluster *cl, kp_index pod, kp_error *err) {
    if (!pod_ok(cl, pod)) return bad_index(err, "pod", pod);
    kp_pod *p = &cl->pods[pod];
    if (p->deleted) return KP_OK;
    kp_status st = log_change(cl, p, (uint32_t)pod, "deleting it", err);
    if (st != KP_OK) return st;
    kp__node_remove_pod(cl, (uint32_t)pod); /* no-op when it is on no node */
    p->node = -1;
    p->nominated_node = 0;
    p->deleted = true; /* kp_cluster_find_pod skips it; a new pod of its name is a new index */
    return KP_OK;
}

/* ---- the kubelet's status: running, finished ---- */

/* Preemption orders victims of equal priority by start time (MoreImportantPod), so a simulated
 * pod carries one once it runs (the kubelet's status manager writes it when the sandbox is up). */
kp_status kp_cluster_pod_set_running(kp_cluster *cl, kp_index pod, int64_t now, kp_error *err) {
    if (!pod_ok(cl, pod) || cl->pods[pod].node < 0)
        return kp_error_set(err, KP_EINVAL, "pod index %ld is not bound to a node", pod);
    kp_pod *p = &cl->pods[pod];
    p->phase = KP_PHASE_RUNNING;
    if (p->start_time == KP_TIME_NONE) p->start_time = now;
    return KP_OK;
}

kp_status kp_cluster_finish_pod(kp_cluster *cl, kp_index pod, kp_pod_phase phase,
                                const char *reason, const char *message, kp_error *err) {
    return kp_cluster_finish_pod_disrupted(cl, pod, phase, reason, message, NULL, NULL, err);
}

kp_status kp_cluster_finish_pod_disrupted(kp_cluster *cl, kp_index pod, kp_pod_phase phase,
                                          const char *reason, const char *message,
                                          const char *condition_reason,
                                          const char *condition_message, kp_error *err) {
    if (!pod_ok(cl, pod)) return bad_index(err, "pod", pod);
    if (phase != KP_POD_PHASE_SUCCEEDED && phase != KP_POD_PHASE_FAILED)
        return kp_error_set(err, KP_EINVAL, "Pod %s/%s: a pod ends in phase Succeeded or Failed",
                            kp_cluster_pod_namespace(cl, pod), kp_cluster_pod_name(cl, pod));
    kp_pod *p = &cl->pods[pod];
    if (p->deleted || kp__pod_is_terminal(p)) return KP_OK; /* a terminal phase is final */
    kp_status st = log_change(cl, p, (uint32_t)pod, "finishing it", err);
    if (st != KP_OK) return st;
    kp_str r = reason ? intern(cl, reason) : p->status_reason;
    kp_str m = message ? intern(cl, message) : p->status_message;
    if (r == UINT32_MAX || m == UINT32_MAX) return nomem(cl, p, "finishing it", err);
    if (condition_reason && (st = set_disruption(cl, p, condition_reason, condition_message,
                                                 "finishing it", err)) != KP_OK)
        return st;
    kp__node_remove_pod(cl, (uint32_t)pod); /* terminal pods hold no resources */
    p->node = -1;
    p->nominated_node = 0;
    p->phase = (uint8_t)(phase == KP_POD_PHASE_SUCCEEDED ? KP_PHASE_SUCCEEDED : KP_PHASE_FAILED);
    p->status_reason = r;
    p->status_message = m;
    return KP_OK;
}

/* ---- the API server's create ---- */

/* A create through the API keeps the object's spec and metadata but not what the server owns:
 * BeforeCreate clears deletionTimestamp and sets creationTimestamp; PrepareForCreate replaces the
 * status with phase Pending. status.qosClass (PrepareForCreate sets it too) is left to finalize,
 * which computes the class from the spec when the status has none. */
void kp__pod_prepare_create(kp_pod *p, int64_t now) {
    p->creation_ts = now;
    p->deletion_ts = p->start_time = p->ready_ts = KP_TIME_NONE;
    p->has_ready_cond = p->ready = false; /* not Ready until its kubelet says so */
    p->phase = KP_PHASE_PENDING;
    p->nominated_node = p->status_qos = p->status_reason = p->status_message = 0;
    p->conditions = NULL;
    p->n_conditions = 0;
    p->resize = NULL;
}

/* ---- readiness: the Ready and ContainersReady conditions ---- */

/* The kubelet's status manager writes both conditions together (generatePodReadyCondition,
 * generateContainersReadyCondition: kprio models no readiness gates, so they agree); the
 * lastTransitionTime moves only when the status changes (podutil.UpdatePodCondition). */
kp_status kp_cluster_pod_set_ready(kp_cluster *cl, kp_index pod, bool ready, int64_t now,
                                   kp_error *err) {
    if (!pod_ok(cl, pod)) return bad_index(err, "pod", pod);
    kp_pod *p = &cl->pods[pod];
    if (ready && (p->deleted || kp__pod_is_terminal(p) || p->node < 0))
        return kp_error_set(err, KP_EINVAL, "Pod %s/%s: only a pod running on a node can be Ready",
                            kp__s(cl, p->ns), kp__s(cl, p->name));
    if (!p->has_ready_cond || p->ready != ready) p->ready_ts = now;
    p->ready = ready;
    p->has_ready_cond = true;
    return KP_OK;
}

bool kp_cluster_pod_ready(const kp_cluster *cl, kp_index pod) {
    return pod_ok(cl, pod) && kp__pod_ready(&cl->pods[pod]);
}

bool kp_cluster_pod_available(const kp_cluster *cl, kp_index pod, int32_t min_ready_seconds,
                              int64_t now) {
    return pod_ok(cl, pod) && kp__pod_available(&cl->pods[pod], min_ready_seconds, now);
}

int64_t kp_cluster_pod_ready_time(const kp_cluster *cl, kp_index pod) {
    if (!pod_ok(cl, pod) || !cl->pods[pod].ready || cl->pods[pod].ready_ts == KP_TIME_NONE)
        return KP_TIME_UNSET;
    return cl->pods[pod].ready_ts;
}

int64_t kp_cluster_pod_probe_delay(const kp_cluster *cl, kp_index pod) {
    return pod_ok(cl, pod) ? cl->pods[pod].probe_delay : 0;
}
