/* resource.Quantity: parsing, rounding, comparison and canonical formatting.
 *
 * Behaviour follows k8s.io/apimachinery/pkg/api/resource at eed236ce (quantity.go, amount.go,
 * suffix.go, math.go). The code is an independent C implementation: instead of upstream's two
 * representations (int64Amount fast path plus inf.Dec fallback) it computes the exact
 * mathematical result of every parse and then stores it as mant * 10^scale. Upstream's fast and
 * slow paths give the same values, so only the result matters. See docs/internals/quantity.md.
 *
 * Choices where upstream cannot be mirrored (documented in the doc as well):
 *   - Upstream falls back to arbitrary precision (inf.Dec). Here a value must fit an int64
 *     mantissa after trailing zeros move into the scale, and the normalised scale must be at most
 *     QTY_MAX_SCALE (36, i.e. |v| < 10^56). Anything else is KP_ERANGE
 *     (`quantity "X" is too large`). Wrapping never happens.
 *   - BinarySI magnitudes above 2^63-1 are capped at 2^63-1, as upstream does (ParseQuantity's
 *     "The max is just a simple cap"). The cap is exactly representable, so "9Ei" and
 *     "9223372036854775807Ki" parse successfully to 9223372036854775807, just as upstream does.
 *     DecimalSI / DecimalExponent values are never capped upstream; that is also the case here,
 *     within the representable range above.
 *   - Upstream truncates a parsed exponent ("1e<N>") to int32. Here the exponent is used as the
 *     exact int64 value (exponents that do not fit int64 are ErrSuffix, like upstream).
 *   - Upstream's String() cannot print DecimalSI values whose canonical exponent exceeds 18 (it
 *     prints the mantissa with no suffix, which changes the value). Here zeros are appended up
 *     to the "E" suffix instead: 10^21 prints "1000E".
 *   - Value()/MilliValue() always round away from zero. Upstream does so on its int64 path, but
 *     its inf.Dec path truncates negative values and adds one (-1.0000000001 -> 0). Overflow is
 *     KP_ERANGE here; upstream saturates or wraps.
 *   - String() caching of the input text is not reproduced by kp_quantity_string; see
 *     kp_quantity_parse_keeps_string(). */
#include <stdio.h>
#include <string.h>

#include "core/quantity.h"

#define QTY_MAX_SCALE 36
#define QTY_MIN_SCALE (-9)
/* Exponents are clamped to this magnitude before any arithmetic. Anything beyond it gives the
 * same result as the clamp (too large, rounds up to 1n, or zero) for any input that fits in
 * memory, and keeps every later int64 sum far from overflow. */
#define QTY_EXP_CLAMP ((int64_t)1 << 60)

static const char qty_err_format[] =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
static const char qty_err_numeric[] = "unable to parse numeric part of quantity";
static const char qty_err_suffix[] = "unable to parse quantity's suffix";

#define U64_2POW63 ((uint64_t)1 << 63)

/* ------------------------------------------------------------------------------------------ */
/* Small fixed-size unsigned bignum (little-endian 32-bit limbs). Only used for BinarySI       */
/* parsing and for BinarySI formatting of values that do not fit 64 bits.                     */

#define BN_LIMBS 20 /* 640 bits */

typedef struct {
    uint32_t w[BN_LIMBS];
    int overflow; /* a result did not fit; callers treat it as "huge" */
} bn_t;

static void bn_set_u64(bn_t *a, uint64_t v) {
    memset(a, 0, sizeof *a);
    a->w[0] = (uint32_t)v;
    a->w[1] = (uint32_t)(v >> 32);
}

/* a = a * m + add */
static void bn_mul_add(bn_t *a, uint32_t m, uint32_t add) {
    uint64_t carry = add;
    for (int i = 0; i < BN_LIMBS; i++) {
        uint64_t t = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) a->overflow = 1;
}

