/* NodeVolumeLimits (CSILimits.Filter), with the cases of upstream's csi_test.go TestCSILimits:
 * CSI volumes per driver against CSINode allocatable.count, VolumeAttachments, claims not bound
 * yet counted through their StorageClass, in-tree PVs and inline volumes migrated to CSI, the
 * VolumeLimitScaling driver check. */
#include <stdio.h>

#include "core/cluster.h"
#include "sched/preempt/preempt.h"
#include "test_sched_util.h"

#define OBJ(s) "---\n" s "\n"
/* a claim bound (bind-completed) to PV NAME whose spec.csi is (DRIVER, NAME) */
#define CSI_PV(name, driver)                                                                     \
    OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-" name "}, spec: {csi: "   \
        "{driver: " driver ", volumeHandle: " name "}}}")                                        \
    OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: " name ", namespace: "   \
        "default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}, spec: {volumeName: " \
        "pv-" name "}}")
/* ... bound to an in-tree AWS EBS PV */
#define EBS_PV(name, id)                                                                         \
    OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-" name "}, spec: "         \
        "{awsElasticBlockStore: {volumeID: \"" id "\"}}}")                                       \
    OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: " name ", namespace: "   \
        "default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}, spec: {volumeName: " \
        "pv-" name "}}")

static const char BASE[] =
    OBJ("{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: 8, "
        "memory: 8Gi, pods: \"32\"}}}")
    /* WaitForFirstConsumer: VolumeBinding lets a new pod with such a claim reach the Filter */
    OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: csi-sc}, "
        "provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}")
        OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: intree-sc}, "
            "provisioner: kubernetes.io/aws-ebs, volumeBindingMode: WaitForFirstConsumer}")
            CSI_PV("ebs-0", "ebs.csi.aws.com") CSI_PV("ebs-1", "ebs.csi.aws.com")
                CSI_PV("ebs-2", "ebs.csi.aws.com") CSI_PV("ebs-3", "ebs.csi.aws.com")
                    CSI_PV("gce-1", "pd.csi.storage.gke.io")
                        CSI_PV("gce-2", "pd.csi.storage.gke.io")
                            EBS_PV("intree-0", "aws://us-east-1a/vol-0") EBS_PV("intree-1", "vol-1")
                                EBS_PV("intree-2", "aws:///vol-2")
    /* pending: not bound, its class's provisioner is the driver */
    OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pending, namespace: "
        "default}, spec: {storageClassName: csi-sc}}")
        OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: pending-intree, "
            "namespace: default}, spec: {storageClassName: intree-sc}}")
    /* no class: not counted; a PV that does not exist: counted through the class */
    OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: no-sc, namespace: "
        "default}, spec: {}}")
        OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: missing-pv, namespace: "
            "default}, spec: {storageClassName: csi-sc, volumeName: nope}}");

#define CLAIM(c) "{name: v" c ", persistentVolumeClaim: {claimName: " c "}}"
#define EBS_INLINE(id) "{name: inline, awsElasticBlockStore: {volumeID: \"" id "\"}}"

/* The Filter verdict of pod `new` (volumes new_vols) on n1, where pods with the volumes of
 * existing[] run, the CSINode (if csinode) gives driver ebs.csi.aws.com / pd.csi.storage.gke.io
 * count max (max < 0: no count) and n_va VolumeAttachments hold CSI volumes ebs-0.. on n1. */
