/* VolumeZone, VolumeRestrictions and VolumeBinding Filter / PreFilter verdicts, with the cases of
 * upstream's volume_zone_test.go (TestSingleZone, TestMultiZone, TestWithBinding) and
 * volume_restrictions_test.go (GCE PD, AWS EBS, RBD, iSCSI conflicts; ReadWriteOncePod). */
#include "core/node.h"
#include "test_sched_util.h"

#define PV(name, labels)                                                                       \
    "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: " name ", labels: {" labels \
    "}}\n"
/* bind-completed: a claim with spec.volumeName is fully bound (VolumeBinding's isPVCFullyBound) */
#define PVC(name, spec)                                                                           \
    "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " name                    \
    ", namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\nspec: " spec \
    "\n"
/* the default profile less one plugin */
#define WITHOUT(pl)                                                                                \
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"    \
    "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled: [{name: " pl \
    "}]\n"
#define NODE(name, labels)                                                                \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {" labels "}}\n" \
    "status: {allocatable: {cpu: 4, memory: 4Gi, pods: \"32\"}}\n"
#define POD(name, extra, vols)                               \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name \
    ", namespace: default}\nspec: {" extra "containers: [{name: c}], volumes: [" vols "]}\n"
#define CLAIM(c) "{name: v, persistentVolumeClaim: {claimName: " c "}}"

#define BZ "failure-domain.beta.kubernetes.io/zone"
#define BR "failure-domain.beta.kubernetes.io/region"
#define GZ "topology.kubernetes.io/zone"

static const char *const ZONE_PARTS[] = {
    PV("vol-1", BZ ": us-west1-a") PV("vol-2", BR ": us-west1-b, uselessLabel: none")
        PV("vol-stable-1", GZ ": us-west1-a") PV("vol-multi", BZ ": us-west1-a__us-west1-b")
            PV("vol-bad", BZ ": \"us-west1-a____\"") PV("vol-none", ""),
    PVC("pvc-1", "{volumeName: vol-1}") PVC("pvc-2", "{volumeName: vol-2}")
        PVC("pvc-stable-1", "{volumeName: vol-stable-1}")
            PVC("pvc-multi", "{volumeName: vol-multi}") PVC("pvc-bad", "{volumeName: vol-bad}")
                PVC("pvc-none", "{volumeName: vol-none}"),
    PVC("pvc-wait", "{storageClassName: wait}") PVC("pvc-imm", "{storageClassName: imm}")
        PVC("pvc-noclass", "{}") PVC("pvc-badclass", "{storageClassName: nope}")
            PVC("pvc-nopv", "{volumeName: vol-x}"),
    "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: wait}, "
    "volumeBindingMode: WaitForFirstConsumer}\n"
    "---\n{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: imm}, "
    "volumeBindingMode: Immediate}\n",
    NODE("n-none", "") NODE("n-a-beta", BZ ": us-west1-a") NODE("n-b-beta", BZ ": us-west1-b")
        NODE("n-a-ga", GZ ": us-west1-a") NODE("n-region-b", BR ": us-west1-b"),
    POD("p1", "", CLAIM("pvc-1")) POD("p2", "", CLAIM("pvc-2"))
        POD("pstable", "", CLAIM("pvc-stable-1")) POD("pmulti", "", CLAIM("pvc-multi"))
            POD("pbad", "", CLAIM("pvc-bad")) POD("pnone", "", CLAIM("pvc-none")),
    POD("pwait", "", CLAIM("pvc-wait")) POD("pimm", "", CLAIM("pvc-imm"))
        POD("pnoclass", "", CLAIM("pvc-noclass")) POD("pbadclass", "", CLAIM("pvc-badclass"))
            POD("pnopv", "", CLAIM("pvc-nopv")) POD("pmissing", "", CLAIM("pvc-x")),
    POD("pnovol", "", "")};

static kp_cluster *zone_cluster(void) {
    static char buf[8192];
    buf[0] = 0;
    for (size_t i = 0; i < sizeof ZONE_PARTS / sizeof ZONE_PARTS[0]; i++)
        strncat(buf, ZONE_PARTS[i], sizeof buf - strlen(buf) - 1);
    return ts_load(buf);
}

static void zone_ok(kp_sched *s, const char *pod, const char *node) {
    kp_node_status st = ts_filter(s, pod, node);
    if (st.code != KP_CODE_SUCCESS) fprintf(stderr, "  %s on %s\n", pod, node);
    KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
}

