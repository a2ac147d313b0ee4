/* The simulator's view of a finalized cluster and the explicit changes it makes
 * (include/kprio/cluster.h, "The simulator's view"): pod, node, workload and PriorityClass
 * queries; cordon, taints and node deletion; scale; a class's value. A pod's own state (bind,
 * nominate, mark terminating, finish, delete) is core/pod_state.c, creating pods
 * core/cluster_create.c, PDBs core/pdb_status.c; the controllers that use these calls are
 * src/ctrl/.
 *
 * Every change that rebuilds a scheduler's node order and indexes (a node changed or deleted, a
 * workload's selector added or gone) moves cl->gen_struct (core/cluster.h). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/priority_class.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "kprio/cluster.h"

static bool pod_ok(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods;
}
static bool node_ok(const kp_cluster *cl, kp_index node) {
    return node >= 0 && (size_t)node < cl->n_nodes;
}

static kp_status bad_index(kp_error *err, const char *what, kp_index i) {
    return kp_error_set(err, KP_EINVAL, "%s index %ld is out of range", what, (long)i);
}

/* The pod's controller ownerReference (metav1.GetControllerOf), or NULL. */
static const kp_owner_ref *controller_of(const kp_pod *p) {
    for (uint16_t i = 0; i < p->n_owners; i++)
        if (p->owners[i].controller) return &p->owners[i];
    return NULL;
}

/* ---- pods ---- */

/* metav1.LabelSelectorAsSelector + Matches over the labels l */
static bool labels_match(const kp_cluster *cl, const kp_labels *l, const kp_selector_req *reqs,
                         size_t n) {
    for (size_t i = 0; i < n; i++) {
        const kp_selector_req *r = &reqs[i];
        kp_selreq q = {0};
        if (strcmp(r->op, "In") == 0) q.op = KP_OP_IN;
        else if (strcmp(r->op, "NotIn") == 0) q.op = KP_OP_NOTIN;
        else if (strcmp(r->op, "Exists") == 0) q.op = KP_OP_EXISTS;
        else if (strcmp(r->op, "DoesNotExist") == 0) q.op = KP_OP_DOESNOTEXIST;
        else return false; /* an unknown operator never matches */
        bool set_op = q.op == KP_OP_IN || q.op == KP_OP_NOTIN;
        /* LabelSelectorAsSelector rejects In / NotIn without values and Exists / DoesNotExist
         * with values: such a selector selects nothing */
        if (set_op != (r->n_values > 0)) return false;
        q.key = kp__intern_find(&cl->strs, r->key, strlen(r->key));
        if (q.key == UINT32_MAX) { /* a key no object has: no pod carries the label */
            if (q.op == KP_OP_IN || q.op == KP_OP_EXISTS) return false;
            continue;
        }
        if (!set_op) {
            if (!kp__selreq_matches(cl, &q, l)) return false;
            continue;
        }
        /* one value at a time, so the rule stays kp__selreq_matches': In holds when one value
         * does, NotIn when every value does; a value no object has equals no label */
        bool any = false, all = true;
        for (size_t k = 0; k < r->n_values; k++) {
            kp_str v = kp__intern_find(&cl->strs, r->values[k], strlen(r->values[k]));
            if (v == UINT32_MAX) continue;
            q.values = &v;
            q.n_values = 1;
            bool m = kp__selreq_matches(cl, &q, l);
            any = any || m;
            all = all && m;
        }
        if (q.op == KP_OP_IN ? !any : !all) return false;
    }
    return true;
}

/* The same rule for a pod template's labels (core/priority_layout.h). */
bool kp__cluster_labels_match(const kp_cluster *cl, const kp_labels *l, const kp_selector_req *reqs,
                              size_t n) {
    return labels_match(cl, l, reqs, n);
}

bool kp_cluster_pod_matches(const kp_cluster *cl, kp_index pod, const kp_selector_req *reqs,
                            size_t n) {
    return pod_ok(cl, pod) && labels_match(cl, &cl->pods[pod].labels, reqs, n);
}

bool kp_cluster_node_matches(const kp_cluster *cl, kp_index node, const kp_selector_req *reqs,
                             size_t n) {
    return node_ok(cl, node) && labels_match(cl, &cl->nodes[node].labels, reqs, n);
}

