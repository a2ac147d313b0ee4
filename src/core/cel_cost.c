/* CEL for DRA device selectors: the static (worst-case) cost estimate of a checked expression,
 * the figure upstream's validation compares to CELSelectorExpressionMaxCost when a DeviceClass or
 * ResourceClaim is created (validateCELSelector: "too complex, exceeds cost limit"). The runtime
 * cost (cel_eval.c) is the other check: this one refuses an expression before any device is seen.
 *
 * Mirrors cel-go's checker cost estimator (checker/cost.go: coster.cost, costCall, functionCost,
 * costComprehension, costBind) with the estimators Kubernetes plugs into it: the library's
 * (k8s.io/apiserver/pkg/cel/library cost.go: CostEstimator.EstimateCallCost) and DRA's
 * (k8s.io/dynamic-resource-allocation/cel compile.go: sizeEstimator.EstimateSize, the `includes`
 * estimate). Only the maximum is kept (validation reads MaxCost); sums and products saturate.
 *
 * The sizes come from the `device` type as upstream declares it: driver and domains at most 63
 * characters, ids 32, attribute values 64, at most 32 attributes / capacities per map. Macros are
 * costed as cel-go expands them (all, exists, exists_one, map, filter: their accumulator, loop
 * condition, loop step and result), the checker's constant folding undone (a folded list literal
 * costs its creation, a folded quantity() or semver() call its call). */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cel_internal.h"

#define NONE UINT64_MAX /* an unknown size, or a saturated sum */

/* resource.k8s.io limits the device type is declared with (compile.go: newCompiler) */
#define DOMAIN_MAX 63 /* DeviceMaxDomainLength, DriverNameMaxLength */
#define ID_MAX 32 /* DeviceMaxIDLength */
#define ATTR_VALUE_MAX 64 /* DeviceAttributeMaxValueLength */
#define ATTRS_MAX 32 /* ResourceSliceMaxAttributesAndCapacitiesPerDevice */
#define INCLUDES_MAX 48 /* ResourceSliceMaxAttributeValuesPerDevice: `includes` */

/* Where a value sits in the `device` variable: the field path upstream's sizeEstimator walks. */
typedef enum {
    SH_NONE = 0,
    SH_DEVICE,
    SH_DRIVER,
    SH_MULTI, /* device.allowMultipleAllocations */
    SH_ATTRS, /* device.attributes */
    SH_ATTR_DOM, /* device.attributes[domain] */
    SH_ATTR_VAL, /* device.attributes[domain][id] */
    SH_CAPS,
    SH_CAP_DOM,
    SH_CAP_VAL,
    SH_DOMAIN, /* a key of attributes / capacity */
    SH_ID /* a key of attributes[domain] / capacity[domain] */
} shape;

typedef struct {
    uint64_t cost;
    uint64_t size; /* computed size (a literal's, a function's result); NONE: not computed */
    uint8_t sh;
} est;

typedef struct {
    est *vars; /* per slot: what the comprehension or cel.bind variable holds */
    size_t n_vars;
} coster;

static uint64_t add(uint64_t a, uint64_t b) { return a > NONE - b ? NONE : a + b; }
static uint64_t mul(uint64_t a, uint64_t b) { return a && b > NONE / a ? NONE : a * b; }
static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }
/* ceil(x * num / den): SizeEstimate.MultiplyByCostFactor (0.1 = 1/10, 0.2 = 1/5, 0.25 = 1/4) */
static uint64_t factor(uint64_t x, uint64_t den) { return x / den + (x % den != 0); }

static uint64_t shape_size(uint8_t sh) {
    switch ((shape)sh) {
    case SH_DRIVER:
    case SH_DOMAIN: return DOMAIN_MAX;
    case SH_ID: return ID_MAX;
    case SH_ATTR_VAL: return ATTR_VALUE_MAX;
    case SH_ATTRS:
    case SH_ATTR_DOM:
    case SH_CAPS:
    case SH_CAP_DOM: return ATTRS_MAX;
    case SH_MULTI: return 1;
    case SH_CAP_VAL:
    case SH_DEVICE: return 0; /* declared without a maximum */
    case SH_NONE: break;
    }
    return NONE;
}

