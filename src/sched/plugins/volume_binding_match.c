/* VolumeBinding for claims not bound yet (pkg/scheduler/framework/plugins/volumebinding/binder.go
 * FindPodVolumes, findMatchingVolumes, checkVolumeProvisions; component-helpers
 * storage/volume/pv_helpers.go FindMatchingVolume). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/selector.h"
#include "sched/compat.h"
#include "sched/plugins/volume_binding.h"
#include "sched/plugins/volume_binding_match.h"
#include "sched/status.h"

typedef struct kp_vb {
    const kp_pvc **to_match; /* claims without selected-node, by increasing request (stable) */
    uint32_t n_to_match;
    /* per claim to match, the PVs of its class that pass FindMatchingVolume's checks that do not
     * depend on the node, in load order: pvs[first[k] .. first[k + 1]) */
    const kp_pv **pvs;
    uint32_t *first;
    /* Filter scratch (as long as the unbound claims): PVs chosen and the claims they bind, claims
     * to provision and the CSIStorageCapacity hasEnoughCapacity found for each (NULL: none read) */
    const kp_pv **chosen;
    const kp_pvc **chosen_for;
    const kp_pvc **prov;
    const kp_csi_capacity **prov_cap;
    const kp_storage_class **prov_class; /* per unbound claim: provisioning_class */
    /* per unbound claim: hasEnoughCapacity checks it (a storage request, its class's provisioner a
     * CSIDriver with storageCapacity), and then the CSIStorageCapacity objects of its class whose
     * limit is large enough, in load order: caps[cap_first[i] .. cap_first[i + 1]) */
    bool *cap_check;
    uint32_t *cap_first;
    const kp_csi_capacity **caps;
} kp_vb;

void kp__volume_binding_fini(kp_cycle *c) {
    if (!c->vb) return;
    kp__free(c->vb->to_match);
    kp__free(c->vb->pvs);
    kp__free(c->vb->first);
    kp__free(c->vb->chosen);
    kp__free(c->vb->chosen_for);
    kp__free(c->vb->prov);
    kp__free(c->vb->prov_cap);
    kp__free(c->vb->cap_check);
    kp__free(c->vb->cap_first);
    kp__free(c->vb->caps);
    kp__free(c->vb->prov_class);
    kp__free(c->vb);
    c->vb = NULL;
}

/* The PVs without claimRef, and the claims some PV's claimRef names (kp_volumes' VolumeBinding
 * index): a claim without such a PV can only match a PV without claimRef. */
static kp_status build_index(kp_cluster *cl) {
    kp_volumes *vol = &cl->vol;
    if (vol->vb_indexed && memcmp(vol->n_vb_indexed, vol->n, sizeof vol->n) == 0) return KP_OK;
    uint32_t n_pv = vol->n[KP_VK_PV], n_pvc = vol->n[KP_VK_PVC], n_free = 0;
    for (uint32_t i = 0; i < n_pv; i++) n_free += !vol->pvs[i].has_claim_ref;
    uint32_t *free_pvs = n_free ? kp__arena_alloc(&cl->arena, n_free * sizeof *free_pvs) : NULL;
    bool *pre = n_pvc ? kp__arena_alloc(&cl->arena, n_pvc * sizeof *pre) : NULL;
    if ((n_free && !free_pvs) || (n_pvc && !pre)) return KP_ENOMEM;
    n_free = 0;
    for (uint32_t i = 0; i < n_pv; i++) {
        const kp_pv *pv = &vol->pvs[i];
        if (!pv->has_claim_ref) {
            free_pvs[n_free++] = i;
            continue;
        }
        const kp_pvc *c = kp__cluster_find_volume(cl, KP_VK_PVC, pv->claim_ns, pv->claim_name);
        if (c) pre[c - vol->pvcs] = true;
    }
    vol->pv_free = free_pvs;
    vol->n_pv_free = n_free;
    vol->pvc_prebound = pre;
    memcpy(vol->n_vb_indexed, vol->n, sizeof vol->n);
    vol->vb_indexed = true;
    return KP_OK;
}

/* The part of hasEnoughCapacity that does not depend on the node, once per cycle: whether the
 * claim is checked (a storage request; the class's provisioner names a CSIDriver with
 * storageCapacity true: no CSIDriver, or storageCapacity false or unset, checks nothing), and the
 * CSIStorageCapacity objects of the class whose limit is sufficient (vb->caps). */
