/* CEL for DRA device selectors: the type checker (mirrors cel-go's checker package as far as the
 * device-selector environment needs it: declarations of compile.go's `device` variable,
 * overload resolution with dyn, homogeneous aggregate literals, comprehension variable scopes).
 * Every node gets its static type; identifiers become the device or a variable slot. A type
 * error is a compile error worded as cel-go words it ("found no matching overload for '_>_'
 * applied to '(string, int)'", "undeclared reference to 'x' (in container '')"). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cel_internal.h"

const cel_type kp__cel_t[TY_KINDS] = {
    [TY_DYN] = {TY_DYN, NULL, NULL},
    [TY_NULL] = {TY_NULL, NULL, NULL},
    [TY_BOOL] = {TY_BOOL, NULL, NULL},
    [TY_INT] = {TY_INT, NULL, NULL},
    [TY_UINT] = {TY_UINT, NULL, NULL},
    [TY_DOUBLE] = {TY_DOUBLE, NULL, NULL},
    [TY_STRING] = {TY_STRING, NULL, NULL},
    [TY_BYTES] = {TY_BYTES, NULL, NULL},
    [TY_LIST] = {TY_LIST, &kp__cel_t[TY_DYN], NULL},
    [TY_MAP] = {TY_MAP, &kp__cel_t[TY_DYN], &kp__cel_t[TY_DYN]},
    [TY_QTY] = {TY_QTY, NULL, NULL},
    [TY_SEMVER] = {TY_SEMVER, NULL, NULL},
    [TY_DEVICE] = {TY_DEVICE, NULL, NULL},
};
#define T(k) (&kp__cel_t[k])

/* compile.go's DRADevice fields: attributes map(string, map(string, dyn)), capacity
 * map(string, map(string, Quantity)). */
static const cel_type ATTR_INNER = {TY_MAP, &kp__cel_t[TY_STRING], &kp__cel_t[TY_DYN]};
static const cel_type ATTR_OUTER = {TY_MAP, &kp__cel_t[TY_STRING], &ATTR_INNER};
static const cel_type CAP_INNER = {TY_MAP, &kp__cel_t[TY_STRING], &kp__cel_t[TY_QTY]};
static const cel_type CAP_OUTER = {TY_MAP, &kp__cel_t[TY_STRING], &CAP_INNER};
static const cel_type LIST_STR = {TY_LIST, &kp__cel_t[TY_STRING], NULL};

typedef struct {
    const char *name;
    const cel_type *ty;
} scope_var;

typedef struct {
    cel_cc *cc;
    scope_var *vars;
    uint32_t n_vars, cap_vars, max_vars;
} ck;

size_t kp__cel_type_name(const cel_type *t, char *buf, size_t cap) {
    static const char *const NAMES[TY_KINDS] = {"dyn",
                                                "null_type",
                                                "bool",
                                                "int",
                                                "uint",
                                                "double",
                                                "string",
                                                "bytes",
                                                "list",
                                                "map",
                                                "kubernetes.Quantity",
                                                "kubernetes.Semver",
                                                "kubernetes.DRADevice"};
    char a[128], b[128];
    if (t->k == TY_LIST) {
        kp__cel_type_name(t->p0, a, sizeof a);
        return (size_t)snprintf(buf, cap, "list(%s)", a);
    }
    if (t->k == TY_MAP) {
        kp__cel_type_name(t->p0, a, sizeof a);
        kp__cel_type_name(t->p1, b, sizeof b);
        return (size_t)snprintf(buf, cap, "map(%s, %s)", a, b);
    }
    return (size_t)snprintf(buf, cap, "%s", NAMES[t->k]);
}

static bool assignable(const cel_type *p, const cel_type *a) {
    if (p->k == TY_DYN || a->k == TY_DYN) return true;
    if (p->k != a->k) return false;
    if (p->k == TY_LIST) return assignable(p->p0, a->p0);
    if (p->k == TY_MAP) return assignable(p->p0, a->p0) && assignable(p->p1, a->p1);
    return true;
}

/* the more specific of two assignable types */
static const cel_type *join(const cel_type *a, const cel_type *b) {
    if (a->k == TY_DYN) return b;
    return a;
}