kp_status kp_cluster_pod_info(const kp_cluster *cl, kp_index pod, kp_pod_info *out) {
    if (!pod_ok(cl, pod)) return KP_EINVAL;
    const kp_pod *p = &cl->pods[pod];
    const kp_owner_ref *o = controller_of(p);
    *out = (kp_pod_info){
        .ns = kp__s(cl, p->ns),
        .name = kp__s(cl, p->name),
        .uid = kp__s(cl, p->uid),
        .scheduler_name = kp__s(cl, p->scheduler_name),
        .priority_class = kp__s(cl, p->priority_class),
        .nominated_node = kp__s(cl, p->nominated_node),
        .owner_kind = o ? kp__s(cl, o->kind) : "",
        .owner_name = o ? kp__s(cl, o->name) : "",
        .priority = p->priority,
        .node = p->node,
        .phase = (kp_pod_phase)p->phase,
        .creation_ts = p->creation_ts,
        .deletion_ts = p->deletion_ts,
        .grace_seconds = p->termination_grace,
        .terminal = kp__pod_is_terminal(p),
        .deleted = p->deleted,
        .gated = p->gates != 0,
        .is_static = p->is_static,
        .is_mirror = p->is_mirror,
        .is_critical = p->is_critical,
        .ready = kp__pod_ready(p),
        .start_time = p->start_time,
    };
    return KP_OK;
}

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

/* ---- nodes ---- */

static kp_status node_check(const kp_cluster *cl, kp_index node, kp_error *err) {
    if (!node_ok(cl, node)) return bad_index(err, "node", node);
    if (cl->nodes[node].deleted)
        return kp_error_set(err, KP_EINVAL, "Node %s: it was deleted",
                            kp__s(cl, cl->nodes[node].name));
    return KP_OK;
}

kp_status kp_cluster_node_set_unschedulable(kp_cluster *cl, kp_index node, bool unschedulable,
                                            kp_error *err) {
    kp_status st = node_check(cl, node, err);
    if (st != KP_OK) return st;
    if (cl->nodes[node].unschedulable != unschedulable) {
        cl->nodes[node].unschedulable = unschedulable;
        cl->gen_struct++;
        cl->gen_nodes++;
    }
    return KP_OK;
}

bool kp_cluster_node_unschedulable(const kp_cluster *cl, kp_index node) {
    return node_ok(cl, node) && cl->nodes[node].unschedulable;
}

void kp_cluster_node_memory(const kp_cluster *cl, kp_index node, int64_t *capacity,
                            int64_t *allocatable) {
    *capacity = *allocatable = 0;
    if (node < 0 || (size_t)node >= cl->n_nodes) return;
    const kp_node *n = &cl->nodes[node];
    *allocatable = n->alloc[KP_RES_MEM];
    *capacity = n->cap[KP_RES_MEM] > 0 ? n->cap[KP_RES_MEM] : n->alloc[KP_RES_MEM];
}

int64_t kp_cluster_pod_memory_request(const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return 0;
    return kp__pod_resource_request(cl, &cl->pods[pod], KP_RES_MEM);
}

size_t kp_cluster_pod_container_count(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods ? cl->pods[pod].n_containers : 0;
}

static const kp_container *app_container(const kp_cluster *cl, kp_index pod, size_t i) {
    if (pod < 0 || (size_t)pod >= cl->n_pods || i >= cl->pods[pod].n_containers) return NULL;
    return &cl->pods[pod].containers[i];
}

const char *kp_cluster_pod_container_name(const kp_cluster *cl, kp_index pod, size_t i) {
    const kp_container *c = app_container(cl, pod, i);
    return c ? kp__s(cl, c->name) : "";
}

int64_t kp_cluster_pod_container_memory_request(const kp_cluster *cl, kp_index pod, size_t i) {
    const kp_container *c = app_container(cl, pod, i);
    return c ? kp__resv_get(&c->req, KP_RES_MEM) : 0;
}

void kp_cluster_node_ephemeral_storage(const kp_cluster *cl, kp_index node, int64_t *capacity,
                                       int64_t *allocatable) {
    *capacity = *allocatable = 0;
    if (node < 0 || (size_t)node >= cl->n_nodes) return;
    const kp_node *n = &cl->nodes[node];
    *allocatable = n->alloc[KP_RES_EPH];
    *capacity = n->cap[KP_RES_EPH] > 0 ? n->cap[KP_RES_EPH] : n->alloc[KP_RES_EPH];
}

