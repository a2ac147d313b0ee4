/* Storage objects (internal): PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
 * CSIDriver, VolumeAttachment and CSIStorageCapacity, decoded into plain values
 * (src/io/decode_volume.c) for the volume plugins of the scheduler (VolumeZone, VolumeRestrictions,
 * NodeVolumeLimits, VolumeBinding). Only the fields those plugins read are kept; defaults are the
 * API server's (SetDefaults_PersistentVolume*, SetDefaults_StorageClass, SetDefaults_CSIDriver). */
#ifndef KP_CORE_VOLUME_H
#define KP_CORE_VOLUME_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/labels.h"
#include "core/selector.h"

typedef enum {
    KP_VK_PV = 0, /* v1 PersistentVolume (cluster-scoped) */
    KP_VK_PVC, /* v1 PersistentVolumeClaim (namespaced) */
    KP_VK_SC, /* storage.k8s.io/v1 StorageClass */
    KP_VK_CSINODE, /* storage.k8s.io/v1 CSINode */
    KP_VK_CSIDRIVER, /* storage.k8s.io/v1 CSIDriver */
    KP_VK_VA, /* storage.k8s.io/v1 VolumeAttachment */
    KP_VK_CSISC, /* storage.k8s.io/v1 CSIStorageCapacity (namespaced) */
    KP_VK_KINDS
} kp_volume_kind;

static inline const char *kp__volume_kind_name(kp_volume_kind k) {
    static const char *const names[KP_VK_KINDS] = {
        "PersistentVolume", "PersistentVolumeClaim", "StorageClass",      "CSINode",
        "CSIDriver",        "VolumeAttachment",      "CSIStorageCapacity"};
    return (unsigned)k < KP_VK_KINDS ? names[k] : "?";
}

/* The namespaced kinds: their objects start with (namespace, name), the others' with name. */
static inline bool kp__volume_kind_namespaced(kp_volume_kind k) {
    return k == KP_VK_PVC || k == KP_VK_CSISC;
}

/* access modes (v1.PersistentVolumeAccessMode), as bits */
enum { KP_AM_RWO = 1, KP_AM_ROX = 2, KP_AM_RWX = 4, KP_AM_RWOP = 8 };

/* StorageClass.volumeBindingMode (SetDefaults_StorageClass: Immediate when unset) */
typedef enum { KP_BIND_IMMEDIATE = 0, KP_BIND_WAIT } kp_binding_mode;

typedef enum {
    KP_PV_PENDING = 0, /* also: no status */
    KP_PV_AVAILABLE,
    KP_PV_BOUND,
    KP_PV_RELEASED,
    KP_PV_FAILED
} kp_pv_phase;

typedef enum {
    KP_PVC_PENDING = 0, /* also: no status */
    KP_PVC_BOUND,
    KP_PVC_LOST
} kp_pvc_phase;

typedef struct {
    kp_str name;
    kp_labels labels; /* zone / region labels (VolumeZone) */
    kp_str class_name; /* spec.storageClassName (or the beta annotation) */
    kp_str claim_ns, claim_name; /* spec.claimRef */
    kp_str csi_driver, csi_handle; /* spec.csi.driver / volumeHandle ("" if not CSI) */
    /* an in-tree source whose CSI migration NodeVolumeLimits counts (kp__csi_translate_pv): the
     * CSI driver and translated volume handle; 0 when there is none or it does not translate */
    kp_str mig_driver, mig_handle;
    bool has_csi; /* spec.csi present (VolumeAttachments count only CSI PVs) */
    /* what FindMatchingVolume compares (VolumeBinding of claims not bound yet) */
    int64_t capacity; /* spec.capacity.storage in bytes (0 when absent) */
    kp_str claim_uid; /* spec.claimRef.uid */
    kp_str vac; /* spec.volumeAttributesClassName */
    uint8_t phase; /* kp_pv_phase (status.phase; Pending when absent) */
    bool block; /* spec.volumeMode Block (default Filesystem) */
    bool deleting; /* metadata.deletionTimestamp set */
    bool has_claim_ref; /* spec.claimRef present */
    bool has_affinity; /* spec.nodeAffinity.required present */
    uint16_t n_terms;
    kp_nsterm *terms; /* its nodeSelectorTerms (ORed) */
    uint8_t access_modes; /* KP_AM_* */
} kp_pv;

