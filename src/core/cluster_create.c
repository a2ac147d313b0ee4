/* kp_cluster_create_pod: a new pod the way a controller makes one, into a finalized cluster
 * (include/kprio/cluster.h, "The simulator's view").
 *
 * The pod is appended to cl->pods: indices stay valid, but cl->pods may be reallocated, so a
 * kp_pod pointer taken before the call does not survive it. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/finalize.h"
#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "kprio/cluster.h"

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

/* An Indexed Job's pod NAME-INDEX-xxxxx (the Job controller's generateName,
 * podGenerateNameWithIndex): the index as written, in a static buffer; NULL when not Indexed or the
 * name has no index. */
static const char *job_index(const kp_cluster *cl, const kp_workload *w, const char *name) {
    static char buf[16];
    const char *jn = kp__s(cl, w->name);
    size_t n = strlen(jn), k = 0;
    if (!w->job.indexed || strncmp(name, jn, n) != 0 || name[n] != '-') return NULL;
    for (const char *c = name + n + 1; *c >= '0' && *c <= '9' && k + 1 < sizeof buf; c++)
        buf[k++] = *c;
    buf[k] = 0;
    return k && name[n + 1 + k] == '-' ? buf : NULL;
}

/* The owner and the labels a controller gives the pods it creates, the one copy of that rule
 * (every controller of src/ctrl/ creates through here, `--expand-workloads` too): controlled by
 * the workload; a ReplicaSet's, ReplicationController's or DaemonSet's labels its template's; a
 * StatefulSet's the pod-name and pod-index labels (newVersionedStatefulSetPod, ordinal = the
 * name's last "-N"); a Job's the job-name labels (the API server's generateSelector, unless
 * manualSelector) and, Indexed, the completion index. A Deployment creates no pod itself (its
 * ReplicaSet does), nor does a CronJob (its Job does). */
static kp_status owner_and_labels(kp_cluster *cl, const kp_workload *w, const kp_pod *tmpl,
                                  uint32_t rev, const char *name, kp_owner_ref *o,
                                  kp_labels *labels, kp_error *err) {
    const char *kind = kp__workload_kind_name(w->kind);
    *labels = tmpl->labels;
    const char *api = w->kind == KP_WL_RC ? "v1" : w->kind == KP_WL_JOB ? "batch/v1" : "apps/v1";
    *o = (kp_owner_ref){intern(cl, kind), w->name, w->uid, intern(cl, api), true};
    kp_status st = KP_OK;
    if (w->kind == KP_WL_STS) {
        const char *dash = strrchr(name, '-');
        st = kp__labels_set(cl, labels, "statefulset.kubernetes.io/pod-name", name);
        if (st == KP_OK && dash && dash[1])
            st = kp__labels_set(cl, labels, "apps.kubernetes.io/pod-index", dash + 1);
    } else if (w->kind == KP_WL_JOB) {
        if (!w->job.manual_selector) {
            st = kp__labels_set(cl, labels, "batch.kubernetes.io/job-name", kp__s(cl, w->name));
            if (st == KP_OK) st = kp__labels_set(cl, labels, "job-name", kp__s(cl, w->name));
        }
        const char *index = job_index(cl, w, name);
        if (st == KP_OK && index) /* addCompletionIndexLabel */
            st = kp__labels_set(cl, labels, "batch.kubernetes.io/job-completion-index", index);
    } else if (w->kind != KP_WL_RS && w->kind != KP_WL_RC && w->kind != KP_WL_DS) {
        return kp_error_set(err, KP_EINVAL,
                            "%s %s/%s: kprio does not create the pods of a %s one by one", kind,
                            kp__s(cl, w->ns), kp__s(cl, w->name), kind);
    }
    if (st == KP_OK && (w->kind == KP_WL_STS || w->kind == KP_WL_DS)) {
        /* the revision's controller-revision-hash (newVersionedStatefulSetPod's
         * StatefulSetRevisionLabel; the DaemonSet's template label DefaultDaemonSetUniqueLabelKey)
         */
        char rv[480];
        kp__workload_revision_label(cl, w, rev, rv, sizeof rv);
        st = kp__labels_set(cl, labels, "controller-revision-hash", rv);
    }
    if (st == KP_OK && (o->kind == UINT32_MAX || o->api_version == UINT32_MAX)) st = KP_ENOMEM;
    return st == KP_OK ? KP_OK : kp_error_set(err, st, "Pod %s: out of memory", name);
}

