/* The claim-state writers the scheduler calls at bind (core/dra.h, "claim state"): a claim's
 * status.allocation and status.reservedFor, written once the scheduler chose the pod's node, as
 * DynamicResources' PreBind does through the API server (dynamicresources.go bindClaim). The
 * resourceclaim controller's writers (unreserve, deallocate, delete) live beside the claims'
 * creation from templates. Arrays go to the cluster arena: a claim's status is small and
 * written a few times in a run. */
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"

/* mirrors bindClaim's status update: the allocation result of a claim not allocated yet */
kp_status kp__dra_claim_allocate(kp_cluster *cl, uint32_t claim, const kp_dra_result *res,
                                 uint16_t n_res, const kp_dra_nodes *nodes, int64_t now) {
    if (claim >= cl->dra.n_claims) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (c->allocated || c->deleted) return KP_EINVAL;
    kp_dra_result *copy = NULL;
    if (n_res) {
        copy = kp__arena_dup(&cl->arena, res, (size_t)n_res * sizeof *res);
        if (!copy) return KP_ENOMEM;
    }
    for (uint16_t i = 0; i < n_res; i++) /* consumedCapacity (a shared device's) is the caller's */
        if (copy[i].n_consumed && !(copy[i].consumed = kp__arena_dup(&cl->arena, res[i].consumed,
                                                                     (size_t)res[i].n_consumed *
                                                                         sizeof *res[i].consumed)))
            return KP_ENOMEM;
    c->results = copy;
    c->n_results = n_res;
    c->alloc_has_nodes = nodes != NULL;
    if (nodes) c->alloc_nodes = *nodes;
    else memset(&c->alloc_nodes, 0, sizeof c->alloc_nodes);
    c->alloc_ts = now;
    c->allocated = true;
    cl->dra.gen_claims++;
    return KP_OK;
}

/* mirrors bindClaim's reservedFor append (ResourceClaimConsumerReference of the pod) */
kp_status kp__dra_claim_reserve(kp_cluster *cl, uint32_t claim, uint32_t pod) {
    if (claim >= cl->dra.n_claims || pod >= cl->n_pods) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (!c->allocated) return KP_EINVAL;
    const kp_pod *p = &cl->pods[pod];
    for (uint16_t i = 0; i < c->n_reserved; i++)
        if (c->reserved[i].uid == p->uid && c->reserved[i].name == p->name) return KP_OK;
    if (c->n_reserved == UINT16_MAX) return KP_EINVAL;
    if (c->n_reserved + 1u > c->cap_reserved) { /* doubles in the arena; the old copy stays */
        uint32_t cap = c->cap_reserved ? 2 * c->cap_reserved : 4;
        while (cap < c->n_reserved + 1u) cap *= 2;
        kp_dra_consumer *r = kp__arena_alloc(&cl->arena, (size_t)cap * sizeof *r);
        if (!r) return KP_ENOMEM;
        if (c->n_reserved) memcpy(r, c->reserved, (size_t)c->n_reserved * sizeof *r);
        c->reserved = r;
        c->cap_reserved = cap;
    }
    kp_dra_consumer *e = &c->reserved[c->n_reserved++];
    e->resource = kp__intern(&cl->strs, "pods", 4);
    e->name = p->name;
    e->uid = p->uid;
    if (!e->resource) {
        c->n_reserved--;
        return KP_ENOMEM;
    }
    cl->dra.gen_claims++;
    return KP_OK;
}
