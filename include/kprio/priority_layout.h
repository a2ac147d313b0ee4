/* Priority-class layouts (`kprio simulate --compare-priorities A.yaml B.yaml`; the format is
 * docs/simulate.md "Priority-class layouts"): apiVersion kprio/v1alpha1, kind PriorityLayout, a
 * set of PriorityClasses and the ordered assignment of pods to them by namespace, workload and
 * label selector (the first assignment that matches wins; a pod matched by none keeps its
 * class). Given to a cluster before kp_cluster_finalize (kp_cluster_set_priority_layout), it is
 * applied as a re-deploy would apply it: the layout's classes replace the snapshot's (the
 * built-in system- classes stay), and every pod and pod template of a layout class gets the
 * priority the Priority admission plugin resolves from it.
 *
 * Typical use:
 *     kp_priority_layout *l = NULL;
 *     if (kp_priority_layout_load_path("layout.yaml", &l, &err) != KP_OK) ...
 *     kp_cluster *cl = kp_cluster_new();
 *     kp_cluster_load_path(cl, "snapshot.json", false, &err);
 *     kp_cluster_set_priority_layout(cl, l);
 *     kp_cluster_finalize(cl, &err);
 *     ...
 *     kp_cluster_free(cl);
 *     kp_priority_layout_free(l);        // after every cluster it was given to */
#ifndef KP_PRIORITY_LAYOUT_H
#define KP_PRIORITY_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kp_priority_layout kp_priority_layout;

/* Reads a layout file (YAML or JSON, one document), decoded strictly: unknown fields, duplicate
 * keys, a duplicate or invalid class (a PriorityClass create's validation: the system- prefix,
 * value at most 1000000000, one globalDefault), an assignment naming a class that is neither the
 * layout's nor a system- one, or an invalid namespace, workload kind or label selector is
 * KP_EINVAL with "FILE: FIELD: what is wrong" (err->source the file). KP_EIO, KP_ELIMIT (a file
 * over 64 MiB), KP_ENOMEM. */
kp_status kp_priority_layout_load_path(const char *path, kp_priority_layout **out, kp_error *err);
/* The same from a buffer; source names it in errors. */
kp_status kp_priority_layout_load_buffer(const char *source, const char *buf, size_t len,
                                         kp_priority_layout **out, kp_error *err);
/* NULL: no-op. */
void kp_priority_layout_free(kp_priority_layout *layout);

/* The layout's classes (file order): name and value; "" / 0 out of range. */
size_t kp_priority_layout_class_count(const kp_priority_layout *layout);
const char *kp_priority_layout_class_name(const kp_priority_layout *layout, size_t i);
int32_t kp_priority_layout_class_value(const kp_priority_layout *layout, size_t i);
size_t kp_priority_layout_assignment_count(const kp_priority_layout *layout);

/* The assignment pod of cl matches (its index: the first that matches), -1 when none or pod is
 * out of range. An assignment matches a pod when every criterion it gives holds: namespace, the
 * pod's own namespace; workload, the pod's controller or one above it (a ReplicaSet's
 * Deployment, a Job's CronJob) of that kind (and name); selector, the pod's labels. */
long kp_priority_layout_match_pod(const kp_priority_layout *layout, const kp_cluster *cl,
                                  kp_index pod);

#ifdef __cplusplus
}
#endif
#endif