static bool scalar(const cel_type *t) {
    return t->k == TY_NULL || t->k == TY_BOOL || t->k == TY_INT || t->k == TY_UINT ||
           t->k == TY_DOUBLE;
}

/* coster.sizeEstimate: the computed size, else the device path's, else 1 for a scalar */
static uint64_t size_of(const est *e, const cel_node *n) {
    if (e->size != NONE) return e->size;
    if (e->sh != SH_NONE) return shape_size(e->sh);
    return scalar(n->ty) ? 1 : NONE;
}

/* library CostEstimator.sizeEstimate: no scalar fallback */
static uint64_t lib_size(const est *e) {
    if (e->size != NONE) return e->size;
    return e->sh != SH_NONE ? shape_size(e->sh) : NONE;
}

/* a field or key one level down the device path */
static uint8_t child(uint8_t sh, const char *field) {
    switch ((shape)sh) {
    case SH_DEVICE:
        if (!field) return SH_NONE;
        if (!strcmp(field, "driver")) return SH_DRIVER;
        if (!strcmp(field, "attributes")) return SH_ATTRS;
        if (!strcmp(field, "capacity")) return SH_CAPS;
        if (!strcmp(field, "allowMultipleAllocations")) return SH_MULTI;
        return SH_NONE;
    case SH_ATTRS: return SH_ATTR_DOM;
    case SH_ATTR_DOM: return SH_ATTR_VAL;
    case SH_CAPS: return SH_CAP_DOM;
    case SH_CAP_DOM: return SH_CAP_VAL;
    default: return SH_NONE;
    }
}

/* the keys a comprehension over a device map iterates */
static uint8_t keys_of(uint8_t sh) {
    return sh == SH_ATTRS || sh == SH_CAPS         ? SH_DOMAIN
           : sh == SH_ATTR_DOM || sh == SH_CAP_DOM ? SH_ID
                                                   : SH_NONE;
}

static size_t runes(const char *s, size_t n) {
    size_t r = 0;
    for (size_t i = 0; i < n; i++) r += ((unsigned char)s[i] & 0xC0) != 0x80;
    return r;
}

static est cost(coster *c, const cel_node *n);

static est mk(uint64_t cost_, uint64_t size, uint8_t sh) {
    est e = {cost_, size, sh};
    return e;
}

/* a literal (checker-folded lists, quantity() and semver() calls cost what they cost unfolded) */
static est lit(coster *c, const cel_node *n) {
    const cel_val *v = &n->lit;
    uint64_t sum = 0;
    switch ((cel_vkind)v->k) {
    case CV_STRING: return mk(0, runes(v->u.s, v->n), SH_NONE);
    case CV_BYTES: return mk(0, v->n, SH_NONE);
    case CV_LIST: /* costCreateList: 10 + its elements */
        for (uint32_t i = 0; i < n->n_args; i++) sum = add(sum, cost(c, n->args[i]).cost);
        return mk(add(10, sum), v->u.l->n, SH_NONE);
    case CV_QTY:
    case CV_SEMVER: /* a call (1) of literal arguments (0) */
        return mk(n->n_args ? 1 : 0, NONE, SH_NONE);
    case CV_NULL:
    case CV_BOOL:
    case CV_INT:
    case CV_UINT:
    case CV_DOUBLE: return mk(0, 1, SH_NONE);
    default: return mk(0, NONE, SH_NONE);
    }
}

static bool stringy(const cel_type *t) { return t->k == TY_STRING || t->k == TY_BYTES; }