static kp_status prepare_capacities(kp_cycle *c) {
    const kp_cluster *cl = c->s->cl;
    kp_vb *vb = c->vb;
    const kp_volumes *vol = &cl->vol;
    uint32_t n = c->n_vb_unbound, n_caps = vol->n[KP_VK_CSISC];
    for (uint32_t i = 0; i < n; i++)
        vb->cap_check[i] = kp__capacity_checked(cl, c->vb_unbound[i], vb->prov_class[i]);
    size_t m = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (pass) vb->cap_first[i] = at;
            if (!vb->cap_check[i]) continue;
            const kp_pvc *pvc = c->vb_unbound[i];
            for (uint32_t k = 0; k < n_caps; k++) {
                const kp_csi_capacity *cap = &vol->capacities[k];
                if (cap->class_name != vb->prov_class[i]->name ||
                    !kp__capacity_sufficient(cap, pvc->request))
                    continue;
                if (pass) vb->caps[at] = cap;
                at++;
            }
        }
        if (pass) vb->cap_first[n] = at;
        else if ((m = at) && !(vb->caps = kp__malloc(m * sizeof *vb->caps))) return KP_ENOMEM;
    }
    return KP_OK;
}

/* mirrors GetPodVolumeClaims (unboundVolumesDelayBinding: pvCache.ListPVs per class) and the
 * byPVCSize sort of findMatchingVolumes; each claim's candidate PVs are found once here (among
 * the PVs without claimRef, or every PV when one's claimRef names the claim) */
kp_status kp__vb_prepare(kp_cycle *c) {
    kp_cluster *cl = c->s->cl;
    uint32_t n = c->n_vb_unbound;
    kp_vb *vb = c->vb = kp__calloc(1, sizeof *vb);
    if (!vb) return KP_ENOMEM;
    vb->to_match = kp__malloc(n * sizeof *vb->to_match);
    vb->chosen = kp__malloc(n * sizeof *vb->chosen);
    vb->prov = kp__malloc(n * sizeof *vb->prov);
    vb->first = kp__calloc(n + 1, sizeof *vb->first);
    vb->prov_class = kp__malloc(n * sizeof *vb->prov_class);
    vb->chosen_for = kp__malloc(n * sizeof *vb->chosen_for);
    vb->prov_cap = kp__malloc(n * sizeof *vb->prov_cap);
    vb->cap_check = kp__calloc(n, sizeof *vb->cap_check);
    vb->cap_first = kp__calloc(n + 1, sizeof *vb->cap_first);
    if (!vb->to_match || !vb->chosen || !vb->prov || !vb->first || !vb->prov_class ||
        !vb->chosen_for || !vb->prov_cap || !vb->cap_check || !vb->cap_first)
        return KP_ENOMEM;
    kp_status st = build_index(cl);
    if (st != KP_OK) return st;
    for (uint32_t i = 0; i < n; i++)
        vb->prov_class[i] = kp__provisioning_class(cl, c->vb_unbound[i]);
    if ((st = prepare_capacities(c)) != KP_OK) return st;
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
    const kp_volumes *vol = &cl->vol;
    size_t m = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t at = 0;
        for (uint32_t k = 0; k < vb->n_to_match; k++) {
            const kp_pvc *claim = vb->to_match[k];
            bool all = vol->pvc_prebound[claim - vol->pvcs];
            uint32_t n_scan = all ? vol->n[KP_VK_PV] : vol->n_pv_free;
            if (pass) vb->first[k] = at;
            for (uint32_t i = 0; i < n_scan; i++) {
                const kp_pv *pv = &vol->pvs[all ? i : vol->pv_free[i]];
                if (!kp__pv_claim_candidate(pv, claim)) continue;
                if (pass) vb->pvs[at] = pv;
                at++;
            }
        }
        if (pass) vb->first[vb->n_to_match] = at;
        else if ((m = at) && !(vb->pvs = kp__malloc(m * sizeof *vb->pvs))) return KP_ENOMEM;
    }
    return KP_OK;
}

/* mirrors FindMatchingVolume on the scheduler path (node set, delayBinding true): a PV pre-bound to
 * the claim wins (or, failing the node's affinity, nothing does); else the smallest Available PV of
 * the claim's class whose size, volume mode, attributes class, selector, node affinity and access
 * modes fit (VolumeAttributesClass is GA: the names must be equal) */
