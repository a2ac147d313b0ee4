/* v1 Pod decoder: every field an engine reads (see the foundation issue's list). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/selector.h"
#include "core/taints.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"
#include "io/decode_pod_gates.h"
#include "io/decode_pod_ready.h"
#include "io/decode_pod_resize.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

static kp_status decode_ports(kp_dctx *d, kp_cluster *cl, const kp_tnode *c, kp_container *ct) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, c, "ports", &a));
    if (!a || a->n == 0) return KP_OK;
    TRY(kp__d_check_count(d, a, "ports", a->n, KP_MAX_ENTRIES));
    kp_port *ports = kp__d_alloc(d, cl, a->n * sizeof *ports);
    if (!ports) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "ports");
    uint32_t i = 0;
    kp_status st = KP_OK;
    for (const kp_tnode *p = a->first; p && st == KP_OK; p = p->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        int64_t hp = 0, cp = 0;
        kp_port port = {0};
        if (p->type != KP_T_OBJ) st = kp__dctx_fail(d, p, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_int(d, p, "hostPort", 0, 65535, &hp, NULL);
        if (st == KP_OK) st = kp__dget_int(d, p, "containerPort", 0, 65535, &cp, NULL);
        if (st == KP_OK) st = kp__d_str(d, cl, p, "protocol", &port.protocol);
        if (st == KP_OK) st = kp__d_str(d, cl, p, "hostIP", &port.host_ip);
        if (st == KP_OK && hp > 0) {
            port.host_port = (int32_t)hp;
            port.container_port = (int32_t)cp;
            if (!port.protocol) port.protocol = cl->s_tcp;
            if (!port.host_ip) port.host_ip = cl->s_any_ip;
            ports[ct->n_ports++] = port;
        }
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    if (ct->n_ports) ct->ports = ports;
    return st;
}

static kp_status decode_container(kp_dctx *d, kp_cluster *cl, const kp_tnode *c, bool is_init,
                                  kp_container *ct, int64_t *delay) {
    if (c->type != KP_T_OBJ) return kp__dctx_fail(d, c, KP_EINVAL, NULL, "expected an object");
    TRY(kp__d_str(d, cl, c, "name", &ct->name));
    TRY(kp__d_str(d, cl, c, "image", &ct->image));
    ct->is_init = is_init;
    const kp_tnode *res;
    TRY(kp__dget_obj(d, c, "resources", &res));
    if (res) {
        size_t saved = kp__dctx_push(d, "resources");
        kp_status st = kp__d_resources(d, cl, res, "requests", &ct->req);
        if (st == KP_OK) st = kp__d_resources(d, cl, res, "limits", &ct->lim);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
        /* API defaulting: a limit without a request makes the request equal to the limit
         * (SetDefaults_Container / defaultResources). */
        bool lim_only = false; /* a limit whose resource has no request */
        for (uint16_t j = 0; j < ct->lim.n && !lim_only; j++) {
            bool found = false;
            for (uint16_t i = 0; i < ct->req.n; i++)
                if (ct->req.e[i].res == ct->lim.e[j].res) found = true;
            if (!found) lim_only = true;
        }
        if (lim_only) {
            kp_resent *e = kp__d_alloc(d, cl, (size_t)(ct->req.n + ct->lim.n) * sizeof *e);
            if (!e) return KP_ENOMEM;
            uint16_t n = 0, i = 0, j = 0;
            while (i < ct->req.n || j < ct->lim.n) {
                if (j >= ct->lim.n || (i < ct->req.n && ct->req.e[i].res < ct->lim.e[j].res)) {
                    e[n++] = ct->req.e[i++];
                } else if (i >= ct->req.n || ct->lim.e[j].res < ct->req.e[i].res) {
                    e[n++] = ct->lim.e[j++];
                } else {
                    e[n++] = ct->req.e[i++];
                    j++;
                }
            }
            ct->req.e = e;
            ct->req.n = n;
        }
    }
    if (is_init) {
        const char *rp = NULL;
        bool has = false;
        TRY(kp__dget_str(d, c, "restartPolicy", &rp, &has));
        if (has) {
            if (strcmp(rp, "Always") != 0)
                return kp__dctx_fail(d, kp__tree_get(c, "restartPolicy"), KP_EINVAL,
                                     "restartPolicy",
                                     "unsupported value \"%s\": supported values: \"Always\"", rp);
            ct->is_sidecar = true;
        }
    }
    TRY(kp__decode_container_probes(d, c, ct, delay));
    return decode_ports(d, cl, c, ct);
}

