/* A Pod's Dynamic Resource Allocation fields: spec.resourceClaims (by claim name or template),
 * the containers' resources.claims naming them, and status.resourceClaimStatuses (the claims the
 * resourceclaim controller generated from templates), validated as ValidatePodSpec's
 * validatePodResourceClaims / validateResourceClaimNames and the status update do. */
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* mirrors validatePodResourceClaim: a DNS label name, exactly one source, names unique */
static kp_status pod_claim(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_pod_claim *c) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__dra_req_str(d, cl, t, "name", KP_DRA_NAME_LABEL, &c->name));
    const char *cn = NULL, *tn = NULL;
    bool has_cn = false, has_tn = false;
    TRY(kp__dget_str(d, t, "resourceClaimName", &cn, &has_cn));
    TRY(kp__dget_str(d, t, "resourceClaimTemplateName", &tn, &has_tn));
    const char *name = kp__s(cl, c->name);
    if (!has_cn && !has_tn)
        return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                             "Invalid value: \"%s\": must specify one of: `resourceClaimName`, "
                             "`resourceClaimTemplateName`",
                             name);
    if (has_cn && has_tn)
        return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                             "Invalid value: \"%s\": at most one of `resourceClaimName` or "
                             "`resourceClaimTemplateName` may be specified",
                             name);
    const char *key = has_cn ? "resourceClaimName" : "resourceClaimTemplateName";
    return kp__dra_req_str(d, cl, t, key, KP_DRA_NAME_SUBDOMAIN,
                           has_cn ? &c->claim_name : &c->template_name);
}

/* mirrors validateResourceClaimNames: each containers[].resources.claims[] names an entry of
 * spec.resourceClaims, (name, request) pairs unique */
static kp_status container_claims(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, const char *key,
                                  const kp_pod *p) {
    const kp_tnode *cs = NULL;
    TRY(kp__dget_arr(d, spec, key, &cs));
    uint32_t i = 0;
    kp_status st = KP_OK;
    for (const kp_tnode *c = cs ? cs->first : NULL; c && st == KP_OK; c = c->next, i++) {
        const kp_tnode *res = NULL, *a = NULL;
        if (c->type != KP_T_OBJ) continue; /* (the container decoder reports it) */
        size_t s0 = kp__dctx_push(d, key);
        size_t s1 = kp__dctx_push_index(d, i);
        st = kp__dget_obj(d, c, "resources", &res);
        if (st == KP_OK && res) st = kp__dget_arr(d, res, "claims", &a);
        size_t s2 = kp__dctx_push(d, "resources.claims");
        uint32_t j = 0;
        for (const kp_tnode *t = a ? a->first : NULL; t && st == KP_OK; t = t->next, j++) {
            size_t s3 = kp__dctx_push_index(d, j);
            const char *name = NULL, *req = "";
            if (t->type != KP_T_OBJ)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
            if (st == KP_OK) st = kp__dget_str(d, t, "name", &name, NULL);
            if (st == KP_OK) st = kp__dget_str(d, t, "request", &req, NULL);
            if (st == KP_OK && (!name || !name[0]))
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Required value");
            bool found = false;
            for (uint16_t k = 0; st == KP_OK && k < p->n_claims && !found; k++)
                found = strcmp(kp__s(cl, p->claims[k].name), name) == 0;
            if (st == KP_OK && !found)
                st = kp__dctx_fail(d, t, KP_EINVAL, NULL,
                                   "Not found: \"%s\": must be one of the names in "
                                   "pod.spec.resourceClaims%s",
                                   name, p->n_claims ? "" : " which is empty");
            /* the same (name, request) twice */
            uint32_t k = 0;
            for (const kp_tnode *u = a->first; st == KP_OK && u != t; u = u->next, k++) {
                const char *un = NULL, *ur = "";
                if (kp__dget_str(d, u, "name", &un, NULL) == KP_OK &&
                    kp__dget_str(d, u, "request", &ur, NULL) == KP_OK && un &&
                    strcmp(un, name) == 0 && strcmp(ur, req) == 0)
                    st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Duplicate value: \"%s%s%s\"", name,
                                       req[0] ? "/" : "", req);
            }
            kp__dctx_pop(d, s3);
        }
        kp__dctx_pop(d, s2);
        kp__dctx_pop(d, s1);
        kp__dctx_pop(d, s0);
    }
    return st;
}

kp_status kp__decode_pod_claims(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "resourceClaims", &a));
    if (a && a->n) {
        TRY(kp__d_check_count(d, a, "resourceClaims", a->n, KP_MAX_ENTRIES));
        if (!(p->claims = kp__d_alloc(d, cl, a->n * sizeof *p->claims))) return KP_ENOMEM;
        size_t saved = kp__dctx_push(d, "resourceClaims");
        kp_status st = KP_OK;
        uint32_t i = 0;
        for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            memset(&p->claims[i], 0, sizeof p->claims[i]);
            st = pod_claim(d, cl, t, &p->claims[i]);
            for (uint32_t j = 0; j < i && st == KP_OK; j++)
                if (p->claims[j].name == p->claims[i].name)
                    st = kp__dctx_fail(d, kp__tree_get(t, "name"), KP_EINVAL, "name",
                                       "Duplicate value: \"%s\"", kp__s(cl, p->claims[i].name));
            kp__dctx_pop(d, s2);
        }
        p->n_claims = (uint16_t)i;
        kp__dctx_pop(d, saved);
        TRY(st);
    }
    TRY(container_claims(d, cl, spec, "containers", p));
    return container_claims(d, cl, spec, "initContainers", p);
}

