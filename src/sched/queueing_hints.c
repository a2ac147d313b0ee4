/* Queueing hints: the cluster events each plugin registers (EventsToRegister, with
 * SchedulerQueueingHints on) and its QueueingHintFn for the events kprio models, plus the queue's
 * per-pod decision over the plugins that rejected the pod (PriorityQueue.isPodWorthRequeuing,
 * pkg/scheduler/backend/queue/scheduling_queue.go). One file mirrors every plugin's
 * EventsToRegister, as a table and one hint function per plugin and event kind; the rejecting
 * plugins are recorded per pod by the attempt (schedule_one.c: Diagnosis.UnschedulablePlugins).
 *
 * Events without a hint function upstream (registered with a nil QueueingHintFn) queue. Of the
 * volume objects' events, kprio models their creation (PVC, PV, StorageClass, CSINode added);
 * not their updates, nor CSIDriver, CSIStorageCapacity or VolumeAttachment events. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/host_ports.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/volume.h"
#include "kprio/sched.h"
#include "sched/dra/index.h"
#include "sched/framework.h"
#include "sched/plugins/inter_pod_affinity.h"
#include "sched/plugins/pod_topology_spread.h"
#include "sched/plugins/resource_allocation.h"
#include "sched/plugins/taint_toleration.h"
#include "sched/queueing_hints.h"

#define BIT(p) (1u << (p))
/* kp_result_int.rejectors of a failed attempt no plugin rejected (no nodes): it queues on any
 * event */
#define REJ_NONE BIT(KP_PL_COUNT)

/* Which plugins register each event kind (EventsToRegister with the hints on):
 * - a node added: NodeName, NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
 *   NodeResourcesFit, PodTopologySpread, InterPodAffinity, VolumeRestrictions, VolumeBinding,
 *   VolumeZone (NodeVolumeLimits registers CSINode events, not the node's);
 * - a node updated: NodeUnschedulable (UpdateNodeTaint, spec.unschedulable), TaintToleration
 *   (UpdateNodeTaint), NodeAffinity (UpdateNodeLabel), NodeResourcesFit
 *   (UpdateNodeAllocatable), PodTopologySpread (UpdateNodeLabel | UpdateNodeTaint),
 *   InterPodAffinity (UpdateNodeLabel), VolumeBinding and VolumeZone (UpdateNodeLabel);
 * - an assigned pod added: PodTopologySpread, InterPodAffinity;
 * - a pod deleted: NodePorts, NodeResourcesFit, PodTopologySpread, InterPodAffinity,
 *   VolumeRestrictions, NodeVolumeLimits;
 * - a PVC added: VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone;
 * - a PV added: VolumeBinding, VolumeZone (no hint function: queue);
 * - a StorageClass added: VolumeBinding (its hint queues a creation), VolumeZone (no hint);
 * - a CSINode added: NodeVolumeLimits, VolumeBinding (their hints queue a creation);
 * - an assigned pod updated: NodeResourcesFit (UpdatePodScaleDown, with the
 *   InPlacePodVerticalScaling gate), PodTopologySpread and InterPodAffinity (UpdatePodLabel);
 * - DynamicResources: a node added or its labels changed (no hint function), a ResourceClaim
 *   created or its status changed (isSchedulableAfterClaimChange), a ResourceSlice or a
 *   DeviceClass created or updated (no hint function). */
