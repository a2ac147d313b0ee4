/* The PDB index of preemption (src/sched/preempt/pdb_index.c): filterPodsWithPDBViolation's
 * answers whatever the input order of the PDBs, with several PDBs per pod (matchLabels,
 * matchExpressions, disruptedPods, empty and nil selectors), and a victim's check costs the PDBs
 * that select it, not every PDB of the cluster. Every case runs the three victim-selection paths
 * (tp_run checks they agree). */
#include "core/cluster.h"
#include "harness.h"
#include "test_preempt_util.h"

/* A PDB in namespace ns with a raw selector ("{matchLabels: {...}}", "{}", or NULL for nil). */
static void pdb_raw(const char *name, const char *ns, const char *selector, int allowed,
                    const char *disrupted) {
    tp_add("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
           "metadata: {name: %s, namespace: %s}\nspec:\n",
           name, ns);
    if (selector) tp_add("  selector: %s\n", selector);
    else tp_add("  minAvailable: 1\n");
    tp_add("status:\n  disruptionsAllowed: %d\n", allowed);
    if (disrupted) tp_add("  disruptedPods: {\"%s\": \"2024-01-01T00:00:00Z\"}\n", disrupted);
}

/* compat_pdb_accounting's cluster (a is selected by pdb-a and pdb-b; newest stops at the first
 * violated PDB in namespace/name order), with the PDBs given in the input order `reversed`. */
static void order_case(int reversed, int compat, tp_res *r) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_pod("a", "node1", 100, "200m", "200", 1, "{x: \"1\", y: \"1\"}");
    tp_pod("b", "node1", 100, "200m", "200", 2, "{y: \"1\"}");
    for (int i = 0; i < 2; i++) {
        if ((i == 0) != (reversed != 0)) tp_pdb("pdb-a", "{x: \"1\"}", 0, NULL);
        else tp_pdb("pdb-b", "{y: \"1\"}", 1, NULL);
    }
    tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
    tp_opts o = tp_opts_default();
    o.compat = compat ? KP_PREEMPT_COMPAT_1_35 : KP_PREEMPT_COMPAT_NEWEST;
    tp_run(NULL, &o, r);
    tp_end();
}

/* The same decision whatever the input order of the PDBs (they are consulted in namespace/name
 * order): in input order pdb-b first, a would consume pdb-b's budget and b would violate too. */
KT_TEST(pdb_input_order_same_decision) {
    for (int compat = 0; compat < 2; compat++) {
        tp_res fwd, rev;
        order_case(0, compat, &fwd);
        order_case(1, compat, &rev);
        KT_CHECK_STR(fwd.victims, "a,b");
        KT_CHECK_STR(rev.victims, fwd.victims);
        KT_CHECK_STR(rev.node, fwd.node);
        KT_CHECK_INT(fwd.pdb_violations, compat ? 2 : 1);
        KT_CHECK_INT(rev.pdb_violations, fwd.pdb_violations);
        KT_CHECK_STR(rev.message, fwd.message);
    }
}

/* One pod selected by several PDBs of every kind. v1 carries {app: web, tier: db}; v2 {app: web}.
 *  - pdb-0-empty ({}) and pdb-1-nil (no selector) select nothing (release-1.37
 *    filterPodsWithPDBViolation: selector.Empty() is skipped, nil matches nothing);
 *  - pdb-2-other is in another namespace; pdb-3-disrupted lists v1 in disruptedPods (skipped for
 *    v1 without a decrement, counted for v2);
 *  - pdb-4-expr (matchExpressions only) and pdb-5-labels (two matchLabels) select v1;
 *  - pdb-6-web ({app: web}) selects both.
 * Budgets: pdb-4-expr 1, pdb-5-labels 1, pdb-6-web 1, pdb-3-disrupted 0. Importance order is v1
 * (earlier start), v2. v1 consumes expr, labels and web without going negative: not violating. v2:
 * pdb-3-disrupted goes to -1 (violating; newest stops there, so pdb-6-web keeps 0). */
