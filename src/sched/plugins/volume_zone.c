/* VolumeZone (pkg/scheduler/framework/plugins/volumezone): the zone and region labels of the
 * PersistentVolumes a pod's claims are bound to must match the node's. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/volume.h"
#include "sched/plugins/volume_zone.h"
#include "sched/status.h"

/* upstream's topologyLabels, in its order, and translateToGALabel of each */
static const char *const TOPO_KEYS[4] = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};
static const int TO_GA[4] = {2, 3, 2, 3};

static kp_str find_str(const kp_cluster *cl, const char *s) {
    return kp__intern_find(&cl->strs, s, strlen(s));
}

kp_status kp__volume_not_found(kp_cluster *cl, kp_node_status *pre, const char *resource,
                               kp_str name) {
    const char *nm = kp__s(cl, name);
    size_t lr = strlen(resource), ln = strlen(nm);
    char *buf = kp__malloc(lr + ln + 16);
    if (!buf) return KP_ENOMEM;
    memcpy(buf, resource, lr);
    memcpy(buf + lr, " \"", 2);
    memcpy(buf + lr + 2, nm, ln);
    memcpy(buf + lr + 2 + ln, "\" not found", 12);
    kp_str id = kp__intern(&cl->strs, buf, lr + ln + 13);
    kp__free(buf);
    if (id == UINT32_MAX) return KP_ENOMEM;
    pre->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(pre, kp__s(cl, id));
    return KP_OK;
}

static void reject(kp_node_status *pre, const char *msg) {
    pre->code = KP_CODE_UNRESOLVABLE;
    kp__status_add_reason(pre, msg);
}

/* mirrors VolumeZone.getPVTopologies: the PV's topology labels whose values parse as zone sets */
static void add_topologies(kp_cycle *c, const kp_pv *pv) {
    const kp_cluster *cl = c->s->cl;
    for (int k = 0; k < 4; k++) {
        kp_str v;
        if (c->vz_keys[k] == UINT32_MAX || !kp__labels_get(&pv->labels, c->vz_keys[k], &v))
            continue;
        if (!kp__zone_set_valid(kp__s(cl, v))) continue; /* LabelZonesToSet error: ignored */
        c->vz[c->n_vz++] = (kp_vz_topo){c->vz_keys[k], c->vz_keys[TO_GA[k]], v};
    }
}

/* mirrors VolumeZone.PreFilter and getPVbyPod (only persistentVolumeClaim volumes; ephemeral ones
 * are not looked at) */
kp_status kp__volume_zone_prefilter(kp_cycle *c, kp_node_status *pre) {
    const kp_pod *p = c->p;
    kp_cluster *cl = c->s->cl;
    uint32_t n_claims = 0;
    for (uint16_t i = 0; i < p->n_volumes; i++) n_claims += p->volumes[i].source == KP_VS_PVC;
    if (!n_claims) return KP_OK;
    for (int k = 0; k < 4; k++) c->vz_keys[k] = find_str(cl, TOPO_KEYS[k]);
    c->vz = kp__malloc((size_t)n_claims * 4 * sizeof *c->vz);
    if (!c->vz) return KP_ENOMEM;
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        if (v->source != KP_VS_PVC) continue;
        if (!v->claim) {
            reject(pre, "PersistentVolumeClaim had no name");
            return KP_OK;
        }
        const kp_pvc *pvc = kp__cluster_find_volume(cl, KP_VK_PVC, p->ns, v->claim);
        if (!pvc) return kp__volume_not_found(cl, pre, "persistentvolumeclaim", v->claim);
        if (!pvc->volume_name) {
            if (!pvc->class_name) {
                reject(pre, "PersistentVolumeClaim had no pv name and storageClass name");
                return KP_OK;
            }
            const kp_storage_class *sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, pvc->class_name);
            if (!sc)
                return kp__volume_not_found(cl, pre, "storageclass.storage.k8s.io",
                                            pvc->class_name);
            if (sc->binding_mode == KP_BIND_WAIT) continue; /* unbound: skipped */
            reject(pre, "PersistentVolume had no name");
            return KP_OK;
        }
        const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, pvc->volume_name);
        if (!pv) return kp__volume_not_found(cl, pre, "persistentvolume", pvc->volume_name);
        add_topologies(c, pv);
    }
    return KP_OK;
}

/* mirrors VolumeZone.Filter: a node without any topology label accepts every volume; otherwise
 * each topology label of the PVs must be on the node (a beta key also matches the node's GA key,
 * not the other way round) with a value in the PV's zone set. */
void kp__filter_volume_zone(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    kp_str v;
    bool constrained = false;
    for (int k = 0; k < 4 && !constrained; k++)
        constrained = c->vz_keys[k] != UINT32_MAX && kp__labels_get(&n->labels, c->vz_keys[k], &v);
    if (!constrained) return;
    for (uint32_t i = 0; i < c->n_vz; i++) {
        const kp_vz_topo *t = &c->vz[i];
        bool ok = kp__labels_get(&n->labels, t->key, &v) ||
                  (t->ga_key != UINT32_MAX && kp__labels_get(&n->labels, t->ga_key, &v));
        if (!ok || !kp__zone_set_has(kp__s(cl, t->values), kp__s(cl, v))) {
            st->code = KP_CODE_UNRESOLVABLE;
            kp__status_add_reason(st, "node(s) had no available volume zone");
            return;
        }
    }
}