static kp_node_status verdict(const char *new_vols, const char *const *existing, bool csinode,
                              int max, int n_va, const char *extra, const char *compat) {
    static char y[16384];
    int w = snprintf(y, sizeof y, "%s%s", BASE, extra ? extra : "");
    for (int i = 0; existing && existing[i]; i++)
        w += snprintf(y + w, sizeof y - (size_t)w,
                      OBJ("{apiVersion: v1, kind: Pod, metadata: {name: e%d, namespace: "
                          "default}, spec: {nodeName: n1, containers: [{name: c}], volumes: "
                          "[%s]}}"),
                      i, existing[i]);
    if (csinode) {
        char cnt[64] = "";
        if (max >= 0) snprintf(cnt, sizeof cnt, ", allocatable: {count: %d}", max);
        w += snprintf(y + w, sizeof y - (size_t)w,
                      OBJ("{apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: n1}, "
                          "spec: {drivers: [{name: ebs.csi.aws.com, nodeID: n1%s}, {name: "
                          "pd.csi.storage.gke.io, nodeID: n1%s}]}}"),
                      cnt, cnt);
    }
    for (int i = 0; i < n_va; i++)
        w += snprintf(y + w, sizeof y - (size_t)w,
                      OBJ("{apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, metadata: "
                          "{name: va-%d}, spec: {attacher: ebs.csi.aws.com, nodeName: n1, "
                          "source: {persistentVolumeName: pv-ebs-%d}}}"),
                      i, i);
    snprintf(y + w, sizeof y - (size_t)w,
             OBJ("{apiVersion: v1, kind: Pod, metadata: {name: new, namespace: default}, spec: "
                 "{containers: [{name: c}], volumes: [%s]}}"),
             new_vols);
    kp_node_status st;
    kp__status_reset(&st);
    st.code = KP_CODE_ERROR;
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return st;
    kp_sched *s = compat ? ts_sched_compat(cl, compat) : ts_sched(cl, NULL, 1);
    KT_CHECK(s != NULL);
    if (s) st = ts_filter(s, "default/new", "n1");
    static char reason[256];
    snprintf(reason, sizeof reason, "%s", st.n_reasons ? st.reasons[0] : "");
    if (st.n_reasons) st.reasons[0] = reason; /* the cluster's strings go with it */
    kp_sched_free(s);
    kp_cluster_free(cl);
    return st;
}

static void fits(kp_node_status st) { KT_CHECK_INT(st.code, KP_CODE_SUCCESS); }
static void exceeds(kp_node_status st) {
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.plugin ? st.plugin : "", "NodeVolumeLimits");
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", "node(s) exceed max volume count");
}

static const char *const RUNNING_AND_TWO[] = {CLAIM("ebs-3"), CLAIM("ebs-1") ", " CLAIM("ebs-2"),
                                              NULL};

KT_TEST(csi_volumes_against_csinode_count) {
    /* should count VolumeAttachments towards volume limit when no pods exist */
    exceeds(verdict(CLAIM("ebs-0"), NULL, true, 2, 2, NULL, NULL));
    /* should schedule pod when VolumeAttachments count does not exceed limit */
    fits(verdict(CLAIM("ebs-0"), NULL, true, 2, 1, NULL, NULL));
    /* fits when node volume limit >= new pods CSI volume */
    fits(verdict(CLAIM("ebs-0"), RUNNING_AND_TWO, true, 4, 0, NULL, NULL));
    /* doesn't when node volume limit <= pods CSI volume */
    exceeds(verdict(CLAIM("ebs-0"), RUNNING_AND_TWO, true, 2, 0, NULL, NULL));
    /* the driver reports no limit; no CSINode at all */
    fits(verdict(CLAIM("ebs-0"), RUNNING_AND_TWO, true, -1, 0, NULL, NULL));
    fits(verdict(CLAIM("ebs-0"), RUNNING_AND_TWO, false, 0, 0, NULL, NULL));
    /* a volume already used on the node is not new: 3 in use, limit 3 */
    fits(verdict(CLAIM("ebs-1"), RUNNING_AND_TWO, true, 3, 0, NULL, NULL));
    /* an attachment of a volume a pod uses counts once: pods use ebs-0, ebs-1; VAs hold the same */
    static const char *const two[] = {CLAIM("ebs-0"), CLAIM("ebs-1"), NULL};
    fits(verdict(CLAIM("ebs-2"), two, true, 3, 2, NULL, NULL));
    /* an attachment of the new pod's own volume still counts (upstream does not compare them) */
    exceeds(verdict(CLAIM("ebs-0"), NULL, true, 1, 1, NULL, NULL));
}

