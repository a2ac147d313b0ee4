/* Priority-class layouts (internal; the public face is include/kprio/priority_layout.h): a set of
 * PriorityClasses and the ordered assignment of pods and workloads' pod templates to them,
 * decoded by src/io/decode_priority_layout.c and applied by kp_cluster_finalize
 * (src/core/priority_layout.c) to a cluster that kp_cluster_set_priority_layout was given. */
#ifndef KP_CORE_PRIORITY_LAYOUT_H
#define KP_CORE_PRIORITY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/labels.h"
#include "kprio/cluster.h"
#include "kprio/priority_layout.h"

struct kp_pod;

/* priorityClasses[i]: what a PriorityClass holds (scheduling.k8s.io/v1), validated as the API
 * server validates a create (kp__priority_class_check). */
typedef struct {
    char *name, *description; /* description "" when none */
    int32_t value;
    bool global_default;
    bool has_preemption_policy;
    bool preempt_never; /* preemptionPolicy Never (else PreemptLowerPriority) */
    char object[160]; /* "priorityClasses[2] (PriorityClass batch)", for errors */
} kp_layout_class;

/* assignments[i]: the class, and what it matches (every criterion given must hold; none given:
 * every pod). */
typedef struct {
    char *class_name;
    char *ns; /* NULL: any namespace */
    char *wl_kind, *wl_name; /* workload: kind (NULL: none given), name (NULL: any of the kind) */
    const kp_selector_req *reqs; /* selector (matchLabels, then matchExpressions) */
    size_t n_reqs;
} kp_layout_assignment;

struct kp_priority_layout {
    const char *source; /* the file, for errors */
    kp_layout_class *classes;
    size_t n_classes;
    kp_layout_assignment *assignments;
    size_t n_assignments;
};

/* The index of the first assignment of layout that matches pod p of cl (its namespace, its
 * controller chain, its labels), -1 when none. */
long kp__layout_match_pod(const kp_cluster *cl, const kp_priority_layout *layout,
                          const struct kp_pod *p);
/* Applies the layout's assignment to pod p before the Priority admission plugin's resolution
 * (kp_cluster_finalize's): a matched pod gets the assignment's class; a pod whose class (then)
 * is one of the layout's loses spec.priority and spec.preemptionPolicy, so that finalize resolves
 * them from the layout's class as it resolves a created pod's. Static pods and pods of the
 * system- classes are left as they are. */
void kp__layout_apply_pod(kp_cluster *cl, struct kp_pod *p);
/* The first finalize of a cluster with a layout: the snapshot's PriorityClasses other than the
 * built-in system- ones deleted and the layout's created (named in errors by the layout's file
 * and object), and the pod templates of every workload assigned as their pods are. Errors:
 * KP_ENOMEM; KP_EINVAL when a pod or template the layout matches nothing of names a class the
 * layout does not have. */
kp_status kp__layout_apply_classes(kp_cluster *cl, kp_error *err);
/* The templates of workloads [from, n_workloads) assigned (an incremental finalize's new
 * workloads). */
void kp__layout_apply_templates(kp_cluster *cl, uint32_t from);

/* PriorityClass validation (ValidatePriorityClass): NULL when a class of that name, value and
 * globalDefault may be created by a user (builtin false) or is a built-in one as it must be;
 * else the field ("metadata.name", "value") with the API server's reason in what. */
const char *kp__priority_class_check(const char *name, int32_t value, bool global_default,
                                     bool builtin, char *what, size_t cap);

#endif
