/* Critical-pod admission preemption: which running pods the kubelet kills so that a critical pod
 * that failed admission only for lack of resources can be admitted.
 *
 * Mirrors pkg/kubelet/preemption/preemption.go (getPodsToPreempt, getPodsToPreemptByDistance,
 * admissionRequirementList.distance/subtract/toString, sortPodsByQOS, smallerResourceRequest).
 * Candidate order matters: candidates keep the node's pod order, and each distance pass removes
 * its pick by swapping the last candidate into its slot, exactly as upstream does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "kubelet/admit_predicates.h"
#include "kubelet/admit_preempt.h"
#include "kubelet/admit_state.h"

/* Grows the scratch arrays of `a` for n candidates and n * k cached values. */
static kp_status reserve(kp_admission *a, uint32_t n, uint32_t k) {
    if (n > a->cap_cands) {
        /* cands first, then its companions at the capacity it got */
        uint32_t cap = a->cap_cands;
        void *c = a->cands;
        if (!kp__grow32(&c, &cap, n, sizeof *a->cands, 16)) return KP_ENOMEM;
        a->cands = c;
        uint32_t *o = kp__realloc(a->order, (size_t)cap * 3 * sizeof *o);
        if (!o) return KP_ENOMEM;
        a->order = o;
        uint32_t *pk = kp__realloc(a->picked, (size_t)cap * sizeof *pk);
        if (!pk) return KP_ENOMEM;
        a->picked = pk;
        a->cap_cands = cap;
    }
    size_t nv = (size_t)n * (k ? k : 1);
    void *v = a->vals;
    if (!kp__grow(&v, &a->cap_vals, nv, sizeof *a->vals, 64)) return KP_ENOMEM;
    a->vals = v;
    return KP_OK;
}

/* A list of candidate indices (into a->cands). */
typedef struct {
    uint32_t *ix;
    uint32_t n;
} idxlist;

/* mirrors admissionRequirementList.subtract(pods...) over the concatenation of up to three
 * lists: each requirement loses the pods' requests (summing stops once it is <= 0) and is kept
 * only while still positive; requirement order is preserved. */
static void subtract(const kp_admission *a, const kp__admit_reqlist *in, const idxlist *l1,
                     const idxlist *l2, const idxlist *l3, kp__admit_reqlist *out) {
    const idxlist *ls[3] = {l1, l2, l3};
    uint32_t n_out = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        int64_t q = in->r[i].q;
        uint8_t k = in->r[i].k;
        for (int li = 0; li < 3 && q > 0; li++) {
            if (!ls[li]) continue;
            for (uint32_t j = 0; j < ls[li]->n; j++) {
                q -= a->cands[ls[li]->ix[j]].val[k];
                if (q <= 0) break;
            }
        }
        if (q > 0) { /* out may alias in: entry n_out <= i was already read */
            out->r[n_out].res = in->r[i].res;
            out->r[n_out].k = k;
            out->r[n_out].q = q;
            n_out++;
        }
    }
    out->n = n_out;
}

/* mirrors admissionRequirementList.distance: sum over requirements of the squared fraction the
 * pod leaves unmet (float64, summed in requirement order as upstream). */
static double distance(const kp__admit_reqlist *l, const kp__admit_cand *c) {
    double d = 0.0;
    for (uint32_t i = 0; i < l->n; i++) {
        double remaining = (double)(l->r[i].q - c->val[l->r[i].k]);
        if (remaining > 0) {
            double f = remaining / (double)l->r[i].q;
            d += f * f; /* math.Pow(f, 2) is exact squaring for normal values */
        }
    }
    return d;
}

/* mirrors smallerResourceRequest: memory, then cpu; all equal counts as smaller. */
static bool smaller_request(const kp__admit_cand *x, const kp__admit_cand *y) {
    if (x->mem != y->mem) return x->mem < y->mem;
    if (x->cpu != y->cpu) return x->cpu < y->cpu;
    return true;
}

