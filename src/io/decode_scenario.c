/* Scenario files of `kprio simulate` (include/kprio/scenario.h; the format is docs/scenario.md):
 * apiVersion kprio/v1alpha1, kind Scenario, YAML or JSON, decoded strictly (unknown fields and
 * duplicate keys are errors) with a field path in every error. The objects of a `create` action
 * are checked now by loading them into a scratch cluster, so a bad object fails the scenario's
 * load; an inline object is kept as text (kp_scenario_object.text) that kp_cluster_load_buffer
 * reads: its decoded tree written back out (JSON when the scenario is JSON; YAML flow style,
 * which keeps YAML's plain scalars as they were written, when it is YAML). A `file:` is read
 * now, relative to the scenario's directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/gosyntax.h"
#include "core/cluster.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_pod_gates.h"
#include "io/decode_scenario.h"
#include "io/events.h"
#include "io/input.h"
#include "io/tree.h"
#include "io/tree_text.h"
#include "kprio/scenario.h"

/* Named limits (errors say which): entries of actions[] and lifetimes[], objects of all the
 * create actions together, bytes of the scenario and of each create file. */
#define KP_SCENARIO_MAX_ACTIONS 1000000u
#define KP_SCENARIO_MAX_LIFETIMES 1000000u
#define KP_SCENARIO_MAX_OBJECTS 1000000u
#define KP_SCENARIO_MAX_FILE_BYTES ((size_t)1 << 30)


typedef struct {
    scen *s;
    const char *source, *base_dir;
    kp_cluster *scratch; /* where create objects are checked */
    kp_tbuf text; /* an inline object being written */
    bool seen, yaml;
    size_t n_objects;
} sctx;


/* ---------------------------------------------------------------- create */

/* Loads text into the scratch cluster: a bad object fails the scenario now, as "LABEL: the
 * loader's message" (LABEL "actions[3].create.objects[0]" or "actions[3].create.file: PATH"). */
static kp_status check_object(sctx *x, kp_dctx *d, const kp_tnode *at, const char *label,
                              const char *src, const char *text, size_t len) {
    kp_error e;
    kp_error_clear(&e);
    uint32_t skipped = x->scratch->n_skipped_kinds;
    size_t kinds_at = x->scratch->skipped_len;
    kp_status st = kp_cluster_load_buffer(x->scratch, src, text, len, &e);
    if (st == KP_OK && x->scratch->n_skipped_kinds != skipped) {
        /* a kind kprio does not load (`Pood`): -f skips it with a warning, a scenario's create
         * would add nothing and say nothing, so it is refused here (a typo, most likely) */
        const char *kinds = x->scratch->skipped_kinds ? x->scratch->skipped_kinds : "";
        if (kinds_at && kinds[kinds_at] == ',') kinds_at += 2;
        st = kp_error_set(&e, KP_EINVAL,
                          "kind: unsupported kind%s%s%s: kprio does not load it (-f skips it with "
                          "a warning; the kinds: docs/schedule.md)",
                          kinds[kinds_at] ? " \"" : "", kinds + kinds_at,
                          kinds[kinds_at] ? "\"" : "");
    }
    if (st == KP_OK) return KP_OK;
    if (st == KP_ENOMEM) return kp__sc_nomem(d);
    kp_error_set(d->err, st, "%s: %s", label, e.msg);
    if (d->err && at && d->doc)
        kp__offset_to_linecol(d->doc->buf, d->doc->len, at->off, &d->err->line, &d->err->column);
    return st;
}

static kp_status add_object(sctx *x, kp_dctx *d, kp_scenario_object *o, const char *src,
                            const char *text, size_t len) {
    o->source = kp__sc_sdup(x->s, src, strlen(src));
    o->text = kp__sc_sdup(x->s, text, len);
    o->len = len;
    return o->source && o->text ? KP_OK : kp__sc_nomem(d);
}