static const uint32_t REGISTERED[KP_SCHED_EV_COUNT] = {
    [KP_SCHED_EV_NODE_ADD] =
        BIT(KP_PL_NODE_NAME) | BIT(KP_PL_NODE_UNSCHEDULABLE) | BIT(KP_PL_TAINT_TOLERATION) |
        BIT(KP_PL_NODE_AFFINITY) | BIT(KP_PL_NODE_PORTS) | BIT(KP_PL_FIT) | BIT(KP_PL_SPREAD) |
        BIT(KP_PL_INTERPOD) | BIT(KP_PL_VOLUME_RESTRICTIONS) | BIT(KP_PL_VOLUME_BINDING) |
        BIT(KP_PL_VOLUME_ZONE) | BIT(KP_PL_DYNAMIC_RESOURCES),
    [KP_SCHED_EV_NODE_UPDATE] = BIT(KP_PL_NODE_UNSCHEDULABLE) | BIT(KP_PL_TAINT_TOLERATION) |
                                BIT(KP_PL_NODE_AFFINITY) | BIT(KP_PL_FIT) | BIT(KP_PL_SPREAD) |
                                BIT(KP_PL_INTERPOD) | BIT(KP_PL_VOLUME_BINDING) |
                                BIT(KP_PL_VOLUME_ZONE) | BIT(KP_PL_DYNAMIC_RESOURCES),
    [KP_SCHED_EV_POD_ADD] = BIT(KP_PL_SPREAD) | BIT(KP_PL_INTERPOD),
    [KP_SCHED_EV_POD_DELETE] = BIT(KP_PL_NODE_PORTS) | BIT(KP_PL_FIT) | BIT(KP_PL_SPREAD) |
                               BIT(KP_PL_INTERPOD) | BIT(KP_PL_VOLUME_RESTRICTIONS) |
                               BIT(KP_PL_NODE_VOLUME_LIMITS),
    [KP_SCHED_EV_PVC_ADD] = BIT(KP_PL_VOLUME_RESTRICTIONS) | BIT(KP_PL_NODE_VOLUME_LIMITS) |
                            BIT(KP_PL_VOLUME_BINDING) | BIT(KP_PL_VOLUME_ZONE),
    [KP_SCHED_EV_PV_ADD] = BIT(KP_PL_VOLUME_BINDING) | BIT(KP_PL_VOLUME_ZONE),
    [KP_SCHED_EV_STORAGE_CLASS_ADD] = BIT(KP_PL_VOLUME_BINDING) | BIT(KP_PL_VOLUME_ZONE),
    [KP_SCHED_EV_CSI_NODE_ADD] = BIT(KP_PL_NODE_VOLUME_LIMITS) | BIT(KP_PL_VOLUME_BINDING),
    [KP_SCHED_EV_POD_UPDATE] = BIT(KP_PL_FIT) | BIT(KP_PL_SPREAD) | BIT(KP_PL_INTERPOD),
    [KP_SCHED_EV_CLAIM_CHANGE] = BIT(KP_PL_DYNAMIC_RESOURCES),
    [KP_SCHED_EV_SLICE_ADD] = BIT(KP_PL_DYNAMIC_RESOURCES),
    [KP_SCHED_EV_DEVICE_CLASS_ADD] = BIT(KP_PL_DYNAMIC_RESOURCES),
};

/* mirrors DynamicResources.isSchedulableAfterClaimChange: a claim deallocated frees devices for
 * anyone; else only a claim of the pod's own matters, once every claim of the pod exists (the
 * change of a status kprio cannot compare with the old one queues) */
static bool dra_after_claim(kp_sched *s, const kp_pod *p, const kp_sched_event *ev) {
    const kp_cluster *cl = s->cl;
    if (kp__dra_index_sync(&s->dra_ix, cl) != KP_OK) return true; /* an error queues */
    bool uses = false;
    for (uint16_t i = 0; i < p->n_claims; i++) {
        const kp_pod_claim *pc = &p->claims[i];
        kp_str name = pc->claim_name ? pc->claim_name : pc->status_claim;
        if (!name) {
            if (!pc->claim_name && !pc->has_status) return false; /* not created yet */
            continue;
        }
        long k = kp__dra_index_claim(s->dra_ix, cl, p->ns, name);
        if (k < 0 || cl->dra.claims[k].deletion_ts != KP_TIME_NONE) return false;
        if (k == ev->object) uses = true;
    }
    return ev->deallocated || uses;
}

static bool dra_event(kp_sched_event_kind k) {
    return k == KP_SCHED_EV_CLAIM_CHANGE || k == KP_SCHED_EV_SLICE_ADD ||
           k == KP_SCHED_EV_DEVICE_CLASS_ADD;
}

/* the storage kinds' events and their core kind */
static int storage_kind(kp_sched_event_kind k) {
    switch (k) {
    case KP_SCHED_EV_PVC_ADD: return KP_VK_PVC;
    case KP_SCHED_EV_PV_ADD: return KP_VK_PV;
    case KP_SCHED_EV_STORAGE_CLASS_ADD: return KP_VK_SC;
    case KP_SCHED_EV_CSI_NODE_ADD: return KP_VK_CSINODE;
    case KP_SCHED_EV_NODE_ADD:
    case KP_SCHED_EV_NODE_UPDATE:
    case KP_SCHED_EV_POD_ADD:
    case KP_SCHED_EV_POD_DELETE:
    case KP_SCHED_EV_POD_UPDATE:
    case KP_SCHED_EV_CLAIM_CHANGE:
    case KP_SCHED_EV_SLICE_ADD:
    case KP_SCHED_EV_DEVICE_CLASS_ADD:
    case KP_SCHED_EV_COUNT: return -1;
    }
    return -1;
}

