/* Volumes (issue 19): decoding of the storage objects (core/volume.h) and of the pod volume
 * sources the scheduler reads, their errors, and the volume plugins' Filter verdicts with cases
 * from upstream's volume_zone_test.go and volume_restrictions_test.go. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/volume.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "test_sched_util.h"

static kp_cluster *load_err(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_str id(const kp_cluster *cl, const char *s) {
    for (uint32_t i = 0; i < cl->strs.n; i++)
        if (strcmp(cl->strs.ptr[i], s) == 0) return i;
    return UINT32_MAX;
}

KT_TEST(decodes_every_storage_kind) {
    kp_error err;
    kp_cluster *cl = load_err(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: PersistentVolume\n"
        "  metadata: {name: pv1, labels: {topology.kubernetes.io/zone: a__b}}\n"
        "  spec: {storageClassName: fast, accessModes: [ReadWriteOncePod], claimRef: {namespace: "
        "ns, name: c1}, csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}}\n"
        "- apiVersion: v1\n  kind: PersistentVolumeClaim\n"
        "  metadata: {name: c1, namespace: ns, annotations: {pv.kubernetes.io/bind-completed: "
        "\"yes\", volume.kubernetes.io/selected-node: n1}}\n"
        "  spec: {volumeName: pv1, storageClassName: fast, accessModes: [ReadWriteOnce, "
        "ReadWriteOncePod]}\n  status: {phase: Bound}\n"
        "- apiVersion: v1\n  kind: PersistentVolumeClaim\n"
        "  metadata: {name: c2, annotations: {volume.beta.kubernetes.io/storage-class: old}}\n"
        "  spec: {storageClassName: new}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, "
        "provisioner: p, volumeBindingMode: WaitForFirstConsumer}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: slow}}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n1}, spec: {drivers: "
        "[{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}, {name: x, nodeID: y}]}}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: d}, spec: "
        "{attachRequired: false}}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: {name: e}}\n"
        "- {apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: {name: va}, spec: "
        "{attacher: ebs.csi.aws.com, nodeName: n1, source: {persistentVolumeName: pv1}}}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: ns}\n"
        "  spec:\n    containers: [{name: c}]\n    volumes:\n"
        "    - {name: a, persistentVolumeClaim: {claimName: c1}}\n"
        "    - {name: s, secret: {secretName: x}}\n"
        "    - {name: e, ephemeral: {volumeClaimTemplate: {spec: {}}}}\n"
        "    - {name: g, gcePersistentDisk: {pdName: disk, readOnly: true}}\n"
        "    - {name: r, rbd: {monitors: [m1, m2], image: img}}\n",
        &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    KT_CHECK_INT(cl->vol.n[KP_VK_PV], 1);
    KT_CHECK_INT(cl->vol.n[KP_VK_PVC], 2);
    const kp_pv *pv = kp__cluster_find_volume(cl, KP_VK_PV, 0, id(cl, "pv1"));
    KT_CHECK(pv != NULL);
    if (pv) {
        KT_CHECK_INT(pv->access_modes, KP_AM_RWOP);
        KT_CHECK_STR(kp__s(cl, pv->class_name), "fast");
        KT_CHECK_STR(kp__s(cl, pv->claim_name), "c1");
        KT_CHECK_STR(kp__s(cl, pv->csi_handle), "vol-1");
    }
    const kp_pvc *c = kp__cluster_find_volume(cl, KP_VK_PVC, id(cl, "ns"), id(cl, "c1"));
    KT_CHECK(c != NULL);
    if (c) {
        KT_CHECK(c->bind_completed);
        KT_CHECK_INT(c->access_modes, KP_AM_RWO | KP_AM_RWOP);
        KT_CHECK_INT(c->phase, KP_PVC_BOUND);
        KT_CHECK_STR(kp__s(cl, c->selected_node), "n1");
        KT_CHECK_STR(kp__s(cl, c->volume_name), "pv1");
    }
    /* GetPersistentVolumeClaimClass: the beta annotation wins */
    c = kp__cluster_find_volume(cl, KP_VK_PVC, id(cl, "default"), id(cl, "c2"));
    KT_CHECK(c && strcmp(kp__s(cl, c->class_name), "old") == 0);
    const kp_storage_class *sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, id(cl, "fast"));
    KT_CHECK(sc && sc->binding_mode == KP_BIND_WAIT);
    sc = kp__cluster_find_volume(cl, KP_VK_SC, 0, id(cl, "slow"));
    KT_CHECK(sc && sc->binding_mode == KP_BIND_IMMEDIATE);
    const kp_csinode *cn = kp__cluster_find_volume(cl, KP_VK_CSINODE, 0, id(cl, "n1"));
    KT_CHECK(cn && cn->n_drivers == 2 && cn->drivers[0].has_count && cn->drivers[0].count == 25 &&
             !cn->drivers[1].has_count);
    const kp_csidriver *dr = kp__cluster_find_volume(cl, KP_VK_CSIDRIVER, 0, id(cl, "d"));
    KT_CHECK(dr && !dr->attach_required);
    dr = kp__cluster_find_volume(cl, KP_VK_CSIDRIVER, 0, id(cl, "e"));
    KT_CHECK(dr && dr->attach_required);
    const kp_volume_attachment *va = kp__cluster_find_volume(cl, KP_VK_VA, 0, id(cl, "va"));
    KT_CHECK(va && strcmp(kp__s(cl, va->node_name), "n1") == 0 &&
             strcmp(kp__s(cl, va->pv_name), "pv1") == 0);
    const kp_pod *p = &cl->pods[kp_cluster_find_pod(cl, "ns/p")];
    KT_CHECK_INT(p->n_volumes, 4); /* the secret is not kept */
    KT_CHECK_INT(p->volumes[0].source, KP_VS_PVC);
    KT_CHECK_STR(kp__s(cl, p->volumes[0].claim), "c1");
    KT_CHECK_INT(p->volumes[1].source, KP_VS_EPHEMERAL);
    KT_CHECK_STR(kp__s(cl, p->volumes[1].claim), "p-e");
    KT_CHECK_INT(p->volumes[2].source, KP_VS_GCE_PD);
    KT_CHECK(p->volumes[2].read_only);
    KT_CHECK_INT(p->volumes[3].source, KP_VS_RBD);
    KT_CHECK_STR(kp__s(cl, p->volumes[3].pool), "rbd");
    KT_CHECK_INT(p->volumes[3].n_monitors, 2);
    kp_cluster_free(cl);
}

