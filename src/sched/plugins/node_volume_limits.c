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
#include "sched/plugins/volume_binding.h"
#include "sched/plugins/volume_zone.h"
#include "sched/status.h"

typedef kp_csi_vol kp_nvl_vol;

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

/* mirrors filterAttachableVolumes for one volume of pod q (getCSIDriverInfo through the claim
 * index, checkAttachableInlineVolume): 1 and *o when it counts, 0 when it does not, -1 when its
 * claim does not exist */
static int resolve(const kp_cluster *cl, const kp_nvl *s, const kp_pod *q, const kp_volume *v,
                   kp_nvl_vol *o) {
    if (v->source == KP_VS_PVC || v->source == KP_VS_EPHEMERAL) {
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, q->ns, v->claim);
        if (!pvc) return -1;
        *o = cl->vol.pvc_csi[pvc - cl->vol.pvcs];
        return o->drv != 0;
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

/* The index of kp_volumes (core/volume.h): each claim's CSI volume, and the CSI volumes the
 * VolumeAttachments hold grouped by node (getNodeVolumeAttachmentInfo lists them all per Filter
 * call; the index finds a node's at once). Rebuilt when an object count changed. */
static kp_status build_index(kp_cluster *cl, const kp_str *drv_ids) {
    kp_volumes *vol = &cl->vol;
    if (vol->indexed && memcmp(vol->n_indexed, vol->n, sizeof vol->n) == 0 &&
        vol->n_nodes_indexed == cl->n_nodes)
        return KP_OK;
    uint32_t n = vol->n[KP_VK_VA], n_pvc = vol->n[KP_VK_PVC], nn = cl->n_nodes;
    int64_t *node_of = n ? kp__malloc(n * sizeof *node_of) : NULL;
    uint32_t *first = kp__arena_alloc(&cl->arena, (nn + 2) * sizeof *first);
    kp_csi_vol *va = n ? kp__arena_alloc(&cl->arena, n * sizeof *va) : NULL;
    kp_csi_vol *pc = n_pvc ? kp__arena_alloc(&cl->arena, n_pvc * sizeof *pc) : NULL;
    const kp_csinode **cn = kp__arena_alloc(&cl->arena, (nn + 1) * sizeof *cn);
    if ((n && (!node_of || !va)) || !first || (n_pvc && !pc) || !cn) {
        kp__free(node_of);
        return KP_ENOMEM;
    }
    for (uint32_t i = 0; i < n_pvc; i++) kp__claim_csi_volume(cl, drv_ids, &vol->pvcs[i], &pc[i]);
    for (uint32_t i = 0; i < nn; i++)
        cn[i] = kp__cluster_find_volume(cl, KP_VK_CSINODE, 0, cl->nodes[i].name);
    for (uint32_t i = 0; i < n; i++) { /* counting sort by node index */
        const kp_volume_attachment *a = &vol->attachments[i];
        node_of[i] = a->node_name ? kp_cluster_find_node(cl, kp__s(cl, a->node_name)) : -1;
        if (node_of[i] >= 0) first[node_of[i] + 2]++;
    }
    for (uint32_t k = 2; k < nn + 2; k++) first[k] += first[k - 1];
    for (uint32_t i = 0; i < n; i++) {
        if (node_of[i] < 0) continue;
        const kp_volume_attachment *a = &vol->attachments[i];
        /* attacher and PV name set, the PV a CSI one */
        const kp_pv *pv =
            a->attacher && a->pv_name ? kp__cluster_find_volume(cl, KP_VK_PV, 0, a->pv_name) : NULL;
        kp_csi_vol *o = &va[first[node_of[i] + 1]++];
        o->drv = pv && pv->has_csi ? a->attacher : 0;
        o->key = pv ? pv->csi_handle : 0;
    }
    kp__free(node_of);
    vol->va_first = first;
    vol->va_csi = va;
    vol->pvc_csi = pc;
    vol->csinode_of = cn;
    memcpy(vol->n_indexed, vol->n, sizeof vol->n);
    vol->n_nodes_indexed = nn;
    vol->indexed = true;
    return KP_OK;
}

/* IsInlineMigratable covers every in-tree source csi-translation-lib translates */
static bool needs_check(const kp_volume *v) { return kp__volume_attachable(v); }

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
    kp_status st = build_index(cl, s->drv_ids);
    if (st != KP_OK) return st;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        kp_nvl_vol o;
        int r = resolve(cl, s, p, &p->volumes[i], &o);
        if (r < 0) return missing_claim(cl, p, p->volumes[i].claim, &s->err);
        if (r == 0 || has_vol(s->mine, s->n_mine, o)) continue;
        st = not_installed_text(cl, o.drv, &s->not_installed[s->n_mine]);
        if (st != KP_OK) return st;
        s->mine[s->n_mine++] = o;
    }
    return KP_OK;
}