KT_TEST(pdb_several_per_pod) {
    for (int compat = 0; compat < 2; compat++) {
        tp_begin();
        tp_node("node1", NULL, NULL, 32, NULL);
        tp_pod("v1", "node1", 100, "200m", "200", 1, "{app: web, tier: db}");
        tp_pod("v2", "node1", 100, "200m", "200", 2, "{app: web}");
        tp_raw("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n");
        pdb_raw("pdb-6-web", "default", "{matchLabels: {app: web}}", 1, NULL);
        pdb_raw("pdb-5-labels", "default", "{matchLabels: {app: web, tier: db}}", 1, NULL);
        pdb_raw("pdb-4-expr", "default",
                "{matchExpressions: [{key: tier, operator: In, values: [db, cache]}]}", 1, NULL);
        pdb_raw("pdb-3-disrupted", "default", "{matchLabels: {app: web}}", 0, "v1");
        pdb_raw("pdb-2-other", "other", "{matchLabels: {app: web}}", 0, NULL);
        pdb_raw("pdb-1-nil", "default", NULL, 0, NULL);
        pdb_raw("pdb-0-empty", "default", "{}", 0, NULL);
        tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
        tp_opts o = tp_opts_default();
        o.compat = compat ? KP_PREEMPT_COMPAT_1_35 : KP_PREEMPT_COMPAT_NEWEST;
        tp_res r;
        tp_run(NULL, &o, &r);
        /* both must go (500m wanted, 100m free); v2 violates, v1 does not */
        KT_CHECK_STR(r.victims, "v1,v2");
        KT_CHECK_INT(r.pdb_violations, 1);
        tp_end();
    }
    /* v1 alone: pdb-5-labels (budget 1 -> 0) then pdb-6-web (0 -> -1): a pod is checked against
     * every PDB that selects it, in namespace/name order, until one goes negative */
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_pod("v1", "node1", 100, "450m", "200", 1, "{app: web, tier: db}");
    pdb_raw("pdb-6-web", "default", "{matchLabels: {app: web}}", 0, NULL);
    pdb_raw("pdb-5-labels", "default", "{matchLabels: {app: web, tier: db}}", 1, NULL);
    tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
    tp_res r;
    tp_run(NULL, NULL, &r);
    KT_CHECK_STR(r.victims, "v1");
    KT_CHECK_INT(r.pdb_violations, 1);
    tp_end();
}

/* A victim's check costs the PDBs that select it: 400 PDBs of which one selects each victim. */
KT_TEST(pdb_check_cost_follows_coverage) {
    tp_begin();
    tp_node("node1", NULL, NULL, 32, NULL);
    tp_pod("v1", "node1", 100, "200m", "200", 1, "{app: a, shard: \"0\"}");
    tp_pod("v2", "node1", 100, "200m", "200", 2, "{app: b, shard: \"1\"}");
    tp_raw("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n");
    for (int i = 0; i < 400; i++) {
        char name[32], sel[96];
        snprintf(name, sizeof name, "pdb-%03d", i);
        snprintf(sel, sizeof sel, "{matchLabels: {app: %s, shard: \"%d\"}}", i % 2 ? "b" : "a", i);
        pdb_raw(name, i % 3 ? "default" : "other", sel, 0, NULL);
    }
    tp_pod("p", NULL, 1000, "500m", "500", -1, NULL);
    tp_opts o = tp_opts_default();
    tp_res r;
    tp_run(NULL, &o, &r);
    KT_CHECK_STR(r.victims, "v1,v2");
    /* pdb-001 ({app: b, shard: 1}) is in default and selects v2; shard 0 is pdb-000, in other */
    KT_CHECK_INT(r.pdb_violations, 1);
    /* each victim looked at its own PDBs only (before the index: 2 x 400) */
    KT_CHECK(r.pdb_checks <= 2);
    tp_end();
}

KT_MAIN(KT_CASE(pdb_input_order_same_decision), KT_CASE(pdb_several_per_pod),
        KT_CASE(pdb_check_cost_follows_coverage))