KT_TEST(storage_decode_errors) {
    kp_error err;
    KT_CHECK(!load_err("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
                       "spec: {accessModes: [ReadWriteSometimes]}\n",
                       &err));
    KT_CHECK_STR(err.msg, "PersistentVolumeClaim default/c: spec.accessModes[0]: "
                          "unsupported value: supported values: \"ReadOnlyMany\", "
                          "\"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"");
    KT_CHECK(!load_err("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\n"
                       "volumeBindingMode: Later\n",
                       &err));
    KT_CHECK_CONTAINS(err.msg, "StorageClass s: volumeBindingMode: unsupported value \"Later\"");
    KT_CHECK(!load_err("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n}\n"
                       "spec: {drivers: [{name: d, allocatable: {count: -1}}]}\n",
                       &err));
    KT_CHECK_CONTAINS(err.msg, "CSINode n: spec.drivers[0].allocatable.count");
    KT_CHECK(
        !load_err("apiVersion: storage.k8s.io/v2\nkind: CSIDriver\nmetadata: {name: d}\n", &err));
    KT_CHECK_CONTAINS(err.msg, "unsupported apiVersion \"storage.k8s.io/v2\" for kind CSIDriver");
    KT_CHECK(
        !load_err("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                  "[{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: [x]}}]}\n",
                  &err));
    KT_CHECK_CONTAINS(err.msg, "spec.volumes[0].persistentVolumeClaim.claimName");
    KT_CHECK(!load_err("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\n"
                       "spec: {csi: {driver: [x]}}\n",
                       &err));
    KT_CHECK_CONTAINS(err.msg, "PersistentVolume v: spec.csi.driver");
}

/* a volume kept after one that is not (a secret) used to be overwritten by the dropped one's
 * zeroed copy: an emptyDir's sizeLimit then vanished from eviction */
KT_TEST(kept_volumes_survive_dropped_ones) {
    kp_error err;
    kp_cluster *cl = load_err("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                              "[{name: c}], volumes: [{name: ed, emptyDir: {sizeLimit: 1Gi}}, "
                              "{name: s, secret: {secretName: x}}]}\n",
                              &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    const kp_pod *p = &cl->pods[0];
    KT_CHECK_INT(p->n_volumes, 1);
    KT_CHECK(p->volumes[0].is_empty_dir && p->volumes[0].has_size_limit);
    KT_CHECK_STR(kp__s(cl, p->volumes[0].name), "ed");
    kp_cluster_free(cl);
}

KT_TEST(zone_sets) {
    KT_CHECK(kp__zone_set_has("a__b", "b"));
    KT_CHECK(kp__zone_set_has(" a __ b ", "a"));
    KT_CHECK(!kp__zone_set_has("a__b", "c"));
    KT_CHECK(!kp__zone_set_valid("a____b"));
    KT_CHECK(!kp__zone_set_valid(""));
    KT_CHECK(!kp__zone_set_has("a__", "a"));
}

KT_MAIN(KT_CASE(decodes_every_storage_kind), KT_CASE(storage_decode_errors),
        KT_CASE(kept_volumes_survive_dropped_ones), KT_CASE(zone_sets))
