/* CEL for DRA device selectors: the function table and the standard functions (size,
 * conversions, contains/startsWith/endsWith/matches), cel-go's ext.Strings (version 2: charAt,
 * indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join,
 * strings.quote) and Kubernetes' regex library (find, findAll). The quantity, semver and lists
 * libraries, ext.Sets and includes are in cel_lib_k8s.c. Strings index by code point, as
 * cel-go's do. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cel_internal.h"

#define S TY_STRING
#define I TY_INT
#define B TY_BOOL
#define L TY_LIST
#define Q TY_QTY
#define V TY_SEMVER
/* Rows of one name are contiguous: the evaluator scans from a name's first row. */
const cel_fn kp__cel_fns[] = {
    {"size", false, 1, {S}, I, F_SIZE},
    {"size", false, 1, {TY_BYTES}, I, F_SIZE},
    {"size", false, 1, {L}, I, F_SIZE},
    {"size", false, 1, {TY_MAP}, I, F_SIZE},
    {"size", true, 1, {S}, I, F_SIZE},
    {"size", true, 1, {TY_BYTES}, I, F_SIZE},
    {"size", true, 1, {L}, I, F_SIZE},
    {"size", true, 1, {TY_MAP}, I, F_SIZE},
    {"int", false, 1, {I}, I, F_INT},
    {"int", false, 1, {TY_UINT}, I, F_INT},
    {"int", false, 1, {TY_DOUBLE}, I, F_INT},
    {"int", false, 1, {S}, I, F_INT},
    {"uint", false, 1, {I}, TY_UINT, F_UINT},
    {"uint", false, 1, {TY_UINT}, TY_UINT, F_UINT},
    {"uint", false, 1, {TY_DOUBLE}, TY_UINT, F_UINT},
    {"uint", false, 1, {S}, TY_UINT, F_UINT},
    {"double", false, 1, {I}, TY_DOUBLE, F_DOUBLE},
    {"double", false, 1, {TY_UINT}, TY_DOUBLE, F_DOUBLE},
    {"double", false, 1, {TY_DOUBLE}, TY_DOUBLE, F_DOUBLE},
    {"double", false, 1, {S}, TY_DOUBLE, F_DOUBLE},
    {"string", false, 1, {I}, S, F_STRING},
    {"string", false, 1, {TY_UINT}, S, F_STRING},
    {"string", false, 1, {TY_DOUBLE}, S, F_STRING},
    {"string", false, 1, {S}, S, F_STRING},
    {"string", false, 1, {B}, S, F_STRING},
    {"string", false, 1, {TY_BYTES}, S, F_STRING},
    {"bool", false, 1, {B}, B, F_BOOL},
    {"bool", false, 1, {S}, B, F_BOOL},
    {"bytes", false, 1, {TY_BYTES}, TY_BYTES, F_BYTES},
    {"bytes", false, 1, {S}, TY_BYTES, F_BYTES},
    {"dyn", false, 1, {A_ANY}, TY_DYN, F_DYN},
    {"contains", true, 2, {S, S}, B, F_CONTAINS},
    {"startsWith", true, 2, {S, S}, B, F_STARTS},
    {"endsWith", true, 2, {S, S}, B, F_ENDS},
    {"matches", false, 2, {S, S}, B, F_MATCHES},
    {"matches", true, 2, {S, S}, B, F_MATCHES},
    {"charAt", true, 2, {S, I}, S, F_CHARAT},
    {"indexOf", true, 2, {S, S}, I, F_INDEXOF},
    {"indexOf", true, 3, {S, S, I}, I, F_INDEXOF2},
    {"indexOf", true, 2, {L, A_ANY}, I, F_L_INDEXOF},
    {"lastIndexOf", true, 2, {S, S}, I, F_LASTINDEXOF},
    {"lastIndexOf", true, 3, {S, S, I}, I, F_LASTINDEXOF2},
    {"lastIndexOf", true, 2, {L, A_ANY}, I, F_L_LASTINDEXOF},
    {"lowerAscii", true, 1, {S}, S, F_LOWER},
    {"upperAscii", true, 1, {S}, S, F_UPPER},
    {"replace", true, 3, {S, S, S}, S, F_REPLACE},
    {"replace", true, 4, {S, S, S, I}, S, F_REPLACEN},
    {"split", true, 2, {S, S}, R_LIST_STR, F_SPLIT},
    {"split", true, 3, {S, S, I}, R_LIST_STR, F_SPLITN},
    {"substring", true, 2, {S, I}, S, F_SUBSTR},
    {"substring", true, 3, {S, I, I}, S, F_SUBSTR2},
    {"trim", true, 1, {S}, S, F_TRIM},
    {"join", true, 1, {A_LIST_STR}, S, F_JOIN},
    {"join", true, 2, {A_LIST_STR, S}, S, F_JOINSEP},
    {"strings.quote", false, 1, {S}, S, F_QUOTE},
    {"find", true, 2, {S, S}, S, F_FIND},
    {"findAll", true, 2, {S, S}, R_LIST_STR, F_FINDALL},
    {"findAll", true, 3, {S, S, I}, R_LIST_STR, F_FINDALLN},
    {"isSorted", true, 1, {L}, B, F_L_ISSORTED},
    {"sum", true, 1, {L}, R_ELEM, F_L_SUM},
    {"min", true, 1, {L}, R_ELEM, F_L_MIN},
    {"max", true, 1, {L}, R_ELEM, F_L_MAX},
    {"sets.contains", false, 2, {L, L}, B, F_SETS_CONTAINS},
    {"sets.equivalent", false, 2, {L, L}, B, F_SETS_EQUIV},
    {"sets.intersects", false, 2, {L, L}, B, F_SETS_INTERSECTS},
    {"quantity", false, 1, {S}, Q, F_Q_PARSE},
    {"isQuantity", false, 1, {S}, B, F_Q_IS},
    {"sign", false, 1, {Q}, I, F_Q_SIGN}, /* a global overload upstream */
    {"isInteger", true, 1, {Q}, B, F_Q_ISINT},
    {"asInteger", true, 1, {Q}, I, F_Q_ASINT},
    {"asApproximateFloat", true, 1, {Q}, TY_DOUBLE, F_Q_ASFLOAT},
    {"add", true, 2, {Q, Q}, Q, F_Q_ADD},
    {"add", true, 2, {Q, I}, Q, F_Q_ADDI},
    {"sub", true, 2, {Q, Q}, Q, F_Q_SUB},
    {"sub", true, 2, {Q, I}, Q, F_Q_SUBI},
    {"mul", true, 2, {Q, I}, Q, F_Q_MUL},
    {"isLessThan", true, 2, {Q, Q}, B, F_Q_LT},
    {"isLessThan", true, 2, {V, V}, B, F_SV_LT},
    {"isGreaterThan", true, 2, {Q, Q}, B, F_Q_GT},
    {"isGreaterThan", true, 2, {V, V}, B, F_SV_GT},
    {"compareTo", true, 2, {Q, Q}, I, F_Q_CMP},
    {"compareTo", true, 2, {V, V}, I, F_SV_CMP},
    {"semver", false, 1, {S}, V, F_SV_PARSE},
    {"semver", false, 2, {S, B}, V, F_SV_PARSEN},
    {"isSemver", false, 1, {S}, B, F_SV_IS},
    {"isSemver", false, 2, {S, B}, B, F_SV_ISN},
    {"major", true, 1, {V}, I, F_SV_MAJOR},
    {"minor", true, 1, {V}, I, F_SV_MINOR},
    {"patch", true, 1, {V}, I, F_SV_PATCH},
    {"includes", true, 2, {A_ANY, A_ANY}, B, F_INCLUDES},
};
const size_t kp__cel_n_fns = sizeof kp__cel_fns / sizeof kp__cel_fns[0];
#undef S
#undef I
#undef B
#undef L
#undef Q
#undef V

