/* CEL for DRA device selectors: compile and evaluate (core/cel.h). Mirrors
 * k8s.io/dynamic-resource-allocation/cel compile.go: Compiler.CompileCELExpression (parse, check,
 * the result must be bool or dyn) and CompilationResult.DeviceMatches (evaluate against one
 * device under the runtime cost limit CELSelectorExpressionMaxCost, a non-bool result is an
 * error). */
#include <string.h>

#include "base/alloc.h"
#include "core/cel_internal.h"

/* mirrors CompileCELExpression */
kp_status kp__cel_compile(const char *expr, size_t len, kp_cel_program **out, kp_error *err) {
    *out = NULL;
    /* resource.k8s.io/v1 validation: CELSelectorExpressionMaxLength */
    if (len > KP__CEL_MAX_LEN)
        return kp_error_set(err, KP_EINVAL,
                            "expression too long: %zu bytes, may not be more than %d", len,
                            KP__CEL_MAX_LEN);
    kp_arena arena;
    kp__arena_init(&arena);
    kp_cel_program *p = kp__arena_alloc(&arena, sizeof *p);
    if (!p) {
        kp__arena_fini(&arena);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    cel_cc cc = {.src = expr, .len = len, .arena = &arena, .err = err};
    cel_node *root = NULL;
    uint32_t n_slots = 0;
    kp_status st = kp__cel_parse(&cc, &root);
    if (st == KP_OK) st = kp__cel_check(&cc, root, &n_slots);
    if (st != KP_OK) {
        kp__arena_fini(&arena);
        return st;
    }
    p->root = root;
    p->n_slots = n_slots;
    p->arena = arena; /* the program lives in its own arena */
    *out = p;
    return KP_OK;
}

void kp__cel_free(kp_cel_program *p) {
    if (!p) return;
    kp_arena a = p->arena; /* p itself is in a's first chunk */
    kp__arena_fini(&a);
}

static const char *result_type(const cel_val *v) {
    switch ((cel_vkind)v->k) {
    case CV_NULL: return "null_type";
    case CV_BOOL: return "bool";
    case CV_INT: return "int";
    case CV_UINT: return "uint";
    case CV_DOUBLE: return "double";
    case CV_STRING: return "string";
    case CV_BYTES: return "bytes";
    case CV_LIST: return "list";
    case CV_MAP:
    case CV_DEVMAP:
    case CV_DEVDOM:
    case CV_DEVICE: return "map";
    case CV_QTY: return "kubernetes.Quantity";
    case CV_SEMVER: return "kubernetes.Semver";
    case CV_ERR: return "error";
    }
    return "?";
}

/* mirrors DeviceMatches */
kp_status kp__cel_eval_device(const kp_cel_program *p, const kp_cel_device *d, bool *match,
                              kp_error *err) {
    *match = false;
    cel_ctx x; /* field by field: the inline scratch area needs no zeroing */
    cel_val local[16];
    x.dev = d;
    x.inl_used = 0;
    x.cost = 0;
    x.re = NULL;
    x.re_work = NULL;
    x.re_work_cap = 0;
    x.oom = false;
    kp__arena_init(&x.scratch);
    x.slots = local;
    if (p->n_slots > 16 && !(x.slots = kp__cel_alloc(&x, p->n_slots * sizeof *x.slots))) {
        kp__arena_fini(&x.scratch);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    cel_val v = kp__cel_eval(&x, p->root);
    kp_status st = KP_OK;
    if (x.oom) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    else if (x.cost > KP__CEL_MAX_COST)
        st = kp_error_set(err, KP_EINVAL, "operation cancelled: actual cost limit exceeded");
    else if (v.k == CV_ERR) st = kp_error_set(err, KP_EINVAL, "%s", v.u.s);
    else if (v.k != CV_BOOL)
        st = kp_error_set(err, KP_EINVAL, "CEL result of type %s could not be converted to bool",
                          result_type(&v));
    else *match = v.u.b;
    kp__arena_fini(&x.scratch);
    return st;
}