static kp_status decode_containers(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a, *ia;
    TRY(kp__dget_arr(d, spec, "containers", &a));
    TRY(kp__dget_arr(d, spec, "initContainers", &ia));
    uint32_t n = a ? a->n : 0, ni = ia ? ia->n : 0;
    /* the two counts share one array indexed by a 16-bit sum in the engines */
    TRY(kp__d_check_count(d, a ? a : ia, a ? "containers" : "initContainers", n + ni,
                          KP_MAX_ENTRIES));
    if (n + ni == 0) return KP_OK;
    kp_container *cs = kp__d_alloc(d, cl, (n + ni) * sizeof *cs);
    if (!cs) return KP_ENOMEM;
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        const kp_tnode *arr = pass ? ia : a;
        if (!arr) continue;
        size_t saved = kp__dctx_push(d, pass ? "initContainers" : "containers");
        uint32_t i = 0;
        for (const kp_tnode *c = arr->first; c; c = c->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            int64_t delay = 0;
            kp_status st = decode_container(d, cl, c, pass == 1, &cs[k++], &delay);
            kp__dctx_pop(d, s2);
            if (st != KP_OK) return st;
            if (delay > p->probe_delay) p->probe_delay = delay; /* the last container Ready */
        }
        kp__dctx_pop(d, saved);
    }
    p->containers = cs;
    p->n_containers = (uint16_t)n;
    p->n_init = (uint16_t)ni;
    return KP_OK;
}

static kp_status decode_nsterm(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_nsterm *out) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__d_selreqs(d, cl, t, "matchExpressions", true, &out->n_exprs, &out->exprs));
    TRY(kp__d_selreqs(d, cl, t, "matchFields", true, &out->n_fields, &out->fields));
    for (uint16_t i = 0; i < out->n_fields; i++) {
        /* validateNodeFieldSelectorRequirement: only metadata.name, In/NotIn, one value */
        if (strcmp(kp__s(cl, out->fields[i].key), "metadata.name") != 0)
            return kp__dctx_fail(d, t, KP_EINVAL, "matchFields",
                                 "unsupported key \"%s\": supported: \"metadata.name\"",
                                 kp__s(cl, out->fields[i].key));
    }
    return KP_OK;
}

static kp_status decode_node_affinity(kp_dctx *d, kp_cluster *cl, const kp_tnode *na, kp_pod *p) {
    kp_node_affinity *a = kp__d_alloc(d, cl, sizeof *a);
    if (!a) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "nodeAffinity");
    const kp_tnode *req = NULL, *terms = NULL, *pref = NULL;
    kp_status st = kp__dget_obj(d, na, "requiredDuringSchedulingIgnoredDuringExecution", &req);
    if (st == KP_OK && req) {
        a->has_required = true;
        size_t s1 = kp__dctx_push(d, "requiredDuringSchedulingIgnoredDuringExecution");
        st = kp__dget_arr(d, req, "nodeSelectorTerms", &terms);
        if (st == KP_OK && terms)
            st = kp__d_check_count(d, terms, "nodeSelectorTerms", terms->n, KP_MAX_ENTRIES);
        if (st == KP_OK && terms && terms->n) {
            a->required = kp__d_alloc(d, cl, terms->n * sizeof *a->required);
            if (!a->required) st = KP_ENOMEM;
            size_t s2 = kp__dctx_push(d, "nodeSelectorTerms");
            uint32_t i = 0;
            for (const kp_tnode *t = terms ? terms->first : NULL; t && st == KP_OK;
                 t = t->next, i++) {
                size_t s3 = kp__dctx_push_index(d, i);
                st = decode_nsterm(d, cl, t, &a->required[i]);
                kp__dctx_pop(d, s3);
            }
            a->n_required = (uint16_t)i;
            kp__dctx_pop(d, s2);
        }
        kp__dctx_pop(d, s1);
    }
    if (st == KP_OK)
        st = kp__dget_arr(d, na, "preferredDuringSchedulingIgnoredDuringExecution", &pref);
    if (st == KP_OK && pref)
        st = kp__d_check_count(d, pref, "preferredDuringSchedulingIgnoredDuringExecution", pref->n,
                               KP_MAX_ENTRIES);
    if (st == KP_OK && pref && pref->n) {
        a->preferred = kp__d_alloc(d, cl, pref->n * sizeof *a->preferred);
        if (!a->preferred) st = KP_ENOMEM;
        size_t s1 = kp__dctx_push(d, "preferredDuringSchedulingIgnoredDuringExecution");
        uint32_t i = 0;
        for (const kp_tnode *t = pref->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            int64_t w = 0;
            const kp_tnode *pt;
            st = kp__dget_int(d, t, "weight", 1, 100, &w, NULL);
            if (st == KP_OK) st = kp__dget_obj(d, t, "preference", &pt);
            if (st == KP_OK && pt) {
                size_t s3 = kp__dctx_push(d, "preference");
                st = decode_nsterm(d, cl, pt, &a->preferred[i].term);
                kp__dctx_pop(d, s3);
            }
            a->preferred[i].weight = (int32_t)w;
            kp__dctx_pop(d, s2);
        }
        a->n_preferred = (uint16_t)i;
        kp__dctx_pop(d, s1);
    }
    kp__dctx_pop(d, saved);
    p->node_affinity = a;
    return st;
}