/* the operators: mirrors coster.functionCost (equality, ordering, `in`, concatenation) */
static est binary(coster *c, const cel_node *n) {
    est a = cost(c, n->a), b = cost(c, n->b);
    uint64_t sa = size_of(&a, n->a), sb = size_of(&b, n->b), args = add(a.cost, b.cost);
    uint8_t ka = n->a->ty->k, kb = n->b->ty->k;
    switch ((cel_op)n->op) {
    case OP_EQ:
    case OP_NE: /* the smaller operand traversed */
        return mk(add(factor(sa < sb ? sa : sb, 10), args), NONE, SH_NONE);
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE: {
        bool str = stringy(n->a->ty) && stringy(n->b->ty);
        bool maybe = (stringy(n->a->ty) || ka == TY_DYN) && (stringy(n->b->ty) || kb == TY_DYN);
        uint64_t f = factor(sa < sb ? sa : sb, 10);
        return mk(add(str ? f : maybe ? max2(f, 1) : 1, args), NONE, SH_NONE);
    }
    case OP_IN: /* InList: the list's size; a map lookup: 1 */
        if (kb == TY_LIST) return mk(add(sb, args), NONE, SH_NONE);
        if (kb == TY_DYN) return mk(add(max2(sb, 1), args), NONE, SH_NONE);
        return mk(add(1, args), NONE, SH_NONE);
    case OP_ADD: {
        uint64_t size = add(sa, sb);
        if (ka == TY_LIST || kb == TY_LIST) return mk(add(1, args), size, SH_NONE);
        if (stringy(n->a->ty) || stringy(n->b->ty)) /* AddString, AddBytes */
            return mk(add(factor(size, 10), args), size, SH_NONE);
        if (ka == TY_DYN && kb == TY_DYN)
            return mk(add(max2(factor(size, 10), 1), args), NONE, SH_NONE);
        return mk(add(1, args), NONE, SH_NONE);
    }
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD: return mk(add(1, args), NONE, SH_NONE);
    }
    return mk(add(1, args), NONE, SH_NONE);
}

/* replace's result size (CostEstimator.EstimateCallCost "replace", its maximum) */
static uint64_t replace_size(uint64_t sz, const cel_node *from, uint64_t from_max, uint64_t with) {
    uint64_t from_min = from->kind == N_LIT && from->lit.k == CV_STRING ? from_max : 0;
    if (from_min == 0) return add(mul(sz == NONE ? NONE : sz + 1, with), sz);
    if (with <= from_min) return sz;
    return mul(sz == NONE ? NONE : factor(sz, from_min), with);
}

/* the receiver and arguments, then the function's own estimate: mirrors coster.costCall, with
 * the Kubernetes library's estimates (mirrors CostEstimator.EstimateCallCost) */