static kp_status create_inline(sctx *x, kp_dctx *d, const kp_tnode *objs, uint32_t ai,
                               kp_scenario_action *a) {
    if (objs->type != KP_T_ARR) return kp__dctx_fail(d, objs, KP_EINVAL, NULL, "expected an array");
    if (objs->n == 0) return kp__dctx_fail(d, objs, KP_EINVAL, NULL, "at least one object");
    if (objs->n > KP_SCENARIO_MAX_OBJECTS - x->n_objects)
        return kp__dctx_fail(d, objs, KP_ELIMIT, NULL,
                             "more than %u objects in the scenario (kprio's limit)",
                             KP_SCENARIO_MAX_OBJECTS);
    x->n_objects += objs->n;
    a->objects = kp__arena_alloc(&x->s->arena, objs->n * sizeof *a->objects);
    if (!a->objects) return kp__sc_nomem(d);
    uint32_t i = 0;
    for (const kp_tnode *o = objs->first; o; o = o->next, i++) {
        size_t sv = kp__dctx_push_index(d, i);
        if (o->type != KP_T_OBJ) return kp__dctx_fail(d, o, KP_EINVAL, NULL, "expected an object");
        x->text.n = 0;
        if (x->yaml) kp__tbuf_put(&x->text, "--- ", 4); /* read as YAML, plain scalars and all */
        kp__tree_text(&x->text, o);
        kp__tbuf_put(&x->text, "\n", 1);
        if (x->text.oom) return kp__sc_nomem(d);
        char label[64], src[600];
        snprintf(label, sizeof label, "actions[%u].create.objects[%u]", ai, i);
        snprintf(src, sizeof src, "%s: %s", x->source, label);
        kp_status st = check_object(x, d, o, label, src, x->text.p, x->text.n);
        kp__dctx_pop(d, sv);
        if (st != KP_OK) return st;
        if ((st = add_object(x, d, &a->objects[i], src, x->text.p, x->text.n)) != KP_OK) return st;
    }
    a->n_objects = i;
    return KP_OK;
}

static kp_status create_file(sctx *x, kp_dctx *d, const kp_tnode *body, uint32_t ai,
                             kp_scenario_action *a) {
    const char *f = NULL;
    bool has = false;
    kp_status st = kp__dget_str(d, body, "file", &f, &has);
    if (st != KP_OK) return st;
    if (!has || !f[0]) return kp__dctx_fail(d, body, KP_EINVAL, "file", "required value");
    const kp_tnode *fn = kp__tree_get(body, "file");
    char *path = kp__sc_path(x->base_dir, f);
    if (!path) return kp__sc_nomem(d);
    char *buf = NULL;
    size_t len = 0;
    kp_error e;
    kp_error_clear(&e);
    /* a regular file only: "-" is a file of that name, and a FIFO or device is never waited on */
    struct stat sb;
    if (stat(path, &sb) != 0) st = kp_error_set(&e, KP_EIO, "cannot open: %s", strerror(errno));
    else if (!S_ISREG(sb.st_mode)) st = kp_error_set(&e, KP_EIO, "not a regular file");
    else
        st = kp__read_file(strcmp(path, "-") ? path : "./-", KP_SCENARIO_MAX_FILE_BYTES, &buf, &len,
                           &e);
    if (st == KP_ENOMEM) st = kp__sc_nomem(d);
    else if (st != KP_OK) st = kp__dctx_fail(d, fn, st, "file", "%s: %s", path, e.msg);
    if (st == KP_OK && x->n_objects >= KP_SCENARIO_MAX_OBJECTS)
        st = kp__dctx_fail(d, fn, KP_ELIMIT, "file",
                           "more than %u objects in the scenario (kprio's limit)",
                           KP_SCENARIO_MAX_OBJECTS);
    if (st == KP_OK) {
        char label[600];
        snprintf(label, sizeof label, "actions[%u].create.file: %s", ai, path);
        st = check_object(x, d, fn, label, path, buf, len);
    }
    if (st == KP_OK) st = kp__sc_name_file(d, x->s, "file", f);
    if (st == KP_OK) {
        x->n_objects++;
        a->objects = kp__arena_alloc(&x->s->arena, sizeof *a->objects);
        st = a->objects ? add_object(x, d, a->objects, path, buf, len) : kp__sc_nomem(d);
        a->n_objects = 1;
    }
    kp__free(buf);
    kp__free(path);
    return st;
}

static kp_status decode_create(sctx *x, kp_dctx *d, const kp_tnode *body, uint32_t ai,
                               kp_scenario_action *a) {
    static const char *const keys[] = {"objects", "file", NULL};
    kp_status st = kp__sc_only_keys(d, body, keys);
    if (st != KP_OK) return st;
    const kp_tnode *objs = kp__tree_get(body, "objects"), *file = kp__tree_get(body, "file");
    if (objs && objs->type == KP_T_NULL) objs = NULL;
    if (file && file->type == KP_T_NULL) file = NULL;
    if (!objs == !file)
        return kp__dctx_fail(d, body, KP_EINVAL, NULL,
                             "exactly one of objects and file is "
                             "required");
    if (file) return create_file(x, d, body, ai, a);
    size_t sv = kp__dctx_push(d, "objects");
    st = create_inline(x, d, objs, ai, a);
    kp__dctx_pop(d, sv);
    return st;
}