void kp__admit_reqs_string(const kp_cluster *cl, const kp__admit_reqlist *l, char *buf,
                           size_t cap) {
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    if (w > 0) len = (size_t)w;
    for (uint32_t i = 0; i < l->n && len < cap; i++) {
        w = snprintf(buf + len, cap - len, "(res: %s, q: %lld), ",
                     kp__s(cl, cl->res_names[l->r[i].res]), (long long)l->r[i].q);
        if (w > 0) len += (size_t)w;
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
}

size_t kp__admit_reqs_text_bound(const kp_cluster *cl, const kp__admit_reqlist *l, size_t extra) {
    size_t n = extra + 8;
    for (uint32_t i = 0; i < l->n; i++) n += kp__strlen(&cl->strs, cl->res_names[l->r[i].res]) + 48;
    return n;
}

/* getPodsToPreempt's error when the pods cannot free the requirements l. */
static void no_set_found(const kp_cluster *cl, const kp__admit_reqlist *l, char *errbuf,
                         size_t errcap) {
    int w = snprintf(errbuf, errcap, "no set of running pods found to reclaim resources: ");
    size_t len = w > 0 ? (size_t)w : 0;
    if (len < errcap) kp__admit_reqs_string(cl, l, errbuf + len, errcap - len);
}

/* mirrors getPodsToPreemptByDistance. `pods` is consumed (swap-remove). Picks are appended to
 * `out` (capacity: pods->n). Returns false with upstream's error text when pods run out. */
static bool by_distance(const kp_cluster *cl, const kp_admission *a, idxlist *pods,
                        kp__admit_reqlist *rl, idxlist *out, char *errbuf, size_t errcap) {
    kp__admit_reqlist reqs;
    reqs.n = rl->n;
    memcpy(reqs.r, rl->r, rl->n * sizeof rl->r[0]);
    while (reqs.n > 0) {
        if (pods->n == 0) {
            no_set_found(cl, &reqs, errbuf, errcap);
            return false;
        }
        double best = (double)(reqs.n + 1);
        uint32_t bi = 0;
        for (uint32_t i = 0; i < pods->n; i++) {
            const kp__admit_cand *c = &a->cands[pods->ix[i]];
            double d = distance(&reqs, c);
            if (d < best || (d == best && smaller_request(c, &a->cands[pods->ix[bi]]))) {
                best = d;
                bi = i;
            }
        }
        uint32_t pick = pods->ix[bi];
        idxlist one = {&pick, 1};
        subtract(a, &reqs, &one, NULL, NULL, &reqs);
        out->ix[out->n++] = pick;
        pods->ix[bi] = pods->ix[pods->n - 1];
        pods->n--;
    }
    return true;
}

/* mirrors getPodsToPreempt(pod, activePods, requirements) with sortPodsByQOS. */
bool kp__admit_pods_to_preempt(const kp_cluster *cl, uint32_t node, uint32_t pod,
                               const kp__admit_reqlist *reqs, kp_admission *a, char *errbuf,
                               size_t errcap, kp_status *st) {
    const kp_node *n = &cl->nodes[node];
    const kp_pod *preemptor = &cl->pods[pod];
    uint32_t k = reqs->n;
    *st = KP_OK;
    a->n_victims = 0;
    if ((*st = reserve(a, n->n_pods ? n->n_pods : 1, k)) != KP_OK) return false;

    /* sortPodsByQOS: preemptable pods in the node's order, one list per QoS class */
    uint32_t nc = 0;
    uint32_t *be = a->order, *bu = a->order + a->cap_cands,
             *gu = a->order + 2 * (size_t)a->cap_cands;
    idxlist lbe = {be, 0}, lbu = {bu, 0}, lgu = {gu, 0};
    const bool pre_crit = kp__admit_is_critical(preemptor),
               pre_set = kp__admit_priority_set(preemptor);
    const kp__admit_unseen u = kp__admit_unseen_of(a);
    for (uint32_t i = 0; i < n->n_pods; i++) {
        uint32_t qi = n->pods[i];
        const kp_pod *q = &cl->pods[qi];
        if (!kp__admit_active_other(q, qi, pod) || kp__admit_is_unseen(u, qi)) continue;
        /* kubetypes.Preemptable, with the preemptor's side hoisted out of the loop */
        bool q_set = kp__admit_priority_set(q);
        if (!(pre_crit && !kp__admit_is_critical(q)) &&
            !(pre_set && q_set && preemptor->priority > q->priority))
            continue;
        kp__admit_cand *c = &a->cands[nc];
        int64_t *v = a->vals + (size_t)nc * (k ? k : 1);
        c->pod = qi;
        if (!q->has_pod_resources && q->overhead.n == 0) {
            /* no overhead, no pod-level resources: GetResourceRequest equals the scheduler's
             * request vector computed at finalize (same sidecar-aware aggregation) */
            c->mem = c->cpu = 0;
            for (uint16_t j = 0; j < q->req.n; j++) {
                if (q->req.e[j].res == KP_RES_CPU) c->cpu = q->req.e[j].v;
                else if (q->req.e[j].res == KP_RES_MEM) c->mem = q->req.e[j].v;
            }
            for (uint32_t j = 0; j < k; j++) {
                int r = reqs->r[j].res;
                int64_t x = 0;
                if (r == KP_RES_PODS) x = 1;
                else if (r == KP_RES_CPU) x = c->cpu;
                else if (r == KP_RES_MEM) x = c->mem;
                else
                    for (uint16_t m = 0; m < q->req.n; m++)
                        if (q->req.e[m].res == r) x = q->req.e[m].v;
                v[reqs->r[j].k] = x;
            }
        } else {
            c->mem = kp__pod_resource_request(cl, q, KP_RES_MEM);
            c->cpu = kp__pod_resource_request(cl, q, KP_RES_CPU);
            for (uint32_t j = 0; j < k; j++) {
                int r = reqs->r[j].res;
                v[reqs->r[j].k] = r == KP_RES_MEM   ? c->mem
                                  : r == KP_RES_CPU ? c->cpu
                                                    : kp__pod_resource_request(cl, q, r);
            }
        }
        c->val = v;
        switch (q->qos) {
        case KP_QOS_BESTEFFORT: lbe.ix[lbe.n++] = nc; break;
        case KP_QOS_BURSTABLE: lbu.ix[lbu.n++] = nc; break;
        case KP_QOS_GUARANTEED: lgu.ix[lgu.n++] = nc; break;
        }
        nc++;
    }

    /* make sure that pods exist to reclaim the requirements */
    kp__admit_reqlist left;
    subtract(a, reqs, &lbe, &lbu, &lgu, &left);
    if (left.n > 0) {
        no_set_found(cl, &left, errbuf, errcap);
        return false;
    }

    /* picked[] holds guaranteed, then burstable, then besteffort victims */
    idxlist gv = {a->picked, 0};
    kp__admit_reqlist r;
    subtract(a, reqs, &lbe, &lbu, NULL, &r);
    if (!by_distance(cl, a, &lgu, &r, &gv, errbuf, errcap)) return false;
    idxlist bv = {a->picked + gv.n, 0};
    subtract(a, reqs, &lbe, &gv, NULL, &r);
    if (!by_distance(cl, a, &lbu, &r, &bv, errbuf, errcap)) return false;
    idxlist ev = {a->picked + gv.n + bv.n, 0};
    subtract(a, reqs, &bv, &gv, NULL, &r);
    if (!by_distance(cl, a, &lbe, &r, &ev, errbuf, errcap)) return false;

    /* result order: besteffort, burstable, guaranteed */
    uint32_t total = gv.n + bv.n + ev.n;
    void *nv = a->victims;
    if (!kp__grow32(&nv, &a->cap_victims, total, sizeof *a->victims, 8)) {
        *st = KP_ENOMEM;
        return false;
    }
    a->victims = nv;
    const idxlist *parts[3] = {&ev, &bv, &gv};
    for (int p = 0; p < 3; p++) {
        for (uint32_t i = 0; i < parts[p]->n; i++) {
            const kp_pod *q = &cl->pods[a->cands[parts[p]->ix[i]].pod];
            kp_admit_victim *vt = &a->victims[a->n_victims++];
            vt->pod = (kp_index)a->cands[parts[p]->ix[i]].pod;
            vt->priority = q->priority;
            vt->qos = (kp_qos)q->qos;
        }
    }
    return true;
}
