/* Workloads (issue 10 item 7): decoding of every controller kind into core/workload.h, and
 * `--expand-workloads` (kp_ctrl_expand, src/ctrl/expand.c): Deployment replicas less the pods
 * already there, a DaemonSet's pod per eligible node with the controller's node affinity and
 * tolerations, a Job's parallelism and completions as the Job controller's manageJob computes them,
 * a StatefulSet's ordinals, CronJobs, and the errors naming the workload. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

static kp_cluster *load_ex(const char *text, unsigned expand, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    kp_cluster_set_expand(cl, expand);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK || kp_ctrl_expand(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static const kp_workload *wl(const kp_cluster *cl, kp_workload_kind kind, const char *name) {
    for (uint32_t i = 0; i < cl->n_workloads; i++)
        if (cl->workloads[i].kind == kind && strcmp(kp__s(cl, cl->workloads[i].name), name) == 0)
            return &cl->workloads[i];
    return NULL;
}

static const char *label(const kp_cluster *cl, const kp_labels *l, const char *key) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key)), v;
    return k != UINT32_MAX && kp__labels_get(l, k, &v) ? kp__s(cl, v) : NULL;
}

/* Generated pods whose name starts with prefix (in namespace ns). */
static int count_prefix(const kp_cluster *cl, const char *ns, const char *prefix) {
    int n = 0;
    for (uint32_t i = cl->n_pods - (uint32_t)kp_cluster_expanded_pod_count(cl); i < cl->n_pods; i++)
        if (strcmp(kp__s(cl, cl->pods[i].ns), ns) == 0 &&
            strncmp(kp__s(cl, cl->pods[i].name), prefix, strlen(prefix)) == 0)
            n++;
    return n;
}

static const kp_pod *first_prefix(const kp_cluster *cl, const char *prefix) {
    for (uint32_t i = 0; i < cl->n_pods; i++)
        if (strncmp(kp__s(cl, cl->pods[i].name), prefix, strlen(prefix)) == 0) return &cl->pods[i];
    return NULL;
}

#define NODE(name, extra)                                                                      \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name ", labels: {disk: ssd}}\n" extra \
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n"

/* clang-format off */
static const char *KINDS =
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, uid: d1}\n"
    "spec:\n  replicas: 5\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: web}}\n"
    "  template:\n    metadata: {labels: {app: web, tier: fe}}\n"
    "    spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n"
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-abc\n  namespace: shop\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]\n"
    "spec:\n  selector: {matchLabels: {app: web}}\n"
    "  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}\n"
    "---\napiVersion: v1\nkind: ReplicationController\nmetadata: {name: legacy}\n"
    "spec:\n  replicas: 2\n  template: {metadata: {labels: {app: legacy}}, spec: {containers: [{name: c}]}}\n"
    "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: data}\n"
    "spec:\n  replicas: 3\n  podManagementPolicy: Parallel\n  ordinals: {start: 2}\n"
    "  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1}}\n"
    "  selector: {matchLabels: {app: db}}\n"
    "  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}\n"
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\n"
    "spec:\n  selector: {matchLabels: {app: agent}}\n"
    "  updateStrategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 10%}}\n"
    "  template: {metadata: {labels: {app: agent}}, spec: {hostNetwork: true, containers: [{name: c}]}}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: crunch}\n"
    "spec:\n  parallelism: 3\n  completions: 7\n  completionMode: Indexed\n  suspend: true\n"
    "  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n"
    "status: {succeeded: 2, completedIndexes: '0,2', conditions: [{type: Suspended, status: 'True'}]}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\n"
    "spec:\n  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n"
    "status: {conditions: [{type: Complete, status: 'True'}]}\n"
    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n"
    "spec:\n  schedule: '0 3 * * *'\n  concurrencyPolicy: Forbid\n"
    "  jobTemplate:\n    metadata: {labels: {team: data}}\n"
    "    spec: {completions: 4, template: {spec: {restartPolicy: OnFailure, containers: [{name: c}]}}}\n"
    "status: {active: [{kind: Job, name: nightly-1}]}\n"
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n";
/* clang-format on */

