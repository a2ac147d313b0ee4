/* Label selector strings (include/kprio/selector.h): one parser for a scenario's `nodeSelector`
 * and `podSelector` (decode_scenario_drain.c) and the tool's -l / --selector. Mirrors
 * apimachinery labels.Parse (labels.Lexer and labels.Parser.parseRequirement, simplified: the
 * same operators and checks, without the Gt / Lt of node selectors). */
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "io/decode_pod_gates.h"
#include "io/decode_scenario.h"
#include "kprio/selector.h"

/* one token of a selector string: a key, a value or an operator */
typedef struct {
    const char *p; /* next character */
    char buf[320];
    const char *why; /* the first error */
    kp_arena *arena; /* where requirements and their strings go */
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

static char *sdup(lex *x, const char *p) {
    size_t n = strlen(p);
    char *c = kp__arena_alloc(x->arena, n + 1);
    if (c && n) memcpy(c, p, n);
    return c;
}

static const char OOM[] = "out of memory";

/* one requirement (labels.Parser.parseRequirement) into r */
static bool requirement(lex *x, kp_selector_req *r) {
    bool not = punct(x, "!");
    if (!ident(x)) return (x->why = "expected a key"), false;
    const char *bad = kp__qualified_name_error(x->buf, strlen(x->buf));
    if (bad) return (x->why = bad), false;
    if (!(r->key = sdup(x, x->buf))) return (x->why = OOM), false;
    if (not ) return (r->op = sdup(x, "DoesNotExist")) != NULL || ((x->why = OOM), false);
    skip_ws(x);
    bool set = false;
    const char *op = "Exists";
    if (punct(x, "==") || punct(x, "=")) op = "In";
    else if (punct(x, "!=")) op = "NotIn";
    else if (word(x, "in")) op = "In", set = true;
    else if (word(x, "notin")) op = "NotIn", set = true;
    if (!(r->op = sdup(x, op))) return (x->why = OOM), false;
    if (strcmp(op, "Exists") == 0) return true;
    char *vals[64];
    size_t n = 0;
    if (set && !punct(x, "(")) return (x->why = "expected '(' after in / notin"), false;
    do {
        if (!ident(x)) x->buf[0] = 0; /* an empty value is a value */
        bad = kp__sc_label_value_error(x->buf, strlen(x->buf));
        if (bad) return (x->why = bad), false;
        if (n == sizeof vals / sizeof vals[0]) return (x->why = "more than 64 values"), false;
        if (!(vals[n++] = sdup(x, x->buf))) return (x->why = OOM), false;
    } while (set && punct(x, ","));
    if (set && !punct(x, ")")) return (x->why = "expected ')'"), false;
    r->values = kp__arena_alloc(x->arena, n * sizeof *r->values);
    if (!r->values) return (x->why = OOM), false;
    memcpy(r->values, vals, n * sizeof *vals);
    r->n_values = n;
    return true;
}

const char *kp__selector_string_parse(const char *text, kp_arena *arena, kp_selector_req **out,
                                      size_t *n_out) {
    size_t cap = 1;
    for (const char *c = text; *c; c++) cap += *c == ',';
    kp_selector_req *v = kp__arena_alloc(arena, cap * sizeof *v);
    if (!v) return OOM;
    lex x = {text, {0}, NULL, arena};
    size_t n = 0;
    skip_ws(&x);
    while (*x.p && !x.why) {
        memset(&v[n], 0, sizeof v[n]);
        if (!requirement(&x, &v[n])) break;
        n++;
        skip_ws(&x);
        if (*x.p && !punct(&x, ",")) x.why = "expected ',' between requirements";
    }
    if (x.why) return x.why;
    *out = v;
    *n_out = n;
    return NULL;
}

bool kp__selector_string_oom(const char *why) { return why == OOM; }

/* ---------------------------------------------------------------- public */

struct kp_selector {
    kp_arena arena;
    kp_selector_req *reqs;
    size_t n;
};

kp_status kp_selector_parse(const char *text, kp_selector **out, kp_error *err) {
    *out = NULL;
    kp_selector *s = kp__malloc(sizeof *s);
    if (!s) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp__arena_init(&s->arena);
    s->reqs = NULL;
    s->n = 0;
    const char *why = kp__selector_string_parse(text, &s->arena, &s->reqs, &s->n);
    if (why) {
        kp_selector_free(s);
        if (why == OOM) return kp_error_set(err, KP_ENOMEM, "out of memory");
        return kp_error_set(err, KP_EINVAL, "invalid label selector \"%s\": %s", text, why);
    }
    *out = s;
    return KP_OK;
}

const kp_selector_req *kp_selector_reqs(const kp_selector *s, size_t *n) {
    *n = s ? s->n : 0;
    return s ? s->reqs : NULL;
}

bool kp_selector_matches_pod(const kp_selector *s, const kp_cluster *cl, kp_index pod) {
    return !s || kp_cluster_pod_matches(cl, pod, s->reqs, s->n);
}

void kp_selector_free(kp_selector *s) {
    if (!s) return;
    kp__arena_fini(&s->arena);
    kp__free(s);
}