/* mirrors VolumeBinding.isSchedulableAfterPersistentVolumeClaimChange and the PVC hints of
 * VolumeZone (IsPVCRequestedFromPod), VolumeRestrictions and NodeVolumeLimits: the pod uses the
 * claim (its namespace, a volume's claimName or generic ephemeral claim) */
static bool pod_uses_claim(const kp_pod *p, const kp_pvc *c) {
    if (c->ns != p->ns) return false;
    for (uint16_t i = 0; i < p->n_volumes; i++)
        if (p->volumes[i].claim && p->volumes[i].claim == c->name) return true;
    return false;
}

/* ---------------------------------------------------------------- nodes */

/* the old object of a NODE_UPDATE (kp_sched_node_before), NULL when none was taken */
static const kp_node *old_node(const kp_sched *s, const kp_sched_event *ev) {
    return s->has_node_old && s->node_old_idx == ev->node ? &s->node_old : NULL;
}

/* mirrors isFit (NodeResourcesFit): the pod's requests against the node's allocatable alone (an
 * empty NodeInfo), the pods count included */
static bool fits_empty(const kp_sched *s, const kp_pod *p, const kp_node *n) {
    const kp_cluster *cl = s->cl;
    if (1 > n->alloc[KP_RES_PODS]) return false;
    for (uint16_t i = 0; i < p->req.n; i++) {
        int r = p->req.e[i].res;
        int64_t want = p->req.e[i].v;
        if (want <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED && !kp__res_is_scalar(kp__s(cl, cl->res_names[r]))) continue;
        if (want > n->alloc[r]) return false;
    }
    return true;
}

/* mirrors haveAnyRequestedResourcesIncreased */
static bool requested_increased(const kp_sched *s, const kp_pod *p, const kp_node *old,
                                const kp_node *n) {
    const kp_cluster *cl = s->cl;
    if (n->alloc[KP_RES_PODS] > old->alloc[KP_RES_PODS]) return true;
    for (uint16_t i = 0; i < p->req.n; i++) {
        int r = p->req.e[i].res;
        if (p->req.e[i].v <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED && !kp__res_is_scalar(kp__s(cl, cl->res_names[r]))) continue;
        if (n->alloc[r] > old->alloc[r]) return true;
    }
    return false;
}

/* mirrors Fit.isSchedulableAfterNodeChange: a node too small for the pod is skipped (a 5-cpu pod
 * is not retried for a 4-cpu node); an update queues only when a requested resource grew */
static bool fit_after_node(const kp_sched *s, const kp_pod *p, const kp_node *old,
                           const kp_node *n) {
    if (!fits_empty(s, p, n)) return false;
    return !old || requested_increased(s, p, old, n);
}

/* the pod tolerates node.kubernetes.io/unschedulable:NoSchedule (NodeUnschedulable.Filter) */
static bool tolerates_unschedulable(const kp_sched *s, const kp_pod *p) {
    const char *k = "node.kubernetes.io/unschedulable";
    kp_taint t;
    memset(&t, 0, sizeof t);
    t.key = kp__intern_find(&s->cl->strs, k, strlen(k));
    t.effect = KP_EFFECT_NOSCHEDULE;
    if (t.key != UINT32_MAX) return kp__tolerations_tolerate(p, &t);
    for (uint16_t i = 0; i < p->n_tolerations; i++) {
        const kp_toleration *tol = &p->tolerations[i];
        if (tol->key == 0 && tol->op == KP_TOL_EXISTS &&
            (tol->effect == KP_EFFECT_NONE || tol->effect == KP_EFFECT_NOSCHEDULE))
            return true;
    }
    return false;
}

/* mirrors NodeUnschedulable.isSchedulableAfterNodeChange: a schedulable node added, or a node
 * that was unschedulable and is not any more (or a pod that tolerates the taint) */
static bool unschedulable_after_node(const kp_sched *s, const kp_pod *p, const kp_node *old,
                                     const kp_node *n) {
    bool tolerates = tolerates_unschedulable(s, p);
    if (!old) return !n->unschedulable || tolerates;
    return old->unschedulable && (!n->unschedulable || tolerates);
}

