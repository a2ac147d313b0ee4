/* Several profiles in one scheduler (pkg/scheduler/scheduler.go Profiles and frameworkForPod,
 * profile.NewMap, and the profile checks of ValidateKubeSchedulerConfiguration /
 * validateCommonQueueSort in pkg/scheduler/apis/config/validation, after validation_test.go's
 * "duplicate-profiles" and "different-queue-sort" cases): one queue in priority order over every
 * profile's pods, each pod run by its own profile, bindings visible across profiles. */
#include "core/cluster.h"
#include "core/pod.h"
#include "core/sched_config.h"
#include "kprio/preempt.h"
#include "test_sched_util.h"

#define CFG_HDR "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
/* default-scheduler (defaults) and binpack (MostAllocated, ImageLocality and the PreEnqueue
 * SchedulingGates disabled) */
#define TWO_PROFILES                                                                           \
    CFG_HDR "profiles:\n- schedulerName: default-scheduler\n- schedulerName: binpack\n"        \
            "  plugins:\n    score:\n      disabled: [{name: ImageLocality}]\n"                \
            "    preEnqueue:\n      disabled: [{name: SchedulingGates}]\n"                     \
            "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n" \
            "        type: MostAllocated\n        resources: [{name: cpu, weight: 1}, {name: " \
            "memory, weight: 1}]\n"

#define NODE(name, cpu)                                                                 \
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: " name                           \
    ", labels: {kubernetes.io/hostname: " name "}}\nstatus: {allocatable: {cpu: \"" cpu \
    "\", memory: 8Gi, pods: \"32\"}}\n"
#define POD(name, ts, extra, cpu)                                                                \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: default, "            \
    "creationTimestamp: \"2026-01-01T00:00:0" ts "Z\"}\nspec: {" extra "containers: [{name: c, " \
    "resources: {requests: {cpu: \"" cpu "\", memory: 1Gi}}}]}\n"

KT_TEST(config_keeps_every_profile) {
    kp_sched_config *c = NULL;
    kp_error err;
    const char *y = TWO_PROFILES;
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y, strlen(y), NULL, &c, &err), KP_OK);
    if (!c) return;
    KT_CHECK_STR(c->scheduler_name, "default-scheduler");
    KT_CHECK_INT(c->strategy, KP_STRAT_LEAST);
    KT_CHECK_INT(c->n_more, 1);
    if (c->n_more == 1) {
        const kp_sched_config *b = &c->more[0];
        KT_CHECK_STR(b->scheduler_name, "binpack");
        KT_CHECK_INT(b->strategy, KP_STRAT_MOST);
        KT_CHECK_INT(b->n_score, c->n_score - 1); /* ImageLocality disabled */
        KT_CHECK(!b->preenqueue_gates && c->preenqueue_gates);
        KT_CHECK(b->more == NULL);
    }
    kp_sched_config_free(c);
    /* a name keeps that profile only */
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", y, strlen(y), "binpack", &c, &err), KP_OK);
    if (c) {
        KT_CHECK_STR(c->scheduler_name, "binpack");
        KT_CHECK_INT(c->n_more, 0);
    }
    kp_sched_config_free(c);
}

