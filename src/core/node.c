/* Node aggregates of the pods bound to it. */
#include "core/node.h"
#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "kprio/quantity.h"

/* ---- NodeInfo aggregates (mirror framework.NodeInfo.AddPod / RemovePod) ---- */

kp_status kp__node_add_pod(kp_cluster *cl, uint32_t node, uint32_t pod) {
    kp_node *n = &cl->nodes[node];
    kp_pod *p = &cl->pods[pod];
    /* The sums must hold before anything changes: on KP_ERANGE the node is as it was. */
    int64_t unused;
    for (uint16_t i = 0; i < p->req.n; i++)
        if (kp_amount_add(n->requested[p->req.e[i].res], p->req.e[i].v, &unused) != KP_OK)
            return KP_ERANGE;
    if (kp_amount_add(n->nz_cpu, p->nz_cpu, &unused) != KP_OK ||
        kp_amount_add(n->nz_mem, p->nz_mem, &unused) != KP_OK)
        return KP_ERANGE;
    void *np = n->pods;
    if (!kp__grow32(&np, &n->cap_pods, (size_t)n->n_pods + 1, sizeof *n->pods, 8)) return KP_ENOMEM;
    n->pods = np;
    p->pos_in_node = n->n_pods;
    n->pods[n->n_pods++] = pod;
    n->pods_gen++;
    p->node = (int32_t)node;
    for (uint16_t i = 0; i < p->req.n; i++) n->requested[p->req.e[i].res] += p->req.e[i].v;
    n->nz_cpu += p->nz_cpu;
    n->nz_mem += p->nz_mem;
    if (p->pod_affinity || p->pod_anti_affinity) n->n_affinity_pods++;
    n->n_attachable += kp__pod_attachable(p);
    return KP_OK;
}

void kp__node_remove_pod(kp_cluster *cl, uint32_t pod) {
    kp_pod *p = &cl->pods[pod];
    if (p->node < 0) return;
    kp_node *n = &cl->nodes[p->node];
    uint32_t pos = p->pos_in_node;
    /* swap-with-last removal, as NodeInfo.RemovePod does */
    uint32_t last = n->pods[n->n_pods - 1];
    n->pods[pos] = last;
    cl->pods[last].pos_in_node = pos;
    n->n_pods--;
    n->pods_gen++;
    for (uint16_t i = 0; i < p->req.n; i++) n->requested[p->req.e[i].res] -= p->req.e[i].v;
    n->nz_cpu -= p->nz_cpu;
    n->nz_mem -= p->nz_mem;
    if (p->pod_affinity || p->pod_anti_affinity) n->n_affinity_pods--;
    n->n_attachable -= kp__pod_attachable(p);
    p->node = -1;
}

uint32_t kp_cluster_node_generation(const kp_cluster *cl, kp_index node) {
    return cl && node >= 0 && (size_t)node < cl->n_nodes ? cl->nodes[node].pods_gen : 0;
}
