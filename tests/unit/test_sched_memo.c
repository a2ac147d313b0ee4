/* The simulator's performance items in the scheduler (issue 11 "Performance"): the failed-attempt
 * memo (src/sched/memo.c) against every attempt in full (kp_sched.no_memo) on randomised
 * clusters whose pending pods repeat a few shapes (tolerations, cordoned and tainted nodes, full
 * nodes, preemptionPolicy Never, nominations, node selectors), and kp_sched_sync catching up
 * with created pods and tainted / cordoned nodes without a rebuild (src/sched/mutate.c) against
 * a scheduler built after the same changes. */
#include "core/cluster.h"
#include "test_sched_util.h"
#include "text_buf.h"


/* A cluster: nodes (some tainted, cordoned or with room for few pods), bound pods of three
 * priorities (some without startTime), and pending pods drawn from a few shapes. */
static char *gen_cluster(uint64_t seed) {
    rng = seed * 2654435761u + 7;
    sbuf b = {0};
    put(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    static const char *const cls[] = {"low", "mid", "high"};
    static const int vals[] = {0, 100, 1000};
    for (int i = 0; i < 3; i++)
        put(&b,
            "%s{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
            "\"metadata\":{\"name\":\"%s\"},\"value\":%d}",
            i ? "," : "", cls[i], vals[i]);
    uint32_t nn = 4 + rnd(20);
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t kind = rnd(8);
        put(&b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n%u\","
            "\"labels\":{\"kubernetes.io/hostname\":\"n%u\",\"topology.kubernetes.io/zone\":"
            "\"z%u\"}},\"spec\":{%s%s},\"status\":{\"allocatable\":{\"cpu\":\"%u\","
            "\"memory\":\"8Gi\",\"pods\":\"%u\"}}}",
            n, n, n % 3, kind == 0 ? "\"unschedulable\":true" : "",
            kind == 1 ? "\"taints\":[{\"key\":\"dedicated\",\"value\":\"x\",\"effect\":"
                        "\"NoSchedule\"}]"
                      : "",
            2 + rnd(4), kind == 2 ? 2 : 20);
    }
    uint32_t np = nn * 2 + rnd(nn * 2);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t c = rnd(3);
        put(&b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b%u\","
            "\"namespace\":\"ns%u\",\"uid\":\"b%u\"},\"spec\":{\"nodeName\":\"n%u\","
            "\"priorityClassName\":\"%s\",\"priority\":%d,\"containers\":[{\"name\":\"c\","
            "\"resources\":{\"requests\":{\"cpu\":\"%um\"}}}]},\"status\":{\"phase\":"
            "\"Running\"%s}}",
            i, i % 2, i, rnd(nn), cls[c], vals[c], 250 * (1 + rnd(4)),
            rnd(3) ? ",\"startTime\":\"2026-01-01T00:00:00Z\"" : "");
    }
    uint32_t nq = 10 + rnd(40);
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t shape = rnd(6), c = rnd(3);
        put(&b,
            ",{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"q%u\","
            "\"namespace\":\"ns%u\",\"uid\":\"q%u\",\"creationTimestamp\":"
            "\"2026-01-01T00:00:%02uZ\"},\"spec\":{\"priorityClassName\":\"%s\","
            "\"priority\":%d%s%s%s,\"containers\":[{\"name\":\"c\",\"resources\":{"
            "\"requests\":{\"cpu\":\"%um\"}}}]}%s}",
            i, i % 2, i, i % 60, cls[c], vals[c],
            shape == 1 ? ",\"preemptionPolicy\":\"Never\"" : "",
            shape == 2 ? ",\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Exists\"}]" : "",
            shape == 3 ? ",\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"z1\"}" : "",
            500 * (1 + rnd(4)), shape == 4 ? ",\"status\":{\"nominatedNodeName\":\"n0\"}" : "");
    }
    put(&b, "]}");
    return b.buf;
}

static void check_same_results(const kp_sched *a, const kp_sched *b) {
    KT_CHECK_INT(a->n_res, b->n_res);
    for (uint32_t i = 0; i < a->n_res && i < b->n_res; i++) {
        KT_CHECK_INT(a->res[i].pub.pod, b->res[i].pub.pod);
        KT_CHECK_INT(a->res[i].pub.outcome, b->res[i].pub.outcome);
        KT_CHECK_INT(a->res[i].pub.node, b->res[i].pub.node);
        KT_CHECK_INT(a->res[i].pub.nominated_node, b->res[i].pub.nominated_node);
        KT_CHECK_INT(a->res[i].pub.n_victims, b->res[i].pub.n_victims);
        KT_CHECK_INT(a->res[i].attempts, b->res[i].attempts);
        KT_CHECK_STR(a->res[i].pub.message, b->res[i].pub.message);
    }
}

