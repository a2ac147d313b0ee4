/* DRA decoders: resource.k8s.io DeviceClass and ResourceClaimTemplate, the dispatch of the four
 * kinds and the API versions each release line serves, and the field helpers the ResourceSlice
 * (decode_dra_slice.c) and ResourceClaim (decode_dra_claim.c) decoders share.
 *
 * Validated as the API server validates a create (pkg/apis/resource/validation: the first
 * error is reported, with upstream's words); v1beta1 and v1beta2 objects are read into the same
 * model as v1 (their conversions). CEL expressions are kept as text: the CEL environment
 * (core/cel.h) compiles them when a device is matched. */
#include <stdio.h>
#include <string.h>

#include "core/cel.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/meta.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"
#include "io/decode_names.h"
#include "io/decode_pod_gates.h"
#include "kprio/quantity.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* limits of pkg/apis/resource/types.go */
enum {
    SELECTORS_MAX = 32, /* DeviceSelectorsMaxSize */
    CONFIG_MAX = 32, /* DeviceConfigMaxSize */
    CEL_MAX_LEN = 10 * 1024, /* CELSelectorExpressionMaxLength */
    TOLERATIONS_MAX = 16, /* DeviceTolerationsMaxLength */
    PARAMS_MAX_LEN = 10 * 1024 /* OpaqueParametersMaxLength */
};

bool kp__dra_kind(const char *kind, kp_dra_kind *out) {
    for (int k = 0; k < KP_DK_KINDS; k++)
        if (strcmp(kind, kp__dra_kind_name((kp_dra_kind)k)) == 0) {
            *out = (kp_dra_kind)k;
            return true;
        }
    return false;
}

/* the versions of resource.k8s.io with the structured model (v1alpha3 and older had another
 * shape and are not read) and the first line serving each (pkg/apis/resource/<version>
 * introduced in v1.32, v1.33 and v1.34) */
static const struct {
    const char *api;
    uint16_t since;
    kp_dra_version v;
} VERSIONS[] = {
    {"resource.k8s.io/v1", 34, KP_DRA_V1},
    {"resource.k8s.io/v1beta2", 33, KP_DRA_V1BETA2},
    {"resource.k8s.io/v1beta1", 32, KP_DRA_V1BETA1},
};

bool kp__dra_api_ok(const char *api, uint16_t line, const char **why) {
    static const char *const not_before[] = {"not served before v1.34", "not served before v1.33",
                                             "not served before v1.32"};
    *why = NULL;
    for (size_t i = 0; i < sizeof VERSIONS / sizeof VERSIONS[0]; i++) {
        if (strcmp(api, VERSIONS[i].api) != 0) continue;
        if (line && line < VERSIONS[i].since) {
            *why = not_before[i];
            return false;
        }
        return true;
    }
    return false;
}

static kp_dra_version version_of(const char *api) {
    for (size_t i = 0; api && i < sizeof VERSIONS / sizeof VERSIONS[0]; i++)
        if (strcmp(api, VERSIONS[i].api) == 0) return VERSIONS[i].v;
    return KP_DRA_V1;
}

/* ---- shared helpers ---- */

kp_status kp__dra_arr(kp_dctx *d, const kp_tnode *obj, const char *key, uint32_t max,
                      const kp_tnode **out) {
    *out = NULL;
    TRY(kp__dget_arr(d, obj, key, out));
    if (!*out) return KP_OK;
    if (max && (*out)->n > max)
        return kp__dctx_fail(d, *out, KP_EINVAL, key, "Too many: %u: must have at most %u items",
                             (*out)->n, max);
    return kp__d_check_count(d, *out, key, (*out)->n, KP_MAX_ENTRIES);
}

/* IsDNS1123Subdomain of every '/'-separated part (validatePoolName) */
static const char *pool_error(const char *s, char *buf, size_t cap) {
    if (strlen(s) > 253) return "Too long: may not be more than 253 bytes";
    char part[256];
    for (const char *p = s;;) {
        const char *slash = strchr(p, '/');
        size_t l = slash ? (size_t)(slash - p) : strlen(p);
        snprintf(part, sizeof part, "%.*s", (int)l, p);
        if (kp__dns_subdomain_error(part, buf, cap)) return buf;
        if (!slash) return NULL;
        p = slash + 1;
    }
}

