/* Seeded property suite on randomised clusters (resources, priorities, start times, labels,
 * PDBs). For every cluster: the three victim-selection paths agree and leave the cluster intact
 * (tp_run), and on the chosen node
 *  - the preemptor fits once the victims are gone (real Filter);
 *  - every victim has strictly lower priority than the preemptor;
 *  - no victim could have been spared: putting any single victim back makes Filter fail
 *    (resources are monotone, so greedy reprieve in any upstream order leaves no spare victim);
 *  - the PDB violation count, recomputed independently from the PDB statuses, agrees. */
#include "harness.h"
#include "test_preempt_util.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

static const int prios[4] = {-100, 0, 100, 1000};

static void random_cluster(int *n_nodes_out) {
    tp_begin();
    int n_nodes = 2 + (int)rnd(5);
    *n_nodes_out = n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        char n[16];
        snprintf(n, sizeof n, "node%d", i);
        tp_node(n, "1000m", "1000", 4 + (int)rnd(4), NULL);
        int used = 0, k = (int)rnd(6);
        for (int j = 0; j < k; j++) {
            int cpu = 50 + 50 * (int)rnd(6);
            if (used + cpu > 1000) break;
            used += cpu;
            char pn[32], cs[16];
            snprintf(pn, sizeof pn, "q%d-%d", i, j);
            snprintf(cs, sizeof cs, "%dm", cpu);
            int lab = (int)rnd(3);
            tp_pod(pn, n, prios[rnd(4)], cs, "10", rnd(4) ? (int)rnd(5) : -1,
                   lab == 0 ? "{app: a}" : lab == 1 ? "{app: b}" : NULL);
        }
    }
    if (rnd(2)) tp_pdb("pdb-a", "{app: a}", (int)rnd(3), NULL);
    if (rnd(2)) tp_pdb("pdb-b", "{app: b}", (int)rnd(2), rnd(3) ? NULL : "q0-1");
    char cs[16];
    snprintf(cs, sizeof cs, "%dm", 300 + 100 * (int)rnd(6));
    tp_pod("p", NULL, 100 + 900 * (int)rnd(2), cs, "10", -1, NULL);
}

static bool is_victim(const kp_preempt_result *r, uint32_t pod) {
    for (uint32_t i = 0; i < r->n_victims; i++)
        if (r->victims[i] == pod) return true;
    return false;
}

/* Independent MoreImportant key compare (priority desc, start asc, uid asc; nil start = +inf). */
static bool more_imp(const kp_cluster *cl, uint32_t a, uint32_t b) {
    const kp_pod *x = &cl->pods[a], *y = &cl->pods[b];
    if (x->priority != y->priority) return x->priority > y->priority;
    int64_t tx = x->start_time == KP_TIME_NONE ? INT64_MAX : x->start_time;
    int64_t ty = y->start_time == KP_TIME_NONE ? INT64_MAX : y->start_time;
    if (tx != ty) return tx < ty;
    return strcmp(kp__s(cl, x->uid), kp__s(cl, y->uid)) < 0;
}

static int recount_pdb(const kp_cluster *cl, uint32_t node, int32_t prio, const kp_preempt_result *r) {
    const kp_node *nd = &cl->nodes[node];
    uint32_t pot[64], n = 0;
    for (uint32_t i = 0; i < nd->n_pods && n < 64; i++)
        if (cl->pods[nd->pods[i]].priority < prio) pot[n++] = nd->pods[i];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (more_imp(cl, pot[j], pot[i])) {
                uint32_t t = pot[i];
                pot[i] = pot[j];
                pot[j] = t;
            }
    int32_t allowed[8] = {0};
    for (uint32_t k = 0; k < cl->n_pdbs && k < 8; k++) allowed[k] = cl->pdbs[k].disruptions_allowed;
    int count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const kp_pod *p = &cl->pods[pot[i]];
        bool viol = false;
        for (uint32_t k = 0; k < cl->n_pdbs && k < 8 && !viol && p->labels.n; k++) {
            const kp_pdb *b = &cl->pdbs[k];
            if (!kp__selector_matches(cl, &b->selector, &p->labels)) continue;
            bool disrupted = false;
            for (uint32_t d = 0; d < b->n_disrupted; d++) disrupted |= b->disrupted[d] == p->name;
            if (disrupted) continue;
            if (--allowed[k] < 0) viol = true;
        }
        if (viol && is_victim(r, pot[i])) count++;
    }
    return count;
}

KT_TEST(property_random_clusters) {
    rng_state = 20240601;
    int nominated = 0;
    for (int iter = 0; iter < 150; iter++) {
        int n_nodes = 0;
        random_cluster(&n_nodes);
        tp_res res;
        tp_run(NULL, NULL, &res); /* three paths agree, cluster untouched */
        if (!tp_cl) continue;
        KT_CHECK(tp_new_sched(NULL));
        uint32_t pod = (uint32_t)kp_cluster_find_pod(tp_cl, "default/p");
        kp_preempt_result r;
        KT_CHECK_INT(tp_attempt(pod, NULL, 0, &r, NULL), KP_OK);
        if (r.outcome == KP_PREEMPT_NOMINATED) {
            nominated++;
            uint32_t node = (uint32_t)r.node;
            int32_t prio = tp_cl->pods[pod].priority;
            for (uint32_t i = 0; i < r.n_victims; i++)
                KT_CHECK(tp_cl->pods[r.victims[i]].priority < prio);
            KT_CHECK_INT(recount_pdb(tp_cl, node, prio, &r), r.pdb_violations);
            kp_node_status pre;
            kp_cycle *c = kp__cycle_new(tp_s, pod, &pre);
            for (uint32_t i = 0; i < r.n_victims; i++) {
                kp__node_remove_pod(tp_cl, r.victims[i]);
                kp__cycle_remove_pod(c, r.victims[i], node);
            }
            kp_node_status st;
            kp__cycle_filter(c, node, &st);
            KT_CHECK_INT(st.code, KP_CODE_SUCCESS);
            for (uint32_t i = 0; i < r.n_victims; i++) {
                kp__node_add_pod(tp_cl, node, r.victims[i]);
                kp__cycle_add_pod(c, r.victims[i], node);
                kp__cycle_filter(c, node, &st);
                KT_CHECK(st.code != KP_CODE_SUCCESS); /* could not have been spared */
                kp__node_remove_pod(tp_cl, r.victims[i]);
                kp__cycle_remove_pod(c, r.victims[i], node);
            }
            for (uint32_t i = 0; i < r.n_victims; i++) {
                kp__node_add_pod(tp_cl, node, r.victims[i]);
                kp__cycle_add_pod(c, r.victims[i], node);
            }
            kp__cycle_free(c);
        }
        kp__preempt_result_fini(&r);
        tp_end();
    }
    KT_CHECK(nominated > 30); /* the generator exercises the interesting path */
}

KT_MAIN(KT_CASE(property_random_clusters))