static est call(coster *c, const cel_node *n) {
    est a[4] = {{0, NONE, SH_NONE}, {0, NONE, SH_NONE}, {0, NONE, SH_NONE}, {0, NONE, SH_NONE}};
    uint64_t args = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        est e = cost(c, n->args[i]);
        if (i < 4) a[i] = e;
        args = add(args, e.cost);
    }
    const cel_node *t = n->member && n->n_args ? n->args[0] : NULL;
    uint64_t st = t ? lib_size(&a[0]) : NONE; /* the receiver's size */
    uint64_t fn = 1, size = NONE;
    const char *name = n->name;
    if (!strcmp(name, "contains") && t) {
        fn = mul(factor(size_of(&a[0], t), 10), factor(size_of(&a[1], n->args[1]), 10));
    } else if ((!strcmp(name, "startsWith") || !strcmp(name, "endsWith")) && t) {
        fn = factor(size_of(&a[1], n->args[1]), 10);
    } else if (!strcmp(name, "matches") && t) {
        fn = mul(factor(add(size_of(&a[0], t), 1), 10), factor(size_of(&a[1], n->args[1]), 4));
    } else if ((!strcmp(name, "find") || !strcmp(name, "findAll")) && t) {
        fn = mul(factor(add(st, 1), 10), factor(lib_size(&a[1]), 4));
        size = st;
    } else if ((!strcmp(name, "indexOf") || !strcmp(name, "lastIndexOf") ||
                !strcmp(name, "isSorted") || !strcmp(name, "sum") || !strcmp(name, "min") ||
                !strcmp(name, "max")) &&
               t) {
        if (t->ty->k == TY_LIST) { /* each element compared, strings traversed */
            uint64_t el = 1;
            if (stringy(t->ty->p0)) el = add(1, factor(NONE, 10)); /* element size unknown */
            fn = mul(st, el);
        } else {
            fn = factor(st, 10);
        }
    } else if ((!strcmp(name, "lowerAscii") || !strcmp(name, "upperAscii") ||
                !strcmp(name, "substring") || !strcmp(name, "trim")) &&
               t) {
        fn = factor(st, 10);
        size = st;
    } else if (!strcmp(name, "replace") && t && n->n_args >= 3) {
        fn = factor(st, 5);
        size = replace_size(st, n->args[1], lib_size(&a[1]), lib_size(&a[2]));
    } else if (!strcmp(name, "split") && t) {
        fn = factor(st, 5);
        size = st;
        const cel_node *lim = n->n_args > 2 ? n->args[2] : NULL;
        if (lim && lim->kind == N_LIT && lim->lit.k == CV_INT)
            size = lim->lit.u.i < 0 ? NONE : (uint64_t)lim->lit.u.i;
    } else if (!strcmp(name, "join") && t) {
        uint64_t sz = mul(st, NONE); /* elements of unknown size */
        if (n->n_args > 1)
            sz = add(sz, mul(lib_size(&a[1]), st == NONE ? NONE : (st ? st - 1 : 0)));
        fn = factor(sz, 10);
        size = sz;
    } else if (!strcmp(name, "strings.quote")) {
        fn = factor(size_of(&a[0], n->args[0]), 10);
    } else if (!strncmp(name, "sets.", 5) && n->n_args == 2) { /* cel-go ext sets */
        fn = add(mul(size_of(&a[0], n->args[0]), size_of(&a[1], n->args[1])), 1);
    } else if (!strcmp(name, "includes") && t) { /* DRA: draCostEstimator */
        fn = INCLUDES_MAX;
    } else if ((!strcmp(name, "string") && n->n_args == 1 && n->args[0]->ty->k == TY_BYTES) ||
               (!strcmp(name, "bytes") && n->n_args == 1 && n->args[0]->ty->k == TY_STRING)) {
        fn = factor(size_of(&a[0], n->args[0]), 10);
    }
    return mk(add(fn, args), size, SH_NONE);
}

/* over the macro's expansion (cel-go parser/macro.go): mirrors coster.costComprehension */
static est comprehension(coster *c, const cel_node *n) {
    est r = cost(c, n->a);
    uint64_t count = size_of(&r, n->a);
    uint8_t elem = n->a->ty->k == TY_MAP ? keys_of(r.sh) : SH_NONE;
    if (n->slot < c->n_vars) c->vars[n->slot] = mk(0, NONE, elem);
    uint64_t body = cost(c, n->b).cost, pred = n->c ? cost(c, n->c).cost : 0;
    uint64_t init = 0, result = 1, step = 0;
    switch ((cel_comp)n->op) {
    case CM_ALL: /* true; @not_strictly_false(accu); accu && p; accu */
        step = add(2, add(1, body));
        break;
    case CM_EXISTS: /* false; @not_strictly_false(!accu); accu || p; accu */
        step = add(3, add(1, body));
        break;
    case CM_EXISTS_ONE: /* 0; true; p ? accu + 1 : accu; accu == 1 */
        step = add(body, 2);
        result = 2;
        break;
    case CM_MAP: /* []; true; [p ?] accu + [f] [: accu]; accu */
        init = 10;
        step = n->c ? add(pred, max2(add(12, body), 1)) : add(12, body);
        break;
    case CM_FILTER: /* []; true; p ? accu + [x] : accu; accu */
        init = 10;
        step = add(body, 13);
        break;
    }
    uint64_t total = add(add(r.cost, init), add(result, mul(count, step)));
    return mk(total, count, SH_NONE);
}

