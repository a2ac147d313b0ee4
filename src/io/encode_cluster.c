/* kp_cluster_encode_json: the cluster model back to a kubectl-style v1 List (include/kprio/
 * encode.h). Namespaces, PriorityClasses, Nodes, storage objects, PodDisruptionBudgets here;
 * workloads in encode_workload.c, pods in encode_pod.c, the writer in encode_json.c. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/volume.h"
#include "io/encode_json.h"
#include "kprio/encode.h"

/* Pods kp_cluster_delete_pod removed (tombstones) are left out of the output, and so are the
 * victims of `schedule --until-settled`, which terminate at once by leaving the node they are
 * bound to: after finalize a live pod bound to a node of the cluster is on it, unless it is
 * terminal. */
static bool pod_is_deleted(const kp_cluster *cl, const kp_pod *p) {
    if (p->deleted) return true;
    return cl->finalized && p->node < 0 && p->node_name && !kp__pod_is_terminal(p) &&
           kp_cluster_find_node(cl, kp__s(cl, p->node_name)) >= 0;
}
/* Nodes kp_cluster_delete_node removed. */
static inline bool node_is_deleted(const kp_node *n) { return n->deleted; }

void kp_encode_options_init(kp_encode_options *o) { memset(o, 0, sizeof *o); }

static void namespace_obj(kp__enc *e, const kp_namespace *ns) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "v1", "Namespace", 0, ns->name);
    kp__enc_labels(e, "labels", &ns->labels, false);
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

static void priority_class(kp__enc *e, const kp_priority_class *pc) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "scheduling.k8s.io/v1", "PriorityClass", 0, pc->name);
    kp__enc_end_obj(e);
    kp__enc_int(e, "value", pc->value);
    if (pc->global_default) kp__enc_bool(e, "globalDefault", true);
    kp__enc_sid(e, "description", pc->description);
    if (pc->has_preemption_policy)
        kp__enc_str(e, "preemptionPolicy",
                    pc->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
    kp__enc_end_obj(e);
}