int64_t kp_cluster_pod_container_memory_limit(const kp_cluster *cl, kp_index pod, size_t i) {
    const kp_container *c = app_container(cl, pod, i);
    return c ? kp__resv_get(&c->lim, KP_RES_MEM) : 0;
}

static const kp_volume *disk_empty_dir(const kp_cluster *cl, kp_index pod, size_t i) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return NULL;
    const kp_pod *p = &cl->pods[pod];
    for (uint16_t v = 0; v < p->n_volumes; v++) {
        const kp_volume *vol = &p->volumes[v];
        if (!vol->is_empty_dir || vol->memory_medium || vol->hugepages_medium) continue;
        if (i-- == 0) return vol;
    }
    return NULL;
}

size_t kp_cluster_pod_empty_dir_count(const kp_cluster *cl, kp_index pod) {
    size_t n = 0;
    while (disk_empty_dir(cl, pod, n)) n++;
    return n;
}

const char *kp_cluster_pod_empty_dir_name(const kp_cluster *cl, kp_index pod, size_t i) {
    const kp_volume *v = disk_empty_dir(cl, pod, i);
    return v ? kp__s(cl, v->name) : "";
}

bool kp_cluster_pod_has_empty_dir(const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return false;
    const kp_pod *p = &cl->pods[pod];
    for (uint16_t v = 0; v < p->n_volumes; v++)
        if (p->volumes[v].is_empty_dir) return true;
    return false;
}

static bool parse_effect(const char *s, kp_effect *out) {
    static const char *const names[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
    static const kp_effect effects[] = {KP_EFFECT_NOSCHEDULE, KP_EFFECT_PREFERNOSCHEDULE,
                                        KP_EFFECT_NOEXECUTE};
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *out = effects[i];
            return true;
        }
    return false;
}

/* mirrors reorganizeTaints (kubectl taint): a taint with the key and effect of an existing one
 * replaces it (kubectl asks for --overwrite first); otherwise it is appended. */
kp_status kp_cluster_node_taint(kp_cluster *cl, kp_index node, const char *key, const char *value,
                                const char *effect, kp_error *err) {
    kp_status st = node_check(cl, node, err);
    if (st != KP_OK) return st;
    kp_node *n = &cl->nodes[node];
    kp_effect e;
    if (!key || !key[0])
        return kp_error_set(err, KP_EINVAL, "Node %s: spec.taints: key: Required value",
                            kp__s(cl, n->name));
    if (!parse_effect(effect, &e))
        return kp_error_set(err, KP_EINVAL,
                            "Node %s: spec.taints: effect: Unsupported value: \"%s\": supported "
                            "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                            kp__s(cl, n->name), effect ? effect : "");
    kp_str k = intern(cl, key), v = intern(cl, value ? value : "");
    uint16_t at = n->n_taints;
    for (uint16_t i = 0; i < n->n_taints && at == n->n_taints; i++)
        if (n->taints[i].key == k && n->taints[i].effect == e) at = i;
    if (at == UINT16_MAX)
        return kp_error_set(err, KP_ELIMIT, "Node %s: spec.taints: more than %u taints",
                            kp__s(cl, n->name), (unsigned)UINT16_MAX);
    size_t cnt = (size_t)n->n_taints + (at == n->n_taints ? 1 : 0);
    kp_taint *t = kp__arena_alloc(&cl->arena, cnt * sizeof *t);
    if (k == UINT32_MAX || v == UINT32_MAX || !t)
        return kp_error_set(err, KP_ENOMEM, "Node %s: out of memory adding a taint",
                            kp__s(cl, n->name));
    if (n->n_taints) memcpy(t, n->taints, n->n_taints * sizeof *t);
    t[at] = (kp_taint){k, v, e, 0};
    n->taints = t; /* a new array: the old one may be shared */
    n->n_taints = (uint16_t)cnt;
    cl->gen_struct++;
    cl->gen_nodes++;
    return KP_OK;
}

bool kp_cluster_node_has_taint(const kp_cluster *cl, kp_index node, const char *key,
                               const char *effect, int64_t *time_added) {
    if (time_added) *time_added = 0;
    kp_effect e;
    if (!node_ok(cl, node) || !key || !parse_effect(effect, &e)) return false;
    const kp_node *n = &cl->nodes[node];
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key));
    for (uint16_t i = 0; i < n->n_taints; i++)
        if (n->taints[i].key == k && n->taints[i].effect == e) {
            if (time_added) *time_added = n->taints[i].time_added;
            return true;
        }
    return false;
}