/* ---------------------------------------------------------------- the other actions */

typedef struct {
    const char *kind;
    bool namespaced, scalable;
} kind_info;

/* The kinds an action may name: what the simulator deletes, and the scale subresource's. */
static const kind_info KINDS[] = {
    {"Pod", true, false},
    {"Node", false, false},
    {"PriorityClass", false, false},
    {"PodDisruptionBudget", true, false},
    {"ReplicaSet", true, true},
    {"ReplicationController", true, true},
    {"StatefulSet", true, true},
    {"Deployment", true, true},
    {"DaemonSet", true, false},
    {"Job", true, false},
    {"CronJob", true, false},
    {"Service", true, false},
};

/* {kind, namespace, name}: namespace "default" when a namespaced kind omits it, "" for a
 * cluster-scoped kind (which may not have one). */
static kp_status decode_ref(kp_dctx *d, scen *s, const kp_tnode *body, bool scale,
                            kp_object_ref *ref) {
    kp_status st = kp__sc_req_str(d, s, body, "kind", &ref->kind);
    if (st != KP_OK) return st;
    const kind_info *k = NULL;
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0] && !k; i++)
        if (strcmp(KINDS[i].kind, ref->kind) == 0 && (!scale || KINDS[i].scalable)) k = &KINDS[i];
    if (!k)
        return kp__dctx_fail(d, kp__tree_get(body, "kind"), KP_EINVAL, "kind",
                             scale ? "unsupported value \"%s\": supported values: ReplicaSet, "
                                     "ReplicationController, StatefulSet, Deployment"
                                   : "unsupported value \"%s\": supported values: Pod, Node, "
                                     "PriorityClass, PodDisruptionBudget, ReplicaSet, "
                                     "ReplicationController, StatefulSet, Deployment, DaemonSet, "
                                     "Job, CronJob, Service",
                             ref->kind);
    if ((st = kp__sc_req_str(d, s, body, "name", &ref->name)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, body, "namespace", &ref->ns)) != KP_OK)
        return st;
    if (!k->namespaced && ref->ns[0])
        return kp__dctx_fail(d, kp__tree_get(body, "namespace"), KP_EINVAL, "namespace",
                             "must be empty: %s is cluster-scoped", ref->kind);
    if (k->namespaced && !ref->ns[0]) ref->ns = kp__sc_sdup(s, "default", 7);
    return ref->ns ? KP_OK : kp__sc_nomem(d);
}

static kp_status node_ref(kp_dctx *d, scen *s, const kp_tnode *body, kp_object_ref *ref) {
    ref->kind = kp__sc_sdup(s, "Node", 4);
    ref->ns = kp__sc_sdup(s, "", 0);
    if (!ref->kind || !ref->ns) return kp__sc_nomem(d);
    return kp__sc_req_str(d, s, body, "node", &ref->name);
}

static kp_status effect(kp_dctx *d, scen *s, const kp_tnode *body, bool required, char **out) {
    kp_status st = kp__sc_opt_str(d, s, body, "effect", out);
    if (st != KP_OK) return st;
    if (!(*out)[0] && !required) return KP_OK;
    if (!(*out)[0]) return kp__dctx_fail(d, body, KP_EINVAL, "effect", "required value");
    if (strcmp(*out, "NoSchedule") && strcmp(*out, "PreferNoSchedule") && strcmp(*out, "NoExecute"))
        return kp__dctx_fail(d, kp__tree_get(body, "effect"), KP_EINVAL, "effect",
                             "unsupported value \"%s\": supported values: \"NoSchedule\", "
                             "\"PreferNoSchedule\", \"NoExecute\"",
                             *out);
    return KP_OK;
}

#define HIGHEST_USER_PRIORITY 1000000000