/* Functions of the Kubernetes CEL base environment that this evaluator does not implement: an
 * expression using one is refused at compile time naming it (never evaluated to a guess). */
bool kp__cel_fn_unsupported(const char *name) {
    static const char *const NAMES[] = {"url",
                                        "isURL",
                                        "getScheme",
                                        "getHost",
                                        "getHostname",
                                        "getPort",
                                        "getEscapedPath",
                                        "getQuery",
                                        "ip",
                                        "isIP",
                                        "cidr",
                                        "isCIDR",
                                        "family",
                                        "isUnspecified",
                                        "isLoopback",
                                        "isLinkLocalMulticast",
                                        "isLinkLocalUnicast",
                                        "isGlobalUnicast",
                                        "containsIP",
                                        "containsCIDR",
                                        "masked",
                                        "prefixLength",
                                        "format",
                                        "strings.format",
                                        "timestamp",
                                        "duration",
                                        "getFullYear",
                                        "getMonth",
                                        "getDayOfYear",
                                        "getDayOfMonth",
                                        "getDate",
                                        "getDayOfWeek",
                                        "getHours",
                                        "getMinutes",
                                        "getSeconds",
                                        "getMilliseconds",
                                        "type",
                                        "optional.of",
                                        "optional.ofNonZeroValue",
                                        "optional.none",
                                        "or",
                                        "orValue",
                                        "hasValue",
                                        "value",
                                        "transformList",
                                        "transformMap",
                                        "transformMapEntry",
                                        "existsOne",
                                        "authorizer",
                                        "reverse",
                                        "div",
                                        "divInt",
                                        "math.greatest",
                                        "math.least",
                                        "base64.encode",
                                        "base64.decode",
                                        "errored",
                                        "reason",
                                        "allowed",
                                        "check",
                                        "path",
                                        "group",
                                        "resource",
                                        "namespace",
                                        "name",
                                        "subresource",
                                        "serviceAccount",
                                        "isImage",
                                        "image",
                                        "containerImage",
                                        "jsonpatch.escapeKey"};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(NAMES[i], name)) return true;
    return false;
}