KT_TEST(decodes_every_kind) {
    kp_error err;
    kp_cluster *cl = load_ex(KINDS, KP_WORKLOAD_TEMPLATES, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "%s: %s\n", err.source, err.msg);
        return;
    }
    const kp_workload *d = wl(cl, KP_WL_DEPLOY, "web");
    KT_CHECK(d && d->replicas == 5 && d->strategy.type == KP_WL_STRATEGY_RECREATE);
    KT_CHECK(d && d->template && d->template->priority_class);
    KT_CHECK_STR(d ? label(cl, &d->template->labels, "tier") : "", "fe");
    KT_CHECK_STR(d ? d->origin.file : "", "in.yaml");
    /* defaults: maxSurge / maxUnavailable 25% */
    KT_CHECK(d && d->strategy.max_surge.percent && d->strategy.max_surge.value == 25);
    const kp_workload *rs = wl(cl, KP_WL_RS, "web-abc");
    KT_CHECK(rs && rs->replicas == 1); /* replicas defaults to 1 */
    KT_CHECK_STR(rs ? kp__s(cl, rs->owner_kind) : "", "Deployment");
    KT_CHECK_STR(rs ? kp__s(cl, rs->owner_name) : "", "web");
    const kp_workload *rc = wl(cl, KP_WL_RC, "legacy");
    /* SetDefaults_ReplicationController: the selector is the template's labels */
    KT_CHECK(rc && rc->replicas == 2 && rc->has_map && rc->map.n == 1);
    const kp_workload *sts = wl(cl, KP_WL_STS, "db");
    KT_CHECK(sts && sts->parallel_pods && sts->ordinals_start == 2 &&
             sts->strategy.partition == 1 && sts->replicas == 3);
    const kp_workload *ds = wl(cl, KP_WL_DS, "agent");
    KT_CHECK(ds && ds->template_host_network && ds->strategy.type == KP_WL_STRATEGY_ROLLING);
    KT_CHECK(ds && !ds->strategy.max_surge.percent && ds->strategy.max_surge.value == 1);
    KT_CHECK(ds && ds->strategy.max_unavailable.percent &&
             ds->strategy.max_unavailable.value == 10);
    const kp_workload *j = wl(cl, KP_WL_JOB, "crunch");
    KT_CHECK(j && j->job.parallelism == 3 && j->job.has_completions && j->job.completions == 7);
    KT_CHECK(j && j->job.indexed && j->job.suspend && j->job.succeeded == 2 && !j->job.finished);
    KT_CHECK_STR(j ? kp__s(cl, j->job.completed_indexes) : "", "0,2");
    const kp_workload *once = wl(cl, KP_WL_JOB, "once");
    /* SetDefaults_Job: both unset -> both 1; a Complete condition finishes it */
    KT_CHECK(once && once->job.parallelism == 1 && once->job.completions == 1 &&
             once->job.finished);
    const kp_workload *cj = wl(cl, KP_WL_CRONJOB, "nightly");
    KT_CHECK(cj && cj->concurrency == KP_CONCURRENCY_FORBID && cj->n_active_jobs == 1);
    KT_CHECK(cj && cj->job.completions == 4 && cj->job.parallelism == 1 && cj->template);
    KT_CHECK_STR(cj ? kp__s(cl, cj->schedule) : "", "0 3 * * *");
    KT_CHECK_STR(cj ? label(cl, &cj->labels, "team") : "", "data");
    /* none of them is a skipped kind, and nothing is expanded without the option */
    KT_CHECK_INT(cl->n_skipped_kinds, 0);
    KT_CHECK_INT(kp_cluster_expanded_pod_count(cl), 0);
    KT_CHECK_INT(kp_cluster_pod_count(cl), 0);
    kp_cluster_free(cl);
    /* without a flag the templates are not decoded; the rest is */
    cl = load_ex(KINDS, 0, &err);
    d = cl ? wl(cl, KP_WL_DEPLOY, "web") : NULL;
    KT_CHECK(d && d->replicas == 5 && !d->template && d->sel.is_set);
    kp_cluster_free(cl);
}