/* mirrors TaintToleration.isSchedulableAfterNodeChange: the pod now tolerates every
 * NoSchedule / NoExecute taint of the node and did not before (a node added: did not before) */
static bool taints_after_node(const kp_pod *p, const kp_node *old, const kp_node *n) {
    bool was_untolerated = !old || kp__first_untolerated_taint(p, old) >= 0;
    return was_untolerated && kp__first_untolerated_taint(p, n) < 0;
}

/* mirrors NodeAffinity.isSchedulableAfterNodeChange: the node matches the pod's node selector
 * and required affinity, and did not before */
static bool affinity_after_node(const kp_sched *s, const kp_pod *p, const kp_node *old,
                                const kp_node *n) {
    if (!kp__pod_matches_node_selector_and_affinity(s->cl, p, n)) return false;
    return !old || !kp__pod_matches_node_selector_and_affinity(s->cl, p, old);
}

/* mirrors NodeName.isSchedulableAfterNodeAdd: the node the pod names */
static bool node_name_after_node(const kp_pod *p, const kp_node *n) {
    return p->node_name == 0 || p->node_name == n->name;
}

static bool taints_equal(const kp_node *a, const kp_node *b) {
    if (a->n_taints != b->n_taints) return false;
    for (uint16_t i = 0; i < a->n_taints; i++)
        if (a->taints[i].key != b->taints[i].key || a->taints[i].value != b->taints[i].value ||
            a->taints[i].effect != b->taints[i].effect)
            return false;
    return true;
}

static kp_str label_of(const kp_node *n, kp_str key) {
    kp_str v = UINT32_MAX;
    if (!kp__labels_get(&n->labels, key, &v)) return UINT32_MAX;
    return v;
}

/* nodeLabelsMatchSpreadConstraints: the node has every topology key */
static bool node_has_keys(const kp_spread_c *cs, uint16_t n, const kp_node *node) {
    for (uint16_t i = 0; i < n; i++)
        if (label_of(node, cs[i].key) == UINT32_MAX) return false;
    return true;
}

/* mirrors PodTopologySpread.isSchedulableAfterNodeChange (constraints cs[n]) */
static bool spread_after_node(const kp_spread_c *cs, uint16_t n, const kp_node *old,
                              const kp_node *node) {
    bool now = node_has_keys(cs, n, node);
    if (!old) return now;
    bool was = node_has_keys(cs, n, old);
    if (was != now) return true;
    if (!now) return false;
    for (uint16_t i = 0; i < n; i++) /* checkTopologyKeyLabelsChanged */
        if (label_of(old, cs[i].key) != label_of(node, cs[i].key)) return true;
    return !taints_equal(old, node);
}

/* mirrors InterPodAffinity.isSchedulableAfterNodeChange: the node has the topology key of one of
 * the pod's required affinity or anti-affinity terms */
static bool interpod_after_node(const kp_pod *p, const kp_node *n) {
    const kp_pod_affinity *sets[2] = {p->pod_affinity, p->pod_anti_affinity};
    for (int k = 0; k < 2; k++)
        for (uint16_t i = 0; sets[k] && i < sets[k]->n_required; i++)
            if (label_of(n, sets[k]->required[i].topology_key) != UINT32_MAX) return true;
    return false;
}

/* ---------------------------------------------------------------- pods */

/* podMatchesAllAffinityTerms: false without terms */
static bool matches_all(const kp_sched *s, const kp_pod_affinity *a, const kp_pod *owner,
                        const kp_pod *q) {
    if (!a || a->n_required == 0) return false;
    for (uint16_t i = 0; i < a->n_required; i++)
        if (!kp__term_matches(s, &a->required[i], owner, q)) return false;
    return true;
}

/* mirrors InterPodAffinity.isSchedulableAfterPodChange for an assigned pod added (it matches
 * every required affinity term) or deleted (it matches every required anti-affinity term) */
static bool interpod_after_pod(const kp_sched *s, const kp_pod *p, const kp_pod *q, bool added) {
    return matches_all(s, added ? p->pod_affinity : p->pod_anti_affinity, p, q);
}

/* mirrors PodTopologySpread.isSchedulableAfterPodChange for an assigned pod added or deleted:
 * same namespace (involvedInTopologySpreading) and labels one constraint's selector matches */