const char *kp_cluster_node_condition(const kp_cluster *cl, kp_index node, const char *type) {
    if (!node_ok(cl, node) || !type) return "";
    const kp_node *n = &cl->nodes[node];
    kp_str t = kp__intern_find(&cl->strs, type, strlen(type));
    for (uint16_t i = 0; i < n->n_conditions; i++)
        if (n->conditions[i].type == t) return kp__s(cl, n->conditions[i].status);
    return "";
}

/* Replaced in place of the same type, or appended; a new array (the old one may be shared) */
kp_status kp_cluster_node_set_condition(kp_cluster *cl, kp_index node, const char *type,
                                        const char *status, const char *reason, const char *message,
                                        kp_error *err) {
    kp_status st = node_check(cl, node, err);
    if (st != KP_OK) return st;
    kp_node *n = &cl->nodes[node];
    kp_str t = intern(cl, type), s = intern(cl, status), r = intern(cl, reason ? reason : ""),
           m = intern(cl, message ? message : "");
    uint16_t cnt = n->n_conditions, at = cnt;
    for (uint16_t i = 0; i < cnt && at == cnt; i++)
        if (n->conditions[i].type == t) at = i;
    if (at == UINT16_MAX)
        return kp_error_set(err, KP_ELIMIT, "Node %s: status.conditions: more than %u",
                            kp__s(cl, n->name), (unsigned)UINT16_MAX);
    size_t total = (size_t)cnt + (at == cnt ? 1 : 0);
    kp_condition *c = kp__arena_alloc(&cl->arena, total * sizeof *c);
    if (t == UINT32_MAX || s == UINT32_MAX || r == UINT32_MAX || m == UINT32_MAX || !c)
        return kp_error_set(err, KP_ENOMEM, "Node %s: out of memory setting a condition",
                            kp__s(cl, n->name));
    if (cnt) memcpy(c, n->conditions, cnt * sizeof *c);
    c[at] = (kp_condition){t, s, r, m};
    n->conditions = c;
    n->n_conditions = (uint16_t)total;
    return KP_OK;
}

