/* The JSON encoding behind kp_cluster_encode_json (internal to src/io): base/json.h's streaming
 * writer (objects, arrays and scalars with a sticky error) and the value spellings the API
 * server prints (sorted maps, quantities, RFC 3339 times). encode_cluster.c writes the objects,
 * encode_pod.c pods and pod templates with it. */
#ifndef KP_IO_ENCODE_JSON_H
#define KP_IO_ENCODE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "core/workload.h"
#include "kprio/encode.h"
#include "kprio/quantity.h"

/* Nesting the encoder itself produces: a pod template inside a CronJob is the deepest, about 14
 * levels. Not a limit of the input: the depth is fixed by the code, and a deeper call is a bug
 * that fails the encoding with KP_ELIMIT (rule 8: named in that error). */
#define KP__ENC_MAX_DEPTH 32
#define KP__ENC_QCACHE 512 /* entries of kp__enc.qcache (a power of two) */

typedef struct {
    kp_str text; /* 0: empty slot */
    kp_quantity_str s;
} kp__enc_qslot;

typedef struct {
    const kp_cluster *cl;
    kp_error *err;
    /* the JSON writer (base/json.h): pieces of at most 64 KiB to the caller's kp_write_fn; in the
     * compact look a List's items (depth 2) one per line */
    kp__json j;
    /* scratch for sorting a label map by key (grows to the largest map met) */
    const char **pairs;
    size_t cap_pairs;
    /* Quantity.String() of recently written quantity texts (kp_resent.text ids), direct-mapped:
     * replicas repeat the same few spellings, and parsing each again is most of the work */
    kp__enc_qslot *qcache;
} kp__enc;

kp_status kp__enc_init(kp__enc *e, const kp_cluster *cl, bool pretty, kp_write_fn w, void *ctx,
                       kp_error *err);
/* Flushes what is buffered (on success) and releases the buffers; returns e->j.st. */
kp_status kp__enc_finish(kp__enc *e);

/* A line break (the end of the document). */
void kp__enc_newline(kp__enc *e);

/* Containers: key is the member name inside an object, NULL for an array element or the top. */
void kp__enc_obj(kp__enc *e, const char *key);
void kp__enc_arr(kp__enc *e, const char *key);
void kp__enc_end_obj(kp__enc *e);
void kp__enc_end_arr(kp__enc *e);

/* Scalars. */
void kp__enc_str(kp__enc *e, const char *key, const char *s);
void kp__enc_int(kp__enc *e, const char *key, int64_t v);
void kp__enc_bool(kp__enc *e, const char *key, bool v);
/* An interned string; nothing when it is unset (id 0, the empty string). */
void kp__enc_sid(kp__enc *e, const char *key, kp_str s);
/* A time (unix seconds) in RFC 3339; nothing when KP_TIME_NONE. */
void kp__enc_time(kp__enc *e, const char *key, int64_t secs);

/* apiVersion, kind and the start of metadata (name, namespace when ns is not 0): the caller
 * writes the rest of metadata and closes it. */
void kp__enc_head(kp__enc *e, const char *api, const char *kind, kp_str ns, kp_str name);

/* A map of strings (labels, annotations, nodeSelector), keys sorted as Go's encoding/json sorts
 * map keys; with always false an empty map is not written. */
void kp__enc_labels(kp__enc *e, const char *key, const kp_labels *l, bool always);
/* The same with one more pair, extra (NULL: none), unless l has its key already. */
void kp__enc_labels_plus(kp__enc *e, const char *key, const kp_labels *l, const kp_label *extra,
                         bool always);
/* A quantity read from text (kp_resent.text, a sizeLimit): Quantity.String() of it (the text
 * when ParseQuantity keeps it, else the canonical form); with no text, the amount v of resource
 * res (KP_RES_CPU: millicores; -1 for a byte count) spelt as a kubelet would. */
void kp__enc_quantity(kp__enc *e, const char *key, int res, kp_str text, int64_t v);
/* A resource list (requests, limits, overhead, ...) with keys sorted; with always false an
 * empty list is not written. */
void kp__enc_resv(kp__enc *e, const char *key, const kp_resv *v, bool always);
/* A node's dense amounts (capacity, allocatable): the resources with has[r] (has NULL: the
 * non-zero ones). */
void kp__enc_dense(kp__enc *e, const char *key, const int64_t *v, const bool *has);
/* metav1.LabelSelector; nothing when it is nil (is_set false). */
void kp__enc_selector(kp__enc *e, const char *key, const kp_label_selector *s);
/* A list of requirements (matchExpressions / matchFields). */
void kp__enc_selreqs(kp__enc *e, const char *key, uint16_t n, const kp_selreq *r);
/* v1.NodeSelectorTerm as an element of an array (key NULL) or a member. */
void kp__enc_nsterm(kp__enc *e, const char *key, const kp_nsterm *t);
/* A list of strings; nothing when empty. */
void kp__enc_strs(kp__enc *e, const char *key, uint16_t n, const kp_str *s);

/* encode_pod.c: a Pod (an element of the List), a pod template (a PodTemplateSpec member, with
 * one more label, extra, when not NULL), a taint effect's name. */
void kp__enc_pod(kp__enc *e, const kp_pod *p);
void kp__enc_pod_template(kp__enc *e, const char *key, const kp_pod *p, const kp_label *extra);
/* A pod template's identity (kp_workload.template_fp, template_hash32): fnv-1a 64 and 32 over
 * the template as kp__enc_pod_template writes it, its pod-template-hash label left out. KP_ENOMEM.
 */
kp_status kp__enc_template_fp(const kp_cluster *cl, const kp_pod *t, uint64_t *fp, uint32_t *h32);
const char *kp__enc_effect(kp_effect x);
/* encode_cluster.c: one object as its own JSON document (io/patch.c): kind "Pod", "Node",
 * "PriorityClass", "PodDisruptionBudget", "Namespace", else a workload; i its index in the
 * cluster's array of that kind. Errors as kp_cluster_encode_json's. */
kp_status kp__encode_object(const kp_cluster *cl, const char *kind, uint32_t i, kp_write_fn w,
                            void *ctx, kp_error *err);
/* encode_workload.c: a Service or a controller. */
void kp__enc_workload(kp__enc *e, const kp_workload *w);
/* encode_dra.c: every DRA object (resource.k8s.io/v1: classes, slices, templates, claims), and a
 * pod's spec.resourceClaims / status.resourceClaimStatuses (nothing when it has none). */
void kp__enc_dra(kp__enc *e);
void kp__enc_pod_claims(kp__enc *e, const kp_pod *p);
void kp__enc_pod_claim_statuses(kp__enc *e, const kp_pod *p);

#endif
