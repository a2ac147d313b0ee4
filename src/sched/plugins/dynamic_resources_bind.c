/* DynamicResources and device binding conditions (see dynamic_resources.h, "binding"): Filter's
 * check of an allocated claim (its allocation's node selector; with DRADeviceBindingConditions a
 * binding failure condition or the binding timeout makes it unavailable everywhere, so that
 * PostFilter frees it), PostFilter's deallocation through core's writer, and what PreBind waits
 * for: the binding conditions of the pod's devices. Mirrors Filter, PostFilter, PreBind,
 * isClaimReadyForBinding, isClaimTimeout and hasBindingConditions of dynamicresources.go. */
#include <stdio.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "sched/dra/index.h"
#include "sched/plugins/dynamic_resources_bind.h"

/* DynamicResourcesBindingTimeoutDefault */
#define BINDING_TIMEOUT_DEFAULT_S 600

int64_t kp__dra_binding_timeout(const kp_sched *s) {
    return s->cfg.dra_binding_timeout_s > 0 ? s->cfg.dra_binding_timeout_s
                                            : BINDING_TIMEOUT_DEFAULT_S;
}

static bool binding_on(const kp_sched *s) {
    return s->cl->gates.on[KP_GATE_DRA_DEVICE_BINDING_CONDITIONS];
}

/* mirrors DynamicResources.Filter's loop over the pod's allocated claims */
bool kp__dra_claim_unavailable(const kp_cycle *c, const kp_dra_claim *claim, uint32_t node) {
    const kp_sched *s = c->s;
    if (!claim->allocated) return false;
    if (claim->alloc_has_nodes && !kp__dra_nodes_match(s->cl, &claim->alloc_nodes, node))
        return true;
    /* the claim is allocated: is it ready for binding? a failure condition, or not ready once
     * the timeout passed: PostFilter should deallocate it to try other devices */
    if (!binding_on(s) || !kp__dra_claim_has_binding_conditions(claim)) return false;
    kp_dra_binding b =
        kp__dra_claim_binding(s->cl, claim, s->now, kp__dra_binding_timeout(s), NULL, 0);
    return b == KP_DRA_BINDING_FAILED || b == KP_DRA_BINDING_TIMEOUT;
}

/* mirrors DynamicResources.PostFilter's UpdateStatus: ReservedFor, Allocation and Devices cleared.
 * The scheduler's memo and device index see the change (gen_claims); the simulator learns the claim
 * through kp_sched_deallocated_claim. */
void kp__dra_deallocate(const kp_cycle *c, uint32_t claim) {
    kp_sched *s = c->s;
    if (kp__dra_claim_release(s->cl, claim) != KP_OK) return; /* deleted meanwhile: nothing */
    s->dra_deallocated = (kp_index)claim;
    s->memo_mut++;
}

bool kp__dra_prebind_waits(const kp_cycle *c, uint32_t node, char *buf, size_t cap) {
    const kp_sched *s = c->s;
    if (cap) buf[0] = 0;
    if (!binding_on(s) || !c->p->n_claims) return false;
    const kp_cluster *cl = s->cl;
    bool has = false, ready = true;
    for (uint16_t i = 0; i < c->p->n_claims; i++) {
        long k = kp__dra_pod_claim(cl, c->pod, i);
        if (k < 0) continue;
        const kp_dra_claim *claim = &cl->dra.claims[k];
        if (!kp__dra_claim_has_binding_conditions(claim)) continue;
        has = true;
        if (kp__dra_claim_binding(cl, claim, s->now, kp__dra_binding_timeout(s), NULL, 0) !=
            KP_DRA_BINDING_READY)
            ready = false;
    }
    if (!has || ready) return false;
    /* the pod's event when PreBind starts to wait (BindingConditionsPending) */
    snprintf(buf, cap,
             "BindingConditionsPending: waiting for binding conditions for device on "
             "node %s",
             kp__s(cl, cl->nodes[node].name));
    return true;
}
