/* VolumeBinding for claims not bound yet (WaitForFirstConsumer), with the cases of upstream's
 * binder_test.go TestFindPodVolumesWithoutProvisioning / WithProvisioning and
 * pv_helpers_test.go (FindMatchingVolume): a matching available PV (size, access modes, class,
 * selector, volume mode, node affinity, pre-bound claimRef, smallest first, one PV per claim), or
 * dynamic provisioning (a provisioner other than kubernetes.io/no-provisioner, allowedTopologies).
 */
#include <stdio.h>

#include "test_sched_util.h"

#define OBJ(s) "---\n" s "\n"
#define NODE(n)                                                                            \
    OBJ("{apiVersion: v1, kind: Node, metadata: {name: " n ", labels: {nodeKey: " n "}}, " \
        "status: {allocatable: {cpu: 4, memory: 4Gi, pods: \"32\"}}}")
/* an Available PV of class CLASS, SIZE, on node NODE (nodeKey In [NODE]), extra spec fields */
#define PV(name, cls, size, node, extra)                                                         \
    OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: " name ", labels: {tier: "    \
        "gold}}, spec: {storageClassName: " cls ", capacity: {storage: " size "}, accessModes: " \
        "[ReadWriteOnce], nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "     \
        "[{key: nodeKey, operator: In, values: [" node "]}]}]}}" extra "}, status: {phase: "     \
        "Available}}")
#define PVC(name, cls, size, extra)                                                            \
    OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: " name ", namespace: " \
        "default, uid: uid-" name "}, spec: {storageClassName: " cls ", accessModes: "         \
        "[ReadWriteOnce], resources: {requests: {storage: " size "}}" extra "}}")
#define POD(name, claims)                                                                    \
    OBJ("{apiVersion: v1, kind: Pod, metadata: {name: " name ", namespace: default}, spec: " \
        "{containers: [{name: c}], volumes: [" claims "]}}")
#define CLAIM(v, c) "{name: " v ", persistentVolumeClaim: {claimName: " c "}}"

static const char *const PARTS[] = {
    NODE("node1") NODE("node2")
    /* wait-class: static PVs only; prov-class: a CSI provisioner; topo-class: allowed on node2 */
    OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: wait-class}, "
        "provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}")
        OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: prov-class}, "
            "provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}")
            OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: topo-class}, "
                "provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer, "
                "allowedTopologies: [{matchLabelExpressions: [{key: nodeKey, values: [node2]}]}]}"),
    PV("pv-node1a", "wait-class", "5G", "node1", "")
        PV("pv-node1b", "wait-class", "10G", "node1", "")
            PV("pv-node2", "wait-class", "20G", "node2", "")
                PV("pv-block", "block-class", "5G", "node1", ", volumeMode: Block")
                    PV("pv-rwx", "rwx-class", "5G", "node1", "")
                        PV("pv-prebound", "pre-class", "1G", "node2",
                           ", claimRef: {namespace: default, name: prebound-pvc}")
                            PV("pv-big-free", "pre-class", "1G", "node1", "")
                                PV("pv-other", "other-class", "5G", "node1",
                                   ", claimRef: {namespace: default, name: someone}"),
    OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: block-class}, "
        "provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}")
        OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: rwx-class}, "
            "provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}")
            OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: pre-class}, "
                "provisioner: kubernetes.io/no-provisioner, volumeBindingMode: "
                "WaitForFirstConsumer}") OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, "
                                             "metadata: {name: other-class}, "
                                             "provisioner: kubernetes.io/no-provisioner, "
                                             "volumeBindingMode: WaitForFirstConsumer}"),
    PVC("unbound-pvc", "wait-class", "5G", "") PVC("unbound-pvc2", "wait-class", "5G", "")
        PVC("big-pvc", "wait-class", "12G", "") PVC("huge-pvc", "wait-class", "50G", "")
            PVC("gold-pvc", "wait-class", "1G", ", selector: {matchLabels: {tier: gold}}")
                PVC("silver-pvc", "wait-class", "1G", ", selector: {matchLabels: {tier: silver}}")
                    PVC("block-pvc", "block-class", "1G", "")
                        PVC("block-pvc-b", "block-class", "1G", ", volumeMode: Block")
                            OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: "
                                "rwx-pvc, namespace: "
                                "default}, spec: {storageClassName: rwx-class, accessModes: "
                                "[ReadWriteMany], resources: "
                                "{requests: {storage: 1G}}}}")
                                PVC("prebound-pvc", "pre-class", "1G", "")
                                    PVC("other-pvc", "other-class", "1G", "")
                                        PVC("provisioned-pvc", "prov-class", "1G", "")
                                            PVC("topo-pvc", "topo-class", "1G", ""),
    POD("one", CLAIM("a", "unbound-pvc"))
        POD("two", CLAIM("a", "unbound-pvc") ", " CLAIM("b", "unbound-pvc2"))
            POD("by-size", CLAIM("a", "big-pvc") ", " CLAIM("b", "unbound-pvc"))
                POD("huge", CLAIM("a", "huge-pvc")) POD("gold", CLAIM("a", "gold-pvc")) POD(
                    "silver", CLAIM("a", "silver-pvc")) POD("fs-on-block", CLAIM("a", "block-pvc"))
                    POD("block", CLAIM("a", "block-pvc-b")) POD("rwx", CLAIM("a", "rwx-pvc"))
                        POD("prebound", CLAIM("a", "prebound-pvc"))
                            POD("other", CLAIM("a", "other-pvc")) POD("provisioned",
                                                                      CLAIM("a", "provisioned-pvc"))
                                POD("matched-and-provisioned",
                                    CLAIM("a", "unbound-pvc") ", " CLAIM("b", "provisioned-pvc"))
                                    POD("topo", CLAIM("a", "topo-pvc"))};