static kp_status decode_pat(kp_dctx *d, kp_cluster *cl, const kp_tnode *t,
                            kp_pod_affinity_term *out) {
    if (t->type != KP_T_OBJ) return kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
    TRY(kp__d_label_selector(d, cl, t, "labelSelector", &out->selector));
    TRY(kp__d_str_list(d, cl, t, "namespaces", &out->n_namespaces, &out->namespaces));
    TRY(kp__d_label_selector(d, cl, t, "namespaceSelector", &out->ns_selector));
    bool has = false;
    const char *tk = NULL;
    TRY(kp__dget_str(d, t, "topologyKey", &tk, &has));
    if (!has || !tk[0]) return kp__dctx_fail(d, t, KP_EINVAL, "topologyKey", "can not be empty");
    TRY(kp__d_intern(d, cl, kp__tree_get(t, "topologyKey"), "topologyKey", tk, strlen(tk),
                     &out->topology_key));
    TRY(kp__d_str_list(d, cl, t, "matchLabelKeys", &out->n_match_label_keys,
                       &out->match_label_keys));
    TRY(kp__d_str_list(d, cl, t, "mismatchLabelKeys", &out->n_mismatch_label_keys,
                       &out->mismatch_label_keys));
    return KP_OK;
}

static kp_status decode_pod_affinity(kp_dctx *d, kp_cluster *cl, const kp_tnode *pa,
                                     const char *key, kp_pod_affinity **out) {
    kp_pod_affinity *a = kp__d_alloc(d, cl, sizeof *a);
    if (!a) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, key);
    const kp_tnode *req = NULL, *pref = NULL;
    kp_status st = kp__dget_arr(d, pa, "requiredDuringSchedulingIgnoredDuringExecution", &req);
    if (st == KP_OK && req)
        st = kp__d_check_count(d, req, "requiredDuringSchedulingIgnoredDuringExecution", req->n,
                               KP_MAX_ENTRIES);
    if (st == KP_OK && req && req->n) {
        a->required = kp__d_alloc(d, cl, req->n * sizeof *a->required);
        if (!a->required) st = KP_ENOMEM;
        size_t s1 = kp__dctx_push(d, "requiredDuringSchedulingIgnoredDuringExecution");
        uint32_t i = 0;
        for (const kp_tnode *t = req->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            st = decode_pat(d, cl, t, &a->required[i]);
            kp__dctx_pop(d, s2);
        }
        a->n_required = (uint16_t)i;
        kp__dctx_pop(d, s1);
    }
    if (st == KP_OK)
        st = kp__dget_arr(d, pa, "preferredDuringSchedulingIgnoredDuringExecution", &pref);
    if (st == KP_OK && pref)
        st = kp__d_check_count(d, pref, "preferredDuringSchedulingIgnoredDuringExecution", pref->n,
                               KP_MAX_ENTRIES);
    if (st == KP_OK && pref && pref->n) {
        a->preferred = kp__d_alloc(d, cl, pref->n * sizeof *a->preferred);
        if (!a->preferred) st = KP_ENOMEM;
        size_t s1 = kp__dctx_push(d, "preferredDuringSchedulingIgnoredDuringExecution");
        uint32_t i = 0;
        for (const kp_tnode *t = pref->first; t && st == KP_OK; t = t->next, i++) {
            size_t s2 = kp__dctx_push_index(d, i);
            int64_t w = 0;
            const kp_tnode *pt;
            st = kp__dget_int(d, t, "weight", 1, 100, &w, NULL);
            if (st == KP_OK) st = kp__dget_obj(d, t, "podAffinityTerm", &pt);
            if (st == KP_OK && !pt)
                st = kp__dctx_fail(d, t, KP_EINVAL, "podAffinityTerm", "required value");
            if (st == KP_OK) {
                size_t s3 = kp__dctx_push(d, "podAffinityTerm");
                st = decode_pat(d, cl, pt, &a->preferred[i].term);
                kp__dctx_pop(d, s3);
            }
            a->preferred[i].weight = (int32_t)w;
            kp__dctx_pop(d, s2);
        }
        a->n_preferred = (uint16_t)i;
        kp__dctx_pop(d, s1);
    }
    kp__dctx_pop(d, saved);
    *out = a;
    return st;
}

