/* Updates of existing objects (core/object_update.h): the one writer that swaps into an object
 * of the cluster the fields an API update changed, after io/patch.c validated the update as the
 * API server does, and the kubelet's answer to an in-place resize
 * (kp_cluster_pod_resize_set, include/kprio/update.h). */
#include "core/object_update.h"

#include <string.h>

#include "base/arena.h"
#include "core/finalize.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "kprio/update.h"

static kp_status nomem(kp_cluster *cl, const kp_pod *p, kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "Pod %s/%s: out of memory updating it", kp__s(cl, p->ns),
                        kp__s(cl, p->name));
}

/* Pod i becomes `updated` (its node kept): off its node with the vectors it was added with,
 * its request vectors derived again, back on the node (mirrors NodeInfo.UpdatePod: RemovePod
 * then AddPod). On an error the pod is as it was, on its node. */
static kp_status swap_in(kp_cluster *cl, uint32_t i, const kp_pod *updated, kp_error *err) {
    kp_pod *p = &cl->pods[i];
    kp_pod saved = *p;
    int32_t node = p->node;
    kp__node_remove_pod(cl, i); /* no-op when it is on no node */
    *p = *updated;
    p->node = -1;
    kp_status st = kp__pod_derive_requests(cl, p, err);
    if (st == KP_OK && node >= 0) {
        st = kp__node_add_pod(cl, (uint32_t)node, i);
        if (st == KP_ERANGE)
            kp_error_set(err, KP_ERANGE,
                         "Pod %s/%s: the requests of the pods bound to node %s would add up to "
                         "more than kprio's limit",
                         kp__s(cl, p->ns), kp__s(cl, p->name), kp__s(cl, cl->nodes[node].name));
        else if (st != KP_OK) nomem(cl, p, err);
    }
    if (st != KP_OK) {
        *p = saved;
        p->node = -1;
        if (node >= 0) (void)kp__node_add_pod(cl, (uint32_t)node, i); /* fitted before */
        return st;
    }
    cl->gen_struct++; /* schedulers rebuild what they read of the pod */
    return KP_OK;
}

/* A pending resize of a bound pod: the status keeps what the kubelet allocated (the old
 * requests), as the API server leaves it until the kubelet acts. */
static kp_status pending_resize(kp_cluster *cl, kp_pod *p, const kp_pod *old, kp_error *err) {
    uint32_t nc = (uint32_t)p->n_containers + p->n_init;
    kp_pod_resize *rz = kp__arena_alloc(&cl->arena, sizeof *rz);
    kp_container_status *cs = nc ? kp__arena_alloc(&cl->arena, nc * sizeof *cs) : NULL;
    if (!rz || (nc && !cs)) return nomem(cl, p, err);
    memset(rz, 0, sizeof *rz);
    if (nc) memset(cs, 0, nc * sizeof *cs);
    for (uint32_t k = 0; k < nc; k++) {
        const kp_container_status *was = old->resize && old->resize->c ? &old->resize->c[k] : NULL;
        cs[k].alloc = was && was->has_alloc ? was->alloc : old->containers[k].req;
        cs[k].req = was && was->has_req ? was->req : cs[k].alloc;
        cs[k].has_alloc = cs[k].has_req = true;
    }
    rz->c = cs;
    p->resize = rz;
    return KP_OK;
}

kp_status kp__cluster_update_pod(kp_cluster *cl, uint32_t i, const kp_pod *np, bool resize,
                                 kp_error *err) {
    const kp_pod *old = &cl->pods[i];
    kp_pod u = *old;
    u.labels = np->labels;
    u.annotations = np->annotations;
    u.owners = np->owners;
    u.n_owners = np->n_owners;
    u.tolerations = np->tolerations;
    u.n_tolerations = np->n_tolerations;
    u.gates = np->gates;
    u.containers = np->containers; /* same count: images, or a resize's requests and limits */
    kp_status st = KP_OK;
    if (resize && old->node >= 0) st = pending_resize(cl, &u, old, err);
    else if (resize) u.resize = NULL; /* no kubelet yet: the spec is what is allocated */
    return st == KP_OK ? swap_in(cl, i, &u, err) : st;
}

kp_status kp_cluster_pod_resize_set(kp_cluster *cl, kp_index pod, kp_resize_result result,
                                    const char *message, kp_error *err) {
    if (pod < 0 || (size_t)pod >= cl->n_pods || cl->pods[pod].node < 0)
        return kp_error_set(err, KP_EINVAL, "pod index %ld is not bound to a node", pod);
    kp_pod u = cl->pods[pod];
    kp_pod_resize *rz = NULL;
    if (result != KP_RESIZE_APPLIED) {
        kp_str m = message && message[0] ? kp__intern(&cl->strs, message, strlen(message)) : 0;
        rz = kp__arena_alloc(&cl->arena, sizeof *rz);
        if (!rz || m == UINT32_MAX) return nomem(cl, &u, err);
        *rz = u.resize ? *u.resize : (kp_pod_resize){0};
        rz->infeasible = result == KP_RESIZE_INFEASIBLE;
        rz->deferred = result == KP_RESIZE_DEFERRED;
        rz->pending_message = m;
    }
    /* applied: the status' resources are the spec's (allocated and actuated), no condition */
    u.resize = rz;
    return swap_in(cl, (uint32_t)pod, &u, err);
}

