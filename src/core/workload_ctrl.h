/* Core's internal calls for the controllers (src/ctrl/; workload expansion, kp_ctrl_expand, is
 * their sync at t = 0, switched on by kp_cluster_set_expand in kprio/cluster.h): generated names,
 * the rule of which nodes run a DaemonSet's pod (component-helpers' node affinity and taint
 * toleration, kept once here), and the objects a controller makes. */
#ifndef KP_CORE_WORKLOAD_CTRL_H
#define KP_CORE_WORKLOAD_CTRL_H

#include "core/cluster.h"
#include "core/pod.h"
#include "core/workload.h"
#include "kprio/common.h"

/* Generated names: upstream's generateName suffix alphabet (utilrand.String) and length. */
#define KP_NAME_ALPHABET "bcdfghjklmnpqrstvwxz2456789"
#define KP_NAME_SUFFIX_LEN 5

/* workload_names.c: the pod-template-hash stand-in of w's new ReplicaSet (up to 10 characters of
 * the alphabet; generated pod names are kp_cluster_generate_pod_name's, kprio/cluster.h). */
void kp__workload_template_hash(const kp_cluster *cl, const kp_workload *w, char out[16]);

/* StatefulSet and DaemonSet revisions (kp_workload.tmpl_rev, cur_rev; workload_names.c).
 * kp__workload_revision_label: the controller-revision-hash label value of revision rev of w
 * (a StatefulSet's: the revision's name NAME-HASH; a DaemonSet's: the hash), into out.
 * kp__pod_at_revision: pod p carries that label of revision rev (getPodRevision ==
 * revision.Name, IsPodUpdated); revision 0, the template as loaded, counts every pod the
 * snapshot had as at it, whatever its label. kp__workload_rollout_done: completeRollingUpdate,
 * status.currentRevision becomes the update revision. */
void kp__workload_revision_label(const kp_cluster *cl, const kp_workload *w, uint32_t rev,
                                 char *out, size_t cap);
bool kp__pod_at_revision(const kp_cluster *cl, const kp_pod *p, const kp_workload *w, uint32_t rev);
void kp__workload_rollout_done(kp_workload *w);

/* The deployment controller's new ReplicaSet for Deployment di (getNewReplicaSet; one that
 * exists under that name is returned instead): named NAME-HASH (kp__workload_template_hash),
 * the Deployment's selector and template plus the pod-template-hash label, its replicas,
 * controlled by it; *out its index. KP_ENOMEM. */
kp_status kp__workload_new_replicaset(kp_cluster *cl, uint32_t di, uint32_t *out);
/* The same for a Deployment with a template, index checked, schedulers told to rebuild (a new
 * selector for default spreading). KP_EINVAL (not a Deployment with a template), KP_ENOMEM. */
kp_status kp__cluster_deployment_new_replicaset(kp_cluster *cl, kp_index deployment, kp_index *out,
                                                kp_error *err);

/* The deployment controller's writes (cluster_sim.c): a string interned for a kp_deploy_status
 * (UINT32_MAX: out of memory); Deployment d's status (KP_EINVAL: not a Deployment); a
 * ReplicaSet's revision (KP_EINVAL: not a ReplicaSet). */
kp_str kp__cluster_intern_str(kp_cluster *cl, const char *s);
kp_status kp__cluster_deployment_status_set(kp_cluster *cl, kp_index deployment,
                                            const kp_deploy_status *st);
kp_status kp__cluster_replicaset_revision_set(kp_cluster *cl, kp_index rs, int64_t revision);

/* The CronJob controller's Job (mirrors getJobFromTemplate2): named `name`, the CronJob's
 * jobTemplate (labels, spec, pod template), controlled by it, no status; schedulers told to
 * rebuild. *out: its index; -1 when a Job of that name exists already (nothing created: the API
 * server's AlreadyExists, which the controller does not report). KP_EINVAL (not a CronJob with
 * a template), KP_ENOMEM. */
kp_status kp__cluster_cronjob_new_job(kp_cluster *cl, kp_index cronjob, const char *name,
                                      kp_index *out, kp_error *err);

/* l with key=val set: a new sorted array in the cluster arena (the old one is not changed, it
 * may be shared). KP_ENOMEM. */
kp_status kp__labels_set(kp_cluster *cl, kp_labels *l, const char *key, const char *val);

/* workload_daemon.c: the DaemonSet controller's rules. kp__daemon_should_run mirrors
 * NodeShouldRunDaemonPod (w has a template); kp__daemon_tolerations the template's tolerations
 * with the controller's defaults (AddOrUpdateDaemonPodTolerations; arena, KP_ENOMEM);
 * kp__daemon_pin the template's node affinity pinned to node (NULL: out of memory);
 * kp__pod_target_node GetTargetNodeName (0 when none). */
struct kp_node;
void kp__daemon_should_run(const kp_cluster *cl, const kp_workload *w, const struct kp_node *node,
                           bool *should_run, bool *should_continue);
kp_status kp__daemon_tolerations(kp_cluster *cl, const kp_workload *w, kp_toleration **out,
                                 uint16_t *n_out);
kp_node_affinity *kp__daemon_pin(kp_cluster *cl, const kp_pod *t, kp_str node);
kp_str kp__pod_target_node(const kp_cluster *cl, const kp_pod *p);

#endif