kp_status kp__dra_name(kp_dctx *d, const kp_tnode *n, const char *field, const char *s,
                       kp_dra_name_rule rule) {
    char why[1024];
    const char *e = NULL;
    if (!s || !s[0]) return kp__dctx_fail(d, n, KP_EINVAL, field, "Required value");
    switch (rule) {
    case KP_DRA_NAME_LABEL: e = kp__dns_label_error(s, why, sizeof why); break;
    case KP_DRA_NAME_SUBDOMAIN: e = kp__dns_subdomain_error(s, why, sizeof why); break;
    case KP_DRA_NAME_DRIVER: {
        /* ValidateCSIDriverName: at most 63 characters, a subdomain once lower-cased */
        if (strlen(s) > 63) {
            e = "Too long: may not be more than 63 bytes";
            break;
        }
        char low[64];
        size_t i = 0;
        for (; s[i]; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
        low[i] = 0;
        e = kp__dns_subdomain_error(low, why, sizeof why);
        break;
    }
    case KP_DRA_NAME_POOL: e = pool_error(s, why, sizeof why); break;
    }
    if (!e) return KP_OK;
    if (strncmp(e, "Too long", 8) == 0) return kp__dctx_fail(d, n, KP_EINVAL, field, "%s", e);
    return kp__dctx_fail(d, n, KP_EINVAL, field, "Invalid value: \"%.64s%s\": %s", s,
                         strlen(s) > 64 ? "..." : "", e);
}

kp_status kp__dra_req_str(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                          kp_dra_name_rule rule, kp_str *out) {
    const char *s = NULL;
    TRY(kp__dget_str(d, obj, key, &s, NULL));
    const kp_tnode *n = kp__tree_get(obj, key);
    TRY(kp__dra_name(d, n ? n : obj, key, s, rule));
    return kp__d_intern(d, cl, n, key, s, strlen(s), out);
}

kp_status kp__dra_selectors(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, uint16_t *n,
                            kp_str **out) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, obj, "selectors", SELECTORS_MAX, &a));
    *n = 0;
    if (!a || !a->n) return KP_OK;
    if (!(*out = kp__d_alloc(d, cl, a->n * sizeof **out))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "selectors");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        const kp_tnode *cel = NULL;
        const char *expr = NULL;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_obj(d, t, "cel", &cel);
        if (st == KP_OK && !cel) st = kp__dctx_fail(d, t, KP_EINVAL, "cel", "Required value");
        if (st == KP_OK) st = kp__dget_str(d, cel, "expression", &expr, NULL);
        const kp_tnode *en = cel ? kp__tree_get(cel, "expression") : NULL;
        if (st == KP_OK && (!expr || !expr[0]))
            st = kp__dctx_fail(d, en ? en : cel, KP_EINVAL, "cel.expression", "Required value");
        /* validateCELExpression: the length is checked before compiling */
        if (st == KP_OK && strlen(expr) > CEL_MAX_LEN)
            st = kp__dctx_fail(d, en, KP_EINVAL, "cel.expression",
                               "Too long: may not be more than %d bytes", CEL_MAX_LEN);
        /* validateCELSelector: an expression whose estimated cost exceeds the limit is refused
         * at create (its compile errors are left to the evaluation, core/cel.h) */
        bool over = false;
        uint64_t estimate = 0;
        if (st == KP_OK) st = kp__cel_over_cost(expr, strlen(expr), &over, &estimate);
        if (st == KP_OK && over)
            st = kp__dctx_fail(d, en, KP_EINVAL, "cel.expression",
                               "Forbidden: too complex, exceeds cost limit");
        if (st == KP_OK)
            st = kp__d_intern(d, cl, en, "cel.expression", expr, strlen(expr), &(*out)[i]);
        kp__dctx_pop(d, s2);
    }
    *n = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

/* validateRawExtension: parameters required (a JSON object), at most 10Ki of text */
static kp_status parameters(kp_dctx *d, const kp_tnode *op) {
    const kp_tnode *p = kp__tree_get(op, "parameters");
    if (!p || p->type == KP_T_NULL)
        return kp__dctx_fail(d, op, KP_EINVAL, "parameters", "Required value");
    if (p->type != KP_T_OBJ && p->type != KP_T_LAZY)
        return kp__dctx_fail(d, p, KP_EINVAL, "parameters",
                             "Invalid value: parameters must be a valid JSON object");
    return KP_OK;
}

