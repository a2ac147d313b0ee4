/* NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go, CSILimits): the
 * unique CSI volumes of a node, per driver, against the CSINode's spec.drivers[].allocatable.count.
 * A volume is a (driver, volume handle) pair: a claim's bound PV (spec.csi, or an in-tree source
 * migrated to CSI), a claim not bound yet through its StorageClass's provisioner (a handle of its
 * own per claim), or an inline in-tree disk migrated to CSI. The node's volumes are its pods' and
 * those of its VolumeAttachments (CSI PVs only) that no pod uses. The plugin has no PreFilter
 * extensions: preemption frees a slot only by removing pods from the node (the Filter re-reads
 * the node's pods); an attachment recorded in a VolumeAttachment keeps its slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/volume.h"
#include "sched/compat.h"
#include "sched/cycle.h"
#include "sched/plugins/node_volume_limits.h"
#include "sched/status.h"

#define KP_NVL_CLAIM_KEY (UINT64_C(1) << 32) /* key of a claim not bound yet: | its index */

typedef struct {
    kp_str drv;
    uint64_t key; /* the volume handle's id, or KP_NVL_CLAIM_KEY | claim index */
} kp_nvl_vol;

typedef struct kp_nvl {
    kp_nvl_vol *mine; /* the pod's own volumes (newVolumes), unique */
    kp_str *not_installed; /* per mine[i]: "<driver> CSI driver is not installed on the node"
                              when a CSIDriver of that name exists, else 0 */
    uint32_t n_mine;
    const char *err; /* a claim of the pod does not exist (every node: Unresolvable) */
    kp_str drv_ids[KP_MIG_KINDS]; /* the migrated plugins' CSI driver names */
    bool scaling; /* VolumeLimitScaling (beta, on since v1.37) */
    kp_nvl_vol *buf; /* Filter scratch: the node's volumes of one driver */
    size_t cap;
    kp_status st; /* KP_ENOMEM when the scratch could not grow */
} kp_nvl;

kp_status kp__nvl_status(const kp_nvl *s) { return s->st; }

void kp__node_volume_limits_fini(kp_cycle *c) {
    if (!c->nvl) return;
    kp__free(c->nvl->mine);
    kp__free(c->nvl->not_installed);
    kp__free(c->nvl->buf);
    kp__free(c->nvl);
    c->nvl = NULL;
}

static kp_mig_plugin mig_of_source(uint8_t source) {
    switch (source) {
    case KP_VS_AWS_EBS: return KP_MIG_AWS_EBS;
    case KP_VS_GCE_PD: return KP_MIG_GCE_PD;
    case KP_VS_AZURE_DISK: return KP_MIG_AZURE_DISK;
    case KP_VS_CINDER: return KP_MIG_CINDER;
    case KP_VS_PORTWORX: return KP_MIG_PORTWORX;
    default: return KP_MIG_NONE;
    }
}

/* mirrors getCSIDriverInfoFromSC: the class's provisioner (or the CSI driver of a migrated
 * in-tree provisioner) and a handle of the claim's own */
static bool from_class(const kp_cluster *cl, const kp_nvl *s, const kp_pvc *pvc, kp_nvl_vol *o) {
    if (!pvc->class_name) return false;
    const kp_storage_class *sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name);
    if (!sc) return false;
    kp_mig_plugin m = kp__mig_plugin_of_provisioner(kp__s(cl, sc->provisioner));
    if (m == KP_MIG_NOT_COUNTED) return false;
    o->drv = m == KP_MIG_NONE ? sc->provisioner : s->drv_ids[m];
    o->key = KP_NVL_CLAIM_KEY | (uint64_t)(pvc - cl->vol.pvcs);
    return o->drv != 0;
}

/* mirrors filterAttachableVolumes for one volume of pod q (getCSIDriverInfo,
 * checkAttachableInlineVolume): 1 and *o when it counts, 0 when it does not, -1 when its claim
 * does not exist */
