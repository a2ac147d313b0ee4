/* The volume part of `kprio inspect`: each node's attached volumes against its CSINode limits (as
 * NodeVolumeLimits counts them: csi.go Filter, getNodeVolumeAttachmentInfo), and each pending
 * pod's claims with the nodes their volumes can go to (VolumeBinding's view: CheckNodeAffinity,
 * FindMatchingVolume, checkVolumeProvisions; storage capacity not read). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/inspect_volume.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/volume.h"

/* A pod volume's CSI volume (claim or migrated inline disk), drv 0 when not counted. */
static kp_csi_vol pod_volume(const kp_cluster *cl, const kp_str *drv_ids, const kp_pod *q,
                             const kp_volume *v) {
    kp_csi_vol o = {0, 0};
    if (v->source == KP_VS_PVC || v->source == KP_VS_EPHEMERAL) {
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, q->ns, v->claim);
        if (pvc) kp__claim_csi_volume(cl, drv_ids, pvc, &o);
        return o;
    }
    static const uint8_t src[] = {KP_VS_AWS_EBS, KP_VS_GCE_PD, KP_VS_AZURE_DISK, KP_VS_CINDER,
                                  KP_VS_PORTWORX};
    static const kp_mig_plugin mig[] = {KP_MIG_AWS_EBS, KP_MIG_GCE_PD, KP_MIG_AZURE_DISK,
                                        KP_MIG_CINDER, KP_MIG_PORTWORX};
    for (size_t i = 0; i < sizeof src; i++)
        if (v->source == src[i] && v->csi_handle && drv_ids[mig[i]]) {
            o.drv = drv_ids[mig[i]];
            o.key = v->csi_handle;
        }
    return o;
}

static bool has(const kp_csi_vol *a, size_t n, kp_csi_vol v) {
    for (size_t i = 0; i < n; i++)
        if (a[i].drv == v.drv && a[i].key == v.key) return true;
    return false;
}

/* Appends v to the set (a, *n, *cap) unless present. False when out of memory. */
static bool add(kp_csi_vol **a, size_t *n, size_t *cap, kp_csi_vol v) {
    if (has(*a, *n, v)) return true;
    if (!kp__grow((void **)a, cap, *n + 1, sizeof **a, 16)) return false;
    (*a)[(*n)++] = v;
    return true;
}

/* The counts of one node and driver. */
static bool count(const kp_cluster *cl, const kp_str *drv_ids, const kp_node *nd, kp_str drv,
                  kp_inspect_attach *row, kp_csi_vol **set, size_t *cap) {
    size_t m = 0;
    for (uint32_t i = 0; i < nd->n_pods; i++) {
        const kp_pod *q = &cl->pods[nd->pods[i]];
        for (uint16_t j = 0; j < q->n_volumes; j++) {
            kp_csi_vol o = pod_volume(cl, drv_ids, q, &q->volumes[j]);
            if (o.drv == drv && !add(set, &m, cap, o)) return false;
        }
    }
    row->in_use = m;
    for (uint32_t i = 0; i < cl->vol.n[KP_VK_VA]; i++) {
        const kp_volume_attachment *a = &cl->vol.attachments[i];
        if (a->node_name != nd->name || a->attacher != drv || !a->pv_name) continue;
        const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, a->pv_name);
        if (pv && pv->has_csi && !add(set, &m, cap, (kp_csi_vol){drv, pv->csi_handle}))
            return false;
    }
    row->held = m - row->in_use;
    return true;
}

kp_status kp__inspect_attach_rows(const kp_cluster *cl, const kp_inspect_node *rows, size_t n,
                                  kp_inspect_attach **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
    size_t total = 0;
    for (uint32_t i = 0; i < cl->vol.n[KP_VK_CSINODE]; i++)
        for (uint16_t k = 0; k < cl->vol.csinodes[i].n_drivers; k++)
            total += cl->vol.csinodes[i].drivers[k].has_count;
    if (!total) return KP_OK;
    kp_str drv_ids[KP_MIG_KINDS];
    kp__mig_driver_ids(cl, drv_ids);
    kp_inspect_attach *r = kp__calloc(total, sizeof *r);
    kp_csi_vol *set = NULL;
    size_t cap = 0, m = 0;
    if (!r) return KP_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        long ni = kp_cluster_find_node(cl, rows[k].name);
        if (ni < 0) continue;
        const kp_node *nd = &cl->nodes[ni];
        const kp_csinode *cn = kp__cluster_find_volume(cl, KP_VK_CSINODE, 0, nd->name);
        for (uint16_t d = 0; cn && d < cn->n_drivers && m < total; d++) {
            if (!cn->drivers[d].has_count) continue;
            kp_inspect_attach *row = &r[m++];
            row->node = rows[k].name;
            row->driver = kp__s(cl, cn->drivers[d].name);
            row->limit = cn->drivers[d].count;
            if (!count(cl, drv_ids, nd, cn->drivers[d].name, row, &set, &cap)) {
                kp__free(set);
                kp__free(r);
                return KP_ENOMEM;
            }
        }
    }
    kp__free(set);
    *out = r;
    *n_out = m;
    return KP_OK;
}

