/* NOTE to the scheduling-cycle engineer (from the preemption engineer): this header was extended
 * with kp_preempt_opts and kp__preempt_postfilter_ex (reference mode, --compat, injected offset /
 * tie, frozen "now"). kp__preempt_postfilter == _ex with kp__preempt_opts_default(). For
 * `kprio schedule --reference` set opts.reference = true; for `--compat 1.35` use
 * kp__preempt_compat_parse("1.35", &opts.compat). kp_preempt_result gained `now` (copied from the
 * opts, used by kp__preempt_actuate for deletionTimestamp) and kp__preempt_event_note formats the
 * `Preempted` event text. Optional: kp_preempt_opts.codes, one byte per node
 * (kp__preempt_status_code of its status) kept while the Filter pass records statuses, spares the
 * dry run from reading every status (schedule_one.c does not pass it yet). Everything else is
 * unchanged.
 *
 * DefaultPreemption PostFilter (internal interface between the scheduling cycle and
 * preemption). Owned by the preemption code (issue 4); called by the scheduling cycle (issue 3)
 * when a pod fits nowhere.
 *
 * kp__preempt_postfilter mirrors DefaultPreemption.PostFilter / Evaluator.Preempt: eligibility,
 * potential nodes (status exactly Unschedulable), candidate budget and PRNG offset, dry run with
 * victim selection and reprieve, PDB classification, the node-choice cascade. It does NOT mutate
 * the cluster beyond temporary dry-run changes it undoes; kp__preempt_actuate applies a result
 * (victims terminating with DisruptionTarget, nomination, clearing lower-priority nominations). */
#ifndef KP_SCHED_PREEMPT_H
#define KP_SCHED_PREEMPT_H

#include "sched/status.h"

typedef struct kp_sched kp_sched;
typedef struct kp_cycle kp_cycle;

typedef enum {
    KP_PREEMPT_NOMINATED = 0, /* a node was chosen; victims listed */
    KP_PREEMPT_NOT_ELIGIBLE, /* PodEligibleToPreemptOthers said no (NNN unchanged) */
    KP_PREEMPT_NO_CANDIDATES /* no node helps (NNN cleared) */
} kp_preempt_outcome;

/* Why a node was or was not a candidate, and its victims, for --explain. */
typedef struct {
    uint32_t node;
    kp_code filter_code; /* the node's status from the failed scheduling attempt */
    bool considered; /* dry-run evaluated (within the candidate budget) */
    bool candidate;
    kp_node_status dry_status; /* when not a candidate: why (upstream reason text) */
    uint32_t n_victims;
    uint32_t *victims; /* pod indices, most important first (heap, freed with result) */
    int32_t pdb_violations;
} kp_preempt_node;

typedef struct kp_preempt_result {
    kp_preempt_outcome outcome;
    int32_t node; /* nominated node, -1 if none */
    uint32_t n_victims;
    uint32_t *victims; /* pod indices in upstream order (most important first) */
    int32_t pdb_violations;
    char *message; /* "preemption: 0/3 nodes are available: ..." or success text
                    * (heap, freed with the result; NULL only on error) */
    const char *decided_by; /* cascade step that picked the node (e.g. "min PDB violations") */
    uint32_t n_nodes; /* per-node explanation, filled when explain was requested */
    kp_preempt_node *nodes;
    int64_t now; /* opts.now, for actuation */
    uint32_t n_candidates; /* candidates found by the dry run */
    uint32_t n_drawn; /* the offset was drawn from the PRNG below this many potential nodes (0:
                       * no draw) */
} kp_preempt_result;

/* Upstream release lines whose decisions differ (docs/preemption.md "Compatibility"). */
typedef enum {
    KP_PREEMPT_COMPAT_NEWEST = 0, /* 1.36+: PDB early stop */
    KP_PREEMPT_COMPAT_1_35 /* <= 1.35: decrement every matching PDB; no UID tie-break
                            * (equal keys fall back to load order, deterministic) */
} kp_preempt_compat;

typedef struct {
    bool reference; /* naive step-by-step algorithm (every filter re-run from scratch) */
    bool no_fastpath; /* incremental filter path only, no resource arithmetic (tests) */
    kp_preempt_compat compat;
    int64_t offset; /* < 0: draw the candidate offset from the PRNG; else injected (mod n) */
    int64_t tie; /* < 0: PRNG picks among nodes tied after the cascade; else index */
    int64_t now; /* frozen "now" (unix s) for nil startTime and deletionTimestamp;
                  * KP_TIME_NONE: nil startTime sorts as +infinity, deletion at 0 */
    int32_t protect_pod; /* what-if: >= 0 treats this pod as covered by a PDB with no
                          * disruptions allowed (kprio why); -1 = none */
    const uint8_t *codes; /* optional: codes[i] == kp__preempt_status_code(&statuses[i]) for
                           * every node, a compact copy kept by the caller's Filter pass; the
                           * dry run then reads n bytes instead of n statuses (NULL: read
                           * the statuses) */
    uint64_t filter_calls; /* out: Filter invocations made (statistics, tests) */
    uint64_t pdb_checks; /* out: (victim, PDB) pairs the PDB classification looked at: with the
                          * PDB index only the PDBs that select the victim (statistics, tests) */
} kp_preempt_opts;

void kp__preempt_opts_default(kp_preempt_opts *o);
/* The compact form of a Filter status for kp_preempt_opts.codes: the kp_code, plus
 * KP_PREEMPT_CODE_FIT when the failing plugin is NodeResourcesFit. */
#define KP_PREEMPT_CODE_FIT 0x80
uint8_t kp__preempt_status_code(const kp_node_status *st);
/* "1.35", "1.34", ... -> KP_PREEMPT_COMPAT_1_35; "1.36" and newer -> NEWEST. False if unparsable.
 */
bool kp__preempt_compat_parse(const char *version, kp_preempt_compat *out);

/* statuses[n_nodes]: the node statuses of the failed Filter pass (index = node index). A node
 * not evaluated has code KP_CODE_UNRESOLVABLE ("absent"). explain: fill result->nodes. */
kp_status kp__preempt_postfilter(kp_sched *s, kp_cycle *c, uint32_t pod,
                                 const kp_node_status *statuses, bool explain,
                                 kp_preempt_result *out, kp_error *err);
/* Applies a NOMINATED result: victims get deletion_ts + DisruptionTarget/PreemptionByScheduler
 * (they keep their resources until removed), pod is nominated, lower-priority pods nominated to
 * the node lose their nomination. */
kp_status kp__preempt_actuate(kp_sched *s, uint32_t pod, const kp_preempt_result *r, kp_error *err);
void kp__preempt_result_fini(kp_preempt_result *r);
/* Sets r->message from a printf format (heap). KP_ENOMEM. */
kp_status kp__preempt_set_message(kp_preempt_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Frees the per-scheduler preemption cache (kp__sched_preempt_cache); NULL is fine. */
void kp__preempt_cache_free(void *cache);

/* Same as kp__preempt_postfilter with explicit options (o may be NULL = defaults; o->filter_calls
 * is updated when o is non-NULL). */
kp_status kp__preempt_postfilter_ex(kp_sched *s, kp_cycle *c, uint32_t pod,
                                    const kp_node_status *statuses, bool explain,
                                    kp_preempt_opts *o, kp_preempt_result *out, kp_error *err);
/* Upstream's `Preempted` event note for a victim: "Preempted by pod <uid> on node <node>". */
const char *kp__preempt_event_note(const kp_cluster *cl, uint32_t preemptor, uint32_t node,
                                   char *buf, size_t cap);

#endif