kp_status kp__dra_opaque(kp_dctx *d, const kp_tnode *cfg) {
    const kp_tnode *op = NULL;
    const char *drv = NULL;
    if (cfg->type != KP_T_OBJ) return kp__dctx_fail(d, cfg, KP_EINVAL, NULL, "expected an object");
    TRY(kp__dget_obj(d, cfg, "opaque", &op));
    if (!op) return kp__dctx_fail(d, cfg, KP_EINVAL, "opaque", "Required value");
    size_t saved = kp__dctx_push(d, "opaque");
    kp_status st = kp__dget_str(d, op, "driver", &drv, NULL);
    const kp_tnode *dn = kp__tree_get(op, "driver");
    if (st == KP_OK) st = kp__dra_name(d, dn ? dn : op, "driver", drv, KP_DRA_NAME_DRIVER);
    if (st == KP_OK) st = parameters(d, op);
    kp__dctx_pop(d, saved);
    (void)PARAMS_MAX_LEN; /* (the parsed tree does not keep the text's length) */
    return st;
}

kp_status kp__dra_node_selector(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                                bool one_term, kp_nsterm *out, bool *has) {
    const kp_tnode *ns = NULL, *terms = NULL;
    TRY(kp__dget_obj(d, obj, key, &ns));
    *has = ns != NULL;
    if (!ns) return KP_OK;
    size_t saved = kp__dctx_push(d, key);
    kp_status st = kp__dget_arr(d, ns, "nodeSelectorTerms", &terms);
    uint32_t n = terms ? terms->n : 0;
    /* ValidateNodeSelector: at least one term; a slice's selector has exactly one */
    if (st == KP_OK && n == 0)
        st = kp__dctx_fail(d, ns, KP_EINVAL, "nodeSelectorTerms",
                           "Required value: must have at least one node selector term");
    else if (st == KP_OK && one_term && n != 1)
        st = kp__dctx_fail(d, terms, KP_EINVAL, "nodeSelectorTerms",
                           "Invalid value: %u terms: must have exactly one node selector term", n);
    if (st == KP_OK) {
        const kp_tnode *t = terms->first;
        size_t s2 = kp__dctx_push(d, "nodeSelectorTerms[0]");
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK)
            st = kp__d_selreqs(d, cl, t, "matchExpressions", true, &out->n_exprs, &out->exprs);
        if (st == KP_OK)
            st = kp__d_selreqs(d, cl, t, "matchFields", true, &out->n_fields, &out->fields);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__dra_tolerations(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, uint16_t *n,
                              kp_toleration **out) {
    const kp_tnode *a;
    TRY(kp__dra_arr(d, obj, "tolerations", TOLERATIONS_MAX, &a));
    *n = 0;
    if (!a || !a->n) return KP_OK;
    if (!(*out = kp__d_alloc(d, cl, a->n * sizeof **out))) return KP_ENOMEM;
    size_t saved = kp__dctx_push(d, "tolerations");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        kp_toleration *tl = &(*out)[i];
        const char *op = NULL, *eff = NULL;
        bool has_op = false, has_eff = false;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__d_str(d, cl, t, "key", &tl->key);
        if (st == KP_OK && tl->key) {
            const char *k = kp__s(cl, tl->key), *why = kp__qualified_name_error(k, strlen(k));
            if (why)
                st = kp__dctx_fail(d, t, KP_EINVAL, "key", "Invalid value: \"%s\": %s", k, why);
        }
        if (st == KP_OK) st = kp__d_str(d, cl, t, "value", &tl->value);
        if (st == KP_OK) st = kp__dget_str(d, t, "operator", &op, &has_op);
        if (st == KP_OK && has_op && op[0]) {
            if (strcmp(op, "Exists") == 0) tl->op = KP_TOL_EXISTS;
            else if (strcmp(op, "Equal") != 0)
                st = kp__dctx_fail(
                    d, t, KP_EINVAL, "operator",
                    "Unsupported value: \"%s\": supported values: \"Equal\", \"Exists\"", op);
        }
        if (st == KP_OK) st = kp__dget_str(d, t, "effect", &eff, &has_eff);
        if (st == KP_OK && has_eff && eff[0]) {
            if (strcmp(eff, "NoSchedule") == 0) tl->effect = KP_EFFECT_NOSCHEDULE;
            else if (strcmp(eff, "NoExecute") == 0) tl->effect = KP_EFFECT_NOEXECUTE;
            else
                st = kp__dctx_fail(
                    d, t, KP_EINVAL, "effect",
                    "Unsupported value: \"%s\": supported values: \"NoExecute\", \"NoSchedule\"",
                    eff);
        }
        if (st == KP_OK)
            st = kp__dget_int(d, t, "tolerationSeconds", INT64_MIN, INT64_MAX, &tl->seconds,
                              &tl->has_seconds);
        /* validateDeviceToleration: as a pod's (an empty key needs Exists; Exists, no value) */
        if (st == KP_OK && !tl->key && tl->op != KP_TOL_EXISTS)
            st = kp__dctx_fail(d, t, KP_EINVAL, "operator",
                               "Invalid value: \"%s\": operator must be Exists when `key` is empty",
                               has_op ? op : "Equal");
        if (st == KP_OK && tl->op == KP_TOL_EXISTS && tl->value)
            st = kp__dctx_fail(d, t, KP_EINVAL, "operator",
                               "Invalid value: \"%s\": value must be empty when `operator` is "
                               "'Exists'",
                               kp__s(cl, tl->value));
        kp__dctx_pop(d, s2);
    }
    *n = (uint16_t)i;
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__dra_quantity(kp_dctx *d, const kp_tnode *n, const char *field, kp_quantity *out) {
    if (n->type != KP_T_STR && n->type != KP_T_NUM)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "expected a quantity string");
    kp_error qe;
    kp_error_clear(&qe);
    if (kp_quantity_parse(n->s, n->len, out, &qe) != KP_OK)
        return kp__dctx_fail(d, n, KP_EINVAL, field, "invalid quantity \"%s\": %s", n->s, qe.msg);
    return KP_OK;
}

