/* The PDB index of preemption (pdb_index.c): which PDBs select a pod, found once per pod and
 * scheduler instead of scanning every PDB for every victim of every node visited, and the
 * per-node budgets reset in O(1). Internal to src/sched/preempt/. */
#ifndef KP_SCHED_PREEMPT_PDB_INDEX_H
#define KP_SCHED_PREEMPT_PDB_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"

typedef struct kp_pdbix kp_pdbix;

/* Builds the index of cl's PDBs (none yet for the pods: each pod's list is made on first use).
 * NULL when out of memory. The PDBs and the pods' namespaces, names and labels must not change
 * while it is used (they do not once the cluster is finalized). */
kp_pdbix *kp__pdbix_new(const kp_cluster *cl);
void kp__pdbix_free(kp_pdbix *ix);
/* A PDB's status changed since the index read it (the disruption controller's status write,
 * kp__cluster_pdb_set_status, bumps cl->gen_pdb_status): reread every
 * status.disruptionsAllowed. */
void kp__pdbix_refresh(kp_pdbix *ix, const kp_cluster *cl);
/* True when ix was built for a cluster with these PDB and pod counts (else rebuild). */
bool kp__pdbix_fits(const kp_pdbix *ix, const kp_cluster *cl);
/* Every budget back to its PDB's status.disruptionsAllowed (0 without a status), O(1): the start
 * of filterPodsWithPDBViolation for one node. */
void kp__pdbix_reset(kp_pdbix *ix);
/* mirrors filterPodsWithPDBViolation, its loop for one pod: consumes the budgets of the PDBs
 * that select it (namespace, then selector; not those listing it in disruptedPods), in
 * namespace/name order; true when one goes negative. newest: stop there (1.36+); else decrement
 * every one (<= 1.35). *checks += the PDBs looked at. */
bool kp__pdbix_pod_violates(kp_pdbix *ix, const kp_cluster *cl, uint32_t pod, bool newest,
                            uint64_t *checks);

/* The same test one PDB (cluster index) at a time, for what is counted after a run
 * (pdb_tally.c): whether preemption charges pod to pdb. */
bool kp__pdbix_selects(const kp_cluster *cl, uint32_t pdb, uint32_t pod);
/* The budget preemption starts from: status.disruptionsAllowed, 0 without a status. */
int32_t kp__pdbix_status_allowed(const kp_cluster *cl, uint32_t pdb, bool *has_status);

#endif