static kp_status decode_body(sctx *x, kp_dctx *d, const kp_tnode *body, uint32_t ai,
                             kp_scenario_action *a) {
    static const char *const k_ref[] = {"kind", "namespace", "name", NULL};
    static const char *const k_scale[] = {"kind", "namespace", "name", "replicas", NULL};
    static const char *const k_node[] = {"node", NULL};
    static const char *const k_taint[] = {"node", "key", "value", "effect", NULL};
    static const char *const k_untaint[] = {"node", "key", "effect", NULL};
    static const char *const k_pc[] = {"name", "value", NULL};
    scen *s = x->s;
    int64_t v = 0;
    bool has = false;
    kp_status st;
    switch (a->type) {
    case KP_ACT_CREATE: return decode_create(x, d, body, ai, a);
    case KP_ACT_PATCH: return kp__sc_decode_patch(d, s, body, x->yaml, &x->text, a);
    case KP_ACT_DELETE:
        if ((st = kp__sc_only_keys(d, body, k_ref)) != KP_OK) return st;
        return decode_ref(d, s, body, false, &a->ref);
    case KP_ACT_SCALE:
        if ((st = kp__sc_only_keys(d, body, k_scale)) != KP_OK ||
            (st = decode_ref(d, s, body, true, &a->ref)) != KP_OK ||
            (st = kp__dget_int(d, body, "replicas", 0, INT32_MAX, &v, &has)) != KP_OK)
            return st;
        if (!has) return kp__dctx_fail(d, body, KP_EINVAL, "replicas", "required value");
        a->replicas = (int32_t)v;
        return KP_OK;
    case KP_ACT_DRAIN: return kp__sc_decode_drain(d, s, body, a);
    case KP_ACT_CORDON:
    case KP_ACT_UNCORDON:
    case KP_ACT_FAIL:
    case KP_ACT_RECOVER:
        if ((st = kp__sc_only_keys(d, body, k_node)) != KP_OK) return st;
        return node_ref(d, s, body, &a->ref);
    case KP_ACT_TAINT:
    case KP_ACT_UNTAINT: {
        bool taint = a->type == KP_ACT_TAINT;
        if ((st = kp__sc_only_keys(d, body, taint ? k_taint : k_untaint)) != KP_OK ||
            (st = node_ref(d, s, body, &a->ref)) != KP_OK ||
            (st = kp__sc_req_str(d, s, body, "key", &a->taint.key)) != KP_OK)
            return st;
        const char *bad = kp__qualified_name_error(a->taint.key, strlen(a->taint.key));
        if (bad)
            return kp__dctx_fail(d, kp__tree_get(body, "key"), KP_EINVAL, "key",
                                 "Invalid value: \"%s\": %s", a->taint.key, bad);
        if ((st = kp__sc_opt_str(d, s, body, "value", &a->taint.value)) != KP_OK) return st;
        return effect(d, s, body, taint, &a->taint.effect);
    }
    case KP_ACT_SET_PRIORITY_CLASS:
        if ((st = kp__sc_only_keys(d, body, k_pc)) != KP_OK ||
            (st = kp__sc_req_str(d, s, body, "name", &a->ref.name)) != KP_OK ||
            (st = kp__dget_int(d, body, "value", INT32_MIN, INT32_MAX, &v, &has)) != KP_OK)
            return st;
        if (!has) return kp__dctx_fail(d, body, KP_EINVAL, "value", "required value");
        /* ValidatePriorityClass: user-defined classes stay at or below HighestUserDefinable */
        if (v > HIGHEST_USER_PRIORITY)
            return kp__dctx_fail(d, kp__tree_get(body, "value"), KP_EINVAL, "value",
                                 "Forbidden: maximum allowed value of a user defined priority is "
                                 "%d",
                                 HIGHEST_USER_PRIORITY);
        a->value = (int32_t)v;
        a->ref.kind = kp__sc_sdup(s, "PriorityClass", 13);
        a->ref.ns = kp__sc_sdup(s, "", 0);
        return a->ref.kind && a->ref.ns ? KP_OK : kp__sc_nomem(d);
    }
    return KP_OK;
}

static const char *const ACTIONS[] = {"create", "delete",  "scale", "cordon",           "uncordon",
                                      "taint",  "untaint", "drain", "setPriorityClass", "patch",
                                      "fail",   "recover", NULL};