static bool is_num(uint8_t k) { return k == TY_INT || k == TY_UINT || k == TY_DOUBLE; }

static const cel_type *mk_type(ck *c, uint8_t k, const cel_type *p0, const cel_type *p1) {
    if (k == TY_LIST && p0->k == TY_DYN) return T(TY_LIST);
    if (k == TY_LIST && p0->k == TY_STRING) return &LIST_STR;
    cel_type *t = kp__arena_alloc(c->cc->arena, sizeof *t);
    if (!t) {
        c->cc->oom = true;
        return NULL;
    }
    t->k = k;
    t->p0 = p0;
    t->p1 = p1;
    return t;
}

static kp_status no_overload(ck *c, uint32_t pos, const char *fn, bool member, cel_node **args,
                             uint32_t n) {
    char list[300], tn[128];
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        kp__cel_type_name(args[i]->ty, tn, sizeof tn);
        const char *pre = i == 0 ? (member ? "" : "(") : (member && i == 1) ? "" : ", ";
        const char *post = member && i == 0 ? ".(" : "";
        int w = snprintf(list + used, sizeof list - used, "%s%s%s", pre, tn, post);
        if (w < 0 || (size_t)w >= sizeof list - used) break;
        used += (size_t)w;
    }
    if (n == 0) used = (size_t)snprintf(list, sizeof list, "(");
    return kp__cel_cerr(c->cc, pos, "found no matching overload for '%s' applied to '%s)'", fn,
                        list);
}

static kp_status check(ck *c, cel_node *n);

static bool arg_ok(uint8_t code, const cel_type *t) {
    if (code == A_ANY || t->k == TY_DYN) return true;
    if (code == A_LIST_STR) return t->k == TY_LIST && (t->p0->k == TY_STRING || t->p0->k == TY_DYN);
    if (code == A_NUM) return is_num(t->k);
    return code == t->k;
}

static const cel_type *ret_type(ck *c, const cel_fn *f, cel_node **args) {
    switch (f->ret) {
    case R_ELEM: return args[0]->ty->k == TY_LIST ? args[0]->ty->p0 : T(TY_DYN);
    case R_LIST_STR: return &LIST_STR;
    case R_ARG0: return args[0]->ty;
    default: (void)c; return T(f->ret);
    }
}

static kp_status check_regex(ck *c, cel_node *n, const cel_fn *f) {
    if (f->impl != F_MATCHES && f->impl != F_FIND && f->impl != F_FINDALL && f->impl != F_FINDALLN)
        return KP_OK;
    cel_node *pat = n->args[1];
    if (pat->kind != N_LIT || pat->lit.k != CV_STRING) return KP_OK;
    const char *why = NULL;
    bool oom = false;
    n->re = kp__cel_re_compile(c->cc->arena, pat->lit.u.s, pat->lit.n, &why, &oom);
    if (oom) c->cc->oom = true;
    if (!n->re) return kp__cel_cerr(c->cc, pat->pos, "invalid regular expression: %s", why);
    return KP_OK;
}

/* quantity('LITERAL') and semver('LITERAL'[, BOOL]) are values known at compile time: parsed
 * once, not at every evaluation. A literal that does not parse stays a call, so its error is
 * the evaluation's, as upstream's. */
static void fold_literal(ck *c, cel_node *n, const cel_fn *f) {
    if (f->impl != F_Q_PARSE && f->impl != F_SV_PARSE && f->impl != F_SV_PARSEN) return;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (n->args[i]->kind != N_LIT) return;
    const cel_val *s = &n->args[0]->lit;
    if (s->k != CV_STRING) return;
    cel_val v = {.k = f->impl == F_Q_PARSE ? CV_QTY : CV_SEMVER};
    if (f->impl == F_Q_PARSE) {
        if (kp_quantity_parse(s->u.s, s->n, &v.u.q, NULL) != KP_OK) return;
    } else {
        bool norm = f->impl == F_SV_PARSEN && n->args[1]->lit.k == CV_BOOL && n->args[1]->lit.u.b;
        cel_semver *sv = kp__arena_alloc(c->cc->arena, sizeof *sv);
        if (!sv) {
            c->cc->oom = true;
            return;
        }
        if (!kp__cel_semver_parse(s->u.s, s->n, norm, sv)) return;
        v.u.sv = sv;
    }
    n->kind = N_LIT;
    n->lit = v;
}