typedef struct {
    kp_str ns, name;
    kp_str volume_name; /* spec.volumeName */
    kp_str class_name; /* GetPersistentVolumeClaimClass: beta annotation, else spec */
    kp_str selected_node; /* annotation volume.kubernetes.io/selected-node */
    bool bind_completed; /* annotation pv.kubernetes.io/bind-completed present */
    uint8_t access_modes; /* KP_AM_* */
    uint8_t phase; /* kp_pvc_phase */
    bool block; /* spec.volumeMode Block (default Filesystem) */
    kp_str uid; /* metadata.uid */
    kp_str vac; /* spec.volumeAttributesClassName */
    int64_t request; /* spec.resources.requests.storage in bytes (0 when absent) */
    bool has_request; /* ... present (hasEnoughCapacity checks nothing without it) */
    kp_label_selector selector; /* spec.selector (is_set false: none) */
} kp_pvc;

typedef struct {
    kp_str name;
    kp_str provisioner;
    uint8_t binding_mode; /* kp_binding_mode */
    /* allowedTopologies (ORed terms; each term's matchLabelExpressions as `key In values`) */
    uint16_t n_topo;
    kp_nsterm *topo;
} kp_storage_class;

typedef struct {
    kp_str name; /* spec.drivers[].name */
    bool has_count; /* allocatable.count present */
    int32_t count;
} kp_csinode_driver;

typedef struct {
    kp_str name; /* the node's name */
    uint16_t n_drivers;
    kp_csinode_driver *drivers;
} kp_csinode;

typedef struct {
    kp_str name;
    bool attach_required; /* spec.attachRequired, default true */
    bool
        storage_capacity; /* spec.storageCapacity, default false (VolumeBinding's capacity check) */
} kp_csidriver;

typedef struct {
    kp_str name;
    kp_str attacher; /* spec.attacher (the CSI driver) */
    kp_str node_name; /* spec.nodeName */
    kp_str pv_name; /* spec.source.persistentVolumeName ("" for inline sources) */
} kp_volume_attachment;

/* storage.k8s.io/v1 CSIStorageCapacity: what a CSI driver can still provision for a class in a
 * topology segment (hasEnoughCapacity). */
typedef struct {
    kp_str ns, name;
    kp_str class_name; /* storageClassName */
    kp_label_selector topology; /* nodeTopology (is_set false: nil, no node has access) */
    bool has_capacity, has_max;
    int64_t capacity; /* capacity in bytes */
    int64_t max_size; /* maximumVolumeSize in bytes */
} kp_csi_capacity;

/* Every storage object of a snapshot, by kind (arrays grow; the cluster's identity maps find an
 * object by (namespace, name): kp__cluster_find_volume). */
typedef struct {
    kp_pv *pvs;
    kp_pvc *pvcs;
    kp_storage_class *classes;
    kp_csinode *csinodes;
    kp_csidriver *drivers;
    kp_volume_attachment *attachments;
    kp_csi_capacity *capacities; /* load order (upstream: the lister's, unordered) */
    uint32_t n[KP_VK_KINDS], cap[KP_VK_KINDS];
    /* NodeVolumeLimits' index (sched/plugins/node_volume_limits.c, in the cluster arena): the
     * CSI volumes the VolumeAttachments hold, grouped by node (those of nodes not in the input
     * are left out), and each claim's CSI volume. Built for the object counts in n_indexed;
     * rebuilt when a count changed or after kp__volume_index_invalidate (call it after changing
     * a claim, PV, class or attachment in place). */
    uint32_t *va_first; /* per node index (n_nodes_indexed + 1): its attachments' first slot */
    struct kp_csi_vol *va_csi, *pvc_csi; /* by node; per claim */
    const kp_csinode **csinode_of; /* per node index: its CSINode or NULL */
    uint32_t n_indexed[KP_VK_KINDS], n_nodes_indexed;
    bool indexed;
    /* VolumeBinding's index (sched/plugins/volume_binding_match.c, in the cluster arena), built for
     * the counts in n_vb_indexed: the PVs without claimRef (load order), and per claim whether a
     * PV's claimRef names it */
    uint32_t *pv_free, n_pv_free;
    bool *pvc_prebound;
    uint32_t n_vb_indexed[KP_VK_KINDS];
    bool vb_indexed;
} kp_volumes;

/* A CSI volume as NodeVolumeLimits counts it: (driver, volume handle id) or, for a claim not bound
 * yet, (its class's driver, KP_CSI_CLAIM_KEY | claim index); drv 0: not counted. */
typedef struct kp_csi_vol {
    kp_str drv;
    uint64_t key;
} kp_csi_vol;
#define KP_CSI_CLAIM_KEY (UINT64_C(1) << 32)

struct kp_cluster;
struct kp_node;
/* The CSI volume NodeVolumeLimits counts for a claim (getCSIDriverInfo): its PV's spec.csi or
 * migrated in-tree source, or, not bound (or bound to a PV that does not exist), its class's
 * provisioner with a key of the claim's own; drv_ids[m]: the interned CSI driver name of migrated
 * plugin m (0: none). o->drv 0: not counted. */
