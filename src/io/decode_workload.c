/* Workload decoders: v1 Service, v1 ReplicationController, apps/v1 ReplicaSet, apps/v1
 * StatefulSet. Only what PodTopologySpread's default constraints read through
 * helper.DefaultSelector is kept: namespace, name (taken by the caller) and spec.selector —
 * a plain label map for Service / ReplicationController, a metav1.LabelSelector for ReplicaSet /
 * StatefulSet. Everything else in these objects is ignored without validation. */
#include <string.h>

#include "core/workload.h"
#include "io/dctx.h"
#include "io/decode_common.h"

bool kp__workload_kind(const char *kind, kp_workload_kind *out) {
    static const char *const kinds[KP_WL_KINDS] = {"Service", "ReplicationController", "ReplicaSet",
                                                   "StatefulSet"};
    for (int i = 0; i < KP_WL_KINDS; i++) {
        if (strcmp(kind, kinds[i]) == 0) {
            *out = (kp_workload_kind)i;
            return true;
        }
    }
    return false;
}

bool kp__workload_api_ok(kp_workload_kind kind, const char *api) {
    switch (kind) {
    case KP_WL_SERVICE:
    case KP_WL_RC: return strcmp(api, "v1") == 0;
    case KP_WL_RS:
    case KP_WL_STS: return strcmp(api, "apps/v1") == 0;
    case KP_WL_KINDS: break;
    }
    return false;
}

kp_status kp__decode_workload(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_workload *w) {
    const kp_tnode *spec;
    kp_status st = kp__dget_obj(d, obj, "spec", &spec);
    if (st != KP_OK || !spec) return st;
    size_t saved = kp__dctx_push(d, "spec");
    if (w->kind == KP_WL_SERVICE || w->kind == KP_WL_RC) {
        /* a nil Service selector selects nothing (GetPodServices), an empty one everything */
        const kp_tnode *m;
        st = kp__dget_obj(d, spec, "selector", &m);
        w->has_map = st == KP_OK && m != NULL;
        if (st == KP_OK) st = kp__d_labels(d, cl, spec, "selector", &w->map);
    } else {
        st = kp__d_label_selector(d, cl, spec, "selector", &w->sel);
    }
    kp__dctx_pop(d, saved);
    return st;
}