const kp_pv *kp__vb_find_matching(const kp_cycle *c, uint32_t k, const kp_node *n,
                                  const kp_pv *const *chosen, uint32_t n_chosen) {
    const kp_cluster *cl = c->s->cl;
    const kp_vb *vb = c->vb;
    const kp_pvc *claim = vb->to_match[k];
    const kp_pv *smallest = NULL;
    for (uint32_t i = vb->first[k]; i < vb->first[k + 1]; i++) {
        const kp_pv *pv = vb->pvs[i]; /* class, claimRef, size, mode, class of attributes: ok */
        bool excluded = false;
        for (uint32_t j = 0; j < n_chosen && !excluded; j++) excluded = chosen[j] == pv;
        if (excluded) continue;
        bool affinity = kp__pv_node_affinity_ok(cl, pv, n);
        if (kp__pv_bound_to_claim(pv, claim)) return affinity ? pv : NULL;
        if (pv->phase != KP_PV_AVAILABLE) continue;
        if (claim->selector.is_set && !kp__selector_matches(cl, &claim->selector, &pv->labels))
            continue;
        if (!affinity || (claim->access_modes & ~pv->access_modes)) continue; /* CheckAccessModes */
        if (!smallest || smallest->capacity > pv->capacity) smallest = pv;
    }
    return smallest;
}

/* mirrors hasEnoughCapacity's node part and nodeHasAccess: the first CSIStorageCapacity (load
 * order) of the k-th unbound claim's class, large enough, whose nodeTopology selects the node
 * (*cap; NULL when the claim is not checked) */
static bool enough_capacity(const kp_cycle *c, uint32_t k, const kp_node *nd,
                            const kp_csi_capacity **cap) {
    const kp_vb *vb = c->vb;
    *cap = NULL;
    if (!vb->cap_check[k]) return true;
    for (uint32_t i = vb->cap_first[k]; i < vb->cap_first[k + 1]; i++)
        if (kp__selector_matches(c->s->cl, &vb->caps[i]->topology, &nd->labels)) {
            *cap = vb->caps[i];
            return true;
        }
    return false;
}

/* mirrors checkVolumeProvisions: in order, every claim's class can provision (vb->prov_class,
 * found once per cycle), its allowedTopologies admit the node (else a bind conflict) and
 * hasEnoughCapacity finds room (else not enough storage); the first failure decides */
static kp_vb_verdict provisionable(const kp_cycle *c, uint32_t n, const kp_node *nd) {
    const kp_vb *vb = c->vb;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = 0;
        while (k < c->n_vb_unbound && c->vb_unbound[k] != vb->prov[i]) k++;
        const kp_storage_class *sc = k < c->n_vb_unbound ? vb->prov_class[k] : NULL;
        if (!sc || !kp__class_topology_ok(c->s->cl, sc, nd)) return KP_VB_NO_MATCH;
        if (!enough_capacity(c, k, nd, &vb->prov_cap[i])) return KP_VB_NO_SPACE;
    }
    return KP_VB_FITS;
}

/* mirrors the unbound part of FindPodVolumes: the PVs chosen (vb->chosen, the claims they bind in
 * vb->chosen_for; *n_chosen) and the claims to provision (vb->prov, *n_prov) */
kp_vb_verdict kp__vb_unbound(const kp_cycle *c, const kp_node *n, uint32_t *n_chosen,
                             uint32_t *n_prov) {
    const kp_vb *vb = c->vb;
    *n_prov = *n_chosen = 0;
    for (uint32_t i = 0; i < c->n_vb_unbound; i++) { /* the selected-node annotation */
        const kp_pvc *pvc = c->vb_unbound[i];
        if (!pvc->selected_node) continue;
        if (pvc->selected_node != n->name) return KP_VB_NO_MATCH; /* fast path */
        vb->prov[(*n_prov)++] = pvc;
    }
    bool found = true;
    for (uint32_t i = 0; i < vb->n_to_match; i++) { /* findMatchingVolumes */
        const kp_pv *pv = kp__vb_find_matching(c, i, n, vb->chosen, *n_chosen);
        if (pv) {
            vb->chosen_for[*n_chosen] = vb->to_match[i];
            vb->chosen[(*n_chosen)++] = pv;
        } else {
            vb->prov[(*n_prov)++] = vb->to_match[i];
            found = false;
        }
    }
    if (*n_prov) return provisionable(c, *n_prov, n);
    return found ? KP_VB_FITS : KP_VB_NO_MATCH;
}

