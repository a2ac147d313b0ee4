/* What-if preemption: would this pod preempt, on which node, whom?
 *
 * kp_preemption_new runs one scheduling attempt for a pod of a loaded, finalized cluster the way
 * kube-scheduler's default profile does (PreFilter + Filter on every node, with nominated pods)
 * and, when the pod fits nowhere, DefaultPreemption's PostFilter: the nominated node, its victims
 * in upstream order (most important first), the number of PDB violations, upstream's message, and
 * per node why it was or was not a candidate. Nothing is actuated: the cluster is left exactly as
 * it was (dry runs remove and re-add pods and restore each node's pod order).
 *
 *     kp_preempt_options o;
 *     kp_preempt_options_init(&o);
 *     kp_preemption *p;
 *     if (kp_preemption_new(cl, kp_cluster_find_pod(cl, "prod/web-0"), &o, &p, &err) == KP_OK) {
 *         if (kp_preemption_outcome(p) == KP_PREEMPTION_NOMINATED)
 *             for (size_t i = 0; i < kp_preemption_victim_count(p); i++)
 *                 printf("%s on %s\n", kp_cluster_pod_name(cl, kp_preemption_victim(p, i)),
 *                        kp_cluster_node_name(cl, kp_preemption_node(p)));
 *         kp_preemption_free(p);
 *     }
 *
 * Determinism: every random choice (candidate offset, final tie between equally good nodes) is
 * drawn from a PRNG seeded with options.seed, or injected with options.offset / options.tie.
 * Not thread-safe with respect to the cluster (it is temporarily modified during the call). */
#ifndef KP_PREEMPT_H
#define KP_PREEMPT_H

#include "kprio/cluster.h"
#include "kprio/common.h"
#include "kprio/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_preemption kp_preemption;

#define KP_PREEMPT_NOW_NONE INT64_MIN

typedef struct {
    const kp_sched_config *config; /* NULL = default profile (DefaultPreemption 10 % / 100); with
                                    * several profiles the preemptor's own profile is used */
    uint64_t seed; /* PRNG seed */
    const char *compat; /* NULL = newest; "1.35" (or older) = pre-1.36 PDB accounting
                         * and victim order (docs/preemption.md) */
    bool reference; /* run the naive upstream-step-by-step algorithm */
    long offset; /* -1: PRNG; else the candidate offset (mod #potential nodes) */
    long tie; /* -1: PRNG; else index among nodes tied after the cascade */
    int64_t now; /* unix seconds for nil startTime; KP_PREEMPT_NOW_NONE =
                  * "later than any start time" */
    kp_index protect_pod; /* -1, or a pod to treat as covered by a PDB with no
                           * disruptions left (what-if used by `kprio why`) */
} kp_preempt_options;

/* Defaults: offset, tie and protect_pod -1, now KP_PREEMPT_NOW_NONE, everything else 0 / NULL. */
void kp_preempt_options_init(kp_preempt_options *o);

typedef enum {
    KP_PREEMPTION_NOMINATED = 0, /* a node was chosen; victims listed */
    KP_PREEMPTION_NOT_ELIGIBLE, /* preemptionPolicy Never, a victim still terminating on the
                                 * pod's nominated node, or scheduling gates (the pod is never
                                 * queued: "not eligible: waiting for scheduling gates: [a]") */
    KP_PREEMPTION_NO_CANDIDATES, /* no node helps; message says why per node */
    KP_PREEMPTION_NOT_NEEDED /* the pod fits on some node: it would simply be bound */
} kp_preemption_verdict;

/* Evaluates preemption for pod `pod` (kp_cluster_find_pod). The pod must exist and not be bound.
 * opt may be NULL (defaults). Errors: KP_EINVAL (pod index out of range, bound pod, bad compat,
 * cluster not finalized), KP_ENOMEM. On success *out owns the result (kp_preemption_free);
 * otherwise *out is NULL. The cluster is borrowed for the handle's life (names of its pods and
 * nodes: kp_cluster_pod_namespace / kp_cluster_pod_name / kp_cluster_node_name). */