/* The Priority admission plugin at creation (admitPod): a class named by the pod must exist
 * now; its value is read then (kp__pod_finalize). */
static kp_status check_class(const kp_cluster *cl, const kp_pod *t, const char *name,
                             kp_error *err) {
    if (!t->priority_class || t->has_priority) return KP_OK;
    if (kp_cluster_find_priority_class(cl, kp__s(cl, t->priority_class)) >= 0) return KP_OK;
    return kp_error_set(err, KP_EINVAL,
                        "pods \"%s\" is forbidden: no PriorityClass with name %s was found", name,
                        kp__s(cl, t->priority_class));
}

/* The template a StatefulSet's pod NAME-ORDINAL is made from (newVersionedStatefulSetPod):
 * with RollingUpdate the current revision's below ordinals.start + partition, else the update
 * revision's; every other workload's: its template. *rev: that revision. */
static const kp_pod *revision_template(const kp_workload *w, const char *name, uint32_t *rev) {
    *rev = w->tmpl_rev;
    if (w->kind != KP_WL_STS || !w->cur_template || w->strategy.type != KP_WL_STRATEGY_ROLLING)
        return w->template;
    const char *dash = strrchr(name, '-');
    int64_t ord = 0;
    if (!dash || !dash[1]) return w->template;
    for (const char *c = dash + 1; *c; c++) {
        if (*c < '0' || *c > '9' || ord > INT32_MAX) return w->template;
        ord = ord * 10 + (*c - '0');
    }
    if (ord >= (int64_t)w->ordinals_start + w->strategy.partition) return w->template;
    *rev = w->cur_rev;
    return w->cur_template;
}

