/* The pod's resource requests and limits: the single copy of component-helpers
 * resource.PodRequests / PodLimits / AggregateContainerRequests (sidecar-aware: init containers
 * run in order, restartable init containers keep running beside the later ones and the regular
 * containers) and of the kubelet's resource.GetResourceRequest(Quantity), which skips the
 * containers when pod-level resources are set. Used by finalize (the pod's request vectors),
 * admission and eviction. */
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"


static inline int64_t resv_get(const kp_resv *v, int r, bool *has) {
    for (uint16_t i = 0; i < v->n; i++)
        if (v->e[i].res == r) {
            *has = true;
            return v->e[i].v;
        }
    return 0;
}

static inline int64_t sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

/* mirrors resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages-* */
bool kp__pod_level_supported(const kp_cluster *cl, int r) {
    return r == KP_RES_CPU || r == KP_RES_MEM ||
           strncmp(kp__s(cl, cl->res_names[r]), "hugepages-", 10) == 0;
}

/* Which of a container's request lists aggregateContainerResourcesByFn reads. */
enum { LIST_SPEC, LIST_ALLOCATED, LIST_ACTUATED };

/* mirrors containerSpecRequests / containerAllocatedRequests / containerActuatedRequests: the
 * spec; the status' allocatedResources, else the spec unless the resize is infeasible; the
 * status' resources.requests, else allocatedResources, else the spec unless infeasible. NULL is
 * an empty list. */
static const kp_resv *container_list(const kp_pod *p, uint32_t i, int which, bool infeasible) {
    const kp_container *c = &p->containers[i];
    if (which == LIST_SPEC) return &c->req;
    const kp_container_status *s = p->resize && p->resize->c ? &p->resize->c[i] : NULL;
    if (which == LIST_ACTUATED && s && s->has_req) return &s->req;
    if (s && s->has_alloc) return &s->alloc;
    return infeasible ? NULL : &c->req;
}

/* mirrors aggregateContainerResourcesByFn (saturating for the status lists: finalize bounds
 * the spec's sums only): regular containers and sidecars add up, each init
 * container counts with the sidecars started before it, the pod takes the larger; non_zero is
 * NonMissingContainerRequests (100m cpu / 200Mi memory for a request the list does not name). */
static void aggregate_requests(const kp_cluster *cl, const kp_pod *p, int which, bool infeasible,
                               bool non_zero, int64_t *out) {
    int64_t apps[KP_MAX_RES] = {0}, side[KP_MAX_RES] = {0}, init_max[KP_MAX_RES] = {0};
    /* the spec's sums are bounded by finalize (check_pod_sums): plain adds */
#define ADD(x, y) (which == LIST_SPEC ? (x) + (y) : sat_add((x), (y)))
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *c = &p->containers[i];
        const kp_resv *l = container_list(p, i, which, infeasible);
        int64_t req[KP_MAX_RES] = {0};
        bool has_cpu = false, has_mem = false;
        for (uint16_t k = 0; l && k < l->n; k++) {
            req[l->e[k].res] = l->e[k].v;
            if (l->e[k].res == KP_RES_CPU) has_cpu = true;
            if (l->e[k].res == KP_RES_MEM) has_mem = true;
        }
        if (non_zero) {
            /* NonMissingContainerRequests: only requests that are absent get the default */
            if (!has_cpu) req[KP_RES_CPU] = KP_DEFAULT_CPU_REQUEST;
            if (!has_mem) req[KP_RES_MEM] = KP_DEFAULT_MEM_REQUEST;
        }
        if (!c->is_init) {
            for (uint32_t r = 0; r < cl->n_res; r++) apps[r] = ADD(apps[r], req[r]);
        } else if (c->is_sidecar) {
            for (uint32_t r = 0; r < cl->n_res; r++) {
                apps[r] = ADD(apps[r], req[r]);
                side[r] = ADD(side[r], req[r]);
                if (side[r] > init_max[r]) init_max[r] = side[r];
            }
        } else {
            for (uint32_t r = 0; r < cl->n_res; r++) {
                int64_t need = ADD(req[r], side[r]);
                if (need > init_max[r]) init_max[r] = need;
            }
        }
    }
    for (uint32_t r = 0; r < KP_MAX_RES; r++)
        out[r] = r < cl->n_res ? (apps[r] > init_max[r] ? apps[r] : init_max[r]) : 0;
#undef ADD
}

