/* Unit tests for src/core/quantity.c (resource.Quantity).
 *
 * Most tables are ported from k8s.io/apimachinery/pkg/api/resource/quantity_test.go and
 * amount_test.go / scale_int_test.go at apimachinery eed236ce (TestQuantityParse,
 * TestQuantityString, TestQuantityParseEmit, TestParseQuantity, TestQuantityCmp,
 * TestQuantityCmpInt64AndDec, TestMilliNewSet, TestNewSet, TestNewScaledSet, the Example
 * functions), plus the kprio-specific range rules (KP_ERANGE instead of inf.Dec). */
#include <stdlib.h>

#include "core/quantity.h"
#include "harness.h"
#include "kprio/quantity.h"

#define FMT_ERR \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define SUF_ERR "unable to parse quantity's suffix"
#define NUM_ERR "unable to parse numeric part of quantity"

#define DSI KP_QFMT_DECIMAL_SI
#define BSI KP_QFMT_BINARY_SI
#define DEX KP_QFMT_DECIMAL_EXP

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static kp_quantity mkq(int64_t mant, int32_t scale, kp_qformat fmt) {
    kp_quantity q = {mant, scale, fmt};
    return q;
}

/* Parses from a heap copy without a terminating NUL so ASan catches reads past len. */
static kp_status parse_str(const char *s, kp_quantity *q, kp_error *err) {
    size_t n = strlen(s);
    char *copy = malloc(n ? n : 1);
    if (!copy) return KP_ENOMEM;
    memcpy(copy, s, n);
    kp_error_clear(err);
    kp_status st = kp_quantity_parse(copy, n, q, err);
    free(copy);
    return st;
}