/* a = a / d, returns a % d (d > 0) */
static uint32_t bn_divmod(bn_t *a, uint32_t d) {
    uint64_t rem = 0;
    for (int i = BN_LIMBS - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | a->w[i];
        a->w[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    return (uint32_t)rem;
}

static void bn_shl(bn_t *a, unsigned bits) {
    while (bits >= 16) {
        bn_mul_add(a, 1u << 16, 0);
        bits -= 16;
    }
    if (bits) bn_mul_add(a, 1u << bits, 0);
}

static int bn_is_zero(const bn_t *a) {
    for (int i = 0; i < BN_LIMBS; i++)
        if (a->w[i]) return 0;
    return 1;
}

static int bn_cmp(const bn_t *a, const bn_t *b) {
    for (int i = BN_LIMBS - 1; i >= 0; i--) {
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    }
    return 0;
}

static int bn_to_u64(const bn_t *a, uint64_t *out) {
    for (int i = 2; i < BN_LIMBS; i++)
        if (a->w[i]) return 0;
    *out = ((uint64_t)a->w[1] << 32) | a->w[0];
    return 1;
}

/* Writes the decimal digits of a (destroys a). Returns the digit count; buf needs 200 bytes. */
static size_t bn_to_dec(bn_t *a, char *buf, size_t cap) {
    char tmp[200];
    size_t n = 0;
    do {
        uint32_t chunk = bn_divmod(a, 1000000000u);
        int last = bn_is_zero(a);
        for (int k = 0; k < 9; k++) {
            if (last && chunk == 0 && k > 0) break;
            if (n < sizeof tmp) tmp[n++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
        if (last) break;
    } while (1);
    size_t len = 0;
    while (n > 0 && len + 1 < cap) buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

/* ------------------------------------------------------------------------------------------ */
/* Helpers on magnitudes.                                                                      */

static uint64_t qty_umag(int64_t v) { return v < 0 ? (uint64_t)(-(v + 1)) + 1u : (uint64_t)v; }

/* Signed mantissa from a magnitude that the caller has checked against the limit. */
static int64_t qty_from_mag(int negative, uint64_t mag) {
    if (!negative) return (int64_t)mag;
    if (mag == U64_2POW63) return INT64_MIN;
    return -(int64_t)mag;
}

static uint64_t qty_mag_limit(int negative) { return negative ? U64_2POW63 : U64_2POW63 - 1; }

static size_t u64_to_dec(uint64_t v, char *buf) {
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

/* Compares |a| = ua*10^ea with |b| = ub*10^eb (both magnitudes non-zero). */
static int qty_cmp_mag(uint64_t ua, int64_t ea, uint64_t ub, int64_t eb) {
    while (ua % 10 == 0) {
        ua /= 10;
        ea++;
    }
    while (ub % 10 == 0) {
        ub /= 10;
        eb++;
    }
    char da[24], db[24];
    int64_t na = (int64_t)u64_to_dec(ua, da), nb = (int64_t)u64_to_dec(ub, db);
    /* The leading digit of |a| sits at 10^(na+ea-1). */
    if (na + ea != nb + eb) return na + ea > nb + eb ? 1 : -1;
    int64_t n = na > nb ? na : nb;
    for (int64_t i = 0; i < n; i++) {
        char ca = i < na ? da[i] : '0', cb = i < nb ? db[i] : '0';
        if (ca != cb) return ca > cb ? 1 : -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Scanner: mirrors upstream parseQuantityString, including which inputs are ErrFormatWrong.   */

typedef struct {
    int negative;
    int has_digits; /* the numeric part contained at least one digit */
    const char *num; /* integer digits after leading zeros were stripped */
    size_t num_len;
    const char *den; /* fraction digits */
    size_t den_len;
    const char *suf;
    size_t suf_len;
} qty_scan;

static int qty_isdigit(char c) { return c >= '0' && c <= '9'; }

static int qty_is_suffix_char(char c) { return c != '\0' && strchr("eEinumkKMGTP", c) != NULL; }

/* Returns 1 on success, 0 for ErrFormatWrong. */
static int qty_scan_string(const char *s, size_t len, qty_scan *sc) {
    size_t pos = 0;
    memset(sc, 0, sizeof *sc);
    sc->suf = s + len;
    sc->num = sc->den = s + len;
    if (pos < len && (s[0] == '-' || s[0] == '+')) {
        sc->negative = s[0] == '-';
        pos++;
    }
    while (pos < len && s[pos] == '0') {
        pos++;
        sc->has_digits = 1;
    }
    if (pos >= len) return 1; /* only a sign and zeros: the value is zero */
    size_t start = pos;
    while (pos < len && qty_isdigit(s[pos])) pos++;
    sc->num = s + start;
    sc->num_len = pos - start;
    if (sc->num_len) sc->has_digits = 1;
    if (pos >= len) return 1;
    if (s[pos] == '.') {
        pos++;
        start = pos;
        while (pos < len && qty_isdigit(s[pos])) pos++;
        sc->den = s + start;
        sc->den_len = pos - start;
        if (sc->den_len) sc->has_digits = 1;
        if (pos >= len) return 1;
    }
    size_t suf_start = pos;
    while (pos < len && qty_is_suffix_char(s[pos])) pos++;
    if (pos < len && (s[pos] == '-' || s[pos] == '+')) pos++;
    while (pos < len && qty_isdigit(s[pos])) pos++;
    if (pos < len) return 0;
    sc->suf = s + suf_start;
    sc->suf_len = len - suf_start;
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Suffixes.                                                                                   */

typedef struct {
    int binary; /* 1: value * 2^exp; 0: value * 10^exp */
    int64_t exp;
    kp_qformat format;
} qty_suffix;

/* strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no overflow. */
static int qty_parse_i64(const char *s, size_t n, int64_t *out) {
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i >= n) return 0;
    uint64_t v = 0, lim = qty_mag_limit(neg);
    for (; i < n; i++) {
        if (!qty_isdigit(s[i])) return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = qty_from_mag(neg, v);
    return 1;
}

static int qty_interpret_suffix(const char *s, size_t n, qty_suffix *out) {
    static const struct {
        const char *name;
        int binary;
        int exp;
    } table[] = {
        {"", 0, 0},    {"n", 0, -9},  {"u", 0, -6},  {"m", 0, -3},  {"k", 0, 3},   {"M", 0, 6},
        {"G", 0, 9},   {"T", 0, 12},  {"P", 0, 15},  {"E", 0, 18},  {"Ki", 1, 10}, {"Mi", 1, 20},
        {"Gi", 1, 30}, {"Ti", 1, 40}, {"Pi", 1, 50}, {"Ei", 1, 60},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t tn = strlen(table[i].name);
        if (tn == n && memcmp(table[i].name, s, n) == 0) {
            out->binary = table[i].binary;
            out->exp = table[i].exp;
            out->format = table[i].binary ? KP_QFMT_BINARY_SI : KP_QFMT_DECIMAL_SI;
            return 1;
        }
    }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        int64_t e;
        if (!qty_parse_i64(s + 1, n - 1, &e)) return 0;
        out->binary = 0;
        out->exp = e;
        out->format = KP_QFMT_DECIMAL_EXP;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Digits of the number: the virtual concatenation num ++ den.                                 */

typedef struct {
    const char *a;
    size_t na;
    const char *b;
    size_t nb;
} qty_digits;

static int qty_digit(const qty_digits *d, size_t i) {
    return i < d->na ? d->a[i] - '0' : d->b[i - d->na] - '0';
}

/* Accumulates digits [from, from+count) into *out; 0 if the value exceeds lim. */
static int qty_digits_u64(const qty_digits *d, size_t from, size_t count, uint64_t lim,
                          uint64_t *out) {
    uint64_t v = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned dg = (unsigned)qty_digit(d, from + i);
        if (v > (lim - dg) / 10) return 0;
        v = v * 10 + dg;
    }
    *out = v;
    return 1;
}

static void qty_digits_bn(const qty_digits *d, size_t from, size_t count, bn_t *out) {
    bn_set_u64(out, 0);
    for (size_t i = 0; i < count; i++) bn_mul_add(out, 10, (uint32_t)qty_digit(d, from + i));
}

static int64_t qty_clamp_exp(int64_t e) {
    if (e > QTY_EXP_CLAMP) return QTY_EXP_CLAMP;
    if (e < -QTY_EXP_CLAMP) return -QTY_EXP_CLAMP;
    return e;
}

static kp_status qty_too_large(const char *s, size_t len, kp_error *err) {
    int shown = len > 100 ? 100 : (int)len;
    return kp_error_set(err, KP_ERANGE, "quantity \"%.*s%s\" is too large", shown, s,
                        len > 100 ? "..." : "");
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing.                                                                                     */

/* Decimal suffix: |v| = D * 10^E with D = digits[0..L) (no leading or trailing zeros). */
static int qty_round_decimal(const qty_digits *dg, size_t L, int64_t E, int negative, int64_t *mant,
                             int64_t *scale) {
    uint64_t lim = qty_mag_limit(negative), mag;
    if (E >= QTY_MIN_SCALE) {
        if (L > 20 || !qty_digits_u64(dg, 0, L, lim, &mag)) return 0;
        if (E > QTY_MAX_SCALE) return 0;
        *mant = qty_from_mag(negative, mag);
        *scale = E;
        return 1;
    }
    /* Round up in magnitude to 10^-9: keep the first L-k digits and add one. The dropped
     * part is never zero because D does not end in 0. */
    uint64_t k = (uint64_t)(QTY_MIN_SCALE - E);
    if (k >= L) {
        *mant = negative ? -1 : 1;
        *scale = QTY_MIN_SCALE;
        return 1;
    }
    size_t keep = L - (size_t)k;
    size_t j = keep; /* last position that is not 9 */
    while (j > 0 && qty_digit(dg, j - 1) == 9) j--;
    if (j == 0) { /* 999..9 + 1 = 10^keep */
        int64_t sc = QTY_MIN_SCALE + (int64_t)keep;
        if (sc > QTY_MAX_SCALE) return 0;
        *mant = negative ? -1 : 1;
        *scale = sc;
        return 1;
    }
    /* Mantissa = digits[0..j-1) followed by digit[j-1]+1, then (keep-j) dropped zeros. */
    if (j > 20 || !qty_digits_u64(dg, 0, j - 1, UINT64_MAX, &mag)) return 0;
    unsigned last = (unsigned)qty_digit(dg, j - 1) + 1;
    if (mag > (lim - last) / 10) return 0;
    mag = mag * 10 + last;
    int64_t sc = QTY_MIN_SCALE + (int64_t)(keep - j);
    if (sc > QTY_MAX_SCALE) return 0;
    *mant = qty_from_mag(negative, mag);
    *scale = sc;
    return 1;
}

/* Binary suffix: |v| = D * 10^E * 2^b. Rounds up to 10^-9, caps at 2^63-1.
 * Returns 1 ok, 0 unrepresentable. *lt_one is set when 0 < |v| < 1 after rounding. */
static int qty_round_binary(const qty_digits *dg, size_t L, int64_t E, unsigned b, int negative,
                            int64_t *mant, int64_t *scale, int *lt_one) {
    bn_t M, cap_n, one_n;
    *lt_one = 0;
    /* cap * 10^9 and 10^9 in nano units */
    bn_set_u64(&cap_n, U64_2POW63 - 1);
    bn_mul_add(&cap_n, 1000000000u, 0);
    bn_set_u64(&one_n, 1000000000u);

    int capped = 0;
    if ((int64_t)L + E >= 20) {
        capped = 1; /* |v| >= 10^19 > 2^63-1 */
    } else {
        int64_t t = E + 9; /* M = D * 2^b * 10^t */
        if (t >= 0) {
            qty_digits_bn(dg, 0, L, &M);
            for (int64_t i = 0; i < t; i++) bn_mul_add(&M, 10, 0);
            bn_shl(&M, b);
        } else {
            uint64_t s = (uint64_t)(-t);
            if (s <= b) {
                /* M = ceil(D * 2^(b-s) / 5^s) */
                qty_digits_bn(dg, 0, L, &M);
                bn_shl(&M, b - (unsigned)s);
                int inexact = 0;
                for (uint64_t i = 0; i < s; i++)
                    if (bn_divmod(&M, 5)) inexact = 1;
                if (inexact) bn_mul_add(&M, 1, 1);
            } else {
                /* D * 2^b / 10^s = D / (10^(s-b) * 5^b): never exact since 10 does not
                 * divide D, so M = floor(floor(D / 10^(s-b)) / 5^b) + 1. */
                uint64_t drop = s - b;
                size_t keep = drop >= L ? 0 : L - (size_t)drop;
                qty_digits_bn(dg, 0, keep, &M);
                for (unsigned i = 0; i < b; i++) bn_divmod(&M, 5);
                bn_mul_add(&M, 1, 1);
            }
        }
        if (M.overflow || bn_cmp(&M, &cap_n) > 0) capped = 1;
    }
    if (capped) {
        *mant = negative ? -(int64_t)(U64_2POW63 - 1) : (int64_t)(U64_2POW63 - 1);
        *scale = 0;
        return 1;
    }
    if (bn_cmp(&M, &one_n) < 0) *lt_one = 1;
    int64_t sc = QTY_MIN_SCALE;
    for (;;) {
        bn_t tmp = M;
        if (bn_divmod(&tmp, 10) != 0) break;
        M = tmp;
        sc++;
    }
    uint64_t mag;
    if (!bn_to_u64(&M, &mag) || mag > qty_mag_limit(negative)) return 0;
    *mant = qty_from_mag(negative, mag);
    *scale = sc;
    return 1;
}

kp_status kp_quantity_parse(const char *s, size_t len, kp_quantity *out, kp_error *err) {
    kp_quantity zero = {0, 0, KP_QFMT_DECIMAL_SI};
    if (out) *out = zero;
    if (!s || len == 0) return kp_error_set(err, KP_EINVAL, "%s", qty_err_format);
    if (len == 1 && s[0] == '0') return KP_OK;

    qty_scan sc;
    if (!qty_scan_string(s, len, &sc)) return kp_error_set(err, KP_EINVAL, "%s", qty_err_format);
    qty_suffix suf;
    if (!qty_interpret_suffix(sc.suf, sc.suf_len, &suf))
        return kp_error_set(err, KP_EINVAL, "%s", qty_err_suffix);

    /* Upstream quirk: a numeric part without any digit ("", "+", ".", "-.") is zero, except
     * when ParseQuantity leaves its int64 fast path; then inf.Dec rejects the digitless
     * string with ErrNumeric. That happens for decimal exponents below -9 (".e-10") and for
     * the Pi and Ei suffixes, whose fast-path precision estimate is negative. */
    if (!sc.has_digits) {
        if ((!suf.binary && suf.exp < QTY_MIN_SCALE) || (suf.binary && suf.exp >= 50))
            return kp_error_set(err, KP_EINVAL, "%s", qty_err_numeric);
    }

    qty_digits dg = {sc.num, sc.num_len, sc.den, sc.den_len};
    size_t total = sc.num_len + sc.den_len, lead = 0, trail = 0;
    while (lead < total && qty_digit(&dg, lead) == 0) lead++;
    kp_quantity q = {0, 0, suf.format};
    if (lead == total) { /* zero keeps the suffix's format, as upstream */
        if (out) *out = q;
        return KP_OK;
    }
    while (qty_digit(&dg, total - 1 - trail) == 0) trail++;
    /* Re-base the digit view on the significant digits. */
    qty_digits sig;
    if (lead < sc.num_len) {
        sig.a = sc.num + lead;
        sig.na = sc.num_len - lead;
        sig.b = sc.den;
        sig.nb = sc.den_len;
    } else {
        sig.a = sc.den + (lead - sc.num_len);
        sig.na = sc.den_len - (lead - sc.num_len);
        sig.b = sc.den + sc.den_len;
        sig.nb = 0;
    }
    size_t L = total - lead - trail;
    /* |v| = sig[0..L) * 10^E (* 2^b for binary suffixes) */
    int64_t E = suf.binary ? 0 : qty_clamp_exp(suf.exp);
    E = E - (int64_t)sc.den_len + (int64_t)trail;

    int64_t mant, scale;
    if (suf.binary) {
        int lt_one;
        if (!qty_round_binary(&sig, L, E, (unsigned)suf.exp, sc.negative, &mant, &scale, &lt_one))
            return qty_too_large(s, len, err);
        if (lt_one) q.format = KP_QFMT_DECIMAL_SI;
    } else {
        if (!qty_round_decimal(&sig, L, E, sc.negative, &mant, &scale))
            return qty_too_large(s, len, err);
    }
    q.mant = mant;
    q.scale = (int32_t)scale;
    if (out) *out = q;
    return KP_OK;
}

bool kp_quantity_parse_keeps_string(const char *s, size_t len) {
    if (!s || len == 0) return false;
    if (len == 1 && s[0] == '0') return true;
    qty_scan sc;
    qty_suffix suf;
    if (!qty_scan_string(s, len, &sc)) return false;
    if (!qty_interpret_suffix(sc.suf, sc.suf_len, &suf)) return false;
    /* upstream substitutes "0" for an empty integer part */
    const char *num = sc.num_len ? sc.num : "0";
    size_t num_len = sc.num_len ? sc.num_len : 1;
    if (suf.binary) {
        if (sc.den_len) return false; /* slow path */
        int64_t precision = 15 - (int64_t)num_len - suf.exp * 3 / 10 - 1;
        if (precision < 0) return false;
        uint64_t v = 0;
        for (size_t i = 0; i < num_len; i++) v = v * 10 + (uint64_t)(num[i] - '0');
        return (v & 7) != 0;
    }
    if (suf.exp < INT32_MIN || suf.exp > INT32_MAX) return false;
    if (18 - (int64_t)(num_len + sc.den_len) < 0) return false;
    int64_t scale = suf.exp - (int64_t)sc.den_len;
    if (scale < QTY_MIN_SCALE || scale % 3 != 0) return false;
    /* shifted = num ++ den */
    if (num[0] == '0') return false;
    size_t sl = num_len + sc.den_len;
    if (sl >= 3) {
        int zeros = 1;
        for (size_t i = sl - 3; i < sl; i++) {
            char c = i < num_len ? num[i] : sc.den[i - num_len];
            if (c != '0') zeros = 0;
        }
        if (zeros) return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Constructors, accessors, comparison.                                                         */

kp_quantity kp_quantity_from_int(int64_t v, kp_qformat format) {
    kp_quantity q = {v, 0, format};
    return q;
}

kp_quantity kp_quantity_from_milli(int64_t v, kp_qformat format) {
    kp_quantity q = {v, -3, format};
    return q;
}

/* ceil-away-from-zero of q / 10^target. */
static kp_status qty_scaled_value(const kp_quantity *q, int64_t target, int64_t *out) {
    if (!q || !out) return KP_EINVAL;
    *out = 0;
    if (q->mant == 0) return KP_OK;
    int negative = q->mant < 0;
    uint64_t mag = qty_umag(q->mant), lim = qty_mag_limit(negative);
    int64_t delta = (int64_t)q->scale - target;
    if (delta >= 0) {
        if (mag > lim) return KP_ERANGE;
        for (int64_t i = 0; i < delta; i++) {
            if (mag > lim / 10) return KP_ERANGE;
            mag *= 10;
        }
    } else {
        uint64_t quot = 0, rem = mag;
        if (delta >= -19) {
            uint64_t p = 1;
            for (int64_t i = 0; i < -delta; i++) p *= 10;
            quot = mag / p;
            rem = mag % p;
        }
        mag = quot + (rem != 0); /* quot <= 2^64/10, no overflow */
    }
    *out = qty_from_mag(negative, mag);
    return KP_OK;
}

kp_status kp_quantity_value(const kp_quantity *q, int64_t *out) {
    return qty_scaled_value(q, 0, out);
}

kp_status kp_quantity_milli_value(const kp_quantity *q, int64_t *out) {
    return qty_scaled_value(q, -3, out);
}

int kp_quantity_cmp(const kp_quantity *a, const kp_quantity *b) {
    int sa = (a->mant > 0) - (a->mant < 0), sb = (b->mant > 0) - (b->mant < 0);
    if (sa != sb) return sa < sb ? -1 : 1;
    if (sa == 0) return 0;
    int r = qty_cmp_mag(qty_umag(a->mant), a->scale, qty_umag(b->mant), b->scale);
    return sa > 0 ? r : -r;
}

/* ------------------------------------------------------------------------------------------ */
/* Formatting.                                                                                  */

typedef struct {
    char *buf;
    size_t cap;
    size_t len;
} qty_out;

static void out_ch(qty_out *o, char c) {
    if (o->buf && o->len + 1 < o->cap) o->buf[o->len] = c;
    o->len++;
}

static void out_str(qty_out *o, const char *s) {
    while (*s) out_ch(o, *s++);
}

static void out_zeros(qty_out *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) out_ch(o, '0');
}

static void out_i64(qty_out *o, int64_t v) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    out_str(o, tmp);
}

static size_t out_finish(qty_out *o) {
    if (o->buf && o->cap > 0) o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

static const char *qty_decimal_si_suffix(int64_t exp) {
    switch (exp) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
    default: return NULL;
    }
}

/* AsCanonicalBytes + decimal suffix: |v| = mag * 10^exp, mag > 0. */
static void qty_format_decimal(qty_out *o, int negative, uint64_t mag, int64_t exp,
                               kp_qformat fmt) {
    while (mag % 10 == 0) {
        mag /= 10;
        exp++;
    }
    int64_t pad = ((exp % 3) + 3) % 3; /* lower the exponent to a multiple of 3 */
    exp -= pad;
    char digits[24];
    u64_to_dec(mag, digits);
    if (negative) out_ch(o, '-');
    out_str(o, digits);
    if (fmt == KP_QFMT_DECIMAL_SI) {
        const char *sfx = qty_decimal_si_suffix(exp);
        if (sfx) {
            out_zeros(o, pad);
            out_str(o, sfx);
            return;
        }
        if (exp > 18 && exp <= QTY_MAX_SCALE) {
            /* upstream has no suffix above E and would drop the exponent */
            out_zeros(o, pad + exp - 18);
            out_ch(o, 'E');
            return;
        }
        /* Outside what parsing can produce (hand-built values): exponent notation. */
    }
    out_zeros(o, pad);
    if (exp != 0) {
        out_ch(o, 'e');
        out_i64(o, exp);
    }
}

size_t kp__quantity_format(const kp_quantity *q, char *buf, size_t cap) {
    qty_out o = {buf, cap, 0};
    if (!q || q->mant == 0) {
        out_ch(&o, '0');
        return out_finish(&o);
    }
    int negative = q->mant < 0;
    uint64_t mag = qty_umag(q->mant);
    int64_t exp = q->scale;
    kp_qformat fmt = q->format;
    if (fmt != KP_QFMT_DECIMAL_SI && fmt != KP_QFMT_BINARY_SI) fmt = KP_QFMT_DECIMAL_EXP;

    if (fmt == KP_QFMT_BINARY_SI) {
        /* -1024 < v < 1024, or not an integer: printed as DecimalSI */
        uint64_t m = mag;
        int64_t e = exp;
        while (m % 10 == 0) {
            m /= 10;
            e++;
        }
        if (qty_cmp_mag(mag, exp, 1024, 0) < 0 || e < 0 || e > 150) {
            fmt = KP_QFMT_DECIMAL_SI;
        } else {
            bn_t v;
            bn_set_u64(&v, m);
            for (int64_t i = 0; i < e; i++) bn_mul_add(&v, 10, 0);
            static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
            int k = 0;
            while (k < 6) {
                bn_t t = v;
                if (bn_divmod(&t, 1024) != 0) break;
                v = t;
                k++;
            }
            char digits[200];
            bn_to_dec(&v, digits, sizeof digits);
            if (negative) out_ch(&o, '-');
            out_str(&o, digits);
            out_str(&o, bin[k]);
            return out_finish(&o);
        }
    }
    qty_format_decimal(&o, negative, mag, exp, fmt);
    return out_finish(&o);
}

size_t kp__quantity_format_int(int64_t v, kp_qformat format, char *buf, size_t cap) {
    kp_quantity q = kp_quantity_from_int(v, format);
    return kp__quantity_format(&q, buf, cap);
}

size_t kp__quantity_format_milli(int64_t v, kp_qformat format, char *buf, size_t cap) {
    kp_quantity q = kp_quantity_from_milli(v, format);
    return kp__quantity_format(&q, buf, cap);
}

kp_quantity_str kp_quantity_string(const kp_quantity *q) {
    kp_quantity_str s = {{0}};
    kp__quantity_format(q, s.s, sizeof s.s);
    return s;
}

kp_quantity_str kp_quantity_string_int(int64_t v, kp_qformat format) {
    kp_quantity_str s = {{0}};
    kp__quantity_format_int(v, format, s.s, sizeof s.s);
    return s;
}

kp_quantity_str kp_quantity_string_milli(int64_t v, kp_qformat format) {
    kp_quantity_str s = {{0}};
    kp__quantity_format_milli(v, format, s.s, sizeof s.s);
    return s;
}