static kp_status decode_action(sctx *x, kp_dctx *d, const kp_tnode *n, uint32_t ai,
                               kp_scenario_action *a) {
    static const char *const keys[] = {"at",       "create", "delete",  "scale", "cordon",
                                       "uncordon", "taint",  "untaint", "drain", "setPriorityClass",
                                       "patch",    "fail",   "recover", NULL};
    snprintf(d->object, sizeof d->object, "actions[%u]", ai);
    kp_status st;
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_duration_ms(d, n, "at", true, &a->at_ms, NULL)) != KP_OK)
        return st;
    const kp_tnode *body = NULL;
    int which = -1;
    for (int i = 0; ACTIONS[i]; i++) {
        const kp_tnode *b = kp__tree_get(n, ACTIONS[i]);
        if (!b) continue;
        if (body)
            return kp__dctx_fail(d, b, KP_EINVAL, ACTIONS[i],
                                 "only one action per entry (%s is there too)", ACTIONS[which]);
        body = b;
        which = i;
    }
    if (!body)
        return kp__dctx_fail(d, n, KP_EINVAL, NULL,
                             "one action is required: create, delete, scale, cordon, uncordon, "
                             "taint, untaint, drain, setPriorityClass, patch, fail or recover");
    a->type = (kp_action_type)which;
    /* every string of the action is set, "" when it does not apply */
    char *empty = kp__sc_sdup(x->s, "", 0);
    if (!empty) return kp__sc_nomem(d);
    a->ref.kind = a->ref.ns = a->ref.name = empty;
    a->taint.key = a->taint.value = a->taint.effect = empty;
    a->subresource = a->patch = empty;
    size_t sv = kp__dctx_push(d, ACTIONS[which]);
    st = kp__sc_need_obj(d, body, NULL);
    if (st == KP_OK) st = decode_body(x, d, body, ai, a);
    kp__dctx_pop(d, sv);
    return st;
}

/* An entry of lifetimes[] or readiness[] (`list`): the same shape, selector, namespace, after. */
static kp_status decode_lifetime(kp_dctx *d, scen *s, const kp_tnode *n, const char *list,
                                 uint32_t i, kp_scenario_lifetime *l) {
    static const char *const keys[] = {"selector", "namespace", "after", NULL};
    snprintf(d->object, sizeof d->object, "%s[%u]", list, i);
    kp_status st;
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_opt_str(d, s, n, "namespace", &l->ns)) != KP_OK ||
        (st = kp__sc_duration_ms(d, n, "after", true, &l->after_ms, NULL)) != KP_OK)
        return st;
    const kp_tnode *sel = kp__tree_get(n, "selector");
    if (!sel || sel->type == KP_T_NULL)
        return kp__dctx_fail(d, n, KP_EINVAL, "selector", "required value");
    size_t sv = kp__dctx_push(d, "selector");
    st = kp__sc_decode_selector(d, s, sel, &l->reqs, &l->n_reqs);
    kp__dctx_pop(d, sv);
    return st;
}

static kp_status decode_lifetimes(kp_dctx *d, scen *s, const kp_tnode *a, const char *list,
                                  kp_scenario_lifetime **out, size_t *n) {
    if (!a || !a->n) return KP_OK;
    *out = kp__arena_alloc(&s->arena, a->n * sizeof **out);
    if (!*out) return kp__sc_nomem(d);
    uint32_t i = 0;
    kp_status st = KP_OK;
    for (const kp_tnode *l = a->first; l && st == KP_OK; l = l->next, i++)
        if ((st = decode_lifetime(d, s, l, list, i, &(*out)[i])) == KP_OK) ++*n;
    return st;
}

/* ---------------------------------------------------------------- the document */

static kp_status decode_list(kp_dctx *d, const kp_tnode *root, const char *key, uint32_t limit,
                             const kp_tnode **out) {
    kp_status st = kp__dget_arr(d, root, key, out);
    if (st != KP_OK || !*out) return st;
    if ((*out)->n > limit)
        return kp__dctx_fail(d, *out, KP_ELIMIT, key, "more than %u entries (kprio's limit)",
                             limit);
    return KP_OK;
}

static kp_status decode_seed(kp_dctx *d, const kp_tnode *root, kp_scenario *sc) {
    const kp_tnode *n = kp__tree_get(root, "seed");
    if (!n || n->type == KP_T_NULL) return KP_OK;
    bool digits = n->type == KP_T_NUM && n->len > 0 && n->len <= 20;
    for (uint32_t i = 0; digits && i < n->len; i++) digits = n->s[i] >= '0' && n->s[i] <= '9';
    uint64_t v = 0;
    for (uint32_t i = 0; digits && i < n->len; i++) {
        unsigned dg = (unsigned)(n->s[i] - '0');
        if (v > (UINT64_MAX - dg) / 10) digits = false;
        else v = v * 10 + dg;
    }
    if (!digits)
        return kp__dctx_fail(d, n, KP_EINVAL, "seed",
                             "expected an integer from 0 to 18446744073709551615");
    sc->seed = v;
    sc->has_seed = true;
    return KP_OK;
}