/* The public by-value form, copied out. */
static const char *fmtq(const kp_quantity *q, char *buf, size_t cap) {
    kp_quantity_str v = kp_quantity_string(q);
    size_t n = strlen(v.s);
    if (n >= cap) n = cap - 1;
    memcpy(buf, v.s, n);
    buf[n] = '\0';
    return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* TestQuantityParse                                                                          */

typedef struct {
    const char *in;
    int64_t mant;
    int32_t scale;
    kp_qformat fmt;
} parse_case;

static const parse_case parse_cases[] = {
    {"0", 0, 0, DSI},
    {"0n", 0, 0, DSI},
    {"0u", 0, 0, DSI},
    {"0m", 0, 0, DSI},
    {"0Ki", 0, 0, BSI},
    {"0k", 0, 0, DSI},
    {"0Mi", 0, 0, BSI},
    {"0M", 0, 0, DSI},
    {"0Gi", 0, 0, BSI},
    {"0G", 0, 0, DSI},
    {"0Ti", 0, 0, BSI},
    {"0T", 0, 0, DSI},

    /* Quantity less numbers are allowed */
    {"1", 1, 0, DSI},

    /* Binary suffixes */
    {"1Ki", 1024, 0, BSI},
    {"8Ki", 8 * 1024, 0, BSI},
    {"7Mi", 7 * 1024 * 1024, 0, BSI},
    {"6Gi", 6LL * 1024 * 1024 * 1024, 0, BSI},
    {"5Ti", 5LL * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"4Pi", 4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"3Ei", 3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"10Ti", 10LL * 1024 * 1024 * 1024 * 1024, 0, BSI},
    {"100Ti", 100LL * 1024 * 1024 * 1024 * 1024, 0, BSI},

    /* Decimal suffixes */
    {"5n", 5, -9, DSI},
    {"4u", 4, -6, DSI},
    {"3m", 3, -3, DSI},
    {"9", 9, 0, DSI},
    {"8k", 8, 3, DSI},
    {"50k", 5, 4, DSI},
    {"7M", 7, 6, DSI},
    {"6G", 6, 9, DSI},
    {"5T", 5, 12, DSI},
    {"40T", 4, 13, DSI},
    {"300T", 3, 14, DSI},
    {"2P", 2, 15, DSI},
    {"1E", 1, 18, DSI},

    /* Decimal exponents */
    {"1E-3", 1, -3, DEX},
    {"1e3", 1, 3, DEX},
    {"1E6", 1, 6, DEX},
    {"1e9", 1, 9, DEX},
    {"1E12", 1, 12, DEX},
    {"1e15", 1, 15, DEX},
    {"1E18", 1, 18, DEX},

    /* Nonstandard but still parsable */
    {"1e14", 1, 14, DEX},
    {"1e13", 1, 13, DEX},
    {"1e3", 1, 3, DEX},
    {"100.035k", 100035, 0, DSI},

    /* Things that look like floating point */
    {"0.001", 1, -3, DSI},
    {"0.0005k", 5, -1, DSI},
    {"0.005", 5, -3, DSI},
    {"0.05", 5, -2, DSI},
    {"0.5", 5, -1, DSI},
    {"0.00050k", 5, -1, DSI},
    {"0.00500", 5, -3, DSI},
    {"0.05000", 5, -2, DSI},
    {"0.50000", 5, -1, DSI},
    {"0.5e0", 5, -1, DEX},
    {"0.5e-1", 5, -2, DEX},
    {"0.5e-2", 5, -3, DEX},
    {"0.5e0", 5, -1, DEX},
    {"10.035M", 10035, 3, DSI},

    {"1.2e3", 12, 2, DEX},
    {"1.3E+6", 13, 5, DEX},
    {"1.40e9", 14, 8, DEX},
    {"1.53E12", 153, 10, DEX},
    {"1.6e15", 16, 14, DEX},
    {"1.7E18", 17, 17, DEX},

    {"9.01", 901, -2, DSI},
    {"8.1k", 81, 2, DSI},
    {"7.123456M", 7123456, 0, DSI},
    {"6.987654321G", 6987654321LL, 0, DSI},
    {"5.444T", 5444, 9, DSI},
    {"40.1T", 401, 11, DSI},
    {"300.2T", 3002, 11, DSI},
    {"2.5P", 25, 14, DSI},
    {"1.01E", 101, 16, DSI},

    /* Things that saturate/round */
    {"3.001n", 4, -9, DSI},
    {"1.1E-9", 2, -9, DEX},
    {"0.0000000001", 1, -9, DSI},
    {"0.0000000005", 1, -9, DSI},
    {"0.00000000050", 1, -9, DSI},
    {"0.5e-9", 1, -9, DEX},
    {"0.9n", 1, -9, DSI},
    {"0.00000012345", 124, -9, DSI},
    {"0.00000012354", 124, -9, DSI},
    {"9Ei", INT64_MAX, 0, BSI},
    {"9223372036854775807Ki", INT64_MAX, 0, BSI},
    {"12E", 12, 18, DSI},

    /* We'll accept fractional binary stuff, too. */
    {"100.035Ki", 10243584, -2, BSI},
    {"0.5Mi", 524288, 0, BSI},
    {"0.05Gi", 536870912, -1, BSI},
    {"0.025Ti", 274877906944LL, -1, BSI},

    /* Things written by trolls */
    {"0.000000000001Ki", 2, -9, DSI}, /* rounds up, changes format */
    {".001", 1, -3, DSI},
    {".0001k", 100, -3, DSI},
    {"1.", 1, 0, DSI},
    {"1.G", 1, 9, DSI},

    /* kprio additions (values checked against upstream) */
    {"1.5Gi", 1610612736, 0, BSI},
    {"51200Ki", 52428800, 0, BSI},
    {"0.5Ki", 512, 0, BSI},
    {"1E3", 1, 3, DEX},
    {"12E-2", 12, -2, DEX},
    {"100.5m", 1005, -4, DSI},
    {"1.000000001", 1000000001, -9, DSI},
    {"1.0000000001", 1000000001, -9, DSI}, /* rounds up in magnitude */
    {"0.9999999999", 1, 0, DSI}, /* rounding carries into the integer */
    {"9.9999999995", 10, 0, DSI},
    {"0.00000000099999", 1, -9, DSI},
    {"0.0000000019999", 2, -9, DSI},
    {"1e-99", 1, -9, DEX},
    {"0e99", 0, 0, DEX},
    {"0.0Ki", 0, 0, BSI},
    {"1.0Ki", 1024, 0, BSI},
    {".001Ki", 1024, -3, BSI},
    {"0.001Ki", 1024, -3, BSI},
    {".5Ki", 512, 0, BSI},
    {"1.5Ki", 1536, 0, BSI},
    {"1023.999Ki", 1048574976, -3, BSI},
    {"7.99999999999999999999Ei", INT64_MAX, 0, BSI}, /* 2^63 - 0.0115: capped */
    {"8Ei", INT64_MAX, 0, BSI},
    {"8191Pi", 9222246136947933184LL, 0, BSI},
    {"1E+3", 1, 3, DEX},
    {"1e+3", 1, 3, DEX},
    {"1e03", 1, 3, DEX},
    {"15e0", 15, 0, DEX},
    {"100", 100, 0, DSI},
    {"1.500", 1500, -3, DSI},
    {"01", 1, 0, DSI},
    {"000000000000000000000000000000001", 1, 0, DSI},
    {"1000000000000000000000000000000000000", 1, 36, DSI},
    {"1000E", 1, 21, DSI},
    {"9223372036854775807", INT64_MAX, 0, DSI},
    {"999999999999999999", 999999999999999999LL, 0, DSI},
    {"1000000000000000001", 1000000000000000001LL, 0, DSI},
    {"1.000000000000000001E", 1000000000000000001LL, 0, DSI},
    {"9223372036854775807000m", INT64_MAX, 0, DSI},
    {"10E", 1, 19, DSI},
    {"10000000000000000000000m", 1, 19, DSI},
    {"1.0E", 1, 18, DSI},
    {"12345678901.1234567891", 1234567890112345679LL, -8, DSI},
    {"92233720368.1234567891", 9223372036812345679LL, -8, DSI}, /* 19 digits still fit */

    /* digitless numbers: upstream parses them as zero */
    {"+", 0, 0, DSI},
    {".", 0, 0, DSI},
    {"+.", 0, 0, DSI},
    {"k", 0, 0, DSI},
    {"Ki", 0, 0, BSI},
    {"+.Gi", 0, 0, BSI},
    {".Ti", 0, 0, BSI},
    {"e-9", 0, 0, DEX},
};

KT_TEST(test_parse_table) {
    for (size_t i = 0; i < NELEM(parse_cases); i++) {
        const parse_case *c = &parse_cases[i];
        kp_quantity q, want = mkq(c->mant, c->scale, c->fmt);
        kp_error err;
        char b1[64], b2[64];
        kp_status st = parse_str(c->in, &q, &err);
        if (st != KP_OK) {
            fprintf(stderr, "  %s: unexpected error %d %s\n", c->in, st, err.msg);
            KT_CHECK_INT(st, KP_OK);
            continue;
        }
        if (kp_quantity_cmp(&q, &want) != 0) {
            fprintf(stderr, "  %s: got %s, want %s\n", c->in, fmtq(&q, b1, sizeof b1),
                    fmtq(&want, b2, sizeof b2));
            KT_CHECK(0);
        }
        if (q.format != c->fmt) {
            fprintf(stderr, "  %s: format %d, want %d\n", c->in, q.format, c->fmt);
            KT_CHECK(0);
        }
        KT_CHECK(q.scale >= -9);
    }
}

/* "Try the negative version of everything" and "Try everything with an explicit +". */
KT_TEST(test_parse_table_signs) {
    for (size_t i = 0; i < NELEM(parse_cases); i++) {
        const parse_case *c = &parse_cases[i];
        if (c->in[0] == '+' || c->in[0] == '-') continue;
        char neg[128], pos[128];
        snprintf(neg, sizeof neg, "-%s", c->in);
        snprintf(pos, sizeof pos, "+%s", c->in);
        kp_quantity qn, qp, want = mkq(c->mant, c->scale, c->fmt);
        kp_quantity wneg = mkq(-c->mant, c->scale, c->fmt);
        kp_error err;
        KT_CHECK_INT(parse_str(neg, &qn, &err), KP_OK);
        KT_CHECK_INT(parse_str(pos, &qp, &err), KP_OK);
        if (kp_quantity_cmp(&qn, &wneg) != 0 || qn.format != c->fmt) {
            fprintf(stderr, "  %s: negative mismatch\n", neg);
            KT_CHECK(0);
        }
        if (kp_quantity_cmp(&qp, &want) != 0 || qp.format != c->fmt) {
            fprintf(stderr, "  %s: explicit + mismatch\n", pos);
            KT_CHECK(0);
        }
    }
}

/* Parse -> format -> parse gives an equal value for every table entry and its negation. */
KT_TEST(test_parse_format_roundtrip) {
    for (size_t i = 0; i < NELEM(parse_cases); i++) {
        for (int sign = 0; sign < 2; sign++) {
            char in[128], out[KP_QUANTITY_STR_MAX];
            snprintf(in, sizeof in, "%s%s", sign ? "-" : "", parse_cases[i].in);
            kp_quantity q, r;
            kp_error err;
            if (parse_str(in, &q, &err) != KP_OK) continue;
            size_t n = kp__quantity_format(&q, out, sizeof out);
            KT_CHECK(n < sizeof out);
            KT_CHECK_INT(parse_str(out, &r, &err), KP_OK);
            if (kp_quantity_cmp(&q, &r) != 0) {
                fprintf(stderr, "  %s -> %s does not round-trip\n", in, out);
                KT_CHECK(0);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Rejected inputs                                                                            */

typedef struct {
    const char *in;
    kp_status st;
    const char *msg;
} invalid_case;

static const invalid_case invalid_cases[] = {
    /* upstream's invalid list */
    {"1.1.M", KP_EINVAL, FMT_ERR},
    {"1+1.0M", KP_EINVAL, FMT_ERR},
    {"0.1mi", KP_EINVAL, SUF_ERR},
    {"0.1am", KP_EINVAL, FMT_ERR},
    {"aoeu", KP_EINVAL, FMT_ERR},
    {".5i", KP_EINVAL, SUF_ERR},
    {"1i", KP_EINVAL, SUF_ERR},
    {"-3.01i", KP_EINVAL, SUF_ERR},
    {"-3.01e-", KP_EINVAL, SUF_ERR},
    {" 1", KP_EINVAL, FMT_ERR}, /* trailing whitespace is forbidden */
    {"1 ", KP_EINVAL, FMT_ERR},
    {"", KP_EINVAL, FMT_ERR},
    {"Non-Numeric", KP_EINVAL, FMT_ERR}, /* TestQuantityParseNonNumericPanic */
    {"invalid", KP_EINVAL, FMT_ERR}, /* TestQuantityValueSet */

    /* suffixes are case sensitive */
    {"1K", KP_EINVAL, SUF_ERR},
    {"1ki", KP_EINVAL, SUF_ERR},
    {"1mi", KP_EINVAL, SUF_ERR},
    {"1KI", KP_EINVAL, FMT_ERR},
    {"1e", KP_EINVAL, SUF_ERR},
    {"1e+", KP_EINVAL, SUF_ERR},
    {"1ee3", KP_EINVAL, SUF_ERR},
    {"1Ki3", KP_EINVAL, SUF_ERR},
    {"--1", KP_EINVAL, SUF_ERR},
    {"-+1", KP_EINVAL, SUF_ERR},
    {"1e9223372036854775808", KP_EINVAL, SUF_ERR}, /* exponent does not fit int64 */
    {"1e-9223372036854775809", KP_EINVAL, SUF_ERR},
    {"1e3.5", KP_EINVAL, FMT_ERR},
    {"1e3e3", KP_EINVAL, FMT_ERR},
    {"1e-3k", KP_EINVAL, FMT_ERR},
    {"1..5", KP_EINVAL, FMT_ERR},
    {"1 Gi", KP_EINVAL, FMT_ERR},
    {"1%", KP_EINVAL, FMT_ERR},
    {"0x10", KP_EINVAL, FMT_ERR},
    {"\t1", KP_EINVAL, FMT_ERR},
    {"1\n", KP_EINVAL, FMT_ERR},
    {"1,5", KP_EINVAL, FMT_ERR},

    /* digitless numbers that leave upstream's int64 fast path */
    {".e-10", KP_EINVAL, NUM_ERR},
    {"-.e-10", KP_EINVAL, NUM_ERR},
    {"e-10", KP_EINVAL, NUM_ERR},
    {".Pi", KP_EINVAL, NUM_ERR},
    {"-Ei", KP_EINVAL, NUM_ERR},
    {"Pi", KP_EINVAL, NUM_ERR},

    /* kprio: not representable with an int64 mantissa / scale <= 36 (upstream uses inf.Dec) */
    {"9223372036854775808", KP_ERANGE, "quantity \"9223372036854775808\" is too large"},
    {"-9223372036854775809", KP_ERANGE, "is too large"},
    {"9999999999999999999", KP_ERANGE, "is too large"},
    {"-9999999999999999999", KP_ERANGE, "is too large"},
    {"10000000000000000001", KP_ERANGE, "is too large"},
    {"999999999999999999.1", KP_ERANGE, "is too large"},
    {"1.0000000000000000001E", KP_ERANGE, "is too large"},
    {"10000000000000000000.1", KP_ERANGE, "is too large"},
    {"9223372036854775807.1", KP_ERANGE, "is too large"},
    {"123456789012345678901", KP_ERANGE, "is too large"},
    {"92233720369.1234567891", KP_ERANGE, "is too large"},
    {"1e37", KP_ERANGE, "quantity \"1e37\" is too large"},
    {"1e9223372036854775807", KP_ERANGE, "is too large"},
    {"10000000000000000000000000000000000000", KP_ERANGE, "is too large"},
    {"8191.9999999999Pi", KP_ERANGE, "is too large"}, /* < cap but needs 23 digits */
    {"1.1Ei", KP_ERANGE, "is too large"},
};

KT_TEST(test_parse_invalid) {
    for (size_t i = 0; i < NELEM(invalid_cases); i++) {
        const invalid_case *c = &invalid_cases[i];
        kp_quantity q = mkq(7, 7, DEX);
        kp_error err;
        kp_status st = parse_str(c->in, &q, &err);
        if (st != c->st) fprintf(stderr, "  input \"%s\"\n", c->in);
        KT_CHECK_INT(st, c->st);
        KT_CHECK_INT(err.code, c->st);
        KT_CHECK_CONTAINS(err.msg, c->msg);
        if (c->st == KP_EINVAL) KT_CHECK_STR(err.msg, c->msg); /* exactly the upstream reason */
        KT_CHECK_INT(q.mant, 0); /* output reset to zero */
    }
}

KT_TEST(test_error_messages_exact) {
    kp_quantity q;
    kp_error err;
    KT_CHECK_INT(parse_str("1.2.3", &q, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "quantities must match the regular expression "
                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    KT_CHECK_INT(parse_str("1Qi", &q, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "quantities must match the regular expression "
                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    KT_CHECK_INT(parse_str("1Mb", &q, &err), KP_EINVAL);
    KT_CHECK_INT(parse_str("1KiB", &q, &err), KP_EINVAL);
    KT_CHECK_INT(parse_str("5mi", &q, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, "unable to parse quantity's suffix");
    /* err may be NULL */
    KT_CHECK_INT(kp_quantity_parse("x", 1, &q, NULL), KP_EINVAL);
    KT_CHECK_INT(kp_quantity_parse("1e40", 4, &q, NULL), KP_ERANGE);
    /* a long too-large input is cut in the message */
    char big[400];
    memset(big, '9', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    KT_CHECK_INT(parse_str(big, &q, &err), KP_ERANGE);
    KT_CHECK_CONTAINS(err.msg, "...\" is too large");
    KT_CHECK(strlen(err.msg) < 200);
}

/* The input is (ptr, len): bytes after len are never looked at. */
KT_TEST(test_parse_not_nul_terminated) {
    const char buf[] = "1.5GiXYZ";
    kp_quantity q;
    kp_error err;
    KT_CHECK_INT(kp_quantity_parse(buf, 5, &q, &err), KP_OK);
    KT_CHECK_INT(q.mant, 1610612736);
    KT_CHECK_INT(kp_quantity_parse(buf, 4, &q, &err), KP_OK); /* "1.5G" */
    KT_CHECK_INT(q.mant, 15);
    KT_CHECK_INT(q.scale, 8);
    KT_CHECK_INT(kp_quantity_parse(buf, 6, &q, &err), KP_EINVAL); /* "1.5GiX" */
    KT_CHECK_INT(kp_quantity_parse(buf, 3, &q, &err), KP_OK); /* "1.5" */
    KT_CHECK_INT(q.mant, 15);
    KT_CHECK_INT(q.scale, -1);
    KT_CHECK_INT(kp_quantity_parse(buf, 0, &q, &err), KP_EINVAL);
    KT_CHECK_INT(kp_quantity_parse(buf, 1, &q, &err), KP_OK); /* "1" */
    KT_CHECK_INT(q.mant, 1);
    const char zero[] = "0Ki";
    KT_CHECK_INT(kp_quantity_parse(zero, 1, &q, &err), KP_OK); /* fast path "0" */
    KT_CHECK_INT(q.format, DSI);
    KT_CHECK_INT(kp_quantity_parse(zero, 3, &q, &err), KP_OK);
    KT_CHECK_INT(q.format, BSI);
    KT_CHECK_INT(kp_quantity_parse(NULL, 0, &q, &err), KP_EINVAL);
    /* an embedded NUL is just a bad character */
    KT_CHECK_INT(kp_quantity_parse("0000000\0", 8, &q, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, FMT_ERR);
    KT_CHECK_INT(kp_quantity_parse("1\0Ki", 4, &q, &err), KP_EINVAL);
    KT_CHECK_INT(kp_quantity_parse("1Ki\0", 3, &q, &err), KP_OK);
    KT_CHECK_INT(q.mant, 1024);
}

/* ---------------------------------------------------------------------------------------- */
/* TestQuantityString                                                                         */

typedef struct {
    int64_t mant;
    int32_t scale;
    kp_qformat fmt;
    const char *expect;
    const char *alternate;
} string_case;

static const string_case string_cases[] = {
    {1024LL * 1024 * 1024, 0, BSI, "1Gi", "1024Mi"},
    {300LL * 1024 * 1024, 0, BSI, "300Mi", "307200Ki"},
    {6 * 1024, 0, BSI, "6Ki", ""},
    {1001LL * 1024 * 1024 * 1024, 0, BSI, "1001Gi", "1025024Mi"},
    {1024LL * 1024 * 1024 * 1024, 0, BSI, "1Ti", "1024Gi"},
    {5, 0, BSI, "5", "5000m"},
    {500, -3, BSI, "500m", "0.5"},
    {1, 9, DSI, "1G", "1000M"},
    {1000, 6, DSI, "1G", "0.001T"},
    {1000000, 3, DSI, "1G", ""},
    {1000000000, 0, DSI, "1G", ""},
    {1, -3, DSI, "1m", "1000u"},
    {80, -3, DSI, "80m", ""},
    {1080, -3, DSI, "1080m", "1.08"},
    {108, -2, DSI, "1080m", "1080000000n"},
    {10800, -4, DSI, "1080m", ""},
    {300, 6, DSI, "300M", ""},
    {1, 12, DSI, "1T", ""},
    {1234567, 6, DSI, "1234567M", ""},
    {1234567, -3, BSI, "1234567m", ""},
    {3, 3, DSI, "3k", ""},
    {1025, 0, BSI, "1025", ""},
    {0, 0, DSI, "0", ""},
    {0, 0, BSI, "0", ""},
    {1, 9, DEX, "1e9", ".001e12"},
    {1, -3, DEX, "1e-3", "0.001e0"},
    {1, -9, DEX, "1e-9", "1000e-12"},
    {80, -3, DEX, "80e-3", ""},
    {300, 6, DEX, "300e6", ""},
    {1, 12, DEX, "1e12", ""},
    {1, 3, DEX, "1e3", ""},
    {3, 3, DEX, "3e3", ""},
    {3, 3, DSI, "3k", ""},
    {0, 0, DEX, "0", "00"},
    {1, -9, DSI, "1n", ""},
    {80, -9, DSI, "80n", ""},
    {1080, -9, DSI, "1080n", ""},
    {108, -8, DSI, "1080n", ""},
    {10800, -10, DSI, "1080n", ""},
    {1, -6, DSI, "1u", ""},
    {80, -6, DSI, "80u", ""},
    {1080, -6, DSI, "1080u", ""},
#define UPSTREAM_STRING_ROWS 42 /* rows above are upstream's; the parse must keep the string */

    /* spec §1.2 and the brief */
    {1000, 0, DSI, "1k", ""},
    {1200, 0, DSI, "1200", ""},
    {15, -1, DSI, "1500m", "1.5"},
    {1500000000, 0, DSI, "1500M", "1.5G"},
    {100, -3, DSI, "100m", "0.1"},
    {100LL * 1024 * 1024, 0, BSI, "100Mi", ""},
    {2LL * 1024 * 1024 * 1024, 0, BSI, "2Gi", "2048Mi"},
    {1610612736, 0, BSI, "1536Mi", "1.5Gi"},
    {52428800, 0, BSI, "50Mi", "51200Ki"},
    {1536, 0, BSI, "1536", "1.5Ki"},
    {2048, 0, BSI, "2Ki", ""},
    {500, 0, BSI, "500", ""},
    {1023, 0, BSI, "1023", ""},
    {1024, 0, BSI, "1Ki", ""},
    {1, 3, DEX, "1e3", "1E3"},
    {12, -2, DEX, "120e-3", "12E-2"},
    {2000, 0, DSI, "2k", ""},
    {1048576, 0, DSI, "1048576", ""},
    {1200, 0, DSI, "1200", ""},
    {INT64_MAX, 0, BSI, "9223372036854775807", "9Ei"},
    {INT64_MAX, 0, DSI, "9223372036854775807", ""},
    {1, 18, DSI, "1E", "1000000000000000000"},
    {1, 19, DSI, "10E", "10000000000000000000"},
    {12, 18, DSI, "12E", ""},
    /* kprio: upstream prints these without the exponent; we pad up to "E" */
    {1, 21, DSI, "1000E", "1000000000000000000000"},
    {INT64_MAX, 36, DSI, "9223372036854775807000000000000000000E", ""},
    {1, 36, DEX, "1e36", ""},
    {5, 35, DEX, "500e33", ""},
    {102435840, -3, BSI, "102435840m", "100.035Ki"},
    {1024, -3, BSI, "1024m", ".001Ki"},
    {2, -9, BSI, "2n", ""},
};

KT_TEST(test_string_table) {
    for (size_t i = 0; i < NELEM(string_cases); i++) {
        const string_case *c = &string_cases[i];
        kp_quantity q = mkq(c->mant, c->scale, c->fmt);
        char buf[KP_QUANTITY_STR_MAX];
        kp__quantity_format(&q, buf, sizeof buf);
        KT_CHECK_STR(buf, c->expect);

        /* The canonical form parses, and upstream keeps it verbatim ("did not copy canonical
         * string on parse"), except the kprio-only E padding. */
        kp_quantity p;
        kp_error err;
        KT_CHECK_INT(parse_str(c->expect, &p, &err), KP_OK);
        KT_CHECK_INT(kp_quantity_cmp(&p, &q), 0);
        bool kept = kp_quantity_parse_keeps_string(c->expect, strlen(c->expect));
        if (i < UPSTREAM_STRING_ROWS) KT_CHECK(kept);
        /* Either way, upstream String() of the parsed canonical form is the canonical form. */
        KT_CHECK_STR(fmtq(&p, buf, sizeof buf), c->expect);

        /* Negated value prints with a leading '-' ("Don't expect it to print -0 ever"). */
        if (c->mant != 0) {
            char neg[KP_QUANTITY_STR_MAX + 1];
            kp_quantity nq = mkq(-c->mant, c->scale, c->fmt);
            snprintf(neg, sizeof neg, "-%s", c->expect);
            kp__quantity_format(&nq, buf, sizeof buf);
            KT_CHECK_STR(buf, neg);
        }

        if (!c->alternate[0]) continue;
        KT_CHECK_INT(parse_str(c->alternate, &p, &err), KP_OK);
        fmtq(&p, buf, sizeof buf);
        if (strcmp(buf, c->expect) != 0)
            fprintf(stderr, "  alternate %s -> %s, want %s\n", c->alternate, buf, c->expect);
        KT_CHECK_STR(buf, c->expect);
        KT_CHECK_INT(kp_quantity_cmp(&p, &q), 0);
        /* "unexpected nested string": upstream does not cache non-canonical input ... */
        if (strcmp(c->alternate, "1E3") != 0) /* ... except this cheap-test false positive */
            KT_CHECK(!kp_quantity_parse_keeps_string(c->alternate, strlen(c->alternate)));
    }
}

/* TestQuantityParseEmit */
KT_TEST(test_parse_emit) {
    static const struct {
        const char *in, *expect;
    } cases[] = {
        {"1Ki", "1Ki"},
        {"1Mi", "1Mi"},
        {"1Gi", "1Gi"},
        {"1024Mi", "1Gi"},
        {"1000M", "1G"},
        {".001Ki", "1024m"},
        {".000001Ki", "1024u"},
        {".000000001Ki", "1024n"},
        {".000000000001Ki", "2n"},
        /* kprio additions */
        {"0.5", "500m"},
        {"1.5Gi", "1536Mi"},
        {"51200Ki", "50Mi"},
        {"1E3", "1e3"},
        {"1e3", "1e3"},
        {"12E-2", "120e-3"},
        {"100.5m", "100500u"},
        {"0.5Ki", "512"},
        {"0.5Mi", "512Ki"},
        {"1.0Ki", "1Ki"},
        {"1.1Ki", "1126400m"},
        {"1023.999Ki", "1048574976m"},
        {"0.000000000001Ki", "2n"},
        {"1000E", "1000E"},
        {"1e21", "1e21"},
        {"+1Ki", "1Ki"},
        {"1.", "1"},
        {"01", "1"},
        {"1.500", "1500m"},
        {"15e0", "15"},
        {"1e0", "1"},
        {"1e1", "10"},
        {"1e2", "100"},
        {"1e-1", "100e-3"},
        {"1e-10", "1e-9"},
        {"1.G", "1G"},
        {"1000000000000000000", "1E"},
        {"999999999999999999.0", "999999999999999999"},
        {"9223372036854775807.0", "9223372036854775807"},
        {"9223372036854775806000m", "9223372036854775806"},
        {"10000000000000000000.0", "10E"},
        {"10.0E", "10E"},
        {"-0", "0"},
        {"-0.0", "0"},
        {"+", "0"},
        {"-", "0"},
        {".", "0"},
        {"-.", "0"},
        {"0Ki", "0"},
        {"0e5", "0"},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity q;
        kp_error err;
        char buf[KP_QUANTITY_STR_MAX], neg_in[64], neg_out[64];
        KT_CHECK_INT(parse_str(cases[i].in, &q, &err), KP_OK);
        fmtq(&q, buf, sizeof buf);
        if (strcmp(buf, cases[i].expect) != 0) fprintf(stderr, "  input %s\n", cases[i].in);
        KT_CHECK_STR(buf, cases[i].expect);
        if (q.mant == 0 || cases[i].in[0] == '+' || cases[i].in[0] == '-') continue;
        snprintf(neg_in, sizeof neg_in, "-%s", cases[i].in);
        snprintf(neg_out, sizeof neg_out, "-%s", cases[i].expect);
        KT_CHECK_INT(parse_str(neg_in, &q, &err), KP_OK);
        KT_CHECK_STR(fmtq(&q, buf, sizeof buf), neg_out);
    }
}

/* TestQuantityParseZero, TestQuantityCanocicalizeZero */
KT_TEST(test_zero) {
    kp_quantity q;
    kp_error err;
    char buf[16];
    KT_CHECK_INT(parse_str("0", &q, &err), KP_OK);
    KT_CHECK_STR(fmtq(&q, buf, sizeof buf), "0");
    KT_CHECK_INT(q.format, DSI);
    kp_quantity z = mkq(0, -3, DSI);
    KT_CHECK_STR(fmtq(&z, buf, sizeof buf), "0");
    z = mkq(0, 7, BSI);
    KT_CHECK_STR(fmtq(&z, buf, sizeof buf), "0");
    z = mkq(0, -2, DEX);
    KT_CHECK_STR(fmtq(&z, buf, sizeof buf), "0");
    KT_CHECK_STR(fmtq(NULL, buf, sizeof buf), "0");
}

/* TestParseQuantity: the 18..20 digit boundary table. Inputs that fit an int64 mantissa must
 * re-serialize as upstream does; the rest are KP_ERANGE here (inf.Dec upstream). */
KT_TEST(test_parse_boundaries) {
    static const struct {
        const char *in;
        const char *canonical; /* NULL: ERANGE; "": same as input */
    } cases[] = {
        {"-999999999999999999", ""},
        {"999999999999999999", ""},
        {"-999999999999999999.0", "-999999999999999999"},
        {"999999999999999999.0", "999999999999999999"},
        {"-999999999999999999.1", NULL},
        {"999999999999999999.1", NULL},
        {"-9999999999999999999", NULL},
        {"9999999999999999999", NULL},
        {"-1E", ""},
        {"1E", ""},
        {"-1000000000000000000", "-1E"},
        {"1000000000000000000", "1E"},
        {"-9999999999999999999.0", NULL},
        {"9999999999999999999.0", NULL},
        {"-1.0E", "-1E"},
        {"1.0E", "1E"},
        {"-1000000000000000000.0", "-1E"},
        {"1000000000000000000.0", "1E"},
        {"-9999999999999999999000m", NULL},
        {"9999999999999999999000m", NULL},
        {"-9999999999999999999.1", NULL},
        {"9999999999999999999.1", NULL},
        {"-1.0000000000000000001E", NULL},
        {"1.0000000000000000001E", NULL},
        {"-1000000000000000000.1", NULL},
        {"1000000000000000000.1", NULL},
        {"-1.000000000000000001E", "-1000000000000000001"},
        {"1.000000000000000001E", "1000000000000000001"},
        {"-1000000000000000001", ""},
        {"1000000000000000001", ""},
        {"-10E", ""},
        {"10E", ""},
        {"-10000000000000000000", "-10E"},
        {"10000000000000000000", "10E"},
        {"-10.0E", "-10E"},
        {"10.0E", "10E"},
        {"-10000000000000000000.0", "-10E"},
        {"10000000000000000000.0", "10E"},
        {"-10000000000000000000000m", "-10E"},
        {"10000000000000000000000m", "10E"},
        {"-10.0000000000000000001E", NULL},
        {"10.0000000000000000001E", NULL},
        {"-10000000000000000000.1", NULL},
        {"10000000000000000000.1", NULL},
        {"-10.000000000000000001E", NULL},
        {"10.000000000000000001E", NULL},
        {"-10000000000000000001", NULL},
        {"10000000000000000001", NULL},
        {"-9223372036854775809", NULL},
        {"9223372036854775806", ""},
        {"-9223372036854775809.0", NULL},
        {"9223372036854775806.0", "9223372036854775806"},
        {"-9223372036854775809000m", NULL},
        {"9223372036854775806000m", "9223372036854775806"},
        {"-9223372036854775809.1", NULL},
        {"9223372036854775806.1", NULL},
        {"-9223372036854775808", ""},
        {"9223372036854775807", ""},
        {"-9223372036854775808.0", "-9223372036854775808"},
        {"9223372036854775807.0", "9223372036854775807"},
        {"-9223372036854775808000m", "-9223372036854775808"},
        {"9223372036854775807000m", "9223372036854775807"},
        {"-9223372036854775808.1", NULL},
        {"9223372036854775807.1", NULL},
        {"-9223372036854775807", ""},
        {"9223372036854775808", NULL},
        {"-9223372036854775807.0", "-9223372036854775807"},
        {"9223372036854775808.0", NULL},
        {"-9223372036854775807000m", "-9223372036854775807"},
        {"9223372036854775808000m", NULL},
        {"-9223372036854775807.1", NULL},
        {"9223372036854775808.1", NULL},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity q;
        kp_error err;
        kp_status st = parse_str(cases[i].in, &q, &err);
        if (!cases[i].canonical) {
            if (st != KP_ERANGE) fprintf(stderr, "  input %s\n", cases[i].in);
            KT_CHECK_INT(st, KP_ERANGE);
            KT_CHECK_CONTAINS(err.msg, "is too large");
            continue;
        }
        if (st != KP_OK) fprintf(stderr, "  input %s: %s\n", cases[i].in, err.msg);
        KT_CHECK_INT(st, KP_OK);
        const char *want = cases[i].canonical[0] ? cases[i].canonical : cases[i].in;
        char buf[KP_QUANTITY_STR_MAX];
        KT_CHECK_STR(fmtq(&q, buf, sizeof buf), want);
    }
    /* INT64_MIN mantissa survives exactly */
    kp_quantity q;
    kp_error err;
    int64_t v = 0;
    KT_CHECK_INT(parse_str("-9223372036854775808", &q, &err), KP_OK);
    KT_CHECK(q.mant == INT64_MIN);
    KT_CHECK_INT(kp_quantity_value(&q, &v), KP_OK);
    KT_CHECK(v == INT64_MIN);
    KT_CHECK_INT(kp_quantity_milli_value(&q, &v), KP_ERANGE);
}

/* Upstream String() returns the input verbatim when ParseQuantity cached it. */
KT_TEST(test_keeps_string) {
    static const struct {
        const char *in;
        bool keep;
    } cases[] = {
        {"0", true},
        {"1", true},
        {"100m", true},
        {"1Gi", true},
        {"100Mi", true},
        {"1500m", true},
        {"1e3", true},
        {"1E3", true},
        {"1E+3", true},
        {"1e03", true},
        {"15e0", true},
        {"+1Ki", true},
        {"-1Ki", true},
        {"01", true},
        {"1.", true},
        {"1.G", true},
        {"1.500", true},
        {"1.Gi", true},
        {"100", true},
        {"10E", true},
        {"999999999999999999", true},
        {"1024Ki", false},
        {"8Ki", false},
        {"1000", false},
        {"1k", true},
        {"0.5", false},
        {"1.5", false},
        {"1.5Gi", false},
        {"51200Ki", false},
        {"12E-2", false},
        {"-0", false},
        {"+", false},
        {".", false},
        {"0Ki", false},
        {"1Ti", true},
        {"1Pi", false},
        {"1Ei", false},
        {"99Ti", true},
        {"100Ti", false},
        {"1000000000000000000", false},
        {"x", false},
        {"", false},
        {"5n", true},
        {"5000n", false},
        {"0.001", false},
        {".5e3", false},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        bool got = kp_quantity_parse_keeps_string(cases[i].in, strlen(cases[i].in));
        if (got != cases[i].keep) fprintf(stderr, "  input \"%s\"\n", cases[i].in);
        KT_CHECK_INT(got, cases[i].keep);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Comparison                                                                                 */

KT_TEST(test_cmp_parsed) {
    static const struct {
        const char *x, *y;
        int expect;
    } cases[] = {
        {"0", "0", 0},
        {"100m", "50m", 1},
        {"50m", "100m", -1},
        {"10000T", "100Gi", 1},
        /* kprio additions */
        {"1Ki", "1024", 0},
        {"1", "1000m", 0},
        {"1k", "1000", 0},
        {"1e3", "1k", 0},
        {"1.5Gi", "1536Mi", 0},
        {"1Gi", "1G", 1},
        {"-1", "1", -1},
        {"-2", "-1", -1},
        {"0", "-0.0", 0},
        {"1n", "0", 1},
        {"-1n", "0", -1},
        {"9Ei", "8Ei", 0}, /* both capped */
        {"10E", "9223372036854775807", 1},
        {"1000E", "999E", 1},
        {"0.1", "99m", 1},
        {"100m", "0.1", 0},
        {"123456789n", "0.123456788999", 0}, /* rounds up to 123456789n */
        {"123456790n", "0.123456789001", 0},
        {"123456789n", "0.123456789001", -1},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity a, b;
        kp_error err;
        KT_CHECK_INT(parse_str(cases[i].x, &a, &err), KP_OK);
        KT_CHECK_INT(parse_str(cases[i].y, &b, &err), KP_OK);
        if (kp_quantity_cmp(&a, &b) != cases[i].expect)
            fprintf(stderr, "  %s vs %s\n", cases[i].x, cases[i].y);
        KT_CHECK_INT(kp_quantity_cmp(&a, &b), cases[i].expect);
        KT_CHECK_INT(kp_quantity_cmp(&b, &a), -cases[i].expect);
    }
}

/* TestQuantityCmpInt64AndDec (values built directly, scales below -9 included). */
KT_TEST(test_cmp_raw) {
    static const struct {
        int64_t am;
        int32_t as;
        int64_t bm;
        int32_t bs;
        int cmp;
    } cases[] = {
        {901, -2, 901, -2, 0},
        {90, -1, 901, -2, -1},
        {901, -2, 900, -2, 1},
        {0, 0, 0, 0, 0},
        {0, 1, 0, -1, 0},
        {0, -1, 0, 1, 0},
        {800, -3, 1, 0, -1},
        {800, -3, 79, -2, 1},
        {INT64_MAX, 0, 1, -1, 1},
        {INT64_MAX, 1, 1, 0, 1},
        {INT64_MAX, 1, 1, 1, 1},
        {INT64_MAX, 1, 0, 1, 1},
        {INT64_MAX, -16, 1, 3, -1},
        {INT64_MIN, 0, 0, 0, -1},
        {INT64_MIN, -18, -1, 0, -1},
        {INT64_MIN, -19, -1, 0, 1},
        {1000000000000000000LL, -17, 1, 1, 0},
        {1000000000000000000LL, -17, -10, 0, 1},
        {-1000000000000000000LL, -17, -10, 0, 0},
        {1000000000000000000LL, -17, 1, 0, 1},
        {1000000000000000001LL, -17, 1, 1, 1},
        {999999999999999999LL, -17, 1, 1, -1},
        /* kprio additions: extreme scales never overflow */
        {1, INT32_MAX, INT64_MAX, 0, 1},
        {1, INT32_MIN, 1, -9, -1},
        {-1, INT32_MAX, INT64_MIN, 0, -1},
        {INT64_MIN, 0, INT64_MIN, 0, 0},
        {INT64_MIN, 0, -922337203685477580LL, 1, -1},
        {INT64_MAX, 0, 922337203685477580LL, 1, 1},
        {5, 0, 50, -1, 0},
        {5, 3, 5000000, -3, 0},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity a = mkq(cases[i].am, cases[i].as, DSI);
        kp_quantity b = mkq(cases[i].bm, cases[i].bs, BSI);
        if (kp_quantity_cmp(&a, &b) != cases[i].cmp) fprintf(stderr, "  case %zu\n", i);
        KT_CHECK_INT(kp_quantity_cmp(&a, &b), cases[i].cmp);
        KT_CHECK_INT(kp_quantity_cmp(&b, &a), -cases[i].cmp);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Constructors and accessors                                                                 */

/* TestMilliNewSet */
KT_TEST(test_new_milli) {
    static const struct {
        int64_t v;
        kp_qformat fmt;
        const char *expect;
        bool exact;
    } cases[] = {
        {1, DSI, "1m", true},         {1000, DSI, "1", true},
        {1234000, DSI, "1234", true}, {1024, BSI, "1024m", false}, /* Format changes */
        {1000000, DEX, "1e3", true},  {1024 * 1024, BSI, "1048576m", false}, /* Format changes */
        {5300, DSI, "5300m", true}, /* ExampleFormat */
        {-1500, DSI, "-1500m", true}, {1024 * 1000, BSI, "1Ki", true},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        char buf[KP_QUANTITY_STR_MAX];
        kp_quantity q = kp_quantity_from_milli(cases[i].v, cases[i].fmt);
        KT_CHECK_STR(fmtq(&q, buf, sizeof buf), cases[i].expect);
        kp__quantity_format_milli(cases[i].v, cases[i].fmt, buf, sizeof buf);
        KT_CHECK_STR(buf, cases[i].expect);
        KT_CHECK_STR(kp_quantity_string_milli(cases[i].v, cases[i].fmt).s, cases[i].expect);
        if (!cases[i].exact) continue;
        kp_quantity r;
        kp_error err;
        int64_t m = 0;
        KT_CHECK_INT(parse_str(buf, &r, &err), KP_OK);
        KT_CHECK_INT(kp_quantity_milli_value(&r, &m), KP_OK);
        KT_CHECK_INT(m, cases[i].v);
    }
}

/* TestNewSet */
KT_TEST(test_new_int) {
    static const struct {
        int64_t v;
        kp_qformat fmt;
        const char *expect;
    } cases[] = {
        {1, DSI, "1"},
        {1000, DSI, "1k"},
        {1234000, DSI, "1234k"},
        {1024, BSI, "1Ki"},
        {1000000, DEX, "1e6"},
        {1024 * 1024, BSI, "1Mi"},
        {5LL * 1024 * 1024 * 1024, BSI, "5Gi"}, /* ExampleFormat */
        {5LL * 1000 * 1000 * 1000, DSI, "5G"},
        {2000, DSI, "2k"},
        {1048576, DSI, "1048576"},
        {500, BSI, "500"},
        {-500, BSI, "-500"},
        {-2048, BSI, "-2Ki"},
        {-1024, BSI, "-1Ki"},
        {-1023, BSI, "-1023"},
        {INT64_MAX, DSI, "9223372036854775807"},
        {INT64_MIN, DSI, "-9223372036854775808"},
        {INT64_MIN, BSI, "-8Ei"},
        {INT64_MIN, DEX, "-9223372036854775808"},
        {(int64_t)1 << 62, BSI, "4Ei"},
        {1000000000000000000LL, DSI, "1E"},
        {1000000000000000000LL, DEX, "1e18"},
        {1000000000000000000LL, BSI, "976562500000000Ki"},
        {0, BSI, "0"},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        char buf[KP_QUANTITY_STR_MAX];
        kp_quantity q = kp_quantity_from_int(cases[i].v, cases[i].fmt);
        KT_CHECK(q.mant == cases[i].v && q.scale == 0 && q.format == cases[i].fmt);
        KT_CHECK_STR(fmtq(&q, buf, sizeof buf), cases[i].expect);
        size_t n = kp__quantity_format_int(cases[i].v, cases[i].fmt, buf, sizeof buf);
        KT_CHECK_STR(buf, cases[i].expect);
        KT_CHECK_STR(kp_quantity_string_int(cases[i].v, cases[i].fmt).s, cases[i].expect);
        KT_CHECK_INT(n, strlen(cases[i].expect));
        if (cases[i].v == INT64_MIN && cases[i].fmt == BSI) continue; /* "-8Ei" re-parses capped */
        kp_quantity r;
        kp_error err;
        int64_t v = 0;
        KT_CHECK_INT(parse_str(buf, &r, &err), KP_OK);
        KT_CHECK_INT(kp_quantity_value(&r, &v), KP_OK);
        KT_CHECK(v == cases[i].v);
    }
    /* upstream caps the re-parse of "-8Ei" at -(2^63-1), like any BinarySI magnitude */
    kp_quantity r;
    kp_error err;
    KT_CHECK_INT(parse_str("-8Ei", &r, &err), KP_OK);
    KT_CHECK(r.mant == -INT64_MAX);
}

/* TestNewScaledSet / TestScaledValue / ExampleMustParse, through Value and MilliValue. */
KT_TEST(test_value_milli) {
    static const struct {
        const char *in;
        kp_status vst;
        int64_t value;
        kp_status mst;
        int64_t milli;
    } cases[] = {
        {"5Gi", KP_OK, 5368709120LL, KP_OK, 5368709120000LL},
        {"5G", KP_OK, 5000000000LL, KP_OK, 5000000000000LL},
        {"5300m", KP_OK, 6, KP_OK, 5300},
        {"5.4", KP_OK, 6, KP_OK, 5400},
        {"1Mi", KP_OK, 1048576, KP_OK, 1048576000},
        {"1n", KP_OK, 1, KP_OK, 1},
        {"1000n", KP_OK, 1, KP_OK, 1},
        {"1u", KP_OK, 1, KP_OK, 1},
        {"1000u", KP_OK, 1, KP_OK, 1},
        {"1m", KP_OK, 1, KP_OK, 1},
        {"1000m", KP_OK, 1, KP_OK, 1000},
        {"1", KP_OK, 1, KP_OK, 1000},
        {"0", KP_OK, 0, KP_OK, 0},
        {"0n", KP_OK, 0, KP_OK, 0},
        {"100.5m", KP_OK, 1, KP_OK, 101},
        {"0.5", KP_OK, 1, KP_OK, 500},
        {"999m", KP_OK, 1, KP_OK, 999},
        {"1001m", KP_OK, 2, KP_OK, 1001},
        {"1.0001", KP_OK, 2, KP_OK, 1001},
        {"2.5n", KP_OK, 1, KP_OK, 1},
        {"-100.5m", KP_OK, -1, KP_OK, -101}, /* away from zero */
        {"-0.5", KP_OK, -1, KP_OK, -500},
        {"-1.0001", KP_OK, -2, KP_OK, -1001},
        {"-1n", KP_OK, -1, KP_OK, -1},
        {"1.5Gi", KP_OK, 1610612736, KP_OK, 1610612736000LL},
        {"100.035Ki", KP_OK, 102436, KP_OK, 102435840},
        {"9223372036854775807", KP_OK, INT64_MAX, KP_ERANGE, 0},
        {"9223372036854775807m", KP_OK, 9223372036854776LL, KP_OK, INT64_MAX},
        {"9223372036854775.807", KP_OK, 9223372036854776LL, KP_OK, INT64_MAX},
        {"9223372036854775.81", KP_OK, 9223372036854776LL, KP_ERANGE, 0},
        {"-9223372036854775.808", KP_OK, -9223372036854776LL, KP_OK, INT64_MIN},
        {"-9223372036854775.81", KP_OK, -9223372036854776LL, KP_ERANGE, 0},
        {"9Ei", KP_OK, INT64_MAX, KP_ERANGE, 0},
        {"9223372036854776", KP_OK, 9223372036854776LL, KP_ERANGE, 0},
        {"10E", KP_ERANGE, 0, KP_ERANGE, 0},
        {"-10E", KP_ERANGE, 0, KP_ERANGE, 0},
        {"1E", KP_OK, 1000000000000000000LL, KP_ERANGE, 0},
        {"9.223372036854775807E", KP_OK, INT64_MAX, KP_ERANGE, 0},
        {"1e36", KP_ERANGE, 0, KP_ERANGE, 0},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity q;
        kp_error err;
        int64_t v = 77, m = 77;
        KT_CHECK_INT(parse_str(cases[i].in, &q, &err), KP_OK);
        kp_status vs = kp_quantity_value(&q, &v), ms = kp_quantity_milli_value(&q, &m);
        if (vs != cases[i].vst || ms != cases[i].mst || (vs == KP_OK && v != cases[i].value) ||
            (ms == KP_OK && m != cases[i].milli))
            fprintf(stderr, "  input %s\n", cases[i].in);
        KT_CHECK_INT(vs, cases[i].vst);
        KT_CHECK_INT(ms, cases[i].mst);
        if (vs == KP_OK) KT_CHECK(v == cases[i].value);
        if (ms == KP_OK) KT_CHECK(m == cases[i].milli);
    }
}

/* scale_int_test / amount_test AsScaledInt64 cases through hand-built quantities. */
KT_TEST(test_value_raw) {
    static const struct {
        int64_t mant;
        int32_t scale;
        kp_status vst;
        int64_t value;
        kp_status mst;
        int64_t milli;
    } cases[] = {
        {1000, 0, KP_OK, 1000, KP_OK, 1000000},
        {1000, -3, KP_OK, 1, KP_OK, 1000},
        {999, -3, KP_OK, 1, KP_OK, 999},
        {500, -3, KP_OK, 1, KP_OK, 500},
        {499, -3, KP_OK, 1, KP_OK, 499},
        {1, -3, KP_OK, 1, KP_OK, 1},
        {0, -3, KP_OK, 0, KP_OK, 0},
        {INT64_MAX - 1, -1, KP_OK, (INT64_MAX - 1) / 10 + 1, KP_ERANGE, 0},
        {1, -100, KP_OK, 1, KP_OK, 1},
        {-1, -100, KP_OK, -1, KP_OK, -1},
        {1, 3, KP_OK, 1000, KP_OK, 1000000},
        {INT64_MAX / 1000, 0, KP_OK, INT64_MAX / 1000, KP_OK, (INT64_MAX / 1000) * 1000},
        {876, 30, KP_ERANGE, 0, KP_ERANGE, 0},
        {93, -1, KP_OK, 10, KP_OK, 9300},
        {100, -1, KP_OK, 10, KP_OK, 10000},
        {-1932, -2, KP_OK, -20, KP_OK, -19320},
        {-1900, -2, KP_OK, -19, KP_OK, -19000},
        {1, INT32_MAX, KP_ERANGE, 0, KP_ERANGE, 0},
        {-1, INT32_MAX, KP_ERANGE, 0, KP_ERANGE, 0},
        {1, INT32_MIN, KP_OK, 1, KP_OK, 1},
        {INT64_MIN, 0, KP_OK, INT64_MIN, KP_ERANGE, 0},
        {INT64_MIN, -3, KP_OK, -9223372036854776LL, KP_OK, INT64_MIN},
        {INT64_MAX, -19, KP_OK, 1, KP_OK, 923},
        {INT64_MAX, -16, KP_OK, 923, KP_OK, 922338},
        {9, 18, KP_OK, 9000000000000000000LL, KP_ERANGE, 0},
        {10, 18, KP_ERANGE, 0, KP_ERANGE, 0},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity q = mkq(cases[i].mant, cases[i].scale, DSI);
        int64_t v = 77, m = 77;
        kp_status vs = kp_quantity_value(&q, &v), ms = kp_quantity_milli_value(&q, &m);
        if (vs != cases[i].vst || ms != cases[i].mst) fprintf(stderr, "  case %zu\n", i);
        KT_CHECK_INT(vs, cases[i].vst);
        KT_CHECK_INT(ms, cases[i].mst);
        if (vs == KP_OK) KT_CHECK(v == cases[i].value);
        if (ms == KP_OK) KT_CHECK(m == cases[i].milli);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Formatting details                                                                         */

KT_TEST(test_format_buffer) {
    kp_quantity q = mkq(1536, 0, BSI); /* "1536" */
    char buf[8];
    memset(buf, 'x', sizeof buf);
    KT_CHECK_INT(kp__quantity_format(&q, buf, 3), 4); /* needed length, like snprintf */
    KT_CHECK_STR(buf, "15");
    KT_CHECK_INT(buf[3], 'x');
    KT_CHECK_INT(kp__quantity_format(&q, buf, 0), 4);
    KT_CHECK_INT(kp__quantity_format(&q, NULL, 0), 4);
    KT_CHECK_INT(kp__quantity_format(&q, buf, 5), 4);
    KT_CHECK_STR(buf, "1536");
    q = mkq(-15, -1, DSI);
    KT_CHECK_INT(kp__quantity_format(&q, buf, sizeof buf), 6);
    KT_CHECK_STR(buf, "-1500m");
    KT_CHECK_INT(kp__quantity_format(&q, buf, 1), 6);
    KT_CHECK_STR(buf, "");
    /* the longest canonical string still fits KP_QUANTITY_STR_MAX */
    kp_quantity big;
    kp_error err;
    char out[KP_QUANTITY_STR_MAX];
    KT_CHECK_INT(parse_str("-9223372036854775808e36", &big, &err), KP_OK);
    big.format = DSI;
    size_t n = kp__quantity_format(&big, out, sizeof out);
    KT_CHECK_INT(n, 39);
    KT_CHECK_STR(out, "-9223372036854775808000000000000000000E");
    KT_CHECK(n < KP_QUANTITY_STR_MAX);
}

/* Hand-built values outside what parsing produces still format to something parseable. */
KT_TEST(test_format_hand_built) {
    static const struct {
        int64_t mant;
        int32_t scale;
        kp_qformat fmt;
        const char *expect;
    } cases[] = {
        {1, -12, DSI, "1e-12"},
        {1, 40, DSI, "10e39"},
        {10800, -10, DSI, "1080n"},
        {5, 30, BSI, "4656612873077392578125Gi"},
        {1, 2000000000, DSI, "100e1999999998"},
        {1, 2000000000, BSI, "100e1999999998"},
        {7, 0, (kp_qformat)9, "7"}, /* unknown format prints as DecimalExponent */
        {7, 3, (kp_qformat)9, "7e3"},
        {3, -1, BSI, "300m"},
        {11, -1, BSI, "1100m"},
        {10241, -1, BSI, "1024100m"},
        {10240, -1, BSI, "1Ki"},
        {-10240, -1, BSI, "-1Ki"},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        kp_quantity q = mkq(cases[i].mant, cases[i].scale, cases[i].fmt);
        char buf[64];
        KT_CHECK_STR(fmtq(&q, buf, sizeof buf), cases[i].expect);
    }
}

/* Values from the eviction spec's worked messages. */
KT_TEST(test_spec_examples) {
    char buf[KP_QUANTITY_STR_MAX];
    kp__quantity_format_int(2LL * 1024 * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "2Gi");
    kp__quantity_format_int(1500LL * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "1500Mi");
    kp__quantity_format_int(1536LL * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "1536Mi");
    kp__quantity_format_int(700LL * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "700Mi");
    kp__quantity_format_int(1200, DSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "1200");
    kp__quantity_format_int(500, DSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "500");
    kp__quantity_format_int(50LL * 1024 * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "50Gi");
    kp__quantity_format_int(104857601, BSI, buf, sizeof buf); /* 10% of 1000Mi, float32 */
    KT_CHECK_STR(buf, "104857601");
    kp__quantity_format_int(161061280, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "161061280");
    kp__quantity_format_int(25581, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "25581");
    kp__quantity_format_int(1000LL * 1024 * 1024, BSI, buf, sizeof buf);
    KT_CHECK_STR(buf, "1000Mi");
}

KT_TEST(test_amount_checked) {
    int64_t r = 7;
    KT_CHECK_INT(kp_amount_add(INT64_MAX - 1, 1, &r), KP_OK);
    KT_CHECK(r == INT64_MAX);
    r = 7;
    KT_CHECK_INT(kp_amount_add(INT64_MAX, 1, &r), KP_ERANGE);
    KT_CHECK_INT(r, 7); /* untouched on overflow */
    KT_CHECK_INT(kp_amount_add(INT64_MIN, -1, &r), KP_ERANGE);
    KT_CHECK_INT(kp_amount_add((int64_t)7 << 60, (int64_t)7 << 60, &r), KP_ERANGE); /* 7Ei + 7Ei */
    KT_CHECK_INT(kp_amount_sub(INT64_MIN, 1, &r), KP_ERANGE);
    KT_CHECK_INT(kp_amount_sub(5, 7, &r), KP_OK);
    KT_CHECK_INT(r, -2);
    KT_CHECK_INT(kp_amount_mul((int64_t)1 << 62, 2, &r), KP_ERANGE);
    KT_CHECK_INT(kp_amount_mul((int64_t)1 << 61, 3, &r), KP_OK);
    KT_CHECK(r == (int64_t)3 << 61);
    KT_CHECK_INT(kp_amount_mul(-1, INT64_MIN, &r), KP_ERANGE);
    KT_CHECK(kp_amount_cmp(INT64_MIN, INT64_MAX) < 0);
    KT_CHECK(kp_amount_cmp(3, 3) == 0);
    KT_CHECK(kp_amount_cmp(INT64_MAX, -1) > 0);
}

KT_MAIN(KT_CASE(test_amount_checked), KT_CASE(test_parse_table), KT_CASE(test_parse_table_signs),
        KT_CASE(test_parse_format_roundtrip), KT_CASE(test_parse_invalid),
        KT_CASE(test_error_messages_exact), KT_CASE(test_parse_not_nul_terminated),
        KT_CASE(test_string_table), KT_CASE(test_parse_emit), KT_CASE(test_zero),
        KT_CASE(test_parse_boundaries), KT_CASE(test_keeps_string), KT_CASE(test_cmp_parsed),
        KT_CASE(test_cmp_raw), KT_CASE(test_new_milli), KT_CASE(test_new_int),
        KT_CASE(test_value_milli), KT_CASE(test_value_raw), KT_CASE(test_format_buffer),
        KT_CASE(test_format_hand_built), KT_CASE(test_spec_examples))
