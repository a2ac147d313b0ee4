/* Storage of the DRA objects (core/dra.h): DeviceClass, ResourceSlice, ResourceClaim and
 * ResourceClaimTemplate in the cluster's arrays, found by identity, dropped past a mark. */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/dra_store.h"
#include "core/meta.h"

/* The array of kind: its base pointer, element size, count and capacity. */
static void **dra_array(kp_cluster *cl, kp_dra_kind kind, size_t *sz, uint32_t **n,
                        uint32_t **cap) {
    kp_dra *d = &cl->dra;
    switch (kind) {
    case KP_DK_CLASS:
        *sz = sizeof *d->classes, *n = &d->n_classes, *cap = &d->cap_classes;
        return (void **)&d->classes;
    case KP_DK_SLICE:
        *sz = sizeof *d->slices, *n = &d->n_slices, *cap = &d->cap_slices;
        return (void **)&d->slices;
    case KP_DK_CLAIM:
        *sz = sizeof *d->claims, *n = &d->n_claims, *cap = &d->cap_claims;
        return (void **)&d->claims;
    case KP_DK_TEMPLATE:
    case KP_DK_KINDS: break;
    }
    *sz = sizeof *d->templates, *n = &d->n_templates, *cap = &d->cap_templates;
    return (void **)&d->templates;
}

bool kp__dra_kind_of(const char *kind, kp_dra_kind *out) {
    for (int k = 0; k < KP_DK_KINDS; k++)
        if (strcmp(kind, kp__dra_kind_name((kp_dra_kind)k)) == 0) {
            *out = (kp_dra_kind)k;
            return true;
        }
    return false;
}

void *kp__cluster_new_dra(kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name) {
    if ((unsigned)kind >= KP_DK_KINDS) return NULL;
    if (!kp__dra_kind_namespaced(kind)) ns = 0;
    size_t sz;
    uint32_t *n, *cap;
    void **arr = dra_array(cl, kind, &sz, &n, &cap);
    void *o = kp__cluster_dra_upsert(cl, kind, arr, n, cap, sz, ns, name);
    if (!o) return NULL;
    switch (kind) {
    case KP_DK_CLASS: ((kp_dra_class *)o)->name = name; break;
    case KP_DK_SLICE: ((kp_dra_slice *)o)->name = name; break;
    case KP_DK_CLAIM: {
        kp_dra_claim *c = o;
        c->ns = ns, c->name = name;
        c->creation_ts = c->deletion_ts = c->alloc_ts = KP_TIME_NONE;
        break;
    }
    case KP_DK_TEMPLATE:
    case KP_DK_KINDS: ((kp_dra_template *)o)->ns = ns, ((kp_dra_template *)o)->name = name; break;
    }
    return o;
}

long kp__cluster_find_dra(const kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name) {
    if ((unsigned)kind >= KP_DK_KINDS) return -1;
    return kp__cluster_dra_map_get(cl, kind, kp__dra_kind_namespaced(kind) ? ns : 0, name);
}

void kp__dra_counts(const kp_cluster *cl, uint32_t n[KP_DK_KINDS]) {
    n[KP_DK_CLASS] = cl->dra.n_classes;
    n[KP_DK_SLICE] = cl->dra.n_slices;
    n[KP_DK_CLAIM] = cl->dra.n_claims;
    n[KP_DK_TEMPLATE] = cl->dra.n_templates;
}

/* The identity of object i of kind (namespace 0 for the cluster-scoped kinds). */
static void identity(const kp_cluster *cl, kp_dra_kind kind, uint32_t i, kp_str *ns, kp_str *name) {
    *ns = 0;
    switch (kind) {
    case KP_DK_CLASS: *name = cl->dra.classes[i].name; return;
    case KP_DK_SLICE: *name = cl->dra.slices[i].name; return;
    case KP_DK_CLAIM: *ns = cl->dra.claims[i].ns, *name = cl->dra.claims[i].name; return;
    case KP_DK_TEMPLATE:
    case KP_DK_KINDS: break;
    }
    *ns = cl->dra.templates[i].ns, *name = cl->dra.templates[i].name;
}

void kp__dra_rollback(kp_cluster *cl, const uint32_t n[KP_DK_KINDS]) {
    for (int k = 0; k < KP_DK_KINDS; k++) {
        size_t sz;
        uint32_t *cnt, *cap;
        (void)dra_array(cl, (kp_dra_kind)k, &sz, &cnt, &cap);
        for (uint32_t i = n[k]; i < *cnt; i++) {
            kp_str ns, name;
            identity(cl, (kp_dra_kind)k, i, &ns, &name);
            kp__cluster_dra_map_del(cl, (kp_dra_kind)k, ns, name);
        }
        if (n[k] < *cnt) *cnt = n[k];
    }
}

void kp__dra_free(kp_cluster *cl) {
    for (int k = 0; k < KP_DK_KINDS; k++) {
        size_t sz;
        uint32_t *cnt, *cap;
        void **arr = dra_array(cl, (kp_dra_kind)k, &sz, &cnt, &cap);
        kp__free(*arr);
        *arr = NULL;
    }
}