static int resolve(const kp_cluster *cl, const kp_nvl *s, const kp_pod *q, const kp_volume *v,
                   kp_nvl_vol *o) {
    if (v->source == KP_VS_PVC || v->source == KP_VS_EPHEMERAL) {
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, q->ns, v->claim);
        if (!pvc) return -1;
        if (!pvc->volume_name) return from_class(cl, s, pvc, o);
        const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, pvc->volume_name);
        if (!pv) return from_class(cl, s, pvc, o); /* deleted, or pre-bound to a PV not created */
        o->drv = pv->has_csi ? pv->csi_driver : pv->mig_driver;
        o->key = pv->has_csi ? pv->csi_handle : pv->mig_handle;
        return o->drv && o->key;
    }
    kp_mig_plugin m = mig_of_source(v->source);
    if (m == KP_MIG_NONE || !v->csi_handle) return 0;
    o->drv = s->drv_ids[m];
    o->key = v->csi_handle;
    return 1;
}

static bool has_vol(const kp_nvl_vol *a, uint32_t n, kp_nvl_vol v) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i].key == v.key && a[i].drv == v.drv) return true;
    return false;
}

/* "looking up PVC NS/NAME: persistentvolumeclaim "NAME" not found" (the lister's NotFound error
 * wrapped by filterAttachableVolumes) */
static kp_status missing_claim(kp_cluster *cl, const kp_pod *p, kp_str claim, const char **out) {
    const char *ns = kp__s(cl, p->ns), *nm = kp__s(cl, claim);
    size_t n = strlen(ns) + 2 * strlen(nm) + 64;
    char *buf = kp__malloc(n);
    if (!buf) return KP_ENOMEM;
    int w = snprintf(buf, n, "looking up PVC %s/%s: persistentvolumeclaim \"%s\" not found", ns, nm,
                     nm);
    kp_str id = w > 0 ? kp__intern(&cl->strs, buf, (size_t)w) : UINT32_MAX;
    kp__free(buf);
    if (id == UINT32_MAX) return KP_ENOMEM;
    *out = kp__s(cl, id);
    return KP_OK;
}

/* "<driver> CSI driver is not installed on the node" when a CSIDriver object names the driver
 * (checkCSIDriverOnNode: without one the driver may not be CSI and is assumed installed) */