static bool spread_after_pod(const kp_sched *s, const kp_spread_c *cs, uint16_t n, const kp_pod *p,
                             const kp_pod *q) {
    if (q->ns != p->ns) return false;
    for (uint16_t i = 0; i < n; i++)
        if (kp__spread_selector_matches(s->cl, &cs[i], &q->labels)) return true;
    return false;
}

/* mirrors NodePorts.isSchedulableAfterPodDeleted: the deleted pod held a host port the pod wants */
static bool ports_after_delete(const kp_sched *s, const kp_pod *p, const kp_pod *q) {
    return kp__host_ports_conflict(s->cl, p, q);
}

/* mirrors VolumeRestrictions.isSchedulableAfterPodDeleted: the deleted pod used a volume the pod
 * conflicts on (a claim both use; kprio does not tell the in-tree disks apart: any volume) */
static bool restrictions_after_delete(const kp_pod *p, const kp_pod *q) {
    if (q->n_volumes == 0) return false;
    for (uint16_t i = 0; i < q->n_volumes; i++) {
        if (!q->volumes[i].claim) return true;
        for (uint16_t j = 0; j < p->n_volumes; j++)
            if (p->ns == q->ns && p->volumes[j].claim == q->volumes[i].claim) return true;
    }
    return false;
}

/* mirrors NodeVolumeLimits.isSchedulableAfterPodDeleted: the deleted pod used attachable
 * volumes */
static bool limits_after_delete(const kp_pod *q) { return kp__pod_attachable(q) > 0; }

/* ---------------------------------------------------------------- assigned pod updates */

static bool labels_equal(const kp_labels *a, const kp_labels *b) {
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->items[i].key != b->items[i].key || a->items[i].val != b->items[i].val) return false;
    return true;
}

/* mirrors Fit.isResourceScaleDown: a resource the pod requests is counted smaller for the
 * updated pod than before (PodRequests with UseStatusResources: what its node accounts) */
static bool fit_after_update(const kp_sched *s, const kp_pod *p, const kp_pod *q) {
    const kp_cluster *cl = s->cl;
    if (!cl->gates.on[KP_GATE_IN_PLACE_POD_VERTICAL_SCALING]) return false; /* not registered */
    int64_t now[KP_MAX_RES] = {0};
    kp__pod_requests(cl, q, true, false, now);
    for (uint16_t i = 0; i < p->req.n; i++) {
        int r = p->req.e[i].res;
        if (p->req.e[i].v <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED && !kp__res_is_scalar(kp__s(cl, cl->res_names[r]))) continue;
        if (s->pod_old_req[r] > now[r]) return true;
    }
    return false;
}

/* mirrors PodTopologySpread.isSchedulableAfterPodChange for an assigned pod updated: same
 * namespace, labels changed so that a constraint's selector matches them now and did not, or
 * the reverse */
static bool spread_after_update(const kp_sched *s, const kp_spread_c *cs, uint16_t n,
                                const kp_pod *p, const kp_pod *q) {
    if (q->ns != p->ns || labels_equal(&s->pod_old_labels, &q->labels)) return false;
    for (uint16_t i = 0; i < n; i++)
        if (kp__spread_selector_matches(s->cl, &cs[i], &s->pod_old_labels) !=
            kp__spread_selector_matches(s->cl, &cs[i], &q->labels))
            return true;
    return false;
}

/* mirrors InterPodAffinity.isSchedulableAfterPodChange for an assigned pod updated: it matches
 * every required affinity term now and did not, or matched every anti-affinity term and does
 * not any more (the old labels on a copy of the pod) */
static bool interpod_after_update(const kp_sched *s, const kp_pod *p, const kp_pod *q) {
    kp_pod was = *q;
    was.labels = s->pod_old_labels;
    if (!matches_all(s, p->pod_affinity, p, &was) && matches_all(s, p->pod_affinity, p, q))
        return true;
    return matches_all(s, p->pod_anti_affinity, p, &was) &&
           !matches_all(s, p->pod_anti_affinity, p, q);
}

/* ---------------------------------------------------------------- one plugin, one event */

/* The hint of plugin pl for pod p and event ev (the plugin registers the event). Out of memory
 * (the spread constraints), Queue: upstream queues on a hint's error. */