static void conditions(kp__enc *e, uint16_t n, const kp_condition *c) {
    if (!n) return;
    kp__enc_arr(e, "conditions");
    for (uint16_t i = 0; i < n; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "type", c[i].type);
        kp__enc_sid(e, "status", c[i].status);
        kp__enc_sid(e, "reason", c[i].reason);
        kp__enc_sid(e, "message", c[i].message);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

/* status.images: the model keeps each name with its image's size, so each name is written as an
 * image of its own (ImageLocality reads names and sizes only). */
static void node_obj(kp__enc *e, const kp_node *n) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "v1", "Node", 0, n->name);
    kp__enc_sid(e, "uid", n->uid);
    kp__enc_time(e, "creationTimestamp", n->creation_ts);
    kp__enc_labels(e, "labels", &n->labels, false);
    kp__enc_labels(e, "annotations", &n->annotations, false);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    if (n->unschedulable) kp__enc_bool(e, "unschedulable", true);
    if (n->n_taints) {
        kp__enc_arr(e, "taints");
        for (uint16_t i = 0; i < n->n_taints; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "key", n->taints[i].key);
            kp__enc_sid(e, "value", n->taints[i].value);
            kp__enc_str(e, "effect", kp__enc_effect(n->taints[i].effect));
            if (n->taints[i].time_added) kp__enc_time(e, "timeAdded", n->taints[i].time_added);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
    kp__enc_obj(e, "status");
    kp__enc_dense(e, "capacity", n->cap, NULL);
    kp__enc_dense(e, "allocatable", n->alloc, n->has_alloc);
    conditions(e, n->n_conditions, n->conditions);
    if (n->n_images) {
        kp__enc_arr(e, "images");
        for (uint32_t i = 0; i < n->n_images; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_arr(e, "names");
            kp__enc_str(e, NULL, kp__s(e->cl, n->images[i].name));
            kp__enc_end_arr(e);
            kp__enc_int(e, "sizeBytes", n->images[i].size);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

static void access_modes(kp__enc *e, uint8_t m) {
    static const char *const names[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                        "ReadWriteOncePod"};
    if (!m) return;
    kp__enc_arr(e, "accessModes");
    for (int k = 0; k < 4; k++)
        if (m & (1u << k)) kp__enc_str(e, NULL, names[k]);
    kp__enc_end_arr(e);
}

/* The in-tree source a PV's migration came from (decode_volume.c decode_pv_intree): the model
 * keeps only the CSI driver and the translated handle (kp__csi_translate), so the source is
 * written back with the id that translates to the same handle: the handle less the prefix the
 * translation puts before the id (a GCE PD's projects/UNSPECIFIED/zones/<zone>/disks/, from the
 * PV's zone labels, which are written too). */
static void pv_intree(kp__enc *e, const kp_pv *pv) {
    static const struct {
        uint8_t mig; /* kp_mig_plugin */
        const char *key, *id;
    } SRC[] = {{KP_MIG_AWS_EBS, "awsElasticBlockStore", "volumeID"},
               {KP_MIG_GCE_PD, "gcePersistentDisk", "pdName"},
               {KP_MIG_AZURE_DISK, "azureDisk", "diskURI"},
               {KP_MIG_CINDER, "cinder", "volumeID"},
               {KP_MIG_PORTWORX, "portworxVolume", "volumeID"}};
    const kp_cluster *cl = e->cl;
    if (pv->has_csi || !pv->mig_driver || !pv->mig_handle) return;
    const char *drv = kp__s(cl, pv->mig_driver), *handle = kp__s(cl, pv->mig_handle);
    for (size_t k = 0; k < sizeof SRC / sizeof SRC[0]; k++) {
        kp_mig_plugin m = (kp_mig_plugin)SRC[k].mig;
        if (strcmp(kp__mig_driver_name(m), drv) != 0) continue;
        const char *zone = NULL;
        if (m == KP_MIG_GCE_PD) { /* the decoder's choice: the beta label first, then the GA one */
            static const char *const keys[] = {"failure-domain.beta.kubernetes.io/zone",
                                               "topology.kubernetes.io/zone"};
            for (int i = 0; i < 2 && !(zone && zone[0]); i++) {
                kp_str key = kp__intern_find(&cl->strs, keys[i], strlen(keys[i])), val;
                if (key != UINT32_MAX && kp__labels_get(&pv->labels, key, &val))
                    zone = kp__s(cl, val);
            }
        }
        char prefix[8];
        long n = kp__csi_translate(m, "", zone, prefix, sizeof prefix);
        size_t len = strlen(handle);
        kp__enc_obj(e, SRC[k].key);
        kp__enc_str(e, SRC[k].id, n >= 0 && (size_t)n <= len ? handle + n : handle);
        kp__enc_end_obj(e);
        return;
    }
}

/* PersistentVolumeSpec's field order; a deletionTimestamp is written as time 0 (the model keeps
 * only that it is set); status.phase always (the API server's default: Pending). */
static void pv_obj(kp__enc *e, const kp_pv *pv) {
    static const char *const phases[] = {"Pending", "Available", "Bound", "Released", "Failed"};
    if (pv->deleting) kp__enc_time(e, "deletionTimestamp", 0);
    kp__enc_labels(e, "labels", &pv->labels, false);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    if (pv->capacity) {
        kp__enc_obj(e, "capacity");
        kp__enc_quantity(e, "storage", -1, 0, pv->capacity);
        kp__enc_end_obj(e);
    }
    pv_intree(e, pv);
    if (pv->has_csi) {
        kp__enc_obj(e, "csi");
        kp__enc_sid(e, "driver", pv->csi_driver);
        kp__enc_sid(e, "volumeHandle", pv->csi_handle);
        kp__enc_end_obj(e);
    }
    access_modes(e, pv->access_modes);
    if (pv->has_claim_ref) {
        kp__enc_obj(e, "claimRef");
        kp__enc_sid(e, "namespace", pv->claim_ns);
        kp__enc_sid(e, "name", pv->claim_name);
        kp__enc_sid(e, "uid", pv->claim_uid);
        kp__enc_end_obj(e);
    }
    kp__enc_sid(e, "storageClassName", pv->class_name);
    if (pv->block) kp__enc_str(e, "volumeMode", "Block");
    if (pv->has_affinity) {
        kp__enc_obj(e, "nodeAffinity");
        kp__enc_obj(e, "required");
        kp__enc_arr(e, "nodeSelectorTerms");
        for (uint16_t i = 0; i < pv->n_terms; i++) kp__enc_nsterm(e, NULL, &pv->terms[i]);
        kp__enc_end_arr(e);
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
    kp__enc_sid(e, "volumeAttributesClassName", pv->vac);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "status");
    kp__enc_str(e, "phase", pv->phase <= KP_PV_FAILED ? phases[pv->phase] : "Pending");
    kp__enc_end_obj(e);
}

/* PersistentVolumeClaimSpec's field order */
static void pvc_obj(kp__enc *e, const kp_pvc *c) {
    static const char *const phases[] = {"Pending", "Bound", "Lost"};
    kp__enc_sid(e, "uid", c->uid);
    if (c->selected_node || c->bind_completed) {
        kp__enc_obj(e, "annotations");
        if (c->bind_completed) kp__enc_str(e, "pv.kubernetes.io/bind-completed", "yes");
        kp__enc_sid(e, "volume.kubernetes.io/selected-node", c->selected_node);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    access_modes(e, c->access_modes);
    kp__enc_selector(e, "selector", &c->selector);
    if (c->request || c->has_request) {
        kp__enc_obj(e, "resources");
        kp__enc_obj(e, "requests");
        kp__enc_quantity(e, "storage", -1, 0, c->request);
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
    kp__enc_sid(e, "volumeName", c->volume_name);
    kp__enc_sid(e, "storageClassName", c->class_name);
    if (c->block) kp__enc_str(e, "volumeMode", "Block");
    kp__enc_sid(e, "volumeAttributesClassName", c->vac);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "status");
    kp__enc_str(e, "phase", c->phase <= KP_PVC_LOST ? phases[c->phase] : "Pending");
    kp__enc_end_obj(e);
}

/* StorageClass: provisioner, volumeBindingMode, allowedTopologies (v1.TopologySelectorTerm:
 * matchLabelExpressions of {key, values}) */
static void sc_obj(kp__enc *e, const kp_storage_class *sc) {
    kp__enc_end_obj(e);
    kp__enc_sid(e, "provisioner", sc->provisioner);
    kp__enc_str(e, "volumeBindingMode",
                sc->binding_mode == KP_BIND_WAIT ? "WaitForFirstConsumer" : "Immediate");
    if (!sc->n_topo) return;
    kp__enc_arr(e, "allowedTopologies");
    for (uint16_t t = 0; t < sc->n_topo; t++) {
        const kp_nsterm *term = &sc->topo[t];
        kp__enc_obj(e, NULL);
        if (term->n_exprs) {
            kp__enc_arr(e, "matchLabelExpressions");
            for (uint16_t k = 0; k < term->n_exprs; k++) {
                kp__enc_obj(e, NULL);
                kp__enc_sid(e, "key", term->exprs[k].key);
                kp__enc_arr(e, "values");
                for (uint16_t v = 0; v < term->exprs[k].n_values; v++)
                    kp__enc_str(e, NULL, kp__s(e->cl, term->exprs[k].values[v]));
                kp__enc_end_arr(e);
                kp__enc_end_obj(e);
            }
            kp__enc_end_arr(e);
        }
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void volume_obj(kp__enc *e, kp_volume_kind k, uint32_t i) {
    const kp_volumes *v = &e->cl->vol;
    bool core = k == KP_VK_PV || k == KP_VK_PVC;
    kp_str ns = k == KP_VK_PVC ? v->pvcs[i].ns : k == KP_VK_CSISC ? v->capacities[i].ns : 0;
    kp_str name = k == KP_VK_PV          ? v->pvs[i].name
                  : k == KP_VK_PVC       ? v->pvcs[i].name
                  : k == KP_VK_SC        ? v->classes[i].name
                  : k == KP_VK_CSINODE   ? v->csinodes[i].name
                  : k == KP_VK_CSIDRIVER ? v->drivers[i].name
                  : k == KP_VK_CSISC     ? v->capacities[i].name
                                         : v->attachments[i].name;
    kp__enc_obj(e, NULL);
    kp__enc_head(e, core ? "v1" : "storage.k8s.io/v1", kp__volume_kind_name(k), ns, name);
    switch (k) {
    case KP_VK_PV: pv_obj(e, &v->pvs[i]); break;
    case KP_VK_PVC: pvc_obj(e, &v->pvcs[i]); break;
    case KP_VK_SC: sc_obj(e, &v->classes[i]); break;
    case KP_VK_CSINODE: {
        const kp_csinode *cn = &v->csinodes[i];
        kp__enc_end_obj(e);
        kp__enc_obj(e, "spec");
        kp__enc_arr(e, "drivers");
        for (uint16_t d = 0; d < cn->n_drivers; d++) {
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "name", cn->drivers[d].name);
            if (cn->drivers[d].has_count) {
                kp__enc_obj(e, "allocatable");
                kp__enc_int(e, "count", cn->drivers[d].count);
                kp__enc_end_obj(e);
            }
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
        kp__enc_end_obj(e);
        break;
    }
    case KP_VK_CSIDRIVER:
        kp__enc_end_obj(e);
        kp__enc_obj(e, "spec");
        kp__enc_bool(e, "attachRequired", v->drivers[i].attach_required);
        if (v->drivers[i].storage_capacity) kp__enc_bool(e, "storageCapacity", true);
        kp__enc_end_obj(e);
        break;
    case KP_VK_CSISC: {
        const kp_csi_capacity *c = &v->capacities[i];
        kp__enc_end_obj(e);
        kp__enc_sid(e, "storageClassName", c->class_name);
        kp__enc_selector(e, "nodeTopology", &c->topology);
        if (c->has_capacity) kp__enc_quantity(e, "capacity", -1, 0, c->capacity);
        if (c->has_max) kp__enc_quantity(e, "maximumVolumeSize", -1, 0, c->max_size);
        break;
    }
    default: {
        const kp_volume_attachment *va = &v->attachments[i];
        kp__enc_end_obj(e);
        kp__enc_obj(e, "spec");
        kp__enc_sid(e, "attacher", va->attacher);
        if (va->pv_name) {
            kp__enc_obj(e, "source");
            kp__enc_sid(e, "persistentVolumeName", va->pv_name);
            kp__enc_end_obj(e);
        }
        kp__enc_sid(e, "nodeName", va->node_name);
        kp__enc_end_obj(e);
        break;
    }
    }
    kp__enc_end_obj(e);
}

/* spec.minAvailable / maxUnavailable as written: a number, or a percentage string */
static void int_or_string(kp__enc *e, const char *key, kp_str text) {
    const char *t = kp__s(e->cl, text);
    size_t n = strlen(t);
    if (n && t[n - 1] == '%') {
        kp__enc_str(e, key, t);
        return;
    }
    long long v = 0; /* the decoder took it as strtoll does: [+]digits, 0 <= v <= INT32_MAX */
    for (size_t i = t[0] == '+'; i < n && t[i] >= '0' && t[i] <= '9'; i++)
        v = v * 10 + (t[i] - '0');
    kp__enc_int(e, key, v);
}

/* status.disruptedPods: the model keeps the names, not the times; each is written with the time
 * 0 (1970-01-01T00:00:00Z). */
static void pdb_obj(kp__enc *e, const kp_pdb *b) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "policy/v1", "PodDisruptionBudget", b->ns, b->name);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    if (b->has_min_available) int_or_string(e, "minAvailable", b->min_available);
    kp__enc_selector(e, "selector", &b->selector);
    if (b->has_max_unavailable) int_or_string(e, "maxUnavailable", b->max_unavailable);
    if (b->always_allow) kp__enc_str(e, "unhealthyPodEvictionPolicy", "AlwaysAllow");
    kp__enc_end_obj(e);
    if (b->has_status || b->n_disrupted || b->current_healthy || b->desired_healthy ||
        b->expected_pods) {
        kp__enc_obj(e, "status");
        if (b->n_disrupted) {
            kp__enc_obj(e, "disruptedPods");
            for (uint32_t i = 0; i < b->n_disrupted; i++)
                kp__enc_time(e, kp__s(e->cl, b->disrupted[i]), 0);
            kp__enc_end_obj(e);
        }
        if (b->has_status) kp__enc_int(e, "disruptionsAllowed", b->disruptions_allowed);
        if (b->has_status || b->current_healthy)
            kp__enc_int(e, "currentHealthy", b->current_healthy);
        if (b->has_status || b->desired_healthy)
            kp__enc_int(e, "desiredHealthy", b->desired_healthy);
        if (b->has_status || b->expected_pods) kp__enc_int(e, "expectedPods", b->expected_pods);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

kp_status kp_cluster_encode_json(const kp_cluster *cl, const kp_encode_options *o, kp_write_fn w,
                                 void *ctx, kp_error *err) {
    if (!cl || !w) return kp_error_set(err, KP_EINVAL, "no cluster or no writer");
    kp_encode_options def;
    if (!o) {
        kp_encode_options_init(&def);
        o = &def;
    }
    kp__enc e;
    if (kp__enc_init(&e, cl, o->pretty, w, ctx, err) != KP_OK) return kp__enc_finish(&e);
    e.j.line_depth = o->pretty ? 0 : 2; /* compact: the List's items one per line */
    kp__enc_obj(&e, NULL);
    kp__enc_str(&e, "apiVersion", "v1");
    kp__enc_str(&e, "kind", "List");
    kp__enc_arr(&e, "items");
    for (uint32_t i = 0; i < cl->n_namespaces && e.j.st == KP_OK; i++)
        namespace_obj(&e, &cl->namespaces[i]);
    for (uint32_t i = 0; i < cl->n_classes && e.j.st == KP_OK; i++)
        if (!cl->classes[i].builtin && !cl->classes[i].deleted) priority_class(&e, &cl->classes[i]);
    for (uint32_t i = 0; i < cl->n_nodes && e.j.st == KP_OK; i++)
        if (!node_is_deleted(&cl->nodes[i])) node_obj(&e, &cl->nodes[i]);
    for (int k = 0; k < KP_VK_KINDS; k++)
        for (uint32_t i = 0; i < cl->vol.n[k] && e.j.st == KP_OK; i++)
            volume_obj(&e, (kp_volume_kind)k, i);
    kp__enc_dra(&e); /* encode_dra.c */
    for (uint32_t i = 0; i < cl->n_workloads && e.j.st == KP_OK; i++)
        if (!cl->workloads[i].deleted) kp__enc_workload(&e, &cl->workloads[i]);
    for (uint32_t i = 0; i < cl->n_pdbs && e.j.st == KP_OK; i++)
        if (!cl->pdbs[i].deleted) pdb_obj(&e, &cl->pdbs[i]);
    for (uint32_t i = 0; i < cl->n_pods && e.j.st == KP_OK; i++)
        if (!pod_is_deleted(cl, &cl->pods[i])) kp__enc_pod(&e, &cl->pods[i]);
    kp__enc_end_arr(&e);
    kp__enc_end_obj(&e);
    kp__enc_newline(&e);
    return kp__enc_finish(&e);
}

kp_status kp__encode_object(const kp_cluster *cl, const char *kind, uint32_t i, kp_write_fn w,
                            void *ctx, kp_error *err) {
    kp__enc e;
    if (kp__enc_init(&e, cl, false, w, ctx, err) != KP_OK) return kp__enc_finish(&e);
    if (strcmp(kind, "Pod") == 0) kp__enc_pod(&e, &cl->pods[i]);
    else if (strcmp(kind, "Node") == 0) node_obj(&e, &cl->nodes[i]);
    else if (strcmp(kind, "PriorityClass") == 0) priority_class(&e, &cl->classes[i]);
    else if (strcmp(kind, "PodDisruptionBudget") == 0) pdb_obj(&e, &cl->pdbs[i]);
    else if (strcmp(kind, "Namespace") == 0) namespace_obj(&e, &cl->namespaces[i]);
    else kp__enc_workload(&e, &cl->workloads[i]);
    kp__enc_newline(&e);
    return kp__enc_finish(&e);
}