/* Whole runs (until settled: pods attempted again after each change) with the memo and without
 * it decide the same, leave the PRNG and nextStartNodeIndex in the same state, and the memo is
 * used. */
KT_TEST(memo_replays_equal_full_attempts) {
    uint64_t hits = 0;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        char *y = gen_cluster(seed);
        kp_cluster *c1 = ts_load(y), *c2 = ts_load(y);
        KT_CHECK(c1 && c2);
        kp_sched *s1 = NULL, *s2 = NULL;
        if (c1 && c2) {
            kp_sched_options o;
            kp_sched_options_init(&o);
            o.seed = seed;
            o.until_settled = seed % 2 == 0;
            kp_error err;
            KT_CHECK_INT(kp_sched_new(c1, NULL, &o, &s1, &err), KP_OK);
            KT_CHECK_INT(kp_sched_new(c2, NULL, &o, &s2, &err), KP_OK);
        }
        if (s1 && s2) {
            s2->no_memo = true;
            kp_error err;
            KT_CHECK_INT(kp_sched_run(s1, &err), KP_OK);
            KT_CHECK_INT(kp_sched_run(s2, &err), KP_OK);
            check_same_results(s1, s2);
            KT_CHECK(memcmp(&s1->prng, &s2->prng, sizeof s1->prng) == 0);
            KT_CHECK_INT(s1->next_start, s2->next_start);
            KT_CHECK_INT(s2->memo_hits, 0);
            hits += s1->memo_hits;
        }
        kp_sched_free(s1);
        kp_sched_free(s2);
        kp_cluster_free(c1);
        kp_cluster_free(c2);
        free(y);
    }
    KT_CHECK(hits > 100);
}

/* The same changes on two copies of a cluster: new pods like the pending ones, a node tainted
 * and one cordoned. Copy 1's scheduler was built before them and catches up in place (no
 * rebuild); copy 2's is built after them. Every new pod is decided the same; a deleted node then
 * makes copy 1's rebuild, and so does a move of gen_struct that no known change explains. */
static void mutate(kp_cluster *cl, uint32_t first_pending, uint32_t n_new, kp_index *made) {
    kp_error err;
    for (uint32_t i = 0; i < n_new; i++) {
        char name[32];
        snprintf(name, sizeof name, "new-%u", i);
        KT_CHECK_INT(kp_cluster_create_pod(cl, -1, (kp_index)(first_pending + i % 5), name, 0,
                                           &made[i], &err),
                     KP_OK);
    }
    KT_CHECK_INT(kp_cluster_node_taint(cl, 1, "pressure", "", "NoSchedule", &err), KP_OK);
    KT_CHECK_INT(kp_cluster_node_set_unschedulable(cl, 2, true, &err), KP_OK);
}

KT_TEST(created_pods_and_node_taints_caught_up_in_place) {
    for (uint64_t seed = 1; seed <= 60; seed++) {
        char *y = gen_cluster(seed);
        kp_cluster *c1 = ts_load(y), *c2 = ts_load(y);
        KT_CHECK(c1 && c2);
        if (!c1 || !c2) {
            free(y);
            continue;
        }
        uint32_t first = 0;
        while (first < c1->n_pods && c1->pods[first].node >= 0) first++;
        kp_sched *s1 = ts_sched(c1, NULL, seed);
        kp_index made1[12], made2[12];
        mutate(c1, first, 12, made1);
        mutate(c2, first, 12, made2);
        kp_sched *s2 = ts_sched(c2, NULL, seed);
        kp_error err;
        for (uint32_t i = 0; s1 && s2 && i < 12; i++) {
            KT_CHECK_INT(made1[i], made2[i]);
            KT_CHECK_INT(kp_sched_schedule_one(s1, made1[i], &err), KP_OK);
            KT_CHECK_INT(kp_sched_schedule_one(s2, made2[i], &err), KP_OK);
        }
        if (s1 && s2) {
            check_same_results(s1, s2);
            KT_CHECK_INT(s1->n_rebuilds, 0);
            KT_CHECK_INT(kp_cluster_delete_node(c1, 0, &err), KP_OK);
            KT_CHECK_INT(kp_sched_schedule_one(s1, made1[0], &err), KP_OK);
            KT_CHECK_INT(s1->n_rebuilds, 1);
            c1->gen_struct++; /* a change of a kind the catch-up does not know: rebuild */
            KT_CHECK_INT(kp_sched_schedule_one(s1, made1[1], &err), KP_OK);
            KT_CHECK_INT(s1->n_rebuilds, 2);
        }
        kp_sched_free(s1);
        kp_sched_free(s2);
        kp_cluster_free(c1);
        kp_cluster_free(c2);
        free(y);
    }
}

KT_MAIN(KT_CASE(memo_replays_equal_full_attempts),
        KT_CASE(created_pods_and_node_taints_caught_up_in_place))