bool kp__cel_val_is(const cel_val *v, uint8_t at) {
    switch (at) {
    case A_ANY:
    case TY_DYN: return true;
    case A_LIST_STR:
    case TY_LIST: return v->k == CV_LIST;
    case A_NUM: return v->k == CV_INT || v->k == CV_UINT || v->k == CV_DOUBLE;
    case TY_MAP: return v->k == CV_MAP || v->k == CV_DEVMAP || v->k == CV_DEVDOM;
    case TY_NULL: return v->k == CV_NULL;
    case TY_BOOL: return v->k == CV_BOOL;
    case TY_INT: return v->k == CV_INT;
    case TY_UINT: return v->k == CV_UINT;
    case TY_DOUBLE: return v->k == CV_DOUBLE;
    case TY_STRING: return v->k == CV_STRING;
    case TY_BYTES: return v->k == CV_BYTES;
    case TY_QTY: return v->k == CV_QTY;
    case TY_SEMVER: return v->k == CV_SEMVER;
    case TY_DEVICE: return v->k == CV_DEVICE;
    default: return false;
    }
}

static cel_val err_static(const char *msg) {
    cel_val v = {.k = CV_ERR};
    v.u.s = msg;
    return v;
}

/* ---- UTF-8 helpers: CEL strings index by code point ---- */

static size_t cp_len(const char *s, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}
/* byte offset of code point k (n when k is the count) */
static size_t cp_off(const char *s, size_t n, size_t k) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (c == k) return i;
            c++;
        }
    }
    return n;
}
static size_t rune_at(const char *s, size_t n, size_t i) {
    size_t j = i + 1;
    while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80) j++;
    return j - i;
}

static cel_val mkstr(cel_ctx *x, const char *s, size_t n) {
    char *o = kp__cel_alloc(x, n + 1);
    if (!o) return err_static("out of memory");
    if (n) memcpy(o, s, n);
    o[n] = '\0';
    return kp__cel_str(o, n);
}

static const char *find_bytes(const char *h, size_t hn, const char *nd, size_t nn, size_t from) {
    if (nn == 0) return h + from;
    for (size_t i = from; i + nn <= hn; i++)
        if (memcmp(h + i, nd, nn) == 0) return h + i;
    return NULL;
}

/* ---- conversions ---- */

/* the exponent of "%e" text */
static int atoi_exp(const char *s) {
    const char *e = strchr(s, 'e');
    return e ? (int)strtol(e + 1, NULL, 10) : 0;
}