/* validateCIdentifier: at most 32 characters, [A-Za-z_][A-Za-z0-9_]* */
static const char *cid_error(const char *s, size_t len) {
    if (len > 32) return "Too long: may not be more than 32 bytes";
    bool ok = len > 0 && !(s[0] >= '0' && s[0] <= '9');
    for (size_t i = 0; i < len && ok; i++) {
        char c = s[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
    return ok ? NULL
              : "a valid C identifier must start with alphabetic character or '_', followed by "
                "a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
                "'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
}

kp_status kp__dra_qname(kp_dctx *d, kp_cluster *cl, const kp_tnode *n, const char *field,
                        const char *s, kp_str driver, bool full, kp_str *domain, kp_str *name) {
    const char *slash = strchr(s, '/');
    if (slash && strchr(slash + 1, '/'))
        return kp__dctx_fail(d, n, KP_EINVAL, field,
                             "Invalid value: \"%s\": must not contain more than one slash", s);
    const char *id = slash ? slash + 1 : s, *e;
    if (slash) {
        char dom[256];
        size_t dl = (size_t)(slash - s);
        if (dl == 0)
            return kp__dctx_fail(d, n, KP_EINVAL, field,
                                 "Invalid value: \"\": the domain must not be empty");
        snprintf(dom, sizeof dom, "%.*s", (int)(dl > 255 ? 255 : dl), s);
        TRY(kp__dra_name(d, n, field, dl > 255 ? "-" : dom, KP_DRA_NAME_DRIVER));
        TRY(kp__d_intern(d, cl, n, field, s, dl, domain));
        if (!id[0])
            return kp__dctx_fail(d, n, KP_EINVAL, field,
                                 "Invalid value: \"\": the name must not be empty");
    } else if (full) {
        return kp__dctx_fail(d, n, KP_EINVAL, field,
                             "Invalid value: \"%s\": a fully qualified name must be a domain "
                             "and a name separated by a slash",
                             s);
    } else {
        *domain = driver;
    }
    if ((e = cid_error(id, strlen(id))))
        return strncmp(e, "Too long", 8) == 0
                   ? kp__dctx_fail(d, n, KP_EINVAL, field, "%s", e)
                   : kp__dctx_fail(d, n, KP_EINVAL, field, "Invalid value: \"%s\": %s", id, e);
    return kp__d_intern(d, cl, n, field, id, strlen(id), name);
}

/* ---- DeviceClass ---- */

/* v1helper.IsExtendedResourceName: a qualified name with a domain outside kubernetes.io (and
 * not "requests."-prefixed): "must be a valid extended resource name" */
static bool extended_name_ok(const char *s) {
    /* IsNativeResource: no domain, or one of kubernetes.io */
    if (!strchr(s, '/') || strstr(s, "kubernetes.io/") || strncmp(s, "requests.", 9) == 0)
        return false;
    char q[300];
    int n = snprintf(q, sizeof q, "requests.%s", s);
    return n > 0 && (size_t)n < sizeof q && !kp__qualified_name_error(q, (size_t)n);
}

/* mirrors ValidateDeviceClass / validateDeviceClassSpec */
static kp_status decode_class(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_class *c) {
    TRY(kp__dra_selectors(d, cl, spec, &c->n_selectors, &c->selectors));
    const kp_tnode *a;
    TRY(kp__dra_arr(d, spec, "config", CONFIG_MAX, &a));
    size_t saved = kp__dctx_push(d, "config");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a ? a->first : NULL; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        st = kp__dra_opaque(d, t);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    c->n_config = (uint16_t)i;
    if (st != KP_OK) return st;
    const char *ext = NULL;
    bool has = false;
    TRY(kp__dget_str(d, spec, "extendedResourceName", &ext, &has));
    if (!has) return KP_OK;
    const kp_tnode *en = kp__tree_get(spec, "extendedResourceName");
    if (!extended_name_ok(ext))
        return kp__dctx_fail(d, en, KP_EINVAL, "extendedResourceName",
                             "Invalid value: \"%s\": must be a valid extended resource name", ext);
    return kp__d_intern(d, cl, en, "extendedResourceName", ext, strlen(ext), &c->extended_resource);
}

/* ---- ResourceClaimTemplate ---- */

/* mirrors validateResourceClaimTemplateSpec: spec.metadata (labels, annotations) and spec.spec */
static kp_status decode_template(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_version v,
                                 kp_dra_template *t) {
    const kp_tnode *meta = NULL, *cs = NULL;
    TRY(kp__dget_obj(d, spec, "metadata", &meta));
    if (meta) {
        size_t saved = kp__dctx_push(d, "metadata");
        kp_status st = kp__d_labels(d, cl, meta, "labels", &t->labels);
        if (st == KP_OK) st = kp__d_labels(d, cl, meta, "annotations", &t->annotations);
        kp__dctx_pop(d, saved);
        TRY(st);
    }
    TRY(kp__dget_obj(d, spec, "spec", &cs));
    if (!cs) return kp__dctx_fail(d, spec, KP_EINVAL, "spec", "Required value");
    size_t saved = kp__dctx_push(d, "spec");
    kp_status st = kp__dra_claim_spec(d, cl, cs, v, &t->spec);
    kp__dctx_pop(d, saved);
    return st;
}

/* ---- ResourceClaim ---- */

/* the controller ownerReference (the resourceclaim controller's claims name their pod) */
static kp_status claim_owner(kp_dctx *d, kp_cluster *cl, const kp_tnode *meta, kp_dra_claim *c) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, meta, "ownerReferences", &a));
    size_t saved = kp__dctx_push(d, "ownerReferences");
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a ? a->first : NULL; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        bool ctl = false;
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_bool(d, t, "controller", &ctl, NULL);
        if (st == KP_OK && ctl) {
            st = kp__d_str(d, cl, t, "kind", &c->owner_kind);
            if (st == KP_OK) st = kp__d_str(d, cl, t, "name", &c->owner_name);
            if (st == KP_OK) st = kp__d_str(d, cl, t, "uid", &c->owner_uid);
        }
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    return st;
}

