/* CEL for DRA device selectors: the parser (mirrors cel-go's parser package: the CEL grammar
 * CEL.g4 and the standard macros has/all/exists/exists_one/map/filter, and cel.bind of
 * ext.Bindings). The AST goes into the program's arena; every node keeps the byte offset of its
 * token so errors can name "LINE:COL" the way cel-go does. Tokens come from cel_lex.c. */
#include <string.h>

#include "core/cel_lex.h"

static kp_status next(ps *p) { return kp__cel_lex_next(p); }
static kp_status syntax(ps *p, const char *expecting) { return kp__cel_lex_syntax(p, expecting); }

/* ---- parser ---- */

static cel_node *mk(ps *p, uint8_t kind, uint32_t pos) {
    cel_node *n = kp__arena_alloc(p->cc->arena, sizeof *n);
    if (!n) {
        p->cc->oom = true;
        kp__cel_cerr(p->cc, pos, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->pos = pos;
    return n;
}

static const char *dup_name(ps *p, const char *s, size_t n) {
    char *o = kp__arena_alloc(p->cc->arena, n + 1);
    if (!o) {
        p->cc->oom = true;
        return NULL;
    }
    memcpy(o, s, n);
    o[n] = '\0';
    return o;
}

static kp_status expr(ps *p, cel_node **out);

static kp_status expect(ps *p, uint8_t t, const char *what) {
    if (p->cur.t != t) return syntax(p, what);
    return next(p);
}

/* args of a call or the elements of a list, up to close (a trailing comma is allowed in lists
 * and maps only, as the grammar says). */
static kp_status expr_list(ps *p, uint8_t close, bool trailing, cel_node ***out, uint32_t *n_out) {
    cel_node *tmp[16], **v = tmp;
    size_t n = 0, cap = 16;
    *out = NULL;
    *n_out = 0;
    while (p->cur.t != close) {
        cel_node *e;
        kp_status st = expr(p, &e);
        if (st != KP_OK) return st;
        if (n == cap) {
            cel_node **nv = kp__arena_alloc(p->cc->arena, cap * 2 * sizeof *nv);
            if (!nv) {
                p->cc->oom = true;
                return kp__cel_cerr(p->cc, p->cur.pos, "out of memory");
            }
            memcpy(nv, v, n * sizeof *v);
            v = nv;
            cap *= 2;
        }
        v[n++] = e;
        if (p->cur.t == T_COMMA) {
            if ((st = next(p)) != KP_OK) return st;
            if (p->cur.t == close && !trailing) return syntax(p, "an expression");
            continue;
        }
        if (p->cur.t != close) return syntax(p, close == T_RP ? "{')', ','}" : "{']', ','}");
    }
    if (n) {
        *out = kp__arena_dup(p->cc->arena, v, n * sizeof *v);
        if (!*out) {
            p->cc->oom = true;
            return kp__cel_cerr(p->cc, p->cur.pos, "out of memory");
        }
    }
    *n_out = (uint32_t)n;
    return next(p);
}

/* The macros of a receiver-style call target.name(args) (cel-go parser/macro.go), cel.bind
 * (ext.Bindings) and namespaced functions (strings.quote, sets.contains). */
static kp_status member_call(ps *p, cel_node *target, const char *name, uint32_t pos,
                             cel_node **args, uint32_t n_args, cel_node **out) {
    cel_node *n;
    static const struct {
        const char *name;
        uint8_t comp, nargs;
    } MACROS[] = {{"all", CM_ALL, 2}, {"exists", CM_EXISTS, 2}, {"exists_one", CM_EXISTS_ONE, 2},
                  {"map", CM_MAP, 2}, {"map", CM_MAP, 3},       {"filter", CM_FILTER, 2}};
    for (size_t k = 0; k < sizeof MACROS / sizeof MACROS[0]; k++) {
        if (strcmp(MACROS[k].name, name) != 0 || MACROS[k].nargs != n_args) continue;
        if (args[0]->kind != N_IDENT)
            return kp__cel_cerr(p->cc, args[0]->pos, "argument must be a simple name");
        if (!(n = mk(p, N_COMP, pos))) return KP_ENOMEM;
        n->op = MACROS[k].comp;
        n->a = target;
        n->name = args[0]->name;
        n->name_len = args[0]->name_len;
        if (n_args == 3) {
            n->c = args[1];
            n->b = args[2];
        } else {
            n->b = args[1];
        }
        *out = n;
        return KP_OK;
    }
    if ((!strcmp(name, "all") || !strcmp(name, "exists") || !strcmp(name, "existsOne") ||
         !strcmp(name, "exists_one")) &&
        n_args == 3)
        return kp__cel_cerr(p->cc, pos, "unsupported macro '%s' with two variables", name);
    if (target->kind == N_IDENT && !strcmp(target->name, "cel") && !strcmp(name, "bind")) {
        if (n_args != 3) return kp__cel_cerr(p->cc, pos, "cel.bind() requires 3 arguments");
        if (args[0]->kind != N_IDENT)
            return kp__cel_cerr(p->cc, args[0]->pos,
                                "cel.bind() variable names must be simple identifiers");
        if (!(n = mk(p, N_BIND, pos))) return KP_ENOMEM;
        n->name = args[0]->name;
        n->name_len = args[0]->name_len;
        n->a = args[1];
        n->b = args[2];
        *out = n;
        return KP_OK;
    }
    if (!(n = mk(p, N_CALL, pos))) return KP_ENOMEM;
    n->name = name;
    n->name_len = (uint32_t)strlen(name);
    if (target->kind == N_IDENT &&
        (!strcmp(target->name, "strings") || !strcmp(target->name, "sets") ||
         !strcmp(target->name, "math") || !strcmp(target->name, "optional") ||
         !strcmp(target->name, "base64") || !strcmp(target->name, "cel"))) {
        size_t tl = target->name_len, nl = strlen(name);
        char *full = kp__arena_alloc(p->cc->arena, tl + nl + 2);
        if (!full) {
            p->cc->oom = true;
            return kp__cel_cerr(p->cc, pos, "out of memory");
        }
        memcpy(full, target->name, tl);
        full[tl] = '.';
        memcpy(full + tl + 1, name, nl + 1);
        n->name = full;
        n->name_len = (uint32_t)(tl + nl + 1);
        n->args = args;
        n->n_args = n_args;
        *out = n;
        return KP_OK;
    }
    n->member = true;
    n->args = kp__arena_alloc(p->cc->arena, (n_args + 1) * sizeof *n->args);
    if (!n->args) {
        p->cc->oom = true;
        return kp__cel_cerr(p->cc, pos, "out of memory");
    }
    n->args[0] = target;
    for (uint32_t k = 0; k < n_args; k++) n->args[k + 1] = args[k];
    n->n_args = n_args + 1;
    *out = n;
    return KP_OK;
}

static kp_status primary(ps *p, cel_node **out) {
    kp_status st;
    tok t = p->cur;
    cel_node *n;
    switch (t.t) {
    case T_INT:
        if (t.neg_ok) return kp__cel_cerr(p->cc, t.pos, "invalid int literal");
        /* fallthrough */
    case T_UINT:
    case T_DOUBLE:
    case T_STRING:
    case T_BYTES:
        if (!(n = mk(p, N_LIT, t.pos))) return KP_ENOMEM;
        n->lit = t.v;
        *out = n;
        return next(p);
    case T_TRUE:
    case T_FALSE:
        if (!(n = mk(p, N_LIT, t.pos))) return KP_ENOMEM;
        n->lit = kp__cel_bool(t.t == T_TRUE);
        *out = n;
        return next(p);
    case T_NULL:
        if (!(n = mk(p, N_LIT, t.pos))) return KP_ENOMEM;
        n->lit.k = CV_NULL;
        *out = n;
        return next(p);
    case T_MINUS: {
        /* a negative numeric literal (the grammar's `'-'? NUM_INT`) */
        if ((st = next(p)) != KP_OK) return st;
        if (p->cur.t != T_INT && p->cur.t != T_DOUBLE) return syntax(p, "a number");
        if (!(n = mk(p, N_LIT, t.pos))) return KP_ENOMEM;
        n->lit = p->cur.v;
        if (p->cur.t == T_INT) n->lit.u.i = (int64_t)(0 - p->cur.v.u.u);
        else n->lit.u.d = -n->lit.u.d;
        *out = n;
        return next(p);
    }
    case T_DOT: return kp__cel_cerr(p->cc, t.pos, "unsupported: leading '.' (root-scoped names)");
    case T_IDENT: {
        const char *name = dup_name(p, p->s + t.pos, t.end - t.pos);
        if (!name) return kp__cel_cerr(p->cc, t.pos, "out of memory");
        if ((st = next(p)) != KP_OK) return st;
        if (p->cur.t == T_LP) {
            uint32_t lp = p->cur.pos;
            if ((st = next(p)) != KP_OK) return st;
            cel_node **args;
            uint32_t n_args;
            if ((st = expr_list(p, T_RP, false, &args, &n_args)) != KP_OK) return st;
            if (!strcmp(name, "has")) {
                if (n_args != 1 || args[0]->kind != N_SELECT)
                    return kp__cel_cerr(p->cc, n_args ? args[0]->pos : lp,
                                        "invalid argument to has() macro");
                if (!(n = mk(p, N_HAS, lp))) return KP_ENOMEM;
                n->a = args[0];
                *out = n;
                return KP_OK;
            }
            if (!(n = mk(p, N_CALL, lp))) return KP_ENOMEM;
            n->name = name;
            n->name_len = t.end - t.pos;
            n->args = args;
            n->n_args = n_args;
            *out = n;
            return KP_OK;
        }
        if (p->cur.t == T_LC)
            return kp__cel_cerr(p->cc, p->cur.pos, "unsupported: message construction");
        if (!(n = mk(p, N_IDENT, t.pos))) return KP_ENOMEM;
        n->name = name;
        n->name_len = t.end - t.pos;
        *out = n;
        return KP_OK;
    }
    case T_LP:
        if ((st = next(p)) != KP_OK) return st;
        if ((st = expr(p, out)) != KP_OK) return st;
        return expect(p, T_RP, "')'");
    case T_LB: {
        if ((st = next(p)) != KP_OK) return st;
        if (!(n = mk(p, N_LIST, t.pos))) return KP_ENOMEM;
        if ((st = expr_list(p, T_RB, true, &n->args, &n->n_args)) != KP_OK) return st;
        *out = n;
        return KP_OK;
    }
    case T_LC: {
        if ((st = next(p)) != KP_OK) return st;
        if (!(n = mk(p, N_MAP, t.pos))) return KP_ENOMEM;
        cel_node *tmp[32], **v = tmp;
        size_t cnt = 0, cap = 32;
        while (p->cur.t != T_RC) {
            cel_node *k, *val;
            if ((st = expr(p, &k)) != KP_OK) return st;
            if ((st = expect(p, T_COLON, "':'")) != KP_OK) return st;
            if ((st = expr(p, &val)) != KP_OK) return st;
            if (cnt + 2 > cap) {
                cel_node **nv = kp__arena_alloc(p->cc->arena, cap * 2 * sizeof *nv);
                if (!nv) {
                    p->cc->oom = true;
                    return kp__cel_cerr(p->cc, t.pos, "out of memory");
                }
                memcpy(nv, v, cnt * sizeof *v);
                v = nv;
                cap *= 2;
            }
            v[cnt++] = k;
            v[cnt++] = val;
            if (p->cur.t == T_COMMA) {
                if ((st = next(p)) != KP_OK) return st;
                continue;
            }
            if (p->cur.t != T_RC) return syntax(p, "{'}', ','}");
        }
        if (cnt && !(n->args = kp__arena_dup(p->cc->arena, v, cnt * sizeof *v))) {
            p->cc->oom = true;
            return kp__cel_cerr(p->cc, t.pos, "out of memory");
        }
        n->n_args = (uint32_t)cnt;
        *out = n;
        return next(p);
    }
    default: return syntax(p, "an expression");
    }
}

static kp_status too_deep(ps *p);

/* Selections, indexes and member calls: each link of the chain counts against the depth limit. */
static kp_status member(ps *p, cel_node **out) {
    kp_status st = primary(p, out);
    int links = 0;
    while (st == KP_OK) {
        tok t = p->cur;
        if (t.t == T_DOT || t.t == T_LB) {
            links++;
            if (++p->depth > KP__CEL_MAX_DEPTH) return too_deep(p);
        }
        if (t.t == T_DOT) {
            if ((st = next(p)) != KP_OK) return st;
            if (p->cur.t == T_QM)
                return kp__cel_cerr(p->cc, t.pos, "unsupported: optional field selection '.?'");
            if (p->cur.t != T_IDENT) return syntax(p, "IDENTIFIER");
            tok id = p->cur;
            const char *name = dup_name(p, p->s + id.pos, id.end - id.pos);
            if (!name) return kp__cel_cerr(p->cc, id.pos, "out of memory");
            if ((st = next(p)) != KP_OK) return st;
            if (p->cur.t == T_LP) {
                uint32_t lp = p->cur.pos;
                if ((st = next(p)) != KP_OK) return st;
                cel_node **args;
                uint32_t n_args;
                if ((st = expr_list(p, T_RP, false, &args, &n_args)) != KP_OK) return st;
                st = member_call(p, *out, name, lp, args, n_args, out);
                continue;
            }
            cel_node *n = mk(p, N_SELECT, t.pos);
            if (!n) return KP_ENOMEM;
            n->a = *out;
            n->name = name;
            n->name_len = id.end - id.pos;
            *out = n;
        } else if (t.t == T_LB) {
            if ((st = next(p)) != KP_OK) return st;
            if (p->cur.t == T_QM)
                return kp__cel_cerr(p->cc, t.pos, "unsupported: optional index '[?'");
            cel_node *n = mk(p, N_INDEX, t.pos);
            if (!n) return KP_ENOMEM;
            n->a = *out;
            if ((st = expr(p, &n->b)) != KP_OK) return st;
            *out = n;
            st = expect(p, T_RB, "']'");
        } else {
            break;
        }
    }
    p->depth -= links;
    return st;
}

static kp_status unary(ps *p, cel_node **out) {
    kp_status st;
    if (p->cur.t == T_NOT || p->cur.t == T_MINUS) {
        uint8_t t = p->cur.t;
        uint32_t pos = p->cur.pos;
        int count = 0;
        /* a '-' right before a number is the literal's sign */
        if (t == T_MINUS) {
            size_t save_i = p->i;
            tok save = p->cur;
            if ((st = next(p)) != KP_OK) return st;
            bool num = p->cur.t == T_INT || p->cur.t == T_DOUBLE;
            p->i = save_i;
            p->cur = save;
            if (num) return member(p, out);
        }
        while (p->cur.t == t) {
            count++;
            pos = p->cur.pos;
            if ((st = next(p)) != KP_OK) return st;
            if (t == T_MINUS && p->cur.t == T_MINUS) {
                size_t save_i = p->i;
                tok save = p->cur;
                if ((st = next(p)) != KP_OK) return st;
                bool num = p->cur.t == T_INT || p->cur.t == T_DOUBLE;
                p->i = save_i;
                p->cur = save;
                if (num) break;
            }
        }
        if ((st = member(p, out)) != KP_OK) return st;
        /* cel-go drops an even number of the same unary operator */
        if (count % 2 == 0) return KP_OK;
        cel_node *n = mk(p, t == T_NOT ? N_NOT : N_NEG, pos);
        if (!n) return KP_ENOMEM;
        n->a = *out;
        *out = n;
        return KP_OK;
    }
    return member(p, out);
}

static kp_status too_deep(ps *p) {
    return kp__cel_cerr(p->cc, p->cur.pos, "expression recursion limit exceeded: %d",
                        KP__CEL_MAX_DEPTH);
}

/* The operands v[lo..hi] of an && or || chain as a balanced tree (cel-go's parser balancer), so
 * a long chain does not make a deep tree; the operator between v[i-1] and v[i] is at pos[i]. */
static cel_node *balance(ps *p, uint8_t kind, cel_node **v, const uint32_t *pos, size_t lo,
                         size_t hi) {
    if (lo == hi) return v[lo];
    size_t mid = (lo + hi + 1) / 2;
    cel_node *n = mk(p, kind, pos[mid]);
    if (!n) return NULL;
    if (!(n->a = balance(p, kind, v, pos, lo, mid - 1))) return NULL;
    if (!(n->b = balance(p, kind, v, pos, mid, hi))) return NULL;
    return n;
}

static kp_status binary(ps *p, int level, cel_node **out);

/* An && (level 1) or || (level 0) chain. */
static kp_status logic_chain(ps *p, int level, cel_node **out) {
    uint8_t tk = level == 0 ? T_OR : T_AND;
    cel_node *first;
    kp_status st = binary(p, level + 1, &first);
    if (st != KP_OK || p->cur.t != tk) {
        *out = first;
        return st;
    }
    size_t n = 1, cap = 8;
    cel_node **v = kp__arena_alloc(p->cc->arena, cap * sizeof *v);
    uint32_t *pos = kp__arena_alloc(p->cc->arena, cap * sizeof *pos);
    if (!v || !pos) goto oom;
    v[0] = first;
    while (p->cur.t == tk) {
        if (n == cap) {
            cel_node **nv = kp__arena_alloc(p->cc->arena, cap * 2 * sizeof *nv);
            uint32_t *np = kp__arena_alloc(p->cc->arena, cap * 2 * sizeof *np);
            if (!nv || !np) goto oom;
            memcpy(nv, v, n * sizeof *v);
            memcpy(np, pos, n * sizeof *pos);
            v = nv;
            pos = np;
            cap *= 2;
        }
        pos[n] = p->cur.pos;
        if ((st = next(p)) != KP_OK) return st;
        if ((st = binary(p, level + 1, &v[n])) != KP_OK) return st;
        n++;
    }
    if (!(*out = balance(p, level == 0 ? N_OR : N_AND, v, pos, 0, n - 1))) return KP_ENOMEM;
    return KP_OK;
oom:
    p->cc->oom = true;
    return kp__cel_cerr(p->cc, p->cur.pos, "out of memory");
}

/* levels: 0 ||, 1 &&, 2 relations, 3 + -, 4 * / %, 5 unary. The left-associative chains of
 * levels 2-4 make a tree as deep as they are long: each link counts against the depth limit. */
static kp_status binary(ps *p, int level, cel_node **out) {
    if (level == 5) return unary(p, out);
    if (level < 2) return logic_chain(p, level, out);
    kp_status st = binary(p, level + 1, out);
    int links = 0;
    while (st == KP_OK) {
        uint8_t t = p->cur.t, op = 0;
        bool ok = false;
        switch (level) {
        case 2:
            ok = true;
            switch (t) {
            case T_EQ: op = OP_EQ; break;
            case T_NE: op = OP_NE; break;
            case T_LT: op = OP_LT; break;
            case T_LE: op = OP_LE; break;
            case T_GT: op = OP_GT; break;
            case T_GE: op = OP_GE; break;
            case T_IN: op = OP_IN; break;
            default: ok = false;
            }
            break;
        case 3:
            ok = t == T_PLUS || t == T_MINUS;
            op = t == T_PLUS ? OP_ADD : OP_SUB;
            break;
        default:
            ok = t == T_STAR || t == T_SLASH || t == T_PCT;
            op = t == T_STAR ? OP_MUL : t == T_SLASH ? OP_DIV : OP_MOD;
            break;
        }
        if (!ok) break;
        if (++p->depth > KP__CEL_MAX_DEPTH) return too_deep(p);
        links++;
        cel_node *n = mk(p, N_BIN, p->cur.pos);
        if (!n) return KP_ENOMEM;
        n->op = op;
        n->a = *out;
        if ((st = next(p)) != KP_OK) return st;
        if ((st = binary(p, level + 1, &n->b)) != KP_OK) return st;
        *out = n;
    }
    p->depth -= links;
    return st;
}

static kp_status expr(ps *p, cel_node **out) {
    if (++p->depth > KP__CEL_MAX_DEPTH) return too_deep(p);
    kp_status st = binary(p, 0, out);
    if (st == KP_OK && p->cur.t == T_QM) {
        cel_node *n = mk(p, N_COND, p->cur.pos);
        if (!n) return KP_ENOMEM;
        n->a = *out;
        if ((st = next(p)) != KP_OK) return st;
        if ((st = binary(p, 0, &n->b)) != KP_OK) return st;
        if ((st = expect(p, T_COLON, "':'")) != KP_OK) return st;
        if ((st = expr(p, &n->c)) != KP_OK) return st;
        *out = n;
    }
    p->depth--;
    return st;
}

kp_status kp__cel_parse(cel_cc *cc, cel_node **out) {
    ps p = {.cc = cc, .s = cc->src, .n = cc->len};
    kp_status st = next(&p);
    if (st == KP_OK) st = expr(&p, out);
    if (st == KP_OK && p.cur.t != T_EOF) st = syntax(&p, "<EOF>");
    return cc->oom ? KP_ENOMEM : st;
}
