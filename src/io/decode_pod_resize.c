/* The in-place resize fields of a Pod's status, read for the scheduler's requests
 * (component-helpers resource.PodRequests with UseStatusResources; core/pod_requests.c). */
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_pod_resize.h"
#include "io/tree.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* Reads one status.{containerStatuses,initContainerStatuses}[] list: each entry's
 * resources.requests and allocatedResources go to the spec container of the same name; the first
 * entry naming a container wins, containerStatuses before initContainerStatuses (component-helpers
 * findContainerStatus). Entries naming no spec container are ignored. */
static kp_status decode_container_statuses(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                                           const char *key, kp_pod *p, kp_container_status *cs,
                                           bool *seen) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, status, key, &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, key, a->n, KP_MAX_ENTRIES));
    size_t saved = kp__dctx_push(d, key);
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_str name = 0;
        kp_container_status one = {0};
        const kp_tnode *res = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "name", &name);
        if (st == KP_OK) st = kp__dget_obj(d, t, "resources", &res);
        if (st == KP_OK && res) {
            size_t s3 = kp__dctx_push(d, "resources");
            st = kp__d_resources(d, cl, res, "requests", &one.req);
            kp__dctx_pop(d, s3);
            const kp_tnode *rq = kp__tree_get(res, "requests");
            one.has_req = rq && rq->type == KP_T_OBJ;
        }
        if (st == KP_OK) st = kp__d_resources(d, cl, t, "allocatedResources", &one.alloc);
        const kp_tnode *al = kp__tree_get(t, "allocatedResources");
        one.has_alloc = al && al->type == KP_T_OBJ;
        for (uint32_t k = 0; st == KP_OK && cs && name && k < (uint32_t)p->n_containers + p->n_init;
             k++)
            if (p->containers[k].name == name && !seen[k]) {
                seen[k] = true;
                cs[k] = one;
                break;
            }
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

/* The text of a JSON value names a member "resources" or "allocatedResources" (or has that string
 * somewhere: then the list is only read for nothing). */
static bool text_has_resources(const char *s, size_t len) {
    const char *end = s + len;
    for (const char *q = memchr(s, '"', len); q; q = memchr(q + 1, '"', (size_t)(end - q - 1))) {
        size_t left = (size_t)(end - q);
        if ((left >= 11 && memcmp(q, "\"resources\"", 11) == 0) ||
            (left >= 20 && memcmp(q, "\"allocatedResources\"", 20) == 0))
            return true;
    }
    return false;
}

/* Some entry of a container status list names resources or allocatedResources (statuses
 * without them, the common case, cost no memory). */
static bool statuses_carry_resources(const kp_tnode *a) {
    if (a->type == KP_T_LAZY) /* a JSON list kept unread (tree.h): look at its text */
        return text_has_resources(a->s, a->len);
    for (const kp_tnode *t = a->type == KP_T_ARR ? a->first : NULL; t; t = t->next)
        for (const kp_tnode *k = t->type == KP_T_OBJ ? t->first : NULL; k; k = k->next)
            if ((k->key_len == 9 && memcmp(k->key, "resources", 9) == 0) ||
                (k->key_len == 18 && memcmp(k->key, "allocatedResources", 18) == 0))
                return true;
    return false;
}

/* The status fields of an in-place resize (component-helpers resource.PodRequests with
 * UseStatusResources and InPlacePodLevelResourcesVerticalScalingEnabled, the scheduler's
 * options): container statuses' resources.requests and allocatedResources, the pod-level
 * status.resources.requests and status.allocatedResources, and whether the first
 * PodResizePending condition says Infeasible (resource.IsPodResizeInfeasible). */
kp_status kp__decode_pod_resize(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p) {
    kp_pod_resize rz = {0};
    /* one walk over status' keys: most statuses carry none of these */
    const kp_tnode *res = NULL, *al = NULL, *conds = NULL;
    bool has_cs = false;
    for (const kp_tnode *c = status->first; c; c = c->next) {
        if (c->key_len == 9 && memcmp(c->key, "resources", 9) == 0) res = c;
        else if (c->key_len == 18 && memcmp(c->key, "allocatedResources", 18) == 0) al = c;
        else if (c->key_len == 10 && memcmp(c->key, "conditions", 10) == 0) conds = c;
        else if (((c->key_len == 17 && memcmp(c->key, "containerStatuses", 17) == 0) ||
                  (c->key_len == 21 && memcmp(c->key, "initContainerStatuses", 21) == 0)) &&
                 !has_cs)
            has_cs = statuses_carry_resources(c);
    }
    for (const kp_tnode *c = conds && conds->type == KP_T_ARR ? conds->first : NULL; c;
         c = c->next) {
        const kp_tnode *t = kp__tree_get(c, "type");
        if (!t || t->type != KP_T_STR || strcmp(t->s, "PodResizePending") != 0) continue;
        const kp_tnode *r = kp__tree_get(c, "reason");
        rz.infeasible = r && r->type == KP_T_STR && strcmp(r->s, "Infeasible") == 0;
        rz.deferred = r && r->type == KP_T_STR && strcmp(r->s, "Deferred") == 0;
        TRY(kp__d_str(d, cl, c, "message", &rz.pending_message));
        break;
    }
    if (!res && !al && !has_cs && !rz.infeasible && !rz.deferred) return KP_OK;
    uint32_t nc = (uint32_t)p->n_containers + p->n_init;
    kp_container_status *cs = NULL;
    bool *seen = NULL, any = false;
    if (nc && has_cs) {
        cs = kp__d_alloc(d, cl, nc * sizeof *cs);
        seen = kp__d_alloc(d, cl, nc * sizeof *seen);
        if (!cs || !seen) return KP_ENOMEM;
        memset(cs, 0, nc * sizeof *cs);
        memset(seen, 0, nc * sizeof *seen);
        TRY(decode_container_statuses(d, cl, status, "containerStatuses", p, cs, seen));
        TRY(decode_container_statuses(d, cl, status, "initContainerStatuses", p, cs, seen));
        for (uint32_t k = 0; k < nc; k++) any = any || cs[k].has_req || cs[k].has_alloc;
    }
    TRY(kp__dget_obj(d, status, "resources", &res));
    if (res) {
        rz.has_res = true;
        size_t saved = kp__dctx_push(d, "resources");
        kp_status st = kp__d_resources(d, cl, res, "requests", &rz.req);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
        const kp_tnode *rq = kp__tree_get(res, "requests");
        rz.has_req = rq && rq->type == KP_T_OBJ;
    }
    TRY(kp__d_resources(d, cl, status, "allocatedResources", &rz.alloc));
    rz.has_alloc = al && al->type == KP_T_OBJ;
    if (!any && !rz.has_res && !rz.has_alloc && !rz.infeasible && !rz.deferred) return KP_OK;
    rz.c = any ? cs : NULL;
    p->resize = kp__d_alloc(d, cl, sizeof *p->resize);
    if (!p->resize) return KP_ENOMEM;
    *p->resize = rz;
    return KP_OK;
}