KT_TEST(claims_not_bound_count_through_their_class) {
    /* count pending PVCs towards volume limit <= pods CSI volume */
    static const char *const pend[] = {CLAIM("pending"), CLAIM("ebs-1") ", " CLAIM("ebs-2"), NULL};
    exceeds(verdict(CLAIM("ebs-0"), pend, true, 2, 0, NULL, NULL));
    /* count multiple pending pvcs towards volume limit >= pods CSI volume (one claim, two pods) */
    static const char *const pend2[] = {CLAIM("pending"), CLAIM("pending"),
                                        CLAIM("ebs-1") ", " CLAIM("ebs-2"), NULL};
    fits(verdict(CLAIM("ebs-0"), pend2, true, 4, 0, NULL, NULL));
    /* should count PVCs with invalid PV name but valid SC */
    static const char *const miss[] = {CLAIM("missing-pv"), CLAIM("ebs-1") ", " CLAIM("ebs-2"),
                                       NULL};
    exceeds(verdict(CLAIM("ebs-0"), miss, true, 2, 0, NULL, NULL));
    /* don't count pvcs with missing SC towards volume limit */
    static const char *const nosc[] = {CLAIM("ebs-3"), CLAIM("no-sc"), NULL};
    fits(verdict(CLAIM("ebs-0"), nosc, true, 2, 0, NULL, NULL));
    /* count pvcs with the same type towards volume limit */
    static const char *const mixed[] = {CLAIM("gce-1") ", " CLAIM("gce-2"),
                                        CLAIM("ebs-1") ", " CLAIM("ebs-2"), NULL};
    exceeds(verdict(CLAIM("ebs-0"), mixed, true, 2, 0, NULL, NULL));
    /* don't count pvcs with different type towards volume limit */
    static const char *const ebs[] = {CLAIM("ebs-1") ", " CLAIM("ebs-2"), CLAIM("ebs-3"), NULL};
    fits(verdict(CLAIM("gce-1") ", " CLAIM("gce-2"), ebs, true, 2, 0, NULL, NULL));
}

KT_TEST(in_tree_volumes_migrated_to_csi) {
    static const char *const intree2[] = {CLAIM("intree-1") ", " CLAIM("intree-2"), NULL};
    /* should count in-tree volumes if migration is enabled */
    exceeds(verdict(CLAIM("intree-0"), intree2, true, 2, 0, NULL, NULL));
    /* nil csi node */
    fits(verdict(EBS_INLINE("aws-inline1"), intree2, false, 2, 0, NULL, NULL));
    /* should count unbound in-tree volumes (class kubernetes.io/aws-ebs) */
    exceeds(verdict(CLAIM("pending-intree"), intree2, true, 2, 0, NULL, NULL));
    /* should not limit pod if volume used does not report limits */
    fits(verdict(CLAIM("intree-0"), intree2, true, -1, 0, NULL, NULL));
    /* should count in-tree inline volumes if migration is enabled */
    exceeds(verdict(EBS_INLINE("aws-inline1"), intree2, true, 2, 0, NULL, NULL));
    /* should count in-tree and csi volumes (when scheduling in-tree volumes) */
    static const char *const csi2[] = {CLAIM("ebs-1") ", " CLAIM("ebs-2"), NULL};
    exceeds(verdict(CLAIM("intree-0"), csi2, true, 2, 0, NULL, NULL));
    /* should count in-tree, inline and csi volumes */
    static const char *const csi2_intree[] = {CLAIM("ebs-1") ", " CLAIM("ebs-2"), CLAIM("intree-0"),
                                              NULL};
    exceeds(verdict(EBS_INLINE("aws-inline1"), csi2_intree, true, 3, 0, NULL, NULL));
    /* should not count in-tree, inline and csi volumes ... with the same CSI volume ID */
    fits(verdict(EBS_INLINE("ebs-1"), csi2_intree, true, 3, 0, NULL, NULL));
    /* the translated handles: aws://zone/vol-0 and vol-0 are one volume */
    static const char *const intree0[] = {CLAIM("intree-0"), NULL};
    fits(verdict(EBS_INLINE("vol-0"), intree0, true, 1, 0, NULL, NULL));
    exceeds(verdict(EBS_INLINE("vol-9"), intree0, true, 1, 0, NULL, NULL));
    /* an in-tree class whose migration is not counted (vSphere): nothing to count */
    fits(verdict(CLAIM("vs"), intree2, true, 2, 0,
                 OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: vs}, "
                     "provisioner: kubernetes.io/vsphere-volume, volumeBindingMode: "
                     "WaitForFirstConsumer}")
                     OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: vs, "
                         "namespace: default}, spec: {storageClassName: vs}}"),
                 NULL));
}