static est cost(coster *c, const cel_node *n) {
    est e;
    switch ((cel_nkind)n->kind) {
    case N_LIT: return lit(c, n);
    case N_DEVICE: return mk(1, NONE, SH_DEVICE);
    case N_IDENT: return mk(1, NONE, SH_NONE);
    case N_VAR:
        if (n->slot < c->n_vars) {
            e = c->vars[n->slot];
            e.cost = 1;
            return e;
        }
        return mk(1, NONE, SH_NONE);
    case N_SELECT: /* a field of an object or a map key: 1 */
        e = cost(c, n->a);
        return mk(add(e.cost, n->a->ty->k == TY_MAP || n->a->ty->k == TY_DEVICE ? 1 : 0), NONE,
                  child(e.sh, n->name));
    case N_HAS: /* the presence test (1) and its operand */
        return mk(add(1, cost(c, n->a->a).cost), NONE, SH_NONE);
    case N_INDEX:
        e = cost(c, n->a);
        return mk(add(add(1, e.cost), cost(c, n->b).cost), NONE,
                  n->a->ty->k == TY_LIST ? SH_NONE : child(e.sh, NULL));
    case N_CALL: return call(c, n);
    case N_LIST:
    case N_MAP: {
        uint64_t sum = n->kind == N_LIST ? 10 : 30; /* costCreateList, costCreateMap */
        for (uint32_t i = 0; i < n->n_args; i++) sum = add(sum, cost(c, n->args[i]).cost);
        return mk(sum, n->kind == N_LIST ? n->n_args : n->n_args / 2, SH_NONE);
    }
    case N_NOT:
    case N_NEG: return mk(add(1, cost(c, n->a).cost), NONE, SH_NONE);
    case N_BIN: return binary(c, n);
    case N_AND:
    case N_OR: /* short-circuit: the maximum is both sides */
        return mk(add(cost(c, n->a).cost, cost(c, n->b).cost), NONE, SH_NONE);
    case N_COND: {
        est a = cost(c, n->a), b = cost(c, n->b), d = cost(c, n->c);
        uint64_t sb = size_of(&b, n->b), sd = size_of(&d, n->c);
        return mk(add(a.cost, max2(b.cost, d.cost)), max2(sb, sd), SH_NONE);
    }
    case N_COMP: return comprehension(c, n);
    case N_BIND: { /* costBind: the empty range's creation (10), the value, the body */
        est v = cost(c, n->a);
        if (n->slot < c->n_vars) c->vars[n->slot] = mk(0, v.size, v.sh);
        return mk(add(add(10, v.cost), cost(c, n->b).cost), NONE, SH_NONE);
    }
    }
    return mk(1, NONE, SH_NONE);
}

kp_status kp__cel_cost_estimate(const kp_cel_program *p, uint64_t *out) {
    coster c = {NULL, p->n_slots};
    if (c.n_vars && !(c.vars = kp__calloc(c.n_vars, sizeof *c.vars))) return KP_ENOMEM;
    *out = cost(&c, p->root).cost;
    kp__free(c.vars);
    return KP_OK;
}

/* mirrors validateCELSelector (its cost check; compile errors are left to the evaluation) */
kp_status kp__cel_over_cost(const char *expr, size_t len, bool *over, uint64_t *estimate) {
    *over = false;
    *estimate = 0;
    kp_cel_program *p = NULL;
    kp_error err;
    memset(&err, 0, sizeof err);
    kp_status st = kp__cel_compile(expr, len, &p, &err);
    if (st == KP_ENOMEM) return st;
    if (st != KP_OK) return KP_OK; /* a compile error is the evaluation's (core/cel.h) */
    st = kp__cel_cost_estimate(p, estimate);
    kp__cel_free(p);
    if (st == KP_OK) *over = *estimate > KP__CEL_MAX_COST;
    return st;
}