/* Appends the names of values (unique) to *a. False when out of memory. */
static bool names_add(kp_str **a, uint32_t *n, const kp_str *v, uint16_t nv) {
    for (uint16_t k = 0; k < nv; k++) {
        bool dup = false;
        for (uint32_t i = 0; i < *n && !dup; i++) dup = (*a)[i] == v[k];
        if (dup) continue;
        kp_str *g = kp__realloc(*a, (*n + 1) * sizeof **a);
        if (!g) return false;
        *a = g;
        (*a)[(*n)++] = v[k];
    }
    return true;
}

/* Keeps in a[0..*n) the names also in b[0..nb). */
static void names_keep(kp_str *a, uint32_t *n, const kp_str *b, uint32_t nb) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < *n; i++) {
        bool in = false;
        for (uint32_t k = 0; k < nb && !in; k++) in = b[k] == a[i];
        if (in) a[m++] = a[i];
    }
    *n = m;
}

/* mirrors GetLocalPersistentVolumeNodeNames: per term, the intersection of its
 * `kubernetes.io/hostname In (...)` expressions' values; the union over terms. False when out of
 * memory. */
static bool pv_node_names(const kp_cluster *cl, const kp_pv *pv, kp_str **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    if (!pv->has_affinity) return true;
    for (uint16_t t = 0; t < pv->n_terms; t++) {
        kp_str *term = NULL;
        uint32_t nt = 0;
        bool set = false;
        for (uint16_t e = 0; e < pv->terms[t].n_exprs; e++) {
            const kp_selreq *r = &pv->terms[t].exprs[e];
            if (r->key != cl->s_hostname_key || r->op != KP_OP_IN) continue;
            if (!set) {
                set = true;
                if (!names_add(&term, &nt, r->values, r->n_values)) goto oom;
            } else names_keep(term, &nt, r->values, r->n_values);
        }
        bool ok = names_add(out, n, term, (uint16_t)nt);
        kp__free(term);
        if (!ok) return false;
        continue;
    oom:
        kp__free(term);
        return false;
    }
    return true;
}

/* mirrors GetEligibleNodes and RunPreFilterPlugins' merge of PreFilterResults */
kp_status kp__vb_eligible_nodes(kp_cycle *c, kp_node_status *pre) {
    kp_cluster *cl = c->s->cl;
    for (uint32_t i = 0; i < c->n_vb_bound; i++)
        if (!c->vb_bound[i]) return KP_OK; /* an error looking a PV up: no reduction */
    kp_str *acc = NULL;
    uint32_t n_acc = 0;
    bool have = false;
    for (uint32_t i = 0; i < c->n_vb_bound; i++) {
        kp_str *names;
        uint32_t nn;
        if (!pv_node_names(cl, c->vb_bound[i], &names, &nn)) {
            kp__free(acc);
            return KP_ENOMEM;
        }
        if (!nn) continue;
        if (!have) {
            acc = names, n_acc = nn, have = true;
            continue;
        }
        names_keep(acc, &n_acc, names, nn);
        kp__free(names);
    }
    if (!have) return KP_OK;
    uint8_t *set = kp__calloc(cl->n_nodes + 1, 1);
    if (!set) {
        kp__free(acc);
        return KP_ENOMEM;
    }
    for (uint32_t i = 0; i < n_acc; i++) {
        long nd = kp_cluster_find_node(cl, kp__s(cl, acc[i]));
        if (nd >= 0) set[nd] = 1;
    }
    kp__free(acc);
    bool na = c->allowed != NULL, any = false;
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        if (na) set[i] &= c->allowed[i];
        any |= set[i] != 0;
    }
    kp__free(c->allowed);
    c->allowed = set;
    c->vb_narrowed = na ? 2 : 1;
    if (n_acc == 0 || (na && !any)) {
        pre->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(pre, na ? "node(s) didn't satisfy plugin(s) [NodeAffinity "
                                        "VolumeBinding] simultaneously"
                                      : "node(s) didn't satisfy plugin VolumeBinding");
    }
    return KP_OK;
}

/* brokenLinear over the default shape {0: 10, 100: 0} scaled to 0..100 (MaxNodeScore /
 * MaxCustomPriorityScore = 10) of buildScorerFunction: 100 - utilization; a class whose
 * capacity is 0 or below the request counts as 100 % used */
static int64_t class_score(int64_t requested, int64_t capacity) {
    if (capacity <= 0 || requested > capacity) return 0;
    int64_t util =
        capacity > INT64_MAX / 100 ? requested / (capacity / 100) : requested * 100 / capacity;
    return 100 - (util > 100 ? 100 : util);
}

/* The scorer over classes (buildScorerFunction): the mean of class_score, rounded (math.Round);
 * no class: 0. */
