/* Rendering of the scheduler's answers (the output of `kprio schedule` and `kprio why`): tables
 * and kprio/v1alpha1 JSON / YAML documents. Built on the public API only; the library itself
 * never prints, these write to the stream they are given.
 *
 * Typical use:
 *     kp_sched_run(s, &err);
 *     kp_status st = kp_render_schedule(stdout, s, cl, KP_OUT_TABLE);   // cl: the scheduled
 * cluster
 *     ...
 *     kp_render_why(stdout, &answer, cl, "prod/web-0", KP_OUT_JSON); */
#ifndef KP_RENDER_RENDER_SCHED_H
#define KP_RENDER_RENDER_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/preempt.h"
#include "kprio/sched.h"
#include "kprio/why.h"
#include "render/emit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SchedulePlan of a run (and the --explain section when one was requested) in fmt. cl is
 * the cluster s schedules. KP_ENOMEM. */
kp_status kp_render_schedule(FILE *f, const kp_sched *s, const kp_cluster *cl, kp_outfmt fmt);

/* Renders a (kprio/why.h) for pod `target` ("namespace/name"); cl is the cluster a's indices
 * refer to (pod and node names; may be NULL when the pod is not preempted). */
kp_status kp_render_why(FILE *f, const kp_why_answer *a, const kp_cluster *cl, const char *target,
                        kp_outfmt fmt);

/* ---- the run's answer in figures (render_sched_rollup.c, docs/schedule.md "Summary and
 * roll-ups"): placements, victims, PDB budgets over the run, victims by workload, node, PDB ---- */

typedef struct {
    kp_index index; /* the top workload (kp_cluster_workload_top); -1: pods without owner */
    const char *kind, *ns, *name; /* borrowed from the cluster; kind and name "" for -1 */
    uint32_t victims, nodes; /* distinct victims, the nodes they were on */
} kp__rollup_row;

typedef struct {
    size_t bound, nominated, unschedulable, gated; /* results by outcome */
    size_t preemptors, victims, nodes; /* results with victims, distinct victims, their nodes */
    size_t bound_preempting; /* bound results with victims (--until-settled) */
    kp__rollup_row *wl; /* victims by workload, most first */
    size_t n_wl;
    uint32_t *node_victims, *node_preemptors; /* per node */
    kp_index *by_node; /* nodes with victims, most first */
    size_t n_by_node;
    kp_sched_pdb_use *pdbs; /* kp_sched_pdb_uses */
    size_t n_pdbs, pdbs_over;
} kp__sched_rollup;

kp_status kp__sched_rollup_build(const kp_sched *s, const kp_cluster *cl, kp__sched_rollup *r);
void kp__sched_rollup_fini(kp__sched_rollup *r);
/* The first lines of the table: placements and victims, then each PDB over budget. */
void kp__sched_rollup_headline(FILE *f, const kp_cluster *cl, const kp__sched_rollup *r);
/* The tables after the per-pod rows: victims by workload, by node, by PDB. */
kp_status kp__sched_rollup_tables(FILE *f, const kp_cluster *cl, const kp__sched_rollup *r);
/* The SchedulePlan's "summary" object. */
void kp__sched_rollup_emit(kp_emit *e, const kp_cluster *cl, const kp__sched_rollup *r);
/* One PDB's use by the run: a sentence (`kprio why` too) / a JSON object. */
void kp__render_pdb_use_line(FILE *f, const kp_cluster *cl, const kp_sched_pdb_use *u,
                             const char *indent);
void kp__render_pdb_use_emit(kp_emit *e, const kp_cluster *cl, const kp_sched_pdb_use *u);

#ifdef __cplusplus
}
#endif
#endif
