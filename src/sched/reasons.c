/* Cluster-dependent Filter reasons: see reasons.h. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/node.h"
#include "core/taints.h"
#include "sched/compat.h"
#include "sched/framework.h"
#include "sched/reasons.h"

static char *format(const char *prefix, const char *a, const char *mid, const char *b,
                    const char *suffix) {
    size_t len = strlen(prefix) + strlen(a) + strlen(mid) + strlen(b) + strlen(suffix) + 1;
    char *s = kp__malloc(len);
    if (s) snprintf(s, len, "%s%s%s%s%s", prefix, a, mid, b, suffix);
    return s;
}

kp_status kp__reasons_init(kp_sched *s) {
    const kp_cluster *cl = s->cl;
    kp_reasons *r = &s->reasons;
    r->n_res = cl->n_res;
    r->generic_taint = kp__compat_generic_taint_reason(s->compat);
    r->insufficient = kp__calloc(cl->n_res ? cl->n_res : 1, sizeof *r->insufficient);
    r->taint_off = kp__malloc(((size_t)cl->n_nodes + 1) * sizeof *r->taint_off);
    if (!r->insufficient || !r->taint_off) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_res; i++)
        if (!(r->insufficient[i] =
                  format("Insufficient ", kp__s(cl, cl->res_names[i]), "", "", "")))
            return KP_ENOMEM;
    uint32_t n_taints = 0;
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        r->taint_off[i] = n_taints;
        n_taints += cl->nodes[i].n_taints;
    }
    r->taint_off[cl->n_nodes] = n_taints;
    r->n_taints = n_taints;
    r->taint = kp__calloc(n_taints ? n_taints : 1, sizeof *r->taint);
    if (!r->taint) return KP_ENOMEM;
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        const kp_node *n = &cl->nodes[i];
        for (uint16_t k = 0; k < n->n_taints; k++) {
            const kp_taint *t = &n->taints[k];
            if (t->effect != KP_EFFECT_NOSCHEDULE && t->effect != KP_EFFECT_NOEXECUTE) continue;
            char *txt = format("node(s) had untolerated taint {", kp__s(cl, t->key), ": ",
                               kp__s(cl, t->value), "}");
            if (!txt) return KP_ENOMEM;
            r->taint[r->taint_off[i] + k] = txt;
        }
    }
    return KP_OK;
}

void kp__reasons_free(kp_sched *s) {
    kp_reasons *r = &s->reasons;
    if (r->insufficient)
        for (uint32_t i = 0; i < r->n_res; i++) kp__free(r->insufficient[i]);
    if (r->taint)
        for (uint32_t i = 0; i < r->n_taints; i++) kp__free(r->taint[i]);
    kp__free(r->insufficient);
    kp__free(r->taint);
    kp__free(r->taint_off);
    memset(r, 0, sizeof *r);
}