static kp_status check_call(ck *c, cel_node *n) {
    kp_status st;
    for (uint32_t i = 0; i < n->n_args; i++)
        if ((st = check(c, n->args[i])) != KP_OK) return st;
    bool named = false;
    const cel_type *ret = NULL;
    const cel_fn *first = NULL;
    for (size_t i = 0; i < kp__cel_n_fns; i++) {
        const cel_fn *f = &kp__cel_fns[i];
        if (strcmp(f->name, n->name) != 0) continue;
        if (!named) n->fn = (uint16_t)i;
        named = true;
        if (f->member != n->member || f->n_args != n->n_args) continue;
        bool ok = true;
        for (uint32_t k = 0; k < n->n_args && ok; k++) ok = arg_ok(f->at[k], n->args[k]->ty);
        if (!ok) continue;
        const cel_type *r = ret_type(c, f, n->args);
        if (!first) {
            first = f;
            ret = r;
        } else if (!(assignable(ret, r) && assignable(r, ret))) {
            ret = T(TY_DYN);
        }
    }
    if (!named) {
        if (kp__cel_fn_unsupported(n->name))
            return kp__cel_cerr(c->cc, n->pos, "unsupported function '%s'", n->name);
        return kp__cel_cerr(c->cc, n->pos, "undeclared reference to '%s' (in container '')",
                            n->name);
    }
    if (!first) return no_overload(c, n->pos, n->name, n->member, n->args, n->n_args);
    n->ty = ret;
    fold_literal(c, n, first);
    return check_regex(c, n, first);
}

static kp_status check_select(ck *c, cel_node *n) {
    kp_status st = check(c, n->a);
    if (st != KP_OK) return st;
    const cel_type *t = n->a->ty;
    switch (t->k) {
    case TY_DEVICE:
        if (!strcmp(n->name, "driver")) n->ty = T(TY_STRING);
        else if (!strcmp(n->name, "attributes")) n->ty = &ATTR_OUTER;
        else if (!strcmp(n->name, "capacity")) n->ty = &CAP_OUTER;
        else if (!strcmp(n->name, "allowMultipleAllocations")) n->ty = T(TY_BOOL);
        else return kp__cel_cerr(c->cc, n->pos, "undefined field '%s'", n->name);
        return KP_OK;
    case TY_MAP:
        if (!assignable(t->p0, T(TY_STRING))) break;
        n->ty = t->p1;
        return KP_OK;
    case TY_DYN: n->ty = T(TY_DYN); return KP_OK;
    default: break;
    }
    char tn[128];
    kp__cel_type_name(t, tn, sizeof tn);
    return kp__cel_cerr(c->cc, n->pos, "type '%s' does not support field selection", tn);
}

