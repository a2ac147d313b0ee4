/* The eviction message and annotations: evictionMessage and getThresholdMetInfo (helpers.go). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/quantity.h"
#include "core/resources.h"
#include "core/summary.h"
#include "kubelet/evict_message.h"
#include "kubelet/evict_signals.h"
#include "kubelet/evict_spec.h"
#include "kubelet/evict_state.h"
#include "kubelet/evict_thresholds.h"

/* The message and the annotation lists have no length limit: each is a kp__buf that starts in a
 * local array and moves to the heap only when that is too small, so a step formats each piece
 * once and allocates nothing in the common case. */
#define TEXT_LOCAL 1024

/* The text, copied into the step's arena ("" for an empty text); NULL when out of memory. */
static const char *text_keep(kp_arena *a, const kp__buf *t) {
    if (t->failed) return NULL;
    return kp__arena_dup(a, kp__buf_str(t), t->len + 1);
}

static void obs_str(kp_evict_signal s, int64_t v, char *buf, size_t cap) {
    bool decimal = kp__ev_is_inode_signal(s) || s == KP_EVSIG_PID_AVAILABLE;
    kp__quantity_format_int(v, decimal ? KP_QFMT_DECIMAL_SI : KP_QFMT_BINARY_SI, buf, cap);
}

/* mirrors evictionMessage + getThresholdMetInfo */
kp_status kp__ev_eviction_message(kp_evict_manager *m, kp_evict_eviction *e, const char *resource,
                                  uint32_t rp_pod, const kp_evict_summary *s,
                                  const kp__ev_pstats *st, const uint32_t *t3, uint32_t n3,
                                  const kp_evict_observation *obs) {
    const kp_cluster *cl = m->cl;
    const kp_pod *p = &cl->pods[rp_pod];
    kp__ev_qty qt;
    char q[64], a[64];
    char msg_s[TEXT_LOCAL], names_s[TEXT_LOCAL], usages_s[TEXT_LOCAL];
    kp__buf msg, names, usages;
    kp__buf_init_local(&msg, msg_s, sizeof msg_s);
    kp__buf_init_local(&names, names_s, sizeof names_s);
    kp__buf_init_local(&usages, usages_s, sizeof usages_s);
    kp_status st_out = KP_ENOMEM;
    kp__buf_printf(&msg, "The node was low on resource: %s. ", resource);
    for (uint32_t k = 0; k < n3; k++) {
        const kp__ev_threshold *t = &m->th[t3[k]];
        if (strcmp(kp_evict_signal_resource(t->signal), resource) != 0 || !obs[t->signal].present)
            continue;
        kp__ev_threshold_quantity_str(&t->value, obs[t->signal].capacity, q, sizeof q);
        obs_str(t->signal, obs[t->signal].available, a, sizeof a);
        kp__buf_printf(&msg, "Threshold quantity: %s, available: %s. ", q, a);
        break;
    }
    if (!st) {
        if ((e->message = text_keep(&m->arena, &msg)) != NULL) st_out = KP_OK;
        goto out;
    }
    const char *keys[5], *vals[5];
    uint32_t na = 0;
    bool is_mem = strcmp(resource, "memory") == 0,
         is_eph = strcmp(resource, "ephemeral-storage") == 0;
    const char *pod_name = kp__s(cl, p->name), *pod_usage = NULL;
    int64_t preq;
    if (is_mem && p->has_pod_resources && kp__ev_resv_find(&p->pod_req, KP_RES_MEM, &preq) &&
        (st->has & KP__EVP_MEM)) {
        int64_t ws = (st->has & KP__EVP_WS) ? kp__ev_u2i(st->ws) : 0;
        kp__quantity_format_int(ws, KP_QFMT_BINARY_SI, a, sizeof a);
        kp__ev_spec_qty(&m->spec, rp_pod, KP_EVSPEC_POD_REQUEST, "", "memory", preq, &qt);
        kp__buf_printf(&msg,
                       "Pod %s was using %s, request is %s, has larger consumption of memory. ",
                       pod_name, a, kp__ev_qty_str(&qt));
        if (!(pod_usage = kp__arena_dup(&m->arena, a, strlen(a) + 1))) goto out;
    }
    uint32_t n_all = (uint32_t)p->n_containers + p->n_init;
    const kp__ev_cstats *conts = kp__ev_pod_conts(s, st);
    for (uint32_t j = 0; j < st->n_containers; j++) {
        const kp__ev_cstats *cs = &conts[j];
        const char *cs_name = kp__ev_str(s, cs->name);
        if (!(cs->has & KP__EVC_NAME)) continue;
        for (uint32_t c = 0; c < n_all; c++) {
            const kp_container *ct = &p->containers[c];
            if (cl->strs.len[ct->name] != cs->name_len ||
                memcmp(kp__s(cl, ct->name), cs_name, cs->name_len) != 0)
                continue;
            int64_t req = is_mem   ? kp__resv_get(&ct->req, KP_RES_MEM)
                          : is_eph ? kp__resv_get(&ct->req, KP_RES_EPH)
                                   : 0;
            bool has_usage = false;
            int64_t usage = 0;
            if (is_eph && (cs->has & KP__EVC_ROOT_USED) && (cs->has & KP__EVC_LOGS_USED)) {
                has_usage = true;
                usage = kp__ev_u2i(cs->root_used + cs->logs_used);
            } else if (is_mem && (cs->has & KP__EVC_WS)) {
                has_usage = true;
                usage = kp__ev_u2i(cs->ws);
            }
            if (has_usage && usage > req) {
                kp__quantity_format_int(usage, KP_QFMT_BINARY_SI, a, sizeof a);
                kp__ev_spec_qty(&m->spec, rp_pod, KP_EVSPEC_REQUEST, kp__s(cl, ct->name), resource,
                                req, &qt);
                kp__buf_printf(
                    &msg,
                    "Container %s was using %s, request is %s, has larger consumption of %s. ",
                    kp__s(cl, ct->name), a, kp__ev_qty_str(&qt), resource);
                kp__buf_printf(&names, "%s%s", names.len ? "," : "", kp__s(cl, ct->name));
                kp__buf_printf(&usages, "%s%s", usages.len ? "," : "", a);
            }
            break;
        }
    }
    /* annotations, keys sorted as Go's encoding of a map[string]string */
    keys[na] = "offending_containers";
    vals[na++] = text_keep(&m->arena, &names);
    keys[na] = "offending_containers_usage";
    vals[na++] = text_keep(&m->arena, &usages);
    if (!vals[0] || !vals[1]) goto out;
    if (pod_usage) {
        keys[na] = "offending_pod";
        vals[na++] = pod_name;
        keys[na] = "offending_pod_usage";
        vals[na++] = pod_usage;
    }
    keys[na] = "starved_resource";
    vals[na++] = resource;
    const char **kk = kp__arena_alloc(&m->arena, na * sizeof *kk),
               **vv = kp__arena_alloc(&m->arena, na * sizeof *vv);
    if (!kk || !vv) goto out;
    memcpy(kk, keys, na * sizeof *kk);
    memcpy(vv, vals, na * sizeof *vv);
    e->n_annotations = na;
    e->ann_keys = kk;
    e->ann_values = vv;
    if ((e->message = text_keep(&m->arena, &msg)) != NULL) st_out = KP_OK;
out:
    kp__buf_free(&msg);
    kp__buf_free(&names);
    kp__buf_free(&usages);
    return st_out;
}
