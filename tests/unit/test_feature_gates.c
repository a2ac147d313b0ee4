/* Feature gates: the flag syntax of component-base's featuregate.Set / SetFromMap (cases after
 * its feature_gate_test.go TestFeatureGateFlag: several pairs, blanks, bad values, unknown and
 * locked gates) and the gates' effect on the request helpers and the QoS class at finalize. */
#include <string.h>

#include "core/cluster.h"
#include "core/feature_gates_known.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "harness.h"
#include "kprio/cluster.h"

static kp_status parse(kp_feature_gates *g, const char *text, char *msg, size_t cap) {
    kp_error err;
    kp_error_clear(&err);
    kp_feature_gates_init(g);
    kp_status st = kp_feature_gates_parse(g, text, &err);
    snprintf(msg, cap, "%s", st == KP_OK ? "" : err.msg);
    return st;
}

KT_TEST(gates_parse_pairs) {
    kp_feature_gates g;
    char msg[600];
    KT_CHECK_INT(parse(&g, "PodLevelResources=false,PodLevelResourcesFixKubeletQOSClass=true", msg,
                       sizeof msg),
                 KP_OK);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    KT_CHECK(g.on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS]);
    /* blanks around keys and values, empty pairs skipped, ParseBool's spellings, last wins */
    KT_CHECK_INT(parse(&g,
                       " PodLevelResources = F ,, PodLevelResourcesFixKubeletQOSClass=0,"
                       "PodLevelResourcesFixKubeletQOSClass=TRUE,",
                       msg, sizeof msg),
                 KP_OK);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    KT_CHECK(g.on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS]);
    KT_CHECK_INT(parse(&g, "", msg, sizeof msg), KP_OK);
    KT_CHECK(g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    /* locked gates at their own value are accepted */
    KT_CHECK_INT(parse(&g, "InPlacePodVerticalScaling=true", msg, sizeof msg), KP_OK);
}

