/* The `kprio why` question: for a pod that would be a preemption victim when the pending pods
 * are scheduled, which pending pod preempts it, on which node, how the node was chosen, and what
 * would have spared it. Built on the public scheduler and preemption API alone (src/sim/why.c);
 * the tool (src/render/render_sched.h) renders the answer. */
#ifndef KPRIO_WHY_H
#define KPRIO_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/preempt.h"
#include "kprio/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A node where preemption cannot help the preemptor because VolumeAttachments hold attach slots
 * that removing pods does not free (kp_sched_attach_slots.cannot_help). */
typedef struct {
    kp_index node;
    const char *driver; /* borrowed from the run's cluster */
    int64_t held, limit; /* slots VolumeAttachments hold, of the driver's limit on the node */
} kp_why_attach_block;

/* A node where the DynamicResources plugin could not allocate the pod's claims: its reason as
 * --explain prints it ("cannot allocate all claims (request gpu: 0 free of 1 device(s) matching
 * class gpu.example.com, held by ns/claim (reserved by pod))"). */
typedef struct {
    kp_index node;
    const char *reason; /* owned by the answer */
} kp_why_device_node;

/* The answer of `kprio why` for one pod (a plain value; arrays are borrowed). */
typedef struct {
    bool preempted;
    kp_index preemptor, node;
    int32_t pod_priority, preemptor_priority;
    const char *decided_by; /* cascade step that chose the node in the run ("" when unknown) */
    size_t n_victims;
    const kp_index *victims; /* every victim of the preemptor, most important first */
    int pdb_violations;
    bool pdb_evaluated; /* the what-if "a PDB with no budget covers it" was evaluated */
    bool pdb_spares; /* ... and the pod is then no victim */
    kp_index pdb_alt_node; /* where the preemptor would go then (-1: nowhere) */
    size_t n_alt_victims; /* its victims then */
    const kp_index *alt_victims;
    /* The simulated run stops as soon as the pod's fate is settled where the queue order allows
     * it (kp_sched_options.stop_when_settled): after the attempt that makes it a victim, or before
     * the first pod whose priority is not above its own. The answer is the full run's. */
    bool stopped_early; /* the run stopped before the end of the queue */
    size_t pods_attempted, pods_queued; /* pending pods attempted / queued in the run */
    size_t pdb_pods_attempted; /* ... in the what-if run (pdb_evaluated; of pods_queued) */
    /* preempted: the nodes where NodeVolumeLimits rejects the preemptor and preemption cannot
     * help, as the run left them (node order) */
    size_t n_attach_blocked;
    const kp_why_attach_block *attach_blocked;
    /* preempted: the PDBs that select the pod as preemption counts them, with the run's victims
     * of each up to and including its preemptor's decision against status.disruptionsAllowed
     * (kp_sched_pdb_uses: a sum over the budget with every decision within it is the status
     * lag, docs/schedule.md "PDB budgets over the run") */
    size_t n_pdbs;
    const kp_sched_pdb_use *pdbs;
    /* A pod pending for devices (not bound and not nominated in the run, its claims not
     * allocatable on some nodes): the one-line summary "no free device matching class C on N
     * nodes; devices held by A, B" ("" otherwise) and the nodes with their reasons (node order) */
    const char *device_summary;
    size_t n_device_nodes;
    const kp_why_device_node *device_nodes;
} kp_why_answer;

typedef struct kp_why kp_why;

/* Answers `why` for pod (index, kp_cluster_find_pod) of run_cl. The schedule is simulated on
 * run_cl exactly as kp_sched_run does (o's config, seed and compat; queue order, bindings and
 * nominations visible to later pods), which binds pods in run_cl; the answer (preemptor, node,
 * victims, cascade step) is the preemptor's decision in that run. The what-if "a
 * PodDisruptionBudget with no disruptions left covers the pod" replays the same run on
 * `snapshot` (the same inputs loaded again, so pod indices agree; it is scheduled too) with that
 * protection in every preemption (kp_sched_options.protect_pod), so the pods placed before the
 * preemptor's attempt are there when it decides. o NULL: kp_preempt_options_init (only config,
 * seed and compat are read). Both runs stop once the pod's fate is settled (kp_why_answer
 * .stopped_early). *out (kp_why_free) owns the answer. Errors: those of kp_sched_new
 * and kp_sched_run, KP_EINVAL (snapshot has other pods than run_cl), KP_ENOMEM. */
kp_status kp_why_evaluate(kp_cluster *run_cl, kp_cluster *snapshot, kp_index pod,
                          const kp_preempt_options *o, kp_why **out, kp_error *err);
/* The answer; its arrays live as long as w. */
const kp_why_answer *kp_why_get(const kp_why *w);
void kp_why_free(kp_why *w);

#ifdef __cplusplus
}
#endif
#endif
