/* Spec quantities as upstream holds them (resource.Quantity): the exact value, its format and
 * the text ParseQuantity cached, so that eviction messages print a request or limit the way the
 * pod's manifest spelt it (Quantity.String), and Quantity.Add for the sums messages print. */
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/quantity.h"
#include "core/resources.h"
#include "kubelet/evict_spec.h"

static const kp_resent *resv_entry(const kp_cluster *cl, const kp_resv *rv, const char *res) {
    for (uint16_t i = 0; i < rv->n; i++)
        if (strcmp(kp__s(cl, cl->res_names[rv->e[i].res]), res) == 0) return &rv->e[i];
    return NULL;
}

/* The spelling the cluster model kept from the pod's manifest (the default spec-text source). */
static const char *model_spec_text(const kp_cluster *cl, uint32_t pod, kp_evict_spec_field f,
                                   const char *name, const char *res, size_t *len) {
    const kp_pod *p = &cl->pods[pod];
    const kp_resent *e = NULL;
    kp_str text = 0;
    switch (f) {
    case KP_EVSPEC_REQUEST:
    case KP_EVSPEC_LIMIT:
        for (uint32_t i = 0; i < (uint32_t)p->n_containers + p->n_init && !e; i++) {
            const kp_container *c = &p->containers[i];
            if (strcmp(kp__s(cl, c->name), name) == 0)
                e = resv_entry(cl, f == KP_EVSPEC_REQUEST ? &c->req : &c->lim, res);
        }
        break;
    case KP_EVSPEC_POD_REQUEST: e = resv_entry(cl, &p->pod_req, res); break;
    case KP_EVSPEC_OVERHEAD: e = resv_entry(cl, &p->overhead, res); break;
    case KP_EVSPEC_SIZE_LIMIT:
        for (uint16_t i = 0; i < p->n_volumes && !text; i++)
            if (strcmp(kp__s(cl, p->volumes[i].name), name) == 0)
                text = p->volumes[i].size_limit_text;
        break;
    }
    if (e) text = e->text;
    if (!text) return NULL;
    *len = kp__strlen(&cl->strs, text);
    return kp__s(cl, text);
}

/* mirrors how upstream holds a spec quantity. The quantity behind a model integer v: parsed from
 * the text the pod was written with when the spec-text source knows it and it agrees with v, else
 * rebuilt from v (an absent quantity is v = 0, Quantity{} upstream, which prints "0"). */
void kp__ev_spec_qty(const kp__ev_spec_src *src, uint32_t pod, kp_evict_spec_field f,
                     const char *name, const char *res, int64_t v, kp__ev_qty *out) {
    size_t len = 0;
    const char *t = src->fn ? src->fn(src->ctx, pod, f, name, res, &len)
                            : model_spec_text(src->cl, pod, f, name, res, &len);
    int64_t iv;
    if (t && kp_quantity_parse(t, len, &out->q, NULL) == KP_OK &&
        kp_quantity_value(&out->q, &iv) == KP_OK && iv == v) {
        out->kept = len < sizeof out->str && kp_quantity_parse_keeps_string(t, len);
        if (out->kept) {
            memcpy(out->str, t, len);
            out->str[len] = 0;
        }
        return;
    }
    out->q =
        kp_quantity_from_int(v, (v != 0 && v % 1024 == 0) ? KP_QFMT_BINARY_SI : KP_QFMT_DECIMAL_SI);
    out->kept = false;
}

/* Quantity.String() */
const char *kp__ev_qty_str(kp__ev_qty *x) {
    if (!x->kept) kp__quantity_format(&x->q, x->str, sizeof x->str);
    return x->str;
}

/* mirrors Quantity.Add: exact sum; the cached string is dropped; a zero receiver takes the
 * addend's format. Beyond int64 (upstream switches to inf.Dec) the sum of the model integers
 * is used instead. */
void kp__ev_qty_add(kp__ev_qty *a, const kp__ev_qty *b, int64_t int_sum) {
    kp_qformat f = a->q.mant == 0 ? b->q.format : a->q.format;
    if (kp_quantity_add(&a->q, &b->q) != KP_OK) a->q = kp_quantity_from_int(int_sum, f);
    a->q.format = f;
    a->kept = false;
}

/* addResourceList for one resource: the first value is a DeepCopy (keeps its string), later
 * ones are added. */
void kp__ev_qty_accumulate(kp__ev_qty *acc, bool *has, const kp__ev_qty *v, int64_t int_sum) {
    if (!*has) *acc = *v;
    else kp__ev_qty_add(acc, v, int_sum);
    *has = true;
}
