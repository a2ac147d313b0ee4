/* DRA devices for the scheduling and preemption benchmarks (--dra PCT): one DeviceClass
 * (gpu.example.com, no selector), one ResourceSlice per node with 8 GPUs in the node's own pool,
 * and a one-GPU ResourceClaim for PCT % of the pods: a running pod's claim allocated to the next
 * free GPU of its node (at most half of them) and reserved for it, a pending pod's claim not
 * allocated yet. The objects are filled in after the load, in the model's own arrays (heap, as
 * the cluster keeps them), so that the benchmark does not depend on the object decoders. */
#ifndef KP_BENCH_DRA_H
#define KP_BENCH_DRA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"

#define BENCH_GPUS 8

static kp_str bdra_s(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static void *bdra_calloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* Adds the devices and claims (pct: % of the pods with a claim, by (pod * 7) % 100 < pct). */
static void bench_dra_add(kp_cluster *cl, int pct) {
    kp_dra *d = &cl->dra;
    uint32_t nn = cl->n_nodes, np = cl->n_pods;
    d->classes = bdra_calloc(1, sizeof *d->classes);
    d->cap_classes = d->n_classes = 1;
    d->classes[0].name = bdra_s(cl, "gpu.example.com");
    d->slices = bdra_calloc(nn, sizeof *d->slices);
    d->cap_slices = d->n_slices = nn;
    kp_str drv = bdra_s(cl, "gpu.example.com"), gpu[BENCH_GPUS];
    char b[96];
    for (int g = 0; g < BENCH_GPUS; g++) {
        snprintf(b, sizeof b, "gpu-%d", g);
        gpu[g] = bdra_s(cl, b);
    }
    for (uint32_t i = 0; i < nn; i++) {
        kp_dra_slice *s = &d->slices[i];
        snprintf(b, sizeof b, "%s-gpu", kp__s(cl, cl->nodes[i].name));
        s->name = bdra_s(cl, b);
        s->driver = drv;
        s->pool = cl->nodes[i].name;
        s->generation = 1;
        s->slice_count = 1;
        s->nodes.node_name = cl->nodes[i].name;
        s->n_devices = BENCH_GPUS;
        s->devices = bdra_calloc(BENCH_GPUS, sizeof *s->devices);
        for (int g = 0; g < BENCH_GPUS; g++) s->devices[g].name = gpu[g];
    }
    uint32_t *used = bdra_calloc(nn, sizeof *used), n_claims = 0;
    for (uint32_t p = 0; p < np; p++) n_claims += (int)(p * 7 % 100) < pct;
    d->claims = bdra_calloc(n_claims, sizeof *d->claims);
    d->cap_claims = n_claims;
    kp_pod_claim *pcs = bdra_calloc(n_claims, sizeof *pcs);
    kp_dra_request *reqs = bdra_calloc(n_claims, sizeof *reqs);
    kp_dra_result *res = bdra_calloc(n_claims, sizeof *res);
    kp_dra_consumer *rsv = bdra_calloc(n_claims, sizeof *rsv);
    kp_str req = bdra_s(cl, "gpu"), pods = bdra_s(cl, "pods"), ns = 0;
    for (uint32_t p = 0; p < np; p++) {
        if ((int)(p * 7 % 100) >= pct) continue;
        kp_pod *pod = &cl->pods[p];
        if (pod->node >= 0 && used[pod->node] >= BENCH_GPUS / 2) continue;
        uint32_t k = d->n_claims++;
        kp_dra_claim *c = &d->claims[k];
        ns = pod->ns;
        snprintf(b, sizeof b, "%s-gpu", kp__s(cl, pod->name));
        c->ns = ns;
        c->name = c->uid = bdra_s(cl, b);
        c->creation_ts = c->deletion_ts = c->alloc_ts = KP_TIME_NONE;
        c->spec.n_requests = 1;
        c->spec.requests = &reqs[k];
        reqs[k].name = req;
        reqs[k].exactly.class_name = drv;
        reqs[k].exactly.count = 1;
        pcs[k].name = req;
        pcs[k].claim_name = c->name;
        pod->claims = &pcs[k];
        pod->n_claims = 1;
        if (pod->node < 0) continue;
        c->allocated = true;
        c->n_results = 1;
        c->results = &res[k];
        res[k] = (kp_dra_result){.request = req,
                                 .driver = drv,
                                 .pool = cl->nodes[pod->node].name,
                                 .device = gpu[used[pod->node]++]};
        c->alloc_has_nodes = true;
        c->alloc_nodes.node_name = cl->nodes[pod->node].name;
        c->n_reserved = 1;
        c->reserved = &rsv[k];
        rsv[k] = (kp_dra_consumer){pods, pod->name, pod->uid};
    }
    free(used);
}

#endif
