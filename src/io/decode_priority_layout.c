/* Priority-class layout files (include/kprio/priority_layout.h; the format is docs/simulate.md
 * "Priority-class layouts"): apiVersion kprio/v1alpha1, kind PriorityLayout, YAML or JSON, one
 * document, decoded strictly as a scenario is (unknown fields and duplicate keys are errors)
 * into core/priority_layout.h. A class is checked by the rule a PriorityClass of the input is
 * checked by (kp__priority_class_check), when the file is read: a bad layout fails before
 * either run. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "core/priority_layout.h"
#include "io/dctx.h"
#include "io/decode_names.h"
#include "io/decode_scenario.h"
#include "io/events.h"
#include "io/input.h"
#include "io/tree.h"
#include "kprio/priority_layout.h"

#define KP_LAYOUT_MAX_FILE_BYTES ((size_t)64 << 20)
#define KP_LAYOUT_MAX_ENTRIES 100000u /* classes, assignments (each list) */

/* The layout and the arena its strings live in: the scenario decoder's member and selector
 * helpers (io/decode_scenario.h) allocate from a scen's arena, so the layout keeps one. */
typedef struct {
    kp_priority_layout pub;
    scen sc;
} layout;

static const char *const WORKLOAD_KINDS[] = {"ReplicationController",
                                             "ReplicaSet",
                                             "StatefulSet",
                                             "Deployment",
                                             "DaemonSet",
                                             "Job",
                                             "CronJob",
                                             NULL};

static bool builtin_class(const char *name) {
    return strcmp(name, "system-node-critical") == 0 ||
           strcmp(name, "system-cluster-critical") == 0;
}

static kp_status decode_class(kp_dctx *d, layout *l, const kp_tnode *n, size_t i) {
    static const char *const keys[] = {"name",        "value", "globalDefault", "preemptionPolicy",
                                       "description", NULL};
    kp_layout_class *c = &l->pub.classes[i];
    scen *s = &l->sc;
    kp_status st;
    int64_t v = 0;
    bool has_v = false;
    char *policy = NULL, why[KP_ERR_MSG_CAP];
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, s, n, "name", &c->name)) != KP_OK ||
        (st = kp__dget_int(d, n, "value", INT32_MIN, INT32_MAX, &v, &has_v)) != KP_OK ||
        (st = kp__dget_bool(d, n, "globalDefault", &c->global_default, NULL)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "preemptionPolicy", &policy)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "description", &c->description)) != KP_OK)
        return st;
    const kp_tnode *name = kp__tree_get(n, "name");
    if ((st = kp__d_no_nul(d, name, "name", name->s, name->len)) != KP_OK) return st;
    if (builtin_class(c->name))
        return kp__dctx_fail(d, name, KP_EINVAL, "name",
                             "Forbidden: %s is a built-in class: the system- classes stay as they "
                             "are, leave it out of the layout",
                             c->name);
    if (kp__name_error("PriorityClass", c->name, why, sizeof why))
        return kp__dctx_fail(d, name, KP_EINVAL, "name", "Invalid value: \"%s\": %s", c->name, why);
    for (size_t j = 0; j < i; j++)
        if (strcmp(l->pub.classes[j].name, c->name) == 0)
            return kp__dctx_fail(d, name, KP_EINVAL, "name",
                                 "Duplicate value: \"%s\" (priorityClasses[%zu])", c->name, j);
    if (!has_v) return kp__dctx_fail(d, n, KP_EINVAL, "value", "Required value");
    c->value = (int32_t)v;
    const char *field =
        kp__priority_class_check(c->name, c->value, c->global_default, false, why, sizeof why);
    if (field) /* "metadata.name" for a PriorityClass object is `name` here */
        return kp__dctx_fail(d, kp__tree_get(n, strcmp(field, "value") ? "name" : "value"),
                             KP_EINVAL, strcmp(field, "value") ? "name" : "value", "Forbidden: %s",
                             why);
    for (size_t j = 0; j < i && c->global_default; j++)
        if (l->pub.classes[j].global_default)
            return kp__dctx_fail(d, kp__tree_get(n, "globalDefault"), KP_EINVAL, "globalDefault",
                                 "Forbidden: PriorityClass %s is already marked as default. Only "
                                 "one default can exist (see priorityClasses[%zu])",
                                 l->pub.classes[j].name, j);
    if (policy[0]) {
        c->has_preemption_policy = true;
        c->preempt_never = strcmp(policy, "Never") == 0;
        if (!c->preempt_never && strcmp(policy, "PreemptLowerPriority") != 0)
            return kp__dctx_fail(d, kp__tree_get(n, "preemptionPolicy"), KP_EINVAL,
                                 "preemptionPolicy",
                                 "Unsupported value: \"%s\": supported values: \"Never\", "
                                 "\"PreemptLowerPriority\"",
                                 policy);
    }
    snprintf(c->object, sizeof c->object, "priorityClasses[%zu] (PriorityClass %s)", i, c->name);
    return KP_OK;
}

