/* DRA-backed extended resources (see dynamic_resources_ext.h): mirrors
 * extendeddynamicresources.go (hasDeviceClassMappedExtendedResource, findExtendedResourceClaim,
 * preFilterExtendedResources, filterExtendedResources, partitionContainerIndices,
 * createResourceRequestAndMappings, createRequestsAndMappings, createExtendedResourceClaimInAPI,
 * patchPodExtendedResourceClaimStatus) and noderesources' shouldDelegateResourceToDRA.
 *
 * The claim a node would get depends only on which of the pod's DRA-backed resources the node
 * does not advertise (upstream builds one per node): kprio keeps one variant per such set, with
 * its allocator, usually a single one for the whole cluster. */
#include "sched/plugins/dynamic_resources_ext.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/prng.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/workload_ctrl.h"

#define SPECIAL_CLAIM "<extended-resources>" /* specialClaimInMemName */
#define GENERATE_BASE_MAX 58 /* the API server's maxGeneratedNameLength (63 - 5) */

/* The node's variant of the extended-resource claim: its requests and container mappings for
 * the DRA-served resources in mask (bits over kp_dra_ext.res), and the allocator of the user's
 * claims plus it. */
typedef struct {
    uint32_t mask;
    kp_dra_claim claim; /* the in-memory claim (SPECIAL_CLAIM) */
    kp_dra_request *reqs;
    uint16_t n_reqs, n_maps;
    kp_dra_ext_mapping *maps;
    kp_dra_alloc *al;
} variant;

struct kp_dra_ext {
    kp_cluster *cl;
    kp_dra_index *ix;
    kp_dra_features f;
    uint32_t pod;
    /* the pod's non-zero requests of DRA extended resource names (IsDRAExtendedResourceName),
     * by name: the class serving each (-1: none) */
    uint8_t n_res;
    uint8_t res[KP_MAX_RES];
    int64_t want[KP_MAX_RES];
    long cls[KP_MAX_RES];
    long stale; /* the pod's extended-resource claim from an earlier attempt, -1 */
    uint32_t *claims, n_claims; /* the user's claims to allocate, then KP_DRA_VIRTUAL_CLAIM */
    variant *v;
    uint32_t n_v, cap_v;
};

static const char *res_name(const kp_cluster *cl, int r) { return kp__s(cl, cl->res_names[r]); }

/* ---- NodeResourcesFit ---- */

/* mirrors fitsRequest's scalar check for the resources shouldDelegateResourceToDRA keeps: only
 * a node advertising the resource checks it (its reasons after the others': upstream walks a
 * Go map, in no set order) */
void kp__dra_ext_fit(const kp_cycle *c, const kp_node *n, kp_node_status *st) {
    const kp_cluster *cl = c->s->cl;
    for (uint8_t i = 0; i < c->n_fit_dra; i++) {
        int r = c->fit_dra_res[i];
        int64_t want = c->fit_dra_want[i], alloc = n->alloc[r], used = n->requested[r];
        if (alloc <= 0) continue; /* DRA serves it here */
        if (c->n_extra && c->extra_sum) {
            if (__builtin_add_overflow(used, c->extra_sum[r], &used)) used = INT64_MAX;
        } else {
            for (uint32_t k = 0; k < c->n_extra; k++)
                if (__builtin_add_overflow(used, kp__resv_get(&cl->pods[c->extra[k]].req, r),
                                           &used))
                    used = INT64_MAX;
        }
        if (want <= alloc - used) continue;
        kp__status_add_reason(st, c->s->reasons.insufficient[r]);
        if (want > alloc) st->code = KP_CODE_UNRESOLVABLE;
        else if (st->code == KP_CODE_SUCCESS) st->code = KP_CODE_UNSCHEDULABLE;
    }
}

/* ---- PreFilter ---- */

