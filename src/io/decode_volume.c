/* Storage decoders: v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1
 * StorageClass, CSINode, CSIDriver, VolumeAttachment and CSIStorageCapacity, into the plain values
 * of core/volume.h.
 *
 * Kept: what the volume plugins read (see core/volume.h). Validated as the API server validates
 * those fields (access modes and binding modes are enumerations; counts are non-negative); other
 * fields are ignored without validation. Defaults: SetDefaults_StorageClass (Immediate),
 * SetDefaults_CSIDriver (attachRequired true). */
#include <stdlib.h>
#include <string.h>

#include "core/pod.h"
#include "core/volume.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "kprio/quantity.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

bool kp__volume_kind(const char *kind, kp_volume_kind *out) {
    for (int i = 0; i < KP_VK_KINDS; i++) {
        if (strcmp(kind, kp__volume_kind_name((kp_volume_kind)i)) == 0) {
            *out = (kp_volume_kind)i;
            return true;
        }
    }
    return false;
}

bool kp__volume_api_ok(kp_volume_kind kind, const char *api) {
    if (kind == KP_VK_PV || kind == KP_VK_PVC) return strcmp(api, "v1") == 0;
    if (strcmp(api, "storage.k8s.io/v1") == 0) return true;
    /* CSIStorageCapacity's v1beta1 is no longer served (removed in v1.27) */
    if (kind == KP_VK_CSISC) return false;
    /* still served in some lines: v1beta1 of StorageClass, CSINode, CSIDriver, VolumeAttachment */
    return strcmp(api, "storage.k8s.io/v1beta1") == 0;
}

/* Member `key` (a string) of obj, interned into *out; absent leaves *out 0. */
static kp_status opt_str(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                         kp_str *out, bool *present) {
    const char *s = NULL;
    bool has = false;
    TRY(kp__dget_str(d, obj, key, &s, &has));
    if (present) *present = has;
    if (!has) return KP_OK;
    return kp__d_intern(d, cl, kp__tree_get(obj, key), key, s, strlen(s), out);
}

/* spec.accessModes (ValidatePersistentVolumeSpec / ValidatePersistentVolumeClaimSpec: every
 * element one of the four modes) */