static kp_status decode_workload(kp_dctx *d, layout *l, const kp_tnode *w,
                                 kp_layout_assignment *a) {
    static const char *const keys[] = {"kind", "name", NULL};
    kp_status st;
    char *name = NULL;
    if ((st = kp__sc_need_obj(d, w, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, w, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, &l->sc, w, "kind", &a->wl_kind)) != KP_OK ||
        (st = kp__sc_opt_str(d, &l->sc, w, "name", &name)) != KP_OK)
        return st;
    bool known = false;
    for (size_t k = 0; WORKLOAD_KINDS[k] && !known; k++)
        known = strcmp(WORKLOAD_KINDS[k], a->wl_kind) == 0;
    if (!known)
        return kp__dctx_fail(d, kp__tree_get(w, "kind"), KP_EINVAL, "kind",
                             "Unsupported value: \"%s\": supported values: ReplicationController, "
                             "ReplicaSet, StatefulSet, Deployment, DaemonSet, Job, CronJob",
                             a->wl_kind);
    a->wl_name = name[0] ? name : NULL;
    return KP_OK;
}

static kp_status decode_assignment(kp_dctx *d, layout *l, const kp_tnode *n, size_t i) {
    static const char *const keys[] = {"priorityClassName", "namespace", "workload", "selector",
                                       NULL};
    kp_layout_assignment *a = &l->pub.assignments[i];
    kp_status st;
    char *ns = NULL, why[KP_ERR_MSG_CAP];
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, &l->sc, n, "priorityClassName", &a->class_name)) != KP_OK ||
        (st = kp__sc_opt_str(d, &l->sc, n, "namespace", &ns)) != KP_OK)
        return st;
    bool known = builtin_class(a->class_name);
    for (size_t j = 0; j < l->pub.n_classes && !known; j++)
        known = strcmp(l->pub.classes[j].name, a->class_name) == 0;
    if (!known)
        return kp__dctx_fail(d, kp__tree_get(n, "priorityClassName"), KP_EINVAL,
                             "priorityClassName",
                             "Not found: \"%s\": not a class of the layout (priorityClasses[]) nor "
                             "a built-in system- class",
                             a->class_name);
    if (ns[0] && kp__namespace_error(ns, why, sizeof why))
        return kp__dctx_fail(d, kp__tree_get(n, "namespace"), KP_EINVAL, "namespace",
                             "Invalid value: \"%s\": %s", ns, why);
    a->ns = ns[0] ? ns : NULL;
    const kp_tnode *w = kp__tree_get(n, "workload"), *sel = kp__tree_get(n, "selector");
    if (w && w->type != KP_T_NULL) {
        size_t sv = kp__dctx_push(d, "workload");
        st = decode_workload(d, l, w, a);
        kp__dctx_pop(d, sv);
        if (st != KP_OK) return st;
    }
    if (sel && sel->type != KP_T_NULL) {
        kp_selector_req *reqs = NULL;
        size_t sv = kp__dctx_push(d, "selector");
        st = kp__sc_decode_selector(d, &l->sc, sel, &reqs, &a->n_reqs);
        kp__dctx_pop(d, sv);
        a->reqs = reqs;
    }
    return st;
}

/* list `key` of root: its entries decoded by fn into a new array of *n */
static kp_status decode_list(kp_dctx *d, layout *l, const kp_tnode *root, const char *key,
                             size_t size, void **out, size_t *n,
                             kp_status (*fn)(kp_dctx *, layout *, const kp_tnode *, size_t)) {
    const kp_tnode *arr = NULL;
    kp_status st = kp__dget_arr(d, root, key, &arr);
    if (st != KP_OK || !arr || !arr->n) return st;
    if (arr->n > KP_LAYOUT_MAX_ENTRIES)
        return kp__dctx_fail(d, arr, KP_ELIMIT, key, "more than %u entries (kprio's limit)",
                             KP_LAYOUT_MAX_ENTRIES);
    if (!(*out = kp__arena_alloc(&l->sc.arena, arr->n * size))) return kp__sc_nomem(d);
    memset(*out, 0, arr->n * size);
    size_t i = 0;
    for (const kp_tnode *e = arr->first; e && st == KP_OK; e = e->next, i++) {
        size_t sv = kp__dctx_push(d, key);
        kp__dctx_push_index(d, (uint32_t)i);
        st = fn(d, l, e, i);
        kp__dctx_pop(d, sv);
        if (st == KP_OK) *n = i + 1;
    }
    return st;
}