kp_status kp_cluster_node_untaint(kp_cluster *cl, kp_index node, const char *key,
                                  const char *effect, size_t *removed, kp_error *err) {
    if (removed) *removed = 0;
    kp_status st = node_check(cl, node, err);
    if (st != KP_OK) return st;
    kp_node *n = &cl->nodes[node];
    kp_effect e = KP_EFFECT_NONE;
    if (effect && effect[0] && !parse_effect(effect, &e))
        return kp_error_set(err, KP_EINVAL,
                            "Node %s: spec.taints: effect: Unsupported value: \"%s\": supported "
                            "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                            kp__s(cl, n->name), effect);
    kp_str k = kp__intern_find(&cl->strs, key ? key : "", key ? strlen(key) : 0);
    size_t gone = 0;
    for (uint16_t i = 0; i < n->n_taints; i++)
        if (n->taints[i].key == k && (e == KP_EFFECT_NONE || n->taints[i].effect == e)) gone++;
    if (!gone) return KP_OK;
    kp_taint *t = NULL;
    size_t keep = n->n_taints - gone, j = 0;
    if (keep && !(t = kp__arena_alloc(&cl->arena, keep * sizeof *t)))
        return kp_error_set(err, KP_ENOMEM, "Node %s: out of memory removing a taint",
                            kp__s(cl, n->name));
    for (uint16_t i = 0; i < n->n_taints; i++)
        if (!(n->taints[i].key == k && (e == KP_EFFECT_NONE || n->taints[i].effect == e)))
            t[j++] = n->taints[i];
    n->taints = t;
    n->n_taints = (uint16_t)keep;
    if (removed) *removed = gone;
    cl->gen_struct++;
    cl->gen_nodes++;
    return KP_OK;
}

kp_status kp_cluster_delete_node(kp_cluster *cl, kp_index node, kp_error *err) {
    if (!node_ok(cl, node)) return bad_index(err, "node", node);
    if (cl->nodes[node].deleted) return KP_OK;
    cl->nodes[node].deleted = true; /* kp_cluster_find_node skips it */
    /* its name is free: a node of that name can be created again (a new index) */
    kp__cluster_forget_identity(cl, "Node", 0, cl->nodes[node].name);
    cl->n_nodes_deleted++;
    cl->gen_struct++;
    cl->gen_nodes++;
    return KP_OK;
}

bool kp_cluster_node_deleted(const kp_cluster *cl, kp_index node) {
    return node_ok(cl, node) && cl->nodes[node].deleted;
}

size_t kp_cluster_node_pod_count(const kp_cluster *cl, kp_index node) {
    return node_ok(cl, node) ? cl->nodes[node].n_pods : 0;
}

kp_index kp_cluster_node_pod(const kp_cluster *cl, kp_index node, size_t i) {
    if (!node_ok(cl, node) || i >= cl->nodes[node].n_pods) return -1;
    return cl->nodes[node].pods[i];
}

/* ---- workloads ---- */

size_t kp_cluster_workload_count(const kp_cluster *cl) { return cl->n_workloads; }

kp_status kp_cluster_workload_info(const kp_cluster *cl, kp_index workload, kp_workload_info *out) {
    if (workload < 0 || (size_t)workload >= cl->n_workloads) return KP_EINVAL;
    const kp_workload *w = &cl->workloads[workload];
    bool job = w->kind == KP_WL_JOB || w->kind == KP_WL_CRONJOB;
    *out = (kp_workload_info){
        .kind = kp__workload_kind_name(w->kind),
        .ns = kp__s(cl, w->ns),
        .name = kp__s(cl, w->name),
        .uid = kp__s(cl, w->uid),
        .owner_kind = kp__s(cl, w->owner_kind),
        .owner_name = kp__s(cl, w->owner_name),
        .replicas = job ? w->job.parallelism : w->replicas,
        .completions = job && w->job.has_completions ? w->job.completions : -1,
        .has_template = w->template != NULL,
        .ordinals_start = w->ordinals_start,
        .min_ready_seconds = w->min_ready_seconds,
        .parallel_pods = w->parallel_pods,
        .suspend = w->kind == KP_WL_JOB ? w->job.suspend : w->kind == KP_WL_CRONJOB && w->suspend,
        .indexed = job && w->job.indexed,
        .backoff_limit = job ? w->job.backoff_limit : 0,
        .deleted = w->deleted,
        .revision = w->dstatus.revision,
        .progressing_reason =
            w->dstatus.progressing.set ? kp__s(cl, w->dstatus.progressing.reason) : "",
        .progressing_time = w->dstatus.progressing.last_update,
        .schedule = kp__s(cl, w->schedule),
        .time_zone = kp__s(cl, w->time_zone),
        .concurrency = w->kind != KP_WL_CRONJOB                   ? ""
                       : w->concurrency == KP_CONCURRENCY_FORBID  ? "Forbid"
                       : w->concurrency == KP_CONCURRENCY_REPLACE ? "Replace"
                                                                  : "Allow",
    };
    return KP_OK;
}

/* The workload kind of an ownerReference kind, or KP_WL_KINDS. */
static kp_workload_kind kind_of(const char *kind) {
    for (int k = KP_WL_RC; k < KP_WL_KINDS; k++)
        if (strcmp(kind, kp__workload_kind_name((kp_workload_kind)k)) == 0)
            return (kp_workload_kind)k;
    return KP_WL_KINDS;
}

kp_index kp_cluster_pod_workload(const kp_cluster *cl, kp_index pod) {
    if (!pod_ok(cl, pod)) return -1;
    const kp_pod *p = &cl->pods[pod];
    const kp_owner_ref *o = controller_of(p);
    if (!o || !o->kind) return -1;
    return kp__cluster_find_workload(cl, kind_of(kp__s(cl, o->kind)), p->ns, o->name);
}

kp_index kp_cluster_workload_top(const kp_cluster *cl, kp_index workload) {
    if (workload < 0 || (size_t)workload >= cl->n_workloads) return -1;
    /* a chain is short (Deployment -> ReplicaSet, CronJob -> Job); the bound stops a cycle of
     * ownerReferences in a hand-written input */
    for (int hop = 0; hop < 8; hop++) {
        const kp_workload *w = &cl->workloads[workload];
        if (!w->owner_kind || !w->owner_name) break;
        long up =
            kp__cluster_find_workload(cl, kind_of(kp__s(cl, w->owner_kind)), w->ns, w->owner_name);
        if (up < 0 || up == workload) break;
        workload = (kp_index)up;
    }
    return workload;
}

kp_status kp_cluster_workload_scale(kp_cluster *cl, kp_index workload, int32_t replicas,
                                    kp_error *err) {
    if (workload < 0 || (size_t)workload >= cl->n_workloads)
        return bad_index(err, "workload", workload);
    kp_workload *w = &cl->workloads[workload];
    const char *kind = kp__workload_kind_name(w->kind);
    if (w->kind != KP_WL_RC && w->kind != KP_WL_RS && w->kind != KP_WL_STS &&
        w->kind != KP_WL_DEPLOY)
        return kp_error_set(err, KP_EINVAL, "%s %s/%s: it has no scale subresource", kind,
                            kp__s(cl, w->ns), kp__s(cl, w->name));
    if (replicas < 0) /* ValidateScale */
        return kp_error_set(err, KP_EINVAL,
                            "%s %s/%s: spec.replicas: Invalid value: %d: must be greater than or "
                            "equal to 0",
                            kind, kp__s(cl, w->ns), kp__s(cl, w->name), replicas);
    w->replicas = replicas;
    return KP_OK;
}

kp_status kp_cluster_delete_workload(kp_cluster *cl, kp_index workload, kp_error *err) {
    if (workload < 0 || (size_t)workload >= cl->n_workloads)
        return bad_index(err, "workload", workload);
    kp_workload *w = &cl->workloads[workload];
    if (w->deleted) return KP_OK;
    w->deleted = true;
    kp__cluster_forget_identity(cl, kp__workload_kind_name(w->kind), w->ns, w->name);
    /* default spreading's selectors change: schedulers rebuild (a Job's or CronJob's deletion,
     * a CronJob's history limit every minute, changes nothing a scheduler reads) */
    if (w->kind != KP_WL_JOB && w->kind != KP_WL_CRONJOB) cl->gen_struct++;
    return KP_OK;
}

kp_status kp__cluster_deployment_new_replicaset(kp_cluster *cl, kp_index deployment, kp_index *out,
                                                kp_error *err) {
    if (deployment < 0 || (size_t)deployment >= cl->n_workloads)
        return bad_index(err, "workload", deployment);
    const kp_workload *d = &cl->workloads[deployment];
    if (d->kind != KP_WL_DEPLOY || !d->template)
        return kp_error_set(err, KP_EINVAL, "%s %s/%s: not a Deployment with a pod template",
                            kp__workload_kind_name(d->kind), kp__s(cl, d->ns), kp__s(cl, d->name));
    uint32_t n = cl->n_workloads, rs = 0;
    if (kp__workload_new_replicaset(cl, (uint32_t)deployment, &rs) != KP_OK)
        return kp_error_set(err, KP_ENOMEM, "Deployment %s/%s: out of memory",
                            kp__s(cl, cl->workloads[deployment].ns),
                            kp__s(cl, cl->workloads[deployment].name));
    if (cl->n_workloads != n) cl->gen_struct++; /* a new selector for default spreading: rebuild */
    *out = (kp_index)rs;
    return KP_OK;
}

kp_status kp__cluster_cronjob_new_job(kp_cluster *cl, kp_index cronjob, const char *name,
                                      kp_index *out, kp_error *err) {
    if (cronjob < 0 || (size_t)cronjob >= cl->n_workloads)
        return bad_index(err, "workload", cronjob);
    const kp_workload *c = &cl->workloads[cronjob];
    if (c->kind != KP_WL_CRONJOB || !c->template)
        return kp_error_set(err, KP_EINVAL, "%s %s/%s: not a CronJob with a job template",
                            kp__workload_kind_name(c->kind), kp__s(cl, c->ns), kp__s(cl, c->name));
    kp_str nid = intern(cl, name), kind = intern(cl, "CronJob");
    if (nid == UINT32_MAX || kind == UINT32_MAX)
        return kp_error_set(err, KP_ENOMEM, "Job %s: out of memory", name);
    *out = -1;
    if (kp__cluster_find_workload(cl, KP_WL_JOB, c->ns, nid) >= 0) return KP_OK;
    kp_workload *j = kp__cluster_new_workload(cl, KP_WL_JOB, cl->workloads[cronjob].ns, nid);
    if (!j) return kp_error_set(err, KP_ENOMEM, "Job %s: out of memory", name);
    c = &cl->workloads[cronjob]; /* the array may have moved */
    j->origin = c->origin;
    j->owner_kind = kind;
    j->owner_name = c->name;
    j->labels = c->labels; /* jobTemplate.metadata.labels */
    j->template = c->template;
    j->template_host_network = c->template_host_network;
    j->job = c->job; /* jobTemplate.spec, no status yet */
    j->job.succeeded = j->job.failed = j->job.active = 0;
    j->job.completed_indexes = 0;
    j->job.finished = false;
    j->replicas = 1; /* as a decoded Job's (replicas is not a Job field) */
    if (!j->job.has_completions) j->job.completions = 0; /* nil, as a decoded Job's */
    /* gen_struct stays: no scheduler reads a Job (default spreading reads Services,
     * ReplicationControllers, ReplicaSets and StatefulSets), so a CronJob's Job every minute
     * costs no rebuild (kp__sched_catch_up takes new Jobs in its stride) */
    *out = (kp_index)(j - cl->workloads);
    return KP_OK;
}

/* ---- PriorityClasses (kp_cluster_find_priority_class: core/cluster.c, by the name map) ---- */

kp_status kp_cluster_priority_class_set_value(kp_cluster *cl, kp_index pc, int32_t value,
                                              kp_error *err) {
    if (pc < 0 || (size_t)pc >= cl->n_classes) return bad_index(err, "PriorityClass", pc);
    kp_priority_class *c = &cl->classes[pc];
    const char *name = kp__s(cl, c->name);
    /* Upstream's ValidatePriorityClassUpdate forbids changing value ("may not be changed in an
     * update"): a class is repriced by deleting and recreating it, which is what this stands for
     * (admitted pods keep their spec.priority either way). ValidatePriorityClass: the system-
     * classes keep their values; user classes at most
     * HighestUserDefinablePriority */
    if (c->builtin || strncmp(name, "system-", 7) == 0)
        return kp_error_set(err, KP_EINVAL,
                            "PriorityClass %s: value: Forbidden: the value of a system priority "
                            "class cannot be changed",
                            name);
    if (value > 1000000000)
        return kp_error_set(err, KP_EINVAL,
                            "PriorityClass %s: value: Forbidden: maximum allowed value of a user "
                            "defined priority is 1000000000",
                            name);
    c->value = value; /* pods created from now on read it (core/cluster_create.c) */
    return KP_OK;
}

kp_status kp_cluster_delete_priority_class(kp_cluster *cl, kp_index pc, kp_error *err) {
    if (pc < 0 || (size_t)pc >= cl->n_classes) return bad_index(err, "PriorityClass", pc);
    kp_priority_class *c = &cl->classes[pc];
    if (c->deleted) return KP_OK;
    const char *name = kp__s(cl, c->name);
    /* the priorityclass registry's Delete refuses the system classes */
    if (c->builtin || strncmp(name, "system-", 7) == 0)
        return kp_error_set(err, KP_EINVAL,
                            "priorityclasses.scheduling.k8s.io \"%s\" is forbidden: this is a "
                            "system priority class and cannot be deleted",
                            name);
    /* admitted pods keep spec.priority; pods created later that name it are refused, and a
     * deleted globalDefault class no longer gives pods without a class its value */
    c->deleted = true;
    kp__cluster_forget_identity(cl, "PriorityClass", 0, c->name);
    return KP_OK;
}

/* ---------------------------------------------------------------- the deployment controller's
 * writes (workload_ctrl.h) */

kp_str kp__cluster_intern_str(kp_cluster *cl, const char *s) {
    return kp__intern(&cl->strs, s, strlen(s));
}

kp_status kp__cluster_deployment_status_set(kp_cluster *cl, kp_index deployment,
                                            const kp_deploy_status *st) {
    if (deployment < 0 || (size_t)deployment >= cl->n_workloads ||
        cl->workloads[deployment].kind != KP_WL_DEPLOY)
        return KP_EINVAL;
    cl->workloads[deployment].dstatus = *st;
    cl->workloads[deployment].dstatus.written = true;
    return KP_OK;
}

kp_status kp__cluster_replicaset_revision_set(kp_cluster *cl, kp_index rs, int64_t revision) {
    if (rs < 0 || (size_t)rs >= cl->n_workloads || cl->workloads[rs].kind != KP_WL_RS)
        return KP_EINVAL;
    cl->workloads[rs].revision = revision;
    return KP_OK;
}