static kp_status parse_effect(kp_dctx *d, const kp_tnode *obj, bool allow_empty, kp_effect *out) {
    const char *e = NULL;
    bool has = false;
    TRY(kp__dget_str(d, obj, "effect", &e, &has));
    *out = KP_EFFECT_NONE;
    if (!has || !e[0]) {
        if (allow_empty) return KP_OK;
        return kp__dctx_fail(d, obj, KP_EINVAL, "effect", "required value");
    }
    if (strcmp(e, "NoSchedule") == 0) *out = KP_EFFECT_NOSCHEDULE;
    else if (strcmp(e, "PreferNoSchedule") == 0) *out = KP_EFFECT_PREFERNOSCHEDULE;
    else if (strcmp(e, "NoExecute") == 0) *out = KP_EFFECT_NOEXECUTE;
    else
        return kp__dctx_fail(d, kp__tree_get(obj, "effect"), KP_EINVAL, "effect",
                             "unsupported value \"%s\": supported values: \"NoExecute\", "
                             "\"NoSchedule\", \"PreferNoSchedule\"",
                             e);
    return KP_OK;
}

kp_status kp__d_effect(kp_dctx *d, const kp_tnode *obj, bool allow_empty, kp_effect *out) {
    return parse_effect(d, obj, allow_empty, out);
}

static kp_status decode_tolerations(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "tolerations", &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, "tolerations", a->n, KP_MAX_ENTRIES));
    p->tolerations = kp__d_alloc(d, cl, a->n * sizeof *p->tolerations);
    if (!p->tolerations) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "tolerations");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_toleration *tl = &p->tolerations[i];
        const char *op = NULL;
        bool has_op = false;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "key", &tl->key);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "value", &tl->value);
        if (st == KP_OK) st = kp__dget_str(d, t, "operator", &op, &has_op);
        if (st == KP_OK && has_op && op[0]) {
            if (strcmp(op, "Exists") == 0) tl->op = KP_TOL_EXISTS;
            else if (strcmp(op, "Equal") == 0) tl->op = KP_TOL_EQUAL;
            else
                st = kp__dctx_fail(
                    d, t, KP_EINVAL, "operator",
                    "unsupported value \"%s\": supported values: \"Equal\", \"Exists\"", op);
        }
        if (st == KP_OK) st = parse_effect(d, t, true, &tl->effect);
        if (st == KP_OK)
            st = kp__dget_int(d, t, "tolerationSeconds", INT64_MIN, INT64_MAX, &tl->seconds,
                              &tl->has_seconds);
        /* validateTolerations: an empty key requires operator Exists */
        if (st == KP_OK && !tl->key && tl->op != KP_TOL_EXISTS)
            st = kp__dctx_fail(d, t, KP_EINVAL, "operator",
                               "operator must be Exists when `key` is empty, which means \"match "
                               "all values and all keys\"");
        if (st == KP_OK && tl->op == KP_TOL_EXISTS && tl->value)
            st = kp__dctx_fail(d, t, KP_EINVAL, "operator",
                               "value must be empty when `operator` is 'Exists'");
        kp__dctx_pop(d, s2);
    }
    p->n_tolerations = (uint16_t)i;
    kp__dctx_pop(d, saved);
    if (st == KP_OK)
        p->tolerations =
            kp__cluster_share_stored(cl, p->tolerations, p->n_tolerations * sizeof *p->tolerations);
    return st;
}