kp_resize_result kp_cluster_pod_resize_state(const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= cl->n_pods || !cl->pods[pod].resize) return KP_RESIZE_APPLIED;
    const kp_pod_resize *rz = cl->pods[pod].resize;
    return rz->infeasible ? KP_RESIZE_INFEASIBLE
           : rz->deferred ? KP_RESIZE_DEFERRED
                          : KP_RESIZE_APPLIED;
}

kp_status kp__cluster_update_node(kp_cluster *cl, uint32_t i, const kp_node *nn, bool status,
                                  kp_error *err) {
    (void)err;
    kp_node *n = &cl->nodes[i];
    if (status) { /* the status subresource: spec and metadata stay */
        memcpy(n->alloc, nn->alloc, sizeof n->alloc);
        memcpy(n->cap, nn->cap, sizeof n->cap);
        memcpy(n->has_alloc, nn->has_alloc, sizeof n->has_alloc);
        n->conditions = nn->conditions;
        n->n_conditions = nn->n_conditions;
        n->images = nn->images;
        n->n_images = nn->n_images;
    } else { /* the node itself: its status stays (nodeStrategy.PrepareForUpdate) */
        n->labels = nn->labels;
        n->annotations = nn->annotations;
        n->taints = nn->taints;
        n->n_taints = nn->n_taints;
        n->unschedulable = nn->unschedulable;
    }
    cl->gen_struct++; /* node order, indexes and reasons are made again */
    return KP_OK;
}

kp_status kp__cluster_update_workload(kp_cluster *cl, uint32_t i, const kp_workload *nw,
                                      bool template_changed, kp_error *err) {
    (void)err;
    kp_workload *w = &cl->workloads[i];
    kp_workload keep = *w;
    *w = *nw;
    /* identity, origin and ownership stay; so does what the controllers write (status) */
    w->ns = keep.ns;
    w->name = keep.name;
    w->uid = keep.uid;
    w->kind = keep.kind;
    w->origin = keep.origin;
    w->owner_kind = keep.owner_kind;
    w->owner_name = keep.owner_name;
    w->deleted = keep.deleted;
    w->n_active_jobs = keep.n_active_jobs;
    w->job.succeeded = keep.job.succeeded;
    w->job.failed = keep.job.failed;
    w->job.active = keep.job.active;
    w->job.completed_indexes = keep.job.completed_indexes;
    w->job.finished = keep.job.finished;
    w->dstatus = keep.dstatus; /* the deployment controller's */
    w->revision = keep.revision;
    if (!w->template) { /* templates not kept: none to swap */
        w->template = keep.template;
        w->template_fp = keep.template_fp;
        w->template_hash32 = keep.template_hash32;
    }
    /* a new template is a new update revision (getStatefulSetRevisions / constructHistory);
     * the current revision stays that of the pods the rollout replaces (the first change: the
     * template as it was) */
    w->tmpl_rev = keep.tmpl_rev;
    w->cur_rev = keep.cur_rev;
    w->cur_template = keep.cur_template;
    if (template_changed && keep.template) {
        if (!w->cur_template) w->cur_template = keep.template;
        w->tmpl_rev++;
    }
    cl->gen_struct++; /* a Service's or controller's selector feeds default spreading */
    return KP_OK;
}

kp_status kp__cluster_update_class(kp_cluster *cl, uint32_t i, const kp_priority_class *nc,
                                   kp_error *err) {
    (void)err;
    kp_priority_class *c = &cl->classes[i];
    c->description = nc->description;
    c->global_default = nc->global_default;
    return KP_OK;
}

kp_status kp__cluster_update_pdb(kp_cluster *cl, uint32_t i, const kp_pdb *nb, kp_error *err) {
    (void)err;
    kp_pdb *b = &cl->pdbs[i];
    b->selector = nb->selector;
    b->has_min_available = nb->has_min_available;
    b->min_available = nb->min_available;
    b->has_max_unavailable = nb->has_max_unavailable;
    b->max_unavailable = nb->max_unavailable;
    cl->gen_struct++;
    return KP_OK;
}

kp_status kp__cluster_update_namespace(kp_cluster *cl, uint32_t i, const kp_namespace *nn,
                                       kp_error *err) {
    (void)err;
    cl->namespaces[i].labels = nn->labels;
    cl->gen_struct++; /* namespaceSelector of affinity terms */
    return KP_OK;
}