/* status.extendedResourceClaimStatus (DRAExtendedResource): resourceClaimName and
 * requestMappings[] {containerName, resourceName, requestName}, each container one of the pod's
 * (validatePodExtendedResourceClaimStatus) */
static kp_status ext_mapping(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, const kp_pod *p,
                             kp_dra_ext_mapping *m) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__dra_req_str(d, cl, t, "containerName", KP_DRA_NAME_LABEL, &m->container));
    const char *rn = NULL;
    bool has = false;
    TRY(kp__dget_str(d, t, "resourceName", &rn, &has));
    if (!has || !*rn) return kp__dctx_fail(d, t, KP_EINVAL, "resourceName", "Required value");
    TRY(kp__d_intern(d, cl, kp__tree_get(t, "resourceName"), "resourceName", rn, strlen(rn),
                     &m->resource));
    TRY(kp__dra_req_str(d, cl, t, "requestName", KP_DRA_NAME_LABEL, &m->request));
    for (uint16_t i = 0; i < p->n_containers + p->n_init; i++)
        if (p->containers[i].name == m->container) return KP_OK;
    return kp__dctx_fail(d, kp__tree_get(t, "containerName"), KP_EINVAL, "containerName",
                         "Invalid value: \"%s\": must match the name of a container",
                         kp__s(cl, m->container));
}

static kp_status ext_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p) {
    const kp_tnode *o, *a;
    TRY(kp__dget_obj(d, status, "extendedResourceClaimStatus", &o));
    if (!o) return KP_OK;
    size_t saved = kp__dctx_push(d, "extendedResourceClaimStatus");
    kp_pod_ext_claim *e = kp__d_alloc(d, cl, sizeof *e);
    kp_status st = e ? KP_OK : KP_ENOMEM;
    if (st == KP_OK) {
        memset(e, 0, sizeof *e);
        st = kp__dra_req_str(d, cl, o, "resourceClaimName", KP_DRA_NAME_SUBDOMAIN, &e->claim);
    }
    if (st == KP_OK) st = kp__dget_arr(d, o, "requestMappings", &a);
    if (st == KP_OK && (!a || !a->n))
        st = kp__dctx_fail(d, o, KP_EINVAL, "requestMappings", "Required value");
    if (st == KP_OK) st = kp__d_check_count(d, a, "requestMappings", a->n, KP_MAX_ENTRIES);
    if (st == KP_OK && !(e->mappings = kp__d_alloc(d, cl, a->n * sizeof *e->mappings)))
        st = KP_ENOMEM;
    if (st == KP_OK) {
        size_t s1 = kp__dctx_push(d, "requestMappings");
        uint32_t i = 0;
        for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            memset(&e->mappings[i], 0, sizeof e->mappings[i]);
            st = ext_mapping(d, cl, t, p, &e->mappings[i]);
            kp__dctx_pop(d, s2);
        }
        e->n_mappings = (uint16_t)i;
        kp__dctx_pop(d, s1);
    }
    kp__dctx_pop(d, saved);
    if (st == KP_OK) p->ext_claim = e;
    return st;
}

/* status.resourceClaimStatuses[]: {name, resourceClaimName}, each naming an entry of
 * spec.resourceClaims once (validatePodResourceClaimStatuses) */
kp_status kp__decode_pod_claim_statuses(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                                        kp_pod *p) {
    const kp_tnode *a;
    TRY(ext_status(d, cl, status, p));
    TRY(kp__dget_arr(d, status, "resourceClaimStatuses", &a));
    if (!a || !a->n) return KP_OK;
    size_t saved = kp__dctx_push(d, "resourceClaimStatuses");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_str name = 0, claim = 0;
        const char *cn = NULL;
        bool has_cn = false;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dra_req_str(d, cl, t, "name", KP_DRA_NAME_LABEL, &name);
        if (st == KP_OK) st = kp__dget_str(d, t, "resourceClaimName", &cn, &has_cn);
        if (st == KP_OK && has_cn)
            st = kp__dra_req_str(d, cl, t, "resourceClaimName", KP_DRA_NAME_SUBDOMAIN, &claim);
        kp_pod_claim *pc = NULL;
        for (uint16_t k = 0; st == KP_OK && k < p->n_claims && !pc; k++)
            if (p->claims[k].name == name) pc = &p->claims[k];
        if (st == KP_OK && !pc)
            st = kp__dctx_fail(d, t, KP_EINVAL, "name",
                               "Invalid value: \"%s\": must match the name of an entry in "
                               "`spec.resourceClaims`",
                               kp__s(cl, name));
        if (st == KP_OK && pc->has_status)
            st = kp__dctx_fail(d, t, KP_EINVAL, "name", "Duplicate value: \"%s\"", kp__s(cl, name));
        if (st == KP_OK) {
            pc->has_status = true;
            pc->status_claim = claim;
        }
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}
