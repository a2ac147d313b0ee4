/* Checked arithmetic on amounts and quantities (include/kprio/quantity.h): sums of requests,
 * limits and capacities that cannot be held are KP_ERANGE, never a wrapped value. Split from
 * quantity.c (parsing and formatting). */
#include <stdint.h>

#include "kprio/quantity.h"

kp_status kp_amount_add(int64_t a, int64_t b, int64_t *out) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return KP_ERANGE;
    *out = r;
    return KP_OK;
}

kp_status kp_amount_sub(int64_t a, int64_t b, int64_t *out) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return KP_ERANGE;
    *out = r;
    return KP_OK;
}

kp_status kp_amount_mul(int64_t a, int64_t count, int64_t *out) {
    int64_t r;
    if (__builtin_mul_overflow(a, count, &r)) return KP_ERANGE;
    *out = r;
    return KP_OK;
}

int kp_amount_cmp(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* mirrors int64Amount.Add (Quantity.Add without the inf.Dec fallback): a zero addend changes
 * nothing, a zero receiver takes the addend's amount, otherwise the larger scale is brought down
 * to the smaller one and the mantissas added; KP_ERANGE (a unchanged) when that leaves int64,
 * where upstream switches to inf.Dec. The format is the caller's business (Quantity.Add gives a
 * zero receiver the addend's format). */
kp_status kp_quantity_add(kp_quantity *a, const kp_quantity *b) {
    if (b->mant == 0) return KP_OK;
    if (a->mant == 0) {
        a->mant = b->mant;
        a->scale = b->scale;
        return KP_OK;
    }
    int32_t sc = a->scale < b->scale ? a->scale : b->scale;
    int64_t x = a->mant, y = b->mant;
    for (int32_t i = sc; i < a->scale; i++) {
        if (x > INT64_MAX / 10 || x < INT64_MIN / 10) return KP_ERANGE;
        x *= 10;
    }
    for (int32_t i = sc; i < b->scale; i++) {
        if (y > INT64_MAX / 10 || y < INT64_MIN / 10) return KP_ERANGE;
        y *= 10;
    }
    if ((y > 0 && x > INT64_MAX - y) || (y < 0 && x < INT64_MIN - y)) return KP_ERANGE;
    a->mant = x + y;
    a->scale = sc;
    return KP_OK;
}