KT_TEST(driver_not_installed_on_node) {
    static const char drv[] = OBJ("{apiVersion: storage.k8s.io/v1, kind: CSIDriver, metadata: "
                                  "{name: pd.csi.storage.gke.io}}");
    /* a CSIDriver object names the driver and the node has no CSINode */
    kp_node_status st = verdict(CLAIM("gce-1"), NULL, false, 0, 0, drv, NULL);
    KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "",
                 "pd.csi.storage.gke.io CSI driver is not installed on the node");
    fits(verdict(CLAIM("gce-1"), NULL, true, 5, 0, drv, NULL)); /* listed in the CSINode */
    fits(verdict(CLAIM("gce-1"), NULL, false, 0, 0, NULL, NULL)); /* no CSIDriver object */
    fits(verdict(CLAIM("gce-1"), NULL, false, 0, 0, drv, "1.36")); /* VolumeLimitScaling off */
}

KT_TEST(missing_claim_of_the_new_pod) {
    /* with the plugins that reject a missing claim first disabled */
    static const char y[] =
        OBJ("{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: 8, "
            "memory: 8Gi, pods: \"32\"}}}")
            OBJ("{apiVersion: v1, kind: Pod, metadata: {name: new, namespace: default}, spec: "
                "{containers: [{name: c}], volumes: [" CLAIM("gone") "]}}");
    kp_cluster *cl = ts_load(y);
    kp_sched *s = ts_sched(cl,
                           "apiVersion: kubescheduler.config.k8s.io/v1\nkind: "
                           "KubeSchedulerConfiguration\nprofiles:\n- schedulerName: "
                           "default-scheduler\n  plugins:\n    multiPoint:\n      disabled: "
                           "[{name: VolumeRestrictions}, {name: VolumeBinding}, {name: "
                           "VolumeZone}]\n",
                           1);
    KT_CHECK(s != NULL);
    if (!s) return;
    kp_node_status st = ts_filter(s, "default/new", "n1");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "",
                 "looking up PVC default/gone: persistentvolumeclaim \"gone\" not found");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* One PostFilter for pod on the cluster: "node|victims" and the Filter calls it made. */
static void postfilter(kp_cluster *cl, const char *pod, bool reference, long offset, char *out,
                       size_t cap, uint64_t *calls) {
    kp_sched *s = ts_sched(cl, NULL, 1);
    uint32_t p = (uint32_t)kp_cluster_find_pod(cl, pod), nn = cl->n_nodes;
    kp_node_status *st = calloc(nn + 1, sizeof *st), pre;
    uint8_t *codes = calloc(nn + 1, 1);
    kp__status_reset(&pre);
    kp_cycle *c = kp__cycle_new(s, p, &pre);
    for (uint32_t i = 0; i < nn; i++) {
        kp__cycle_filter(c, i, &st[i]);
        codes[i] = kp__preempt_status_code(&st[i]);
    }
    kp_preempt_opts o;
    kp__preempt_opts_default(&o);
    o.offset = offset;
    o.tie = 0;
    o.reference = reference;
    if (!reference) o.codes = codes;
    kp_preempt_result r;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp__preempt_postfilter_ex(s, c, p, st, false, &o, &r, &err), KP_OK);
    int w = snprintf(out, cap, "%d|", r.node);
    for (uint32_t i = 0; i < r.n_victims && w > 0 && (size_t)w < cap; i++)
        w += snprintf(out + w, cap - (size_t)w, "%u,", r.victims[i]);
    *calls = o.filter_calls;
    kp__preempt_result_fini(&r);
    kp__cycle_free(c);
    free(codes);
    free(st);
    kp_sched_free(s);
}

/* Preemption for a pod with a claim: the resource arithmetic decides on nodes where no volume
 * filter can change its verdict (limits loose: no Filter call), and the step-by-step Filter calls
 * where NodeVolumeLimits could (tight limits, attachments); both agree with the reference path. */