/* dense copy of v; *mask gets a bit per named resource (KP_MAX_RES <= 32) */
static void dense_of(const kp_resv *v, int64_t *out, uint32_t *mask) {
    memset(out, 0, KP_MAX_RES * sizeof *out);
    *mask = 0;
    for (uint16_t k = 0; v && k < v->n; k++) {
        out[v->e[k].res] = v->e[k].v;
        *mask |= UINT32_C(1) << v->e[k].res;
    }
}

/* mirrors AggregateContainerRequests with UseStatusResources (and
 * InPlacePodLevelResourcesVerticalScalingEnabled): the larger of the spec, the actuated and the
 * allocated aggregates, or of the last two only when the resize is infeasible. The pod-level
 * status maps, when both are set, stand for the two aggregates. */
static void aggregate_with_status(const kp_cluster *cl, const kp_pod *p, bool non_zero,
                                  int64_t *out) {
    const kp_pod_resize *rz = p->resize;
    int64_t alloc[KP_MAX_RES], act[KP_MAX_RES];
    uint32_t mask;
    if (rz->has_alloc && rz->has_req &&
        cl->gates.on[KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING]) {
        dense_of(&rz->alloc, alloc, &mask);
        dense_of(&rz->req, act, &mask);
    } else {
        aggregate_requests(cl, p, LIST_ALLOCATED, rz->infeasible, non_zero, alloc);
        aggregate_requests(cl, p, LIST_ACTUATED, rz->infeasible, non_zero, act);
    }
    for (uint32_t r = 0; r < cl->n_res; r++) {
        int64_t m = alloc[r] > act[r] ? alloc[r] : act[r];
        out[r] = rz->infeasible || m > out[r] ? m : out[r];
    }
}

/* mirrors effectivePodLevelResources inside PodRequests: with a resize status the pod-level
 * requests are the larger of the spec's (left out when infeasible) and the status' requests and
 * allocatedResources, both less the overhead (not below 0); then applyPodLevelResources. */
static void apply_pod_level(const kp_cluster *cl, const kp_pod *p, int64_t *out) {
    int64_t eff[KP_MAX_RES];
    uint32_t have;
    /* the status only with UseStatusResources and InPlacePodLevelResourcesVerticalScalingEnabled */
    const kp_pod_resize *rz = cl->gates.on[KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING] &&
                                      cl->gates.on[KP_GATE_IN_PLACE_POD_VERTICAL_SCALING]
                                  ? p->resize
                                  : NULL;
    dense_of(rz && rz->infeasible ? NULL : &p->pod_req, eff, &have);
    if (rz && (rz->has_res || rz->has_alloc)) {
        const kp_resv *st[2] = {&rz->req, &rz->alloc};
        for (int k = 0; k < 2; k++) {
            int64_t v[KP_MAX_RES];
            uint32_t m;
            dense_of(st[k], v, &m);
            for (uint16_t j = 0; j < p->overhead.n; j++) {
                int r = p->overhead.e[j].res;
                if (m >> r & 1) v[r] = v[r] > p->overhead.e[j].v ? v[r] - p->overhead.e[j].v : 0;
            }
            for (uint32_t r = 0; r < cl->n_res; r++)
                if ((m >> r & 1) && (!(have >> r & 1) || v[r] > eff[r])) {
                    eff[r] = v[r];
                    have |= UINT32_C(1) << r;
                }
        }
    }
    for (uint32_t r = 0; r < cl->n_res; r++)
        if ((have >> r & 1) && kp__pod_level_supported(cl, (int)r)) out[r] = eff[r];
}

/* mirrors component-helpers resource.PodRequests with the scheduler's options (NodeInfo's
 * calculateResource, NodeResourcesFit): UseStatusResources (the InPlacePodVerticalScaling gate,
 * GA and locked on from 1.35) and InPlacePodLevelResourcesVerticalScalingEnabled (its gate, beta
 * on since 1.36; only together with UseStatusResources). */
