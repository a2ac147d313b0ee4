/* VolumeBinding (pkg/scheduler/framework/plugins/volumebinding), the part kprio models: which
 * claims are bound, the unschedulable cases of its PreFilter, the bound PVs' node affinity and
 * the selected-node annotation of unbound WaitForFirstConsumer claims. Matching unbound claims to
 * available PVs and dynamic provisioning (allowedTopologies, capacity) are not modelled: such a
 * claim passes every node. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/volume.h"
#include "sched/plugins/volume_binding.h"
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
        if (!pvc) return kp__volume_not_found(cl, pre, "persistentvolumeclaim", v->claim);
        if (pvc->phase == KP_PVC_LOST) return reject_lost(cl, pre, pvc);
    }
    c->vb_bound = kp__malloc(n * sizeof *c->vb_bound);
    c->vb_selected = kp__malloc(n * sizeof *c->vb_selected);
    if (!c->vb_bound || !c->vb_selected) return KP_ENOMEM;
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
            c->vb_selected[c->n_vb_unbound++] = pvc->selected_node;
        else immediate = true;
    }
    if (immediate) {
        pre->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(pre, "pod has unbound immediate PersistentVolumeClaims");
    }
    return KP_OK;
}

/* volume.CheckNodeAffinity: the PV's required terms against a node that has only the node's
 * labels (so matchFields on metadata.name see an empty name) */
static bool pv_affinity_ok(const kp_cluster *cl, const kp_pv *pv, const kp_node *n) {
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

/* mirrors VolumeBinding.Filter and FindPodVolumes: every status UnschedulableAndUnresolvable,
 * with the reasons in upstream's order */
void kp__filter_volume_binding(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    bool bound_ok = true, pvs_found = true, unbound_ok = true;
    for (uint32_t i = 0; i < c->n_vb_bound; i++) { /* checkBoundClaims */
        if (!c->vb_bound[i]) {
            pvs_found = false;
            break;
        }
        if (!pv_affinity_ok(cl, c->vb_bound[i], n)) {
            bound_ok = false;
            break;
        }
    }
    for (uint32_t i = 0; i < c->n_vb_unbound && unbound_ok; i++)
        unbound_ok = !c->vb_selected[i] || c->vb_selected[i] == n->name;
    if (bound_ok && pvs_found && unbound_ok) return;
    st->code = KP_CODE_UNRESOLVABLE;
    if (!bound_ok) kp__status_add_reason(st, "node(s) had volume node affinity conflict");
    if (!unbound_ok)
        kp__status_add_reason(st, "node(s) didn't find available persistent volumes to bind");
    if (!pvs_found)
        kp__status_add_reason(st,
                              "node(s) unavailable due to one or more pvc(s) bound to non-existent "
                              "pv(s)");
}