static cel_val fmt_double(cel_ctx *x, double d) {
    char buf[64];
    if (isnan(d)) return mkstr(x, "NaN", 3);
    if (isinf(d)) return d > 0 ? mkstr(x, "+Inf", 4) : mkstr(x, "-Inf", 4);
    /* Go's FormatFloat(d, 'g', -1, 64): the fewest digits that read back as d, in exponent form
     * when the exponent is below -4 or at least 6 (shortest formatting's precision) */
    int p = 1;
    for (; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        if (strtod(buf, NULL) == d) break;
    }
    snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    int exp = atoi_exp(buf);
    if (exp >= -4 && exp < 6)
        snprintf(buf, sizeof buf, "%.*f", p - 1 - exp > 0 ? p - 1 - exp : 0, d);
    return mkstr(x, buf, strlen(buf));
}

static cel_val convert(cel_ctx *x, uint16_t impl, const cel_val *a) {
    char buf[64];
    cel_val r = {0};
    switch (impl) {
    case F_INT:
        switch (a->k) {
        case CV_INT: return *a;
        case CV_UINT:
            if (a->u.u > INT64_MAX) return err_static("integer overflow");
            return kp__cel_int((int64_t)a->u.u);
        case CV_DOUBLE:
            if (!(a->u.d > -9223372036854775808.0 && a->u.d < 9223372036854775808.0))
                return err_static("integer overflow");
            return kp__cel_int((int64_t)a->u.d);
        default: {
            char *end;
            size_t n = a->n < sizeof buf - 1 ? a->n : sizeof buf - 1;
            memcpy(buf, a->u.s, n);
            buf[n] = '\0';
            errno = 0;
            long long v = strtoll(buf, &end, 10);
            if (n == 0 || *end || n != a->n || errno ||
                (buf[0] != '-' && buf[0] != '+' && (buf[0] < '0' || buf[0] > '9')))
                return kp__cel_err(x, "strconv.ParseInt: parsing \"%.*s\": invalid syntax",
                                   (int)(a->n > 100 ? 100 : a->n), a->u.s);
            return kp__cel_int(v);
        }
        }
    case F_UINT:
        r.k = CV_UINT;
        switch (a->k) {
        case CV_INT:
            if (a->u.i < 0) return err_static("unsigned integer overflow");
            r.u.u = (uint64_t)a->u.i;
            return r;
        case CV_UINT: return *a;
        case CV_DOUBLE:
            if (!(a->u.d > -1.0 && a->u.d < 18446744073709551616.0))
                return err_static("unsigned integer overflow");
            r.u.u = (uint64_t)a->u.d;
            return r;
        default: {
            char *end;
            size_t n = a->n < sizeof buf - 1 ? a->n : sizeof buf - 1;
            memcpy(buf, a->u.s, n);
            buf[n] = '\0';
            errno = 0;
            unsigned long long v = strtoull(buf, &end, 10);
            if (n == 0 || *end || n != a->n || errno ||
                ((buf[0] < '0' || buf[0] > '9') && buf[0] != '+'))
                return kp__cel_err(x, "strconv.ParseUint: parsing \"%.*s\": invalid syntax",
                                   (int)(a->n > 100 ? 100 : a->n), a->u.s);
            r.u.u = v;
            return r;
        }
        }
    case F_DOUBLE:
        r.k = CV_DOUBLE;
        switch (a->k) {
        case CV_INT: r.u.d = (double)a->u.i; return r;
        case CV_UINT: r.u.d = (double)a->u.u; return r;
        case CV_DOUBLE: return *a;
        default: {
            char *end;
            size_t n = a->n < sizeof buf - 1 ? a->n : sizeof buf - 1;
            memcpy(buf, a->u.s, n);
            buf[n] = '\0';
            r.u.d = strtod(buf, &end);
            if (n == 0 || *end || n != a->n || buf[0] == ' ')
                return kp__cel_err(x, "strconv.ParseFloat: parsing \"%.*s\": invalid syntax",
                                   (int)(a->n > 100 ? 100 : a->n), a->u.s);
            return r;
        }
        }
    case F_STRING:
        switch (a->k) {
        case CV_INT:
            snprintf(buf, sizeof buf, "%" PRId64, a->u.i);
            return mkstr(x, buf, strlen(buf));
        case CV_UINT:
            snprintf(buf, sizeof buf, "%" PRIu64, a->u.u);
            return mkstr(x, buf, strlen(buf));
        case CV_DOUBLE: return fmt_double(x, a->u.d);
        case CV_BOOL: return a->u.b ? mkstr(x, "true", 4) : mkstr(x, "false", 5);
        case CV_BYTES: {
            /* must be valid UTF-8 */
            for (size_t i = 0; i < a->n;) {
                unsigned char c = (unsigned char)a->u.s[i];
                size_t w = c < 0x80         ? 1
                           : (c >> 5) == 6  ? 2
                           : (c >> 4) == 14 ? 3
                           : (c >> 3) == 30 ? 4
                                            : 0;
                if (!w || i + w > a->n)
                    return err_static("invalid UTF-8 in bytes, cannot convert to string");
                for (size_t k = 1; k < w; k++)
                    if (((unsigned char)a->u.s[i + k] & 0xC0) != 0x80)
                        return err_static("invalid UTF-8 in bytes, cannot convert to string");
                i += w;
            }
            r = *a;
            r.k = CV_STRING;
            return r;
        }
        default: return *a;
        }
    case F_BOOL:
        if (a->k == CV_BOOL) return *a;
        {
            static const char *const T[] = {"1", "t", "T", "TRUE", "true", "True"};
            static const char *const F[] = {"0", "f", "F", "FALSE", "false", "False"};
            for (size_t i = 0; i < 6; i++) {
                if (strlen(T[i]) == a->n && !memcmp(T[i], a->u.s, a->n)) return kp__cel_bool(true);
                if (strlen(F[i]) == a->n && !memcmp(F[i], a->u.s, a->n)) return kp__cel_bool(false);
            }
            return kp__cel_err(x, "strconv.ParseBool: parsing \"%.*s\": invalid syntax",
                               (int)(a->n > 100 ? 100 : a->n), a->u.s);
        }
    case F_BYTES:
        r = *a;
        r.k = CV_BYTES;
        return r;
    default: return *a;
    }
}