void kp__dra_ext_free(kp_dra_ext *x) {
    if (!x) return;
    for (uint32_t i = 0; i < x->n_v; i++) {
        kp__dra_alloc_free(x->v[i].al);
        kp__free(x->v[i].reqs);
        kp__free(x->v[i].maps);
    }
    kp__free(x->v);
    kp__free(x->claims);
    kp__free(x);
}

kp_status kp__dra_ext_prefilter(kp_cycle *c, const uint32_t *to_alloc, uint32_t n,
                                const kp_dra_features *f, kp_dra_ext **out) {
    kp_cluster *cl = c->s->cl;
    const kp_pod *p = c->p;
    *out = NULL;
    if (!kp__dra_ext_wanted(cl, p)) return KP_OK;
    kp_dra_ext *x = kp__calloc(1, sizeof *x);
    if (!x) return KP_ENOMEM;
    x->cl = cl;
    x->ix = c->s->dra_ix;
    x->f = *f;
    x->pod = c->pod;
    for (uint16_t i = 0; i < p->req.n && x->n_res < KP_MAX_RES; i++) { /* podScalarResources */
        int r = p->req.e[i].res;
        const char *name = res_name(cl, r);
        if (r < KP_RES_FIXED || p->req.e[i].v <= 0 || !kp__dra_ext_name(name)) continue;
        uint8_t k = x->n_res++; /* kept in name order (createRequestsAndMappings sorts) */
        while (k && strcmp(res_name(cl, x->res[k - 1]), name) > 0) {
            x->res[k] = x->res[k - 1], x->want[k] = x->want[k - 1], x->cls[k] = x->cls[k - 1];
            k--;
        }
        x->res[k] = (uint8_t)r;
        x->want[k] = p->req.e[i].v;
        x->cls[k] = kp__dra_ext_class(cl, name);
    }
    x->stale = kp__dra_pod_ext_claim(cl, c->pod);
    x->claims = kp__malloc(((size_t)n + 1) * sizeof *x->claims);
    if (!x->claims) {
        kp__dra_ext_free(x);
        return KP_ENOMEM;
    }
    if (n) memcpy(x->claims, to_alloc, (size_t)n * sizeof *to_alloc);
    x->n_claims = n;
    *out = x;
    return KP_OK;
}

/* ---- the node's claim: requests and mappings ---- */

/* kprio keeps a pod's containers apps first, then init containers; upstream numbers them init
 * containers first (containers := InitContainers + Containers) */
static const kp_container *container_at(const kp_pod *p, uint16_t i) {
    return i < p->n_init ? &p->containers[p->n_containers + i] : &p->containers[i - p->n_init];
}

typedef struct {
    kp_str name;
    long cls;
    int64_t count;
} req_t;

typedef struct {
    variant *v;
    req_t *reqs;
    uint32_t n_reqs, cap_reqs;
    kp_dra_ext_mapping *maps;
    uint32_t n_maps, cap_maps;
    kp_status st;
} builder;

static void push_map(builder *b, kp_str container, kp_str resource, kp_str request) {
    if (b->st != KP_OK) return;
    if (b->n_maps == b->cap_maps) {
        void *pv = b->maps;
        if (!kp__grow32(&pv, &b->cap_maps, (size_t)b->n_maps + 1, sizeof *b->maps, 8)) {
            b->st = KP_ENOMEM;
            return;
        }
        b->maps = pv;
    }
    b->maps[b->n_maps++] = (kp_dra_ext_mapping){container, resource, request};
}

static long push_req(builder *b, kp_str name, long cls, int64_t count) {
    if (b->st != KP_OK) return -1;
    if (b->n_reqs == b->cap_reqs) {
        void *pv = b->reqs;
        if (!kp__grow32(&pv, &b->cap_reqs, (size_t)b->n_reqs + 1, sizeof *b->reqs, 8)) {
            b->st = KP_ENOMEM;
            return -1;
        }
        b->reqs = pv;
    }
    b->reqs[b->n_reqs] = (req_t){name, cls, count};
    return (long)b->n_reqs++;
}

