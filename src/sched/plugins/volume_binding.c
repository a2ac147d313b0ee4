/* VolumeBinding (pkg/scheduler/framework/plugins/volumebinding), its PreFilter and Filter: which
 * claims are bound, the unschedulable cases of its PreFilter, the bound PVs' node affinity, and for
 * unbound WaitForFirstConsumer claims the selected-node annotation, a matching available PV
 * (binder.go findMatchingVolumes, component-helpers FindMatchingVolume) or dynamic provisioning
 * within the class's allowedTopologies and the CSI driver's published storage capacity
 * (checkVolumeProvisions, hasEnoughCapacity); its PreFilterResult and Score are in
 * volume_binding_match.c. Not modelled: binding itself (a decision only: the PV chosen for one pod
 * is not reserved for the next). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/volume.h"
#include "sched/plugins/volume_binding.h"
#include "sched/plugins/volume_binding_match.h"
#include "sched/plugins/volume_zone.h"
#include "sched/status.h"

static kp_status reject_lost(kp_cluster *cl, kp_node_status *pre, const kp_pvc *pvc) {
    const char *a = kp__s(cl, pvc->name), *b = kp__s(cl, pvc->volume_name);
    size_t la = strlen(a), lb = strlen(b);
    static const char p1[] = "persistentvolumeclaim \"",
                      p2[] = "\" bound to non-existent persistentvolume \"";
    size_t n = sizeof p1 - 1 + la + sizeof p2 - 1 + lb + 1;
    char *buf = kp__malloc(n + 1);
    if (!buf) return KP_ENOMEM;
    char *w = buf;
    memcpy(w, p1, sizeof p1 - 1), w += sizeof p1 - 1;
    memcpy(w, a, la), w += la;
    memcpy(w, p2, sizeof p2 - 1), w += sizeof p2 - 1;
    memcpy(w, b, lb), w += lb;
    *w = '"';
    kp_str id = kp__intern(&cl->strs, buf, n);
    kp__free(buf);
    if (id == UINT32_MAX) return KP_ENOMEM;
    pre->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(pre, kp__s(cl, id));
    return KP_OK;
}

/* podHasPVCs: a generic ephemeral volume's claim not there yet is normal right after the pod was
 * created (the ephemeral volume controller makes it), so the lister's NotFound error is replaced
 * by this status, UnschedulableAndUnresolvable as every podHasPVCs error (PR #104605). */
static kp_status reject_ephemeral_missing(kp_cluster *cl, kp_node_status *pre, kp_str claim) {
    static const char p1[] = "waiting for ephemeral volume controller to create the "
                             "persistentvolumeclaim \"";
    const char *nm = kp__s(cl, claim);
    size_t ln = strlen(nm), n = sizeof p1 - 1 + ln + 1;
    char *buf = kp__malloc(n);
    if (!buf) return KP_ENOMEM;
    memcpy(buf, p1, sizeof p1 - 1);
    memcpy(buf + sizeof p1 - 1, nm, ln);
    buf[n - 1] = '"';
    kp_str id = kp__intern(&cl->strs, buf, n);
    kp__free(buf);
    if (id == UINT32_MAX) return KP_ENOMEM;
    pre->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(pre, kp__s(cl, id));
    return KP_OK;
}

/* mirrors VolumeBinding.PreFilter with podHasPVCs (a missing claim, a claim in phase Lost) and
 * GetPodVolumeClaims (bound: spec.volumeName and the bind-completed annotation; unbound of a
 * WaitForFirstConsumer class (IsDelayBindingMode: a class that does not exist is not); any other
 * unbound claim is an unbound immediate claim) */
kp_status kp__volume_binding_prefilter(kp_cycle *c, kp_node_status *pre) {
    const kp_pod *p = c->p;
    kp_cluster *cl = c->s->cl;
    uint32_t n = 0;
    for (uint16_t i = 0; i < p->n_volumes; i++)
        n += p->volumes[i].source == KP_VS_PVC || p->volumes[i].source == KP_VS_EPHEMERAL;
    if (!n) return KP_OK;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        if (v->source != KP_VS_PVC && v->source != KP_VS_EPHEMERAL) continue;
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
        if (!pvc && v->source == KP_VS_EPHEMERAL)
            return reject_ephemeral_missing(cl, pre, v->claim);
        if (!pvc) return kp__volume_not_found(cl, pre, "persistentvolumeclaim", v->claim);
        if (pvc->phase == KP_PVC_LOST) return reject_lost(cl, pre, pvc);
    }
    c->vb_bound = kp__malloc(n * sizeof *c->vb_bound);
    c->vb_unbound = kp__malloc(n * sizeof *c->vb_unbound);
    if (!c->vb_bound || !c->vb_unbound) return KP_ENOMEM;
    bool immediate = false;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        if (v->source != KP_VS_PVC && v->source != KP_VS_EPHEMERAL) continue;
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
        if (pvc->volume_name && pvc->bind_completed) {
            c->vb_bound[c->n_vb_bound++] =
                kp__cluster_find_volume(cl, KP_VK_PV, 0, pvc->volume_name);
            continue;
        }
        const kp_storage_class *sc =
            pvc->class_name ? kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name) : NULL;
        if (sc && sc->binding_mode == KP_BIND_WAIT && !pvc->volume_name)
            c->vb_unbound[c->n_vb_unbound++] = pvc;
        else immediate = true;
    }
    if (!immediate && c->n_vb_unbound) {
        kp_status st = kp__vb_prepare(c);
        if (st != KP_OK) return st;
    }
    if (!immediate && c->n_vb_bound) return kp__vb_eligible_nodes(c, pre);
    if (immediate) {
        pre->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(pre, "pod has unbound immediate PersistentVolumeClaims");
    }
    return KP_OK;
}

/* mirrors VolumeBinding.Filter and FindPodVolumes: every status UnschedulableAndUnresolvable,
 * with the reasons in upstream's order */
void kp__filter_volume_binding(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    bool bound_ok = true, pvs_found = true;
    for (uint32_t i = 0; i < c->n_vb_bound; i++) { /* checkBoundClaims */
        if (!c->vb_bound[i]) {
            pvs_found = false;
            break;
        }
        if (!kp__pv_node_affinity_ok(cl, c->vb_bound[i], n)) {
            bound_ok = false;
            break;
        }
    }
    kp_vb_verdict unbound = KP_VB_FITS;
    uint32_t n_chosen, n_prov;
    if (c->n_vb_unbound && c->vb) unbound = kp__vb_unbound(c, n, &n_chosen, &n_prov);
    if (bound_ok && pvs_found && unbound == KP_VB_FITS) return;
    st->code = KP_CODE_UNRESOLVABLE;
    if (!bound_ok) kp__status_add_reason(st, "node(s) had volume node affinity conflict");
    if (unbound == KP_VB_NO_MATCH)
        kp__status_add_reason(st, "node(s) didn't find available persistent volumes to bind");
    if (unbound == KP_VB_NO_SPACE)
        kp__status_add_reason(st, "node(s) did not have enough free storage");
    if (!pvs_found)
        kp__status_add_reason(st,
                              "node(s) unavailable due to one or more pvc(s) bound to non-existent "
                              "pv(s)");
}