static kp_status decode_claim(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const kp_tnode *meta,
                              kp_dra_version v, kp_dra_claim *c) {
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__d_str(d, cl, meta, "uid", &c->uid);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "labels", &c->labels);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "annotations", &c->annotations);
    if (st == KP_OK) st = kp__dget_time(d, meta, "creationTimestamp", &c->creation_ts, NULL);
    if (st == KP_OK) st = kp__dget_time(d, meta, "deletionTimestamp", &c->deletion_ts, NULL);
    if (st == KP_OK) st = claim_owner(d, cl, meta, c);
    const kp_tnode *ann = NULL;
    if (st == KP_OK) st = kp__dget_obj(d, meta, "annotations", &ann);
    if (st == KP_OK && ann) {
        const char *pcn = NULL, *ext = NULL;
        bool has = false;
        size_t s2 = kp__dctx_push(d, "annotations");
        st = kp__dget_str(d, ann, "resource.kubernetes.io/pod-claim-name", &pcn, &has);
        if (st == KP_OK && has)
            st = kp__d_intern(d, cl, ann, "resource.kubernetes.io/pod-claim-name", pcn, strlen(pcn),
                              &c->pod_claim_name);
        if (st == KP_OK)
            st = kp__dget_str(d, ann, "resource.kubernetes.io/extended-resource-claim", &ext, &has);
        if (st == KP_OK && has) c->extended = strcmp(ext, "true") == 0;
        kp_str k_ext, k_true; /* interned for the encoder, which writes it from c->extended */
        if (st == KP_OK && c->extended)
            st = kp__d_intern(d, cl, ann, "resource.kubernetes.io/extended-resource-claim",
                              "resource.kubernetes.io/extended-resource-claim", 46, &k_ext);
        if (st == KP_OK && c->extended)
            st = kp__d_intern(d, cl, ann, "resource.kubernetes.io/extended-resource-claim", "true",
                              4, &k_true);
        kp__dctx_pop(d, s2);
    }
    kp__dctx_pop(d, saved);
    TRY(st);
    const kp_tnode *spec, *status;
    TRY(kp__dget_obj(d, obj, "spec", &spec));
    if (!spec) return kp__dctx_fail(d, obj, KP_EINVAL, "spec", "Required value");
    saved = kp__dctx_push(d, "spec");
    st = kp__dra_claim_spec(d, cl, spec, v, &c->spec);
    kp__dctx_pop(d, saved);
    TRY(st);
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (!status) return KP_OK;
    saved = kp__dctx_push(d, "status");
    st = kp__dra_claim_status(d, cl, status, c);
    kp__dctx_pop(d, saved);
    return st;
}