void kp__pod_requests(const kp_cluster *cl, const kp_pod *p, bool with_overhead, bool non_zero,
                      int64_t *out) {
    bool use_status = p->resize && cl->gates.on[KP_GATE_IN_PLACE_POD_VERTICAL_SCALING];
    aggregate_requests(cl, p, LIST_SPEC, false, non_zero, out);
    if (use_status) aggregate_with_status(cl, p, non_zero, out);
    bool pod_level_requests = false; /* IsPodLevelRequestsSet */
    for (uint16_t k = 0; p->has_pod_resources && k < p->pod_req.n; k++)
        if (kp__pod_level_supported(cl, p->pod_req.e[k].res)) pod_level_requests = true;
    if (pod_level_requests) apply_pod_level(cl, p, out);
    if (with_overhead)
        for (uint16_t k = 0; k < p->overhead.n; k++)
            out[p->overhead.e[k].res] = p->resize
                                            ? sat_add(out[p->overhead.e[k].res], p->overhead.e[k].v)
                                            : out[p->overhead.e[k].res] + p->overhead.e[k].v;
}

/* mirrors component-helpers resource.PodLimits */
void kp__pod_limits(const kp_cluster *cl, const kp_pod *p, int64_t *out) {
    int64_t apps[KP_MAX_RES] = {0}, side[KP_MAX_RES] = {0}, init_max[KP_MAX_RES] = {0};
    for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
        const kp_container *c = &p->containers[i];
        int64_t lim[KP_MAX_RES] = {0};
        for (uint16_t k = 0; k < c->lim.n; k++) lim[c->lim.e[k].res] = c->lim.e[k].v;
        for (uint32_t r = 0; r < cl->n_res; r++) {
            if (!c->is_init) {
                apps[r] += lim[r];
            } else if (c->is_sidecar) {
                apps[r] += lim[r];
                side[r] += lim[r];
                if (side[r] > init_max[r]) init_max[r] = side[r];
            } else if (lim[r] + side[r] > init_max[r]) {
                init_max[r] = lim[r] + side[r];
            }
        }
    }
    for (uint32_t r = 0; r < KP_MAX_RES; r++)
        out[r] = r < cl->n_res ? (apps[r] > init_max[r] ? apps[r] : init_max[r]) : 0;
    if (p->has_pod_resources)
        for (uint16_t k = 0; k < p->pod_lim.n; k++) {
            int r = p->pod_lim.e[k].res;
            if (kp__pod_level_supported(cl, r)) out[r] = p->pod_lim.e[k].v;
        }
}

int64_t kp__pod_aggregate_container(const kp_pod *p, int r, bool limits, bool *has) {
    int64_t sum = 0, max_init = 0, sidecars = 0;
    bool any = false;
    for (uint16_t i = 0; i < p->n_containers; i++) {
        const kp_container *c = &p->containers[i];
        sum = sat_add(sum, resv_get(limits ? &c->lim : &c->req, r, &any));
    }
    for (uint16_t i = 0; i < p->n_init; i++) {
        const kp_container *c = &p->containers[p->n_containers + i];
        int64_t x = resv_get(limits ? &c->lim : &c->req, r, &any), use;
        if (c->is_sidecar) {
            sum = sat_add(sum, x);
            sidecars = sat_add(sidecars, x);
            use = sidecars;
        } else {
            use = sat_add(x, sidecars);
        }
        if (use > max_init) max_init = use;
    }
    if (has) *has = any;
    return sum > max_init ? sum : max_init;
}

static bool resv_has_supported(const kp_cluster *cl, const kp_resv *v) {
    for (uint16_t i = 0; i < v->n; i++)
        if (kp__pod_level_supported(cl, v->e[i].res)) return true;
    return false;
}

bool kp__pod_level_resources_set(const kp_cluster *cl, const kp_pod *p) {
    return p->has_pod_resources &&
           (resv_has_supported(cl, &p->pod_req) || resv_has_supported(cl, &p->pod_lim));
}

int64_t kp__pod_resource_request(const kp_cluster *cl, const kp_pod *p, int r) {
    if (r == KP_RES_PODS) return 1;
    bool has = false;
    if (!p->has_pod_resources && p->n_init == 0 && p->n_containers == 1 && !p->overhead.n)
        return resv_get(&p->containers[0].req, r, &has); /* the common shape, same result */
    int64_t v;
    if (!kp__pod_level_resources_set(cl, p)) v = kp__pod_aggregate_container(p, r, false, NULL);
    else /* container level skipped; supported pod-level requests replace the aggregate */
        v = kp__pod_level_supported(cl, r) ? resv_get(&p->pod_req, r, &has) : 0;
    if (v != 0 && p->overhead.n)
        v = sat_add(v, resv_get(&p->overhead, r, &has)); /* only on a non-zero total */
    return v;
}