KT_TEST(decode_errors) {
    kp_error err;
    KT_CHECK(!load_ex("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                      "spec:\n  selector: {matchLabels: {app: web}}\n"
                      "  template: {metadata: {labels: {app: api}}, spec: {containers: [{name: "
                      "c}]}}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_STR(err.msg, "Deployment default/web: spec.template.metadata.labels: `selector` does "
                          "not match template `labels`");
    KT_CHECK(!load_ex("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: a}\n"
                      "spec: {updateStrategy: {type: Recreate}}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_CONTAINS(err.msg, "spec.updateStrategy.type: unsupported value \"Recreate\"");
    KT_CHECK(!load_ex("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
                      "spec: {parallelism: 2, completionMode: Indexed}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_CONTAINS(err.msg, "spec.completions: Required value: when completion mode is Indexed");
    KT_CHECK(!load_ex("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_CONTAINS(err.msg, "unsupported apiVersion \"batch/v1beta1\" for kind CronJob");
    KT_CHECK(!load_ex("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\n"
                      "spec: {replicas: -1}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_CONTAINS(err.msg, "spec.replicas");
    /* a template is validated like a pod */
    KT_CHECK(!load_ex("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
                      "spec: {template: {spec: {containers: [{name: c, resources: {requests: "
                      "{cpu: x}}}]}}}\n",
                      KP_WORKLOAD_TEMPLATES, &err));
    KT_CHECK_CONTAINS(err.msg, "spec.template.spec.containers[0].resources.requests.cpu");
}

/* clang-format off */
static const char *DEPLOY =
    "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, uid: d1}\n"
    "spec:\n  replicas: 5\n  selector: {matchLabels: {app: web}}\n"
    "  template:\n    metadata: {labels: {app: web}}\n"
    "    spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n"
    /* its ReplicaSet (the Deployment's template plus pod-template-hash, as the controller made
     * it) says 5 too: the Deployment scales it, its pods are not made twice */
    "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-abc\n  namespace: shop\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]\n"
    "spec:\n  replicas: 5\n  selector: {matchLabels: {app: web, pod-template-hash: abc}}\n"
    "  template:\n    metadata: {labels: {app: web, pod-template-hash: abc}}\n"
    "    spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc-1\n  namespace: shop\n"
    "  labels: {app: web}\n  creationTimestamp: '2024-05-01T10:00:00Z'\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]\n"
    "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"
    /* an older ReplicaSet's pod, not in the input: web-old -> Deployment web */
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-old-1\n  namespace: shop\n"
    "  labels: {app: web}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-old, controller: true}]\n"
    "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"
    /* terminating and Failed pods are not active (FilterActivePods) */
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc-2\n  namespace: shop\n"
    "  labels: {app: web}\n  deletionTimestamp: '2024-05-01T10:05:00Z'\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]\n"
    "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc-3\n  namespace: shop\n"
    "  labels: {app: web}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]\n"
    "spec: {containers: [{name: c}]}\nstatus: {phase: Failed}\n"
    /* a pod of another namespace does not count */
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-abc-4\n  namespace: other\n"
    "  labels: {app: web}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]\n"
    "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n";
/* clang-format on */

/* The Deployment's pods, checked the same way whichever ReplicaSet they go to. */
static void check_deployment_pods(const kp_cluster *cl, const char *rs_name, int n) {
    /* 5 replicas, 2 active (web-abc-1, web-old-1): the controller creates 3 (n) */
    KT_CHECK_INT(kp_cluster_expanded_pod_count(cl), n);
    const kp_pod *p = &cl->pods[cl->n_pods - 1];
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s-", rs_name);
    KT_CHECK_INT(count_prefix(cl, "shop", prefix), n);
    KT_CHECK_INT(strlen(kp__s(cl, p->name)), strlen(prefix) + 5);
    KT_CHECK_STR(label(cl, &p->labels, "pod-template-hash"), rs_name + 4);
    KT_CHECK_INT(p->priority, 1000); /* the template's class, resolved at finalize */
    KT_CHECK_INT(p->node, -1);
    KT_CHECK_STR(label(cl, &p->labels, "app"), "web");
    KT_CHECK_STR(p->src_file, "in.yaml");
    KT_CHECK(p->n_owners == 1 && p->owners[0].controller);
    KT_CHECK_STR(kp__s(cl, p->owners[0].kind), "ReplicaSet");
    KT_CHECK_STR(kp__s(cl, p->owners[0].name), rs_name);
    /* created after every pod of the input: the newest creationTimestamp */
    KT_CHECK(p->creation_ts != KP_TIME_NONE && p->creation_ts == cl->pods[0].creation_ts);
}

KT_TEST(deployment_minus_existing_pods) {
    kp_error err;
    kp_cluster *cl = load_ex(DEPLOY, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "%s: %s\n", err.source, err.msg);
        return;
    }
    /* its one scaled ReplicaSet, web-abc, takes the new pods (FindNewReplicaSet) */
    check_deployment_pods(cl, "web-abc", 3);
    KT_CHECK_INT(cl->n_workloads, 2); /* no ReplicaSet added */
    /* deterministic: the same input gives the same names */
    kp_cluster *again = load_ex(DEPLOY, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(again && again->n_pods == cl->n_pods);
    for (uint32_t i = 0; again && i < cl->n_pods && i < again->n_pods; i++)
        KT_CHECK_STR(kp__s(again, again->pods[i].name), kp__s(cl, cl->pods[i].name));
    kp_cluster_free(again);
    kp_cluster_free(cl);
    /* web-abc scaled to 0 with an older template (an old revision): a new ReplicaSet web-HASH,
     * added to the model for the default spreading selector, at NewRSNewReplicas: the replicas
     * less web-old-1 (a pod of a ReplicaSet the input lacks counts as the current revision's),
     * 4, within maxSurge since the old ReplicaSets ask for 0 */
    static char text[8192];
    snprintf(text, sizeof text, "%s", DEPLOY);
    char *r = strstr(text, "replicas: 5\n  selector: {matchLabels: {app: web, pod-template-hash");
    KT_CHECK(r != NULL);
    if (r) r[10] = '0';
    /* and its template an older one (FindNewReplicaSet compares templates) */
    char *cpu = strstr(text, "pod-template-hash: abc}}\n    spec: {priorityClassName: high, "
                             "containers: [{name: c, resources: {requests: {cpu: 1");
    KT_CHECK(cpu != NULL);
    char *c1 = cpu ? strstr(cpu, "cpu: 1") : NULL;
    if (c1) c1[5] = '2';
    cl = load_ex(text, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 4);
    if (!cl || kp_cluster_expanded_pod_count(cl) != 4) {
        kp_cluster_free(cl);
        return;
    }
    const char *hash = label(cl, &cl->pods[cl->n_pods - 1].labels, "pod-template-hash");
    KT_CHECK(hash && strlen(hash) >= 8 && strcmp(hash, "abc") != 0);
    char rs_name[64];
    snprintf(rs_name, sizeof rs_name, "web-%s", hash ? hash : "");
    check_deployment_pods(cl, rs_name, 4);
    const kp_workload *rs = wl(cl, KP_WL_RS, rs_name);
    KT_CHECK(rs && rs->sel.is_set && rs->sel.match_labels.n == 2 && rs->replicas == 4);
    kp_cluster_free(cl);
}

/* clang-format off */
static const char *DAEMONS =
    NODE("n1", "")
    NODE("n2", "spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}\n")
    NODE("n3", "spec: {taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute},"
               " {key: node.kubernetes.io/unschedulable, effect: NoSchedule},"
               " {key: other, effect: PreferNoSchedule}]}\n")
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n4, labels: {disk: hdd}}\n"
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n"
    NODE("n5", "")
    NODE("n6", "spec: {taints: [{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}]}\n")
    "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: sys}\n"
    "spec:\n  selector: {matchLabels: {app: agent}}\n  template:\n"
    "    metadata: {labels: {app: agent}}\n    spec:\n      nodeSelector: {disk: ssd}\n"
    "      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,"
    " tolerationSeconds: 300}]\n"
    "      affinity:\n        nodeAffinity:\n"
    "          requiredDuringSchedulingIgnoredDuringExecution:\n"
    "            nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: Exists}]}]\n"
    "          preferredDuringSchedulingIgnoredDuringExecution:\n"
    "          - {weight: 5, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}\n"
    "      containers: [{name: c}]\n"
    /* n5 runs one already (bound), so does n1... no: a pending one targets n5 only */
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: agent-old\n  namespace: sys\n"
    "  labels: {app: agent}\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, controller: true}]\n"
    "spec:\n  containers: [{name: c}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
    " {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n5]}]}]}}}\n";
/* clang-format on */

KT_TEST(daemonset_one_pod_per_eligible_node) {
    kp_error err;
    kp_cluster *cl = load_ex(DAEMONS, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "%s: %s\n", err.source, err.msg);
        return;
    }
    /* n1 and n3 (its not-ready / unschedulable taints are tolerated by the defaults); not n2
     * (untolerated NoSchedule), n4 (node selector), n5 (has one), n6 (network-unavailable is
     * tolerated only with hostNetwork) */
    KT_CHECK_INT(kp_cluster_expanded_pod_count(cl), 2);
    const char *want[2] = {"n1", "n3"};
    for (int k = 0; k < 2 && kp_cluster_expanded_pod_count(cl) == 2; k++) {
        const kp_pod *p = &cl->pods[cl->n_pods - 2 + (uint32_t)k];
        KT_CHECK(strncmp(kp__s(cl, p->name), "agent-", 6) == 0 && strlen(kp__s(cl, p->name)) == 11);
        KT_CHECK(p->node_name == 0 && p->node_affinity && p->node_affinity->has_required);
        /* ReplaceDaemonSetPodNodeNameNodeAffinity: one term, matchFields metadata.name In [n] */
        const kp_node_affinity *a = p->node_affinity;
        KT_CHECK(a && a->n_required == 1 && a->required[0].n_exprs == 0 &&
                 a->required[0].n_fields == 1 && a->n_preferred == 1);
        if (a && a->n_required == 1 && a->required[0].n_fields == 1) {
            KT_CHECK_STR(kp__s(cl, a->required[0].fields[0].key), "metadata.name");
            KT_CHECK_STR(kp__s(cl, a->required[0].fields[0].values[0]), want[k]);
        }
        /* the template's not-ready toleration replaced (no tolerationSeconds) + 5 more */
        KT_CHECK_INT(p->n_tolerations, 6);
        KT_CHECK(p->n_tolerations && !p->tolerations[0].has_seconds &&
                 p->tolerations[0].effect == KP_EFFECT_NOEXECUTE);
    }
    kp_cluster_free(cl);
    /* hostNetwork adds the network-unavailable toleration: n6 too */
    char buf[8192];
    const char *at = strstr(DAEMONS, "      containers: [{name: c}]\n");
    snprintf(buf, sizeof buf, "%.*s      hostNetwork: true\n%s", (int)(at - DAEMONS), DAEMONS, at);
    cl = load_ex(buf, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 3);
    KT_CHECK(cl && cl->pods[cl->n_pods - 1].n_tolerations == 7);
    kp_cluster_free(cl);
}

static int job_pods(const char *spec_status, const char *extra) {
    char buf[4096];
    snprintf(buf, sizeof buf,
             "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: b}\n%s"
             "  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n%s",
             spec_status, extra);
    kp_error err;
    kp_cluster *cl = load_ex(buf, KP_EXPAND_WORKLOADS, &err);
    if (!cl) fprintf(stderr, "%s\n", err.msg);
    int n = cl ? count_prefix(cl, "b", "j-") : -1;
    kp_cluster_free(cl);
    return n;
}

#define JOB_POD(name, phase, extra)                                                       \
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " name "\n  namespace: b\n" extra \
    "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, controller: true}]\n" \
    "spec: {containers: [{name: c}]}\nstatus: {phase: " phase "}\n"

KT_TEST(job_parallelism_and_completions) {
    /* wantActive = min(parallelism, completions - succeeded) */
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 4\n  completions: 10\n", ""), 4);
    KT_CHECK_INT(
        job_pods("spec:\n  parallelism: 4\n  completions: 10\n", "status: {succeeded: 8}\n"), 2);
    /* less the active pods; Succeeded / Failed pods are not active */
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 4\n  completions: 10\n",
                          "status: {succeeded: 8}\n" JOB_POD("j-a", "Running", "")
                              JOB_POD("j-b", "Succeeded", "") JOB_POD("j-c", "Failed", "")),
                 1);
    /* a terminating pod is replaced unless podReplacementPolicy is Failed */
    const char *term = JOB_POD("j-t", "Running", "  deletionTimestamp: '2024-05-01T10:00:00Z'\n");
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 2\n", term), 2);
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 2\n  podReplacementPolicy: Failed\n", term), 1);
    /* no completions (a work queue): parallelism until one succeeds, then nothing new */
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 3\n", ""), 3);
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 3\n", "status: {succeeded: 1}\n"), 0);
    /* more active than wanted: nothing is made (the controller deletes, kprio does not) */
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 1\n  completions: 5\n",
                          JOB_POD("j-a", "Running", "") JOB_POD("j-b", "Pending", "")),
                 0);
    /* suspended or finished: none */
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 3\n  suspend: true\n", ""), 0);
    KT_CHECK_INT(job_pods("spec:\n  parallelism: 3\n",
                          "status: {conditions: [{type: Failed, status: 'True'}]}\n"),
                 0);
    /* Indexed: the lowest indexes neither completed nor active */
    kp_error err;
    kp_cluster *cl = load_ex(
        "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: b}\n"
        "spec:\n  parallelism: 3\n  completions: 5\n  completionMode: Indexed\n"
        "  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n"
        "status: {succeeded: 1, completedIndexes: '0'}\n" JOB_POD(
            "j-1-aaaaa", "Running", "  labels: {batch.kubernetes.io/job-completion-index: '1'}\n"),
        KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 2);
    KT_CHECK(cl && first_prefix(cl, "j-2-") && first_prefix(cl, "j-3-") &&
             !first_prefix(cl, "j-4-"));
    const kp_pod *p = cl ? first_prefix(cl, "j-3-") : NULL;
    KT_CHECK_STR(p ? label(cl, &p->labels, "batch.kubernetes.io/job-completion-index") : "", "3");
    KT_CHECK_STR(p ? label(cl, &p->annotations, "batch.kubernetes.io/job-completion-index") : "",
                 "3");
    KT_CHECK_STR(p ? label(cl, &p->labels, "batch.kubernetes.io/job-name") : "", "j");
    kp_cluster_free(cl);
}