kp_status kp__decode_dra(kp_dctx *d, kp_cluster *cl, const char *source, const kp_tnode *obj,
                         kp_dra_kind kind, const char *api, void *o) {
    kp_dra_version v = version_of(api);
    kp_str src = 0;
    TRY(kp__d_intern(d, cl, NULL, NULL, source, strlen(source), &src));
    const kp_tnode *meta = NULL, *spec = NULL;
    TRY(kp__dget_obj(d, obj, "metadata", &meta));
    if (kind == KP_DK_CLAIM) {
        kp_dra_claim *c = o;
        c->src_file = kp__s(cl, src);
        return decode_claim(d, cl, obj, meta, v, c);
    }
    TRY(kp__dget_obj(d, obj, "spec", &spec));
    /* a DeviceClass may leave its spec out (every field is optional); the others need one */
    if (!spec && kind != KP_DK_CLASS)
        return kp__dctx_fail(d, obj, KP_EINVAL, "spec", "Required value");
    size_t saved = kp__dctx_push(d, "spec");
    kp_status st = KP_OK;
    switch (kind) {
    case KP_DK_CLASS:
        ((kp_dra_class *)o)->src_file = kp__s(cl, src);
        /* the newest class wins an extendedResourceName (core/dra_ext.c) */
        if (meta)
            st = kp__dget_time(d, meta, "creationTimestamp", &((kp_dra_class *)o)->creation_ts,
                               NULL);
        if (spec && st == KP_OK) st = decode_class(d, cl, spec, o);
        break;
    case KP_DK_SLICE:
        ((kp_dra_slice *)o)->src_file = kp__s(cl, src);
        st = kp__dra_decode_slice(d, cl, spec, v, o);
        break;
    case KP_DK_TEMPLATE:
        ((kp_dra_template *)o)->src_file = kp__s(cl, src);
        st = decode_template(d, cl, spec, v, o);
        break;
    case KP_DK_CLAIM:
    case KP_DK_KINDS: break;
    }
    kp__dctx_pop(d, saved);
    return st;
}