void kp__claim_csi_volume(const struct kp_cluster *cl, const kp_str *drv_ids, const kp_pvc *pvc,
                          kp_csi_vol *o);
/* drv_ids[KP_MIG_KINDS] for kp__claim_csi_volume from names already interned (0 otherwise). */
void kp__mig_driver_ids(const struct kp_cluster *cl, kp_str *drv_ids);
/* volume.CheckNodeAffinity: the PV's spec.nodeAffinity.required against node n's labels. */
bool kp__pv_node_affinity_ok(const struct kp_cluster *cl, const kp_pv *pv, const struct kp_node *n);

/* IsVolumeBoundToClaim: the PV's claimRef names the claim (its uid too when set). */
bool kp__pv_bound_to_claim(const kp_pv *pv, const kp_pvc *claim);
/* FindMatchingVolume's checks that do not depend on the node (class, claimRef, size, volume mode,
 * attributes class, deletion). */
bool kp__pv_claim_candidate(const kp_pv *pv, const kp_pvc *claim);
/* The claim's class when it can provision dynamically (a provisioner other than
 * kubernetes.io/no-provisioner), else NULL. */
const kp_storage_class *kp__provisioning_class(const struct kp_cluster *cl, const kp_pvc *claim);
/* v1helper.MatchTopologySelectorTerms of the class's allowedTopologies against node n. */
bool kp__class_topology_ok(const struct kp_cluster *cl, const kp_storage_class *sc,
                           const struct kp_node *n);

/* hasEnoughCapacity's opt-in: the claim has a storage request and sc's provisioner names a
 * CSIDriver with storageCapacity true (else no capacity is checked). */
bool kp__capacity_checked(const struct kp_cluster *cl, const kp_pvc *claim,
                          const kp_storage_class *sc);
/* capacitySufficient (volumeLimit: maximumVolumeSize when set, else capacity; neither: false). */
static inline bool kp__capacity_sufficient(const kp_csi_capacity *cap, int64_t size) {
    if (cap->has_max) return cap->max_size >= size;
    return cap->has_capacity && cap->capacity >= size;
}

static inline void kp__volume_index_invalidate(kp_volumes *v) {
    v->indexed = false;
    v->vb_indexed = false;
}

/* CSI migration of in-tree volumes as NodeVolumeLimits counts it (csi-translation-lib's
 * translators; isCSIMigrationOn of nodevolumelimits: AWS EBS, GCE PD, Azure Disk, Cinder and
 * Portworx are migrated, Azure File, vSphere and RBD are not counted). */
typedef enum {
    KP_MIG_NONE = 0,
    KP_MIG_AWS_EBS, /* kubernetes.io/aws-ebs -> ebs.csi.aws.com */
    KP_MIG_GCE_PD, /* kubernetes.io/gce-pd -> pd.csi.storage.gke.io */
    KP_MIG_AZURE_DISK, /* kubernetes.io/azure-disk -> disk.csi.azure.com */
    KP_MIG_CINDER, /* kubernetes.io/cinder -> cinder.csi.openstack.org */
    KP_MIG_PORTWORX, /* kubernetes.io/portworx-volume -> pxd.portworx.com */
    KP_MIG_NOT_COUNTED, /* azure-file, vsphere-volume, rbd: translatable, migration not on */
    KP_MIG_KINDS
} kp_mig_plugin;
/* The CSI driver name of a migrated plugin (KP_MIG_AWS_EBS..KP_MIG_PORTWORX), else NULL. */
const char *kp__mig_driver_name(kp_mig_plugin m);
/* The in-tree plugin a StorageClass provisioner names (IsMigratableIntreePluginByName), or
 * KP_MIG_NONE when it is not an in-tree plugin with a CSI translation. */
kp_mig_plugin kp__mig_plugin_of_provisioner(const char *provisioner);
/* The CSI volume handle TranslateInTree{PV,InlineVolume}ToCSI gives an in-tree volume id `id`
 * of plugin m, written to buf (cap bytes, NUL-terminated); its length, or -1 when the id does
 * not translate (an EBS id "aws://..." without a vol-* path). zone_label: for a GCE PD PV, the
 * failure-domain.beta zone label, else the topology.kubernetes.io/zone one (NULL for inline
 * volumes); a value with "__" names a regional disk. When the result does not fit, the needed
 * length is returned (>= cap) and buf is not complete. */
long kp__csi_translate(kp_mig_plugin m, const char *id, const char *zone_label, char *buf,
                       size_t cap);

/* Does a zone-label value hold zone z? The value is a `__`-separated set (LabelZonesToSet: each
 * element trimmed of spaces; a value with an empty element is invalid and matches nothing). */
bool kp__zone_set_has(const char *set, const char *z);
/* The value parses as a zone set (LabelZonesToSet returns no error). */
bool kp__zone_set_valid(const char *set);

#endif
