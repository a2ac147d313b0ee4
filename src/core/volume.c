/* Storage helpers (core/volume.h). */
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/selector.h"
#include "core/volume.h"

/* One element of a `__`-separated set: [*s, end) trimmed of spaces (strings.TrimSpace). */
static void trim(const char **b, const char **e) {
    while (*b < *e && strchr(" \t\n\v\f\r", **b)) (*b)++;
    while (*e > *b && strchr(" \t\n\v\f\r", (*e)[-1])) (*e)--;
}

/* Walks the elements of set, each trimmed; false when an element is empty (mirrors
 * LabelZonesToSet / stringToSet of k8s.io/cloud-provider/volume/helpers: the whole value is then
 * an error and the caller ignores the label). *found when z is one of them. */
static bool zone_walk(const char *set, const char *z, bool *found) {
    const char *p = set;
    for (;;) {
        const char *sep = strstr(p, "__");
        const char *end = sep ? sep : p + strlen(p);
        const char *b = p, *e = end;
        trim(&b, &e);
        if (b == e) return false;
        if (z && (size_t)(e - b) == strlen(z) && memcmp(b, z, (size_t)(e - b)) == 0) *found = true;
        if (!sep) return true;
        p = sep + 2;
    }
}

bool kp__zone_set_valid(const char *set) {
    bool f = false;
    return zone_walk(set, NULL, &f);
}

bool kp__zone_set_has(const char *set, const char *z) {
    bool f = false;
    return zone_walk(set, z, &f) && f;
}