static kp_status check_bin(ck *c, cel_node *n) {
    static const char *const OPN[] = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
                                      "@in",  "_+_",  "_-_", "_*_",  "_/_", "_%_"};
    const cel_type *a = n->a->ty, *b = n->b->ty;
    cel_node *args[2] = {n->a, n->b};
    bool dyn = a->k == TY_DYN || b->k == TY_DYN;
    switch ((cel_op)n->op) {
    case OP_EQ:
    case OP_NE:
        if (!assignable(a, b)) break;
        n->ty = T(TY_BOOL);
        return KP_OK;
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: {
        /* CrossTypeNumericComparisons: numbers compare across int, uint and double */
        bool ok =
            dyn ? (a->k == TY_DYN || a->k == TY_BOOL || is_num(a->k) || a->k == TY_STRING ||
                   a->k == TY_BYTES) &&
                      (b->k == TY_DYN || b->k == TY_BOOL || is_num(b->k) || b->k == TY_STRING ||
                       b->k == TY_BYTES)
                : (is_num(a->k) && is_num(b->k)) ||
                      (a->k == b->k && (a->k == TY_BOOL || a->k == TY_STRING || a->k == TY_BYTES));
        if (!ok) break;
        n->ty = T(TY_BOOL);
        return KP_OK;
    }
    case OP_IN:
        if (b->k == TY_LIST && assignable(b->p0, a)) {
            n->ty = T(TY_BOOL);
            return KP_OK;
        }
        if (b->k == TY_MAP && assignable(b->p0, a)) {
            n->ty = T(TY_BOOL);
            return KP_OK;
        }
        if (b->k == TY_DYN) {
            n->ty = T(TY_BOOL);
            return KP_OK;
        }
        break;
    case OP_ADD:
        if (dyn) {
            const cel_type *o = a->k == TY_DYN ? b : a;
            if (o->k == TY_DYN || is_num(o->k) || o->k == TY_STRING || o->k == TY_BYTES ||
                o->k == TY_LIST) {
                n->ty = o->k == TY_LIST ? T(TY_LIST) : o;
                return KP_OK;
            }
            break;
        }
        if (a->k == b->k && (is_num(a->k) || a->k == TY_STRING || a->k == TY_BYTES)) {
            n->ty = a;
            return KP_OK;
        }
        if (a->k == TY_LIST && b->k == TY_LIST && assignable(a->p0, b->p0)) {
            n->ty = mk_type(c, TY_LIST, join(a->p0, b->p0), NULL);
            return n->ty ? KP_OK : KP_ENOMEM;
        }
        break;
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD: {
        bool mod = n->op == OP_MOD;
        bool ok_a = a->k == TY_DYN || (is_num(a->k) && !(mod && a->k == TY_DOUBLE));
        bool ok_b = b->k == TY_DYN || (is_num(b->k) && !(mod && b->k == TY_DOUBLE));
        if (!ok_a || !ok_b || (!dyn && a->k != b->k)) break;
        n->ty = a->k == TY_DYN ? b : a;
        return KP_OK;
    }
    }
    return no_overload(c, n->pos, OPN[n->op], false, args, 2);
}

static kp_status push_var(ck *c, const char *name, const cel_type *t, uint32_t *slot) {
    if (!kp__grow32((void **)&c->vars, &c->cap_vars, c->n_vars + 1, sizeof *c->vars, 8)) {
        c->cc->oom = true;
        return kp__cel_cerr(c->cc, 0, "out of memory");
    }
    *slot = c->n_vars;
    c->vars[c->n_vars].name = name;
    c->vars[c->n_vars].ty = t;
    c->n_vars++;
    if (c->n_vars > c->max_vars) c->max_vars = c->n_vars;
    return KP_OK;
}

static kp_status check_comp(ck *c, cel_node *n) {
    kp_status st = check(c, n->a);
    if (st != KP_OK) return st;
    const cel_type *r = n->a->ty, *it;
    if (r->k == TY_LIST) it = r->p0;
    else if (r->k == TY_MAP) it = r->p0;
    else if (r->k == TY_DYN) it = T(TY_DYN);
    else {
        char tn[128];
        kp__cel_type_name(r, tn, sizeof tn);
        return kp__cel_cerr(c->cc, n->pos,
                            "expression of type '%s' cannot be range of a comprehension (must be "
                            "list, map, or dynamic)",
                            tn);
    }
    if ((st = push_var(c, n->name, it, &n->slot)) != KP_OK) return st;
    if (n->c) {
        if ((st = check(c, n->c)) != KP_OK) return st;
        if (!assignable(T(TY_BOOL), n->c->ty)) {
            cel_node *args[2] = {n, n->c};
            n->ty = T(TY_BOOL);
            return no_overload(c, n->c->pos, "_?_:_", false, args, 2);
        }
    }
    if ((st = check(c, n->b)) != KP_OK) return st;
    c->n_vars--;
    if (n->op != CM_MAP && !assignable(T(TY_BOOL), n->b->ty)) {
        cel_node *args[2] = {n->b, n->b};
        args[0] = n;
        n->ty = T(TY_BOOL);
        return no_overload(c, n->b->pos, "_&&_", false, args, 2);
    }
    switch ((cel_comp)n->op) {
    case CM_ALL:
    case CM_EXISTS:
    case CM_EXISTS_ONE: n->ty = T(TY_BOOL); break;
    case CM_MAP: n->ty = mk_type(c, TY_LIST, n->b->ty, NULL); break;
    case CM_FILTER: n->ty = mk_type(c, TY_LIST, it, NULL); break;
    }
    return n->ty ? KP_OK : KP_ENOMEM;
}