static bool plugin_hint(kp_sched *s, kp_plugin pl, const kp_pod *p, const kp_sched_event *ev) {
    const kp_cluster *cl = s->cl;
    if (ev->kind == KP_SCHED_EV_PVC_ADD) return pod_uses_claim(p, &cl->vol.pvcs[ev->object]);
    if (storage_kind(ev->kind) >= 0) return true; /* PV, StorageClass, CSINode added */
    if (dra_event(ev->kind)) /* only DynamicResources registers them */
        return ev->kind == KP_SCHED_EV_CLAIM_CHANGE ? dra_after_claim(s, p, ev) : true;
    bool node_ev = ev->kind == KP_SCHED_EV_NODE_ADD || ev->kind == KP_SCHED_EV_NODE_UPDATE;
    const kp_node *n = node_ev ? &cl->nodes[ev->node] : NULL;
    const kp_node *old = ev->kind == KP_SCHED_EV_NODE_UPDATE ? old_node(s, ev) : NULL;
    if (ev->kind == KP_SCHED_EV_NODE_UPDATE && !old) return true; /* no old object: unknown */
    const kp_pod *q = node_ev ? NULL : &cl->pods[ev->pod];
    bool upd = ev->kind == KP_SCHED_EV_POD_UPDATE;
    if (upd && (!s->has_pod_old || s->pod_old_idx != ev->pod)) return true; /* no old object */
    /* the pod events' plugins other than NodeResourcesFit skip a pod on no node */
    if (q && ev->node < 0 && pl != KP_PL_FIT) return false;
    switch (pl) {
    case KP_PL_NODE_NAME: return node_name_after_node(p, n);
    case KP_PL_NODE_UNSCHEDULABLE: return unschedulable_after_node(s, p, old, n);
    case KP_PL_TAINT_TOLERATION: return taints_after_node(p, old, n);
    case KP_PL_NODE_AFFINITY: return affinity_after_node(s, p, old, n);
    case KP_PL_NODE_PORTS: return node_ev ? true : ports_after_delete(s, p, q);
    case KP_PL_FIT:
        /* isSchedulableAfterPodEvent: any assigned or nominated pod deleted; an update that
         * scales a resource the pod wants down */
        if (upd) return fit_after_update(s, p, q);
        if (!node_ev) return ev->node >= 0 || ev->nominated;
        return fit_after_node(s, p, old, n);
    case KP_PL_SPREAD: {
        kp_spread_c *cs = NULL;
        uint16_t nc = 0;
        kp__sched_use_profile(s, (uint32_t)(p - cl->pods)); /* its profile's default constraints */
        if (kp__spread_constraints(s, p, KP_WHEN_DONOTSCHEDULE, &cs, &nc) != KP_OK) return true;
        bool q_ok = node_ev ? spread_after_node(cs, nc, old, n)
                    : upd   ? spread_after_update(s, cs, nc, p, q)
                            : spread_after_pod(s, cs, nc, p, q);
        for (uint16_t i = 0; i < nc; i++) kp__pairmap_fini(&cs[i].counts);
        kp__free(cs);
        return q_ok;
    }
    case KP_PL_INTERPOD:
        if (node_ev) return interpod_after_node(p, n);
        if (upd) return interpod_after_update(s, p, q);
        return interpod_after_pod(s, p, q, ev->kind == KP_SCHED_EV_POD_ADD);
    case KP_PL_VOLUME_RESTRICTIONS: return node_ev ? true : restrictions_after_delete(p, q);
    case KP_PL_NODE_VOLUME_LIMITS: return node_ev ? true : limits_after_delete(q);
    case KP_PL_VOLUME_BINDING: /* Node events without a hint function */
    case KP_PL_VOLUME_ZONE: return true;
    case KP_PL_DYNAMIC_RESOURCES: return true; /* a node added or relabelled: no hint function */
    case KP_PL_SCHEDULING_GATES:
    case KP_PL_PRIORITY_SORT:
    case KP_PL_DEFAULT_PREEMPTION:
    case KP_PL_BALANCED:
    case KP_PL_IMAGE_LOCALITY:
    case KP_PL_DEFAULT_BINDER:
    case KP_PL_COUNT: return false;
    }
    return false;
}

/* ---------------------------------------------------------------- the public calls */

void kp_sched_node_before(kp_sched *s, kp_index node) {
    if (node < 0 || (size_t)node >= s->cl->n_nodes) {
        s->has_node_old = false;
        return;
    }
    /* a shallow copy: core replaces a node's label and taint arrays on a change, never edits
     * them in place, so the copy keeps the old ones (cluster_sim.c) */
    s->node_old = s->cl->nodes[node];
    s->node_old_idx = node;
    s->has_node_old = true;
}

