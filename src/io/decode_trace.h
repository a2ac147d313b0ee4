/* Trace reading (internal; include/kprio/trace.h, docs/live.md "Recording a trace"): the state
 * decode_trace.c (files, manifest, the scenario and decisions built) shares with
 * decode_trace_kinds.c (what each kind's watch event becomes). */
#ifndef KP_IO_DECODE_TRACE_H
#define KP_IO_DECODE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "io/dctx.h"
#include "io/decode_scenario.h"
#include "io/tree.h"
#include "io/tree_text.h"
#include "kprio/trace.h"

/* A time in a list (arena memory). */
typedef struct kp__tms {
    int64_t t_ms;
    struct kp__tms *next;
} kp__tms;

/* What the translation remembers of one object (or one counter), by interned key. */
typedef struct {
    bool seen; /* a watch event of it was read (its state below is the last one) */
    bool deleting; /* pod: its deletion was seen */
    bool gone; /* deleted (a later ADDED is a creation again) */
    bool in_snapshot; /* the first event found it in the snapshot */
    bool unsched; /* node: spec.unschedulable */
    int8_t ready; /* node: Ready condition, 1 True, 0 otherwise, -1 unknown */
    int32_t replicas; /* workload: spec.replicas (-1 when it has none) */
    uint32_t count; /* name / owner counters: pods seen so far */
    const char *text; /* workload: template; PDB: spec; node: its user taints, one per line */
    const char *node; /* pod: spec.nodeName ("" none) */
    const char *labels; /* node: its labels, one per line "key\x1fvalue" */
    bool has_gone_ms; /* workload: its deletion was seen (deletionTimestamp or DELETED) ... */
    int64_t gone_ms; /* ... first at this time */
    kp__tms *deleted_by_controller; /* "D" keys: the times of its controller's SuccessfulDelete */
    kp_trace_pod_key key; /* pod */
} kp__tstate;

/* A decision before its pod is known: events name the pod by uid (resolved at the end). */
typedef struct {
    kp_trace_decision d;
    const char *uid; /* "" when the pod is named by key already */
} kp__tdec;

/* A deletion of a pod a controller owns that no DisruptionTarget condition explains: a user's
 * (replayed) or its controller's (the simulation's own), told apart once every event is read
 * (kp__trace_owned_deletions). */
typedef struct {
    int64_t t_ms;
    const char *ns, *name, *owner_kind, *owner_name;
    kp_trace_pod_key key;
} kp__tdel;

typedef struct {
    kp_scenario_action a;
    uint32_t rank, seq; /* order of actions at the same time: the kind's rank, then reading */
} kp__tact;

typedef struct {
    scen *s; /* the scenario being built (its arena holds every string) */
    const kp_cluster *cl; /* the snapshot */
    kp_cluster *scratch; /* created objects are checked by loading them here */
    int64_t start, end; /* unix seconds */
    kp_dctx d;
    kp_interner keys;
    kp__tstate **st; /* by key id (arena memory: pointers stay valid) */
    size_t st_cap;
    kp__tact *acts;
    size_t n_acts, cap_acts;
    kp__tdec *decs;
    size_t n_decs, cap_decs;
    kp__tdel *dels; /* owned pods' deletions to tell apart */
    size_t n_dels, cap_dels;
    bool has_events; /* an Event object was read (its controllers' SuccessfulDelete can tell) */
    kp_tbuf text; /* scratch for object texts */
    kp_trace_stats stats;
    int64_t t_ms; /* the event being read: its virtual time */
    const char *src; /* "FILE: line N" of the event being read (arena) */
} kp__tctx;

/* The state of key (interned; zeroed when new); NULL when out of memory. */
kp__tstate *kp__trace_state(kp__tctx *x, const char *key);
/* A copy of p[0..n) in the trace's arena; NULL when out of memory. */
const char *kp__trace_dup(kp__tctx *x, const char *p, size_t n);
/* A new action at the event's time (zeroed but for at_ms); NULL when out of memory. */
kp_scenario_action *kp__trace_action(kp__tctx *x, kp_action_type type, uint32_t rank);
/* A recorded decision at t_ms for the pod of uid (or of key when uid is ""). */
kp_status kp__trace_decision(kp__tctx *x, int64_t t_ms, kp_trace_decision_kind kind,
                             const char *uid, const kp_trace_pod_key *key, const char *node,
                             const char *message);
/* A create action of the object text in x->text (checked by loading it), naming it in errors. */
kp_status kp__trace_create(kp__tctx *x, const kp_tnode *obj, uint32_t rank);
/* The virtual time of unix time secs.nanos (at least 0). */
int64_t kp__trace_ms(const kp__tctx *x, int64_t secs, int32_t nanos);

/* One watch event (decode_trace_kinds.c): type "ADDED", "MODIFIED" or "DELETED". */
kp_status kp__trace_event(kp__tctx *x, const char *type, const kp_tnode *obj);
/* The owned pods' deletions (x->dels), once every watch file is read: a user's become delete
 * actions, their controllers' are left to the simulation. */
kp_status kp__trace_owned_deletions(kp__tctx *x);
/* Marks the snapshot's workloads (before the first event). */
kp_status kp__trace_snapshot_workloads(kp__tctx *x);

#endif