typedef struct {
    layout *l;
    bool seen;
} lctx;

static kp_status on_doc(void *ctx, const kp_tnode *root, const kp_tdoc *doc, kp_error *err) {
    lctx *x = ctx;
    layout *l = x->l;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    kp_status st;
    if (x->seen) return kp__dctx_fail(&d, root, KP_EINVAL, NULL, "more than one document");
    x->seen = true;
    if ((st = kp__d_dup_keys(&d, (kp_tnode *)root, true, NULL, NULL)) != KP_OK) return st;
    static const char *const keys[] = {"apiVersion",      "kind",        "metadata",
                                       "priorityClasses", "assignments", NULL};
    static const char *const meta_keys[] = {"name", NULL};
    const char *av = NULL, *kind = NULL;
    bool has_av = false, has_kind = false;
    const kp_tnode *meta = NULL;
    if ((st = kp__dget_str(&d, root, "apiVersion", &av, &has_av)) != KP_OK ||
        (st = kp__dget_str(&d, root, "kind", &kind, &has_kind)) != KP_OK)
        return st;
    if (!has_kind || strcmp(kind, "PriorityLayout") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "kind", "expected PriorityLayout%s%s%s",
                             has_kind ? ", got \"" : "", has_kind ? kind : "",
                             has_kind ? "\"" : "");
    if (!has_av || strcmp(av, "kprio/v1alpha1") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "apiVersion", "expected kprio/v1alpha1%s%s%s",
                             has_av ? ", got \"" : "", has_av ? av : "", has_av ? "\"" : "");
    if ((st = kp__sc_only_keys(&d, root, keys)) != KP_OK ||
        (st = kp__dget_obj(&d, root, "metadata", &meta)) != KP_OK)
        return st;
    if (meta) {
        size_t sv = kp__dctx_push(&d, "metadata");
        st = kp__sc_only_keys(&d, meta, meta_keys);
        kp__dctx_pop(&d, sv);
        if (st != KP_OK) return st;
    }
    kp_priority_layout *p = &l->pub;
    st = decode_list(&d, l, root, "priorityClasses", sizeof *p->classes, (void **)&p->classes,
                     &p->n_classes, decode_class);
    if (st == KP_OK)
        st = decode_list(&d, l, root, "assignments", sizeof *p->assignments,
                         (void **)&p->assignments, &p->n_assignments, decode_assignment);
    return st;
}

/* ---------------------------------------------------------------- public */

void kp_priority_layout_free(kp_priority_layout *pl) {
    if (!pl) return;
    layout *l = (layout *)pl;
    kp__arena_fini(&l->sc.arena);
    kp__free(l);
}

/* buf carries KP_JSON_PADDING readable bytes after len */
static kp_status load_padded(const char *source, const char *buf, size_t len,
                             kp_priority_layout **out, kp_error *err) {
    layout *l = kp__calloc(1, sizeof *l);
    if (!l) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__arena_init(&l->sc.arena);
    lctx x = {l, false};
    kp_status st = KP_OK;
    if (!(l->pub.source = kp__sc_sdup(&l->sc, source, strlen(source))))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) st = kp__tree_parse(source, buf, len, false, on_doc, &x, err);
    if (st == KP_OK && !x.seen) st = kp_error_set(err, KP_EINVAL, "empty document");
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        kp_priority_layout_free(&l->pub);
        return st;
    }
    *out = &l->pub;
    return KP_OK;
}

kp_status kp_priority_layout_load_buffer(const char *source, const char *buf, size_t len,
                                         kp_priority_layout **out, kp_error *err) {
    *out = NULL;
    if (!source) source = "";
    if (len > KP_LAYOUT_MAX_FILE_BYTES) {
        kp_status st = kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                                    KP_LAYOUT_MAX_FILE_BYTES);
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        return st;
    }
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (len) memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = load_padded(source, copy, len, out, err);
    kp__free(copy);
    return st;
}

kp_status kp_priority_layout_load_path(const char *path, kp_priority_layout **out, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, KP_LAYOUT_MAX_FILE_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    st = load_padded(path, buf, len, out, err);
    kp__free(buf);
    return st;
}

size_t kp_priority_layout_class_count(const kp_priority_layout *l) { return l ? l->n_classes : 0; }

const char *kp_priority_layout_class_name(const kp_priority_layout *l, size_t i) {
    return l && i < l->n_classes ? l->classes[i].name : "";
}

int32_t kp_priority_layout_class_value(const kp_priority_layout *l, size_t i) {
    return l && i < l->n_classes ? l->classes[i].value : 0;
}

size_t kp_priority_layout_assignment_count(const kp_priority_layout *l) {
    return l ? l->n_assignments : 0;
}