void kp_sched_pod_before(kp_sched *s, kp_index pod) {
    s->has_pod_old = pod >= 0 && (size_t)pod < s->cl->n_pods;
    if (!s->has_pod_old) return;
    const kp_pod *p = &s->cl->pods[pod];
    s->pod_old_idx = pod;
    s->pod_old_labels = p->labels;
    memset(s->pod_old_req, 0, sizeof s->pod_old_req);
    kp__pod_requests(s->cl, p, true, false, s->pod_old_req);
}

/* mirrors AdmissionCheck (the pre-check of the node events before the hints): the pod fits the
 * node with its current pods (NodeResourcesFit's Fits), names it or no node (NodeName), finds
 * its host ports free (NodePorts), matches its required node affinity (NodeAffinity) and
 * tolerates its NoSchedule / NoExecute taints (TaintToleration). */
static bool admission_check(const kp_sched *s, const kp_pod *p, const kp_node *n) {
    const kp_cluster *cl = s->cl;
    if ((int64_t)n->n_pods + 1 > n->alloc[KP_RES_PODS]) return false;
    for (uint16_t i = 0; i < p->req.n; i++) {
        int r = p->req.e[i].res;
        int64_t want = p->req.e[i].v;
        if (want <= 0 || r == KP_RES_PODS) continue;
        if (r >= KP_RES_FIXED && !kp__res_is_scalar(kp__s(cl, cl->res_names[r]))) continue;
        if (want > n->alloc[r] - n->requested[r]) return false;
    }
    if (!node_name_after_node(p, n)) return false;
    for (uint32_t i = 0; i < n->n_pods; i++)
        if (kp__host_ports_conflict(cl, p, &cl->pods[n->pods[i]])) return false;
    if (!kp__pod_matches_node_selector_and_affinity(cl, p, n)) return false;
    return kp__first_untolerated_taint(p, n) < 0;
}

/* any required affinity term of p matches q (getUnschedulablePodsWithMatchingAffinityTerm) */
static bool affinity_term_matches(const kp_sched *s, const kp_pod *p, const kp_pod *q) {
    for (uint16_t i = 0; p->pod_affinity && i < p->pod_affinity->n_required; i++)
        if (kp__term_matches(s, &p->pod_affinity->required[i], p, q)) return true;
    return false;
}

/* Before the hints (SchedulerQueueingHints off): a rejecting plugin must register the event
 * (podMatchesEvent; every plugin with a node event then registered node updates too), the node
 * events move only the pods that pass the admission check on the node (preCheckForNode), an
 * assigned pod added only those with a required affinity term it matches (AssignedPodAdded);
 * the deletions move every pod whose plugins registered them. */
static kp_sched_hint without_hints(const kp_sched *s, const kp_pod *p, uint32_t rejectors,
                                   const kp_sched_event *ev) {
    bool node_ev = ev->kind == KP_SCHED_EV_NODE_ADD || ev->kind == KP_SCHED_EV_NODE_UPDATE;
    uint32_t reg = REGISTERED[node_ev ? KP_SCHED_EV_NODE_ADD : ev->kind];
    if ((rejectors & ~REJ_NONE) && !(rejectors & reg)) return KP_HINT_SKIP;
    if (node_ev)
        return admission_check(s, p, &s->cl->nodes[ev->node]) ? KP_HINT_QUEUE : KP_HINT_SKIP;
    if (storage_kind(ev->kind) >= 0 || dra_event(ev->kind)) return KP_HINT_QUEUE;
    if (ev->kind == KP_SCHED_EV_POD_ADD || ev->kind == KP_SCHED_EV_POD_UPDATE)
        /* AssignedPodAdded / AssignedPodUpdated: the pods with a required affinity term the
         * pod matches */
        return affinity_term_matches(s, p, &s->cl->pods[ev->pod]) ? KP_HINT_QUEUE : KP_HINT_SKIP;
    return KP_HINT_QUEUE;
}