KT_TEST(preemption_with_claims_matches_reference) {
    for (int tight = 0; tight < 2; tight++) {
        static char y[32768];
        int w = snprintf(y, sizeof y, "%s", "");
        for (int i = 0; i < 6; i++) {
            w += snprintf(y + w, sizeof y - (size_t)w,
                          OBJ("{apiVersion: v1, kind: Node, metadata: {name: n%d}, status: "
                              "{allocatable: {cpu: 2, memory: 8Gi, pods: \"32\"}}}")
                              OBJ("{apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: "
                                  "{name: n%d}, spec: {drivers: [{name: ebs.csi.aws.com, "
                                  "allocatable: {count: %d}}]}}"),
                          i, i, tight ? 2 + i % 2 : 39);
            for (int k = 0; k < 4; k++) {
                char vol[96] = "";
                if (k % 2 == 0)
                    snprintf(vol, sizeof vol,
                             "{name: d, persistentVolumeClaim: {claimName: c-%d-%d}}", i, k);
                w += snprintf(
                    y + w, sizeof y - (size_t)w,
                    OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-%d-%d}, "
                        "spec: {csi: {driver: ebs.csi.aws.com, volumeHandle: h-%d-%d}}}")
                        OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: "
                            "c-%d-%d, namespace: default, annotations: "
                            "{pv.kubernetes.io/bind-completed: \"y\"}}, spec: {volumeName: "
                            "pv-%d-%d}}")
                            OBJ("{apiVersion: v1, kind: Pod, metadata: {name: p-%d-%d, "
                                "namespace: default}, spec: {nodeName: n%d, priority: %d, "
                                "containers: [{name: c, resources: {requests: {cpu: %dm}}}], "
                                "volumes: [%s]}}"),
                    i, k, i, k, i, k, i, k, i, k, i, (k * 7 + i) % 3 * 10,
                    300 + 100 * ((i + k) % 3), vol);
            }
            if (i % 3 == 0)
                w += snprintf(y + w, sizeof y - (size_t)w,
                              OBJ("{apiVersion: storage.k8s.io/v1, kind: VolumeAttachment, "
                                  "metadata: {name: va-%d}, spec: {attacher: ebs.csi.aws.com, "
                                  "nodeName: n%d, source: {persistentVolumeName: pv-%d-3}}}"),
                              i, i, i);
        }
        snprintf(y + w, sizeof y - (size_t)w,
                 OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv-new}, spec: "
                     "{csi: {driver: ebs.csi.aws.com, volumeHandle: h-new}}}")
                     OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c-new, "
                         "namespace: default, annotations: {pv.kubernetes.io/bind-completed: "
                         "\"y\"}}, spec: {volumeName: pv-new}}")
                         OBJ("{apiVersion: v1, kind: Pod, metadata: {name: new, namespace: "
                             "default}, spec: {priority: 100, containers: [{name: c, resources: "
                             "{requests: {cpu: 1500m}}}], volumes: [{name: d, "
                             "persistentVolumeClaim: {claimName: c-new}}]}}"));
        kp_cluster *cl = ts_load(y);
        KT_CHECK(cl != NULL);
        if (!cl) return;
        for (long off = 0; off < 6; off++) {
            char a[256], b[256];
            uint64_t ca = 0, cb = 0;
            postfilter(cl, "default/new", false, off, a, sizeof a, &ca);
            postfilter(cl, "default/new", true, off, b, sizeof b, &cb);
            KT_CHECK_STR(a, b);
            KT_CHECK(a[0] != '-'); /* a node is nominated */
            if (!tight) KT_CHECK_INT(ca, 0); /* the arithmetic path alone */
            else KT_CHECK(ca > 0);
        }
        kp_cluster_free(cl);
    }
}

KT_MAIN(KT_CASE(csi_volumes_against_csinode_count),
        KT_CASE(claims_not_bound_count_through_their_class),
        KT_CASE(in_tree_volumes_migrated_to_csi), KT_CASE(driver_not_installed_on_node),
        KT_CASE(missing_claim_of_the_new_pod), KT_CASE(preemption_with_claims_matches_reference))