static const struct {
    const char *plugin, *driver;
} MIG[KP_MIG_KINDS] = {
    [KP_MIG_AWS_EBS] = {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    [KP_MIG_GCE_PD] = {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    [KP_MIG_AZURE_DISK] = {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
    [KP_MIG_CINDER] = {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
    [KP_MIG_PORTWORX] = {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
};

const char *kp__mig_driver_name(kp_mig_plugin m) {
    return m > KP_MIG_NONE && m < KP_MIG_NOT_COUNTED ? MIG[m].driver : NULL;
}

/* mirrors CSITranslator.IsMigratableIntreePluginByName (the in-tree plugins of csi-translation-lib)
 * and isCSIMigrationOn (which of them count) */
kp_mig_plugin kp__mig_plugin_of_provisioner(const char *provisioner) {
    for (int m = KP_MIG_AWS_EBS; m < KP_MIG_NOT_COUNTED; m++)
        if (strcmp(provisioner, MIG[m].plugin) == 0) return (kp_mig_plugin)m;
    static const char *const others[] = {"kubernetes.io/azure-file", "kubernetes.io/vsphere-volume",
                                         "kubernetes.io/rbd"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strcmp(provisioner, others[i]) == 0) return KP_MIG_NOT_COUNTED;
    return KP_MIG_NONE;
}

/* mirrors KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<vol-id>", "aws:///<vol-id>" or a bare
 * id; the URL's path trimmed of '/' must look like vol-* without a '/'. [*b, *e) is the result. */
static bool ebs_volume_id(const char *id, const char **b, const char **e) {
    if (strncmp(id, "aws://", 6) != 0) {
        *b = id, *e = id + strlen(id);
        return true;
    }
    const char *p = strchr(id + 6, '/'); /* the path starts after the host */
    if (!p) return false;
    const char *end = p + strcspn(p, "?#");
    while (p < end && *p == '/') p++;
    while (end > p && end[-1] == '/') end--;
    if (end - p < 4 || memcmp(p, "vol-", 4) != 0 || memchr(p, '/', (size_t)(end - p))) return false;
    *b = p, *e = end;
    return true;
}

/* mirrors getRegionFromZones (gce_pd.go): every zone "{locale}-{region}-{zone}" of one region;
 * [*b, *e) is the region "{locale}-{region}" */
static bool gce_region(const char *zones, const char **b, const char **e) {
    const char *p = zones;
    *b = *e = NULL;
    for (;;) {
        const char *sep = strstr(p, "__");
        const char *end = sep ? sep : p + strlen(p);
        const char *d1 = memchr(p, '-', (size_t)(end - p));
        const char *d2 = d1 ? memchr(d1 + 1, '-', (size_t)(end - d1 - 1)) : NULL;
        if (!d2 || memchr(d2 + 1, '-', (size_t)(end - d2 - 1))) return false;
        if (*b && ((size_t)(*e - *b) != (size_t)(d2 - p) || memcmp(*b, p, (size_t)(d2 - p))))
            return false; /* more than one region */
        *b = p, *e = d2;
        if (!sep) return true;
        p = sep + 2;
    }
}

static long put(char *buf, size_t cap, const char *a, const char *mid, size_t lmid, const char *c,
                const char *id) {
    size_t la = strlen(a), lc = strlen(c), li = strlen(id), n = la + lmid + lc + li;
    if (n < cap) {
        memcpy(buf, a, la);
        memcpy(buf + la, mid, lmid);
        memcpy(buf + la + lmid, c, lc);
        memcpy(buf + la + lmid + lc, id, li);
        buf[n] = 0;
    }
    return (long)n;
}

/* mirrors the TranslateInTreePVToCSI / TranslateInTreeInlineVolumeToCSI volume handles of
 * csi-translation-lib (aws_ebs.go, gce_pd.go: volIDZonalFmt / volIDRegionalFmt with project
 * UNSPECIFIED; azure_disk.go, openstack_cinder.go, portworx.go: the id itself) */
long kp__csi_translate(kp_mig_plugin m, const char *id, const char *zone_label, char *buf,
                       size_t cap) {
    const char *b, *e;
    switch (m) {
    case KP_MIG_AWS_EBS:
        if (!ebs_volume_id(id, &b, &e)) return -1;
        return put(buf, cap, "", b, (size_t)(e - b), "", "");
    case KP_MIG_GCE_PD:
        if (!zone_label || !zone_label[0])
            return put(buf, cap, "projects/UNSPECIFIED/zones/", "UNSPECIFIED", 11, "/disks/", id);
        if (!strstr(zone_label, "__"))
            return put(buf, cap, "projects/UNSPECIFIED/zones/", zone_label, strlen(zone_label),
                       "/disks/", id);
        if (!gce_region(zone_label, &b, &e)) return -1;
        return put(buf, cap, "projects/UNSPECIFIED/regions/", b, (size_t)(e - b), "/disks/", id);
    case KP_MIG_AZURE_DISK:
    case KP_MIG_CINDER:
    case KP_MIG_PORTWORX: return put(buf, cap, "", "", 0, "", id);
    default: return -1;
    }
}

/* mirrors getCSIDriverInfoFromSC: the class's provisioner (or the CSI driver of a migrated
 * in-tree provisioner) and a handle of the claim's own */
static bool from_class(const kp_cluster *cl, const kp_str *drv_ids, const kp_pvc *pvc,
                       kp_csi_vol *o) {
    if (!pvc->class_name) return false;
    const kp_storage_class *sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name);
    if (!sc) return false;
    kp_mig_plugin m = kp__mig_plugin_of_provisioner(kp__s(cl, sc->provisioner));
    if (m == KP_MIG_NOT_COUNTED) return false;
    o->drv = m == KP_MIG_NONE ? sc->provisioner : drv_ids[m];
    o->key = KP_CSI_CLAIM_KEY | (uint64_t)(pvc - cl->vol.pvcs);
    return o->drv != 0 && o->drv != UINT32_MAX;
}

/* mirrors getCSIDriverInfo (nodevolumelimits/csi.go) */
void kp__claim_csi_volume(const kp_cluster *cl, const kp_str *drv_ids, const kp_pvc *pvc,
                          kp_csi_vol *o) {
    o->drv = 0;
    o->key = 0;
    const kp_pv *pv =
        pvc->volume_name ? kp__cluster_find_volume(cl, KP_VK_PV, 0, pvc->volume_name) : NULL;
    if (!pv) { /* not bound, or bound to a PV deleted or not created yet */
        if (!from_class(cl, drv_ids, pvc, o)) o->drv = 0;
        return;
    }
    o->drv = pv->has_csi ? pv->csi_driver : pv->mig_driver;
    o->key = pv->has_csi ? pv->csi_handle : pv->mig_handle;
    if (!o->key) o->drv = 0;
}

void kp__mig_driver_ids(const kp_cluster *cl, kp_str *drv_ids) {
    for (int m = 0; m < KP_MIG_KINDS; m++) {
        const char *d = kp__mig_driver_name((kp_mig_plugin)m);
        drv_ids[m] = d ? kp__intern_find(&cl->strs, d, strlen(d)) : 0;
        if (drv_ids[m] == UINT32_MAX) drv_ids[m] = 0;
    }
}

/* volume.CheckNodeAffinity: the PV's required terms against a node that has only the node's
 * labels (so matchFields on metadata.name see an empty name) */
bool kp__pv_node_affinity_ok(const kp_cluster *cl, const kp_pv *pv, const kp_node *n) {
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
bool kp__pv_bound_to_claim(const kp_pv *pv, const kp_pvc *claim) {
    return pv->has_claim_ref && pv->claim_name == claim->name && pv->claim_ns == claim->ns &&
           (!pv->claim_uid || pv->claim_uid == claim->uid);
}

/* FindMatchingVolume's checks that do not depend on the node: the PV can be claim's (the node's
 * affinity aside) */
bool kp__pv_claim_candidate(const kp_pv *pv, const kp_pvc *claim) {
    if (pv->class_name != claim->class_name) return false; /* ListPVs(class) */
    if (pv->has_claim_ref && !kp__pv_bound_to_claim(pv, claim)) return false;
    if (pv->capacity < claim->request) return false;
    if (pv->block != claim->block || pv->vac != claim->vac || pv->deleting) return false;
    return true;
}

/* The claim's class when it can provision dynamically (a provisioner, not
 * kubernetes.io/no-provisioner), else NULL. */
const kp_storage_class *kp__provisioning_class(const kp_cluster *cl, const kp_pvc *claim) {
    const kp_storage_class *sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, claim->class_name);
    if (!sc || !sc->provisioner) return NULL;
    if (strcmp(kp__s(cl, sc->provisioner), "kubernetes.io/no-provisioner") == 0) return NULL;
    return sc;
}

/* mirrors hasEnoughCapacity's first checks (no request, no CSIDriver, storageCapacity unset or
 * false: nothing to check) */
bool kp__capacity_checked(const kp_cluster *cl, const kp_pvc *claim, const kp_storage_class *sc) {
    if (!claim->has_request || !sc || !sc->provisioner) return false;
    const kp_csidriver *dr = kp__cluster_find_volume(cl, KP_VK_CSIDRIVER, 0, sc->provisioner);
    return dr && dr->storage_capacity;
}

/* v1helper.MatchTopologySelectorTerms: no terms match every node; an empty term matches none */
bool kp__class_topology_ok(const kp_cluster *cl, const kp_storage_class *sc, const kp_node *n) {
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
