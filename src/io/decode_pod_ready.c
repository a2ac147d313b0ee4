/* A pod's readiness as the input gives it (io/decode_pod_ready.h): the probes' initialDelaySeconds
 * (what the simulated kubelet waits before the pod is Ready, docs/scenario.md "Readiness") and
 * the status's Ready condition (what the disruption controller and the workload controllers
 * read). */
#include "io/decode_pod_ready.h"

#include <string.h>

#include "io/decode_common.h"

/* One probe: an object; initialDelaySeconds an int32, not negative. */
static kp_status probe_delay(kp_dctx *d, const kp_tnode *c, const char *key, int64_t *out,
                             bool *has) {
    const kp_tnode *pr;
    *has = false;
    kp_status st = kp__dget_obj(d, c, key, &pr);
    if (st != KP_OK || !pr) return st;
    if (pr->type != KP_T_OBJ) return kp__dctx_fail(d, pr, KP_EINVAL, key, "expected an object");
    *has = true;
    size_t saved = kp__dctx_push(d, key);
    int64_t v = 0;
    st = kp__dget_int(d, pr, "initialDelaySeconds", INT32_MIN, INT32_MAX, &v, NULL);
    if (st == KP_OK && v < 0) /* ValidateNonnegativeField */
        st = kp__dctx_fail(d, kp__tree_get(pr, "initialDelaySeconds"), KP_EINVAL,
                           "initialDelaySeconds",
                           "Invalid value: %lld: must be greater than or equal to 0", (long long)v);
    kp__dctx_pop(d, saved);
    *out = v;
    return st;
}

kp_status kp__decode_container_probes(kp_dctx *d, const kp_tnode *c, kp_container *ct,
                                      int64_t *delay) {
    static const char *const keys[] = {"startupProbe", "readinessProbe"};
    bool *has[] = {&ct->has_startup_probe, &ct->has_readiness_probe};
    int32_t *at[] = {&ct->startup_delay, &ct->readiness_delay};
    *delay = 0;
    for (int i = 0; i < 2; i++) {
        int64_t v = 0;
        kp_status st = probe_delay(d, c, keys[i], &v, has[i]);
        if (st != KP_OK) return st;
        if (*has[i] && ct->is_init && !ct->is_sidecar) /* validateInitContainers */
            return kp__dctx_fail(d, kp__tree_get(c, keys[i]), KP_EINVAL, keys[i],
                                 "Forbidden: may not be set for init containers without "
                                 "restartPolicy=Always");
        *at[i] = (int32_t)v;
        *delay += v;
    }
    return KP_OK;
}

kp_status kp__decode_pod_ready(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p) {
    (void)cl;
    const kp_tnode *a;
    kp_status st = kp__dget_arr(d, status, "conditions", &a);
    if (st != KP_OK || !a) return st;
    uint32_t i = 0;
    for (const kp_tnode *c = a->first; c; c = c->next, i++) {
        const kp_tnode *t = kp__tree_get(c, "type");
        if (c->type != KP_T_OBJ || !t || t->type != KP_T_STR || strcmp(t->s, "Ready") != 0)
            continue; /* the shape of every condition was checked (kp__d_conditions) */
        size_t saved = kp__dctx_push(d, "conditions");
        size_t s2 = kp__dctx_push_index(d, i);
        const char *v = NULL;
        bool has = false;
        st = kp__dget_str(d, c, "status", &v, &has);
        if (st == KP_OK && !has) st = kp__dctx_fail(d, c, KP_EINVAL, "status", "Required value");
        else if (st == KP_OK && strcmp(v, "True") && strcmp(v, "False") && strcmp(v, "Unknown"))
            st = kp__dctx_fail(d, kp__tree_get(c, "status"), KP_EINVAL, "status",
                               "Unsupported value: \"%s\": supported values: \"False\", "
                               "\"True\", \"Unknown\"",
                               v);
        if (st == KP_OK) st = kp__dget_time(d, c, "lastTransitionTime", &p->ready_ts, NULL);
        kp__dctx_pop(d, s2);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
        p->has_ready_cond = true;
        p->ready = strcmp(v, "True") == 0;
        return KP_OK;
    }
    return KP_OK;
}