static int64_t mean_score(int64_t sum, int64_t classes) {
    return classes ? (2 * sum + classes) / (2 * classes) : 0;
}

/* Score's static bindings: per PV class, the claims' requests against the PVs' capacities */
static int64_t static_score(const kp_cycle *t, uint32_t n_chosen) {
    const kp_vb *vb = t->vb;
    int64_t sum = 0, classes = 0;
    for (uint32_t a = 0; a < n_chosen; a++) { /* group by the PV's class */
        kp_str cls = vb->chosen[a]->class_name;
        bool seen = false;
        for (uint32_t b = 0; b < a && !seen; b++) seen = vb->chosen[b]->class_name == cls;
        if (seen) continue;
        int64_t req = 0, cap = 0;
        for (uint32_t b = a; b < n_chosen; b++) {
            if (vb->chosen[b]->class_name != cls) continue;
            cap += vb->chosen[b]->capacity;
            req += vb->chosen_for[b]->request;
        }
        sum += class_score(req, cap);
        classes++;
    }
    return mean_score(sum, classes);
}

/* Score's dynamic provisions (no static binding): per claim class, the requests of the claims
 * whose capacity check found a CSIStorageCapacity against that object's capacity (the last such
 * claim's; maximumVolumeSize is not used here, an object without capacity counts as 0) */
static int64_t dynamic_score(const kp_cycle *t, uint32_t n_prov) {
    const kp_vb *vb = t->vb;
    int64_t sum = 0, classes = 0;
    for (uint32_t a = 0; a < n_prov; a++) {
        if (!vb->prov_cap[a]) continue;
        kp_str cls = vb->prov[a]->class_name;
        bool seen = false;
        for (uint32_t b = 0; b < a && !seen; b++)
            seen = vb->prov_cap[b] && vb->prov[b]->class_name == cls;
        if (seen) continue;
        int64_t req = 0, cap = 0;
        for (uint32_t b = a; b < n_prov; b++) {
            if (!vb->prov_cap[b] || vb->prov[b]->class_name != cls) continue;
            cap = vb->prov_cap[b]->has_capacity ? vb->prov_cap[b]->capacity : 0;
            req += vb->prov[b]->request;
        }
        sum += class_score(req, cap);
        classes++;
    }
    return mean_score(sum, classes);
}

/* mirrors VolumeBinding.PreScore / Score with StorageCapacityScoring: per node, the PVs its
 * unbound WaitForFirstConsumer claims would bind (FindPodVolumes' StaticBindings), grouped by the
 * PV's class: the mean over classes of class_score(requested, capacity), rounded; no static
 * binding: the claims to provision, per class, against the capacity of the CSIStorageCapacity
 * that admitted them on the node (none: 0) */
int kp__volume_binding_score(kp_sched *s, const kp_pod *p, const uint32_t *nodes, uint32_t n,
                             int64_t *out) {
    if (!kp__compat_storage_capacity_scoring(s->compat) || !p->n_volumes) return 0;
    kp_cluster *cl = s->cl;
    kp_cycle t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.p = p;
    t.vb_unbound = kp__malloc(p->n_volumes * sizeof *t.vb_unbound);
    if (!t.vb_unbound) return KP_ENOMEM;
    bool immediate = false;
    for (uint16_t i = 0; i < p->n_volumes; i++) { /* GetPodVolumeClaims, as the PreFilter did */
        const kp_volume *v = &p->volumes[i];
        if (v->source != KP_VS_PVC && v->source != KP_VS_EPHEMERAL) continue;
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
        if (!pvc || (pvc->volume_name && pvc->bind_completed)) continue;
        const kp_storage_class *sc =
            pvc->class_name ? kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name) : NULL;
        if (sc && sc->binding_mode == KP_BIND_WAIT && !pvc->volume_name)
            t.vb_unbound[t.n_vb_unbound++] = pvc;
        else immediate = true;
    }
    int rc = 0;
    if (!immediate && t.n_vb_unbound) {
        kp_status st = kp__vb_prepare(&t);
        if (st != KP_OK) rc = st;
        for (uint32_t j = 0; rc == 0 && j < n; j++) {
            uint32_t n_chosen, n_prov;
            kp__vb_unbound(&t, &cl->nodes[nodes[j]], &n_chosen, &n_prov);
            out[j] = n_chosen ? static_score(&t, n_chosen) : dynamic_score(&t, n_prov);
        }
        rc = rc ? rc : 1;
    }
    kp__volume_binding_fini(&t);
    kp__free(t.vb_unbound);
    return rc;
}
