/* CEL for DRA device selectors: the evaluator (mirrors cel-go's interpreter as the device-selector
 * environment uses it: strict calls, commutative && and || that absorb errors, arithmetic with
 * overflow errors, comprehension macros, cel.bind, and the runtime cost limit). Values and the
 * device's maps are in cel_value.c, functions in cel_lib*.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/cel_internal.h"

#define COST_CANCEL "operation cancelled: actual cost limit exceeded"

static cel_val err_static(const char *msg) {
    cel_val v = {.k = CV_ERR};
    v.u.s = msg;
    return v;
}

/* ---- arithmetic ---- */

static cel_val concat(cel_ctx *x, const cel_val *a, const cel_val *b) {
    if (a->k == CV_LIST) {
        uint32_t n = a->u.l->n + b->u.l->n;
        cel_val *v = kp__cel_alloc(x, n * sizeof *v);
        cel_list *l = kp__cel_alloc(x, sizeof *l);
        if (!v || !l) return err_static("out of memory");
        memcpy(v, a->u.l->v, a->u.l->n * sizeof *v);
        memcpy(v + a->u.l->n, b->u.l->v, b->u.l->n * sizeof *v);
        l->n = n;
        l->v = v;
        cel_val r = {.k = CV_LIST};
        r.u.l = l;
        return r;
    }
    size_t n = (size_t)a->n + b->n;
    if (kp__cel_charge(x, n / 10)) return err_static(COST_CANCEL);
    char *s = kp__cel_alloc(x, n + 1);
    if (!s) return err_static("out of memory");
    memcpy(s, a->u.s, a->n);
    memcpy(s + a->n, b->u.s, b->n);
    cel_val r = {.k = a->k, .n = (uint32_t)n};
    r.u.s = s;
    return r;
}

static cel_val arith(cel_ctx *x, uint8_t op, const cel_val *a, const cel_val *b) {
    if (a->k != b->k) return err_static("no such overload");
    switch ((cel_vkind)a->k) {
    case CV_INT: {
        int64_t p = a->u.i, q = b->u.i, r;
        switch ((cel_op)op) {
        case OP_ADD:
            if (__builtin_add_overflow(p, q, &r)) return err_static("integer overflow");
            return kp__cel_int(r);
        case OP_SUB:
            if (__builtin_sub_overflow(p, q, &r)) return err_static("integer overflow");
            return kp__cel_int(r);
        case OP_MUL:
            if (__builtin_mul_overflow(p, q, &r)) return err_static("integer overflow");
            return kp__cel_int(r);
        case OP_DIV:
            if (q == 0) return err_static("division by zero");
            if (p == INT64_MIN && q == -1) return err_static("integer overflow");
            return kp__cel_int(p / q);
        case OP_MOD:
            if (q == 0) return err_static("modulus by zero");
            if (p == INT64_MIN && q == -1) return err_static("integer overflow");
            return kp__cel_int(p % q);
        default: break;
        }
        break;
    }
    case CV_UINT: {
        uint64_t p = a->u.u, q = b->u.u, r;
        cel_val v = {.k = CV_UINT};
        switch ((cel_op)op) {
        case OP_ADD:
            if (__builtin_add_overflow(p, q, &r)) return err_static("unsigned integer overflow");
            break;
        case OP_SUB:
            if (__builtin_sub_overflow(p, q, &r)) return err_static("unsigned integer overflow");
            break;
        case OP_MUL:
            if (__builtin_mul_overflow(p, q, &r)) return err_static("unsigned integer overflow");
            break;
        case OP_DIV:
            if (q == 0) return err_static("division by zero");
            r = p / q;
            break;
        case OP_MOD:
            if (q == 0) return err_static("modulus by zero");
            r = p % q;
            break;
        default: return err_static("no such overload");
        }
        v.u.u = r;
        return v;
    }
    case CV_DOUBLE: {
        cel_val v = {.k = CV_DOUBLE};
        switch ((cel_op)op) {
        case OP_ADD: v.u.d = a->u.d + b->u.d; return v;
        case OP_SUB: v.u.d = a->u.d - b->u.d; return v;
        case OP_MUL: v.u.d = a->u.d * b->u.d; return v;
        case OP_DIV: v.u.d = a->u.d / b->u.d; return v;
        default: break;
        }
        break;
    }
    case CV_STRING:
    case CV_BYTES:
    case CV_LIST:
        if (op == OP_ADD) return concat(x, a, b);
        break;
    default: break;
    }
    return err_static("no such overload");
}

