/* Queueing hints (kp_sched_queueing_hint): rows of upstream's plugin hint tests
 * (noderesources/fit_test.go Test_isSchedulableAfterNodeChange and
 * TestEventsToRegister/isSchedulableAfterPodEvent, tainttoleration_test.go
 * TestIsSchedulableAfterNodeChange, node_unschedulable_test.go, podtopologyspread
 * plugin_test.go Test_isSchedulableAfterPodChange, interpodaffinity plugin_test.go; the assigned
 * pod updates: fit_test.go's "queue-on-deleted"/scale-down rows, the spread and inter-pod
 * affinity "update pod label" rows) through a
 * real attempt, so the rejecting plugins are the ones the scheduler recorded; and the queue of
 * before the hints (--compat 1.31: preCheckForNode). */
#include "kprio/update.h"
#include "test_sched_util.h"

#define NODE(name, cpu, extra)                                             \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: " \
    "{kubernetes.io/hostname: " name "}}\nspec: {" extra "}\n"             \
    "status: {allocatable: {cpu: \"" cpu "\", memory: 8Gi, pods: \"110\"}}\n"
#define POD(name, labels, spec)                              \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name \
    ", namespace: default, labels: " labels "}\nspec: " spec "\n"
#define CT(cpu) "{name: c, image: i, resources: {requests: {cpu: \"" cpu "\"}}}"

