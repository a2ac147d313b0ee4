/* Findings of a simulation (src/sim/insight*.c, kprio/insight.h): what every finder reads (the
 * run's events indexed per pod) and the builder the finders add their findings through. Public
 * API only, like the rest of src/sim. */
#ifndef KP_INSIGHT_INTERNAL_H
#define KP_INSIGHT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/insight.h"
#include "kprio/sim.h"

struct kp_insight {
    kp_finding *f;
    size_t n, cap;
    int64_t pdb_below_ms; /* time some PDB had fewer healthy pods than desiredHealthy (summed
                           * over PDBs; the what-if comparison of rollouts reads it) */
};

/* The run, indexed once: per pod the events the finders link to (-1 when none). */
typedef struct {
    const kp_sim *sim;
    const kp_cluster *cl;
    kp_insight_options o;
    int64_t end_ms;
    size_t n_pods, n_events;
    long *displaced; /* its first Preempted or Evicted event */
    long *created; /* the SuccessfulCreate / Created event that made it */
    long *first_failed, *last_failed; /* its first and last FailedScheduling */
    long *scheduled; /* its last Scheduled */
    long *first_ready; /* its first PodReady */
    long *deleted; /* the SuccessfulDelete / Deleted event that took it */
    kp_index *replaced_by; /* the pod its controller made to replace it */
} ins_run;

/* A new finding (zeroed but for kind, kind_name, severity, subject), NULL out of memory. */
kp_finding *kp__ins_add(kp_insight *in, kp_finding_kind kind, kp_finding_severity sev,
                        const char *subject_kind, const char *subject_ns, const char *subject_name);
/* Links: appended in any order, sorted and made unique by kp__ins_finish. KP_ENOMEM. */
kp_status kp__ins_event(kp_finding *f, long ev);
kp_status kp__ins_pod(kp_finding *f, kp_index pod);
kp_status kp__ins_node(kp_finding *f, kp_index node);
kp_status kp__ins_link(kp_finding *f, const kp_finding_link *l);
/* Sets the summary; appends a line to the detail. KP_ENOMEM. */
kp_status kp__ins_summary(kp_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
kp_status kp__ins_detail(kp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "ns/name" of a pod into buf */
const char *kp__ins_pod_ref(const ins_run *r, kp_index pod, char *buf, size_t cap);
/* Go-style duration of ms into buf */
const char *kp__ins_dur(int64_t ms, char *buf, size_t cap);
/* "a, b, c" of the finding's pods (or nodes) into buf, "... and N more" past a few */
const char *kp__ins_pod_list(const ins_run *r, const kp_finding *f, char *buf, size_t cap);
const char *kp__ins_node_list(const ins_run *r, const kp_finding *f, char *buf, size_t cap);
void kp__ins_sort_links(kp_finding *f);

/* The finders (insight_displace.c, insight_wait.c, insight_pdb.c, insight_node.c). */
kp_status kp__ins_loops(const ins_run *r, kp_insight *in);
kp_status kp__ins_cascades(const ins_run *r, kp_insight *in);
kp_status kp__ins_starvation(const ins_run *r, kp_insight *in);
kp_status kp__ins_pdbs(const ins_run *r, kp_insight *in);
kp_status kp__ins_hotspots(const ins_run *r, kp_insight *in);
kp_status kp__ins_devices(const ins_run *r, kp_insight *in); /* insight_devices.c */

#endif