static kp_status not_installed_text(kp_cluster *cl, kp_str drv, kp_str *out) {
    *out = 0;
    if (!kp__cluster_find_volume(cl, KP_VK_CSIDRIVER, 0, drv)) return KP_OK;
    const char *d = kp__s(cl, drv);
    size_t n = strlen(d) + 48;
    char *buf = kp__malloc(n);
    if (!buf) return KP_ENOMEM;
    int w = snprintf(buf, n, "%s CSI driver is not installed on the node", d);
    *out = w > 0 ? kp__intern(&cl->strs, buf, (size_t)w) : UINT32_MAX;
    kp__free(buf);
    return *out == UINT32_MAX ? KP_ENOMEM : KP_OK;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The VolumeAttachments sorted by node name (getNodeVolumeAttachmentInfo lists them all; an
 * index finds a node's at once). */
static kp_status index_attachments(kp_cluster *cl) {
    kp_volumes *vol = &cl->vol;
    uint32_t n = vol->n[KP_VK_VA];
    if (vol->va_indexed && vol->n_va_indexed == n) return KP_OK;
    uint64_t *pairs = n ? kp__malloc(n * sizeof *pairs) : NULL;
    uint32_t *idx = n ? kp__arena_alloc(&cl->arena, n * sizeof *idx) : NULL;
    if (n && (!pairs || !idx)) {
        kp__free(pairs);
        return KP_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) pairs[i] = (uint64_t)vol->attachments[i].node_name << 32 | i;
    if (n) qsort(pairs, n, sizeof *pairs, cmp_u64);
    for (uint32_t i = 0; i < n; i++) idx[i] = (uint32_t)pairs[i];
    kp__free(pairs);
    vol->va_by_node = idx;
    vol->n_va_indexed = n;
    vol->va_indexed = true;
    return KP_OK;
}

static bool needs_check(const kp_volume *v) {
    switch (v->source) {
    case KP_VS_PVC:
    case KP_VS_EPHEMERAL:
    /* IsInlineMigratable: every in-tree source csi-translation-lib translates */
    case KP_VS_AWS_EBS:
    case KP_VS_GCE_PD:
    case KP_VS_AZURE_DISK:
    case KP_VS_CINDER:
    case KP_VS_PORTWORX:
    case KP_VS_RBD:
    case KP_VS_MIGRATABLE: return true;
    default: return false;
    }
}

/* mirrors CSILimits.PreFilter, and the new pod's part of CSILimits.Filter */
kp_status kp__node_volume_limits_prefilter(kp_cycle *c, bool *skip) {
    const kp_pod *p = c->p;
    kp_cluster *cl = c->s->cl;
    *skip = true;
    uint32_t n = 0;
    for (uint16_t i = 0; i < p->n_volumes; i++) n += needs_check(&p->volumes[i]);
    if (!n) return KP_OK;
    *skip = false;
    kp_nvl *s = c->nvl = kp__calloc(1, sizeof *s);
    if (!s) return KP_ENOMEM;
    s->scaling = kp__compat_volume_limit_scaling(c->s->compat);
    for (int m = KP_MIG_AWS_EBS; m < KP_MIG_NOT_COUNTED; m++) {
        const char *d = kp__mig_driver_name((kp_mig_plugin)m);
        if ((s->drv_ids[m] = kp__intern(&cl->strs, d, strlen(d))) == UINT32_MAX) return KP_ENOMEM;
    }
    s->mine = kp__malloc(n * sizeof *s->mine);
    s->not_installed = kp__malloc(n * sizeof *s->not_installed);
    if (!s->mine || !s->not_installed) return KP_ENOMEM;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        kp_nvl_vol o;
        int r = resolve(cl, s, p, &p->volumes[i], &o);
        if (r < 0) return missing_claim(cl, p, p->volumes[i].claim, &s->err);
        if (r == 0 || has_vol(s->mine, s->n_mine, o)) continue;
        kp_status st = not_installed_text(cl, o.drv, &s->not_installed[s->n_mine]);
        if (st != KP_OK) return st;
        s->mine[s->n_mine++] = o;
    }
    return s->n_mine ? index_attachments(cl) : KP_OK;
}

/* getVolumeLimits: the last entry of the driver with allocatable.count */
static bool limit_of(const kp_csinode *cn, kp_str drv, int64_t *limit) {
    bool found = false;
    for (uint16_t i = 0; i < cn->n_drivers; i++)
        if (cn->drivers[i].name == drv && cn->drivers[i].has_count) {
            *limit = cn->drivers[i].count;
            found = true;
        }
    return found;
}

static bool driver_on_node(const kp_csinode *cn, kp_str drv) {
    for (uint16_t i = 0; cn && i < cn->n_drivers; i++)
        if (cn->drivers[i].name == drv) return true;
    return false;
}

typedef struct {
    int64_t in_use, held, fresh; /* pods' volumes, attachments no pod uses, the pod's new ones */
} kp_nvl_count;

static bool push(kp_nvl *s, uint32_t *n, kp_nvl_vol v) {
    if (has_vol(s->buf, *n, v)) return true;
    if (!kp__grow((void **)&s->buf, &s->cap, (size_t)*n + 1, sizeof *s->buf, 16)) {
        s->st = KP_ENOMEM;
        return false;
    }
    s->buf[(*n)++] = v;
    return true;
}

/* The node's volumes of driver drv as CSILimits.Filter counts them. False when out of memory. */
static bool tally(const kp_cycle *c, const kp_node *n, kp_str drv, kp_nvl_count *k) {
    const kp_cluster *cl = c->s->cl;
    kp_nvl *s = c->nvl;
    uint32_t m = 0, n_pods = n->n_pods + c->n_extra;
    for (uint32_t i = 0; i < n_pods; i++) { /* attachedVolumes (existing pods) */
        const kp_pod *q = &cl->pods[i < n->n_pods ? n->pods[i] : c->extra[i - n->n_pods]];
        for (uint16_t j = 0; j < q->n_volumes; j++) {
            kp_nvl_vol o;
            if (!needs_check(&q->volumes[j]) || resolve(cl, s, q, &q->volumes[j], &o) <= 0 ||
                o.drv != drv)
                continue;
            if (!push(s, &m, o)) return false;
        }
    }
    k->in_use = m;
    k->fresh = 0;
    for (uint32_t i = 0; i < s->n_mine; i++)
        k->fresh += s->mine[i].drv == drv && !has_vol(s->buf, m, s->mine[i]);
    /* getNodeVolumeAttachmentInfo: attacher and PV name set, the PV a CSI one */
    const kp_volumes *vol = &cl->vol;
    uint32_t lo = 0, hi = vol->n_va_indexed;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (vol->attachments[vol->va_by_node[mid]].node_name < n->name) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < vol->n_va_indexed; lo++) {
        const kp_volume_attachment *va = &vol->attachments[vol->va_by_node[lo]];
        if (va->node_name != n->name) break;
        if (va->attacher != drv || !va->pv_name) continue;
        const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, va->pv_name);
        if (!pv || !pv->has_csi) continue;
        if (!push(s, &m, (kp_nvl_vol){drv, pv->csi_handle})) return false;
    }
    k->held = m - k->in_use;
    return true;
}