kp_status kp_preemption_new(kp_cluster *cl, kp_index pod, const kp_preempt_options *opt,
                            kp_preemption **out, kp_error *err);
/* Releases the result. NULL is a no-op. */
void kp_preemption_free(kp_preemption *p);

kp_preemption_verdict kp_preemption_outcome(const kp_preemption *p);
/* Nominated node index (NOMINATED) or a node it fits on (NOT_NEEDED); -1 otherwise. */
kp_index kp_preemption_node(const kp_preemption *p);
size_t kp_preemption_victim_count(const kp_preemption *p);
/* Victim i (pod index), most important first; -1 if out of range. */
kp_index kp_preemption_victim(const kp_preemption *p, size_t i);
int kp_preemption_pdb_violations(const kp_preemption *p);
/* Upstream's PostFilter message: "preemption: 0/3 nodes are available: ..." or
 * "preemption: found a potential placement for pod on node X, preempting N victims". */
const char *kp_preemption_message(const kp_preemption *p);
/* Which step of the node-choice cascade decided ("fewest PDB violations", ...); "" if none. */
const char *kp_preemption_decided_by(const kp_preemption *p);
size_t kp_preemption_candidate_count(const kp_preemption *p);
/* Filter calls made by the dry run (for comparing --reference with the optimised path). */
uint64_t kp_preemption_filter_calls(const kp_preemption *p);

/* Per-node explanation. */
typedef struct {
    bool potential; /* failed Filter with plain Unschedulable (preemption might help) */
    bool considered; /* dry-run evaluated (within the candidate budget) */
    bool candidate; /* victims found */
    size_t n_victims; /* kp_preemption_node_victim */
    int pdb_violations;
    const char *filter_reason; /* the node's Filter verdict for the pod ("" if it passed) */
    const char *reason; /* why not a candidate ("" if candidate or not considered) */
} kp_preemption_node_info;

/* Node `node`'s record; NULL for an index out of range. Borrowed from p (valid until it is
 * freed). */
const kp_preemption_node_info *kp_preemption_node_detail(const kp_preemption *p, kp_index node);
/* Victim i of node `node` (most important first); -1 out of range. One at a time: the dry run
 * keeps its victim lists in a compact form of its own. */
kp_index kp_preemption_node_victim(const kp_preemption *p, kp_index node, size_t i);


/* ---- the explained pod's preemption (kprio schedule --explain) ---- */

typedef struct {
    kp_preemption_verdict outcome; /* NOMINATED, NOT_ELIGIBLE or NO_CANDIDATES */
    kp_index node; /* nominated node, -1 */
    const char *decided_by; /* cascade step, "" */
    const char *message; /* upstream's PostFilter message */
    size_t n_nodes; /* kp_sched_explain_preemption_node_get indices */
} kp_sched_preemption_explain;

/* The PostFilter of the explained pod's last attempt. KP_EINVAL when it did not run. */
kp_status kp_sched_explain_preemption_get(const kp_sched *s, kp_sched_preemption_explain *out);

typedef struct {
    kp_index node;
    kp_filter_code filter_code; /* the node's status in the failed filter pass */
    bool considered; /* dry-run evaluated (within the candidate budget) */
    bool candidate;
    size_t n_reasons; /* why not a candidate: kp_sched_explain_preemption_reason */
    size_t n_victims; /* kp_sched_explain_preemption_victim */
    int32_t pdb_violations;
} kp_sched_preemption_node;

kp_status kp_sched_explain_preemption_node_get(const kp_sched *s, size_t i,
                                               kp_sched_preemption_node *out);
/* Victim v of entry i (most important first); -1 out of range. */
kp_index kp_sched_explain_preemption_victim(const kp_sched *s, size_t i, size_t v);
/* Reason r of entry i's dry-run status; "" out of range. */
const char *kp_sched_explain_preemption_reason(const kp_sched *s, size_t i, size_t r);

#ifdef __cplusplus
}
#endif
#endif
