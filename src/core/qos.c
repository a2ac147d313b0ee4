/* The pod's QoS class: the single copy of v1qos.ComputePodQOS and the class names. */
#include "core/qos.h"
#include "core/pod.h"
#include "core/resources.h"

const char *kp_qos_name(kp_qos q) {
    switch (q) {
    case KP_QOS_BESTEFFORT: return "BestEffort";
    case KP_QOS_BURSTABLE: return "Burstable";
    case KP_QOS_GUARANTEED: return "Guaranteed";
    }
    return "BestEffort";
}

/* mirrors v1qos.ComputePodQOS: only cpu and memory count; quantities <= 0 are ignored. Pod-level
 * resources decide alone when set (PodLevelResources; with it off finalize drops them first):
 * with PodLevelResourcesFixKubeletQOSClass (fix) only when they name a request or a limit,
 * without it whenever spec.resources is present (an empty {} makes the pod BestEffort). */
kp_qos kp__pod_compute_qos(const kp_pod *p, bool fix) {
    int64_t req[2] = {0}, lim[2] = {0};
    bool has_req[2] = {false}, has_lim[2] = {false};
    bool guaranteed = true;
    if (p->has_pod_resources && (!fix || p->pod_req.n || p->pod_lim.n)) {
        for (uint16_t k = 0; k < p->pod_req.n; k++) {
            int r = p->pod_req.e[k].res;
            if (r <= KP_RES_MEM && p->pod_req.e[k].v > 0) {
                req[r] += p->pod_req.e[k].v;
                has_req[r] = true;
            }
        }
        for (uint16_t k = 0; k < p->pod_lim.n; k++) {
            int r = p->pod_lim.e[k].res;
            if (r <= KP_RES_MEM && p->pod_lim.e[k].v > 0) {
                lim[r] += p->pod_lim.e[k].v;
                has_lim[r] = true;
            }
        }
        guaranteed = has_lim[0] && has_lim[1];
    } else {
        for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init; i++) {
            const kp_container *c = &p->containers[i];
            bool found[2] = {false, false};
            for (uint16_t k = 0; k < c->req.n; k++) {
                int r = c->req.e[k].res;
                if (r <= KP_RES_MEM && c->req.e[k].v > 0) {
                    req[r] += c->req.e[k].v;
                    has_req[r] = true;
                }
            }
            for (uint16_t k = 0; k < c->lim.n; k++) {
                int r = c->lim.e[k].res;
                if (r <= KP_RES_MEM && c->lim.e[k].v > 0) {
                    lim[r] += c->lim.e[k].v;
                    has_lim[r] = true;
                    found[r] = true;
                }
            }
            if (!found[0] || !found[1]) guaranteed = false;
        }
    }
    if (!has_req[0] && !has_req[1] && !has_lim[0] && !has_lim[1]) return KP_QOS_BESTEFFORT;
    if (guaranteed) {
        for (int r = 0; r < 2; r++)
            if (has_req[r] && (!has_lim[r] || lim[r] != req[r])) guaranteed = false;
        int nreq = has_req[0] + has_req[1], nlim = has_lim[0] + has_lim[1];
        if (guaranteed && nreq == nlim) return KP_QOS_GUARANTEED;
    }
    return KP_QOS_BURSTABLE;
}
