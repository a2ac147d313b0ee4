/* The `drain` action of a Scenario (docs/scenario.md): `node` or `nodeSelector` (a label
 * selector string, as `kubectl drain --selector`), and kubectl drain's options: `concurrency`,
 * `podSelector`, `gracePeriod`, `ignoreDaemonSets`, `deleteEmptyDirData`, `force` (kubectl's
 * defaults: 1 node at a time, every pod, -1, false, false, false). */
#include <string.h>

#include "base/arena.h"
#include "io/decode_common.h"
#include "io/decode_pod_gates.h"
#include "io/decode_scenario.h"

/* one token of a selector string: a key, a value or an operator (labels.Lexer, simplified) */
typedef struct {
    const char *p; /* next character */
    char buf[320];
    const char *why; /* the first error */
} lex;

static void skip_ws(lex *x) {
    while (*x->p == ' ' || *x->p == '\t') x->p++;
}

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '/';
}

/* an identifier (key or value) into x->buf; false when none */
static bool ident(lex *x) {
    skip_ws(x);
    size_t n = 0;
    while (ident_char(*x->p) && n + 1 < sizeof x->buf) x->buf[n++] = *x->p++;
    x->buf[n] = 0;
    return n > 0;
}

static bool word(lex *x, const char *w) {
    skip_ws(x);
    size_t n = strlen(w);
    if (strncmp(x->p, w, n) != 0 || ident_char(x->p[n])) return false;
    x->p += n;
    return true;
}

static bool punct(lex *x, const char *w) {
    skip_ws(x);
    size_t n = strlen(w);
    if (strncmp(x->p, w, n) != 0) return false;
    x->p += n;
    return true;
}

/* one requirement (labels.Parser.parseRequirement) into r; values in the scenario's arena */
static bool requirement(lex *x, scen *s, kp_selector_req *r) {
    bool not = punct(x, "!");
    if (!ident(x)) return (x->why = "expected a key"), false;
    const char *bad = kp__qualified_name_error(x->buf, strlen(x->buf));
    if (bad) return (x->why = bad), false;
    r->key = kp__sc_sdup(s, x->buf, strlen(x->buf));
    if (!r->key) return (x->why = "out of memory"), false;
    if (not ) {
        return (r->op = kp__sc_sdup(s, "DoesNotExist", 12)) != NULL;
    }
    skip_ws(x);
    bool set = false;
    const char *op = "Exists";
    if (punct(x, "==") || punct(x, "=")) op = "In";
    else if (punct(x, "!=")) op = "NotIn";
    else if (word(x, "in")) op = "In", set = true;
    else if (word(x, "notin")) op = "NotIn", set = true;
    if (!(r->op = kp__sc_sdup(s, op, strlen(op)))) return (x->why = "out of memory"), false;
    if (strcmp(op, "Exists") == 0) return true;
    char *vals[64];
    size_t n = 0;
    if (set && !punct(x, "(")) return (x->why = "expected '(' after in / notin"), false;
    do {
        if (!ident(x)) x->buf[0] = 0; /* an empty value is a value */
        bad = kp__sc_label_value_error(x->buf, strlen(x->buf));
        if (bad) return (x->why = bad), false;
        if (n == sizeof vals / sizeof vals[0]) return (x->why = "more than 64 values"), false;
        if (!(vals[n++] = kp__sc_sdup(s, x->buf, strlen(x->buf))))
            return (x->why = "out of memory"), false;
    } while (set && punct(x, ","));
    if (set && !punct(x, ")")) return (x->why = "expected ')'"), false;
    r->values = kp__arena_alloc(&s->arena, n * sizeof *r->values);
    if (!r->values) return (x->why = "out of memory"), false;
    memcpy(r->values, vals, n * sizeof *vals);
    r->n_values = n;
    return true;
}

/* labels.Parse: requirements separated by commas; "" selects everything */
static kp_status selector_string(kp_dctx *d, scen *s, const kp_tnode *body, const char *key,
                                 kp_selector_req **out, size_t *n_out, bool *present) {
    char *text = NULL;
    kp_status st = kp__sc_opt_str(d, s, body, key, &text);
    if (st != KP_OK) return st;
    if (present) *present = kp__tree_get(body, key) != NULL;
    size_t cap = 1;
    for (const char *c = text; *c; c++) cap += *c == ',';
    kp_selector_req *v = kp__arena_alloc(&s->arena, cap * sizeof *v);
    if (!v) return kp__sc_nomem(d);
    lex x = {text, {0}, NULL};
    size_t n = 0;
    skip_ws(&x);
    while (*x.p && !x.why) {
        memset(&v[n], 0, sizeof v[n]);
        if (!requirement(&x, s, &v[n])) break;
        n++;
        skip_ws(&x);
        if (*x.p && !punct(&x, ",")) x.why = "expected ',' between requirements";
    }
    if (x.why)
        return kp__dctx_fail(d, kp__tree_get(body, key), KP_EINVAL, key,
                             "invalid label selector \"%s\": %s", text, x.why);
    *out = v;
    *n_out = n;
    return KP_OK;
}

kp_status kp__sc_decode_drain(kp_dctx *d, scen *s, const kp_tnode *body, kp_scenario_action *a) {
    static const char *const keys[] = {
        "node",        "nodeSelector",     "concurrency",        "podSelector",
        "gracePeriod", "ignoreDaemonSets", "deleteEmptyDirData", "force",
        NULL};
    kp_scenario_drain *o = &a->drain;
    kp_status st = kp__sc_only_keys(d, body, keys);
    if (st != KP_OK) return st;
    a->ref.kind = kp__sc_sdup(s, "Node", 4);
    a->ref.ns = kp__sc_sdup(s, "", 0);
    if (!a->ref.kind || !a->ref.ns) return kp__sc_nomem(d);
    bool has_node = kp__tree_get(body, "node") != NULL;
    if ((st = selector_string(d, s, body, "nodeSelector", &o->node_reqs, &o->n_node_reqs,
                              &o->has_node_selector)) != KP_OK)
        return st;
    if (has_node == o->has_node_selector)
        return kp__dctx_fail(d, body, KP_EINVAL, NULL,
                             "exactly one of node and nodeSelector is required");
    if (has_node && (st = kp__sc_req_str(d, s, body, "node", &a->ref.name)) != KP_OK) return st;
    if ((st = selector_string(d, s, body, "podSelector", &o->pod_reqs, &o->n_pod_reqs, NULL)) !=
        KP_OK)
        return st;
    int64_t v = 1;
    bool has = false;
    if ((st = kp__dget_int(d, body, "concurrency", 1, 100000, &v, &has)) != KP_OK) return st;
    o->concurrency = has ? (int32_t)v : 1;
    v = -1;
    if ((st = kp__dget_int(d, body, "gracePeriod", -1, INT32_MAX, &v, &has)) != KP_OK) return st;
    o->grace_period = has ? v : -1;
    if ((st = kp__dget_bool(d, body, "ignoreDaemonSets", &o->ignore_daemonsets, NULL)) != KP_OK ||
        (st = kp__dget_bool(d, body, "deleteEmptyDirData", &o->delete_emptydir_data, NULL)) !=
            KP_OK ||
        (st = kp__dget_bool(d, body, "force", &o->force, NULL)) != KP_OK)
        return st;
    return KP_OK;
}