KT_TEST(statefulset_ordinals_and_cronjobs) {
    kp_error err;
#define STS(policy)                                                                  \
    "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"            \
    "spec:\n  replicas: 3\n  selector: {matchLabels: {app: db}}\n" policy            \
    "  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}\n" \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: db-1, labels: {app: db}}\n"    \
    "spec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"                    \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: db-2, labels: {app: db}}\n"    \
    "spec: {containers: [{name: c}]}\nstatus: {phase: Failed}\n"
    kp_cluster *cl = load_ex(STS("  podManagementPolicy: Parallel\n"), KP_EXPAND_WORKLOADS, &err);
    /* Parallel: db-0 is made, db-1 stands, the Failed db-2 is deleted and made again */
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 2);
    long i0 = cl ? kp_cluster_find_pod(cl, "db-0") : -1,
         i2 = cl ? kp_cluster_find_pod(cl, "db-2") : -1;
    KT_CHECK(i0 >= 0 && i2 >= 0);
    if (i0 >= 0 && i2 >= 0) {
        KT_CHECK_STR(label(cl, &cl->pods[i0].labels, "statefulset.kubernetes.io/pod-name"), "db-0");
        KT_CHECK_STR(label(cl, &cl->pods[i0].labels, "apps.kubernetes.io/pod-index"), "0");
        KT_CHECK_INT(cl->pods[i2].phase, KP_PHASE_PENDING);
        KT_CHECK((uint32_t)i2 >= cl->n_pods - 2); /* a new pod */
    }
    kp_cluster_free(cl);
    /* OrderedReady (the default), at one instant: db-0 is made and the set waits for it to be
     * Running and Ready; db-2 stays Failed */
    cl = load_ex(STS(""), KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 1);
    i2 = cl ? kp_cluster_find_pod(cl, "db-2") : -1;
    KT_CHECK(cl && kp_cluster_find_pod(cl, "db-0") >= 0 && i2 >= 0 &&
             cl->pods[i2].phase == KP_PHASE_FAILED);
    kp_cluster_free(cl);
