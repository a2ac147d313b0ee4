/* The claim lifecycle the resourceclaim controller writes (core/dra.h, "claim lifecycle" and
 * "claim state"): a pod's claim made from its ResourceClaimTemplate, the pod's
 * status.resourceClaimStatuses, reservations dropped, allocations cleared, claims deleted. The
 * scheduler's writes (allocate, reserve) are core/dra_state.c's; every change of a claim bumps
 * kp_dra.gen_claims so a scheduler's device index catches up. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/finalize.h"
#include "core/meta.h"
#include "core/workload_ctrl.h"

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

/* The generateName base and its truncation (mirrors Controller.handleClaim, its first lines):
 * 57 bytes leave room for the API server's 5 random characters in a 63-byte name; past that both
 * names are cut in proportion (no trailing "-" then, as upstream writes it) */
void kp__dra_claim_generate_base(const char *pod, const char *pod_claim, char *out, size_t cap) {
    size_t lp = strlen(pod), lc = strlen(pod_claim), total = lp + lc + 2;
    const size_t max_base = 57;
    if (total <= max_base) {
        snprintf(out, cap, "%s-%s-", pod, pod_claim);
        return;
    }
    snprintf(out, cap, "%.*s-%.*s", (int)(lp * max_base / total), pod, (int)(lc * max_base / total),
             pod_claim);
}

long kp__dra_pod_claim(const kp_cluster *cl, uint32_t pod, uint16_t pc) {
    if (pod >= cl->n_pods || pc >= cl->pods[pod].n_claims) return -1;
    const kp_pod_claim *c = &cl->pods[pod].claims[pc];
    kp_str name = c->claim_name ? c->claim_name : c->status_claim;
    if (!name) return -1;
    return kp__cluster_find_dra(cl, KP_DK_CLAIM, cl->pods[pod].ns, name);
}

kp_status kp__dra_claim_create(kp_cluster *cl, uint32_t pod, uint16_t pc, const char *name,
                               int64_t now, uint32_t *out) {
    if (pod >= cl->n_pods || pc >= cl->pods[pod].n_claims ||
        !cl->pods[pod].claims[pc].template_name)
        return KP_EINVAL;
    const kp_pod *p = &cl->pods[pod];
    long t = kp__cluster_find_dra(cl, KP_DK_TEMPLATE, p->ns, p->claims[pc].template_name);
    if (t < 0 || cl->dra.templates[t].deleted) return KP_ENOTFOUND;
    kp_str nid = intern(cl, name), pod_kind = intern(cl, "Pod");
    kp_str ann = intern(cl, "resource.kubernetes.io/pod-claim-name");
    if (nid == UINT32_MAX || pod_kind == UINT32_MAX || ann == UINT32_MAX) return KP_ENOMEM;
    if (kp__cluster_find_dra(cl, KP_DK_CLAIM, p->ns, nid) >= 0) return KP_EINVAL;
    char uid[48];
    kp__pod_make_uid(cl, p->ns, name, cl->dra.n_claims | 0x80000000u, uid, sizeof uid);
    kp_str uid_id = intern(cl, uid);
    if (uid_id == UINT32_MAX) return KP_ENOMEM;
    /* the annotations: the template's spec.metadata ones plus the pod claim's name */
    const kp_dra_template *tp = &cl->dra.templates[t];
    kp_labels annotations = tp->annotations;
    if (kp__labels_set(cl, &annotations, "resource.kubernetes.io/pod-claim-name",
                       kp__s(cl, p->claims[pc].name)) != KP_OK)
        return KP_ENOMEM;
    kp_dra_claim *c = kp__cluster_new_dra(cl, KP_DK_CLAIM, p->ns, nid);
    if (!c) return KP_ENOMEM;
    p = &cl->pods[pod];
    tp = &cl->dra.templates[t];
    c->uid = uid_id;
    c->labels = tp->labels;
    c->annotations = annotations;
    c->pod_claim_name = p->claims[pc].name;
    c->owner_kind = pod_kind;
    c->owner_name = p->name;
    c->owner_uid = p->uid;
    c->creation_ts = now;
    c->deletion_ts = KP_TIME_NONE;
    c->spec = tp->spec; /* read-only arrays of the arena, shared with the template */
    c->alloc_ts = KP_TIME_NONE;
    c->src_file = tp->src_file;
    *out = (uint32_t)(c - cl->dra.claims);
    cl->dra.gen_claims++;
    return KP_OK;
}

kp_status kp__dra_pod_set_claim_status(kp_cluster *cl, uint32_t pod, uint16_t pc, kp_str claim) {
    if (pod >= cl->n_pods || pc >= cl->pods[pod].n_claims) return KP_EINVAL;
    kp_pod *p = &cl->pods[pod];
    /* a pod a controller made shares its template's array: the status is the pod's own */
    kp_pod_claim *own = kp__arena_alloc(&cl->arena, (size_t)p->n_claims * sizeof *own);
    if (!own) return KP_ENOMEM;
    memcpy(own, p->claims, (size_t)p->n_claims * sizeof *own);
    own[pc].status_claim = claim;
    own[pc].has_status = true;
    p->claims = own;
    cl->dra.gen_claims++;
    return KP_OK;
}