static cel_val binop(cel_ctx *x, uint8_t op, const cel_val *a, const cel_val *b) {
    if (a->k == CV_ERR) return *a;
    if (b->k == CV_ERR) return *b;
    int c;
    switch ((cel_op)op) {
    case OP_EQ: return kp__cel_equals(x, a, b);
    case OP_NE: {
        cel_val e = kp__cel_equals(x, a, b);
        if (e.k == CV_BOOL) e.u.b = !e.u.b;
        return e;
    }
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
        if (!kp__cel_compare(a, b, &c)) return err_static("no such overload");
        if (c == 2) return kp__cel_bool(false);
        return kp__cel_bool(op == OP_LT   ? c < 0
                            : op == OP_LE ? c <= 0
                            : op == OP_GT ? c > 0
                                          : c >= 0);
    case OP_IN: return kp__cel_contains(x, a, b);
    default: return arith(x, op, a, b);
    }
}

/* ---- the walk ---- */

static cel_val eval_logic(cel_ctx *x, const cel_node *n) {
    bool is_and = n->kind == N_AND;
    cel_val a = kp__cel_eval(x, n->a);
    /* false && _ is false, true || _ is true, whatever the other side is */
    if (a.k == CV_BOOL && a.u.b != is_and) return a;
    cel_val b = kp__cel_eval(x, n->b);
    if (b.k == CV_BOOL && b.u.b != is_and) return b;
    if (a.k == CV_BOOL && b.k == CV_BOOL) return a;
    if (a.k == CV_ERR) return a;
    if (b.k == CV_ERR) return b;
    return err_static("no such overload");
}

static cel_val eval_agg(cel_ctx *x, const cel_node *n) {
    cel_val *v = kp__cel_alloc(x, (n->n_args + 1) * sizeof *v);
    if (!v) return err_static("out of memory");
    for (uint32_t i = 0; i < n->n_args; i++) {
        v[i] = kp__cel_eval(x, n->args[i]);
        if (v[i].k == CV_ERR) return v[i];
    }
    if (n->kind == N_LIST) return kp__cel_list_of(x, v, n->n_args);
    uint32_t cnt = n->n_args / 2;
    cel_val *ks = kp__cel_alloc(x, (cnt + 1) * sizeof *ks),
            *vs = kp__cel_alloc(x, (cnt + 1) * sizeof *vs);
    cel_map *m = kp__cel_alloc(x, sizeof *m);
    if (!ks || !vs || !m) return err_static("out of memory");
    m->k = ks;
    m->v = vs;
    m->n = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        const cel_val *k = &v[2 * i], *dummy;
        if (k->k != CV_STRING && k->k != CV_INT && k->k != CV_UINT && k->k != CV_BOOL)
            return err_static("unsupported key type");
        if (kp__cel_map_find(x, m, k, &dummy)) {
            char kt[128];
            kp__cel_key_text(k, kt, sizeof kt);
            return kp__cel_err(x, "Failed with repeated key: %s", kt);
        }
        ks[i] = *k;
        vs[i] = v[2 * i + 1];
        m->n = i + 1;
    }
    cel_val r = {.k = CV_MAP};
    r.u.m = m;
    return r;
}

static cel_val eval_comp(cel_ctx *x, const cel_node *n) {
    cel_val r = kp__cel_eval(x, n->a);
    if (r.k == CV_ERR) return r;
    r = kp__cel_materialize(x, &r);
    if (r.k == CV_ERR) return r;
    const cel_val *items;
    uint32_t count;
    if (r.k == CV_LIST) {
        items = r.u.l->v;
        count = r.u.l->n;
    } else if (r.k == CV_MAP) {
        items = r.u.m->k;
        count = r.u.m->n;
    } else {
        return kp__cel_err(x, "got '%s', expected iterable type", kp__cel_go_type(&r));
    }
    cel_val first_err = {0}, *out = NULL;
    bool has_err = false;
    uint32_t hits = 0;
    if (n->op == CM_MAP || n->op == CM_FILTER) {
        out = kp__cel_alloc(x, (count + 1) * sizeof *out);
        if (!out) return err_static("out of memory");
    }
    for (uint32_t i = 0; i < count; i++) {
        if (kp__cel_charge(x, 1)) return err_static(COST_CANCEL);
        x->slots[n->slot] = items[i];
        if (n->op == CM_MAP && n->c) {
            cel_val f = kp__cel_eval(x, n->c);
            if (f.k == CV_ERR) return f;
            if (f.k != CV_BOOL) return err_static("no such overload");
            if (!f.u.b) continue;
        }
        cel_val b = kp__cel_eval(x, n->b);
        switch ((cel_comp)n->op) {
        case CM_ALL:
        case CM_EXISTS: {
            bool stop_on = n->op == CM_EXISTS;
            if (b.k == CV_BOOL) {
                if (b.u.b == stop_on) return b;
            } else if (!has_err) {
                has_err = true;
                first_err = b.k == CV_ERR ? b : err_static("no such overload");
            }
            break;
        }
        case CM_EXISTS_ONE:
            if (b.k == CV_ERR) return b;
            if (b.k != CV_BOOL) return err_static("no such overload");
            hits += b.u.b;
            break;
        case CM_MAP:
            if (b.k == CV_ERR) return b;
            out[hits++] = b;
            break;
        case CM_FILTER:
            if (b.k == CV_ERR) return b;
            if (b.k != CV_BOOL) return err_static("no such overload");
            if (b.u.b) out[hits++] = items[i];
            break;
        }
    }
    switch ((cel_comp)n->op) {
    case CM_ALL:
    case CM_EXISTS: return has_err ? first_err : kp__cel_bool(n->op == CM_ALL);
    case CM_EXISTS_ONE: return kp__cel_bool(hits == 1);
    case CM_MAP:
    case CM_FILTER: break;
    }
    return kp__cel_list_of(x, out, hits);
}