KT_TEST(config_profile_validation) {
    kp_sched_config *c = NULL;
    kp_error err;
    /* validation_test.go "duplicate-profiles" */
    const char *dup = CFG_HDR "profiles:\n- schedulerName: me\n- schedulerName: other\n"
                              "- schedulerName: me\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", dup, strlen(dup), NULL, &c, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "profiles[2].schedulerName: duplicate value \"me\" (profiles[0]");
    /* "different-queue-sort": the second profile names a queue sort the first does not */
    const char *qs = CFG_HDR "profiles:\n- schedulerName: me\n- schedulerName: other\n  plugins:\n"
                             "    queueSort:\n      enabled: [{name: PrioritySort}]\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", qs, strlen(qs), NULL, &c, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "profiles[1].plugins.queueSort: has to match for all profiles");
    /* the same sets are fine */
    const char *same =
        CFG_HDR "profiles:\n- schedulerName: me\n  plugins:\n    queueSort:\n"
                "      enabled: [{name: PrioritySort}]\n- schedulerName: other\n"
                "  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}]\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", same, strlen(same), NULL, &c, &err), KP_OK);
    kp_sched_config_free(c);
    c = NULL;
    /* a name is defaulted only for a lone profile */
    const char *req = CFG_HDR "profiles:\n- schedulerName: me\n- percentageOfNodesToScore: 5\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", req, strlen(req), NULL, &c, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "profiles[1].schedulerName: required");
    /* every profile is validated, also when a name keeps only another one */
    const char *bad = CFG_HDR "profiles:\n- schedulerName: me\n- schedulerName: other\n  plugins:\n"
                              "    filter:\n      enabled: [{name: Nope}]\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", bad, strlen(bad), "me", &c, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "profiles[1].plugins.filter.enabled[0].name");
    KT_CHECK(c == NULL);
    /* a lone profile without a name is default-scheduler's, not any name's */
    const char *lone = CFG_HDR "profiles:\n- percentageOfNodesToScore: 5\n";
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", lone, strlen(lone), "foo", &c, &err),
                 KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "no profile has schedulerName \"foo\"");
    KT_CHECK_INT(
        kp_sched_config_load_buffer("s.yaml", lone, strlen(lone), "default-scheduler", &c, &err),
        KP_OK);
    kp_sched_config_free(c);
}

/* One queue: binpack's batch (priority 500) is popped between the default pods web (1000) and
 * late (100), takes the room late would have had, and late, whose only victim candidate has a
 * higher priority, stays unschedulable. pack is scored by binpack's MostAllocated. A
 * gated pod of binpack (SchedulingGates off there) is scheduled; one of default-scheduler is not;
 * a pod of another scheduler is left alone. */
KT_TEST(one_queue_every_profile) {
    const char *y = NODE("n1", "4") NODE("n2", "8") POD("web", "1", "priority: 1000, ", "6")
        POD("batch", "2", "schedulerName: binpack, priority: 500, ", "3")
            POD("late", "3", "priority: 100, ", "3")
                POD("pack", "4", "schedulerName: binpack, priority: 50, ", "1")
                    POD("gated-b", "5",
                        "schedulerName: binpack, priority: 40, schedulingGates: [{name: g}], ", "1")
                        POD("gated-d", "6", "priority: 40, schedulingGates: [{name: g}], ", "1")
                            POD("stray", "7", "schedulerName: other, priority: 9000, ", "1");
    kp_cluster *cl = ts_load(y);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    kp_sched *s = ts_sched(cl, TWO_PROFILES, 0);
    KT_CHECK(s != NULL);
    if (!s) {
        kp_cluster_free(cl);
        return;
    }
    kp_error err;
    KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
    KT_CHECK_INT(kp_sched_profile_count(s), 2);
    KT_CHECK_STR(kp_sched_profile_name(s, 1), "binpack");
    static const char *const order[] = {"default/web",  "default/batch",   "default/late",
                                        "default/pack", "default/gated-b", "default/gated-d"};
    static const char *const prof[] = {"default-scheduler", "binpack", "default-scheduler",
                                       "binpack",           "binpack", "default-scheduler"};
    KT_CHECK_INT(kp_sched_result_count(s), 6);
    for (size_t i = 0; i < 6 && i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        KT_CHECK_INT(r->pod, kp_cluster_find_pod(cl, order[i]));
        KT_CHECK_STR(r->scheduler_name, prof[i]);
    }
    KT_CHECK_STR(ts_node_of(s, "default/web"), "n2");
    KT_CHECK_STR(ts_node_of(s, "default/batch"), "n1");
    const kp_sched_pod_result *late = ts_result(s, "default/late");
    KT_CHECK(late && late->outcome == KP_OUTCOME_UNSCHEDULABLE);
    /* binpack's MostAllocated: n1 (3 + 1 of 4 cpu) is fuller than n2 (6 + 1 of 8); the default
     * profile's LeastAllocated would pick n2 */
    KT_CHECK_STR(ts_node_of(s, "default/pack"), "n1");
    const kp_sched_pod_result *gb = ts_result(s, "default/gated-b");
    const kp_sched_pod_result *gd = ts_result(s, "default/gated-d");
    KT_CHECK(gb && gb->outcome == KP_OUTCOME_BOUND);
    KT_CHECK(gd && gd->outcome == KP_OUTCOME_GATED);
    KT_CHECK(ts_result(s, "default/stray") == NULL);
    kp_sched_free(s);
    kp_cluster_free(cl);
}

