/* Kubernetes resource.Quantity: exact parsing, comparison and canonical formatting.
 *
 * Mirrors k8s.io/apimachinery/pkg/api/resource (ParseQuantity, Quantity.String, Value,
 * MilliValue). A quantity is held exactly as value * 10^scale with scale >= -9 (upstream rounds
 * every parsed value up in magnitude to nano units). Values whose mantissa does not fit in int64
 * after normalisation, or whose normalised scale exceeds 36, are rejected with KP_ERANGE instead of
 * being wrapped. See docs/internals/quantity.md for the remaining differences from upstream.
 *
 * Typical use:
 *     kp_quantity q;
 *     if (kp_quantity_parse("1.5Gi", 5, &q, &err) == KP_OK)
 *         printf("%s\n", kp_quantity_string(&q).s);                        // "1536Mi"
 *     printf("%s\n", kp_quantity_string_milli(1500, KP_QFMT_DECIMAL_SI).s); // "1500m" */
#ifndef KP_QUANTITY_H
#define KP_QUANTITY_H

#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KP_QFMT_DECIMAL_SI = 0, /* 1k, 500m, 2M */
    KP_QFMT_BINARY_SI = 1, /* 1Ki, 2Gi */
    KP_QFMT_DECIMAL_EXP = 2 /* 1e3 */
} kp_qformat;

/* Plain value type. The exact amount is mant * 10^scale. */
typedef struct kp_quantity {
    int64_t mant;
    int32_t scale; /* power of ten, >= -9 */
    kp_qformat format; /* remembered from the suffix, as upstream */
} kp_quantity;

/* Parses s[0..len) (not necessarily NUL-terminated). On failure returns KP_EINVAL (or KP_ERANGE
 * for magnitudes that cannot be held) and writes an upstream-worded reason into err
 * ("quantities must match the regular expression ...", "unable to parse quantity's suffix"). */
kp_status kp_quantity_parse(const char *s, size_t len, kp_quantity *out, kp_error *err);

/* Exact quantity from an integer, like resource.NewQuantity(v, format). */
kp_quantity kp_quantity_from_int(int64_t v, kp_qformat format);
/* Exact quantity v/1000, like resource.NewMilliQuantity(v, format). */
kp_quantity kp_quantity_from_milli(int64_t v, kp_qformat format);

/* Value() rounded up away from zero. Returns KP_ERANGE if it does not fit in int64. */
kp_status kp_quantity_value(const kp_quantity *q, int64_t *out);
/* MilliValue(): value*1000 rounded up away from zero. KP_ERANGE on overflow. */
kp_status kp_quantity_milli_value(const kp_quantity *q, int64_t *out);

/* Exact comparison: <0, 0, >0. */
int kp_quantity_cmp(const kp_quantity *a, const kp_quantity *b);

/* Checked arithmetic on integer amounts in the model's units (millicores, bytes, counts): the
 * single copy every sum of requests, limits or capacities goes through. Each writes *out and
 * returns KP_OK, or returns KP_ERANGE and leaves *out untouched when the exact result does not fit
 * in int64 (upstream's Quantity arithmetic would switch to arbitrary precision; kprio reports the
 * amount instead of carrying a wrapped one). */
kp_status kp_amount_add(int64_t a, int64_t b, int64_t *out);
kp_status kp_amount_sub(int64_t a, int64_t b, int64_t *out);
/* a * count, e.g. a per-pod amount times a number of replicas. */
kp_status kp_amount_mul(int64_t a, int64_t count, int64_t *out);
/* <0, 0, >0. */
int kp_amount_cmp(int64_t a, int64_t b);

/* This many bytes hold the canonical string (with NUL) of every quantity that
 * kp_quantity_parse, kp_quantity_from_int or kp_quantity_from_milli can produce (the longest is
 * 39 characters, e.g. "-9223372036854775807000000000000000000E"). */
#define KP_QUANTITY_STR_MAX 48

/* A formatted quantity, by value: s is NUL-terminated. */
typedef struct {
    char s[KP_QUANTITY_STR_MAX];
} kp_quantity_str;

/* Canonical string as Quantity.String() prints it ("100Mi", "1500m", "2k", "0"). */
kp_quantity_str kp_quantity_string(const kp_quantity *q);

/* Upstream ParseQuantity caches the input string when a cheap test says it is already canonical,
 * and Quantity.String() then returns the input verbatim, even where it differs from the canonical
 * form ("+1Ki", "01", "1.", "1E3", "1.500", "15e0"). Returns true when upstream would do that for
 * s[0..len); a caller that needs String() parity (e.g. threshold values in eviction messages) then
 * prints the original text instead of kp_quantity_string(). Only meaningful for strings that
 * kp_quantity_parse accepts. */
bool kp_quantity_parse_keeps_string(const char *s, size_t len);

/* Convenience: canonical string of an integer amount in the given format
 * (NewQuantity(v, fmt).String()) and of a milli amount (NewMilliQuantity(v, fmt).String()). */
kp_quantity_str kp_quantity_string_int(int64_t v, kp_qformat format);
kp_quantity_str kp_quantity_string_milli(int64_t v, kp_qformat format);

/* a += b exactly (Quantity.Add for amounts that fit int64); KP_ERANGE, a unchanged, beyond
 * int64. a->format is kept. */
kp_status kp_quantity_add(kp_quantity *a, const kp_quantity *b);

#ifdef __cplusplus
}
#endif
#endif