static kp_status on_doc(void *ctx, const kp_tnode *root, const kp_tdoc *doc, kp_error *err) {
    sctx *x = ctx;
    scen *s = x->s;
    kp_scenario *sc = &s->pub;
    kp_dctx d;
    memset(&d, 0, sizeof d);
    d.err = err;
    d.doc = doc;
    kp_status st;
    if (x->seen) return kp__dctx_fail(&d, root, KP_EINVAL, NULL, "more than one document");
    x->seen = true;
    x->yaml = kp__d_doc_is_yaml(doc);
    /* duplicate keys are errors, in JSON too (the YAML rule: no warning sink) */
    if ((st = kp__d_dup_keys(&d, (kp_tnode *)root, true, NULL, NULL)) != KP_OK) return st;
    static const char *const keys[] = {"apiVersion", "kind",      "duration", "seed",     "actions",
                                       "lifetimes",  "readiness", "usage",    "kubelets", NULL};
    const char *av = NULL, *kind = NULL;
    bool has_av = false, has_kind = false;
    if ((st = kp__dget_str(&d, root, "apiVersion", &av, &has_av)) != KP_OK ||
        (st = kp__dget_str(&d, root, "kind", &kind, &has_kind)) != KP_OK)
        return st;
    if (!has_kind || strcmp(kind, "Scenario") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "kind", "expected Scenario%s%s%s",
                             has_kind ? ", got \"" : "", has_kind ? kind : "",
                             has_kind ? "\"" : "");
    if (!has_av || strcmp(av, "kprio/v1alpha1") != 0)
        return kp__dctx_fail(&d, root, KP_EINVAL, "apiVersion", "expected kprio/v1alpha1%s%s%s",
                             has_av ? ", got \"" : "", has_av ? av : "", has_av ? "\"" : "");
    if ((st = kp__sc_only_keys(&d, root, keys)) != KP_OK ||
        (st = kp__sc_duration_ms(&d, root, "duration", false, &sc->duration_ms,
                                 &sc->has_duration)) != KP_OK ||
        (st = decode_seed(&d, root, sc)) != KP_OK)
        return st;
    const kp_tnode *acts = NULL, *lts = NULL, *rdy = NULL, *use = NULL, *kub = NULL;
    if ((st = decode_list(&d, root, "actions", KP_SCENARIO_MAX_ACTIONS, &acts)) != KP_OK ||
        (st = decode_list(&d, root, "lifetimes", KP_SCENARIO_MAX_LIFETIMES, &lts)) != KP_OK ||
        (st = decode_list(&d, root, "readiness", KP_SCENARIO_MAX_LIFETIMES, &rdy)) != KP_OK ||
        (st = decode_list(&d, root, "usage", KP_SCENARIO_MAX_LIFETIMES, &use)) != KP_OK ||
        (st = decode_list(&d, root, "kubelets", KP_SCENARIO_MAX_LIFETIMES, &kub)) != KP_OK)
        return st;
    if (acts && acts->n) {
        sc->actions = kp__arena_alloc(&s->arena, acts->n * sizeof *sc->actions);
        if (!sc->actions) return kp__sc_nomem(&d);
        uint32_t i = 0;
        for (const kp_tnode *a = acts->first; a && st == KP_OK; a = a->next, i++)
            if ((st = decode_action(x, &d, a, i, &sc->actions[i])) == KP_OK) sc->n_actions++;
        if (st != KP_OK) return st;
    }
    if ((st = decode_lifetimes(&d, s, lts, "lifetimes", &sc->lifetimes, &sc->n_lifetimes)) !=
            KP_OK ||
        (st = decode_lifetimes(&d, s, rdy, "readiness", &sc->readiness, &sc->n_readiness)) != KP_OK)
        return st;
    if (use && use->n) {
        sc->usage = kp__arena_alloc(&s->arena, use->n * sizeof *sc->usage);
        if (!sc->usage) return kp__sc_nomem(&d);
        memset(sc->usage, 0, use->n * sizeof *sc->usage);
        uint32_t i = 0;
        for (const kp_tnode *u = use->first; u && st == KP_OK; u = u->next, i++)
            if ((st = kp__sc_decode_usage(&d, s, x->base_dir, u, i, &sc->usage[i])) == KP_OK)
                sc->n_usage++;
    }
    if (st == KP_OK && kub && kub->n) {
        sc->kubelets = kp__arena_alloc(&s->arena, kub->n * sizeof *sc->kubelets);
        if (!sc->kubelets) return kp__sc_nomem(&d);
        uint32_t i = 0;
        for (const kp_tnode *k = kub->first; k && st == KP_OK; k = k->next, i++)
            if ((st = kp__sc_decode_kubelet(&d, s, x->base_dir, k, i, &sc->kubelets[i])) == KP_OK)
                sc->n_kubelets++;
    }
    return st;
}

