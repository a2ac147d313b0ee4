/* Object dispatch (kind -> decoder) and kp_cluster_load_buffer / kp_cluster_load_path. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_dra.h"
#include "io/decode_names.h"
#include "io/events.h"
#include "io/input.h"
#include "kprio/cluster.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

typedef struct {
    kp_cluster *cl;
    const char *source;
    kp_input *in; /* the file being read, NULL for a caller's buffer */
    uint64_t n_seen; /* objects met in this input (any kind) */
    /* kp__load_into: the one object of the input is decoded into `into` (an object of kind
     * into_kind and identity into_ns / into_name the caller holds), nothing is added */
    void *into;
    const char *into_kind;
    kp_str into_ns, into_name;
} load_ctx;

void kp_cluster_set_name_rules(kp_cluster *cl, bool on) { cl->lax_names = !on; }

void kp_cluster_set_max_input_bytes(kp_cluster *cl, uint64_t max_bytes) {
    cl->max_input_bytes = max_bytes;
}

static size_t max_input(const kp_cluster *cl) {
    uint64_t m = cl->max_input_bytes ? cl->max_input_bytes : KP_CLUSTER_MAX_INPUT_BYTES_DEFAULT;
    return m > SIZE_MAX - (1 << 20) ? SIZE_MAX - (1 << 20) : (size_t)m;
}

static kp_status limit_error(const kp_cluster *cl, const char *source, kp_error *err) {
    kp_status st =
        kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes", max_input(cl));
    if (err) snprintf(err->source, sizeof err->source, "%s", source);
    return st;
}

static kp_status decode_node_obj(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_node *n) {
    const kp_tnode *meta, *spec, *status;
    TRY(kp__dget_obj(d, obj, "metadata", &meta));
    size_t saved = kp__dctx_push(d, "metadata");
    kp_status st = kp__d_str(d, cl, meta, "uid", &n->uid);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "labels", &n->labels);
    if (st == KP_OK) st = kp__d_labels(d, cl, meta, "annotations", &n->annotations);
    if (st == KP_OK) st = kp__dget_time(d, meta, "creationTimestamp", &n->creation_ts, NULL);
    kp__dctx_pop(d, saved);
    if (st != KP_OK) return st;
    TRY(kp__dget_obj(d, obj, "spec", &spec));
    if (spec) {
        saved = kp__dctx_push(d, "spec");
        const kp_tnode *taints;
        st = kp__dget_bool(d, spec, "unschedulable", &n->unschedulable, NULL);
        if (st == KP_OK) st = kp__dget_arr(d, spec, "taints", &taints);
        if (st == KP_OK && taints && taints->n) {
            st = kp__d_check_count(d, taints, "taints", taints->n, KP_MAX_ENTRIES);
            n->taints = st == KP_OK ? kp__d_alloc(d, cl, taints->n * sizeof *n->taints) : NULL;
            if (st == KP_OK && !n->taints) st = KP_ENOMEM;
            size_t s1 = kp__dctx_push(d, "taints");
            uint32_t i = 0;
            for (const kp_tnode *t = taints->first; t && st == KP_OK; t = t->next, i++) {
                size_t s2 = kp__dctx_push_index(d, i);
                if (t->type != KP_T_OBJ)
                    st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
                if (st == KP_OK) st = kp__d_str(d, cl, t, "key", &n->taints[i].key);
                if (st == KP_OK && !n->taints[i].key)
                    st = kp__dctx_fail(d, t, KP_EINVAL, "key", "required value");
                if (st == KP_OK) st = kp__d_str(d, cl, t, "value", &n->taints[i].value);
                if (st == KP_OK) st = kp__d_effect(d, t, false, &n->taints[i].effect);
                int64_t added = 0;
                bool has_added = false;
                if (st == KP_OK) st = kp__dget_time(d, t, "timeAdded", &added, &has_added);
                n->taints[i].time_added = has_added && added != KP_TIME_NONE ? added : 0;
                kp__dctx_pop(d, s2);
            }
            n->n_taints = (uint16_t)i;
            kp__dctx_pop(d, s1);
        }
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (status) {
        saved = kp__dctx_push(d, "status");
        const kp_tnode *images;
        st = kp__d_dense_resources(d, cl, status, "allocatable", n->alloc, n->has_alloc);
        if (st == KP_OK) st = kp__d_dense_resources(d, cl, status, "capacity", n->cap, NULL);
        if (st == KP_OK)
            st = kp__d_conditions(d, cl, status, "conditions", NULL, &n->n_conditions,
                                  &n->conditions);
        if (st == KP_OK) st = kp__dget_arr(d, status, "images", &images);
        if (st == KP_OK && images && images->n) {
            uint32_t total = 0;
            for (const kp_tnode *im = images->first; im; im = im->next) {
                const kp_tnode *names = kp__tree_get(im, "names");
                if (names && names->type == KP_T_ARR) total += names->n;
            }
            st = kp__d_check_count(d, images, "images", total, KP_MAX_LIST);
            n->images =
                (st == KP_OK && total) ? kp__d_alloc(d, cl, total * sizeof *n->images) : NULL;
            if (st == KP_OK && total && !n->images)
                st = KP_ENOMEM; /* (kp__d_alloc set the message) */
            size_t s1 = kp__dctx_push(d, "images");
            uint32_t i = 0;
            for (const kp_tnode *im = images->first; im && st == KP_OK && n->images;
                 im = im->next, i++) {
                size_t s2 = kp__dctx_push_index(d, i);
                int64_t size = 0;
                const kp_tnode *names = NULL;
                if (im->type != KP_T_OBJ)
                    st = kp__dctx_fail(d, im, KP_EINVAL, NULL, "expected an object");
                if (st == KP_OK) st = kp__dget_int(d, im, "sizeBytes", 0, INT64_MAX, &size, NULL);
                if (st == KP_OK) st = kp__dget_arr(d, im, "names", &names);
                for (const kp_tnode *nm = names ? names->first : NULL; nm && st == KP_OK;
                     nm = nm->next) {
                    if (nm->type != KP_T_STR) {
                        st = kp__dctx_fail(d, nm, KP_EINVAL, "names", "expected a string");
                        break;
                    }
                    st = kp__d_intern(d, cl, nm, "names", nm->s, nm->len,
                                      &n->images[n->n_images].name);
                    if (st != KP_OK) break;
                    n->images[n->n_images].size = size;
                    n->n_images++;
                }
                kp__dctx_pop(d, s2);
            }
            kp__dctx_pop(d, s1);
        }
        kp__dctx_pop(d, saved);
    }
    return st;
}