static cel_val eval_call(cel_ctx *x, const cel_node *n) {
    cel_val argv[4];
    if (n->n_args > 4) return err_static("no such overload");
    for (uint32_t i = 0; i < n->n_args; i++) {
        argv[i] = kp__cel_eval(x, n->args[i]);
        if (argv[i].k == CV_ERR) return argv[i];
    }
    for (size_t i = n->fn; i < kp__cel_n_fns && !strcmp(kp__cel_fns[i].name, n->name); i++) {
        const cel_fn *f = &kp__cel_fns[i];
        if (f->member != n->member || f->n_args != n->n_args) continue;
        bool ok = true;
        for (uint32_t k = 0; k < n->n_args && ok; k++) ok = kp__cel_val_is(&argv[k], f->at[k]);
        if (!ok) continue;
        x->re = n->re; /* a literal pattern, compiled by the checker */
        cel_val r = kp__cel_call(x, f, argv);
        x->re = NULL;
        return r;
    }
    return err_static("no such overload");
}

cel_val kp__cel_eval(cel_ctx *x, const cel_node *n) {
    if (x->cost > KP__CEL_MAX_COST) return err_static(COST_CANCEL);
    switch ((cel_nkind)n->kind) {
    case N_LIT: return n->lit;
    case N_DEVICE: {
        x->cost++;
        cel_val v = {.k = CV_DEVICE};
        return v;
    }
    case N_VAR: x->cost++; return x->slots[n->slot];
    case N_IDENT: return err_static("undeclared reference");
    case N_SELECT: {
        cel_val a = kp__cel_eval(x, n->a);
        if (a.k == CV_ERR) return a;
        x->cost++;
        return kp__cel_select(x, &a, n->name, n->name_len, false);
    }
    case N_HAS: {
        cel_val a = kp__cel_eval(x, n->a->a);
        if (a.k == CV_ERR) return a;
        return kp__cel_select(x, &a, n->a->name, n->a->name_len, true);
    }
    case N_INDEX: {
        cel_val a = kp__cel_eval(x, n->a);
        if (a.k == CV_ERR) return a;
        cel_val k = kp__cel_eval(x, n->b);
        if (k.k == CV_ERR) return k;
        x->cost++;
        return kp__cel_index(x, &a, &k);
    }
    case N_CALL: x->cost++; return eval_call(x, n);
    case N_LIST:
    case N_MAP: x->cost++; return eval_agg(x, n);
    case N_NOT: {
        cel_val a = kp__cel_eval(x, n->a);
        x->cost++;
        if (a.k == CV_ERR) return a;
        if (a.k != CV_BOOL) return err_static("no such overload");
        return kp__cel_bool(!a.u.b);
    }
    case N_NEG: {
        cel_val a = kp__cel_eval(x, n->a);
        x->cost++;
        if (a.k == CV_ERR) return a;
        if (a.k == CV_INT) {
            if (a.u.i == INT64_MIN) return err_static("integer overflow");
            return kp__cel_int(-a.u.i);
        }
        if (a.k == CV_DOUBLE) {
            a.u.d = -a.u.d;
            return a;
        }
        return err_static("no such overload");
    }
    case N_BIN: {
        cel_val a = kp__cel_eval(x, n->a);
        cel_val b = kp__cel_eval(x, n->b);
        x->cost++;
        if ((a.k == CV_STRING || a.k == CV_BYTES) && a.k == b.k && n->op <= OP_GE)
            x->cost += (a.n < b.n ? a.n : b.n) / 10; /* cel-go's string comparison cost */
        return binop(x, n->op, &a, &b);
    }
    case N_AND:
    case N_OR: return eval_logic(x, n);
    case N_COND: {
        cel_val c = kp__cel_eval(x, n->a);
        if (c.k == CV_ERR) return c;
        if (c.k != CV_BOOL) return err_static("no such overload");
        return kp__cel_eval(x, c.u.b ? n->b : n->c);
    }
    case N_COMP: return eval_comp(x, n);
    case N_BIND: x->slots[n->slot] = kp__cel_eval(x, n->a); return kp__cel_eval(x, n->b);
    }
    return err_static("no such overload");
}
