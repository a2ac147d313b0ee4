/* VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions): in-tree disks that two
 * pods on one node may not share, and ReadWriteOncePod claims used by another pod anywhere. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/volume.h"
#include "sched/compat.h"
#include "sched/plugins/volume_restrictions.h"
#include "sched/plugins/volume_zone.h"
#include "sched/status.h"

static bool is_disk(const kp_volume *v) {
    return v->source == KP_VS_GCE_PD || v->source == KP_VS_AWS_EBS || v->source == KP_VS_ISCSI ||
           v->source == KP_VS_RBD;
}

/* mirrors haveOverlap */
static bool have_overlap(const kp_volume *a, const kp_volume *b) {
    for (uint16_t i = 0; i < a->n_monitors; i++)
        for (uint16_t j = 0; j < b->n_monitors; j++)
            if (a->monitors[i] == b->monitors[j]) return true;
    return false;
}

/* mirrors isVolumeConflict: v (the incoming pod's) against every volume of pod q */
static bool volume_conflict(const kp_volume *v, const kp_pod *q) {
    for (uint16_t i = 0; i < q->n_volumes; i++) {
        const kp_volume *e = &q->volumes[i];
        if (e->source != v->source) continue;
        switch (v->source) {
        case KP_VS_GCE_PD: /* the same PD conflicts unless both mount it read-only */
        case KP_VS_ISCSI: /* the same IQN: likewise */
            if (v->disk == e->disk && !(v->read_only && e->read_only)) return true;
            break;
        case KP_VS_AWS_EBS: /* the same volume ID always conflicts */
            if (v->disk == e->disk) return true;
            break;
        case KP_VS_RBD: /* a shared monitor, the same pool and image, not both read-only */
            if (have_overlap(v, e) && v->pool == e->pool && v->disk == e->disk &&
                !(v->read_only && e->read_only))
                return true;
            break;
        default: break;
        }
    }
    return false;
}

/* Claims used by a pod on a node (the snapshot's usedPVCSet: IsPVCUsedByPods(ns/name)). */
static bool claim_in_use(const kp_cluster *cl, kp_str ns, kp_str claim) {
    for (uint32_t n = 0; n < cl->n_nodes; n++) {
        const kp_node *nd = &cl->nodes[n];
        for (uint32_t i = 0; i < nd->n_pods; i++) {
            const kp_pod *q = &cl->pods[nd->pods[i]];
            if (q->ns != ns || !q->n_volumes) continue;
            for (uint16_t k = 0; k < q->n_volumes; k++)
                if (q->volumes[k].source == KP_VS_PVC && q->volumes[k].claim == claim) return true;
        }
    }
    return false;
}

/* mirrors VolumeRestrictions.PreFilter, readWriteOncePodPVCsForPod and calPreFilterState */
kp_status kp__volume_restrictions_prefilter(kp_cycle *c, kp_node_status *pre, bool *skip) {
    const kp_pod *p = c->p;
    kp_cluster *cl = c->s->cl;
    *skip = true;
    if (!p->n_volumes) return KP_OK;
    bool needs_check = false;
    uint32_t n_claims = 0;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        needs_check |= is_disk(&p->volumes[i]);
        n_claims += p->volumes[i].source == KP_VS_PVC;
    }
    if (n_claims && !(c->rwop = kp__malloc(n_claims * sizeof *c->rwop))) return KP_ENOMEM;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        if (v->source != KP_VS_PVC) continue;
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
        if (!pvc) {
            /* the lister's NotFound error as the status (UnschedulableAndUnresolvable) */
            return kp__volume_not_found(cl, pre, "persistentvolumeclaim", v->claim);
        }
        if (!(pvc->access_modes & KP_AM_RWOP)) continue;
        bool dup = false;
        for (uint32_t k = 0; k < c->n_rwop && !dup; k++) dup = c->rwop[k] == v->claim;
        if (!dup) c->rwop[c->n_rwop++] = v->claim;
    }
    /* there can be only one pod using a ReadWriteOncePod claim: count each claim in use once */
    for (uint32_t k = 0; k < c->n_rwop; k++) c->rwop_refs += claim_in_use(cl, p->ns, c->rwop[k]);
    *skip = !needs_check && c->rwop_refs == 0;
    return KP_OK;
}

/* mirrors preFilterState.updateWithPod / conflictingPVCRefCountForPod: q's claim volumes whose
 * name is one of the pod's ReadWriteOncePod claims (by name only, as upstream: the namespace is
 * not compared) */
void kp__volume_restrictions_update(kp_cycle *c, const kp_pod *q, int sign) {
    for (uint16_t i = 0; i < q->n_volumes; i++) {
        if (q->volumes[i].source != KP_VS_PVC) continue;
        for (uint32_t k = 0; k < c->n_rwop; k++)
            if (c->rwop[k] == q->volumes[i].claim) c->rwop_refs += sign;
    }
}

/* mirrors VolumeRestrictions.Filter (satisfyVolumeConflicts, then satisfyReadWriteOncePod); the
 * node's pods include, in the nominated pass, the nominated pods c->extra */
void kp__filter_volume_restrictions(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        if (!is_disk(v)) continue;
        bool conflict = false;
        for (uint32_t k = 0; k < n->n_pods && !conflict; k++)
            conflict = volume_conflict(v, &cl->pods[n->pods[k]]);
        for (uint32_t k = 0; k < c->n_extra && !conflict; k++)
            conflict = volume_conflict(v, &cl->pods[c->extra[k]]);
        if (conflict) {
            st->code = KP_CODE_UNSCHEDULABLE;
            kp__status_add_reason(st, "node(s) had no available disk");
            return;
        }
    }
    if (c->rwop_refs > 0) { /* satisfyReadWriteOncePod: Unschedulable (preemption may free it) */
        st->code = KP_CODE_UNSCHEDULABLE;
        kp__status_add_reason(st, kp__compat_rwop_in_use_reason(c->s->compat)
                                      ? "node(s) unavailable due to PersistentVolumeClaim with "
                                        "ReadWriteOncePod access mode already in-use by another pod"
                                      : "node has pod using PersistentVolumeClaim with the same "
                                        "name and ReadWriteOncePod access mode");
    }
}