/* mirrors createResourceRequestAndMappings for container ci (upstream's index) and resource r:
 * the requests reusable[] (indices into b->reqs, -1 for none) serve it first; the rest is a new
 * request "container-<ci>-request-<index of r among the container's sorted request names>"
 * (its index in b->reqs, -1 when none is needed) */
static long container_request(kp_dra_ext *x, builder *b, uint16_t ci, int r, long cls,
                              const long *reusable, uint32_t n_reusable) {
    kp_cluster *cl = x->cl;
    const kp_pod *p = &cl->pods[x->pod];
    const kp_container *k = container_at(p, ci);
    int64_t crq = 0;
    bool has = false;
    for (uint16_t j = 0; j < k->req.n; j++)
        if (k->req.e[j].res == r) crq = k->req.e[j].v, has = true;
    if (!has || crq == 0) return -1;
    kp_str rid = cl->res_names[r];
    int64_t sum = 0;
    for (uint32_t i = 0; i < n_reusable; i++) {
        if (reusable[i] < 0) continue;
        sum += b->reqs[reusable[i]].count;
        push_map(b, k->name, rid, b->reqs[reusable[i]].name);
        if (sum >= crq) return -1;
    }
    const char *rn = res_name(cl, r);
    uint32_t ridx = 0;
    for (uint16_t j = 0; j < k->req.n; j++) ridx += strcmp(res_name(cl, k->req.e[j].res), rn) < 0;
    char name[64];
    snprintf(name, sizeof name, "container-%u-request-%u", (unsigned)ci, (unsigned)ridx);
    kp_str nid = kp__intern(&cl->strs, name, strlen(name));
    if (nid == UINT32_MAX) {
        b->st = KP_ENOMEM;
        return -1;
    }
    long at = push_req(b, nid, cls, crq - sum);
    push_map(b, k->name, rid, nid);
    return at;
}

/* insertion sort by request name (sort.Slice on Name; names are distinct) */
static void sort_reqs(const kp_cluster *cl, req_t *r, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        req_t t = r[i];
        uint32_t j = i;
        while (j && strcmp(kp__s(cl, r[j - 1].name), kp__s(cl, t.name)) > 0) r[j] = r[j - 1], j--;
        r[j] = t;
    }
}

/* mirrors createRequestsAndMappings for one resource (x->res[i]): long-lived containers (apps
 * and sidecars) each get their own request; short-lived init containers reuse the long-lived
 * requests at their index and after, then share the largest of their own */
static void resource_requests(kp_dra_ext *x, builder *b, uint8_t i, long *scratch) {
    const kp_pod *p = &x->cl->pods[x->pod];
    uint16_t n_all = p->n_init + p->n_containers;
    int r = x->res[i];
    long cls = x->cls[i];
    for (uint16_t ci = 0; ci < n_all; ci++) { /* long-lived: partitionContainerIndices */
        const kp_container *k = container_at(p, ci);
        bool short_lived = ci < p->n_init && !k->is_sidecar;
        scratch[ci] = short_lived ? -1 : container_request(x, b, ci, r, cls, NULL, 0);
    }
    uint32_t long_maps_end = b->n_maps;
    long max_short = -1, first_short = (long)b->n_reqs;
    uint32_t n_short = 0;
    for (uint16_t ci = 0; ci < p->n_init; ci++) {
        if (container_at(p, ci)->is_sidecar) continue;
        long q = container_request(x, b, ci, r, cls, scratch + ci, (uint32_t)(n_all - ci));
        if (q < 0) continue;
        n_short++;
        if (max_short < 0 || b->reqs[max_short].count < b->reqs[q].count) max_short = q;
    }
    if (b->st != KP_OK) return;
    if (max_short >= 0 && n_short > 1) /* the short-lived mappings name the largest request */
        for (uint32_t m = long_maps_end; m < b->n_maps; m++)
            for (long q = first_short; q < (long)b->n_reqs; q++)
                if (q != max_short && b->maps[m].request == b->reqs[q].name)
                    b->maps[m].request = b->reqs[max_short].name;
    if (max_short >= 0) { /* only the largest short-lived request is kept */
        b->reqs[first_short] = b->reqs[max_short];
        b->n_reqs = (uint32_t)first_short + 1;
    }
}