static kp_status decode_policy(kp_dctx *d, const kp_tnode *t, const char *key, bool *has,
                               kp_inclusion_policy *out) {
    const char *v = NULL;
    TRY(kp__dget_str(d, t, key, &v, has));
    if (!*has) return KP_OK;
    if (strcmp(v, "Honor") == 0) *out = KP_POLICY_HONOR;
    else if (strcmp(v, "Ignore") == 0) *out = KP_POLICY_IGNORE;
    else
        return kp__dctx_fail(d, t, KP_EINVAL, key,
                             "unsupported value \"%s\": supported values: \"Honor\", \"Ignore\"",
                             v);
    return KP_OK;
}

static kp_status decode_spread(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "topologySpreadConstraints", &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, "topologySpreadConstraints", a->n, KP_MAX_ENTRIES));
    p->spread = kp__d_alloc(d, cl, a->n * sizeof *p->spread);
    if (!p->spread) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "topologySpreadConstraints");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_spread *sc = &p->spread[i];
        int64_t skew = 0, md = 0;
        bool has_skew = false;
        const char *when = NULL, *tk = NULL;
        bool has_when = false, has_tk = false;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_int(d, t, "maxSkew", INT32_MIN, INT32_MAX, &skew, &has_skew);
        if (st == KP_OK && (!has_skew || skew <= 0))
            st = kp__dctx_fail(d, t, KP_EINVAL, "maxSkew", "must be greater than zero");
        if (st == KP_OK) st = kp__dget_str(d, t, "topologyKey", &tk, &has_tk);
        if (st == KP_OK && (!has_tk || !tk[0]))
            st = kp__dctx_fail(d, t, KP_EINVAL, "topologyKey", "can not be empty");
        if (st == KP_OK) st = kp__dget_str(d, t, "whenUnsatisfiable", &when, &has_when);
        if (st == KP_OK) {
            if (has_when && strcmp(when, "DoNotSchedule") == 0) sc->when = KP_WHEN_DONOTSCHEDULE;
            else if (has_when && strcmp(when, "ScheduleAnyway") == 0)
                sc->when = KP_WHEN_SCHEDULEANYWAY;
            else
                st = kp__dctx_fail(d, t, KP_EINVAL, "whenUnsatisfiable",
                                   "unsupported value \"%s\": supported values: \"DoNotSchedule\", "
                                   "\"ScheduleAnyway\"",
                                   has_when ? when : "");
        }
        if (st == KP_OK) st = kp__d_label_selector(d, cl, t, "labelSelector", &sc->selector);
        if (st == KP_OK)
            st = kp__dget_int(d, t, "minDomains", INT32_MIN, INT32_MAX, &md, &sc->has_min_domains);
        if (st == KP_OK && sc->has_min_domains && md <= 0)
            st = kp__dctx_fail(d, t, KP_EINVAL, "minDomains", "must be greater than zero");
        if (st == KP_OK && sc->has_min_domains && sc->when != KP_WHEN_DONOTSCHEDULE)
            st = kp__dctx_fail(d, t, KP_EINVAL, "minDomains",
                               "can only use minDomains if whenUnsatisfiable=DoNotSchedule");
        sc->node_taints_policy = KP_POLICY_IGNORE;
        if (st == KP_OK)
            st = decode_policy(d, t, "nodeAffinityPolicy", &sc->has_node_affinity_policy,
                               &sc->node_affinity_policy);
        if (st == KP_OK)
            st = decode_policy(d, t, "nodeTaintsPolicy", &sc->has_node_taints_policy,
                               &sc->node_taints_policy);
        if (st == KP_OK)
            st = kp__d_str_list(d, cl, t, "matchLabelKeys", &sc->n_match_label_keys,
                                &sc->match_label_keys);
        if (st == KP_OK) {
            sc->max_skew = (int32_t)skew;
            sc->min_domains = (int32_t)md;
            st = kp__d_intern(d, cl, kp__tree_get(t, "topologyKey"), "topologyKey", tk, strlen(tk),
                              &sc->topology_key);
        }
        kp__dctx_pop(d, s2);
    }
    p->n_spread = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_volumes(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "volumes", &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, "volumes", a->n, KP_MAX_ENTRIES));
    p->volumes = kp__d_alloc(d, cl, a->n * sizeof *p->volumes);
    if (!p->volumes) return KP_ENOMEM;
    /* image volumes (spec.volumes[].image.reference) are kept apart: ImageLocality scores them */
    uint32_t n_img = 0;
    for (const kp_tnode *t = a->first; t; t = t->next) n_img += kp__tree_get(t, "image") != NULL;
    if (n_img && !(p->image_volumes = kp__d_alloc(d, cl, n_img * sizeof *p->image_volumes)))
        return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "volumes");
    kp_status st = KP_OK;
    uint32_t i = 0, kept = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_volume *v = &p->volumes[i];
        const kp_tnode *ed, *img = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "name", &v->name);
        if (st == KP_OK) st = kp__dget_obj(d, t, "image", &img);
        if (st == KP_OK && img) {
            size_t s3 = kp__dctx_push(d, "image");
            kp_str ref = 0;
            st = kp__d_str(d, cl, img, "reference", &ref);
            p->image_volumes[p->n_image_volumes++] = ref;
            kp__dctx_pop(d, s3);
        }
        if (st == KP_OK) st = kp__dget_obj(d, t, "emptyDir", &ed);
        if (st == KP_OK && kp__tree_get(t, "emptyDir")) {
            v->is_empty_dir = true;
            if (ed) {
                size_t s3 = kp__dctx_push(d, "emptyDir");
                const char *medium = NULL;
                bool has_medium = false;
                st = kp__dget_str(d, ed, "medium", &medium, &has_medium);
                if (st == KP_OK && has_medium) {
                    v->memory_medium = strcmp(medium, "Memory") == 0;
                    v->hugepages_medium = strncmp(medium, "HugePages", 9) == 0;
                }
                const kp_tnode *sl = kp__tree_get(ed, "sizeLimit");
                if (st == KP_OK && sl && sl->type != KP_T_NULL) {
                    st = kp__d_quantity(d, sl, "sizeLimit", false, &v->size_limit);
                    v->has_size_limit = st == KP_OK;
                    if (st == KP_OK)
                        st = kp__d_intern(d, cl, sl, "sizeLimit", sl->s, sl->len,
                                          &v->size_limit_text);
                }
                kp__dctx_pop(d, s3);
            }
        }
        if (st == KP_OK)
            v->is_local = (v->is_empty_dir && !v->memory_medium && !v->hugepages_medium) ||
                          kp__tree_get(t, "hostPath") || kp__tree_get(t, "gitRepo") ||
                          kp__tree_get(t, "configMap");
        if (st == KP_OK) st = kp__decode_volume_source(d, cl, t, p, v);
        /* only emptyDir, node-local volumes (eviction) and the sources of decode_volume_source
         * (scheduling) matter to a decision; others (secrets, projected tokens) are validated and
         * not kept */
        bool keep = v->is_empty_dir || v->is_local || v->source != KP_VS_OTHER;
        if (st == KP_OK && keep && v != &p->volumes[kept]) { /* compact: only kept ones move */
            p->volumes[kept] = *v;
            memset(v, 0, sizeof *v);
        } else if (st == KP_OK && !keep) {
            memset(v, 0, sizeof *v);
        }
        if (st == KP_OK && keep) kept++;
        kp__dctx_pop(d, s2);
    }
    (void)i;
    p->n_volumes = (uint16_t)kept;
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_spec(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    int64_t v;
    bool has;
    TRY(decode_containers(d, cl, spec, p));
    TRY(kp__d_resources(d, cl, spec, "overhead", &p->overhead));
    const kp_tnode *pr;
    TRY(kp__dget_obj(d, spec, "resources", &pr));
    if (pr) {
        p->has_pod_resources = true;
        size_t saved = kp__dctx_push(d, "resources");
        kp_status st = kp__d_resources(d, cl, pr, "requests", &p->pod_req);
        if (st == KP_OK) st = kp__d_resources(d, cl, pr, "limits", &p->pod_lim);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    TRY(kp__dget_int(d, spec, "priority", INT32_MIN, INT32_MAX, &v, &has));
    if (has) {
        p->has_priority = true;
        p->has_spec_priority = true;
        p->priority = (int32_t)v;
    }
    TRY(kp__d_str(d, cl, spec, "priorityClassName", &p->priority_class));
    const char *pp = NULL;
    TRY(kp__dget_str(d, spec, "preemptionPolicy", &pp, &has));
    if (has) {
        p->has_preemption_policy = true;
        if (strcmp(pp, "Never") == 0) p->preemption_policy = KP_PREEMPT_NEVER;
        else if (strcmp(pp, "PreemptLowerPriority") == 0) p->preemption_policy = KP_PREEMPT_LOWER;
        else
            return kp__dctx_fail(
                d, kp__tree_get(spec, "preemptionPolicy"), KP_EINVAL, "preemptionPolicy",
                "unsupported value \"%s\": supported values: \"Never\", \"PreemptLowerPriority\"",
                pp);
    }
    TRY(kp__d_str(d, cl, spec, "schedulerName", &p->scheduler_name));
    if (!p->scheduler_name) p->scheduler_name = cl->s_default_scheduler;
    TRY(kp__d_str(d, cl, spec, "nodeName", &p->node_name));
    TRY(kp__decode_pod_gates(d, cl, spec, p));
    /* a pod is created either bound or gated, never both (the API server's ValidatePodCreate) */
    if (p->gates && p->node_name)
        return kp__dctx_fail(d, kp__tree_get(spec, "nodeName"), KP_EINVAL, "nodeName",
                             "Forbidden: cannot be set until all schedulingGates have been "
                             "cleared");
    TRY(kp__d_labels(d, cl, spec, "nodeSelector", &p->node_selector));
    const kp_tnode *aff;
    TRY(kp__dget_obj(d, spec, "affinity", &aff));
    if (aff) {
        size_t saved = kp__dctx_push(d, "affinity");
        const kp_tnode *na, *pa, *paa;
        kp_status st = kp__dget_obj(d, aff, "nodeAffinity", &na);
        if (st == KP_OK && na) st = decode_node_affinity(d, cl, na, p);
        if (st == KP_OK) st = kp__dget_obj(d, aff, "podAffinity", &pa);
        if (st == KP_OK && pa) st = decode_pod_affinity(d, cl, pa, "podAffinity", &p->pod_affinity);
        if (st == KP_OK) st = kp__dget_obj(d, aff, "podAntiAffinity", &paa);
        if (st == KP_OK && paa)
            st = decode_pod_affinity(d, cl, paa, "podAntiAffinity", &p->pod_anti_affinity);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    TRY(decode_tolerations(d, cl, spec, p));
    TRY(decode_spread(d, cl, spec, p));
    TRY(decode_volumes(d, cl, spec, p));
    TRY(kp__decode_pod_claims(d, cl, spec, p)); /* decode_pod_claims.c */
    p->termination_grace = 30;
    TRY(kp__dget_int(d, spec, "terminationGracePeriodSeconds", 0, INT64_MAX, &v, &has));
    if (has) {
        p->termination_grace = v;
        p->has_termination_grace = true;
    }
    const kp_tnode *os;
    TRY(kp__dget_obj(d, spec, "os", &os));
    if (os) {
        size_t saved = kp__dctx_push(d, "os");
        kp_status st = kp__d_str(d, cl, os, "name", &p->os_name);
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

static kp_status decode_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_pod *p) {
    const char *phase = NULL;
    bool has = false;
    TRY(kp__dget_str(d, status, "phase", &phase, &has));
    if (has) {
        if (strcmp(phase, "Pending") == 0) p->phase = KP_PHASE_PENDING;
        else if (strcmp(phase, "Running") == 0) p->phase = KP_PHASE_RUNNING;
        else if (strcmp(phase, "Succeeded") == 0) p->phase = KP_PHASE_SUCCEEDED;
        else if (strcmp(phase, "Failed") == 0) p->phase = KP_PHASE_FAILED;
        else if (strcmp(phase, "Unknown") == 0) p->phase = KP_PHASE_UNKNOWN;
        else
            return kp__dctx_fail(d, kp__tree_get(status, "phase"), KP_EINVAL, "phase",
                                 "unsupported value \"%s\"", phase);
    }
    TRY(kp__dget_time(d, status, "startTime", &p->start_time, NULL));
    TRY(kp__d_str(d, cl, status, "nominatedNodeName", &p->nominated_node));
    TRY(kp__d_str(d, cl, status, "qosClass", &p->status_qos));
    TRY(kp__d_str(d, cl, status, "reason", &p->status_reason));
    TRY(kp__d_str(d, cl, status, "message", &p->status_message));
    if (p->status_qos) {
        const char *q = kp__s(cl, p->status_qos);
        if (strcmp(q, "Guaranteed") && strcmp(q, "Burstable") && strcmp(q, "BestEffort"))
            return kp__dctx_fail(d, kp__tree_get(status, "qosClass"), KP_EINVAL, "qosClass",
                                 "unsupported value \"%s\"", q);
    }
    /* Of a pod's conditions DisruptionTarget changes a decision (preemption eligibility),
     * Ready the controllers' counts (decode_pod_ready.c) and PodResizePending the requests
     * (decode_resize); the others are validated and not kept. */
    TRY(kp__d_conditions(d, cl, status, "conditions", "DisruptionTarget", &p->n_conditions,
                         &p->conditions));
    TRY(kp__decode_pod_ready(d, cl, status, p)); /* and Ready */
    TRY(kp__decode_pod_claim_statuses(d, cl, status, p)); /* decode_pod_claims.c */
    return kp__decode_pod_resize(d, cl, status, p);
}

static kp_status decode_owners(kp_dctx *d, kp_cluster *cl, const kp_tnode *meta, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, meta, "ownerReferences", &a));
    if (!a || !a->n) return KP_OK;
    TRY(kp__d_check_count(d, a, "ownerReferences", a->n, KP_MAX_ENTRIES));
    p->owners = kp__d_alloc(d, cl, a->n * sizeof *p->owners);
    if (!p->owners) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "ownerReferences");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "kind", &p->owners[i].kind);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "name", &p->owners[i].name);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "uid", &p->owners[i].uid);
        if (st == KP_OK) st = kp__d_str(d, cl, t, "apiVersion", &p->owners[i].api_version);
        if (st == KP_OK) st = kp__dget_bool(d, t, "controller", &p->owners[i].controller, NULL);
        kp__dctx_pop(d, s2);
    }
    p->n_owners = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

/* Decodes a Pod object (metadata already holds name/namespace, read by the caller). */
kp_status kp__decode_pod(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_pod *p) {
    const kp_tnode *meta, *spec, *status;
    TRY(kp__dget_obj(d, obj, "metadata", &meta));
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__d_str(d, cl, meta, "uid", &p->uid);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "labels", &p->labels);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "annotations", &p->annotations);
    if (st == KP_OK) st = kp__dget_time(d, meta, "creationTimestamp", &p->creation_ts, NULL);
    if (st == KP_OK) st = kp__dget_time(d, meta, "deletionTimestamp", &p->deletion_ts, NULL);
    if (st == KP_OK) st = decode_owners(d, cl, meta, p);
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    TRY(kp__dget_obj(d, obj, "spec", &spec));
    if (!spec) return kp__dctx_fail(d, obj, KP_EINVAL, "spec", "required value");
    saved = kp__dctx_push(d, "spec");
    st = decode_spec(d, cl, spec, p);
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (status) {
        saved = kp__dctx_push(d, "status");
        st = decode_status(d, cl, status, p);
        kp__dctx_pop(d, saved);
    }
    if (st == KP_OK) kp__pod_ready_default(p); /* no Ready condition: decided from the phase */
    return st;
}
