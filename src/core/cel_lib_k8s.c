/* CEL for DRA device selectors: Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library
 * quantity.go: quantity, isQuantity, sign, isInteger, asInteger, asApproximateFloat, add, sub,
 * mul, isLessThan, isGreaterThan, compareTo), semver library (semverlib.go, version 1: semver
 * with and without normalization, isSemver, major, minor, patch, isLessThan, isGreaterThan,
 * compareTo; parsing in cel_semver.c), lists library (lists.go: isSorted, sum, min, max,
 * indexOf, lastIndexOf), cel-go's ext.Sets (sets.contains, sets.equivalent, sets.intersects) and
 * the includes function of DRA's list-type attributes. Quantities are kprio's exact kp_quantity:
 * an amount beyond it (a mantissa past int64) is an error where upstream would switch to
 * arbitrary precision. */
#include <math.h>
#include <string.h>

#include "core/cel_internal.h"

static cel_val err_static(const char *msg) {
    cel_val v = {.k = CV_ERR};
    v.u.s = msg;
    return v;
}

/* ---- lists library and sets ---- */

static cel_val l_fold(uint16_t impl, const cel_list *l) {
    if (impl == F_L_SUM && l->n == 0) return kp__cel_int(0);
    if ((impl == F_L_MIN || impl == F_L_MAX) && l->n == 0)
        return err_static(impl == F_L_MIN ? "min called on empty list"
                                          : "max called on empty list");
    cel_val acc = l->v[0];
    for (uint32_t i = 1; i < l->n; i++) {
        const cel_val *e = &l->v[i];
        int c;
        if (impl == F_L_SUM) {
            if (e->k != acc.k) return err_static("no such overload");
            if (acc.k == CV_INT) {
                if (__builtin_add_overflow(acc.u.i, e->u.i, &acc.u.i))
                    return err_static("integer overflow");
            } else if (acc.k == CV_UINT) {
                if (__builtin_add_overflow(acc.u.u, e->u.u, &acc.u.u))
                    return err_static("unsigned integer overflow");
            } else if (acc.k == CV_DOUBLE) {
                acc.u.d += e->u.d;
            } else {
                return err_static("no such overload");
            }
            continue;
        }
        if (!kp__cel_compare(&acc, e, &c)) return err_static("no such overload");
        if (impl == F_L_ISSORTED && c == 1) return kp__cel_bool(false);
        if (impl == F_L_ISSORTED) acc = *e;
        if ((impl == F_L_MIN && c == 1) || (impl == F_L_MAX && c == -1)) acc = *e;
    }
    if (impl == F_L_ISSORTED) return kp__cel_bool(true);
    if (impl == F_L_SUM && acc.k != CV_INT && acc.k != CV_UINT && acc.k != CV_DOUBLE)
        return err_static("no such overload");
    return acc;
}

static cel_val list_has(cel_ctx *x, const cel_list *l, const cel_val *e) {
    for (uint32_t i = 0; i < l->n; i++) {
        cel_val r = kp__cel_equals(x, &l->v[i], e);
        if (r.k != CV_BOOL || r.u.b) return r;
    }
    return kp__cel_bool(false);
}

static cel_val sets(cel_ctx *x, uint16_t impl, const cel_list *a, const cel_list *b) {
    if (impl == F_SETS_INTERSECTS) {
        for (uint32_t i = 0; i < b->n; i++) {
            cel_val r = list_has(x, a, &b->v[i]);
            if (r.k != CV_BOOL || r.u.b) return r;
        }
        return kp__cel_bool(false);
    }
    for (uint32_t i = 0; i < b->n; i++) {
        cel_val r = list_has(x, a, &b->v[i]);
        if (r.k != CV_BOOL || !r.u.b) return r;
    }
    if (impl == F_SETS_EQUIV) {
        for (uint32_t i = 0; i < a->n; i++) {
            cel_val r = list_has(x, b, &a->v[i]);
            if (r.k != CV_BOOL || !r.u.b) return r;
        }
    }
    return kp__cel_bool(true);
}


static cel_val semver_of(cel_ctx *x, const cel_val *s, bool normalize) {
    cel_semver *sv = kp__cel_alloc(x, sizeof *sv);
    if (!sv) return err_static("out of memory");
    if (!kp__cel_semver_parse(s->u.s, s->n, normalize, sv))
        return kp__cel_err(x, "invalid semantic version: %.*s", (int)(s->n > 100 ? 100 : s->n),
                           s->u.s);
    cel_val v = {.k = CV_SEMVER};
    v.u.sv = sv;
    return v;
}

/* ---- quantity ---- */

/* Quantity.AsInt64: the exact integer value when it is one and fits. */
static bool q_int64(const kp_quantity *q, int64_t *out) {
    int64_t m = q->mant;
    int32_t sc = q->scale;
    if (m == 0) {
        *out = 0;
        return true;
    }
    for (; sc < 0; sc++) {
        if (m % 10) return false;
        m /= 10;
    }
    for (; sc > 0; sc--)
        if (__builtin_mul_overflow(m, (int64_t)10, &m)) return false;
    *out = m;
    return true;
}

static cel_val qty(kp_quantity q) {
    cel_val v = {.k = CV_QTY};
    v.u.q = q;
    return v;
}

static cel_val q_addsub(const kp_quantity *a, kp_quantity b, bool sub) {
    if (sub) {
        if (b.mant == INT64_MIN) return err_static("quantity overflow");
        b.mant = -b.mant;
    }
    kp_quantity r = *a;
    if (kp_quantity_add(&r, &b) != KP_OK) return err_static("quantity overflow");
    return qty(r);
}

