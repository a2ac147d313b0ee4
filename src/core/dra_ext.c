/* DRA-backed extended resources (core/dra.h, DRAExtendedResource): which DeviceClass serves an
 * extended resource name (the scheduler's extended resource cache), and the writes of the
 * scheduler's PreBind for a pod whose extended resources DRA serves: the claim it creates for
 * them and pod.status.extendedResourceClaimStatus. The claim's allocation and reservation go
 * through core/dra_state.c's writers, as for every claim the scheduler allocates. */
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/finalize.h"
#include "core/meta.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/workload_ctrl.h"

#define CLASS_PREFIX "deviceclass.resource.kubernetes.io/" /* ResourceDeviceClassPrefix */
#define EXT_ANNOTATION "resource.kubernetes.io/extended-resource-claim"

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

/* mirrors schedutil.IsDRAExtendedResourceName (v1helper.IsExtendedResourceName: a '/', no
 * kubernetes.io domain, no "requests." prefix; or the implicit class name) */
bool kp__dra_ext_name(const char *name) {
    if (strncmp(name, CLASS_PREFIX, sizeof CLASS_PREFIX - 1) == 0) return true;
    if (!strchr(name, '/')) return false;
    if (strncmp(name, "kubernetes.io/", 14) == 0 || strstr(name, ".kubernetes.io/")) return false;
    return strncmp(name, "requests.", 9) != 0;
}

/* mirrors ExtendedResourceCache.GetDeviceClass with its betterDeviceClass arbitration: the
 * implicit name maps to its own class; an explicit name to the newest class declaring it, the
 * lower name breaking a tie */
long kp__dra_ext_class(const kp_cluster *cl, const char *name) {
    const kp_dra *d = &cl->dra;
    if (!d->n_classes) return -1;
    if (strncmp(name, CLASS_PREFIX, sizeof CLASS_PREFIX - 1) == 0) {
        const char *cls = name + sizeof CLASS_PREFIX - 1;
        kp_str id = kp__intern_find(&cl->strs, cls, strlen(cls));
        if (id == UINT32_MAX) return -1;
        long k = kp__cluster_find_dra(cl, KP_DK_CLASS, 0, id);
        return k >= 0 && !d->classes[k].deleted ? k : -1;
    }
    kp_str id = kp__intern_find(&cl->strs, name, strlen(name));
    if (id == UINT32_MAX) return -1;
    long best = -1;
    for (uint32_t i = 0; i < d->n_classes; i++) {
        const kp_dra_class *c = &d->classes[i];
        if (c->deleted || c->extended_resource != id) continue;
        if (best >= 0) {
            const kp_dra_class *b = &d->classes[best];
            if (c->creation_ts < b->creation_ts) continue;
            if (c->creation_ts == b->creation_ts &&
                strcmp(kp__s(cl, c->name), kp__s(cl, b->name)) >= 0)
                continue;
        }
        best = (long)i;
    }
    return best;
}

bool kp__dra_ext_backed(const kp_cluster *cl, int r) {
    if (!cl->dra.n_classes || !cl->gates.on[KP_GATE_DRA_EXTENDED_RESOURCE]) return false;
    const char *name = kp__s(cl, cl->res_names[r]);
    return kp__dra_ext_name(name) && kp__dra_ext_class(cl, name) >= 0;
}

bool kp__dra_ext_wanted(const kp_cluster *cl, const kp_pod *p) {
    if (!cl->dra.n_classes) return false;
    for (uint16_t i = 0; i < p->req.n; i++)
        if (p->req.e[i].res >= KP_RES_FIXED && p->req.e[i].v > 0 &&
            kp__dra_ext_backed(cl, p->req.e[i].res))
            return true;
    return false;
}

/* the requests, their class names and counts, copied into the arena (the scheduler's are its
 * own scratch) */
static kp_dra_request *copy_requests(kp_cluster *cl, const kp_dra_request *req, uint16_t n) {
    if (!n) return NULL;
    return kp__arena_dup(&cl->arena, req, (size_t)n * sizeof *req);
}

kp_status kp__dra_ext_claim_create(kp_cluster *cl, uint32_t pod, const char *name,
                                   const kp_dra_request *req, uint16_t n_req, int64_t now,
                                   uint32_t *out) {
    if (pod >= cl->n_pods) return KP_EINVAL;
    kp_str nid = intern(cl, name), pod_kind = intern(cl, "Pod");
    if (nid == UINT32_MAX || pod_kind == UINT32_MAX) return KP_ENOMEM;
    const kp_pod *p = &cl->pods[pod];
    if (kp__cluster_find_dra(cl, KP_DK_CLAIM, p->ns, nid) >= 0) return KP_EINVAL;
    char uid[48];
    kp__pod_make_uid(cl, p->ns, name, cl->dra.n_claims | 0x80000000u, uid, sizeof uid);
    kp_str uid_id = intern(cl, uid);
    if (uid_id == UINT32_MAX) return KP_ENOMEM;
    /* the annotation is c->extended (encoded from it); "true" interned for the encoder */
    if (intern(cl, EXT_ANNOTATION) == UINT32_MAX || intern(cl, "true") == UINT32_MAX)
        return KP_ENOMEM;
    kp_dra_request *reqs = copy_requests(cl, req, n_req);
    if (n_req && !reqs) return KP_ENOMEM;
    kp_dra_claim *c = kp__cluster_new_dra(cl, KP_DK_CLAIM, p->ns, nid);
    if (!c) return KP_ENOMEM;
    p = &cl->pods[pod];
    c->uid = uid_id;
    c->extended = true;
    c->owner_kind = pod_kind;
    c->owner_name = p->name;
    c->owner_uid = p->uid;
    c->creation_ts = now;
    c->spec.requests = reqs;
    c->spec.n_requests = n_req;
    c->src_file = p->src_file;
    *out = (uint32_t)(c - cl->dra.claims);
    cl->dra.gen_claims++;
    return KP_OK;
}

kp_status kp__dra_pod_set_ext_status(kp_cluster *cl, uint32_t pod, kp_str claim,
                                     const kp_dra_ext_mapping *m, uint16_t n) {
    if (pod >= cl->n_pods) return KP_EINVAL;
    kp_pod_ext_claim *e = kp__arena_alloc(&cl->arena, sizeof *e);
    if (!e) return KP_ENOMEM;
    e->claim = claim;
    e->n_mappings = n;
    e->mappings = n ? kp__arena_dup(&cl->arena, m, (size_t)n * sizeof *m) : NULL;
    if (n && !e->mappings) return KP_ENOMEM;
    cl->pods[pod].ext_claim = e;
    cl->dra.gen_claims++;
    return KP_OK;
}

long kp__dra_pod_ext_claim(const kp_cluster *cl, uint32_t pod) {
    if (pod >= cl->n_pods) return -1;
    const kp_pod *p = &cl->pods[pod];
    if (p->ext_claim && p->ext_claim->claim) {
        long k = kp__cluster_find_dra(cl, KP_DK_CLAIM, p->ns, p->ext_claim->claim);
        return k >= 0 && !cl->dra.claims[k].deleted ? k : -1;
    }
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) { /* findExtendedResourceClaim */
        const kp_dra_claim *c = &cl->dra.claims[i];
        if (c->deleted || !c->extended || c->ns != p->ns || c->owner_uid != p->uid ||
            c->owner_name != p->name || !c->owner_kind ||
            strcmp(kp__s(cl, c->owner_kind), "Pod") != 0)
            continue;
        return (long)i;
    }
    return -1;
}