KT_TEST(gates_parse_errors) {
    kp_feature_gates g;
    char msg[600];
    KT_CHECK_INT(parse(&g, "PodLevelResources=maybe", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "invalid value of PodLevelResources=maybe, err: strconv.ParseBool: parsing "
                      "\"maybe\": invalid syntax");
    /* ParseBool is not case-insensitive beyond its list */
    KT_CHECK_INT(parse(&g, "PodLevelResources=tRUE", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(parse(&g, "PodLevelResources", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "missing bool value for PodLevelResources");
    KT_CHECK_INT(parse(&g, "PodLevelResources=false,Bogus=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "unrecognized feature gate: Bogus");
    KT_CHECK(g.on[KP_GATE_POD_LEVEL_RESOURCES]); /* unchanged after an error */
    /* values are all checked before names (Set, then SetFromMap) */
    KT_CHECK_INT(parse(&g, "Bogus=true,PodLevelResources=x", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "invalid value of PodLevelResources=x, err: strconv.ParseBool: parsing "
                      "\"x\": invalid syntax");
    /* the kubelet's flag (cliflag.MapStringBool) words the same errors differently */
    kp_error err;
    kp_error_clear(&err);
    kp_feature_gates_init(&g);
    KT_CHECK_INT(kp_feature_gates_parse_kubelet(&g, "PodLevelResources", &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "malformed pair, expect string=bool");
    KT_CHECK_INT(kp_feature_gates_parse_kubelet(&g, "PodLevelResources= maybe ", &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "invalid value of PodLevelResources: maybe, err: strconv.ParseBool: "
                          "parsing \"maybe\": invalid syntax");
    KT_CHECK_INT(kp_feature_gates_parse_kubelet(&g, "Bogus=1", &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "unrecognized feature gate: Bogus");
    KT_CHECK_INT(kp_feature_gates_parse_kubelet(&g, " PodLevelResources=0 ", &err), KP_OK);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    KT_CHECK_INT(parse(&g, "InPlacePodVerticalScaling=false", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "cannot set feature gate InPlacePodVerticalScaling to false, feature is "
                      "locked to true");
    KT_CHECK_INT(parse(&g, "AllowOverwriteTerminationGracePeriodSeconds=true", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg, "cannot set feature gate AllowOverwriteTerminationGracePeriodSeconds to "
                      "true, feature is locked to false");
}

static const char POD[] = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\n"
                          "spec:\n  resources:\n    requests:\n      cpu: \"1\"\n"
                          "  containers:\n  - name: c\n    resources:\n      requests:\n"
                          "        cpu: 200m\n        memory: 64Mi\n";

static kp_cluster *load_with(const char *gates) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    kp_feature_gates g;
    kp_feature_gates_init(&g);
    if (!cl || kp_feature_gates_parse(&g, gates, &err) != KP_OK ||
        kp_cluster_set_feature_gates(cl, &g) != KP_OK ||
        kp_cluster_load_buffer(cl, "t.yaml", POD, strlen(POD), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

/* PodLevelResources=false: GetResourceRequestQuantity and PodRequests take the containers'
 * requests, spec.resources is ignored (SkipPodLevelResources); on: the pod level. */
KT_TEST(gate_pod_level_resources_switches_requests) {
    kp_cluster *on = load_with(""), *off = load_with("PodLevelResources=false");
    KT_CHECK(on && off);
    if (on && off) {
        const kp_pod *p = &on->pods[0], *q = &off->pods[0];
        KT_CHECK_INT(kp__pod_resource_request(on, p, KP_RES_CPU), 1000);
        KT_CHECK_INT(kp__pod_resource_request(on, p, KP_RES_MEM), 0);
        KT_CHECK_INT(kp__pod_resource_request(off, q, KP_RES_CPU), 200);
        KT_CHECK_INT(kp__pod_resource_request(off, q, KP_RES_MEM), 64 << 20);
        int64_t req[KP_MAX_RES];
        kp__pod_requests(off, q, true, false, req);
        KT_CHECK_INT(req[KP_RES_CPU], 200);
        KT_CHECK(!kp__pod_level_resources_set(off, q));
    }
    kp_cluster_free(on);
    kp_cluster_free(off);
}

KT_TEST(gates_set_after_finalize_refused) {
    kp_cluster *cl = load_with("");
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_feature_gates g;
    kp_feature_gates_init(&g);
    KT_CHECK_INT(kp_cluster_set_feature_gates(cl, &g), KP_EINVAL);
    KT_CHECK_STR(kp_gate_name(KP_GATE_POD_LEVEL_RESOURCES), "PodLevelResources");
    KT_CHECK(kp_gate_default(KP_GATE_POD_LEVEL_RESOURCES));
    kp_cluster_free(cl);
}

/* The gates a 1.37 kubelet / kube-scheduler register that kprio does not model are accepted and
 * change nothing; locked ones still refuse the other value; unknown names stay errors. */
KT_TEST(gates_upstream_unmodelled) {
    kp_feature_gates g, d;
    char msg[600];
    kp_feature_gates_init(&d);
    KT_CHECK_INT(
        parse(&g,
              "KubeletPSI=true,SchedulerAsyncAPICalls=false,"
              "RotateKubeletServerCertificate=true,ContextualLogging=true,"
              "WatchListClient=false,StorageCapacityScoring=false,CustomCPUCFSQuotaPeriod=true",
              msg, sizeof msg),
        KP_OK);
    KT_CHECK_STR(msg, "");
    KT_CHECK(memcmp(&g, &d, sizeof g) == 0); /* nothing kprio models moved */
    /* locked (GA, LockToDefault) at 1.37: the locked value is accepted, the other is not */
    KT_CHECK_INT(
        parse(&g, "DynamicResourceAllocation=true,DRAExtendedResource=true", msg, sizeof msg),
        KP_OK);
    KT_CHECK_INT(parse(&g, "KubeletPSI=true,DynamicResourceAllocation=false", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg, "cannot set feature gate DynamicResourceAllocation to false, feature is "
                      "locked to true");
    KT_CHECK_INT(parse(&g, "WatchFromStorageWithoutResourceVersion=true", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg, "cannot set feature gate WatchFromStorageWithoutResourceVersion to true, "
                      "feature is locked to false");
    /* names are exact: case, prefixes and extensions of known names are unknown */
    KT_CHECK_INT(parse(&g, "Bogus=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "unrecognized feature gate: Bogus");
    KT_CHECK_INT(parse(&g, "kubeletPSI=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(parse(&g, "KubeletPS=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(parse(&g, "KubeletPSIX=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(parse(&g, "CPUCFSQuotaPeriod=true", msg, sizeof msg), KP_EINVAL); /* Go name */
    /* first and last of the table */
    KT_CHECK_INT(parse(&g, "APIResponseCompression=false,WindowsHostNetwork=true", msg, sizeof msg),
                 KP_OK);
}

/* --compat moves the modelled gates' defaults and locks to the line's VersionedSpecs
 * (kube_features.go): PodLevelResources alpha off in 1.32-1.33, beta on from 1.34;
 * InPlacePodVerticalScaling beta on 1.33-1.34, locked on from 1.35;
 * InPlacePodLevelResourcesVerticalScaling from 1.35 (off), on from 1.36;
 * PodLevelResourcesFixKubeletQOSClass from 1.37; AllowOverwriteTerminationGracePeriodSeconds
 * deprecated off from 1.32, locked from 1.35. */
static kp_status on_line(kp_feature_gates *g, const char *line, const char *text, char *msg,
                         size_t cap) {
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_feature_gates_init_compat(g, line, &err);
    if (st == KP_OK) st = kp_feature_gates_parse(g, text, &err);
    snprintf(msg, cap, "%s", st == KP_OK ? "" : err.msg);
    return st;
}

KT_TEST(gates_follow_the_compat_line) {
    kp_feature_gates g, d;
    char msg[600];
    kp_feature_gates_init(&d);
    KT_CHECK_INT(on_line(&g, NULL, "", msg, sizeof msg), KP_OK);
    KT_CHECK(memcmp(&g, &d, sizeof g) == 0);
    KT_CHECK_INT(g.line, 37);
    KT_CHECK_INT(on_line(&g, "v1.40.2", "", msg, sizeof msg), KP_OK); /* newer: as 1.37 */
    KT_CHECK(memcmp(&g, &d, sizeof g) == 0);
    KT_CHECK_INT(on_line(&g, "1.33", "", msg, sizeof msg), KP_OK);
    KT_CHECK_INT(g.line, 33);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    KT_CHECK(g.on[KP_GATE_IN_PLACE_POD_VERTICAL_SCALING]);
    KT_CHECK(!g.on[KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING]);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS]);
    KT_CHECK(!g.on[KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS]);
    KT_CHECK(!kp_feature_gates_default(&g, KP_GATE_POD_LEVEL_RESOURCES));
    KT_CHECK(kp_gate_default(KP_GATE_POD_LEVEL_RESOURCES)); /* the mirrored line's */
    KT_CHECK_INT(on_line(&g, "1.34", "", msg, sizeof msg), KP_OK);
    KT_CHECK(g.on[KP_GATE_POD_LEVEL_RESOURCES]);
    KT_CHECK_INT(on_line(&g, "1.35", "", msg, sizeof msg), KP_OK);
    KT_CHECK(!g.on[KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING]);
    KT_CHECK_INT(on_line(&g, "1.36", "", msg, sizeof msg), KP_OK);
    KT_CHECK(g.on[KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING]);
    KT_CHECK(!g.on[KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS]);
    /* locks are the line's: settable before the lock, refused after */
    KT_CHECK_INT(on_line(&g, "1.34",
                         "InPlacePodVerticalScaling=false,"
                         "AllowOverwriteTerminationGracePeriodSeconds=true",
                         msg, sizeof msg),
                 KP_OK);
    KT_CHECK(!g.on[KP_GATE_IN_PLACE_POD_VERTICAL_SCALING]);
    KT_CHECK(g.on[KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS]);
    KT_CHECK_INT(on_line(&g, "1.35", "InPlacePodVerticalScaling=false", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg,
                 "cannot set feature gate InPlacePodVerticalScaling to false, feature is locked "
                 "to true");
    KT_CHECK_INT(
        on_line(&g, "1.35", "AllowOverwriteTerminationGracePeriodSeconds=true", msg, sizeof msg),
        KP_EINVAL);
    /* a gate the line does not have yet is unrecognized there */
    KT_CHECK_INT(on_line(&g, "1.36", "PodLevelResourcesFixKubeletQOSClass=true", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg, "unrecognized feature gate: PodLevelResourcesFixKubeletQOSClass");
    KT_CHECK_INT(
        on_line(&g, "1.34", "InPlacePodLevelResourcesVerticalScaling=true", msg, sizeof msg),
        KP_EINVAL);
    KT_CHECK_INT(on_line(&g, "1.31", "PodLevelResources=true", msg, sizeof msg), KP_EINVAL);
    /* the unmodelled gates' table holds 1.37's locks: an older line accepts either value */
    KT_CHECK_INT(on_line(&g, "1.36", "DRAPrioritizedList=false", msg, sizeof msg), KP_OK);
    KT_CHECK_INT(on_line(&g, NULL, "DRAPrioritizedList=false", msg, sizeof msg), KP_EINVAL);
    /* DynamicResourceAllocation: beta off in 1.33, GA on 1.34, locked from 1.35 */
    KT_CHECK_INT(on_line(&g, "1.33", "", msg, sizeof msg), KP_OK);
    KT_CHECK(!g.on[KP_GATE_DYNAMIC_RESOURCE_ALLOCATION]);
    KT_CHECK_INT(on_line(&g, "1.34", "DynamicResourceAllocation=false", msg, sizeof msg), KP_OK);
    KT_CHECK(!g.on[KP_GATE_DYNAMIC_RESOURCE_ALLOCATION]);
    KT_CHECK_INT(on_line(&g, "1.35", "DynamicResourceAllocation=false", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_INT(on_line(&g, "1.33", "Bogus=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(on_line(&g, "2.0", "", msg, sizeof msg), KP_EINVAL);
}

/* The gates kprio does not model, per line (the v1.37.0-alpha.1 notes and the scheduler's
 * VersionedSpecs): removed in 1.37 -> unrecognized at 1.37, accepted at 1.36; added in 1.37 ->
 * unrecognized at 1.36; DeclarativeValidationTakeover locked off in 1.37 (#139212). */
KT_TEST(gates_known_follow_the_line) {
    kp_feature_gates g;
    char msg[600];
    KT_CHECK_INT(on_line(&g, NULL, "SidecarContainers=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "unrecognized feature gate: SidecarContainers");
    KT_CHECK_INT(on_line(&g, NULL, "AnyVolumeDataSource=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(on_line(&g, NULL, "ConsistentListFromCache=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(
        on_line(&g, "1.36", "SidecarContainers=true,AnyVolumeDataSource=true", msg, sizeof msg),
        KP_OK);
    KT_CHECK_INT(on_line(&g, NULL, "KubeProxyIPVS=false,EtcdRangeStream=true", msg, sizeof msg),
                 KP_OK);
    KT_CHECK_INT(on_line(&g, "1.36", "KubeProxyIPVS=false", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_STR(msg, "unrecognized feature gate: KubeProxyIPVS");
    KT_CHECK_INT(on_line(&g, "1.36", "CompositePodGroup=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(on_line(&g, "1.35", "WorkloadAwarePreemption=true", msg, sizeof msg), KP_EINVAL);
    KT_CHECK_INT(on_line(&g, "1.36", "WorkloadAwarePreemption=true", msg, sizeof msg), KP_OK);
    KT_CHECK_INT(on_line(&g, NULL, "DeclarativeValidationTakeover=true", msg, sizeof msg),
                 KP_EINVAL);
    KT_CHECK_STR(msg, "cannot set feature gate DeclarativeValidationTakeover to true, feature is "
                      "locked to false");
    KT_CHECK_INT(on_line(&g, "1.36", "DeclarativeValidationTakeover=true", msg, sizeof msg), KP_OK);
}

/* the binary search needs the table in strcmp order, without duplicates */
KT_TEST(gates_known_table_sorted) {
    size_t n = kp__gate_known_count();
    KT_CHECK(n > 200);
    for (size_t i = 1; i < n; i++)
        KT_CHECK(strcmp(kp__gate_known_name(i - 1), kp__gate_known_name(i)) < 0);
    for (size_t i = 0; i < n; i++) { /* each is a gate of 1.36 or of 1.37 */
        const char *s = kp__gate_known_name(i);
        KT_CHECK(kp__gate_known(s, strlen(s), 36) != KP__GATE_UNKNOWN ||
                 kp__gate_known(s, strlen(s), 37) != KP__GATE_UNKNOWN);
    }
    /* every gate kprio models is one upstream registers */
    for (int i = 0; i < KP_GATE_COUNT; i++) {
        const char *s = kp_gate_name((kp_gate)i);
        KT_CHECK(kp__gate_known(s, strlen(s), 37) != KP__GATE_UNKNOWN);
    }
}

KT_MAIN(KT_CASE(gates_parse_pairs), KT_CASE(gates_parse_errors),
        KT_CASE(gate_pod_level_resources_switches_requests),
        KT_CASE(gates_set_after_finalize_refused), KT_CASE(gates_upstream_unmodelled),
        KT_CASE(gates_known_table_sorted), KT_CASE(gates_follow_the_compat_line),
        KT_CASE(gates_known_follow_the_line))