/* ---------------------------------------------------------------- public */

void kp_scenario_free(kp_scenario *sc) {
    if (!sc) return;
    scen *s = (scen *)sc;
    kp__arena_fini(&s->arena);
    kp__free(sc->files);
    kp__free(s);
}

/* buf carries KP_JSON_PADDING readable bytes after len (the JSON back end reads ahead). */
static kp_status load_padded(const char *source, const char *buf, size_t len, const char *base_dir,
                             kp_scenario **out, kp_error *err) {
    *out = NULL;
    if (!source) source = "";
    scen *s = kp__calloc(1, sizeof *s);
    if (!s) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__arena_init(&s->arena);
    sctx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.source = source;
    x.base_dir = base_dir;
    x.scratch = kp_cluster_new();
    kp_status st = KP_OK;
    if (!x.scratch || !(s->pub.source = kp__sc_sdup(s, source, strlen(source))))
        st = kp_error_set(err, KP_ENOMEM, "out of memory");
    /* workloads' pod templates are decoded (and checked) as the simulator's cluster does */
    if (st == KP_OK) kp_cluster_set_expand(x.scratch, KP_WORKLOAD_TEMPLATES);
    if (len > KP_SCENARIO_MAX_FILE_BYTES && st == KP_OK)
        st = kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                          KP_SCENARIO_MAX_FILE_BYTES);
    if (st == KP_OK) st = kp__tree_parse(source, buf, len, false, on_doc, &x, err);
    if (st == KP_OK && !x.seen) {
        size_t i = 0; /* a JSON array is no document here */
        while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
            i++;
        st = kp_error_set(err, KP_EINVAL,
                          i < len && buf[i] == '[' ? "expected an object" : "empty document");
    }
    kp_cluster_free(x.scratch);
    kp__free(x.text.p);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        kp_scenario_free(&s->pub);
        return st;
    }
    *out = &s->pub;
    return KP_OK;
}

kp_status kp_scenario_load_buffer(const char *source, const char *buf, size_t len,
                                  const char *base_dir, kp_scenario **out, kp_error *err) {
    *out = NULL;
    if (len > KP_SCENARIO_MAX_FILE_BYTES) { /* (before the copy) */
        kp_status st = kp_error_set(err, KP_ELIMIT, "input is larger than the limit of %zu bytes",
                                    KP_SCENARIO_MAX_FILE_BYTES);
        if (err) snprintf(err->source, sizeof err->source, "%s", source ? source : "");
        return st;
    }
    char *copy = kp__malloc(len + KP_JSON_PADDING);
    if (!copy) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (len) memcpy(copy, buf, len);
    memset(copy + len, 0, KP_JSON_PADDING);
    kp_status st = load_padded(source, copy, len, base_dir, out, err);
    kp__free(copy);
    return st;
}

kp_status kp_scenario_load_path(const char *path, kp_scenario **out, kp_error *err) {
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    kp_status st = kp__read_file(path, KP_SCENARIO_MAX_FILE_BYTES, &buf, &len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    /* `file:` entries are relative to the scenario's directory */
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash && strcmp(path, "-") != 0) {
        dir = kp__strndup(path, slash == path ? 1 : (size_t)(slash - path));
        if (!dir) {
            kp__free(buf);
            return kp_error_set(err, KP_ENOMEM, "out of memory");
        }
    }
    st = load_padded(path, buf, len, dir, out, err);
    kp__free(dir);
    kp__free(buf);
    return st;
}