static kp_status check_agg(ck *c, cel_node *n) {
    kp_status st;
    const cel_type *e[2] = {T(TY_DYN), T(TY_DYN)};
    bool seen[2] = {false, false};
    for (uint32_t i = 0; i < n->n_args; i++) {
        if ((st = check(c, n->args[i])) != KP_OK) return st;
        int w = n->kind == N_MAP ? (int)(i & 1) : 0;
        const cel_type *t = n->args[i]->ty;
        if (t->k == TY_DYN) continue;
        if (!seen[w]) {
            e[w] = t;
            seen[w] = true;
        } else if (!assignable(e[w], t)) {
            char a[128], b[128];
            kp__cel_type_name(e[w], a, sizeof a);
            kp__cel_type_name(t, b, sizeof b);
            return kp__cel_cerr(c->cc, n->args[i]->pos, "expected type '%s' but found '%s'", a, b);
        }
    }
    if (n->kind == N_MAP) {
        uint8_t k = e[0]->k;
        if (k != TY_DYN && k != TY_STRING && k != TY_INT && k != TY_UINT && k != TY_BOOL) {
            char a[128];
            kp__cel_type_name(e[0], a, sizeof a);
            return kp__cel_cerr(c->cc, n->pos, "unsupported map key type: %s", a);
        }
    }
    n->ty = mk_type(c, n->kind == N_MAP ? TY_MAP : TY_LIST, e[0], e[1]);
    if (!n->ty) return KP_ENOMEM;
    /* a list of literals is a literal: built once, not at every evaluation */
    bool all_lit = n->kind == N_LIST;
    for (uint32_t i = 0; i < n->n_args && all_lit; i++) all_lit = n->args[i]->kind == N_LIT;
    if (all_lit) {
        cel_list *l = kp__arena_alloc(c->cc->arena, sizeof *l);
        cel_val *v = kp__arena_alloc(c->cc->arena, (n->n_args + 1) * sizeof *v);
        if (!l || !v) {
            c->cc->oom = true;
            return KP_ENOMEM;
        }
        for (uint32_t i = 0; i < n->n_args; i++) v[i] = n->args[i]->lit;
        l->n = n->n_args;
        l->v = v;
        n->kind = N_LIT;
        n->lit.k = CV_LIST;
        n->lit.u.l = l;
    }
    return KP_OK;
}

