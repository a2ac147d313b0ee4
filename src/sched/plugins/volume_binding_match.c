/* VolumeBinding for claims not bound yet (pkg/scheduler/framework/plugins/volumebinding/binder.go
 * FindPodVolumes, findMatchingVolumes, checkVolumeProvisions; component-helpers
 * storage/volume/pv_helpers.go FindMatchingVolume). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/selector.h"
#include "sched/plugins/volume_binding.h"
#include "sched/plugins/volume_binding_match.h"

typedef struct kp_vb {
    const kp_pvc **to_match; /* claims without selected-node, by increasing request (stable) */
    uint32_t n_to_match;
    const kp_pv **pvs; /* PVs of the unbound claims' classes, in load order */
    uint32_t n_pvs;
    /* Filter scratch (as long as the unbound claims): PVs chosen, claims to provision */
    const kp_pv **chosen;
    const kp_pvc **prov;
} kp_vb;

void kp__volume_binding_fini(kp_cycle *c) {
    if (!c->vb) return;
    kp__free(c->vb->to_match);
    kp__free(c->vb->pvs);
    kp__free(c->vb->chosen);
    kp__free(c->vb->prov);
    kp__free(c->vb);
    c->vb = NULL;
}

/* mirrors GetPodVolumeClaims (unboundVolumesDelayBinding: pvCache.ListPVs per class) and the
 * byPVCSize sort of findMatchingVolumes */
kp_status kp__vb_prepare(kp_cycle *c) {
    const kp_cluster *cl = c->s->cl;
    uint32_t n = c->n_vb_unbound;
    kp_vb *vb = c->vb = kp__calloc(1, sizeof *vb);
    if (!vb) return KP_ENOMEM;
    vb->to_match = kp__malloc(n * sizeof *vb->to_match);
    vb->chosen = kp__malloc(n * sizeof *vb->chosen);
    vb->prov = kp__malloc(n * sizeof *vb->prov);
    if (!vb->to_match || !vb->chosen || !vb->prov) return KP_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const kp_pvc *pvc = c->vb_unbound[i];
        if (pvc->selected_node) continue;
        uint32_t k = vb->n_to_match++; /* insertion: equal sizes keep the pod's order */
        while (k > 0 && vb->to_match[k - 1]->request > pvc->request) {
            vb->to_match[k] = vb->to_match[k - 1];
            k--;
        }
        vb->to_match[k] = pvc;
    }
    uint32_t n_pv = cl->vol.n[KP_VK_PV], m = 0;
    for (uint32_t i = 0; i < n_pv; i++) {
        const kp_pv *pv = &cl->vol.pvs[i];
        bool want = false;
        for (uint32_t k = 0; k < vb->n_to_match && !want; k++)
            want = pv->class_name == vb->to_match[k]->class_name;
        m += want;
    }
    if (m && !(vb->pvs = kp__malloc(m * sizeof *vb->pvs))) return KP_ENOMEM;
    for (uint32_t i = 0; i < n_pv && vb->n_pvs < m; i++) {
        const kp_pv *pv = &cl->vol.pvs[i];
        bool want = false;
        for (uint32_t k = 0; k < vb->n_to_match && !want; k++)
            want = pv->class_name == vb->to_match[k]->class_name;
        if (want) vb->pvs[vb->n_pvs++] = pv;
    }
    return KP_OK;
}

/* volume.CheckNodeAffinity: the PV's required terms against a node that has only the node's
 * labels (so matchFields on metadata.name see an empty name) */
bool kp__pv_affinity_ok(const kp_cluster *cl, const kp_pv *pv, const kp_node *n) {
    if (!pv->has_affinity) return true;
    for (uint16_t t = 0; t < pv->n_terms; t++) {
        const kp_nsterm *term = &pv->terms[t];
        if (!term->n_exprs && !term->n_fields) continue; /* an empty term matches nothing */
        bool ok = true;
        for (uint16_t e = 0; e < term->n_exprs && ok; e++)
            ok = kp__selreq_matches(cl, &term->exprs[e], &n->labels);
        for (uint16_t f = 0; f < term->n_fields && ok; f++) {
            const kp_selreq *r = &term->fields[f];
            bool has = false; /* is "" among the values? (a name is never empty) */
            for (uint16_t k = 0; k < r->n_values; k++) has |= r->values[k] == 0;
            ok = r->op == KP_OP_IN ? has : r->op == KP_OP_NOTIN ? !has : false;
        }
        if (ok) return true;
    }
    return false;
}