kp_sched_hint kp_sched_queueing_hint(kp_sched *s, kp_index pod, const kp_sched_event *ev) {
    if (pod < 0 || (size_t)pod >= s->cl->n_pods || (unsigned)ev->kind >= KP_SCHED_EV_COUNT)
        return KP_HINT_QUEUE;
    bool node_ev = ev->kind == KP_SCHED_EV_NODE_ADD || ev->kind == KP_SCHED_EV_NODE_UPDATE;
    int vk = storage_kind(ev->kind);
    if (vk >= 0   ? ev->object < 0 || (size_t)ev->object >= s->cl->vol.n[vk]
        : node_ev ? ev->node < 0 || (size_t)ev->node >= s->cl->n_nodes
        : ev->kind == KP_SCHED_EV_CLAIM_CHANGE
            ? ev->object < 0 || (size_t)ev->object >= s->cl->dra.n_claims
        : dra_event(ev->kind) ? false
                              : ev->pod < 0 || (size_t)ev->pod >= s->cl->n_pods)
        return KP_HINT_QUEUE;
    int32_t ri = (size_t)pod < s->n_pods_seen ? s->res_of_pod[pod] : -1;
    uint32_t rejectors = ri >= 0 ? s->res[ri].rejectors : 0;
    const kp_pod *p = &s->cl->pods[pod];
    if (!s->queueing_hints) return without_hints(s, p, rejectors, ev);
    /* no rejecting plugin (no nodes, an error): queueAfterBackoff on any event */
    if ((rejectors & ~REJ_NONE) == 0) return KP_HINT_QUEUE;
    uint32_t ask = rejectors & REGISTERED[ev->kind];
    for (int pl = 0; ask; pl++, ask >>= 1)
        if ((ask & 1) && plugin_hint(s, (kp_plugin)pl, p, ev)) return KP_HINT_QUEUE;
    return KP_HINT_SKIP;
}

size_t kp_sched_rejecting_plugins(const kp_sched *s, kp_index pod, const char **names, size_t cap) {
    if (pod < 0 || (size_t)pod >= s->n_pods_seen || s->res_of_pod[pod] < 0) return 0;
    uint32_t m = s->res[s->res_of_pod[pod]].rejectors;
    size_t n = 0;
    for (int pl = 0; pl < KP_PL_COUNT; pl++) {
        if (!(m & BIT(pl))) continue;
        if (n < cap) names[n] = kp__plugin_name((kp_plugin)pl);
        n++;
    }
    return n;
}

/* The plugins of the statuses the attempt recorded (Diagnosis.UnschedulablePlugins: each
 * rejected node's failing plugin, the PreFilter rejection's). */
uint32_t kp__sched_rejectors_of(const kp_sched *s) {
    uint32_t m = 0;
    const char *last = NULL;
    for (uint32_t i = 0; i < s->cl->n_nodes; i++) {
        if (!s->has_status[i]) continue;
        const char *name = s->statuses[i].plugin;
        if (!name || name == last) continue;
        last = name;
        int pl = kp__plugin_by_name(name);
        if (pl >= 0) m |= BIT(pl);
    }
    return m;
}

void kp__sched_set_rejectors(kp_sched *s, kp_result_int *res, uint32_t rejectors) {
    uint32_t old = res->rejectors;
    if (rejectors == 0 && res->pub.outcome != KP_OUTCOME_BOUND) rejectors = REJ_NONE;
    for (int b = 0; b <= KP_PL_COUNT; b++) {
        if (old & BIT(b)) s->n_rejected_by[b]--;
        if (rejectors & BIT(b)) s->n_rejected_by[b]++;
    }
    res->rejectors = rejectors;
}

bool kp_sched_event_may_queue(const kp_sched *s, kp_sched_event_kind kind) {
    if ((unsigned)kind >= KP_SCHED_EV_COUNT || s->n_rejected_by[KP_PL_COUNT]) return true;
    /* before the hints an assigned pod added asks InterPodAffinity's and PodTopologySpread's
     * pods too: the same plugins */
    uint32_t reg = REGISTERED[kind];
    if (!s->queueing_hints && kind == KP_SCHED_EV_NODE_UPDATE)
        reg = REGISTERED[KP_SCHED_EV_NODE_ADD];
    for (int b = 0; b < KP_PL_COUNT; b++)
        if ((reg & BIT(b)) && s->n_rejected_by[b]) return true;
    return false;
}

size_t kp_sched_event_objects(const kp_sched *s, kp_sched_event_kind kind) {
    int vk = storage_kind(kind);
    return vk >= 0 ? s->cl->vol.n[vk] : 0;
}