/* ---- ext.Strings ---- */

static bool is_space_at(const char *s, size_t n, size_t i, size_t *w) {
    unsigned char c = (unsigned char)s[i];
    *w = 1;
    if (c == ' ' || (c >= '\t' && c <= '\r')) return true;
    if (c < 0x80) return false;
    /* unicode.IsSpace beyond ASCII: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
     * U+202F, U+205F, U+3000 */
    size_t l = rune_at(s, n, i);
    uint32_t cp = 0;
    if (l == 2) cp = ((uint32_t)(c & 0x1F) << 6) | ((unsigned char)s[i + 1] & 0x3F);
    else if (l == 3)
        cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)((unsigned char)s[i + 1] & 0x3F) << 6) |
             ((unsigned char)s[i + 2] & 0x3F);
    *w = l;
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static cel_val s_trim(cel_ctx *x, const cel_val *a) {
    size_t b = 0, e = a->n, w;
    while (b < e && is_space_at(a->u.s, a->n, b, &w)) b += w;
    /* from the end: step back to a rune start */
    while (e > b) {
        size_t st = e - 1;
        while (st > b && ((unsigned char)a->u.s[st] & 0xC0) == 0x80) st--;
        if (!is_space_at(a->u.s, a->n, st, &w) || st + w != e) break;
        e = st;
    }
    return kp__cel_str(a->u.s + b, e - b);
    (void)x;
}

static cel_val s_case(cel_ctx *x, const cel_val *a, bool upper) {
    cel_val r = mkstr(x, a->u.s, a->n);
    if (r.k == CV_ERR) return r;
    char *o = (char *)r.u.s;
    for (size_t i = 0; i < r.n; i++) {
        if (upper && o[i] >= 'a' && o[i] <= 'z') o[i] = (char)(o[i] - 32);
        if (!upper && o[i] >= 'A' && o[i] <= 'Z') o[i] = (char)(o[i] + 32);
    }
    return r;
}