/* The node's CSINode (csiManager.CSINodes().Get) through the index. */
static const kp_csinode *csinode_of(const kp_cluster *cl, const kp_node *n) {
    uint32_t i = (uint32_t)(n - cl->nodes);
    return i < cl->vol.n_nodes_indexed ? cl->vol.csinode_of[i] : NULL;
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

/* The CSI volumes node n's VolumeAttachments hold: [*end - count, *end) of vol->va_csi. */
static const kp_csi_vol *node_attachments(const kp_cluster *cl, const kp_node *n,
                                          const kp_csi_vol **end) {
    const kp_volumes *vol = &cl->vol;
    uint32_t i = (uint32_t)(n - cl->nodes);
    if (!vol->va_csi || i >= vol->n_nodes_indexed) {
        *end = NULL;
        return NULL;
    }
    *end = vol->va_csi + vol->va_first[i + 1];
    return vol->va_csi + vol->va_first[i];
}

/* An upper bound of what tally counts for driver drv, without looking anything up: every volume
 * the node's pods may count, every attachment of drv, every new volume of drv. */
static int64_t upper_bound(const kp_cycle *c, const kp_node *n, kp_str drv) {
    const kp_cluster *cl = c->s->cl;
    const kp_nvl *s = c->nvl;
    int64_t ub = n->n_attachable;
    for (uint32_t i = 0; i < c->n_extra; i++) ub += kp__pod_attachable(&cl->pods[c->extra[i]]);
    const kp_csi_vol *end, *a = node_attachments(cl, n, &end);
    for (; a < end; a++) ub += a->drv == drv;
    for (uint32_t i = 0; i < s->n_mine; i++) ub += s->mine[i].drv == drv;
    return ub;
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
    const kp_csi_vol *end, *a = node_attachments(cl, n, &end);
    for (; a < end; a++)
        if (a->drv == drv && !push(s, &m, *a)) return false;
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
        if (upper_bound(c, n, drv) <= *limit) continue; /* cannot exceed: nothing to count */
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
    const kp_csinode *cn = csinode_of(cl, n);
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

void kp__node_volume_limits_slots(const kp_cycle *c, const kp_node *n, kp_sched_attach_slots *o) {
    const kp_cluster *cl = c->s->cl;
    memset(o, 0, sizeof *o);
    if (!c->nvl || c->nvl->err) return;
    const kp_csinode *cn = csinode_of(cl, n);
    kp_nvl_count k;
    int64_t limit;
    kp_str drv = cn ? over_limit(c, n, cn, &k, &limit) : 0;
    if (!drv) return;
    o->driver = kp__s(cl, drv);
    o->in_use = k.in_use;
    o->held = k.held;
    o->fresh = k.fresh;
    o->limit = limit;
    /* removing pods frees only the slots of volumes no VolumeAttachment holds */
    o->cannot_help = k.held && k.held + k.fresh > limit;
}

void kp__node_volume_limits_note(const kp_cycle *c, const kp_node *n, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    kp_sched_attach_slots o;
    kp__node_volume_limits_slots(c, n, &o);
    if (!o.driver || !cap) return;
    const char *tail = !o.held         ? ""
                       : o.cannot_help ? "; the attachments keep their slots when pods are "
                                         "removed: preemption cannot help here"
                                       : "; the attachments keep their slots when pods are "
                                         "removed";
    snprintf(buf, cap,
             "%s: %lld in use by the node's pods + %lld held by VolumeAttachments + %lld new > "
             "limit %lld%s",
             o.driver, (long long)o.in_use, (long long)o.held, (long long)o.fresh,
             (long long)o.limit, tail);
}

/* Preemption's resource-arithmetic path for a pod with volumes: on node n, VolumeBinding and
 * VolumeZone pass (they read no pods), VolumeRestrictions does not run, no nominated pod sits on
 * the node, and NodeVolumeLimits cannot fail whatever pods are removed (its upper bound is within
 * every limit). A pod without volumes: always. */
bool kp__volume_filters_steady(const kp_cycle *c, uint32_t node) {
    const kp_pod *p = c->p;
    bool any = false;
    for (uint16_t i = 0; i < p->n_volumes && !any; i++) any = p->volumes[i].source != KP_VS_OTHER;
    if (!any) return true;
    const kp_cluster *cl = c->s->cl;
    const kp_node *n = &cl->nodes[node];
    if (c->run[KP_PL_VOLUME_RESTRICTIONS] || c->s->nom_n[node]) return false;
    kp_node_status st;
    kp__status_reset(&st);
    if (c->run[KP_PL_VOLUME_BINDING]) kp__filter_volume_binding(c, n, &st);
    if (st.code == KP_CODE_SUCCESS && c->run[KP_PL_VOLUME_ZONE]) kp__filter_volume_zone(c, n, &st);
    if (st.code != KP_CODE_SUCCESS) return false;
    if (!c->run[KP_PL_NODE_VOLUME_LIMITS]) return true;
    const kp_nvl *s = c->nvl;
    if (s->err) return false;
    const kp_csinode *cn = csinode_of(cl, n);
    for (uint32_t i = 0; s->scaling && i < s->n_mine; i++)
        if (s->not_installed[i] && !driver_on_node(cn, s->mine[i].drv)) return false;
    int64_t limit;
    for (uint32_t i = 0; cn && i < s->n_mine; i++)
        if (limit_of(cn, s->mine[i].drv, &limit) && upper_bound(c, n, s->mine[i].drv) > limit)
            return false;
    return true;
}