static kp_index add(kp_cluster *cl, const char *y) {
    kp_error err;
    kp_error_clear(&err);
    size_t before = kp_cluster_node_count(cl);
    if (kp_cluster_load_buffer(cl, "add.yaml", y, strlen(y), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  add failed: %s\n", err.msg);
        return -1;
    }
    return kp_cluster_node_count(cl) > before ? (kp_index)before
                                              : (kp_index)kp_cluster_pod_count(cl) - 1;
}

/* attempts pod once (it must fail) and returns its index */
static kp_index fail_once(kp_sched *s, kp_cluster *cl, const char *pod) {
    kp_error err;
    kp_error_clear(&err);
    kp_index p = kp_cluster_find_pod(cl, pod);
    if (p < 0 || kp_sched_schedule_one(s, p, &err) != KP_OK) return -1;
    const kp_sched_pod_result *r = kp_sched_result_of(s, p);
    return r && r->outcome != KP_OUTCOME_BOUND ? p : -1;
}

static kp_sched_hint node_hint(kp_sched *s, kp_index pod, kp_sched_event_kind k, kp_index node) {
    kp_sched_event ev = {.kind = k, .node = node, .pod = -1, .nominated = false};
    return kp_sched_queueing_hint(s, pod, &ev);
}

static kp_sched_hint pod_hint(kp_sched *s, kp_index pod, kp_sched_event_kind k, kp_index q,
                              kp_index node) {
    kp_sched_event ev = {.kind = k, .node = node, .pod = q, .nominated = false};
    return kp_sched_queueing_hint(s, pod, &ev);
}

/* n1 (2 cpu) is full; "big" asks 5 cpu: NodeResourcesFit rejects it */
static const char *FIT = NODE("n1", "2", "") POD("big", "{}", "{containers: [" CT("5") "]}");

KT_TEST(hints_fit_node_add_skips_a_node_too_small_queues_a_big_one) {
    kp_cluster *cl = ts_load(FIT);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index big = s ? fail_once(s, cl, "default/big") : -1;
    KT_CHECK(big >= 0);
    if (big < 0) return;
    const char *names[4];
    KT_CHECK_INT(kp_sched_rejecting_plugins(s, big, names, 4), 1);
    KT_CHECK_STR(names[0], "NodeResourcesFit");
    /* "skip-queue-on-node-add-if-no-sufficient-resource" */
    kp_index n2 = add(cl, NODE("n2", "4", ""));
    KT_CHECK_INT(node_hint(s, big, KP_SCHED_EV_NODE_ADD, n2), KP_HINT_SKIP);
    /* "queue-on-node-add-if-sufficient-resource" */
    kp_index n3 = add(cl, NODE("n3", "8", ""));
    KT_CHECK_INT(node_hint(s, big, KP_SCHED_EV_NODE_ADD, n3), KP_HINT_QUEUE);
    /* "skip-queue-on-node-unrelated-changes": a taint removed, allocatable unchanged */
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_node_taint(cl, n3, "k", "v", "NoSchedule", &err), KP_OK);
    kp_sched_node_before(s, n3);
    KT_CHECK_INT(kp_cluster_node_untaint(cl, n3, "k", "NoSchedule", NULL, &err), KP_OK);
    KT_CHECK_INT(node_hint(s, big, KP_SCHED_EV_NODE_UPDATE, n3), KP_HINT_SKIP);
    /* the event NodeResourcesFit does not register: an assigned pod added */
    kp_index q = add(cl, POD("q", "{}", "{nodeName: n1, containers: [" CT("1") "]}"));
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_ADD, q, 0), KP_HINT_SKIP);
    KT_CHECK(!kp_sched_event_may_queue(s, KP_SCHED_EV_POD_ADD));
    /* isSchedulableAfterPodEvent: a scheduled pod deleted queues, an unscheduled one does not
     * unless it held a nomination */
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_DELETE, q, 0), KP_HINT_QUEUE);
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_DELETE, q, -1), KP_HINT_SKIP);
    kp_sched_event nom = {.kind = KP_SCHED_EV_POD_DELETE, .node = -1, .pod = q, .nominated = true};
    KT_CHECK_INT(kp_sched_queueing_hint(s, big, &nom), KP_HINT_QUEUE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* the same before the hints (--compat 1.31): a node update moves the pod when it passes the
 * admission check on the node (preCheckForNode), whatever changed */
KT_TEST(hints_compat_before_1_32_prechecks_the_node) {
    kp_cluster *cl = ts_load(FIT);
    kp_sched *s = ts_sched_compat(cl, "1.31");
    kp_index big = s ? fail_once(s, cl, "default/big") : -1;
    KT_CHECK(big >= 0);
    if (big < 0) return;
    kp_index n2 = add(cl, NODE("n2", "4", ""));
    KT_CHECK_INT(node_hint(s, big, KP_SCHED_EV_NODE_ADD, n2), KP_HINT_SKIP); /* too small */
    kp_index n3 = add(cl, NODE("n3", "8", "unschedulable: true"));
    kp_error err;
    kp_error_clear(&err);
    kp_sched_node_before(s, n3);
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, n3, false, &err), KP_OK);
    /* the hints would skip it (allocatable unchanged); the pre-check lets it through */
    KT_CHECK_INT(node_hint(s, big, KP_SCHED_EV_NODE_UPDATE, n3), KP_HINT_QUEUE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* n1 tainted k=v:NoSchedule and cordoned n2: "p" is rejected by TaintToleration and
 * NodeUnschedulable */
static const char *NODES_BLOCKED = NODE(
    "n1", "4", "taints: [{key: k, value: v, effect: NoSchedule}, {key: j, effect: NoSchedule}]")
    NODE("n2", "4", "unschedulable: true") POD("p", "{}", "{containers: [" CT("1") "]}");

KT_TEST(hints_taints_and_unschedulable_queue_when_the_node_opens) {
    kp_cluster *cl = ts_load(NODES_BLOCKED);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/p") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    kp_error err;
    kp_error_clear(&err);
    /* TaintToleration: one untolerated taint of two removed: still untolerated, skip */
    kp_sched_node_before(s, 0);
    KT_CHECK_INT(kp_cluster_node_untaint(cl, 0, "k", "NoSchedule", NULL, &err), KP_OK);
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_UPDATE, 0), KP_HINT_SKIP);
    /* the last one removed: queue */
    kp_sched_node_before(s, 0);
    KT_CHECK_INT(kp_cluster_node_untaint(cl, 0, "j", "NoSchedule", NULL, &err), KP_OK);
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_UPDATE, 0), KP_HINT_QUEUE);
    /* NodeUnschedulable: the node uncordoned queues; cordoned again does not */
    kp_sched_node_before(s, 1);
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, 1, false, &err), KP_OK);
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_UPDATE, 1), KP_HINT_QUEUE);
    kp_sched_node_before(s, 1);
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, 1, true, &err), KP_OK);
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_UPDATE, 1), KP_HINT_SKIP);
    /* neither registers a pod deletion */
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_DELETE, 0, 0), KP_HINT_SKIP);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* PodTopologySpread: n1 holds two app=a pods, n2 is full (1 cpu): "s" (app=a, maxSkew 1 over
 * hostname) is rejected by PodTopologySpread on n1 and NodeResourcesFit on n2 */