static kp_status access_modes(kp_dctx *d, const kp_tnode *spec, uint8_t *out) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "accessModes", &a));
    if (!a) return KP_OK;
    static const char *const names[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                        "ReadWriteOncePod"};
    size_t saved = kp__dctx_push(d, "accessModes");
    uint32_t i = 0;
    kp_status st = KP_OK;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        int m = -1;
        for (int k = 0; k < 4 && t->type == KP_T_STR; k++)
            if (t->len == strlen(names[k]) && memcmp(t->s, names[k], t->len) == 0) m = k;
        if (m < 0)
            st = kp__dctx_fail(d, t, KP_EINVAL, NULL,
                               "unsupported value: supported values: \"ReadOnlyMany\", "
                               "\"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"");
        else *out |= (uint8_t)(1u << m);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* spec.volumeMode: Filesystem (default) or Block (ValidatePersistentVolumeMode) */
static kp_status volume_mode(kp_dctx *d, const kp_tnode *spec, bool *block) {
    const char *m = NULL;
    bool has = false;
    TRY(kp__dget_str(d, spec, "volumeMode", &m, &has));
    if (!has || strcmp(m, "Filesystem") == 0) return KP_OK;
    if (strcmp(m, "Block") == 0) {
        *block = true;
        return KP_OK;
    }
    return kp__dctx_fail(d, kp__tree_get(spec, "volumeMode"), KP_EINVAL, "volumeMode",
                         "unsupported value \"%s\": supported values: \"Block\", \"Filesystem\"",
                         m);
}

/* obj[key].storage (a capacity or a request) in bytes; absent: 0 (*present false; may be NULL) */
static kp_status storage_of(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out,
                            bool *present) {
    const kp_tnode *m = NULL;
    TRY(kp__dget_obj(d, obj, key, &m));
    const kp_tnode *q = m ? kp__tree_get(m, "storage") : NULL;
    if (!q || q->type == KP_T_NULL) return KP_OK;
    if (present) *present = true;
    size_t saved = kp__dctx_push(d, key);
    kp_status st = kp__d_quantity(d, q, "storage", false, out);
    kp__dctx_pop(d, saved);
    return st;
}

/* spec.nodeAffinity.required.nodeSelectorTerms (v1.VolumeNodeAffinity) */
static kp_status decode_pv_affinity(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pv *pv) {
    const kp_tnode *na = NULL, *req = NULL, *terms = NULL;
    TRY(kp__dget_obj(d, spec, "nodeAffinity", &na));
    if (!na) return KP_OK;
    size_t saved = kp__dctx_push(d, "nodeAffinity");
    kp_status st = kp__dget_obj(d, na, "required", &req);
    if (st == KP_OK && req) {
        pv->has_affinity = true;
        size_t s1 = kp__dctx_push(d, "required");
        st = kp__dget_arr(d, req, "nodeSelectorTerms", &terms);
        if (st == KP_OK && terms)
            st = kp__d_check_count(d, terms, "nodeSelectorTerms", terms->n, KP_MAX_ENTRIES);
        if (st == KP_OK && terms && terms->n &&
            !(pv->terms = kp__d_alloc(d, cl, terms->n * sizeof *pv->terms)))
            st = KP_ENOMEM;
        size_t s2 = kp__dctx_push(d, "nodeSelectorTerms");
        uint32_t i = 0;
        for (const kp_tnode *t = terms ? terms->first : NULL; t && st == KP_OK; t = t->next, i++) {
            size_t s3 = kp__dctx_push_index(d, i);
            kp_nsterm *nt = &pv->terms[i];
            if (t->type != KP_T_OBJ)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
            if (st == KP_OK)
                st = kp__d_selreqs(d, cl, t, "matchExpressions", true, &nt->n_exprs, &nt->exprs);
            if (st == KP_OK)
                st = kp__d_selreqs(d, cl, t, "matchFields", true, &nt->n_fields, &nt->fields);
            kp__dctx_pop(d, s3);
        }
        pv->n_terms = (uint16_t)i;
        kp__dctx_pop(d, s2);
        kp__dctx_pop(d, s1);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* status.phase of a PV (v1.PersistentVolumePhase) */
static kp_status pv_phase(kp_dctx *d, const kp_tnode *obj, kp_pv *pv) {
    const kp_tnode *status = NULL;
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (!status) return KP_OK;
    const char *ph = NULL;
    bool has = false;
    size_t saved = kp__dctx_push(d, "status");
    kp_status st = kp__dget_str(d, status, "phase", &ph, &has);
    static const char *const names[] = {"Pending", "Available", "Bound", "Released", "Failed"};
    int m = -1;
    for (int k = 0; st == KP_OK && has && k < 5; k++)
        if (strcmp(ph, names[k]) == 0) m = k;
    if (st == KP_OK && has && m < 0)
        st = kp__dctx_fail(d, kp__tree_get(status, "phase"), KP_EINVAL, "phase",
                           "unsupported value \"%s\": supported values: \"Available\", "
                           "\"Bound\", \"Failed\", \"Pending\", \"Released\"",
                           ph);
    if (m > 0) pv->phase = (uint8_t)m;
    kp__dctx_pop(d, saved);
    return st;
}

/* The in-tree sources csi-translation-lib translates whose migration NodeVolumeLimits counts,
 * with their id field. */
static const struct {
    const char *key, *id;
    uint8_t mig, source; /* kp_mig_plugin, kp_volume_source of the same inline volume */
} INTREE[] = {{"awsElasticBlockStore", "volumeID", KP_MIG_AWS_EBS, KP_VS_AWS_EBS},
              {"gcePersistentDisk", "pdName", KP_MIG_GCE_PD, KP_VS_GCE_PD},
              {"azureDisk", "diskURI", KP_MIG_AZURE_DISK, KP_VS_AZURE_DISK},
              {"cinder", "volumeID", KP_MIG_CINDER, KP_VS_CINDER},
              {"portworxVolume", "volumeID", KP_MIG_PORTWORX, KP_VS_PORTWORX}};

/* *out = the CSI volume handle of in-tree id `id` (kp__csi_translate), 0 when it does not
 * translate. */
static kp_status translate(kp_dctx *d, kp_cluster *cl, const kp_tnode *at, const char *field,
                           kp_mig_plugin m, const char *id, const char *zone, kp_str *out) {
    char small[256];
    long n = kp__csi_translate(m, id, zone, small, sizeof small);
    if (n < 0) return KP_OK;
    char *buf = small;
    if ((size_t)n >= sizeof small) {
        if (!(buf = kp__d_alloc(d, cl, (size_t)n + 1))) return KP_ENOMEM;
        kp__csi_translate(m, id, zone, buf, (size_t)n + 1);
    }
    return kp__d_intern(d, cl, at, field, buf, (size_t)n, out);
}

/* GetInTreePluginNameFromSpec + TranslateInTreePVToCSI for the counted plugins: pv->mig_* */
static kp_status decode_pv_intree(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pv *pv) {
    for (size_t k = 0; k < sizeof INTREE / sizeof INTREE[0]; k++) {
        const kp_tnode *o = NULL;
        TRY(kp__dget_obj(d, spec, INTREE[k].key, &o));
        if (!o) continue;
        const char *id = NULL, *zone = NULL;
        bool has = false;
        size_t saved = kp__dctx_push(d, INTREE[k].key);
        kp_status st = kp__dget_str(d, o, INTREE[k].id, &id, &has);
        if (st == KP_OK && INTREE[k].mig == KP_MIG_GCE_PD) {
            /* the beta zone label first, then the GA one (an empty value counts as absent) */
            kp_str key, val;
            static const char *const keys[] = {"failure-domain.beta.kubernetes.io/zone",
                                               "topology.kubernetes.io/zone"};
            for (int i = 0; i < 2 && !(zone && zone[0]); i++) {
                key = kp__intern_find(&cl->strs, keys[i], strlen(keys[i]));
                if (key != UINT32_MAX && kp__labels_get(&pv->labels, key, &val))
                    zone = kp__s(cl, val);
            }
        }
        if (st == KP_OK) {
            const char *drv = kp__mig_driver_name((kp_mig_plugin)INTREE[k].mig);
            st = kp__d_intern(d, cl, o, INTREE[k].key, drv, strlen(drv), &pv->mig_driver);
        }
        if (st == KP_OK)
            st = translate(d, cl, o, INTREE[k].id, (kp_mig_plugin)INTREE[k].mig, has ? id : "",
                           zone, &pv->mig_handle);
        if (st == KP_OK && !pv->mig_handle) pv->mig_driver = 0;
        kp__dctx_pop(d, saved);
        return st; /* one source per PV: the first the translator recognises */
    }
    return KP_OK;
}

static kp_status decode_pv(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const kp_tnode *meta,
                           const kp_tnode *spec, kp_pv *pv) {
    const kp_tnode *ann = NULL;
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__d_labels(d, cl, meta, "labels", &pv->labels);
    const kp_tnode *del = meta ? kp__tree_get(meta, "deletionTimestamp") : NULL;
    pv->deleting = del && del->type != KP_T_NULL;
    if (st == KP_OK) st = pv_phase(d, obj, pv);
    if (st == KP_OK) st = kp__dget_obj(d, meta, "annotations", &ann);
    if (st == KP_OK && ann) {
        size_t s2 = kp__dctx_push(d, "annotations");
        st = opt_str(d, cl, ann, "volume.beta.kubernetes.io/storage-class", &pv->class_name, NULL);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    if (st != KP_OK || !spec) return st;
    saved = kp__dctx_push(d, "spec");
    const kp_tnode *ref = NULL, *csi = NULL;
    /* GetPersistentVolumeClass: the beta annotation wins over spec.storageClassName */
    if (!pv->class_name) st = opt_str(d, cl, spec, "storageClassName", &pv->class_name, NULL);
    if (st == KP_OK) st = access_modes(d, spec, &pv->access_modes);
    if (st == KP_OK) st = kp__dget_obj(d, spec, "claimRef", &ref);
    if (st == KP_OK && ref) {
        size_t s2 = kp__dctx_push(d, "claimRef");
        pv->has_claim_ref = true;
        st = opt_str(d, cl, ref, "namespace", &pv->claim_ns, NULL);
        if (st == KP_OK) st = opt_str(d, cl, ref, "name", &pv->claim_name, NULL);
        if (st == KP_OK) st = opt_str(d, cl, ref, "uid", &pv->claim_uid, NULL);
        kp__dctx_pop(d, s2);
    }
    if (st == KP_OK) st = storage_of(d, spec, "capacity", &pv->capacity, NULL);
    if (st == KP_OK) st = volume_mode(d, spec, &pv->block);
    if (st == KP_OK) st = opt_str(d, cl, spec, "volumeAttributesClassName", &pv->vac, NULL);
    if (st == KP_OK) st = decode_pv_affinity(d, cl, spec, pv);
    if (st == KP_OK) st = kp__dget_obj(d, spec, "csi", &csi);
    if (st == KP_OK && csi) {
        size_t s2 = kp__dctx_push(d, "csi");
        pv->has_csi = true;
        st = opt_str(d, cl, csi, "driver", &pv->csi_driver, NULL);
        if (st == KP_OK) st = opt_str(d, cl, csi, "volumeHandle", &pv->csi_handle, NULL);
        kp__dctx_pop(d, s2);
    }
    if (st == KP_OK && !csi) st = decode_pv_intree(d, cl, spec, pv);
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_pvc(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const kp_tnode *meta,
                            const kp_tnode *spec, kp_pvc *c) {
    const kp_tnode *ann = NULL, *status = NULL;
    kp_str beta_class = 0;
    bool has_beta = false;
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__dget_obj(d, meta, "annotations", &ann);
    if (st == KP_OK && ann) {
        size_t s2 = kp__dctx_push(d, "annotations");
        st = opt_str(d, cl, ann, "volume.beta.kubernetes.io/storage-class", &beta_class, &has_beta);
        if (st == KP_OK)
            st = opt_str(d, cl, ann, "volume.kubernetes.io/selected-node", &c->selected_node, NULL);
        /* metav1.HasAnnotation: present, whatever the value */
        c->bind_completed = kp__tree_get(ann, "pv.kubernetes.io/bind-completed") != NULL;
        kp__dctx_pop(d, s2);
    }
    if (st == KP_OK) st = opt_str(d, cl, meta, "uid", &c->uid, NULL);
    kp__dctx_pop(d, saved);
    if (st == KP_OK && spec) {
        saved = kp__dctx_push(d, "spec");
        st = opt_str(d, cl, spec, "volumeName", &c->volume_name, NULL);
        /* GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName */
        if (st == KP_OK) st = opt_str(d, cl, spec, "storageClassName", &c->class_name, NULL);
        if (st == KP_OK) st = access_modes(d, spec, &c->access_modes);
        if (st == KP_OK) st = volume_mode(d, spec, &c->block);
        if (st == KP_OK) st = opt_str(d, cl, spec, "volumeAttributesClassName", &c->vac, NULL);
        if (st == KP_OK) st = kp__d_label_selector(d, cl, spec, "selector", &c->selector);
        const kp_tnode *res = NULL;
        if (st == KP_OK) st = kp__dget_obj(d, spec, "resources", &res);
        if (st == KP_OK && res) {
            size_t s2 = kp__dctx_push(d, "resources");
            st = storage_of(d, res, "requests", &c->request, &c->has_request);
            kp__dctx_pop(d, s2);
        }
        kp__dctx_pop(d, saved);
    }
    if (has_beta) c->class_name = beta_class;
    if (st == KP_OK) st = kp__dget_obj(d, obj, "status", &status);
    if (st == KP_OK && status) {
        const char *ph = NULL;
        bool has = false;
        saved = kp__dctx_push(d, "status");
        st = kp__dget_str(d, status, "phase", &ph, &has);
        if (st == KP_OK && has) {
            if (strcmp(ph, "Bound") == 0) c->phase = KP_PVC_BOUND;
            else if (strcmp(ph, "Lost") == 0) c->phase = KP_PVC_LOST;
            else if (strcmp(ph, "Pending") != 0)
                st = kp__dctx_fail(d, kp__tree_get(status, "phase"), KP_EINVAL, "phase",
                                   "unsupported value \"%s\": supported values: \"Bound\", "
                                   "\"Lost\", \"Pending\"",
                                   ph);
        }
        kp__dctx_pop(d, saved);
    }
    return st;
}

/* allowedTopologies[].matchLabelExpressions[] ({key, values}) as `key In values` requirements */
static kp_status decode_topologies(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj,
                                   kp_storage_class *sc) {
    const kp_tnode *a = NULL;
    TRY(kp__dget_arr(d, obj, "allowedTopologies", &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, "allowedTopologies", a->n, KP_MAX_ENTRIES));
    if (!(sc->topo = kp__d_alloc(d, cl, a->n * sizeof *sc->topo))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "allowedTopologies");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s1 = kp__dctx_push_index(d, i);
        const kp_tnode *ex = NULL;
        kp_nsterm *term = &sc->topo[i];
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_arr(d, t, "matchLabelExpressions", &ex);
        if (st == KP_OK && ex && ex->n)
            st = kp__d_check_count(d, ex, "matchLabelExpressions", ex->n, KP_MAX_ENTRIES);
        if (st == KP_OK && ex && ex->n &&
            !(term->exprs = kp__d_alloc(d, cl, ex->n * sizeof *term->exprs)))
            st = KP_ENOMEM;
        size_t s2 = kp__dctx_push(d, "matchLabelExpressions");
        uint32_t k = 0;
        for (const kp_tnode *e = ex ? ex->first : NULL; e && st == KP_OK; e = e->next, k++) {
            size_t s3 = kp__dctx_push_index(d, k);
            kp_selreq *r = &term->exprs[k];
            r->op = KP_OP_IN;
            if (e->type != KP_T_OBJ)
                st = kp__dctx_fail(d, e, KP_EINVAL, NULL, "expected an object");
            if (st == KP_OK) st = kp__d_str(d, cl, e, "key", &r->key);
            if (st == KP_OK) st = kp__d_str_list(d, cl, e, "values", &r->n_values, &r->values);
            kp__dctx_pop(d, s3);
        }
        term->n_exprs = (uint16_t)k;
        kp__dctx_pop(d, s2);
        kp__dctx_pop(d, s1);
    }
    sc->n_topo = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_sc(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_storage_class *sc) {
    TRY(opt_str(d, cl, obj, "provisioner", &sc->provisioner, NULL));
    TRY(decode_topologies(d, cl, obj, sc));
    const char *m = NULL;
    bool has = false;
    TRY(kp__dget_str(d, obj, "volumeBindingMode", &m, &has));
    if (!has || strcmp(m, "Immediate") == 0) sc->binding_mode = KP_BIND_IMMEDIATE;
    else if (strcmp(m, "WaitForFirstConsumer") == 0) sc->binding_mode = KP_BIND_WAIT;
    else
        return kp__dctx_fail(d, kp__tree_get(obj, "volumeBindingMode"), KP_EINVAL,
                             "volumeBindingMode",
                             "unsupported value \"%s\": supported values: \"Immediate\", "
                             "\"WaitForFirstConsumer\"",
                             m);
    return KP_OK;
}

static kp_status decode_csinode(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_csinode *cn) {
    const kp_tnode *a = NULL;
    if (spec) TRY(kp__dget_arr(d, spec, "drivers", &a));
    if (!a || !a->n) return KP_OK;
    size_t saved = kp__dctx_push(d, "spec");
    kp_status st = kp__d_check_count(d, a, "drivers", a->n, KP_MAX_ENTRIES);
    if (st == KP_OK && !(cn->drivers = kp__d_alloc(d, cl, a->n * sizeof *cn->drivers)))
        st = KP_ENOMEM;
    size_t s1 = kp__dctx_push(d, "drivers");
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_csinode_driver *dr = &cn->drivers[i];
        const kp_tnode *al = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "name", &dr->name);
        if (st == KP_OK) st = kp__dget_obj(d, t, "allocatable", &al);
        if (st == KP_OK && al) {
            int64_t v = 0;
            size_t s3 = kp__dctx_push(d, "allocatable");
            st = kp__dget_int(d, al, "count", 0, INT32_MAX, &v, &dr->has_count);
            dr->count = (int32_t)v;
            kp__dctx_pop(d, s3);
        }
        kp__dctx_pop(d, s2);
    }
    cn->n_drivers = (uint16_t)i;
    kp__dctx_pop(d, s1);
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_va(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec,
                           kp_volume_attachment *va) {
    if (!spec) return KP_OK;
    const kp_tnode *src = NULL;
    size_t saved = kp__dctx_push(d, "spec");
    kp_status st = opt_str(d, cl, spec, "attacher", &va->attacher, NULL);
    if (st == KP_OK) st = opt_str(d, cl, spec, "nodeName", &va->node_name, NULL);
    if (st == KP_OK) st = kp__dget_obj(d, spec, "source", &src);
    if (st == KP_OK && src) {
        size_t s2 = kp__dctx_push(d, "source");
        st = opt_str(d, cl, src, "persistentVolumeName", &va->pv_name, NULL);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* A non-negative quantity of obj[key] (ValidateNonnegativeQuantity); absent: *has false. */
static kp_status nonneg_quantity(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out,
                                 bool *has) {
    const kp_tnode *q = kp__tree_get(obj, key);
    if (!q || q->type == KP_T_NULL) return KP_OK;
    TRY(kp__d_quantity(d, q, key, false, out));
    kp_quantity qv;
    if (*out < 0 || (q->len && q->s[0] == '-' &&
                     kp_quantity_parse(q->s, q->len, &qv, NULL) == KP_OK && qv.mant < 0))
        return kp__dctx_fail(d, q, KP_EINVAL, key, "must be greater than or equal to 0");
    *has = true;
    return KP_OK;
}

/* storage.k8s.io/v1 CSIStorageCapacity (ValidateCSIStorageCapacity: storageClassName required,
 * nodeTopology a valid label selector, capacity and maximumVolumeSize not negative); its fields
 * are at the top level, not in a spec */
static kp_status decode_csisc(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_csi_capacity *o) {
    bool has = false;
    TRY(opt_str(d, cl, obj, "storageClassName", &o->class_name, &has));
    if (!has || !o->class_name || !kp__s(cl, o->class_name)[0])
        return kp__dctx_fail(d, has ? kp__tree_get(obj, "storageClassName") : obj, KP_EINVAL,
                             "storageClassName", "Required value");
    TRY(kp__d_label_selector(d, cl, obj, "nodeTopology", &o->topology));
    TRY(nonneg_quantity(d, obj, "capacity", &o->capacity, &o->has_capacity));
    return nonneg_quantity(d, obj, "maximumVolumeSize", &o->max_size, &o->has_max);
}

/* The sources the scheduler's volume plugins read (kp_volume.source): a claim (ephemeral: named
 * "<pod>-<volume>", ephemeral.VolumeClaimName) and the in-tree disks VolumeRestrictions compares
 * (GCE PD, AWS EBS, iSCSI, RBD with SetDefaults_RBDVolumeSource's pool "rbd"). */
kp_status kp__decode_volume_source(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, const kp_pod *p,
                                   kp_volume *v) {
    static const struct {
        const char *key, *id;
        uint8_t source;
    } SRC[] = {{"persistentVolumeClaim", "claimName", KP_VS_PVC},
               {"gcePersistentDisk", "pdName", KP_VS_GCE_PD},
               {"awsElasticBlockStore", "volumeID", KP_VS_AWS_EBS},
               {"iscsi", "iqn", KP_VS_ISCSI},
               {"rbd", "image", KP_VS_RBD},
               {"azureDisk", "diskURI", KP_VS_AZURE_DISK},
               {"cinder", "volumeID", KP_VS_CINDER},
               {"portworxVolume", "volumeID", KP_VS_PORTWORX}};
    kp_status st = KP_OK;
    for (size_t k = 0; k < sizeof SRC / sizeof SRC[0] && st == KP_OK; k++) {
        const kp_tnode *o = NULL;
        st = kp__dget_obj(d, t, SRC[k].key, &o);
        if (st != KP_OK || !o) continue;
        size_t s3 = kp__dctx_push(d, SRC[k].key);
        v->source = SRC[k].source;
        st = kp__d_str(d, cl, o, SRC[k].id, SRC[k].source == KP_VS_PVC ? &v->claim : &v->disk);
        if (st == KP_OK) st = kp__dget_bool(d, o, "readOnly", &v->read_only, NULL);
        if (st == KP_OK && SRC[k].source == KP_VS_RBD) {
            bool has_pool = false;
            const char *pool = NULL;
            st = kp__d_str_list(d, cl, o, "monitors", &v->n_monitors, &v->monitors);
            if (st == KP_OK) st = kp__dget_str(d, o, "pool", &pool, &has_pool);
            if (st == KP_OK)
                st = kp__d_intern(d, cl, o, "pool", has_pool && pool[0] ? pool : "rbd",
                                  has_pool && pool[0] ? strlen(pool) : 3, &v->pool);
        }
        /* NodeVolumeLimits: the handle TranslateInTreeInlineVolumeToCSI gives a migrated disk */
        for (size_t m = 0; m < sizeof INTREE / sizeof INTREE[0] && st == KP_OK; m++)
            if (INTREE[m].source == SRC[k].source)
                st = translate(d, cl, o, SRC[k].id, (kp_mig_plugin)INTREE[m].mig,
                               kp__s(cl, v->disk), NULL, &v->csi_handle);
        kp__dctx_pop(d, s3);
    }
    /* translatable in-tree sources whose migration is not counted (IsInlineMigratable) */
    if (st == KP_OK && v->source == KP_VS_OTHER &&
        ((kp__tree_get(t, "azureFile") && kp__tree_get(t, "azureFile")->type == KP_T_OBJ) ||
         (kp__tree_get(t, "vsphereVolume") && kp__tree_get(t, "vsphereVolume")->type == KP_T_OBJ)))
        v->source = KP_VS_MIGRATABLE;
    const kp_tnode *eph = kp__tree_get(t, "ephemeral");
    if (st == KP_OK && eph && eph->type != KP_T_NULL) {
        const char *pn = kp__s(cl, p->name), *vn = kp__s(cl, v->name);
        size_t lp = strlen(pn), lv = strlen(vn);
        char *buf = kp__d_alloc(d, cl, lp + lv + 2);
        if (!buf) return KP_ENOMEM;
        memcpy(buf, pn, lp);
        buf[lp] = '-';
        memcpy(buf + lp + 1, vn, lv);
        v->source = KP_VS_EPHEMERAL;
        st = kp__d_intern(d, cl, eph, "ephemeral", buf, lp + lv + 1, &v->claim);
    }
    return st;
}

kp_status kp__decode_volume(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_volume_kind kind,
                            void *o) {
    const kp_tnode *meta = NULL, *spec = NULL;
    TRY(kp__dget_obj(d, obj, "metadata", &meta));
    if (kind != KP_VK_SC && kind != KP_VK_CSISC) TRY(kp__dget_obj(d, obj, "spec", &spec));
    switch (kind) {
    case KP_VK_PV: return decode_pv(d, cl, obj, meta, spec, o);
    case KP_VK_PVC: return decode_pvc(d, cl, obj, meta, spec, o);
    case KP_VK_SC: return decode_sc(d, cl, obj, o);
    case KP_VK_CSINODE: return decode_csinode(d, cl, spec, o);
    case KP_VK_CSIDRIVER: {
        if (!spec) return KP_OK;
        kp_csidriver *dr = o;
        size_t saved = kp__dctx_push(d, "spec");
        kp_status st = kp__dget_bool(d, spec, "attachRequired", &dr->attach_required, NULL);
        if (st == KP_OK)
            st = kp__dget_bool(d, spec, "storageCapacity", &dr->storage_capacity, NULL);
        kp__dctx_pop(d, saved);
        return st;
    }
    case KP_VK_VA: return decode_va(d, cl, spec, o);
    case KP_VK_CSISC: return decode_csisc(d, cl, obj, o);
    default: return KP_OK;
    }
}
