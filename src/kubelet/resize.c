/* The kubelet's answer to an in-place resize (include/kprio/update.h kp_kubelet_resize_check):
 * mirrors manager.canResizePod (pkg/kubelet/allocation, called by handlePodResourcesResize): a pod
 * whose new cpu or memory request exceeds the node's allocatable is Infeasible; one whose new
 * requests do not fit beside the node's other pods (canAdmitPod: the resource fit of the admission
 * handlers, with the other pods' allocated requests) is Deferred, and the kubelet retries it when
 * resources free up; otherwise the resize is allocated. The static CPU and memory managers'
 * Infeasible cases are not modelled (kprio has no CPU manager policy). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "kprio/update.h"

kp_resize_result kp_kubelet_resize_check(const kp_cluster *cl, kp_index pod, char *msg,
                                         size_t cap) {
    if (cap) msg[0] = 0;
    if (pod < 0 || (size_t)pod >= cl->n_pods || cl->pods[pod].node < 0) return KP_RESIZE_APPLIED;
    const kp_pod *p = &cl->pods[pod];
    const kp_node *n = &cl->nodes[p->node];
    int64_t cpu = kp__pod_resource_request(cl, p, KP_RES_CPU);
    int64_t mem = kp__pod_resource_request(cl, p, KP_RES_MEM);
    int64_t cpu_cap = n->alloc[KP_RES_CPU], mem_cap = n->alloc[KP_RES_MEM];
    if (cpu > cpu_cap || mem > mem_cap) {
        if (mem > mem_cap)
            snprintf(msg, cap,
                     "Node didn't have enough capacity: memory, requested: %lld, "
                     "capacity: %lld",
                     (long long)mem, (long long)mem_cap);
        else
            snprintf(msg, cap,
                     "Node didn't have enough capacity: cpu, requested: %lld, "
                     "capacity: %lld",
                     (long long)cpu, (long long)cpu_cap);
        return KP_RESIZE_INFEASIBLE;
    }
    /* canAdmitPod over the other pods' allocated requests: fitsRequest's order (cpu, memory,
     * ephemeral-storage, then the extended resources), the first shortfall's message */
    int64_t used[KP_MAX_RES] = {0};
    for (uint32_t k = 0; k < n->n_pods; k++) {
        const kp_pod *o = &cl->pods[n->pods[k]];
        if (o == p) continue;
        for (uint16_t e = 0; e < o->req.n; e++) used[o->req.e[e].res] += o->req.e[e].v;
    }
    for (uint32_t r = 0; r < cl->n_res; r++) {
        if (r == KP_RES_PODS) continue;
        int64_t want = kp__pod_resource_request(cl, p, (int)r);
        if (want == 0 || want <= n->alloc[r] - used[r]) continue;
        snprintf(msg, cap,
                 "Node didn't have enough resource: %s, requested: %lld, used: %lld, capacity: "
                 "%lld",
                 kp__s(cl, cl->res_names[r]), (long long)want, (long long)used[r],
                 (long long)n->alloc[r]);
        return KP_RESIZE_DEFERRED;
    }
    return KP_RESIZE_APPLIED;
}
