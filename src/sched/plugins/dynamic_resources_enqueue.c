/* DynamicResources at PreEnqueue (dynamicresources.go): a pod whose ResourceClaims do not all
 * exist yet is kept out of the queue, with the reason PreFilter would give, until a claim event
 * (the claim-add queueing hint) or the pod's own update (the generated claim's name recorded in
 * status.resourceClaimStatuses) moves it. The checks are foreachPodResourceClaim's, shared with
 * PreFilter (dynamic_resources.c). */
#include "sched/plugins/dynamic_resources_enqueue.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "sched/dra/index.h"

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *
text(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *t = kp__malloc((size_t)n + 1);
    if (!t) return NULL;
    va_start(ap, fmt);
    vsnprintf(t, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return t;
}

long kp__dra_sched_pod_claim(const kp_sched *s, const kp_pod *p, const kp_pod_claim *pc,
                             char **msg) {
    const kp_cluster *cl = s->cl;
    kp_str name = pc->claim_name;
    *msg = NULL;
    if (!name) { /* resourceclaim.Name: ErrClaimNotFound until the controller records it */
        if (!pc->has_status) {
            *msg = text("pod \"%s/%s\": ResourceClaim not created yet", kp__s(cl, p->ns),
                        kp__s(cl, p->name));
            return -2;
        }
        if (!pc->status_claim) return -1;
        name = pc->status_claim;
    }
    long k = kp__dra_index_claim(s->dra_ix, cl, p->ns, name);
    if (k < 0) {
        *msg = text("could not find ResourceClaim \"%s/%s\"", kp__s(cl, p->ns), kp__s(cl, name));
        return -2;
    }
    const kp_dra_claim *claim = &cl->dra.claims[k];
    if (claim->deletion_ts != KP_TIME_NONE) {
        *msg = text("resourceclaim \"%s\" is being deleted", kp__s(cl, claim->name));
        return -2;
    }
    if (!pc->claim_name && claim->owner_uid != p->uid) { /* resourceclaim.IsForPod */
        *msg = text("ResourceClaim %s/%s was not created for pod %s/%s (pod is not owner)",
                    kp__s(cl, claim->ns), kp__s(cl, claim->name), kp__s(cl, p->ns),
                    kp__s(cl, p->name));
        return -2;
    }
    return k;
}

kp_status kp__pre_enqueue_dra(kp_sched *s, const kp_pod *p, char **msg) {
    *msg = NULL;
    if (!s->cfg.dra_prefilter || !p->n_claims) return KP_OK;
    kp_status st = kp__dra_index_sync(&s->dra_ix, s->cl);
    if (st != KP_OK) return st;
    for (uint16_t i = 0; i < p->n_claims; i++) {
        if (kp__dra_sched_pod_claim(s, p, &p->claims[i], msg) != -2) continue;
        return *msg ? KP_OK : KP_ENOMEM;
    }
    return KP_OK;
}
