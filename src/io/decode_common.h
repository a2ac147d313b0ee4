/* Field decoders shared by the kind decoders (internal to src/io). Each reads one JSON/YAML
 * construct from a value tree into the model, reporting errors with the field path. */
#ifndef KP_IO_DECODE_COMMON_H
#define KP_IO_DECODE_COMMON_H

#include "core/cluster.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/volume.h"
#include "core/workload.h"
#include "io/dctx.h"
#include "io/tree.h"

#define KP_MAX_LIST 100000 /* entries of one label map: more is absurd input */
/* Entries of one list kept with a 16-bit count in the model (containers, ports, tolerations,
 * terms, expressions, values, ...): more is an error naming the limit, never a wrapped count. */
#define KP_MAX_ENTRIES 65535

/* KP_ELIMIT naming the limit (and the file, object and field key) when count > limit. */
kp_status kp__d_check_count(kp_dctx *d, const kp_tnode *n, const char *key, uint32_t count,
                            uint32_t limit);

/* Interns s[0..len) into *out; KP_ENOMEM (or KP_ELIMIT when the interner's ids are used up) as a
 * path error on node n / field otherwise. */
kp_status kp__d_intern(kp_dctx *d, kp_cluster *cl, const kp_tnode *n, const char *field,
                       const char *s, size_t len, kp_str *out);
kp_status kp__d_str(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key, kp_str *out);
kp_status kp__d_labels(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                       kp_labels *out);
kp_status kp__d_resources(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                          kp_resv *out);
kp_status kp__d_dense_resources(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                                int64_t *vals, bool *has);
kp_status kp__d_label_selector(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                               kp_label_selector *out);
/* Array of requirements (matchExpressions / matchFields); node_ops allows Gt/Lt. */
kp_status kp__d_selreqs(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                        bool node_ops, uint16_t *n, kp_selreq **out);
kp_status kp__d_str_list(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                         uint16_t *n, kp_str **out);
/* Conditions; only_type keeps just that type (NULL keeps all). */
kp_status kp__d_conditions(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                           const char *only_type, uint16_t *n, kp_condition **out);
/* Parses a quantity node (string or number) into the integer unit of resource name: cpu ->
 * millicores (MilliValue), everything else Value() rounded up. */
kp_status kp__d_quantity(kp_dctx *d, const kp_tnode *n, const char *field, bool milli,
                         int64_t *out);
void *kp__d_alloc(kp_dctx *d, kp_cluster *cl, size_t n);

/* taint/toleration effect; allow_empty for tolerations (all effects). */
kp_status kp__d_effect(kp_dctx *d, const kp_tnode *obj, bool allow_empty, kp_effect *out);

kp_status kp__decode_pod(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_pod *p);
kp_status kp__decode_node(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_node *n);
/* load.c: the one object of buf[0..len) (JSON or YAML) decoded into `into`, a kp_pod, kp_node,
 * kp_priority_class, kp_pdb, kp_workload or kp_namespace as kind says, set to its defaults by the
 * caller: the API server's update of an existing object (io/patch.c). Nothing is added to the
 * cluster (strings are interned, arrays go to its arena). KP_EINVAL: another kind, name or
 * namespace ("field is immutable"), a bad field (the loader's message), not one object. */
kp_status kp__load_into(kp_cluster *cl, const char *source, const char *buf, size_t len,
                        const char *kind, kp_str ns, kp_str name, void *into, kp_error *err);

/* decode_workload.c: Service, ReplicationController, ReplicaSet, StatefulSet, Deployment,
 * DaemonSet, Job, CronJob (core/workload.h); source names the input file in w->origin. */
bool kp__workload_kind(const char *kind, kp_workload_kind *out);
bool kp__workload_api_ok(kp_workload_kind kind, const char *api);
kp_status kp__decode_workload(kp_dctx *d, kp_cluster *cl, const char *source, const kp_tnode *obj,
                              kp_workload *w);
/* decode_volume.c: PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
 * VolumeAttachment (core/volume.h); o is the object kp__cluster_new_volume made for kind. */
bool kp__volume_kind(const char *kind, kp_volume_kind *out);
bool kp__volume_api_ok(kp_volume_kind kind, const char *api);
kp_status kp__decode_volume(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_volume_kind kind,
                            void *o);
/* spec.volumes[i] (t) of pod p: the scheduler's volume sources into v (kp_volume.source). */
kp_status kp__decode_volume_source(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, const kp_pod *p,
                                   kp_volume *v);
/* Interns source and, when object, d->object (the object's name in errors) into *out. */
kp_status kp__d_origin(kp_dctx *d, kp_cluster *cl, const char *source, bool object, kp_origin *out);

#endif
