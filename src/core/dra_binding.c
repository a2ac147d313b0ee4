/* Device binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus):
 * what a claim's status.devices[].conditions say of the binding conditions its allocation
 * results copied from their devices (core/dra.h, "binding conditions"), and the two writers
 * around them: a driver setting a condition, and DynamicResources' PostFilter clearing a
 * claim's reservations, allocation and device status so that the next attempt allocates again.
 * Arrays go to the cluster arena: a claim's status is small and written a few times in a run. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"

bool kp__dra_claim_has_binding_conditions(const kp_dra_claim *c) {
    if (!c->allocated) return false;
    for (uint16_t i = 0; i < c->n_results; i++)
        if (c->results[i].n_binding_conditions) return true;
    return false;
}

/* mirrors getAllocatedDeviceStatus: the entry of the result's device (driver, pool, device; the
 * share id is not compared, as upstream does not) */
static const kp_dra_device_status *device_status(const kp_dra_claim *c, const kp_dra_result *r) {
    for (uint16_t i = 0; i < c->n_device_status; i++) {
        const kp_dra_device_status *d = &c->device_status[i];
        if (d->device == r->device && d->driver == r->driver && d->pool == r->pool) return d;
    }
    return NULL;
}

/* apimeta.FindStatusCondition */
static const kp_dra_condition *find_condition(const kp_dra_device_status *d, kp_str type) {
    for (uint16_t i = 0; i < d->n_conditions; i++)
        if (d->conditions[i].type == type) return &d->conditions[i];
    return NULL;
}

/* mirrors isClaimReadyForBinding (the failure text its error carries) and isClaimTimeout */
kp_dra_binding kp__dra_claim_binding(const kp_cluster *cl, const kp_dra_claim *c, int64_t now,
                                     int64_t timeout_s, char *why, size_t cap) {
    if (why && cap) why[0] = 0;
    if (!c->allocated) return KP_DRA_BINDING_PENDING;
    bool ready = true, has = false;
    for (uint16_t i = 0; i < c->n_results && ready; i++) {
        const kp_dra_result *r = &c->results[i];
        if (!r->n_binding_conditions) continue;
        has = true;
        const kp_dra_device_status *d = device_status(c, r);
        if (!d) {
            ready = false;
            break;
        }
        for (uint16_t k = 0; k < r->n_binding_failure_conditions; k++) {
            const kp_dra_condition *f = find_condition(d, r->binding_failure_conditions[k]);
            if (!f || !f->is_true) continue;
            if (why && cap)
                snprintf(why, cap, "claim %s binding failed: reason=%s, message=\"%s\"",
                         kp__s(cl, c->name), f->reason ? kp__s(cl, f->reason) : "",
                         f->message ? kp__s(cl, f->message) : "");
            return KP_DRA_BINDING_FAILED;
        }
        for (uint16_t k = 0; k < r->n_binding_conditions && ready; k++) {
            const kp_dra_condition *t = find_condition(d, r->binding_conditions[k]);
            ready = t && t->is_true;
        }
    }
    if (ready || !has) return KP_DRA_BINDING_READY;
    /* isClaimTimeout: allocationTimestamp + bindingTimeout before now (no timestamp, or no
     * clock: never) */
    if (c->alloc_ts != KP_TIME_NONE && now != KP_TIME_NONE && c->alloc_ts + timeout_s < now)
        return KP_DRA_BINDING_TIMEOUT;
    return KP_DRA_BINDING_PENDING;
}

kp_status kp__dra_claim_release(kp_cluster *cl, uint32_t claim) {
    if (claim >= cl->dra.n_claims) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (c->deleted) return KP_EINVAL;
    c->n_reserved = 0;
    c->n_device_status = 0;
    cl->dra.gen_claims++; /* reservedFor changed even when nothing was allocated */
    return kp__dra_claim_deallocate(cl, claim);
}

static kp_str intern(kp_cluster *cl, const char *s) {
    return s ? kp__intern(&cl->strs, s, strlen(s)) : 0;
}

/* status.devices copied into the arena with room for one more entry (and each entry's
 * conditions with room for one more): the old arrays stay, as the arena frees nothing */
kp_status kp__dra_claim_set_condition(kp_cluster *cl, uint32_t claim, uint16_t result,
                                      const char *type, bool is_true, const char *reason,
                                      const char *message) {
    if (claim >= cl->dra.n_claims) return KP_EINVAL;
    kp_dra_claim *c = &cl->dra.claims[claim];
    if (c->deleted || !c->allocated || result >= c->n_results || !type) return KP_EINVAL;
    kp_str t = intern(cl, type), rs = intern(cl, reason), ms = intern(cl, message);
    kp_str sv = intern(cl, is_true ? "True" : "False");
    if (t == UINT32_MAX || rs == UINT32_MAX || ms == UINT32_MAX || sv == UINT32_MAX)
        return KP_ENOMEM;
    const kp_dra_result *r = &c->results[result];
    const kp_dra_device_status *old = device_status(c, r);
    uint16_t n = c->n_device_status, at = old ? (uint16_t)(old - c->device_status) : n;
    if (!old && n == UINT16_MAX) return KP_EINVAL;
    kp_dra_device_status *ds = kp__arena_alloc(&cl->arena, ((size_t)n + 1) * sizeof *ds);
    if (!ds) return KP_ENOMEM;
    if (n) memcpy(ds, c->device_status, (size_t)n * sizeof *ds);
    kp_dra_device_status *e = &ds[at];
    if (!old) {
        memset(e, 0, sizeof *e);
        e->driver = r->driver;
        e->pool = r->pool;
        e->device = r->device;
        e->share_id = r->share_id;
    }
    uint16_t nc = e->n_conditions, ci = 0;
    while (ci < nc && e->conditions[ci].type != t) ci++;
    if (ci == nc && nc == UINT16_MAX) return KP_EINVAL;
    kp_dra_condition *cs = kp__arena_alloc(&cl->arena, ((size_t)nc + 1) * sizeof *cs);
    if (!cs) return KP_ENOMEM;
    if (nc) memcpy(cs, e->conditions, (size_t)nc * sizeof *cs);
    cs[ci] = (kp_dra_condition){
        .type = t, .status = sv, .reason = rs, .message = ms, .is_true = is_true};
    e->conditions = cs;
    e->n_conditions = ci == nc ? (uint16_t)(nc + 1) : nc;
    c->device_status = ds;
    c->n_device_status = old ? n : (uint16_t)(n + 1);
    cl->dra.gen_claims++;
    return KP_OK;
}