/* The variant of the claim for the resources in mask, built on first use. NULL: out of memory
 * (x's status in *st). */
static variant *variant_of(kp_dra_ext *x, uint32_t mask, kp_status *st) {
    for (uint32_t i = 0; i < x->n_v; i++)
        if (x->v[i].mask == mask) return &x->v[i];
    if (x->n_v == x->cap_v) {
        void *pv = x->v;
        if (!kp__grow32(&pv, &x->cap_v, (size_t)x->n_v + 1, sizeof *x->v, 2)) goto nomem;
        x->v = pv;
    }
    variant *v = &x->v[x->n_v];
    memset(v, 0, sizeof *v);
    v->mask = mask;
    const kp_pod *p = &x->cl->pods[x->pod];
    builder b = {.v = v};
    long *scratch = kp__calloc((size_t)p->n_init + p->n_containers + 1, sizeof *scratch);
    if (!scratch) goto nomem;
    for (uint8_t i = 0; i < x->n_res && b.st == KP_OK; i++)
        if (mask & (UINT32_C(1) << i)) resource_requests(x, &b, i, scratch);
    kp__free(scratch);
    if (b.st == KP_OK && b.n_reqs) {
        sort_reqs(x->cl, b.reqs, b.n_reqs);
        v->reqs = kp__calloc(b.n_reqs, sizeof *v->reqs);
        if (!v->reqs) b.st = KP_ENOMEM;
    }
    for (uint32_t i = 0; b.st == KP_OK && i < b.n_reqs; i++) {
        kp_dra_request *q = &v->reqs[i]; /* ExactDeviceRequest: ExactCount of the class */
        q->name = b.reqs[i].name;
        q->exactly.class_name = x->cl->dra.classes[b.reqs[i].cls].name;
        q->exactly.mode = KP_DRA_MODE_EXACT;
        q->exactly.count = b.reqs[i].count;
    }
    kp__free(b.reqs);
    v->n_reqs = (uint16_t)b.n_reqs;
    v->maps = b.maps;
    v->n_maps = (uint16_t)b.n_maps;
    if (b.st != KP_OK) goto fail;
    kp_dra_claim *vc = &v->claim;
    vc->ns = p->ns;
    vc->name = kp__intern(&x->cl->strs, SPECIAL_CLAIM, sizeof SPECIAL_CLAIM - 1);
    vc->creation_ts = vc->deletion_ts = vc->alloc_ts = KP_TIME_NONE;
    vc->extended = true;
    vc->spec.requests = v->reqs;
    vc->spec.n_requests = v->n_reqs;
    if (vc->name == UINT32_MAX) goto fail;
    uint32_t n = x->n_claims;
    if (mask) x->claims[n++] = KP_DRA_VIRTUAL_CLAIM;
    if (n && !(v->al = kp__dra_alloc_new_virtual(x->cl, x->ix, &x->f, x->claims, n, vc))) goto fail;
    x->n_v++;
    return v;
fail:
    kp__free(v->reqs);
    kp__free(v->maps);
nomem:
    *st = KP_ENOMEM;
    return NULL;
}

/* ---- Filter ---- */