#define CRON(spec, status)                                                            \
    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n"           \
    "spec:\n  schedule: '0 3 * * *'\n" spec                                           \
    "  jobTemplate: {spec: {parallelism: 2, template: {spec: {restartPolicy: Never, " \
    "containers: [{name: c}]}}}}\n" status
    const char *buf = CRON("", "");
    cl = load_ex(buf, KP_EXPAND_WORKLOADS, &err); /* not fired: a warning says so */
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 0 && kp_cluster_warning_count(cl) == 1);
    KT_CHECK_CONTAINS(cl ? kp_cluster_warning(cl, 0) : "", "1 CronJob(s) not expanded");
    kp_cluster_free(cl);
    cl = load_ex(buf, KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS, &err);
    /* the Job of its next scheduled time, named for it in minutes (getJobName): no pod has a
     * creationTimestamp, so t = 0 is the unix epoch and the next 03:00 is minute 180 */
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 2 &&
             count_prefix(cl, "default", "nightly-180-") == 2);
    kp_cluster_free(cl);
    buf = CRON("  concurrencyPolicy: Forbid\n", "status: {active: [{name: nightly-28000000}]}\n");
    cl = load_ex(buf, KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 0);
    kp_cluster_free(cl);
    buf = CRON("  suspend: true\n", "");
    cl = load_ex(buf, KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 0);
    kp_cluster_free(cl);
    /* a work-queue jobTemplate (parallelism, no completions) keeps nil completions */
    cl = load_ex(CRON("", ""), KP_WORKLOAD_TEMPLATES, &err);
    const kp_workload *cj = cl ? wl(cl, KP_WL_CRONJOB, "nightly") : NULL;
    KT_CHECK(cj && cj->job.parallelism == 2 && !cj->job.has_completions);
    kp_cluster_free(cl);
    /* no jobTemplate at all: firing it needs the template */
    KT_CHECK(!load_ex("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\n"
                      "spec: {schedule: '@daily'}\n",
                      KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS, &err));
    KT_CHECK_STR(err.msg, "CronJob default/c: spec.jobTemplate.spec.template: Required value: "
                          "expanding the workload needs its pod template");
}

