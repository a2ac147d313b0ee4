/* The devices a node reaches (see pools.h): mirrors GatherPools (with NodeMatches and
 * checkSlicesInPool of pools_incubating.go) over the index. */
#include "sched/dra/pools.h"

#include <string.h>

#include "base/alloc.h"
#include "sched/dra/counters.h"

static kp_status push_nd(kp_dra_pools *a, uint32_t slice, uint32_t dev, bool usable) {
    if (a->n_nd == a->cap_nd) {
        void *p = a->nd;
        if (!kp__grow32(&p, &a->cap_nd, (size_t)a->n_nd + 1, sizeof *a->nd, 64)) return KP_ENOMEM;
        a->nd = p;
    }
    a->nd[a->n_nd++] = (kp_dra_ndev){slice, dev, usable};
    return KP_OK;
}

/* Does the slice reach the node (by its own selection, or one of its devices')? */
static bool slice_reaches(const kp_cluster *cl, const kp_dra_slice *s, uint32_t node) {
    if (s->nodes.node_name || s->nodes.all_nodes || s->nodes.has_selector)
        return kp__dra_nodes_match(cl, &s->nodes, node);
    if (!s->per_device_nodes) return false; /* an unknown future selection */
    for (uint32_t d = 0; d < s->n_devices; d++)
        if (s->devices[d].has_nodes && kp__dra_nodes_match(cl, &s->devices[d].nodes, node))
            return true;
    return false;
}

/* mirrors GatherPools' order with binding conditions (pools_incubating.go): the pools without a
 * device with binding conditions first, then those with, each group in its order */
static void binding_pools_last(const kp_cluster *cl, const kp_dra_index *ix, const uint32_t *cand,
                               uint32_t n_c, uint32_t *pools, uint32_t n_p) {
    uint32_t n_plain = 0;
    for (uint32_t j = 0; j < n_p; j++) {
        bool with = false;
        for (uint32_t i = 0; i < n_c && !with; i++) {
            if (ix->slice_pool[cand[i]] != ix->slice_pool[pools[j]]) continue;
            const kp_dra_slice *s = &cl->dra.slices[cand[i]];
            for (uint32_t d = 0; d < s->n_devices && !with; d++)
                with = s->devices[d].n_binding_conditions > 0;
        }
        if (with) continue;
        uint32_t v = pools[j]; /* stable: the plain pool moves before those with conditions */
        for (uint32_t k = j; k > n_plain; k--) pools[k] = pools[k - 1];
        pools[n_plain++] = v;
    }
}

/* The devices of the pools the node reaches, pool by pool in the order the pools are first
 * met (node-local slices first, then the others: NewAllocator's slicesOnNode + slicesShared),
 * each pool at its newest generation among those slices; a pool with a newer generation
 * elsewhere is dropped (checkSlicesInPool's obsolete case). Upstream walks a Go map here (an
 * unspecified order); kprio's order is the inputs'. */
kp_status kp__dra_gather(kp_dra_pools *a, const kp_cluster *cl, kp_dra_index *ix,
                         bool partitionable, bool binding, uint32_t node) {
    a->n_nd = 0;
    a->saw_invalid = false;
    uint32_t lo = node < ix->n_nodes_seen ? ix->node_off[node] : 0;
    uint32_t hi = node < ix->n_nodes_seen ? ix->node_off[node + 1] : 0;
    uint32_t n_cand = (hi - lo) + ix->n_shared;
    /* candidate slices that reach the node, then the pools in order of first appearance */
    if (2 * (n_cand + 1) > a->cap_cand) {
        kp__free(a->cand);
        a->cap_cand = 2 * (n_cand + 1);
        if (!(a->cand = kp__malloc((size_t)a->cap_cand * sizeof *a->cand))) {
            a->cap_cand = 0;
            return KP_ENOMEM;
        }
    }
    uint32_t *cand = a->cand;
    uint32_t *pools = cand + n_cand + 1, n_c = 0, n_p = 0;
    for (uint32_t i = 0; i < n_cand; i++) {
        uint32_t s = i < hi - lo ? ix->node_slices[lo + i] : ix->shared[i - (hi - lo)];
        /* GatherPools: without DRAPartitionableDevices, per-device node selection and shared
         * counters are unknown fields */
        if (!partitionable &&
            (cl->dra.slices[s].per_device_nodes || cl->dra.slices[s].n_counter_sets))
            continue;
        if (i >= hi - lo && !slice_reaches(cl, &cl->dra.slices[s], node)) continue;
        cand[n_c++] = s;
        uint32_t p = ix->slice_pool[s], j = 0;
        while (j < n_p && ix->slice_pool[pools[j]] != p) j++;
        if (j == n_p) pools[n_p++] = s;
    }
    if (binding) binding_pools_last(cl, ix, cand, n_c, pools, n_p);
    kp_status st = KP_OK;
    for (uint32_t j = 0; j < n_p && st == KP_OK; j++) {
        uint32_t p = ix->slice_pool[pools[j]];
        int64_t gen = INT64_MIN, count = 0, want = 0;
        for (uint32_t i = 0; i < n_c; i++)
            if (ix->slice_pool[cand[i]] == p && cl->dra.slices[cand[i]].generation > gen)
                gen = cl->dra.slices[cand[i]].generation;
        for (uint32_t i = 0; i < n_c; i++) {
            const kp_dra_slice *s = &cl->dra.slices[cand[i]];
            if (ix->slice_pool[cand[i]] == p && s->generation == gen)
                count++, want = s->slice_count;
        }
        bool complete = count == want;
        if (!complete) {
            if (ix->pool_gen[p] > gen) continue; /* obsolete: being replaced */
            complete = (int64_t)ix->pool_count[p] == want;
        }
        if (complete && partitionable) { /* buildPool's counter validation */
            const kp_dra_pool_ctr *pc = kp__dra_ctr_pool(ix, cl, p);
            if (!pc) return KP_ENOMEM;
            if (pc->invalid) {
                a->saw_invalid = true;
                continue;
            }
        }
        for (uint32_t i = 0; i < n_c && st == KP_OK; i++) {
            const kp_dra_slice *s = &cl->dra.slices[cand[i]];
            if (ix->slice_pool[cand[i]] != p || s->generation != gen) continue;
            for (uint32_t d = 0; d < s->n_devices && st == KP_OK; d++)
                st = push_nd(a, cand[i], d, complete);
        }
    }
    return st;
}

void kp__dra_pools_fini(kp_dra_pools *a) {
    kp__free(a->nd);
    kp__free(a->cand);
    memset(a, 0, sizeof *a);
}