static kp_status decode_pc(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_priority_class *pc) {
    int64_t v = 0;
    bool has = false;
    TRY(kp__dget_int(d, obj, "value", INT32_MIN, INT32_MAX, &v, &has));
    if (!has) return kp__dctx_fail(d, obj, KP_EINVAL, "value", "required value");
    pc->value = (int32_t)v;
    TRY(kp__dget_bool(d, obj, "globalDefault", &pc->global_default, NULL));
    const char *pp = NULL;
    TRY(kp__dget_str(d, obj, "preemptionPolicy", &pp, &has));
    if (has) {
        pc->has_preemption_policy = true;
        if (strcmp(pp, "Never") == 0) pc->preemption_policy = KP_PREEMPT_NEVER;
        else if (strcmp(pp, "PreemptLowerPriority") == 0) pc->preemption_policy = KP_PREEMPT_LOWER;
        else
            return kp__dctx_fail(
                d, kp__tree_get(obj, "preemptionPolicy"), KP_EINVAL, "preemptionPolicy",
                "unsupported value \"%s\": supported values: \"Never\", \"PreemptLowerPriority\"",
                pp);
    }
    return kp__d_str(d, cl, obj, "description", &pc->description);
}

static kp_status decode_int_or_string(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj,
                                      const char *key, bool *has, kp_str *out) {
    const kp_tnode *n = kp__tree_get(obj, key);
    *has = false;
    if (!n || n->type == KP_T_NULL) return KP_OK;
    if (n->type != KP_T_NUM && n->type != KP_T_STR)
        return kp__dctx_fail(d, n, KP_EINVAL, key, "expected an integer or a percentage string");
    if (n->type == KP_T_NUM) {
        char *end;
        long long v = strtoll(n->s, &end, 10);
        if (*end || v < 0 || v > INT32_MAX)
            return kp__dctx_fail(d, n, KP_EINVAL, key, "invalid value %s", n->s);
    } else {
        char *end;
        long long v = strtoll(n->s, &end, 10);
        if (end == n->s || strcmp(end, "%") != 0 || v < 0 || v > 100)
            return kp__dctx_fail(
                d, n, KP_EINVAL, key,
                "invalid value \"%s\": must be an integer or a percentage (0%%-100%%)", n->s);
    }
    *has = true;
    return kp__d_intern(d, cl, n, key, n->s, n->len, out);
}