KT_TEST(expansion_errors_name_the_workload) {
    kp_error err;
    KT_CHECK(!load_ex("---\napiVersion: apps/v1\nkind: List\nitems:\n"
                      "- {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: r}, spec: "
                      "{replicas: 2, selector: {matchLabels: {a: b}}}}\n",
                      KP_EXPAND_WORKLOADS, &err));
    KT_CHECK_STR(err.source, "in.yaml");
    KT_CHECK_STR(err.msg, "ReplicaSet default/r: spec.template: Required value: "
                          "expanding the workload needs its pod template");
    KT_CHECK(!load_ex("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                      "spec:\n  template: {spec: {priorityClassName: gold, containers: [{name: "
                      "c}]}}\n",
                      KP_EXPAND_WORKLOADS, &err));
    KT_CHECK_STR(err.msg, "Deployment default/web: spec.template.spec.priorityClassName: no "
                          "PriorityClass with name gold was found");
    /* without expansion the same inputs load */
    kp_cluster *cl = load_ex("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                             "spec:\n  template: {spec: {priorityClassName: gold, containers: "
                             "[{name: c}]}}\n",
                             0, &err);
    KT_CHECK(cl != NULL);
    kp_cluster_free(cl);
    /* set after a load: refused (the templates already loaded were not decoded) */
    cl = kp_cluster_new();
    const char *ns = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"}}";
    KT_CHECK(cl && kp_cluster_load_buffer(cl, "x", ns, strlen(ns), &err) == KP_OK);
    KT_CHECK(cl && kp_cluster_set_expand(cl, KP_EXPAND_WORKLOADS) == KP_EINVAL);
    kp_cluster_free(cl);
    /* replicas 0 needs no template */
    cl =
        load_ex("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {replicas: 0}\n",
                KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl != NULL);
    kp_cluster_free(cl);
}

/* ClaimPods: a pod without a controller is adopted by the first workload whose selector matches;
 * a Deployment's only through its ReplicaSets (their selectors add pod-template-hash). */
KT_TEST(orphans_are_adopted) {
#define ORPHAN(name, labels)                                                     \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", labels: " labels \
    "}\nspec: {containers: [{name: c}]}\nstatus: {phase: Running}\n"
    static const char *const rs =
        "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\n"
        "spec: {replicas: 3, selector: {matchLabels: {app: r}}, template: {metadata: {labels: "
        "{app: r}}, spec: {containers: [{name: c}]}}}\n" ORPHAN("r-a", "{app: r}")
            ORPHAN("r-b", "{app: other}");
    static const char *const dep =
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
        "spec: {replicas: 3, selector: {matchLabels: {app: d}}, template: {metadata: {labels: "
        "{app: d}}, spec: {containers: [{name: c}]}}}\n" ORPHAN("d-a", "{app: d}")
            ORPHAN("d-b", "{app: d, pod-template-hash: x1}");
    kp_error err;
    kp_cluster *cl = load_ex(rs, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 2); /* r-a counts, r-b does not */
    kp_cluster_free(cl);
    /* a Deployment adopts through its ReplicaSet, whose selector adds its own pod-template-hash:
     * neither d-a (no hash) nor d-b (another ReplicaSet's hash, x1) is the new ReplicaSet's */
    cl = load_ex(dep, KP_EXPAND_WORKLOADS, &err);
    KT_CHECK(cl && kp_cluster_expanded_pod_count(cl) == 3);
    kp_cluster_free(cl);
}

/* Every allocation failure during load + expansion + finalize ends in KP_OK with the same
 * model or in KP_ENOMEM with a message (LeakSanitizer checks the frees in the ASan build). */
static kp_status sweep_one(const char *text, unsigned flags, size_t *pods, size_t *warns,
                           kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (!cl) return kp_error_set(err, KP_ENOMEM, "kp_cluster_new: NULL");
    kp_cluster_set_expand(cl, flags);
    kp_status st = kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, err);
    if (st == KP_OK) st = kp_ctrl_expand(cl, err);
    *pods = kp_cluster_pod_count(cl);
    *warns = kp_cluster_warning_count(cl);
    kp_cluster_free(cl);
    return st;
}

KT_TEST(allocation_failures_reach_the_caller) {
    static char text[16384];
    snprintf(text, sizeof text, "%s%s%s", DEPLOY, DAEMONS,
             "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: b}\n"
             "spec: {parallelism: 2, completions: 3, completionMode: Indexed,"
             " template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}\n"
             "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"
             "spec: {replicas: 2, template: {spec: {containers: [{name: c}]}}}\n");
    kp_error err;
    size_t pods = 0, warns = 0, p, w;
    unsigned long before = kp__alloc_count();
    KT_CHECK_INT(sweep_one(text, KP_EXPAND_WORKLOADS, &pods, &warns, &err), KP_OK);
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK(pods > 10);
    KT_CHECK(total > 20); /* the sweep below covers every allocation */
    for (int sticky = 0; sticky < 2; sticky++)
        for (unsigned long n = 0; n < total; n++) {
            kp__alloc_fail_after((long)n, sticky != 0);
            kp_status st = sweep_one(text, KP_EXPAND_WORKLOADS, &p, &w, &err);
            kp__alloc_fail_after(-1, false);
            if (st == KP_OK) {
                if (p != pods || w != warns) fprintf(stderr, "  after %lu: model differs\n", n);
                KT_CHECK(p == pods && w == warns);
            } else {
                if (st != KP_ENOMEM || !err.msg[0])
                    fprintf(stderr, "  after %lu: %s: %s\n", n, kp_status_str(st), err.msg);
                KT_CHECK(st == KP_ENOMEM && err.msg[0]);
            }
        }
}

KT_MAIN(KT_CASE(decodes_every_kind), KT_CASE(decode_errors),
        KT_CASE(deployment_minus_existing_pods), KT_CASE(daemonset_one_pod_per_eligible_node),
        KT_CASE(job_parallelism_and_completions), KT_CASE(statefulset_ordinals_and_cronjobs),
        KT_CASE(expansion_errors_name_the_workload), KT_CASE(orphans_are_adopted),
        KT_CASE(allocation_failures_reach_the_caller))