static void zone_conflict(kp_sched *s, const char *pod, const char *node) {
    kp_node_status st = ts_filter(s, pod, node);
    if (st.code != KP_CODE_UNRESOLVABLE) fprintf(stderr, "  %s on %s\n", pod, node);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.plugin, "VolumeZone");
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", "node(s) had no available volume zone");
}

static void prefilter_rejects_on(kp_sched *s, const char *pod, const char *node, const char *msg) {
    kp_node_status st = ts_filter(s, pod, node);
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", msg);
}

static void prefilter_rejects(kp_sched *s, const char *pod, const char *msg) {
    prefilter_rejects_on(s, pod, "n-a-beta", msg);
}

KT_TEST(volume_zone_single_and_multi_zone) {
    kp_cluster *cl = zone_cluster();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    zone_ok(s, "pnovol", "n-a-beta");
    zone_ok(s, "p1", "n-none"); /* a node without topology labels takes every volume */
    zone_ok(s, "p1", "n-a-beta");
    zone_conflict(s, "p1", "n-b-beta");
    zone_ok(s, "p1", "n-a-ga"); /* the PV's beta key matches the node's GA key */
    zone_conflict(s, "pstable", "n-a-beta"); /* ... not the other way round */
    zone_ok(s, "pstable", "n-a-ga");
    zone_ok(s, "p2", "n-region-b");
    zone_conflict(s, "p2", "n-a-beta"); /* the node has a zone but not the PV's region */
    zone_ok(s, "pmulti", "n-a-beta");
    zone_ok(s, "pmulti", "n-b-beta");
    zone_ok(s, "pmulti", "n-a-ga"); /* beta zone read from the node's GA key */
    zone_conflict(s, "pmulti", "n-region-b"); /* zone key absent on a zoned node */
    zone_ok(s, "pbad", "n-b-beta"); /* a label that is no zone set is ignored */
    zone_ok(s, "pnone", "n-b-beta");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(volume_zone_unbound_and_missing_claims) {
    kp_cluster *cl = zone_cluster();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    /* VolumeBinding's PreFilter would reject the unbound immediate claims first */
    kp_sched *s = ts_sched(cl, WITHOUT("VolumeBinding"), 0);
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    zone_ok(s, "pwait", "n-b-beta"); /* WaitForFirstConsumer, unbound: skipped */
    prefilter_rejects(s, "pimm", "PersistentVolume had no name");
    prefilter_rejects(s, "pnoclass", "PersistentVolumeClaim had no pv name and storageClass name");
    prefilter_rejects(s, "pbadclass", "storageclass.storage.k8s.io \"nope\" not found");
    prefilter_rejects(s, "pnopv", "persistentvolume \"vol-x\" not found");
    prefilter_rejects(s, "pmissing", "persistentvolumeclaim \"pvc-x\" not found");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

#define ON(node) "nodeName: " node ", "

static void disk_case(const char *vol_new, const char *vol_old, bool conflict) {
    char y[2048];
    snprintf(y, sizeof y, "%s%s%s", NODE("n1", ""),
             "---\napiVersion: v1\nkind: Pod\nmetadata: {name: old, namespace: default}\n"
             "spec: {nodeName: n1, containers: [{name: c}], volumes: [",
             vol_old);
    size_t l = strlen(y);
    snprintf(y + l, sizeof y - l,
             "]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: default}\n"
             "spec: {containers: [{name: c}], volumes: [%s]}\n",
             vol_new);
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_node_status st = ts_filter(s, "new", "n1");
    if ((st.code != KP_CODE_SUCCESS) != conflict) fprintf(stderr, "  %s vs %s\n", vol_new, vol_old);
    KT_CHECK_INT(st.code, conflict ? KP_CODE_UNSCHEDULABLE : KP_CODE_SUCCESS);
    if (conflict) KT_CHECK_STR(st.reasons[0], "node(s) had no available disk");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(volume_restrictions_disk_conflicts) {
    disk_case("{name: a, gcePersistentDisk: {pdName: foo}}",
              "{name: b, gcePersistentDisk: {pdName: foo}}", true);
    disk_case("{name: a, gcePersistentDisk: {pdName: foo}}",
              "{name: b, gcePersistentDisk: {pdName: bar}}", false);
    disk_case("{name: a, gcePersistentDisk: {pdName: foo, readOnly: true}}",
              "{name: b, gcePersistentDisk: {pdName: foo, readOnly: true}}", false);
    disk_case("{name: a, awsElasticBlockStore: {volumeID: foo, readOnly: true}}",
              "{name: b, awsElasticBlockStore: {volumeID: foo, readOnly: true}}", true);
    disk_case("{name: a, awsElasticBlockStore: {volumeID: foo}}",
              "{name: b, awsElasticBlockStore: {volumeID: bar}}", false);
    disk_case("{name: a, rbd: {monitors: [a, b], pool: foo, image: bar}}",
              "{name: b, rbd: {monitors: [c, a], pool: foo, image: bar}}", true);
    disk_case("{name: a, rbd: {monitors: [a, b], pool: foo, image: bar}}",
              "{name: b, rbd: {monitors: [c, d], pool: foo, image: bar}}", false);
    disk_case("{name: a, rbd: {monitors: [a], image: bar}}",
              "{name: b, rbd: {monitors: [a], pool: other, image: bar}}", false);
    disk_case("{name: a, iscsi: {targetPortal: x, iqn: iqn.2016-12.server:storage.target01, lun: "
              "0}}",
              "{name: b, iscsi: {targetPortal: y, iqn: iqn.2016-12.server:storage.target01, lun: "
              "1}}",
              true);
    disk_case("{name: a, iscsi: {iqn: q, readOnly: true}}",
              "{name: b, iscsi: {iqn: q, readOnly: "
              "true}}",
              false);
    /* different kinds never conflict */
    disk_case("{name: a, gcePersistentDisk: {pdName: foo}}",
              "{name: b, awsElasticBlockStore: {volumeID: foo}}", false);
}

KT_TEST(volume_restrictions_read_write_once_pod) {
    kp_cluster *cl = ts_load(
        NODE("n1", "") NODE("n2", "") PV("pv1", "") PV("pv2", "")
            PVC("rwop", "{volumeName: pv1, accessModes: [ReadWriteOncePod]}")
                PVC("rwo", "{volumeName: pv2, accessModes: [ReadWriteOnce]}")
                    POD("holder", ON("n1"),
                        CLAIM("rwop") ", {name: w, persistentVolumeClaim: "
                                      "{claimName: rwo}}") POD("want", "", CLAIM("rwop"))
                        POD("want-rwo", "", CLAIM("rwo")) POD("want-missing", "", CLAIM("nope")));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 0);
    /* TestAccessModeConflicts "access mode conflict": Unschedulable with
     * ErrReasonReadWriteOncePodConflict as PR #129145 words it (v1.33 on) */
    const char *msg = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod "
                      "access mode already in-use by another pod";
    for (int i = 0; i < 2; i++) {
        kp_node_status st = ts_filter(s, "want", i ? "n2" : "n1");
        KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE); /* every node, not unresolvable */
        KT_CHECK_STR(st.plugin, "VolumeRestrictions");
        KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", msg);
    }
    /* --compat 1.32: the text before PR #129145 */
    kp_sched *old = ts_sched_compat(cl, "1.32");
    KT_CHECK(old != NULL);
    if (old) {
        kp_node_status o = ts_filter(old, "want", "n2");
        KT_CHECK_INT(o.code, KP_CODE_UNSCHEDULABLE);
        KT_CHECK_STR(o.n_reasons ? o.reasons[0] : "",
                     "node has pod using PersistentVolumeClaim with the same name and "
                     "ReadWriteOncePod access mode");
        kp_sched_free(old);
    }
    KT_CHECK_INT(ts_filter(s, "want-rwo", "n2").code, KP_CODE_SUCCESS);
    kp_node_status st = ts_filter(s, "want-missing", "n2");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", "persistentvolumeclaim \"nope\" not found");
    /* RemovePod of the holder frees the claim (preemption's dry run), AddPod takes it back */
    long want = kp_cluster_find_pod(cl, "want"), holder = kp_cluster_find_pod(cl, "holder");
    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)want, &pre);
    KT_CHECK(c != NULL);
    if (c) {
        kp__node_remove_pod(cl, (uint32_t)holder);
        kp__cycle_remove_pod(c, (uint32_t)holder, 0);
        kp__cycle_filter(c, 0, &st);
        KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
        KT_CHECK_INT(kp__node_add_pod(cl, 0, (uint32_t)holder), KP_OK);
        kp__cycle_add_pod(c, (uint32_t)holder, 0);
        kp__cycle_filter(c, 0, &st);
        KT_CHECK_INT(st.code, KP_CODE_UNSCHEDULABLE);
        kp__cycle_free(c);
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(volume_binding_filter_and_prefilter) {
    kp_cluster *cl = ts_load(
        NODE("na", GZ ": a") NODE(
            "nb", GZ
            ": b") "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-local}\nspec: "
                   "{nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: " GZ
                   ", operator: In, values: [a]}]}]}}}\n" PVC("bound", "{volumeName: pv-local}")
                       PVC("gone", "{volumeName: pv-gone}")
                           PVC("picked",
                               "{storageClassName: wait}") "---\napiVersion: v1\nkind: "
                                                           "PersistentVolumeClaim\nmetadata: "
                                                           "{name: picked-b, namespace: default, "
                                                           "annotations: "
                                                           "{volume.kubernetes.io/selected-node: "
                                                           "nb}}\nspec: {storageClassName: wait}\n"
                                                           "---\napiVersion: v1\nkind: "
                                                           "PersistentVolumeClaim\nmetadata: "
                                                           "{name: lost, namespace: "
                                                           "default}\nspec: {volumeName: "
                                                           "pv-lost}\nstatus: {phase: Lost}\n"
                                                           "---\napiVersion: v1\nkind: "
                                                           "PersistentVolumeClaim\nmetadata: "
                                                           "{name: half, namespace: "
                                                           "default}\nspec: {volumeName: "
                                                           "pv-local}\n" /* no bind-completed: not
                                                                            bound */
        PVC("imm",
            "{storageClassName: imm}") "---\n{apiVersion: storage.k8s.io/v1, kind: "
                                       "StorageClass, metadata: {name: wait}, provisioner: "
                                       "ebs.csi.aws.com, "
                                       "volumeBindingMode: WaitForFirstConsumer}\n"
                                       "---\n{apiVersion: storage.k8s.io/v1, kind: "
                                       "StorageClass, metadata: {name: imm}}\n" POD("pbound", "",
                                                                                    CLAIM("bound"))
                                           POD("pgone", "", CLAIM("gone")) POD("ppicked", "",
                                                                               CLAIM("picked"))
                                               POD("ppicked-b", "", CLAIM("picked-b"))
                                                   POD("plost", "", CLAIM("lost"))
                                                       POD("phalf", "", CLAIM("half"))
                                                           POD("pimm", "", CLAIM("imm"))
                                                               POD("eph", "",
                                                                   "{name: data, ephemeral: "
                                                                   "{volumeClaimTemplate: {}}}"));
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, WITHOUT("VolumeZone"), 0);
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    KT_CHECK_INT(ts_filter(s, "pbound", "na").code, KP_CODE_SUCCESS);
    kp_node_status st = ts_filter(s, "pbound", "nb");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.plugin, "VolumeBinding");
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "", "node(s) had volume node affinity conflict");
    st = ts_filter(s, "pgone", "na");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "",
                 "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
    KT_CHECK_INT(ts_filter(s, "ppicked", "na").code, KP_CODE_SUCCESS); /* not modelled: passes */
    KT_CHECK_INT(ts_filter(s, "ppicked-b", "nb").code, KP_CODE_SUCCESS);
    st = ts_filter(s, "ppicked-b", "na");
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.n_reasons ? st.reasons[0] : "",
                 "node(s) didn't find available persistent volumes to bind");
    prefilter_rejects_on(s, "plost", "na",
                         "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume "
                         "\"pv-lost\"");
    prefilter_rejects_on(s, "phalf", "na", "pod has unbound immediate PersistentVolumeClaims");
    prefilter_rejects_on(s, "pimm", "na", "pod has unbound immediate PersistentVolumeClaims");
    /* TestVolumeBinding "generic ephemeral volume, missing": podHasPVCs' own message */
    prefilter_rejects_on(s, "eph", "na",
                         "waiting for ephemeral volume controller to create the "
                         "persistentvolumeclaim \"eph-data\"");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(volume_zone_single_and_multi_zone), KT_CASE(volume_zone_unbound_and_missing_claims),
        KT_CASE(volume_restrictions_disk_conflicts),
        KT_CASE(volume_restrictions_read_write_once_pod),
        KT_CASE(volume_binding_filter_and_prefilter))
