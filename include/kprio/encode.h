/* Writing a cluster back as Kubernetes objects: the model (as loaded, or as the engines and the
 * simulator left it) as a kubectl-style `v1 List` in JSON, which every kprio command loads again
 * (`kprio simulate --final-snapshot FILE` writes it).
 *
 * Typical use (the library never creates files: the caller passes a writer):
 *     static kp_status to_file(void *ctx, const char *buf, size_t len) {
 *         return fwrite(buf, 1, len, (FILE *)ctx) == len ? KP_OK : KP_EIO;
 *     }
 *     ...
 *     kp_encode_options o;
 *     kp_encode_options_init(&o);
 *     o.pretty = true;                                   // kubectl get -o json's look
 *     FILE *f = fopen("final.json", "w");
 *     if (kp_cluster_encode_json(cl, &o, to_file, f, &err) != KP_OK) ...   // remove the file
 *     fclose(f);
 *
 * What is written (docs/api.md, "encode.h", lists it field by field): every object kprio decoded,
 * in this order — Namespaces, PriorityClasses (not the two built-in ones), Nodes, storage objects
 * (PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers,
 * VolumeAttachments), workloads (Services and controllers), PodDisruptionBudgets, Pods — each kind
 * in load order, each object with its apiVersion and kind and the fields the decoders keep, as the
 * API server prints them: map keys sorted, quantities as Quantity.String() prints them (the text
 * as written when upstream keeps it, else the canonical form), times in RFC 3339 ("2026-01-02T03:
 * 04:05Z"). Fields the model does not keep are not written (container commands, env, most
 * annotations, ...); loading the output gives the same model, so the engines decide the same. Pods
 * deleted through kp_cluster_delete_pod are left out. */
#ifndef KP_ENCODE_H
#define KP_ENCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "kprio/cluster.h"
#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives the output in pieces, in order (never an empty piece). Return KP_OK, or an error
 * (typically KP_EIO) that stops the encoding and is returned by kp_cluster_encode_json. */
typedef kp_status (*kp_write_fn)(void *ctx, const char *buf, size_t len);

typedef struct {
    /* false (default): one List item per line, compact; true: indented with 4 spaces, one member
     * per line, as `kubectl get -o json` prints */
    bool pretty;
} kp_encode_options;

/* Defaults: compact, one item per line. */
void kp_encode_options_init(kp_encode_options *o);

/* Writes the cluster as a v1 List through w (o NULL: the defaults). The cluster may be finalized
 * or not, and may have been changed by the engines since (bindings, nominations, terminating
 * victims). The output is streamed in pieces of at most 64 KiB: on an error part of it may have
 * been written already, and the caller discards it. Errors: whatever w returns (err says "write
 * failed"), KP_ENOMEM, KP_EINVAL (cl or w NULL). */
kp_status kp_cluster_encode_json(const kp_cluster *cl, const kp_encode_options *o, kp_write_fn w,
                                 void *ctx, kp_error *err);

#ifdef __cplusplus
}
#endif
#endif