static kp_cluster *load_all(void) {
    static char buf[16384];
    buf[0] = 0;
    for (size_t i = 0; i < sizeof PARTS / sizeof PARTS[0]; i++)
        strncat(buf, PARTS[i], sizeof buf - strlen(buf) - 1);
    return ts_load(buf);
}

static const char *verdict(kp_sched *s, const char *pod, const char *node) {
    kp_node_status st = ts_filter(s, pod, node);
    if (st.code == KP_CODE_SUCCESS) return "ok";
    KT_CHECK_INT(st.code, KP_CODE_UNRESOLVABLE);
    KT_CHECK_STR(st.plugin ? st.plugin : "", "VolumeBinding");
    return st.n_reasons ? st.reasons[0] : "";
}

#define BIND_CONFLICT "node(s) didn't find available persistent volumes to bind"

KT_TEST(unbound_claims_match_or_provision) {
    kp_cluster *cl = load_all();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 1);
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    /* unbound-pvc,pv-same-node / pv-different-node */
    KT_CHECK_STR(verdict(s, "default/one", "node1"), "ok");
    KT_CHECK_STR(verdict(s, "default/one", "node2"), "ok"); /* pv-node2 (20G) fits 5G too */
    /* two-unbound-pvcs: one PV each (pv-node1a, pv-node1b); node2 has one PV for two claims */
    KT_CHECK_STR(verdict(s, "default/two", "node1"), "ok");
    KT_CHECK_STR(verdict(s, "default/two", "node2"), BIND_CONFLICT);
    /* two-unbound-pvcs,order-by-size: the 5G claim takes the smallest PV first (pv-node1a), then
     * 12G fits none on node1 */
    KT_CHECK_STR(verdict(s, "default/by-size", "node1"), BIND_CONFLICT);
    KT_CHECK_STR(verdict(s, "default/huge", "node1"), BIND_CONFLICT); /* no PV big enough */
    /* selector, volume mode, access modes */
    KT_CHECK_STR(verdict(s, "default/gold", "node1"), "ok");
    KT_CHECK_STR(verdict(s, "default/silver", "node1"), BIND_CONFLICT);
    KT_CHECK_STR(verdict(s, "default/fs-on-block", "node1"), BIND_CONFLICT);
    KT_CHECK_STR(verdict(s, "default/block", "node1"), "ok");
    KT_CHECK_STR(verdict(s, "default/rwx", "node1"), BIND_CONFLICT); /* PV is RWO only */
    /* a PV pre-bound to the claim wins, and then only its node will do (a free PV on node1 does not
     * help); a PV whose claimRef names another claim is not available */
    KT_CHECK_STR(verdict(s, "default/prebound", "node2"), "ok");
    KT_CHECK_STR(verdict(s, "default/prebound", "node1"), BIND_CONFLICT);
    KT_CHECK_STR(verdict(s, "default/other", "node1"), BIND_CONFLICT);
    /* one-provisioned; two-unbound-pvcs,one-matched,one-provisioned */
    KT_CHECK_STR(verdict(s, "default/provisioned", "node1"), "ok");
    KT_CHECK_STR(verdict(s, "default/matched-and-provisioned", "node1"), "ok");
    /* volume-topology-unsatisfied */
    KT_CHECK_STR(verdict(s, "default/topo", "node1"), BIND_CONFLICT);
    KT_CHECK_STR(verdict(s, "default/topo", "node2"), "ok");
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* A StatefulSet-like pod whose WaitForFirstConsumer claim can only bind to a local PV on node2
 * goes there although node1 is emptier. */
KT_TEST(unbound_claim_steers_the_pod_to_its_volume) {
    static const char y[] =
        OBJ("{apiVersion: v1, kind: Node, metadata: {name: node1, labels: {nodeKey: node1}}, "
            "status: {allocatable: {cpu: 32, memory: 64Gi, pods: \"32\"}}}") NODE("node2")
            OBJ("{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: "
                "{name: local}, provisioner: kubernetes.io/no-provisioner, "
                "volumeBindingMode: WaitForFirstConsumer}")
                PV("local-2", "local", "10Gi", "node2", "") PVC("data-0", "local", "10Gi", "")
                    POD("db-0", CLAIM("data", "data-0"));
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, NULL, 1);
    KT_CHECK(s != NULL);
    if (s) {
        KT_CHECK_STR(verdict(s, "default/db-0", "node1"), BIND_CONFLICT);
        KT_CHECK_STR(verdict(s, "default/db-0", "node2"), "ok");
    }
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_TEST(bad_volume_fields_are_errors) {
    static const char *const bad[] = {
        OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: x}, spec: {volumeMode: "
            "Raw}}"),
        OBJ("{apiVersion: v1, kind: PersistentVolume, metadata: {name: x}, spec: {}, status: "
            "{phase: Gone}}"),
        OBJ("{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: x, namespace: d}, "
            "spec: {resources: {requests: {storage: lots}}}}"),
        NULL};
    static const char *const want[] = {"spec.volumeMode", "status.phase",
                                       "spec.resources.requests.storage"};
    for (int i = 0; bad[i]; i++) {
        kp_error err;
        kp_error_clear(&err);
        kp_cluster *cl = kp_cluster_new();
        kp_status st = kp_cluster_load_buffer(cl, "t.yaml", bad[i], strlen(bad[i]), &err);
        KT_CHECK(st != KP_OK);
        KT_CHECK_CONTAINS(err.msg, want[i]);
        kp_cluster_free(cl);
    }
}

KT_MAIN(KT_CASE(unbound_claims_match_or_provision),
        KT_CASE(unbound_claim_steers_the_pod_to_its_volume), KT_CASE(bad_volume_fields_are_errors))