static kp_status check(ck *c, cel_node *n) {
    kp_status st = KP_OK;
    switch ((cel_nkind)n->kind) {
    case N_LIT: {
        if (n->lit.k == CV_LIST || n->lit.k == CV_QTY || n->lit.k == CV_SEMVER)
            return KP_OK; /* folded already */
        static const uint8_t K[] = {
            [CV_NULL] = TY_NULL,  [CV_BOOL] = TY_BOOL,     [CV_INT] = TY_INT,
            [CV_UINT] = TY_UINT,  [CV_DOUBLE] = TY_DOUBLE, [CV_STRING] = TY_STRING,
            [CV_BYTES] = TY_BYTES};
        n->ty = T(K[n->lit.k]);
        return KP_OK;
    }
    case N_IDENT:
        for (uint32_t i = c->n_vars; i-- > 0;) {
            if (strcmp(c->vars[i].name, n->name) == 0) {
                n->kind = N_VAR;
                n->slot = i;
                n->ty = c->vars[i].ty;
                return KP_OK;
            }
        }
        if (!strcmp(n->name, "device")) {
            n->kind = N_DEVICE;
            n->ty = T(TY_DEVICE);
            return KP_OK;
        }
        return kp__cel_cerr(c->cc, n->pos, "undeclared reference to '%s' (in container '')",
                            n->name);
    case N_DEVICE:
    case N_VAR: return KP_OK;
    case N_SELECT: return check_select(c, n);
    case N_HAS:
        if ((st = check_select(c, n->a)) != KP_OK) return st;
        n->ty = T(TY_BOOL);
        return KP_OK;
    case N_INDEX: {
        if ((st = check(c, n->a)) != KP_OK || (st = check(c, n->b)) != KP_OK) return st;
        const cel_type *a = n->a->ty, *b = n->b->ty;
        if (a->k == TY_LIST && (b->k == TY_INT || b->k == TY_DYN)) n->ty = a->p0;
        else if (a->k == TY_MAP && assignable(a->p0, b)) n->ty = a->p1;
        else if (a->k == TY_DYN) n->ty = T(TY_DYN);
        else {
            cel_node *args[2] = {n->a, n->b};
            return no_overload(c, n->pos, "_[_]", false, args, 2);
        }
        return KP_OK;
    }
    case N_CALL: return check_call(c, n);
    case N_LIST:
    case N_MAP: return check_agg(c, n);
    case N_NOT:
    case N_NEG: {
        if ((st = check(c, n->a)) != KP_OK) return st;
        uint8_t k = n->a->ty->k;
        bool ok = n->kind == N_NOT ? (k == TY_BOOL || k == TY_DYN)
                                   : (k == TY_INT || k == TY_DOUBLE || k == TY_DYN);
        if (!ok) return no_overload(c, n->pos, n->kind == N_NOT ? "!_" : "-_", false, &n->a, 1);
        n->ty = n->kind == N_NOT ? T(TY_BOOL) : n->a->ty;
        return KP_OK;
    }
    case N_BIN:
        if ((st = check(c, n->a)) != KP_OK || (st = check(c, n->b)) != KP_OK) return st;
        return check_bin(c, n);
    case N_AND:
    case N_OR: {
        if ((st = check(c, n->a)) != KP_OK || (st = check(c, n->b)) != KP_OK) return st;
        if (!assignable(T(TY_BOOL), n->a->ty) || !assignable(T(TY_BOOL), n->b->ty)) {
            cel_node *args[2] = {n->a, n->b};
            return no_overload(c, n->pos, n->kind == N_AND ? "_&&_" : "_||_", false, args, 2);
        }
        n->ty = T(TY_BOOL);
        return KP_OK;
    }
    case N_COND: {
        if ((st = check(c, n->a)) != KP_OK || (st = check(c, n->b)) != KP_OK ||
            (st = check(c, n->c)) != KP_OK)
            return st;
        if (!assignable(T(TY_BOOL), n->a->ty) || !assignable(n->b->ty, n->c->ty)) {
            cel_node *args[3] = {n->a, n->b, n->c};
            return no_overload(c, n->pos, "_?_:_", false, args, 3);
        }
        n->ty = join(n->b->ty, n->c->ty);
        return KP_OK;
    }
    case N_COMP: return check_comp(c, n);
    case N_BIND:
        if ((st = check(c, n->a)) != KP_OK) return st;
        if ((st = push_var(c, n->name, n->a->ty, &n->slot)) != KP_OK) return st;
        if ((st = check(c, n->b)) != KP_OK) return st;
        c->n_vars--;
        n->ty = n->b->ty;
        return KP_OK;
    }
    return st;
}

kp_status kp__cel_check(cel_cc *cc, cel_node *root, uint32_t *n_slots) {
    ck c = {.cc = cc};
    kp_status st = check(&c, root);
    kp__free(c.vars);
    *n_slots = c.max_vars;
    if (cc->oom) return kp_error_set(cc->err, KP_ENOMEM, "out of memory");
    if (st != KP_OK) return st;
    if (root->ty->k != TY_BOOL && root->ty->k != TY_DYN) {
        char tn[128];
        kp__cel_type_name(root->ty, tn, sizeof tn);
        return kp_error_set(cc->err, KP_EINVAL, "must evaluate to bool or the unknown type, not %s",
                            tn);
    }
    return KP_OK;
}