/* strings.Replace(s, old, new, n) */
static cel_val s_replace(cel_ctx *x, const cel_val *s, const cel_val *o, const cel_val *nw,
                         int64_t limit) {
    size_t m = 0;
    if (o->n == 0) {
        m = cp_len(s->u.s, s->n) + 1;
    } else {
        for (const char *h = find_bytes(s->u.s, s->n, o->u.s, o->n, 0); h;
             h = find_bytes(s->u.s, s->n, o->u.s, o->n, (size_t)(h - s->u.s) + o->n))
            m++;
    }
    if (m == 0 || limit == 0) return *s;
    if (limit > 0 && (uint64_t)limit < m) m = (size_t)limit;
    size_t cap = s->n + m * nw->n + 1;
    if (kp__cel_charge(x, cap / 10))
        return err_static("operation cancelled: actual cost limit exceeded");
    char *out = kp__cel_alloc(x, cap);
    if (!out) return err_static("out of memory");
    size_t start = 0, used = 0;
    for (size_t i = 0; i < m; i++) {
        size_t j = start;
        if (o->n == 0) {
            if (i > 0) j += rune_at(s->u.s, s->n, start);
        } else {
            j = (size_t)(find_bytes(s->u.s, s->n, o->u.s, o->n, start) - s->u.s);
        }
        memcpy(out + used, s->u.s + start, j - start);
        used += j - start;
        memcpy(out + used, nw->u.s, nw->n);
        used += nw->n;
        start = j + o->n;
    }
    memcpy(out + used, s->u.s + start, s->n - start);
    used += s->n - start;
    out[used] = '\0';
    return kp__cel_str(out, used);
}

/* strings.SplitN(s, sep, n) */
static cel_val s_split(cel_ctx *x, const cel_val *s, const cel_val *sep, int64_t limit) {
    if (limit == 0) return kp__cel_list_of(x, NULL, 0);
    size_t max = sep->n == 0 ? cp_len(s->u.s, s->n) : s->n / sep->n + 1;
    if (limit > 0 && (uint64_t)limit < max) max = (size_t)limit;
    cel_val *v = kp__cel_alloc(x, (max + 1) * sizeof *v);
    if (!v) return err_static("out of memory");
    uint32_t n = 0;
    size_t i = 0;
    if (sep->n == 0) {
        while (i < s->n && n + 1 < max) {
            size_t w = rune_at(s->u.s, s->n, i);
            v[n++] = kp__cel_str(s->u.s + i, w);
            i += w;
        }
        if (i < s->n) v[n++] = kp__cel_str(s->u.s + i, s->n - i);
        return kp__cel_list_of(x, v, n);
    }
    while (n + 1 < max) {
        const char *hit = find_bytes(s->u.s, s->n, sep->u.s, sep->n, i);
        if (!hit) break;
        v[n++] = kp__cel_str(s->u.s + i, (size_t)(hit - s->u.s) - i);
        i = (size_t)(hit - s->u.s) + sep->n;
    }
    v[n++] = kp__cel_str(s->u.s + i, s->n - i);
    return kp__cel_list_of(x, v, n);
}

static cel_val s_join(cel_ctx *x, const cel_val *l, const char *sep, size_t sn) {
    size_t total = 0;
    for (uint32_t i = 0; i < l->u.l->n; i++) {
        if (l->u.l->v[i].k != CV_STRING) return err_static("no such overload");
        total += l->u.l->v[i].n + (i ? sn : 0);
    }
    char *o = kp__cel_alloc(x, total + 1);
    if (!o) return err_static("out of memory");
    size_t used = 0;
    for (uint32_t i = 0; i < l->u.l->n; i++) {
        if (i) memcpy(o + used, sep, sn), used += sn;
        memcpy(o + used, l->u.l->v[i].u.s, l->u.l->v[i].n);
        used += l->u.l->v[i].n;
    }
    o[used] = '\0';
    return kp__cel_str(o, used);
}

static cel_val s_quote(cel_ctx *x, const cel_val *a) {
    char *o = kp__cel_alloc(x, (size_t)a->n * 6 + 3);
    if (!o) return err_static("out of memory");
    size_t u = 0;
    o[u++] = '"';
    for (size_t i = 0; i < a->n; i++) {
        char c = a->u.s[i];
        const char *esc = NULL;
        switch (c) {
        case '\a': esc = "\\a"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\v': esc = "\\v"; break;
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        default: break;
        }
        if (esc) {
            memcpy(o + u, esc, 2);
            u += 2;
        } else {
            o[u++] = c;
        }
    }
    o[u++] = '"';
    o[u] = '\0';
    return kp__cel_str(o, u);
}