/* kp_sched_options.scheduler_name keeps one profile of several; an unknown name is an error. */
KT_TEST(options_name_filters_profiles) {
    const char *y = NODE("n1", "4") POD("web", "1", "priority: 1000, ", "1")
        POD("batch", "2", "schedulerName: binpack, priority: 500, ", "1");
    kp_cluster *cl = ts_load(y);
    if (!cl) return;
    kp_sched_config *cfg = NULL;
    kp_error err;
    KT_CHECK_INT(
        kp_sched_config_load_buffer("s.yaml", TWO_PROFILES, strlen(TWO_PROFILES), NULL, &cfg, &err),
        KP_OK);
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.scheduler_name = "binpack";
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(cl, cfg, &o, &s, &err), KP_OK);
    if (s) {
        KT_CHECK_INT(kp_sched_profile_count(s), 1);
        KT_CHECK_INT(kp_sched_run(s, &err), KP_OK);
        KT_CHECK_INT(kp_sched_result_count(s), 1);
        KT_CHECK_STR(ts_node_of(s, "default/batch"), "n1");
    }
    kp_sched_free(s);
    s = NULL;
    o.scheduler_name = "nope";
    KT_CHECK_INT(kp_sched_new(cl, cfg, &o, &s, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "no profile has schedulerName \"nope\"");
    kp_sched_config_free(cfg);
    kp_cluster_free(cl);
}

/* kp_preemption_new runs the preemptor's profile: "loose" has no TaintToleration filter, so the
 * tainted node is a candidate for its pod; the same pod under default-scheduler finds none. */
KT_TEST(preemption_uses_the_preemptors_profile) {
    const char *y =
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, value: "
        "v, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: \"2\", memory: 8Gi, pods: "
        "\"32\"}}\n" POD("low", "1", "nodeName: n1, priority: 1, ", "2")
            POD("loose-pod", "2", "schedulerName: loose, priority: 100, ", "2")
                POD("default-pod", "3", "priority: 100, ", "2");
    const char *cfg_y = CFG_HDR "profiles:\n- schedulerName: default-scheduler\n- schedulerName: "
                                "loose\n  plugins:\n    filter:\n      disabled: [{name: "
                                "TaintToleration}]\n";
    kp_cluster *cl = ts_load(y);
    if (!cl) return;
    kp_sched_config *cfg = NULL;
    kp_error err;
    KT_CHECK_INT(kp_sched_config_load_buffer("s.yaml", cfg_y, strlen(cfg_y), NULL, &cfg, &err),
                 KP_OK);
    kp_preempt_options o;
    kp_preempt_options_init(&o);
    o.config = cfg;
    kp_preemption *p = NULL;
    KT_CHECK_INT(kp_preemption_new(cl, kp_cluster_find_pod(cl, "default/loose-pod"), &o, &p, &err),
                 KP_OK);
    KT_CHECK(p && kp_preemption_outcome(p) == KP_PREEMPTION_NOMINATED);
    kp_preemption_free(p);
    p = NULL;
    KT_CHECK_INT(
        kp_preemption_new(cl, kp_cluster_find_pod(cl, "default/default-pod"), &o, &p, &err), KP_OK);
    KT_CHECK(p && kp_preemption_outcome(p) == KP_PREEMPTION_NO_CANDIDATES);
    kp_preemption_free(p);
    kp_sched_config_free(cfg);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(config_keeps_every_profile), KT_CASE(config_profile_validation),
        KT_CASE(one_queue_every_profile), KT_CASE(options_name_filters_profiles),
        KT_CASE(preemption_uses_the_preemptors_profile))
