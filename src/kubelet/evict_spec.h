/* Spec quantities as the pod spelt them (internal): what eviction messages print for requests,
 * limits, overheads and emptyDir size limits (Quantity.String of the spec's quantity). */
#ifndef KP_KUBELET_EVICT_SPEC_H
#define KP_KUBELET_EVICT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/resources.h"
#include "kprio/eviction.h"
#include "kprio/quantity.h"

/* A spec quantity as upstream holds it: exact value, format, and whether String() returns the
 * text ParseQuantity cached (kept) or the canonical form. */
typedef struct {
    kp_quantity q;
    bool kept;
    char str[KP_QUANTITY_STR_MAX];
} kp__ev_qty;

/* Where spec spellings come from: the caller's function when set, else the cluster model. */
typedef struct {
    const kp_cluster *cl;
    kp_evict_spec_text_fn fn;
    void *ctx;
} kp__ev_spec_src;

/* The quantity behind the model integer v of a pod's spec field (see evict_spec.c). */
void kp__ev_spec_qty(const kp__ev_spec_src *src, uint32_t pod, kp_evict_spec_field f,
                     const char *name, const char *res, int64_t v, kp__ev_qty *out);
/* Quantity.String() */
const char *kp__ev_qty_str(kp__ev_qty *x);
/* Quantity.Add (int_sum: the sum of the model integers, used beyond int64). */
void kp__ev_qty_add(kp__ev_qty *a, const kp__ev_qty *b, int64_t int_sum);
/* addResourceList for one resource: the first value is a DeepCopy, later ones are added. */
void kp__ev_qty_accumulate(kp__ev_qty *acc, bool *has, const kp__ev_qty *v, int64_t int_sum);

/* The value of resource r in v; false when absent. */
static inline bool kp__ev_resv_find(const kp_resv *v, int r, int64_t *out) {
    for (uint16_t i = 0; i < v->n; i++)
        if (v->e[i].res == r) {
            *out = v->e[i].v;
            return true;
        }
    return false;
}

#endif