static cel_val s_index(cel_ctx *x, const cel_val *s, const cel_val *sub, bool has_off, int64_t off,
                       bool last) {
    size_t ncp = cp_len(s->u.s, s->n);
    if (has_off && (off < 0 || (uint64_t)off > ncp))
        return kp__cel_err(x, "index out of range: %" PRId64, off);
    if (!last) {
        size_t from = has_off ? cp_off(s->u.s, s->n, (size_t)off) : 0;
        const char *hit = find_bytes(s->u.s, s->n, sub->u.s, sub->n, from);
        if (!hit) return kp__cel_int(-1);
        return kp__cel_int((int64_t)cp_len(s->u.s, (size_t)(hit - s->u.s)));
    }
    /* lastIndexOf: the last occurrence starting at or before off */
    size_t limit = has_off ? cp_off(s->u.s, s->n, (size_t)off) : s->n;
    if (sub->n == 0) return kp__cel_int((int64_t)cp_len(s->u.s, limit));
    for (size_t i = limit + 1; i-- > 0;) {
        if (i + sub->n <= s->n && memcmp(s->u.s + i, sub->u.s, sub->n) == 0)
            return kp__cel_int((int64_t)cp_len(s->u.s, i));
    }
    return kp__cel_int(-1);
}

static cel_val s_substr(cel_ctx *x, const cel_val *s, int64_t b, bool has_e, int64_t e) {
    size_t ncp = cp_len(s->u.s, s->n);
    if (!has_e) e = (int64_t)ncp;
    if (b < 0 || (uint64_t)b > ncp) return kp__cel_err(x, "index out of range: %" PRId64, b);
    if (e < 0 || (uint64_t)e > ncp) return kp__cel_err(x, "index out of range: %" PRId64, e);
    if (b > e)
        return kp__cel_err(x, "invalid substring range. start: %" PRId64 ", end: %" PRId64, b, e);
    size_t ob = cp_off(s->u.s, s->n, (size_t)b), oe = cp_off(s->u.s, s->n, (size_t)e);
    return kp__cel_str(s->u.s + ob, oe - ob);
}

/* ---- regular expressions ---- */

static const cel_re *regex_of(cel_ctx *x, const cel_val *pat, cel_val *err) {
    if (x->re) return x->re;
    const char *why = NULL;
    bool oom = false;
    const cel_re *re = kp__cel_re_compile(&x->scratch, pat->u.s, pat->n, &why, &oom);
    if (!re) {
        if (oom) x->oom = true;
        *err = oom ? err_static("out of memory")
                   : kp__cel_err(x, "invalid regular expression: %s", why);
    }
    return re;
}

static cel_val re_call(cel_ctx *x, uint16_t impl, const cel_val *s, const cel_val *pat,
                       int64_t limit) {
    cel_val err;
    const cel_re *re = regex_of(x, pat, &err);
    if (!re) return err;
    if (kp__cel_charge(x, s->n / 10 + 1))
        return err_static("operation cancelled: actual cost limit exceeded");
    size_t need = kp__cel_re_work(re), b, e;
    if (x->re_work_cap < need) {
        if (!(x->re_work = kp__cel_alloc(x, need))) return err_static("out of memory");
        x->re_work_cap = need;
    }
    void *w = x->re_work;
    if (impl == F_MATCHES || impl == F_FIND) {
        bool r = kp__cel_re_search(re, w, s->u.s, s->n, 0, &b, &e);
        if (impl == F_MATCHES) return kp__cel_bool(r);
        return r ? kp__cel_str(s->u.s + b, e - b) : kp__cel_str("", 0);
    }
    if (limit == 0) return kp__cel_list_of(x, NULL, 0);
    cel_val *v = kp__cel_alloc(x, (s->n + 2) * sizeof *v);
    if (!v) return err_static("out of memory");
    uint32_t n = 0;
    size_t pos = 0, prev_end = (size_t)-1;
    while (pos <= s->n && (limit < 0 || (int64_t)n < limit)) {
        if (!kp__cel_re_search(re, w, s->u.s, s->n, pos, &b, &e)) break;
        /* Go's FindAll: an empty match right after the previous match is skipped */
        if (!(e == b && b == prev_end)) v[n++] = kp__cel_str(s->u.s + b, e - b);
        prev_end = e;
        if (e > b) pos = e;
        else pos = b < s->n ? b + rune_at(s->u.s, s->n, b) : s->n + 1;
    }
    return kp__cel_list_of(x, v, n);
}

