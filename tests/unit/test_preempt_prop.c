/* Seeded property suite on randomised clusters (resources, priorities, start times, labels,
 * PDBs). For every cluster: the three victim-selection paths agree and leave the cluster intact
 * (tp_run), and on the chosen node
 *  - the preemptor fits once the victims are gone (real Filter);
 *  - every victim has strictly lower priority than the preemptor;
 *  - no victim could have been spared: putting any single victim back makes Filter fail
 *    (resources are monotone, so greedy reprieve in any upstream order leaves no spare victim);
 *  - the PDB violation count, recomputed independently from the PDB statuses, agrees. */
#include "core/cluster.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/selector.h"
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
                   lab == 0   ? "{app: a}"
                   : lab == 1 ? "{app: b}"
                              : NULL);
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

static int recount_pdb(const kp_cluster *cl, uint32_t node, int32_t prio,
                       const kp_preempt_result *r) {
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

/* ---- replica-shaped clusters: the run-length path, lazy victim lists, compact codes and the
 * per-scheduler cache across attempts, against the reference path ---- */

/* One PostFilter without explain (lazy victim lists on the fast path); the fast path also gets
 * the compact status codes. Result rendered as "node|victims|violations|message". */
static void attempt_plain(kp_sched *s, uint32_t pod, bool reference, int64_t offset, char *out,
                          size_t cap) {
    kp_error err;
    kp_error_clear(&err);
    uint32_t nn = tp_cl->n_nodes;
    kp_node_status *st = calloc(nn + 1, sizeof *st);
    uint8_t *codes = calloc(nn + 1, 1);
    kp_node_status pre;
    kp__status_reset(&pre);
    kp_cycle *c = kp__cycle_new(s, pod, &pre);
    for (uint32_t i = 0; i < nn; i++) {
        if (pre.code != KP_CODE_SUCCESS) st[i] = pre;
        else kp__cycle_filter(c, i, &st[i]);
        codes[i] = kp__preempt_status_code(&st[i]);
    }
    kp_preempt_opts po;
    kp__preempt_opts_default(&po);
    po.offset = offset;
    po.tie = 0;
    po.reference = reference;
    if (!reference) po.codes = codes;
    kp_preempt_result r;
    KT_CHECK_INT(kp__preempt_postfilter_ex(s, c, pod, st, false, &po, &r, &err), KP_OK);
    char names[512];
    tp_names(tp_cl, r.victims, r.n_victims, names, sizeof names);
    snprintf(out, cap, "%d|%s|%d|%s", r.node, names, r.pdb_violations, r.message);
    kp__preempt_result_fini(&r);
    kp__cycle_free(c);
    free(codes);
    free(st);
}

static kp_sched *plain_sched(void) {
    kp_error err;
    kp_error_clear(&err);
    kp_sched_options so;
    kp_sched_options_init(&so);
    so.seed = 1;
    kp_sched *s = NULL;
    KT_CHECK_INT(kp_sched_new(tp_cl, NULL, &so, &s, &err), KP_OK);
    return s;
}

static void replica_cluster(void) {
    static const char *const cpus[3] = {"50m", "100m", "150m"}, *const mems[2] = {"10", "20"};
    tp_begin();
    int n_nodes = 2 + (int)rnd(19); /* past 8 and 16: the codes are counted 8 at a time */
    int tpl_prio[4], tpl_cpu[4], tpl_mem[4];
    for (int t = 0; t < 4; t++) {
        tpl_prio[t] = prios[rnd(4)];
        tpl_cpu[t] = (int)rnd(3);
        tpl_mem[t] = (int)rnd(2);
    }
    for (int i = 0; i < n_nodes; i++) {
        char n[16];
        snprintf(n, sizeof n, "node%d", i);
        tp_node(n, "1000m", "200", 4 + (int)rnd(9), NULL);
        int k = (int)rnd(11);
        for (int j = 0; j < k; j++) {
            int t = (int)rnd(rnd(2) ? 2 : 4); /* mostly two templates: long runs */
            char pn[32];
            snprintf(pn, sizeof pn, "q%d-%d", i, j);
            tp_pod(pn, n, tpl_prio[t], cpus[tpl_cpu[t]], mems[tpl_mem[t]],
                   rnd(4) ? (int)rnd(50) : -1, NULL);
        }
    }
    char cs[16], ms[16];
    snprintf(cs, sizeof cs, "%dm", 200 + 100 * (int)rnd(8));
    snprintf(ms, sizeof ms, "%d", rnd(3) ? 10 : 60 + 20 * (int)rnd(4));
    tp_pod("p", NULL, 100 + 900 * (int)rnd(2), cs, ms, -1, NULL);
    tp_pod("n1", NULL, 1000, "300m", "10", -1, NULL); /* nominated elsewhere, counts as used */
}

KT_TEST(property_replica_runs_and_cache) {
    rng_state = 20240917;
    int compared = 0, nominated = 0;
    for (int iter = 0; iter < 200; iter++) {
        replica_cluster();
        if (!tp_load()) continue;
        uint32_t pod = (uint32_t)kp_cluster_find_pod(tp_cl, "default/p");
        uint32_t n1 = (uint32_t)kp_cluster_find_pod(tp_cl, "default/n1");
        int32_t nom_node = rnd(2) ? (int32_t)rnd(tp_cl->n_nodes) : -1;
        kp_sched *fast = plain_sched();
        if (nom_node >= 0) kp__sched_nominate(fast, n1, nom_node);
        for (int round = 0; round < 3; round++) {
            int64_t offset = (int64_t)rnd(24);
            char a[1024], b[1024];
            attempt_plain(fast, pod, false, offset, a,
                          sizeof a); /* reuses the cache after round 0 */
            kp_sched *ref = plain_sched();
            if (nom_node >= 0) kp__sched_nominate(ref, n1, nom_node);
            attempt_plain(ref, pod, true, offset, b, sizeof b);
            kp_sched_free(ref);
            KT_CHECK_STR(a, b);
            compared++;
            nominated += a[0] != '-';
            /* move one bound pod to another node (same pod count overall) before the next round */
            uint32_t from = rnd(tp_cl->n_nodes), to = rnd(tp_cl->n_nodes);
            if (tp_cl->nodes[from].n_pods > 0) {
                uint32_t q = tp_cl->nodes[from].pods[rnd(tp_cl->nodes[from].n_pods)];
                kp__node_remove_pod(tp_cl, q);
                KT_CHECK_INT(kp__node_add_pod(tp_cl, to, q), KP_OK);
            }
        }
        kp_sched_free(fast);
        tp_end();
    }
    KT_CHECK(compared == 600);
    KT_CHECK(nominated > 150);
}

KT_MAIN(KT_CASE(property_random_clusters), KT_CASE(property_replica_runs_and_cache))
