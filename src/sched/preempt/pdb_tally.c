/* PDB budgets added up over a whole run (kprio/sched.h, kp_sched_pdb_uses; docs/schedule.md
 * "PDB budgets over the run").
 *
 * filterPodsWithPDBViolation counts a PDB's budget per decision: every node's candidate starts
 * from the PDB's status.disruptionsAllowed, and nothing carries one preemptor's victims over to
 * the next; upstream relies on the disruption controller to lower the status after each
 * preemption (its informer lags the scheduler's own deletions). A run of many preemptors read
 * from one snapshot can thus take more victims of one PDB than it allows, each decision within
 * budget. This file counts, per PDB, the run's victims against the budget the scheduler read,
 * with the same selection rule as the preemption's own count (pdb_index.c). Computed on demand
 * after the run: nothing here runs during scheduling. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "kprio/sched.h"
#include "sched/framework.h"
#include "sched/preempt/pdb_index.h"

static int cmp_use(const void *a, const void *b, void *cl_) {
    const kp_cluster *cl = cl_;
    kp_pdb_info x, y;
    kp_cluster_pdb_info(cl, ((const kp_sched_pdb_use *)a)->pdb, &x);
    kp_cluster_pdb_info(cl, ((const kp_sched_pdb_use *)b)->pdb, &y);
    int c = strcmp(x.ns, y.ns);
    return c ? c : strcmp(x.name, y.name);
}

/* insertion sort with a context (qsort_r is not C11); a run touches few PDBs */
static void sort_uses(kp_sched_pdb_use *u, size_t n, const kp_cluster *cl) {
    for (size_t i = 1; i < n; i++) {
        kp_sched_pdb_use v = u[i];
        size_t j = i;
        for (; j > 0 && cmp_use(&u[j - 1], &v, (void *)cl) > 0; j--) u[j] = u[j - 1];
        u[j] = v;
    }
}

/* One decision: its victims charged to each PDB (per[k] this decision's count; touched[] the
 * PDBs it charged, so the reset costs what the decision cost). */
static void one_decision(const kp_cluster *cl, const kp_sched_pod_result *r, kp_index only,
                         kp_sched_pdb_use *use, uint32_t *per, uint32_t *touched, bool *seen) {
    uint32_t n_touched = 0;
    for (size_t v = 0; v < r->n_victims; v++) {
        uint32_t pod = (uint32_t)r->victims[v];
        if (pod >= cl->n_pods) continue;
        bool first = !seen[pod];
        seen[pod] = true;
        for (uint32_t k = 0; k < cl->n_pdbs; k++) {
            if (!kp__pdbix_selects(cl, k, pod)) continue;
            if (only >= 0 && !kp__pdbix_selects(cl, k, (uint32_t)only)) continue;
            if (!per[k]++) touched[n_touched++] = k;
            if (first) use[k].victims++;
        }
    }
    for (uint32_t i = 0; i < n_touched; i++) {
        uint32_t k = touched[i];
        use[k].decisions++;
        if (per[k] > use[k].max_per_decision) use[k].max_per_decision = per[k];
        if ((int64_t)per[k] > (int64_t)use[k].allowed) use[k].decisions_over++;
        per[k] = 0;
    }
}

kp_status kp_sched_pdb_uses(const kp_sched *s, kp_index pod, kp_sched_pdb_use **out, size_t *n,
                            kp_error *err) {
    *out = NULL;
    *n = 0;
    const kp_cluster *cl = s->cl;
    if (cl->n_pdbs == 0) return KP_OK;
    if (pod >= 0 && (size_t)pod >= cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "pdb uses: pod index %ld out of range", (long)pod);
    kp_sched_pdb_use *use = kp__calloc(cl->n_pdbs, sizeof *use);
    uint32_t *per = kp__calloc(cl->n_pdbs, sizeof *per);
    uint32_t *touched = kp__malloc(cl->n_pdbs * sizeof *touched);
    bool *seen = kp__calloc(cl->n_pods ? cl->n_pods : 1, sizeof *seen);
    if (!use || !per || !touched || !seen) {
        kp__free(use);
        kp__free(per);
        kp__free(touched);
        kp__free(seen);
        return kp_error_set(err, KP_ENOMEM, "pdb uses: out of memory");
    }
    for (uint32_t k = 0; k < cl->n_pdbs; k++) {
        use[k].pdb = (kp_index)k;
        use[k].allowed = kp__pdbix_status_allowed(cl, k, &use[k].has_status);
    }
    for (size_t i = 0; i < kp_sched_result_count(s); i++) {
        const kp_sched_pod_result *r = kp_sched_result(s, i);
        if (r && r->n_victims) one_decision(cl, r, pod, use, per, touched, seen);
    }
    size_t m = 0;
    for (uint32_t k = 0; k < cl->n_pdbs; k++)
        if (use[k].victims) use[m++] = use[k];
    kp__free(per);
    kp__free(touched);
    kp__free(seen);
    if (!m) {
        kp__free(use);
        return KP_OK;
    }
    sort_uses(use, m, cl);
    *out = use;
    *n = m;
    return KP_OK;
}

void kp_sched_pdb_uses_free(kp_sched_pdb_use *u) { kp__free(u); }