/* mirrors IsVolumeBoundToClaim */
static bool bound_to_claim(const kp_pv *pv, const kp_pvc *claim) {
    return pv->has_claim_ref && pv->claim_name == claim->name && pv->claim_ns == claim->ns &&
           (!pv->claim_uid || pv->claim_uid == claim->uid);
}

/* mirrors FindMatchingVolume on the scheduler path (node set, delayBinding true): a PV pre-bound to
 * the claim wins (or, failing the node's affinity, nothing does); else the smallest Available PV of
 * the claim's class whose size, volume mode, attributes class, selector, node affinity and access
 * modes fit (VolumeAttributesClass is GA: the names must be equal) */
const kp_pv *kp__vb_find_matching(const kp_cycle *c, const kp_pvc *claim, const kp_node *n,
                                  const kp_pv *const *chosen, uint32_t n_chosen) {
    const kp_cluster *cl = c->s->cl;
    const kp_vb *vb = c->vb;
    const kp_pv *smallest = NULL;
    for (uint32_t i = 0; i < vb->n_pvs; i++) {
        const kp_pv *pv = vb->pvs[i];
        if (pv->class_name != claim->class_name) continue; /* ListPVs(class) */
        bool excluded = false;
        for (uint32_t k = 0; k < n_chosen && !excluded; k++) excluded = chosen[k] == pv;
        if (excluded) continue;
        if (pv->has_claim_ref && !bound_to_claim(pv, claim)) continue;
        if (pv->capacity < claim->request) continue;
        if (pv->block != claim->block || pv->vac != claim->vac || pv->deleting) continue;
        bool affinity = kp__pv_affinity_ok(cl, pv, n);
        if (bound_to_claim(pv, claim)) return affinity ? pv : NULL;
        if (pv->phase != KP_PV_AVAILABLE) continue;
        if (claim->selector.is_set && !kp__selector_matches(cl, &claim->selector, &pv->labels))
            continue;
        if (!affinity || (claim->access_modes & ~pv->access_modes)) continue; /* CheckAccessModes */
        if (!smallest || smallest->capacity > pv->capacity) smallest = pv;
    }
    return smallest;
}

/* v1helper.MatchTopologySelectorTerms: no terms match every node; an empty term matches none */
static bool topology_ok(const kp_cluster *cl, const kp_storage_class *sc, const kp_node *n) {
    if (!sc->n_topo) return true;
    for (uint16_t t = 0; t < sc->n_topo; t++) {
        const kp_nsterm *term = &sc->topo[t];
        bool ok = term->n_exprs > 0;
        for (uint16_t e = 0; e < term->n_exprs && ok; e++)
            ok = term->exprs[e].n_values > 0 && kp__selreq_matches(cl, &term->exprs[e], &n->labels);
        if (ok) return true;
    }
    return false;
}

/* mirrors checkVolumeProvisions without the capacity check: every claim's class has a provisioner
 * (not kubernetes.io/no-provisioner) whose allowedTopologies admit the node */
static bool provisionable(const kp_cluster *cl, const kp_pvc *const *claims, uint32_t n,
                          const kp_node *nd) {
    for (uint32_t i = 0; i < n; i++) {
        const kp_storage_class *sc =
            kp__cluster_find_volume(cl, KP_VK_SC, 0, claims[i]->class_name);
        if (!sc || !sc->provisioner) return false;
        if (strcmp(kp__s(cl, sc->provisioner), "kubernetes.io/no-provisioner") == 0) return false;
        if (!topology_ok(cl, sc, nd)) return false;
    }
    return true;
}

/* mirrors the unbound part of FindPodVolumes */
bool kp__vb_unbound_ok(const kp_cycle *c, const kp_node *n) {
    const kp_vb *vb = c->vb;
    uint32_t n_prov = 0, n_chosen = 0;
    for (uint32_t i = 0; i < c->n_vb_unbound; i++) { /* the selected-node annotation */
        const kp_pvc *pvc = c->vb_unbound[i];
        if (!pvc->selected_node) continue;
        if (pvc->selected_node != n->name) return false; /* fast path */
        vb->prov[n_prov++] = pvc;
    }
    bool found = true;
    for (uint32_t i = 0; i < vb->n_to_match; i++) { /* findMatchingVolumes */
        const kp_pv *pv = kp__vb_find_matching(c, vb->to_match[i], n, vb->chosen, n_chosen);
        if (pv) vb->chosen[n_chosen++] = pv;
        else {
            vb->prov[n_prov++] = vb->to_match[i];
            found = false;
        }
    }
    return n_prov ? provisionable(c->s->cl, vb->prov, n_prov, n) : found;
}
