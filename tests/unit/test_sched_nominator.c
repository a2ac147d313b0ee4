/* The nominator's per-node aggregates (nominator.c): after any sequence of nominations, moves and
 * clears, kp__sched_nominated_sum gives what addGENominatedPods' walk over the node's nominated
 * pods gives (count and summed requests of the pods of priority >= p other than the pod itself),
 * and a node with more than 256 nominated pods still reserves every one. */
#include "core/cluster.h"
#include "core/pod.h"
#include "core/resources.h"
#include "harness.h"
#include "test_preempt_util.h"

static uint64_t rng_state = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* The walk the aggregates replace (kp__cycle_filter's loop before them). */
static uint32_t walk(uint32_t node, int32_t prio, uint32_t self, int64_t *sum) {
    memset(sum, 0, KP_MAX_RES * sizeof *sum);
    const uint32_t *l = NULL;
    uint32_t n = kp__sched_nominated_on(tp_s, node, &l), count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const kp_pod *q = &tp_cl->pods[l[i]];
        if (l[i] == self || q->priority < prio) continue;
        count++;
        for (uint32_t r = 0; r < tp_cl->n_res; r++) sum[r] += kp__resv_get(&q->req, (int)r);
    }
    return count;
}

/* npri distinct priorities among the pending pods: with more than the node's inline groups
 * (KP_NOM_INLINE, 4) a node's groups move to their own block and back as pods come and go. */
static void sums_match_the_walk(int npri) {
    tp_begin();
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "node%d", i);
        tp_node(name, "64", "64Gi", 500, NULL);
    }
    for (int j = 0; j < 60; j++) {
        char name[16], cpu[16], mem[16];
        snprintf(name, sizeof name, "q%02d", j);
        snprintf(cpu, sizeof cpu, "%dm", 10 + j * 7);
        snprintf(mem, sizeof mem, "%dMi", 1 + j % 5);
        tp_pod(name, NULL, (j % npri) * 100 - 100, cpu, j % 6 ? mem : NULL, -1, NULL);
    }
    KT_CHECK(tp_load() && tp_new_sched(NULL));
    if (!tp_s) return;
    for (int step = 0; step < 3000; step++) {
        uint32_t pod = rnd(tp_cl->n_pods);
        int32_t node = (int32_t)rnd(5) - 1; /* -1 clears */
        KT_CHECK_INT(kp__sched_nominate(tp_s, pod, node), KP_OK);
        uint32_t nd = rnd(4), self = rnd(3) ? rnd(tp_cl->n_pods) : UINT32_MAX;
        int32_t prio = (int32_t)rnd((uint32_t)npri + 1) * 100 - 200;
        int64_t a[KP_MAX_RES], b[KP_MAX_RES];
        uint32_t na = kp__sched_nominated_sum(tp_s, nd, prio, self, a);
        uint32_t nb = walk(nd, prio, self, b);
        KT_CHECK_INT(na, nb);
        for (uint32_t r = 0; r < tp_cl->n_res; r++) KT_CHECK(a[r] == b[r]);
    }
    tp_end();
}

KT_TEST(nominated_sums_match_the_walk) { sums_match_the_walk(4); }

KT_TEST(nominated_sums_many_priorities) { sums_match_the_walk(9); }

KT_MAIN(KT_CASE(nominated_sums_match_the_walk), KT_CASE(nominated_sums_many_priorities))