static const char *SPREAD = NODE("n1", "8", "") NODE("n2", "1", "")
    POD("a1", "{app: a}", "{nodeName: n1, containers: [" CT("1") "]}")
        POD("a2", "{app: a}", "{nodeName: n1, containers: [" CT("1") "]}")
            POD("fill", "{app: x}", "{nodeName: n2, containers: [" CT("1") "]}") POD(
                "s", "{app: a}",
                "{containers: [" CT(
                    "1") "], topologySpreadConstraints: [{maxSkew: 1, "
                         "topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, "
                         "labelSelector: {matchLabels: {app: a}}}]}");

KT_TEST(hints_spread_queues_when_a_matching_pod_is_scheduled) {
    kp_cluster *cl = ts_load(SPREAD);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/s") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    KT_CHECK_INT(kp_sched_rejecting_plugins(s, p, NULL, 0), 2);
    KT_CHECK(kp_sched_event_may_queue(s, KP_SCHED_EV_POD_ADD));
    /* "add pod with labels match topologySpreadConstraints selector" */
    kp_index m = add(cl, POD("m", "{app: a}", "{nodeName: n2, containers: [" CT("0") "]}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_ADD, m, 1), KP_HINT_QUEUE);
    /* "add pod with labels don't match topologySpreadConstraints selector" */
    kp_index o = add(cl, POD("o", "{app: b}", "{nodeName: n2, containers: [" CT("0") "]}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_ADD, o, 1), KP_HINT_SKIP);
    /* "delete pod with labels that match topologySpreadConstraints selector" */
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_DELETE, kp_cluster_find_pod(cl, "default/a1"), 0),
                 KP_HINT_QUEUE);
    /* a node without the topology key: skipped by PodTopologySpread and (too small) Fit */
    kp_index n3 = add(cl, "---\napiVersion: v1\nkind: Node\nmetadata: {name: n3}\n"
                          "status: {allocatable: {cpu: \"0\", memory: 8Gi, pods: \"110\"}}\n");
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_ADD, n3), KP_HINT_SKIP);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* InterPodAffinity: "w" needs a pod app=db on its node; there is none */
static const char *IPA = NODE("n1", "8", "")
    POD("w", "{app: web}",
        "{containers: [" CT(
            "1") "], affinity: {podAffinity: "
                 "{requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: "
                 "kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}]}}}");

KT_TEST(hints_interpod_affinity_queues_when_a_matching_pod_is_added) {
    kp_cluster *cl = ts_load(IPA);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/w") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    const char *names[2];
    KT_CHECK_INT(kp_sched_rejecting_plugins(s, p, names, 2), 1);
    KT_CHECK_STR(names[0], "InterPodAffinity");
    kp_index other = add(cl, POD("x", "{app: web}", "{nodeName: n1, containers: [" CT("0") "]}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_ADD, other, 0), KP_HINT_SKIP);
    kp_index db = add(cl, POD("db", "{app: db}", "{nodeName: n1, containers: [" CT("0") "]}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_ADD, db, 0), KP_HINT_QUEUE);
    /* a deleted pod matters only for anti-affinity: "w" has none */
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_DELETE, db, 0), KP_HINT_SKIP);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* "v" uses claim "data", which does not exist: VolumeRestrictions' PreFilter (the first to read
 * the claim) rejects it */
static const char *PVC_MISSING =
    NODE("n1", "8", "") POD("v", "{}",
                            "{containers: [" CT("1") "], volumes: [{name: d, "
                                                     "persistentVolumeClaim: {claimName: data}}]}");

#define PVC(name)                                                                        \
    "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " name           \
    ", namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: " \
    "{storage: 1Gi}}}\n"

KT_TEST(hints_volume_plugin_queues_when_its_claim_is_created) {
    kp_cluster *cl = ts_load(PVC_MISSING);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/v") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    const char *names[2];
    KT_CHECK_INT(kp_sched_rejecting_plugins(s, p, names, 2), 1);
    KT_CHECK_STR(names[0], "VolumeRestrictions");
    size_t before = kp_sched_event_objects(s, KP_SCHED_EV_PVC_ADD);
    add(cl, PVC("other"));
    add(cl, PVC("data"));
    KT_CHECK_INT(kp_sched_event_objects(s, KP_SCHED_EV_PVC_ADD), before + 2);
    /* isSchedulableAfterPersistentVolumeClaimAdded: a claim the pod does not use, skip */
    kp_sched_event ev = {.kind = KP_SCHED_EV_PVC_ADD, .node = -1, .pod = -1};
    ev.object = (kp_index)before;
    KT_CHECK_INT(kp_sched_queueing_hint(s, p, &ev), KP_HINT_SKIP);
    ev.object = (kp_index)before + 1; /* its claim: queue */
    KT_CHECK_INT(kp_sched_queueing_hint(s, p, &ev), KP_HINT_QUEUE);
    /* a node added: registered without a hint function */
    kp_index n2 = add(cl, NODE("n2", "1", ""));
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_ADD, n2), KP_HINT_QUEUE);
    /* isSchedulableAfterPodDeleted: a deleted pod without volumes frees none, skip */
    kp_index q = add(cl, POD("q", "{}", "{nodeName: n1, containers: [" CT("1") "]}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_DELETE, q, 0), KP_HINT_SKIP);
    /* a PV or a StorageClass added: VolumeRestrictions registers neither */
    kp_sched_event pv = {.kind = KP_SCHED_EV_PV_ADD, .node = -1, .pod = -1, .object = 0};
    add(cl, "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec: "
            "{capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}\n");
    KT_CHECK_INT(kp_sched_queueing_hint(s, p, &pv), KP_HINT_SKIP);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* no nodes: no plugin rejected the pod, any event queues it */
KT_TEST(hints_pod_no_plugin_rejected_queues_on_any_event) {
    kp_cluster *cl = ts_load(POD("lone", "{}", "{containers: [" CT("1") "]}"));
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/lone") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    KT_CHECK_INT(kp_sched_rejecting_plugins(s, p, NULL, 0), 0);
    KT_CHECK(kp_sched_event_may_queue(s, KP_SCHED_EV_POD_ADD));
    kp_index q = add(cl, NODE("n1", "1", ""));
    KT_CHECK_INT(node_hint(s, p, KP_SCHED_EV_NODE_ADD, q), KP_HINT_QUEUE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* a merge patch of pod NAME (sub: "" or "resize") with its old object taken first */
static void patch_pod(kp_sched *s, kp_cluster *cl, const char *name, const char *sub,
                      const char *patch) {
    char ref[200];
    snprintf(ref, sizeof ref, "default/%s", name);
    kp_sched_pod_before(s, kp_cluster_find_pod(cl, ref));
    kp_update_result u;
    kp_error err;
    kp_error_clear(&err);
    kp_status st =
        kp_cluster_patch(cl, "Pod", "default", name, sub, patch, strlen(patch), &u, &err);
    if (st != KP_OK) fprintf(stderr, "  patch %s: %s\n", name, err.msg);
    KT_CHECK_INT(st, KP_OK);
    if (u.resize_pending)
        KT_CHECK_INT(kp_cluster_pod_resize_set(cl, u.index, KP_RESIZE_APPLIED, "", &err), KP_OK);
}

#define LABELS(l) "{\"metadata\":{\"labels\":" l "}}"
#define CPU(c)                                                                             \
    "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"" c \
    "\"}}}]}}"

/* AssignedPodUpdate: NodeResourcesFit queues when an assigned pod's cpu is scaled down
 * (isResourceScaleDown), skips a scale-up and a label change; PodTopologySpread queues when an
 * assigned pod's labels start or stop matching a constraint's selector, skips other label
 * changes; InterPodAffinity queues when an assigned pod comes to match the required affinity */
KT_TEST(hints_assigned_pod_update) {
    kp_cluster *cl = ts_load(FIT);
    kp_sched *s = ts_sched(cl, NULL, 0);
    kp_index big = s ? fail_once(s, cl, "default/big") : -1;
    KT_CHECK(big >= 0);
    if (big < 0) return;
    kp_index q = add(cl, POD("q", "{}", "{nodeName: n1, containers: [" CT("1") "]}"));
    KT_CHECK(kp_sched_event_may_queue(s, KP_SCHED_EV_POD_UPDATE));
    patch_pod(s, cl, "q", "resize", CPU("500m"));
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_UPDATE, q, 0), KP_HINT_QUEUE);
    patch_pod(s, cl, "q", "resize", CPU("2"));
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_UPDATE, q, 0), KP_HINT_SKIP);
    patch_pod(s, cl, "q", "", LABELS("{\"x\":\"y\"}"));
    KT_CHECK_INT(pod_hint(s, big, KP_SCHED_EV_POD_UPDATE, q, 0), KP_HINT_SKIP);
    kp_sched_free(s);
    kp_cluster_free(cl);

    cl = ts_load(SPREAD);
    s = ts_sched(cl, NULL, 0);
    kp_index p = s ? fail_once(s, cl, "default/s") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    kp_index fill = kp_cluster_find_pod(cl, "default/fill");
    /* "update pod label that doesn't match topologySpreadConstraints selector": app stays a */
    patch_pod(s, cl, "a1", "", LABELS("{\"app\":\"a\",\"other\":\"v\"}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_UPDATE, kp_cluster_find_pod(cl, "default/a1"), 0),
                 KP_HINT_SKIP);
    /* "change pod's label that matches topologySpreadConstraints selector" */
    patch_pod(s, cl, "fill", "", LABELS("{\"app\":\"a\"}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_UPDATE, fill, 1), KP_HINT_QUEUE);
    kp_sched_free(s);
    kp_cluster_free(cl);

    cl = ts_load(IPA);
    s = ts_sched(cl, NULL, 0);
    p = s ? fail_once(s, cl, "default/w") : -1;
    KT_CHECK(p >= 0);
    if (p < 0) return;
    kp_index x = add(cl, POD("x", "{app: web}", "{nodeName: n1, containers: [" CT("0") "]}"));
    patch_pod(s, cl, "x", "", LABELS("{\"app\":\"cache\"}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_UPDATE, x, 0), KP_HINT_SKIP);
    patch_pod(s, cl, "x", "", LABELS("{\"app\":\"db\"}"));
    KT_CHECK_INT(pod_hint(s, p, KP_SCHED_EV_POD_UPDATE, x, 0), KP_HINT_QUEUE);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(hints_fit_node_add_skips_a_node_too_small_queues_a_big_one),
        KT_CASE(hints_compat_before_1_32_prechecks_the_node),
        KT_CASE(hints_taints_and_unschedulable_queue_when_the_node_opens),
        KT_CASE(hints_spread_queues_when_a_matching_pod_is_scheduled),
        KT_CASE(hints_interpod_affinity_queues_when_a_matching_pod_is_added),
        KT_CASE(hints_volume_plugin_queues_when_its_claim_is_created),
        KT_CASE(hints_pod_no_plugin_rejected_queues_on_any_event),
        KT_CASE(hints_assigned_pod_update))