kp_status kp__dra_claim_unreserve(kp_cluster *cl, uint32_t claim, uint32_t pod) {
    if (claim >= cl->dra.n_claims || pod >= cl->n_pods) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    kp_str uid = cl->pods[pod].uid, name = cl->pods[pod].name;
    uint16_t n = 0;
    for (uint16_t i = 0; i < c->n_reserved; i++) /* a snapshot's pods may come without uids */
        if (c->reserved[i].uid != uid || c->reserved[i].name != name)
            c->reserved[n++] = c->reserved[i];
    if (n == c->n_reserved) return KP_OK;
    c->n_reserved = n;
    cl->dra.gen_claims++;
    return KP_OK;
}

kp_status kp__dra_claim_drop_reservation(kp_cluster *cl, uint32_t claim, uint16_t i) {
    if (claim >= cl->dra.n_claims || i >= cl->dra.claims[claim].n_reserved) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    memmove(&c->reserved[i], &c->reserved[i + 1],
            (size_t)(c->n_reserved - i - 1) * sizeof *c->reserved);
    c->n_reserved--;
    cl->dra.gen_claims++;
    return KP_OK;
}

/* status.allocation cleared (the API server's validation refuses it while reservedFor is set) */
kp_status kp__dra_claim_deallocate(kp_cluster *cl, uint32_t claim) {
    if (claim >= cl->dra.n_claims) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (c->n_reserved) return KP_EINVAL;
    if (!c->allocated) return KP_OK;
    c->allocated = false;
    c->n_results = 0;
    c->results = NULL;
    c->alloc_has_nodes = false;
    memset(&c->alloc_nodes, 0, sizeof c->alloc_nodes);
    c->alloc_ts = KP_TIME_NONE;
    c->n_device_status = 0; /* status.devices name allocated devices only (validation) */
    cl->dra.gen_claims++;
    return KP_OK;
}

/* The claim leaves the cluster (its finalizer gone: an allocated claim is deallocated first, as
 * syncClaim does before the finalizer comes off); its name is free again. */
kp_status kp__dra_claim_delete(kp_cluster *cl, uint32_t claim) {
    if (claim >= cl->dra.n_claims) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (c->deleted) return KP_OK;
    c->n_reserved = 0;
    kp_status st = kp__dra_claim_deallocate(cl, claim);
    if (st != KP_OK) return st;
    c->deleted = true;
    kp__cluster_forget_identity(cl, "ResourceClaim", c->ns, c->name);
    cl->dra.gen_claims++;
    return KP_OK;
}

/* ---------------------------------------------------------------- the public view */

size_t kp_cluster_claim_count(const kp_cluster *cl) { return cl->dra.n_claims; }

static const char *first_class(const kp_cluster *cl, const kp_dra_claim_spec *sp) {
    if (!sp->n_requests) return "";
    const kp_dra_request *r = &sp->requests[0];
    kp_str cls = r->first_available && r->n_subs ? r->subs[0].class_name : r->exactly.class_name;
    return cls ? kp__s(cl, cls) : "";
}

kp_status kp_cluster_claim_info(const kp_cluster *cl, kp_index claim, kp_claim_info *out) {
    if (claim < 0 || (size_t)claim >= cl->dra.n_claims) return KP_EINVAL;
    const kp_dra_claim *c = &cl->dra.claims[claim];
    *out = (kp_claim_info){
        .ns = kp__s(cl, c->ns),
        .name = kp__s(cl, c->name),
        .device_class = first_class(cl, &c->spec),
        .owner_pod = c->owner_kind && strcmp(kp__s(cl, c->owner_kind), "Pod") == 0
                         ? kp__s(cl, c->owner_name)
                         : "",
        .allocated = c->allocated,
        .deleted = c->deleted,
        .n_reserved = c->n_reserved,
        .n_devices = c->n_results,
    };
    return KP_OK;
}

/* a pod's claims: its spec.resourceClaims, then the claim of its extended resources its status
 * names (core/dra_ext.c) */
size_t kp_cluster_pod_claim_count(const kp_cluster *cl, kp_index pod) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return 0;
    return cl->pods[pod].n_claims + (cl->pods[pod].ext_claim != NULL);
}

kp_index kp_cluster_pod_claim(const kp_cluster *cl, kp_index pod, size_t i) {
    if (pod < 0 || (size_t)pod >= cl->n_pods) return -1;
    if (i == cl->pods[pod].n_claims && cl->pods[pod].ext_claim) {
        long c = kp__dra_pod_ext_claim(cl, (uint32_t)pod);
        return c >= 0 ? (kp_index)c : -1;
    }
    if (i >= cl->pods[pod].n_claims) return -1;
    long c = kp__dra_pod_claim(cl, (uint32_t)pod, (uint16_t)i);
    return c >= 0 && !cl->dra.claims[c].deleted ? (kp_index)c : -1;
}
