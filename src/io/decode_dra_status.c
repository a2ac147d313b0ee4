/* A claim's binding-condition fields (DRADeviceBindingConditions): the bindingConditions and
 * bindingFailureConditions an allocation result copied from its device, and status.devices[]
 * (v1.AllocatedDeviceStatus, DRAResourceClaimDeviceStatus) with the conditions drivers set,
 * validated as validateDeviceRequestAllocationResult and validateDeviceStatus do for what the
 * scheduler reads. */
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

enum {
    BINDING_CONDITIONS_MAX = 4, /* BindingConditionsMaxSize */
    DEVICE_CONDITIONS_MAX = 8, /* AllocatedDeviceStatusMaxConditions */
    DEVICES_MAX = 32 * 32 /* AllocationResultsMaxSize per request, bounded by the results */
};

kp_status kp__dra_result_binding(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_dra_result *r) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, t, "bindingConditions", BINDING_CONDITIONS_MAX, &a));
    TRY(kp__d_str_list(d, cl, t, "bindingConditions", &r->n_binding_conditions,
                       &r->binding_conditions));
    TRY(kp__dra_arr(d, t, "bindingFailureConditions", BINDING_CONDITIONS_MAX, &a));
    return kp__d_str_list(d, cl, t, "bindingFailureConditions", &r->n_binding_failure_conditions,
                          &r->binding_failure_conditions);
}

/* one metav1.Condition: type and status required (status True, False or Unknown) */
static kp_status condition(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_dra_condition *o) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    const char *status = NULL;
    TRY(kp__d_str(d, cl, t, "type", &o->type));
    if (!o->type) return kp__dctx_fail(d, t, KP_EINVAL, "type", "Required value");
    TRY(kp__dget_str(d, t, "status", &status, NULL));
    if (!status || !status[0]) return kp__dctx_fail(d, t, KP_EINVAL, "status", "Required value");
    if (strcmp(status, "True") != 0 && strcmp(status, "False") != 0 &&
        strcmp(status, "Unknown") != 0)
        return kp__dctx_fail(d, kp__tree_get(t, "status"), KP_EINVAL, "status",
                             "Unsupported value: \"%s\": supported values: \"False\", \"True\", "
                             "\"Unknown\"",
                             status);
    o->is_true = strcmp(status, "True") == 0;
    TRY(kp__d_str(d, cl, t, "status", &o->status));
    TRY(kp__d_str(d, cl, t, "reason", &o->reason));
    return kp__d_str(d, cl, t, "message", &o->message);
}

/* mirrors validateDeviceStatus: an entry names a device of the allocation */
static kp_status device(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, const kp_dra_claim *c,
                        kp_dra_device_status *o) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__dra_req_str(d, cl, t, "driver", KP_DRA_NAME_DRIVER, &o->driver));
    TRY(kp__dra_req_str(d, cl, t, "pool", KP_DRA_NAME_POOL, &o->pool));
    TRY(kp__dra_req_str(d, cl, t, "device", KP_DRA_NAME_LABEL, &o->device));
    TRY(kp__d_str(d, cl, t, "shareID", &o->share_id));
    bool found = false;
    for (uint16_t i = 0; i < c->n_results && !found; i++) {
        const kp_dra_result *r = &c->results[i];
        found = r->driver == o->driver && r->pool == o->pool && r->device == o->device &&
                r->share_id == o->share_id;
    }
    if (!found)
        return kp__dctx_fail(d, t, KP_EINVAL, NULL,
                             "Invalid value: \"%s/%s/%s\": must be an allocated device in the "
                             "claim",
                             kp__s(cl, o->driver), kp__s(cl, o->pool), kp__s(cl, o->device));
    const kp_tnode *a;
    TRY(kp__dra_arr(d, t, "conditions", DEVICE_CONDITIONS_MAX, &a));
    if (!a || !a->n) return KP_OK;
    if (!(o->conditions = kp__d_alloc(d, cl, a->n * sizeof *o->conditions))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "conditions");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *q = a->first; q && st == KP_OK; q = q->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        memset(&o->conditions[i], 0, sizeof o->conditions[i]);
        st = condition(d, cl, q, &o->conditions[i]);
        for (uint32_t j = 0; j < i && st == KP_OK; j++)
            if (o->conditions[j].type == o->conditions[i].type)
                st = kp__dctx_fail(d, q, KP_EINVAL, "type", "Duplicate value: \"%s\"",
                                   kp__s(cl, o->conditions[i].type));
        kp__dctx_pop(d, s2);
    }
    o->n_conditions = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__dra_claim_devices(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                                kp_dra_claim *c) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, status, "devices", DEVICES_MAX, &a));
    if (!a || !a->n) return KP_OK;
    if (!(c->device_status = kp__d_alloc(d, cl, a->n * sizeof *c->device_status))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "devices");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        memset(&c->device_status[i], 0, sizeof c->device_status[i]);
        st = device(d, cl, t, c, &c->device_status[i]);
        kp__dctx_pop(d, s2);
    }
    c->n_device_status = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}