/* hasEnoughCapacity for one claim on node nd */
static bool capacity_ok(const kp_cluster *cl, const kp_pvc *pvc, const kp_storage_class *sc,
                        const kp_node *nd) {
    if (!kp__capacity_checked(cl, pvc, sc)) return true;
    for (uint32_t i = 0; i < cl->vol.n[KP_VK_CSISC]; i++) {
        const kp_csi_capacity *cap = &cl->vol.capacities[i];
        if (cap->class_name == sc->name && kp__capacity_sufficient(cap, pvc->request) &&
            kp__selector_matches(cl, &cap->topology, &nd->labels))
            return true;
    }
    return false;
}

/* The claim's capacity columns (kp_inspect_claim.capacity_checked and after) */
static void capacity_row(const kp_cluster *cl, const kp_pvc *pvc, kp_inspect_claim *row) {
    const kp_storage_class *sc = kp__provisioning_class(cl, pvc);
    if ((pvc->volume_name && pvc->bind_completed) || !kp__capacity_checked(cl, pvc, sc)) return;
    row->capacity_checked = true;
    row->request = pvc->request;
    for (uint32_t i = 0; i < cl->vol.n[KP_VK_CSISC]; i++) {
        const kp_csi_capacity *cap = &cl->vol.capacities[i];
        if (cap->class_name != sc->name) continue;
        int64_t lim = cap->has_max ? cap->max_size : cap->has_capacity ? cap->capacity : 0;
        if (!row->capacity_objects++ || lim > row->largest_limit) row->largest_limit = lim;
    }
}

/* Can the claim's volume go to node nd (VolumeBinding for this one claim)? */
static bool claim_fits(const kp_cluster *cl, const kp_pvc *pvc, const kp_node *nd) {
    if (pvc->volume_name && pvc->bind_completed) {
        const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, pvc->volume_name);
        return pv && kp__pv_node_affinity_ok(cl, pv, nd);
    }
    const kp_storage_class *sc =
        pvc->class_name ? kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name) : NULL;
    if (!sc || sc->binding_mode != KP_BIND_WAIT || pvc->volume_name) return false;
    if (pvc->selected_node) return pvc->selected_node == nd->name;
    const kp_storage_class *prov = kp__provisioning_class(cl, pvc);
    if (prov && kp__class_topology_ok(cl, prov, nd) && capacity_ok(cl, pvc, prov, nd)) return true;
    for (uint32_t i = 0; i < cl->vol.n[KP_VK_PV]; i++) {
        const kp_pv *pv = &cl->vol.pvs[i];
        if (!kp__pv_claim_candidate(pv, pvc) || !kp__pv_node_affinity_ok(cl, pv, nd)) continue;
        if (kp__pv_bound_to_claim(pv, pvc)) return true;
        if (pv->phase == KP_PV_AVAILABLE && !(pvc->access_modes & ~pv->access_modes) &&
            (!pvc->selector.is_set || kp__selector_matches(cl, &pvc->selector, &pv->labels)))
            return true;
    }
    return false;
}

/* counted in the summary's pending_pods */
static bool pending(const kp_pod *p) {
    return !p->node_name && !kp__pod_is_terminal(p) && p->deletion_ts == KP_TIME_NONE;
}

kp_status kp__inspect_claim_rows(const kp_cluster *cl, const kp_inspect_node *rows, size_t n,
                                 kp_inspect_claim **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
    size_t total = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (!pending(p)) continue;
        for (uint16_t j = 0; j < p->n_volumes; j++)
            total += p->volumes[j].source == KP_VS_PVC || p->volumes[j].source == KP_VS_EPHEMERAL;
    }
    if (!total) return KP_OK;
    kp_inspect_claim *r = kp__calloc(total, sizeof *r);
    if (!r) return KP_ENOMEM;
    size_t m = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (!pending(p)) continue;
        for (uint16_t j = 0; j < p->n_volumes; j++) {
            const kp_volume *v = &p->volumes[j];
            if (v->source != KP_VS_PVC && v->source != KP_VS_EPHEMERAL) continue;
            kp_inspect_claim *row = &r[m++];
            row->ns = kp__s(cl, p->ns);
            row->pod = kp__s(cl, p->name);
            row->claim = kp__s(cl, v->claim);
            row->first_node = "";
            const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
            if (!pvc) {
                row->phase = "Missing";
                row->volume = row->storage_class = "";
                continue;
            }
            row->phase = pvc->phase == KP_PVC_LOST                 ? "Lost"
                         : pvc->volume_name && pvc->bind_completed ? "Bound"
                                                                   : "Pending";
            row->volume = kp__s(cl, pvc->volume_name);
            row->storage_class = kp__s(cl, pvc->class_name);
            if (pvc->phase == KP_PVC_LOST) continue;
            capacity_row(cl, pvc, row);
            for (size_t k = 0; k < n; k++) { /* rows are sorted by name */
                long ni = kp_cluster_find_node(cl, rows[k].name);
                if (ni < 0 || !claim_fits(cl, pvc, &cl->nodes[ni])) continue;
                if (!row->nodes++) row->first_node = rows[k].name;
            }
        }
    }
    *out = r;
    *n_out = m;
    return KP_OK;
}