cel_val kp__cel_call_k8s(cel_ctx *x, const cel_fn *f, const cel_val *a);

cel_val kp__cel_call(cel_ctx *x, const cel_fn *f, const cel_val *a) {
    switch ((cel_impl)f->impl) {
    case F_SIZE: {
        cel_val m = kp__cel_materialize(x, &a[0]);
        switch (m.k) {
        case CV_STRING: return kp__cel_int((int64_t)cp_len(m.u.s, m.n));
        case CV_BYTES: return kp__cel_int(m.n);
        case CV_LIST: return kp__cel_int(m.u.l->n);
        case CV_MAP: return kp__cel_int(m.u.m->n);
        default: return m.k == CV_ERR ? m : err_static("no such overload");
        }
    }
    case F_INT:
    case F_UINT:
    case F_DOUBLE:
    case F_STRING:
    case F_BOOL:
    case F_BYTES:
    case F_DYN: return convert(x, f->impl, &a[0]);
    case F_CONTAINS: return kp__cel_bool(find_bytes(a[0].u.s, a[0].n, a[1].u.s, a[1].n, 0) != NULL);
    case F_STARTS: return kp__cel_bool(a[1].n <= a[0].n && !memcmp(a[0].u.s, a[1].u.s, a[1].n));
    case F_ENDS:
        return kp__cel_bool(a[1].n <= a[0].n &&
                            !memcmp(a[0].u.s + a[0].n - a[1].n, a[1].u.s, a[1].n));
    case F_MATCHES:
    case F_FIND:
    case F_FINDALL: return re_call(x, f->impl, &a[0], &a[1], -1);
    case F_FINDALLN: return re_call(x, f->impl, &a[0], &a[1], a[2].u.i);
    case F_CHARAT: {
        size_t ncp = cp_len(a[0].u.s, a[0].n);
        if (a[1].u.i < 0 || (uint64_t)a[1].u.i > ncp)
            return kp__cel_err(x, "index out of range: %" PRId64, a[1].u.i);
        size_t o = cp_off(a[0].u.s, a[0].n, (size_t)a[1].u.i);
        return kp__cel_str(a[0].u.s + o, o < a[0].n ? rune_at(a[0].u.s, a[0].n, o) : 0);
    }
    case F_INDEXOF: return s_index(x, &a[0], &a[1], false, 0, false);
    case F_INDEXOF2: return s_index(x, &a[0], &a[1], true, a[2].u.i, false);
    case F_LASTINDEXOF: return s_index(x, &a[0], &a[1], false, 0, true);
    case F_LASTINDEXOF2: return s_index(x, &a[0], &a[1], true, a[2].u.i, true);
    case F_LOWER: return s_case(x, &a[0], false);
    case F_UPPER: return s_case(x, &a[0], true);
    case F_REPLACE: return s_replace(x, &a[0], &a[1], &a[2], -1);
    case F_REPLACEN: return s_replace(x, &a[0], &a[1], &a[2], a[3].u.i);
    case F_SPLIT: return s_split(x, &a[0], &a[1], -1);
    case F_SPLITN: return s_split(x, &a[0], &a[1], a[2].u.i);
    case F_SUBSTR: return s_substr(x, &a[0], a[1].u.i, false, 0);
    case F_SUBSTR2: return s_substr(x, &a[0], a[1].u.i, true, a[2].u.i);
    case F_TRIM: return s_trim(x, &a[0]);
    case F_JOIN: return s_join(x, &a[0], "", 0);
    case F_JOINSEP: return s_join(x, &a[0], a[1].u.s, a[1].n);
    case F_QUOTE: return s_quote(x, &a[0]);
    default: return kp__cel_call_k8s(x, f, a);
    }
}