/* spec.unhealthyPodEvictionPolicy (ValidatePodDisruptionBudgetSpec's supported values) */
static kp_status decode_unhealthy_policy(kp_dctx *d, const kp_tnode *spec, kp_pdb *b) {
    const char *v = NULL;
    bool has = false;
    TRY(kp__dget_str(d, spec, "unhealthyPodEvictionPolicy", &v, &has));
    if (!has) return KP_OK;
    if (strcmp(v, "AlwaysAllow") == 0) b->always_allow = true;
    else if (strcmp(v, "IfHealthyBudget") != 0)
        return kp__dctx_fail(d, kp__tree_get(spec, "unhealthyPodEvictionPolicy"), KP_EINVAL,
                             "unhealthyPodEvictionPolicy",
                             "Unsupported value: \"%s\": supported values: \"AlwaysAllow\", "
                             "\"IfHealthyBudget\"",
                             v);
    return KP_OK;
}

static kp_status decode_pdb(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_pdb *b) {
    const kp_tnode *spec, *status;
    TRY(kp__dget_obj(d, obj, "spec", &spec));
    if (spec) {
        size_t saved = kp__dctx_push(d, "spec");
        kp_status st = kp__d_label_selector(d, cl, spec, "selector", &b->selector);
        if (st == KP_OK)
            st = decode_int_or_string(d, cl, spec, "minAvailable", &b->has_min_available,
                                      &b->min_available);
        if (st == KP_OK)
            st = decode_int_or_string(d, cl, spec, "maxUnavailable", &b->has_max_unavailable,
                                      &b->max_unavailable);
        if (st == KP_OK) st = decode_unhealthy_policy(d, spec, b);
        if (st == KP_OK && b->has_min_available && b->has_max_unavailable)
            st = kp__dctx_fail(d, spec, KP_EINVAL, NULL,
                               "minAvailable and maxUnavailable cannot be both set");
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    TRY(kp__dget_obj(d, obj, "status", &status));
    if (status) {
        size_t saved = kp__dctx_push(d, "status");
        int64_t v = 0;
        bool has = false;
        const kp_tnode *dp;
        kp_status st =
            kp__dget_int(d, status, "disruptionsAllowed", INT32_MIN, INT32_MAX, &v, &has);
        b->has_status = has;
        b->disruptions_allowed = (int32_t)v;
        if (st == KP_OK)
            st = kp__dget_int(d, status, "currentHealthy", INT32_MIN, INT32_MAX, &v, &has);
        if (has) b->current_healthy = (int32_t)v;
        if (st == KP_OK)
            st = kp__dget_int(d, status, "desiredHealthy", INT32_MIN, INT32_MAX, &v, &has);
        if (has) b->desired_healthy = (int32_t)v;
        if (st == KP_OK)
            st = kp__dget_int(d, status, "expectedPods", INT32_MIN, INT32_MAX, &v, &has);
        if (has) b->expected_pods = (int32_t)v;
        if (st == KP_OK) st = kp__dget_obj(d, status, "disruptedPods", &dp);
        if (st == KP_OK && dp && dp->n) {
            b->disrupted = kp__d_alloc(d, cl, dp->n * sizeof *b->disrupted);
            if (!b->disrupted) st = KP_ENOMEM;
            for (const kp_tnode *c = dp->first; c && st == KP_OK; c = c->next)
                if ((st = kp__d_intern(d, cl, c, "disruptedPods", c->key, c->key_len,
                                       &b->disrupted[b->n_disrupted])) == KP_OK)
                    b->n_disrupted++;
        }
        kp__dctx_pop(d, saved);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

static bool api_group_ok(const char *api, const char *kind) {
    if (!api) return true; /* items of a typed List may omit apiVersion */
    if (strcmp(kind, "Pod") == 0 || strcmp(kind, "Node") == 0 || strcmp(kind, "Namespace") == 0)
        return strcmp(api, "v1") == 0;
    if (strcmp(kind, "PriorityClass") == 0)
        return strcmp(api, "scheduling.k8s.io/v1") == 0 ||
               strcmp(api, "scheduling.k8s.io/v1beta1") == 0;
    if (strcmp(kind, "PodDisruptionBudget") == 0)
        return strcmp(api, "policy/v1") == 0 || strcmp(api, "policy/v1beta1") == 0;
    return true;
}

/* The apiVersion of a kind kprio reads: one it serves (a DRA version the release line of
 * --compat does not serve is refused as that line's API server would). */
static kp_status check_api(const kp_cluster *cl, kp_dctx *d, const kp_tnode *obj, const char *kind,
                           const char *api) {
    kp_workload_kind wk;
    kp_volume_kind vk;
    kp_dra_kind dk;
    const char *why = NULL;
    bool ok = kp__dra_kind(kind, &dk)        ? !api || kp__dra_api_ok(api, cl->gates.line, &why)
              : kp__volume_kind(kind, &vk)   ? !api || kp__volume_api_ok(vk, api)
              : kp__workload_kind(kind, &wk) ? !api || kp__workload_api_ok(wk, api)
                                             : api_group_ok(api, kind);
    if (ok) return KP_OK;
    return kp__dctx_fail(d, kp__tree_get(obj, "apiVersion"), KP_EINVAL, "apiVersion",
                         "unsupported apiVersion \"%s\" for kind %s%s%s", api, kind,
                         why ? ": " : "", why ? why : "");
}

/* Duplicate keys of one object (JSON): kept until the object is named, then warned once each. */
typedef struct {
    char text[4][512];
    uint32_t n;
} dup_notes;

static kp_status dup_note(void *wctx, const char *text) {
    dup_notes *dn = wctx;
    if (dn->n < 4) snprintf(dn->text[dn->n], sizeof dn->text[0], "%s", text);
    dn->n++;
    return KP_OK;
}

static kp_status dup_flush(kp_cluster *cl, const char *source, const kp_dctx *d,
                           const dup_notes *dn) {
    for (uint32_t i = 0; i < dn->n && i < 4; i++)
        if (kp__cluster_warn(cl, "%s: %s%s%s", source, d->object, d->object[0] ? ": " : "",
                             dn->text[i]) != KP_OK)
            return KP_ENOMEM;
    if (dn->n > 4 &&
        kp__cluster_warn(cl, "%s: %s: %u more duplicate keys (the last values are used)", source,
                         d->object, dn->n - 4) != KP_OK)
        return KP_ENOMEM;
    return KP_OK;
}

/* metadata.generateName without a name (a manifest meant for kubectl create): the API server
 * appends 5 random characters (names.SimpleNameGenerator.GenerateName: the prefix cut to 58
 * bytes, then utilrand.String(5) over "bcdfghjklmnpqrstvwxz2456789"). kprio derives them from the
 * object's place instead, so runs are reproducible: FNV-1a 64 of the file name as given, the
 * document and item numbers and an attempt counter, 5 characters from the same alphabet. A name
 * already known to the cluster (as any string) takes the next attempt, so a generated name never
 * collides with an object loaded before it. */
#define KP_GEN_NAME_MAX 63
static const char *generate_name(kp_cluster *cl, const char *source, const kp_tdoc *doc,
                                 const char *prefix, char *out) {
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t plen = strlen(prefix);
    if (plen > KP_GEN_NAME_MAX - 5) plen = KP_GEN_NAME_MAX - 5;
    memcpy(out, prefix, plen);
    for (uint64_t attempt = 0;; attempt++) {
        uint64_t h = 1469598103934665603u;
        const uint64_t parts[3] = {(uint64_t)doc->doc_index, (uint64_t)doc->item_index, attempt};
        for (const char *c = source; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 8; k++) h = (h ^ ((parts[i] >> (8 * k)) & 0xff)) * 1099511628211u;
        for (int i = 0; i < 5; i++) {
            out[plen + (size_t)i] = alphabet[h % 27];
            h /= 27;
        }
        out[plen + 5] = 0;
        if (kp__intern_find(&cl->strs, out, plen + 5) == UINT32_MAX) return out;
    }
}

#define PROGRESS_STEP ((uint64_t)32 << 20)

/* kp__load_into's object: of the kind and identity the caller holds (the API server's update
 * keeps them: a patch that changes one is refused as the API refuses it), decoded in place. */
static kp_status decode_into(load_ctx *lc, kp_dctx *d, const kp_tnode *obj, const kp_tnode *meta,
                             const char *kind, kp_str ns_id, kp_str name_id) {
    kp_cluster *cl = lc->cl;
    if (lc->n_seen > 1) return kp__dctx_fail(d, obj, KP_EINVAL, NULL, "more than one object");
    if (strcmp(kind, lc->into_kind) != 0)
        return kp__dctx_fail(d, kp__tree_get(obj, "kind"), KP_EINVAL, "kind",
                             "Invalid value: \"%s\": may not be changed", kind);
    if (name_id != lc->into_name || ns_id != lc->into_ns)
        return kp__dctx_fail(d, meta, KP_EINVAL, name_id != lc->into_name ? "name" : "namespace",
                             "Invalid value: \"%s\": field is immutable",
                             kp__s(cl, name_id != lc->into_name ? name_id : ns_id));
    kp_workload_kind wk = KP_WL_SERVICE;
    if (strcmp(kind, "Pod") == 0) return kp__decode_pod(d, cl, obj, lc->into);
    if (strcmp(kind, "Node") == 0) return decode_node_obj(d, cl, obj, lc->into);
    if (strcmp(kind, "PriorityClass") == 0) return decode_pc(d, cl, obj, lc->into);
    if (strcmp(kind, "PodDisruptionBudget") == 0) return decode_pdb(d, cl, obj, lc->into);
    if (kp__workload_kind(kind, &wk)) return kp__decode_workload(d, cl, lc->source, obj, lc->into);
    if (strcmp(kind, "Namespace") == 0) {
        size_t saved = kp__dctx_push(d, "metadata");
        kp_status st = kp__d_labels(d, cl, meta, "labels", &((kp_namespace *)lc->into)->labels);
        kp__dctx_pop(d, saved);
        return st;
    }
    return kp__dctx_fail(d, obj, KP_EINVAL, "kind", "%s cannot be updated in kprio", kind);
}

/* the API server's name rules (ValidateObjectMeta with the kind's rule; decode_names.h):
 * metadata.name, and metadata.namespace of a namespaced object (ns NULL: none) */
static kp_status check_names(const kp_cluster *cl, kp_dctx *d, const kp_tnode *meta,
                             const char *kind, const char *name, const char *ns) {
    char why[1024];
    if (cl->lax_names) return KP_OK;
    if (kp__name_error(kind, name, why, sizeof why))
        return kp__dctx_fail(d, kp__tree_get(meta, "name") ? kp__tree_get(meta, "name") : meta,
                             KP_EINVAL, "metadata.name", "Invalid value: \"%.*s%s\": %s",
                             strlen(name) > 64 ? 64 : (int)strlen(name), name,
                             strlen(name) > 64 ? "..." : "", why);
    if (ns && kp__namespace_error(ns, why, sizeof why))
        return kp__dctx_fail(d, kp__tree_get(meta, "namespace"), KP_EINVAL, "metadata.namespace",
                             "Invalid value: \"%s\": %s", ns, why);
    return KP_OK;
}

static kp_status on_object(void *vctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    load_ctx *lc = vctx;
    kp_cluster *cl = lc->cl;
    lc->n_seen++;
    if (cl->progress_fn && obj->off >= cl->progress_next) {
        cl->progress_fn(cl->progress_ctx, lc->source, obj->off, doc->len);
        cl->progress_next = obj->off + PROGRESS_STEP;
        /* the callback may have done anything: the decoder reads the tree, the parser the file */
        if (lc->in) TRY(kp__input_check(lc->in, err));
    }
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    char where[64];
    if (doc->item_index >= 0 && doc->doc_index > 0)
        snprintf(where, sizeof where, "document %ld, items[%ld]", doc->doc_index + 1,
                 doc->item_index);
    else if (doc->item_index >= 0) snprintf(where, sizeof where, "items[%ld]", doc->item_index);
    else if (doc->doc_index > 0) snprintf(where, sizeof where, "document %ld", doc->doc_index + 1);
    else where[0] = 0;
    snprintf(d.object, sizeof d.object, "%s", where);

    dup_notes dn;
    dn.n = 0;
    TRY(kp__d_dup_keys(&d, (kp_tnode *)obj, kp__d_doc_is_yaml(doc), dup_note, &dn));
    const char *kind = NULL, *api = NULL;
    bool has_kind = false;
    TRY(kp__dget_str(&d, obj, "kind", &kind, &has_kind));
    TRY(kp__dget_str(&d, obj, "apiVersion", &api, NULL));
    char kind_buf[64]; /* an item kind is its List kind less "List": <= 59 bytes for valid kinds */
    if (!has_kind && doc->list_kind) {
        size_t kl = strlen(doc->list_kind);
        if (kl > 4 && strcmp(doc->list_kind + kl - 4, "List") == 0 && kl - 4 < sizeof kind_buf) {
            memcpy(kind_buf, doc->list_kind, kl - 4);
            kind_buf[kl - 4] = 0;
            kind = kind_buf;
            has_kind = true;
        }
    }
    if (!has_kind && doc->summary_like == 3)
        return kp__dctx_fail(&d, obj, KP_EINVAL, NULL,
                             "this looks like a kubelet Summary API document; pass it with "
                             "--summary (kprio evict)");
    if (!has_kind || !kind[0])
        return kp__dctx_fail(&d, obj, KP_EINVAL, "kind",
                             "required value (not a Kubernetes object)");
    cl->n_objects++;
    bool is_pod = strcmp(kind, "Pod") == 0, is_node = strcmp(kind, "Node") == 0;
    bool is_pc = strcmp(kind, "PriorityClass") == 0,
         is_pdb = strcmp(kind, "PodDisruptionBudget") == 0;
    bool is_ns = strcmp(kind, "Namespace") == 0;
    kp_workload_kind wk = KP_WL_SERVICE;
    bool is_wl = kp__workload_kind(kind, &wk);
    kp_volume_kind vk = KP_VK_PV;
    bool is_vol =
        !(is_pod || is_node || is_pc || is_pdb || is_ns || is_wl) && kp__volume_kind(kind, &vk);
    kp_dra_kind dk = KP_DK_CLASS; /* DRA objects (decode_dra.c): dispatched with storage */
    bool is_dra = !is_vol && kp__dra_kind(kind, &dk);
    bool known = is_pod || is_node || is_pc || is_pdb || is_ns || is_wl || is_vol || is_dra;
    if (dn.n && !known && dup_flush(cl, lc->source, &d, &dn) != KP_OK)
        return kp__dctx_fail(&d, obj, KP_ENOMEM, NULL, "out of memory");
    if (!known) {
        if (kp__cluster_note_skipped(cl, kind) != KP_OK)
            return kp__dctx_fail(&d, obj, KP_ENOMEM, "kind", "out of memory");
        return KP_OK;
    }
    const kp_tnode *meta;
    TRY(kp__dget_obj(&d, obj, "metadata", &meta));
    const char *name = NULL, *ns = NULL;
    bool has_name = false, has_ns = false;
    size_t saved = kp__dctx_push(&d, "metadata");
    kp_status st = kp__dget_str(&d, meta, "name", &name, &has_name);
    if (st == KP_OK) st = kp__dget_str(&d, meta, "namespace", &ns, &has_ns);
    char gen_name[KP_GEN_NAME_MAX + 1];
    if (st == KP_OK && (!has_name || !name[0])) {
        const char *gen = NULL;
        bool has_gen = false;
        st = kp__dget_str(&d, meta, "generateName", &gen, &has_gen);
        if (st == KP_OK && has_gen && gen[0])
            name = generate_name(cl, lc->source, doc, gen, gen_name);
        else if (st == KP_OK)
            st = kp__dctx_fail(&d, meta ? meta : obj, KP_EINVAL, "name",
                               "required value: name or generateName is required");
    }
    kp__dctx_pop(&d, saved);
    if (st != KP_OK) return st;
    bool namespaced =
        is_pod || is_pdb || is_wl ||
        (is_dra ? kp__dra_kind_namespaced(dk) : is_vol && kp__volume_kind_namespaced(vk));
    if (namespaced && (!has_ns || !ns[0])) ns = "default";
    snprintf(d.object, sizeof d.object, "%s%s%s %s%s%s%s", where, where[0] ? " (" : "", kind,
             namespaced ? ns : "", namespaced ? "/" : "", name, where[0] ? ")" : "");
    if (dn.n && dup_flush(cl, lc->source, &d, &dn) != KP_OK)
        return kp__dctx_fail(&d, obj, KP_ENOMEM, NULL, "out of memory");
    TRY(check_api(cl, &d, obj, kind, api)); /* once named, so the error says which object */
    TRY(check_names(cl, &d, meta, kind, name, namespaced ? ns : NULL));
    kp_str name_id = 0, ns_id = 0, src_id = 0;
    TRY(kp__d_intern(&d, cl, meta, "metadata.name", name, strlen(name), &name_id));
    if (namespaced) TRY(kp__d_intern(&d, cl, meta, "metadata.namespace", ns, strlen(ns), &ns_id));
    if (is_pod) TRY(kp__d_intern(&d, cl, NULL, NULL, lc->source, strlen(lc->source), &src_id));
    /* after finalize a load is the API server's create: an identity that exists is refused, and
     * the load is undone (kp_cluster_load_*); a deleted pod is gone from the API, its name free
     * (its tombstone keeps its index, the new pod gets another) */
    if (lc->into) return decode_into(lc, &d, obj, meta, kind, ns_id, name_id);
    long old = cl->finalized ? kp__cluster_find_object(cl, kind, ns_id, name_id) : -1;
    if (old >= 0 && !(is_pod && cl->pods[old].deleted))
        return kp__dctx_fail(&d, meta, KP_EINVAL, NULL, "already exists");

    if (is_pod) {
        kp_pod *p = kp__cluster_new_pod(cl, ns_id, name_id);
        if (!p) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        p->src_file = kp__s(cl, src_id);
        return kp__decode_pod(&d, cl, obj, p);
    }
    if (is_node) {
        kp_node *n = kp__cluster_new_node(cl, name_id);
        if (!n) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        return decode_node_obj(&d, cl, obj, n);
    }
    if (is_pc) {
        kp_priority_class *pc = kp__cluster_new_class(cl, name_id);
        if (!pc) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        TRY(kp__d_origin(&d, cl, lc->source, true, &pc->origin));
        return decode_pc(&d, cl, obj, pc);
    }
    if (is_pdb) {
        kp_pdb *b = kp__cluster_new_pdb(cl, ns_id, name_id);
        if (!b) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        return decode_pdb(&d, cl, obj, b);
    }
    if (is_vol || is_dra) {
        void *o = is_dra ? kp__cluster_new_dra(cl, dk, ns_id, name_id)
                         : kp__cluster_new_volume(cl, vk, ns_id, name_id);
        if (!o) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        return is_dra ? kp__decode_dra(&d, cl, lc->source, obj, dk, api, o)
                      : kp__decode_volume(&d, cl, obj, vk, o);
    }
    if (is_wl) {
        kp_workload *w = kp__cluster_new_workload(cl, wk, ns_id, name_id);
        if (!w) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
        return kp__decode_workload(&d, cl, lc->source, obj, w);
    }
    kp_namespace *nsp = kp__cluster_new_namespace(cl, name_id);
    if (!nsp) return kp__dctx_fail(&d, NULL, KP_ENOMEM, NULL, "out of memory");
    saved = kp__dctx_push(&d, "metadata");
    st = kp__d_labels(&d, cl, meta, "labels", &nsp->labels);
    kp__dctx_pop(&d, saved);
    return st;
}

/* buf: padded text; in: the input file it comes from, if any (lets the parser release pages). */
static kp_status load_padded(kp_cluster *cl, const char *source, const char *buf, size_t len,
                             kp_input *in, kp_error *err) {
    load_ctx lc = {cl, source, in, 0, NULL, NULL, 0, 0};
    /* the error's source is filled below when a failure left it empty: start it empty (the
     * caller's kp_error may be uninitialised) */
    if (err) err->source[0] = '\0';
    cl->progress_next = PROGRESS_STEP;
    if (in && in->map && cl->progress_fn) {
        /* a mapped file starts: the caller learns its name before any page of it is read */
        cl->progress_fn(cl->progress_ctx, source, 0, len);
        kp_status cst = kp__input_check(in, err);
        if (cst != KP_OK) {
            if (err) snprintf(err->source, sizeof err->source, "%s", source);
            return cst;
        }
    }
    kp_status st = in ? kp__tree_parse_input(source, in, true, on_object, &lc, err)
                      : kp__tree_parse(source, buf, len, true, on_object, &lc, err);
    /* a file rewritten while it was read: its error (or success) may come from mixed bytes */
    if (in && st != KP_ENOMEM && kp__input_check(in, NULL) != KP_OK) st = kp__input_check(in, err);
    if (st == KP_OK) cl->bytes_loaded += len;
    /* an empty or comment-only file (or an empty List): kubectl apply says "no objects passed to
     * apply"; for a read-only tool a warning per input is enough, and nothing at all loaded is an
     * empty answer */
    if (st == KP_OK && lc.n_seen == 0 && kp__cluster_warn(cl, "%s: no objects", source) != KP_OK)
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK && cl->progress_fn && cl->progress_next > PROGRESS_STEP)
        cl->progress_fn(cl->progress_ctx, source, len, len); /* a report was made: close it */
    if (st != KP_OK && err && !err->source[0])
        snprintf(err->source, sizeof err->source, "%s", source);
    return st;
}

/* A load into a finalized cluster keeps all of its objects or none: on an error the cluster is
 * put back as it was (kp__cluster_rollback; interned strings and arena bytes stay). */
static kp_status undo_on_error(kp_cluster *cl, const kp__cluster_mark *m, kp_status st) {
    if (st != KP_OK && cl->finalized) kp__cluster_rollback(cl, m);
    return st;
}

static kp_status load_buffer(kp_cluster *cl, const char *source, const char *buf, size_t len,
                             kp_error *err) {
    if (len > max_input(cl)) return limit_error(cl, source ? source : "", err);
    /* simdjson reads up to KP_JSON_PADDING bytes past the text: parse a padded copy (files read by
     * kp__read_file are padded already and go straight to load_padded). */
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = load_padded(cl, source ? source : "", copy, len, NULL, err);
    kp__free(copy);
    return st;
}

static kp_status load_file(kp_cluster *cl, const char *path, kp_error *err) {
    kp_input in;
    kp_status st = kp__input_open(path, max_input(cl), &in, err);
    if (st == KP_ELIMIT) return limit_error(cl, path, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    st = load_padded(cl, path, in.buf, in.len, &in, err);
    kp__input_close(&in);
    return st;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_manifest_ext(const char *name) {
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* names[i] (an entry of directory `dir`) is a snapshot's kubelet/ folder: "kubelet" next to a
 * "cluster.json" (docs/live.md). It holds Summary and /configz documents, read by `kprio evict`,
 * not cluster objects: -R does not descend into it. */
static bool snapshot_kubelet_dir(const char *dir, char *const *names, size_t n, size_t i) {
    size_t l = strlen(dir);
    if (strcmp(names[i] + l, "/kubelet") != 0) return false;
    for (size_t k = 0; k < n; k++)
        if (strcmp(names[k] + l, "/cluster.json") == 0) return true;
    return false;
}

static kp_status load_dir(kp_cluster *cl, const char *path, bool recursive, int depth,
                          kp_error *err) {
    if (depth > 32) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return kp_error_set(err, KP_ELIMIT,
                            "directories nested more than 32 levels deep (kprio's limit)");
    }
    DIR *dir = opendir(path);
    if (!dir) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return kp_error_set(err, KP_EIO, "cannot open directory");
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    kp_status st = KP_OK;
    while ((de = readdir(dir))) {
        if (de->d_name[0] == '.') continue;
        if (!kp__grow((void **)&names, &cap, n + 1, sizeof *names, 64)) {
            st = kp_error_set(err, KP_ENOMEM, "out of memory");
            break;
        }
        size_t l = strlen(path) + strlen(de->d_name) + 2;
        names[n] = kp__malloc(l);
        if (!names[n]) {
            st = kp_error_set(err, KP_ENOMEM, "out of memory");
            break;
        }
        snprintf(names[n], l, "%s/%s", path, de->d_name);
        n++;
    }
    closedir(dir);
    if (st == KP_OK && n) qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n && st == KP_OK; i++) {
        struct stat sb;
        if (stat(names[i], &sb) != 0) {
            /* a manifest that cannot be read is an error, as for kubectl -f; other names are
             * skipped */
            if (!has_manifest_ext(names[i])) continue;
            int e = errno;
            if (err) snprintf(err->source, sizeof err->source, "%s", names[i]);
            st = kp_error_set(err, KP_EIO, "cannot open: %s", strerror(e));
            break;
        }
        if (S_ISDIR(sb.st_mode)) {
            if (recursive && !snapshot_kubelet_dir(path, names, n, i))
                st = load_dir(cl, names[i], true, depth + 1, err);
        } else if (has_manifest_ext(names[i])) {
            /* FIFOs, sockets and devices are skipped with a warning: reading one would block or
             * never end (kubectl opens them and hangs); a directory of manifests holds files */
            if (S_ISREG(sb.st_mode)) st = load_file(cl, names[i], err);
            else if (kp__cluster_warn(cl, "%s: skipped: not a regular file", names[i]) != KP_OK)
                st = kp_error_set(err, KP_ENOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < n; i++) kp__free(names[i]);
    kp__free(names);
    return st;
}

kp_status kp__load_into(kp_cluster *cl, const char *source, const char *buf, size_t len,
                        const char *kind, kp_str ns, kp_str name, void *into, kp_error *err) {
    kp__cluster_mark m;
    kp__cluster_mark_get(cl, &m);
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    load_ctx lc = {cl, source ? source : "", NULL, 0, into, kind, ns, name};
    kp_status st = kp__tree_parse(lc.source, copy, len, true, on_object, &lc, err);
    kp__free(copy);
    if (st == KP_OK && lc.n_seen == 0) st = kp_error_set(err, KP_EINVAL, "no object");
    /* nothing was added: the counters and warnings of the load go (interned strings stay) */
    kp__cluster_rollback(cl, &m);
    return st;
}

kp_status kp_cluster_load_buffer(kp_cluster *cl, const char *source, const char *buf, size_t len,
                                 kp_error *err) {
    kp__cluster_mark m;
    kp__cluster_mark_get(cl, &m);
    return undo_on_error(cl, &m, load_buffer(cl, source, buf, len, err));
}

kp_status kp_cluster_load_path(kp_cluster *cl, const char *path, bool recursive, kp_error *err) {
    kp__cluster_mark m;
    kp__cluster_mark_get(cl, &m);
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return undo_on_error(cl, &m, load_dir(cl, path, recursive, 0, err));
    return undo_on_error(cl, &m, load_file(cl, path, err));
}