/* The first driver of the pod's volumes whose limit the node exceeds (k its counts), or 0. */
static kp_str over_limit(const kp_cycle *c, const kp_node *n, const kp_csinode *cn, kp_nvl_count *k,
                         int64_t *limit) {
    const kp_nvl *s = c->nvl;
    for (uint32_t i = 0; i < s->n_mine; i++) {
        kp_str drv = s->mine[i].drv;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++) seen = s->mine[j].drv == drv;
        if (seen || !limit_of(cn, drv, limit)) continue;
        if (!tally(c, n, drv, k)) return 0;
        if (k->in_use + k->held + k->fresh > *limit) return drv;
    }
    return 0;
}

/* mirrors CSILimits.Filter */
void kp__filter_node_volume_limits(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_nvl *s = c->nvl;
    const kp_cluster *cl = c->s->cl;
    if (s->err) {
        st->code = KP_CODE_UNRESOLVABLE;
        kp__status_add_reason(st, s->err);
        return;
    }
    if (!s->n_mine) return;
    const kp_csinode *cn = kp__cluster_find_volume(cl, KP_VK_CSINODE, 0, n->name);
    for (uint32_t i = 0; s->scaling && i < s->n_mine; i++) {
        if (s->not_installed[i] && !driver_on_node(cn, s->mine[i].drv)) {
            st->code = KP_CODE_UNSCHEDULABLE;
            kp__status_add_reason(st, kp__s(cl, s->not_installed[i]));
            return;
        }
    }
    if (!cn) return; /* no limits */
    kp_nvl_count k;
    int64_t limit;
    if (over_limit(c, n, cn, &k, &limit)) {
        st->code = KP_CODE_UNSCHEDULABLE;
        kp__status_add_reason(st, "node(s) exceed max volume count");
    }
}

void kp__node_volume_limits_note(const kp_cycle *c, const kp_node *n, char *buf, size_t cap) {
    const kp_cluster *cl = c->s->cl;
    if (cap) buf[0] = 0;
    if (!c->nvl || c->nvl->err || !cap) return;
    const kp_csinode *cn = kp__cluster_find_volume(cl, KP_VK_CSINODE, 0, n->name);
    kp_nvl_count k;
    int64_t limit;
    kp_str drv = cn ? over_limit(c, n, cn, &k, &limit) : 0;
    if (!drv) return;
    const char *tail = !k.held                    ? ""
                       : k.held + k.fresh > limit ? "; the attachments keep their slots when pods "
                                                    "are removed: preemption cannot help here"
                                                  : "; the attachments keep their slots when pods "
                                                    "are removed";
    snprintf(buf, cap,
             "%s: %lld in use by the node's pods + %lld held by VolumeAttachments + %lld new > "
             "limit %lld%s",
             kp__s(cl, drv), (long long)k.in_use, (long long)k.held, (long long)k.fresh,
             (long long)limit, tail);
}