bool kp__dra_ext_filter(kp_dra_ext *x, const kp_cycle *c, uint32_t node, kp_node_status *st,
                        kp_dra_alloc **al, kp_status *status) {
    *al = NULL;
    if (x->stale >= 0 && x->cl->dra.claims[x->stale].spec.n_requests) {
        st->code = KP_CODE_UNRESOLVABLE; /* deleted by PostFilter, then tried anew */
        kp__status_add_reason(st, KP_REASON_DRA_EXT_STALE);
        return false;
    }
    const kp_node *n = &c->s->cl->nodes[node];
    uint32_t mask = 0;
    for (uint8_t i = 0; i < x->n_res; i++) {
        bool advertised = n->alloc[x->res[i]] > 0;
        if (x->cls[i] >= 0 && !advertised) mask |= UINT32_C(1) << i;
        else if (!advertised) { /* neither a device plugin's nor DRA's */
            st->code = KP_CODE_UNRESOLVABLE;
            kp__status_add_reason(st, KP_REASON_DRA_EXT_NO_FIT);
            return false;
        }
    }
    if (!mask && !x->n_claims) return true; /* the device plugins serve all of it */
    variant *v = variant_of(x, mask, status);
    if (!v) return true;
    *al = v->al;
    return true;
}

bool kp__dra_ext_stale(const kp_dra_ext *x) { return x && x->stale >= 0; }

/* ---- PreBind ---- */

/* the name the API server gives the claim: generateName "<pod>-extended-resources-" (its base
 * cut to 58 bytes, as names.SimpleNameGenerator does) plus 5 characters, drawn again while the
 * name is taken */
static kp_status claim_name(kp_dra_ext *x, kp_sched *s, char *out, size_t cap) {
    const kp_cluster *cl = x->cl;
    const kp_pod *p = &cl->pods[x->pod];
    char base[128];
    snprintf(base, sizeof base, "%s-extended-resources-", kp__s(cl, p->name));
    if (strlen(base) > GENERATE_BASE_MAX) base[GENERATE_BASE_MAX] = 0;
    for (;;) {
        char sfx[KP_NAME_SUFFIX_LEN + 1];
        for (int i = 0; i < KP_NAME_SUFFIX_LEN; i++)
            sfx[i] = KP_NAME_ALPHABET[kp__prng_below(&s->ext_prng, 27)];
        sfx[KP_NAME_SUFFIX_LEN] = 0;
        snprintf(out, cap, "%s%s", base, sfx);
        kp_str id = kp__intern_find(&cl->strs, out, strlen(out));
        if (id == UINT32_MAX || kp__cluster_find_dra(cl, KP_DK_CLAIM, p->ns, id) < 0) return KP_OK;
    }
}

kp_status kp__dra_ext_bind(kp_dra_ext *x, kp_cycle *c, uint32_t node, const kp_dra_claim_alloc *a) {
    kp_sched *s = c->s;
    kp_cluster *cl = s->cl;
    const kp_node *n = &cl->nodes[node];
    uint32_t mask = 0;
    for (uint8_t i = 0; i < x->n_res; i++)
        if (x->cls[i] >= 0 && n->alloc[x->res[i]] <= 0) mask |= UINT32_C(1) << i;
    variant *v = NULL;
    for (uint32_t i = 0; i < x->n_v && !v; i++)
        if (x->v[i].mask == mask) v = &x->v[i];
    if (!v || !mask) return KP_EINVAL;
    char name[160];
    kp_status st = claim_name(x, s, name, sizeof name);
    uint32_t claim = 0;
    if (st == KP_OK)
        st = kp__dra_ext_claim_create(cl, c->pod, name, v->reqs, v->n_reqs, s->now, &claim);
    if (st == KP_OK)
        st = kp__dra_claim_allocate(cl, claim, a->results, a->n_results,
                                    a->has_nodes ? &a->nodes : NULL, s->now);
    /* its devices in use at once (the index learns its name at its next sync) */
    if (st == KP_OK) st = kp__dra_index_allocated(s->dra_ix, cl, claim);
    if (st == KP_OK) st = kp__dra_claim_reserve(cl, claim, c->pod);
    if (st == KP_OK)
        st = kp__dra_pod_set_ext_status(cl, c->pod, cl->dra.claims[claim].name, v->maps, v->n_maps);
    return st;
}