static kp_status create(kp_cluster *cl, kp_index workload, kp_index like, kp_index node,
                        const char *name, int64_t now, kp_index *out, kp_error *err) {
    const kp_workload *w = NULL;
    const kp_pod *src;
    uint32_t rev = 0;
    if (workload >= 0) {
        if ((size_t)workload >= cl->n_workloads)
            return kp_error_set(err, KP_EINVAL, "workload index %ld is out of range", workload);
        w = &cl->workloads[workload];
        if (!w->template)
            return kp_error_set(err, KP_EINVAL, "%s %s/%s: spec.template: Required value",
                                kp__workload_kind_name(w->kind), kp__s(cl, w->ns),
                                kp__s(cl, w->name));
        src = revision_template(w, name, &rev);
    } else {
        if (like < 0 || (size_t)like >= cl->n_pods)
            return kp_error_set(err, KP_EINVAL, "pod index %ld is out of range", like);
        src = &cl->pods[like];
    }
    kp_str ns = w ? w->ns : src->ns;
    char ref[600];
    snprintf(ref, sizeof ref, "%s/%s", kp__s(cl, ns), name);
    if (!name[0] || kp_cluster_find_pod(cl, ref) >= 0)
        return kp_error_set(err, KP_EINVAL, "pods \"%s\" already exists", name);
    kp_status st = check_class(cl, src, name, err);
    kp_owner_ref owner;
    kp_labels labels = src->labels;
    const char *index;
    if (st == KP_OK && w) st = owner_and_labels(cl, w, src, rev, name, &owner, &labels, err);
    if (st != KP_OK) return st;
    kp_owner_ref *o = NULL;
    if (w && !(o = kp__arena_alloc(&cl->arena, sizeof *o)))
        return kp_error_set(err, KP_ENOMEM, "Pod %s: out of memory", name);
    if (o) *o = owner;
    char uid[48];
    uint32_t idx = cl->n_pods;
    kp__pod_make_uid(cl, ns, name, idx, uid, sizeof uid);
    kp_str nid = intern(cl, name), uid_id = intern(cl, uid);
    if (nid == UINT32_MAX || uid_id == UINT32_MAX)
        return kp_error_set(err, KP_ENOMEM, "Pod %s: out of memory", name);
    kp_pod copy = *src; /* src may move when cl->pods grows */
    /* a template that names its node: the pod is created bound there (the scheduler never sees
     * it; that node's kubelet admits or rejects it), as the API server stores spec.nodeName */
    long pinned = w && copy.node_name ? kp_cluster_find_node(cl, kp__s(cl, copy.node_name)) : -1;
    if (pinned >= 0 && cl->nodes[pinned].deleted) pinned = -1;
    kp_pod *p = kp__cluster_new_pod(cl, ns, nid);
    if (!p) {
        if (cl->n_pods > idx) { /* the slot was added, its name not mapped: a tombstone */
            cl->pods[idx].deleted = true;
            cl->pods[idx].node = -1;
        }
        return kp_error_set(err, KP_ENOMEM, "Pod %s: out of memory", name);
    }
    *p = copy;
    p->ns = ns;
    p->name = nid;
    p->uid = uid_id;
    p->labels = labels;
    if (o) {
        p->owners = o;
        p->n_owners = 1;
        p->src_file = w->origin.file; /* its messages name the workload's file */
    }
    /* a new object as the API server stores it (no status, pending), on no node (spec.nodeName
     * too, unless it names a node that exists: the scheduler binds) */
    kp__pod_prepare_create(p, now);
    p->node_name = 0;
    p->deleted = false;
    p->node = -1;
    p->pos_in_node = 0;
    if (!w) { /* an admitted pod's resolved priority is not part of its controller's template */
        p->has_priority = p->has_spec_priority = p->has_preemption_policy = false;
        p->class_missing = false;
        p->priority = 0;
    }
    /* addCompletionIndexAnnotation */
    if (w && w->kind == KP_WL_JOB && (index = job_index(cl, w, name)) &&
        (st = kp__labels_set(cl, &p->annotations, "batch.kubernetes.io/job-completion-index",
                             index)) != KP_OK)
        return kp_error_set(err, st, "Pod %s: out of memory", name);
    if (w && w->kind == KP_WL_DS) { /* syncNodes: the controller's tolerations, pinned to node */
        kp_toleration *tols;
        uint16_t n_tols;
        kp_str node_name = cl->nodes[node].name;
        if (kp__daemon_tolerations(cl, w, &tols, &n_tols) != KP_OK ||
            !(p->node_affinity = kp__daemon_pin(cl, w->template, node_name)))
            return kp_error_set(err, KP_ENOMEM, "Pod %s: out of memory", name);
        p->tolerations = tols;
        p->n_tolerations = n_tols;
    }
    if ((st = kp__pod_finalize(cl, idx, err)) != KP_OK) {
        /* the slot stays, as a tombstone no scheduler saw (indices are never reused) */
        cl->pods[idx].deleted = true;
        return st;
    }
    if (pinned >= 0) {
        p = &cl->pods[idx];
        p->node_name = copy.node_name;
        if ((st = kp__node_add_pod(cl, (uint32_t)pinned, idx)) != KP_OK) {
            p->deleted = true;
            p->node = -1;
            return kp_error_set(
                err, st == KP_ERANGE ? KP_EINVAL : st, "Pod %s: %s adding it to node %s", name,
                st == KP_ERANGE ? "requests overflow" : "out of memory", kp__s(cl, copy.node_name));
        }
    }
    cl->gen_struct++;
    cl->gen_pods++;
    *out = idx;
    return KP_OK;
}

kp_status kp_cluster_create_pod(kp_cluster *cl, kp_index workload, kp_index like, const char *name,
                                int64_t now, kp_index *out, kp_error *err) {
    if (workload >= 0 && (size_t)workload < cl->n_workloads &&
        cl->workloads[workload].kind == KP_WL_DS)
        return kp_error_set(err, KP_EINVAL, "DaemonSet %s/%s: a DaemonSet's pod is made for a node",
                            kp__s(cl, cl->workloads[workload].ns),
                            kp__s(cl, cl->workloads[workload].name));
    return create(cl, workload, like, -1, name, now, out, err);
}

kp_status kp_cluster_create_daemon_pod(kp_cluster *cl, kp_index workload, kp_index node,
                                       const char *name, int64_t now, kp_index *out,
                                       kp_error *err) {
    if (workload < 0 || (size_t)workload >= cl->n_workloads ||
        cl->workloads[workload].kind != KP_WL_DS)
        return kp_error_set(err, KP_EINVAL, "workload %ld is not a DaemonSet", workload);
    if (node < 0 || (size_t)node >= cl->n_nodes || cl->nodes[node].deleted)
        return kp_error_set(err, KP_EINVAL, "node index %ld is out of range", node);
    return create(cl, workload, -1, node, name, now, out, err);
}