cel_val kp__cel_call_k8s(cel_ctx *x, const cel_fn *f, const cel_val *a);
cel_val kp__cel_call_k8s(cel_ctx *x, const cel_fn *f, const cel_val *a) {
    kp_quantity q;
    kp_error err;
    int64_t i;
    switch ((cel_impl)f->impl) {
    case F_Q_PARSE: /* mirrors stringToQuantity */
        kp_error_clear(&err);
        if (kp_quantity_parse(a[0].u.s, a[0].n, &q, &err) != KP_OK)
            return kp__cel_err(x, "%s", err.msg);
        return qty(q);
    case F_Q_IS: /* mirrors isQuantity */
        return kp__cel_bool(kp_quantity_parse(a[0].u.s, a[0].n, &q, NULL) == KP_OK);
    case F_Q_SIGN: /* mirrors quantityGetSign */
        return kp__cel_int((a[0].u.q.mant > 0) - (a[0].u.q.mant < 0));
    case F_Q_ISINT: /* mirrors quantityCanValue */ return kp__cel_bool(q_int64(&a[0].u.q, &i));
    case F_Q_ASINT: /* mirrors quantityGetValue */
        if (!q_int64(&a[0].u.q, &i)) return err_static("cannot convert value to integer");
        return kp__cel_int(i);
    case F_Q_ASFLOAT: { /* mirrors quantityGetApproximateFloat */
        cel_val v = {.k = CV_DOUBLE};
        v.u.d = (double)a[0].u.q.mant * pow(10.0, a[0].u.q.scale);
        return v;
    }
    case F_Q_ADD: /* mirrors quantityAdd */ return q_addsub(&a[0].u.q, a[1].u.q, false);
    case F_Q_SUB: /* mirrors quantitySub */ return q_addsub(&a[0].u.q, a[1].u.q, true);
    case F_Q_ADDI: /* mirrors quantityAddInt */
        return q_addsub(&a[0].u.q, kp_quantity_from_int(a[1].u.i, KP_QFMT_DECIMAL_SI), false);
    case F_Q_SUBI: /* mirrors quantitySubInt */
        return q_addsub(&a[0].u.q, kp_quantity_from_int(a[1].u.i, KP_QFMT_DECIMAL_SI), true);
    case F_Q_MUL: {
        /* mirrors quantityMultiplyInt (Quantity.Mul) */
        kp_quantity r = a[0].u.q;
        if (__builtin_mul_overflow(r.mant, a[1].u.i, &r.mant))
            return err_static("quantity overflow");
        return qty(r);
    }
    case F_Q_LT: /* mirrors quantityIsLessThan */
        return kp__cel_bool(kp_quantity_cmp(&a[0].u.q, &a[1].u.q) < 0);
    case F_Q_GT: /* mirrors quantityIsGreaterThan */
        return kp__cel_bool(kp_quantity_cmp(&a[0].u.q, &a[1].u.q) > 0);
    case F_Q_CMP: { /* mirrors quantityCompareTo */
        int c = kp_quantity_cmp(&a[0].u.q, &a[1].u.q);
        return kp__cel_int((c > 0) - (c < 0));
    }
    case F_SV_PARSE: /* mirrors stringToSemverNormalize */ return semver_of(x, &a[0], false);
    case F_SV_PARSEN: return semver_of(x, &a[0], a[1].u.b);
    case F_SV_IS:
    case F_SV_ISN: { /* mirrors isSemverNormalize */
        cel_semver sv;
        bool norm = f->impl == F_SV_ISN && a[1].u.b;
        return kp__cel_bool(kp__cel_semver_parse(a[0].u.s, a[0].n, norm, &sv));
    }
    case F_SV_MAJOR: /* mirrors semverMajor */ return kp__cel_int((int64_t)a[0].u.sv->major);
    case F_SV_MINOR: /* mirrors semverMinor */ return kp__cel_int((int64_t)a[0].u.sv->minor);
    case F_SV_PATCH: /* mirrors semverPatch */ return kp__cel_int((int64_t)a[0].u.sv->patch);
    case F_SV_LT: /* mirrors semverIsLessThan */
        return kp__cel_bool(kp__cel_semver_cmp(a[0].u.sv, a[1].u.sv) < 0);
    case F_SV_GT: /* mirrors semverIsGreaterThan */
        return kp__cel_bool(kp__cel_semver_cmp(a[0].u.sv, a[1].u.sv) > 0);
    case F_SV_CMP: /* mirrors semverCompareTo */
        return kp__cel_int(kp__cel_semver_cmp(a[0].u.sv, a[1].u.sv));
    case F_L_ISSORTED:
    case F_L_SUM:
    case F_L_MIN:
    case F_L_MAX: return l_fold(f->impl, a[0].u.l);
    case F_L_INDEXOF:
    case F_L_LASTINDEXOF: {
        const cel_list *l = a[0].u.l;
        int64_t hit = -1;
        for (uint32_t k = 0; k < l->n; k++) {
            cel_val r = kp__cel_equals(x, &l->v[k], &a[1]);
            if (r.k == CV_ERR) return r;
            if (r.u.b) {
                hit = k;
                if (f->impl == F_L_INDEXOF) break;
            }
        }
        return kp__cel_int(hit);
    }
    case F_SETS_CONTAINS:
    case F_SETS_EQUIV:
    case F_SETS_INTERSECTS: return sets(x, f->impl, a[0].u.l, a[1].u.l);
    case F_INCLUDES:
        /* the list-type attributes' includes: a scalar attribute is a list of one */
        if (a[0].k == CV_LIST) return list_has(x, a[0].u.l, &a[1]);
        return kp__cel_equals(x, &a[0], &a[1]);
    default: return err_static("no such overload");
    }
}
