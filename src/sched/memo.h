/* The failed-attempt memo (internal to src/sched/): an attempt that failed everywhere and
 * nominated nothing, replayed for the next pod of the same shape while nothing the scheduler
 * reads has changed.
 *
 * Why it is exact. A scheduling attempt is a function of the cluster, the scheduler's state (the
 * nominator, nextStartNodeIndex, the PRNG), the virtual time and the pod's fields the plugins
 * read. The memo is used only for pods whose PreFilter leaves nothing but NodeUnschedulable,
 * TaintToleration and NodeResourcesFit to run (no nodeName, nomination, volumes, host ports,
 * affinity, hard spread constraints, PreFilterResult), and those read from the pod only its
 * requests, tolerations, priority and preemptionPolicy (DefaultPreemption too: eligibility,
 * which lower-priority pods go in the dry run, whether the pod then fits), which are the key,
 * with the active profile. The state is the stamp: the cluster's change counters (gen_struct,
 * changed_log, PDB status), the scheduler's own (every bind, nomination and actuation bumps
 * s->memo_mut), the pod and node counts and the virtual time; any change drops every entry. A
 * failed attempt whose PostFilter nominated nothing changes nothing but three things, which the
 * replay redoes: the pod's result (UNSCHEDULABLE, the FitError + preemption text),
 * nextStartNodeIndex (advanced by the nodes given a status) and the PRNG (the dry run's offset
 * draw over the potential nodes; an entry is kept only when redoing that one draw from the
 * state before the attempt gives the state after it).
 *
 * Upstream has no such memo (its equivalence cache was removed in 1.18): it is kprio's way to
 * avoid filtering every node again for each of the hundreds of identical pods that a cluster
 * event moves back to the queue at once (the simulator's failing attempts). */
#ifndef KP_SCHED_MEMO_H
#define KP_SCHED_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "base/prng.h"
#include "kprio/common.h"

typedef struct kp_sched kp_sched;
typedef struct kp_cycle kp_cycle;

/* What an attempt saw when it began (kp__memo_begin), to decide whether it may be recorded. */
typedef struct {
    bool eligible; /* the pod's shape can be memoised (and --explain is off) */
    uint64_t stamp[7];
    kp_prng prng; /* the PRNG before the attempt */
    uint32_t next_start;
} kp_memo_probe;

/* Before the attempt, with its cycle built (PreFilter passed): fills *pr and returns the
 * recorded message of a matching entry (the caller replays it: the result, nextStartNodeIndex
 * advanced by *n_statuses, one PRNG draw below *n_pot when it is not 0, the rejecting plugins
 * *rejectors), else NULL. */
const char *kp__memo_begin(kp_sched *s, const kp_cycle *c, kp_memo_probe *pr, uint32_t *n_statuses,
                           uint32_t *n_pot, uint32_t *rejectors);
/* After an attempt that ended UNSCHEDULABLE without a nomination: records it when its pod was
 * eligible, the state did not change during it and n_pot (the dry run's potential nodes, 0: no
 * draw) explains the PRNG's move. A full memo drops its oldest entry; out of memory, the memo is
 * emptied (a miss later, not an error). */
void kp__memo_record(kp_sched *s, const kp_cycle *c, const kp_memo_probe *pr, const char *message,
                     uint32_t n_statuses, uint32_t n_pot, uint32_t rejectors);
/* Frees the memo (kp_sched_free). */
void kp__memo_free(kp_sched *s);

#endif
