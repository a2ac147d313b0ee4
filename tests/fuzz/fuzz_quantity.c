/* libFuzzer harness for src/core/quantity.c.
 *
 * For every input: kp_quantity_parse must not crash or read past the input. When it succeeds,
 * the canonical string must fit KP_QUANTITY_STR_MAX, must parse again, and must give an equal
 * quantity (kp_quantity_cmp == 0); formatting it again must give the same string. Value and
 * MilliValue must be consistent with each other. Any violation aborts.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *            tests/fuzz/fuzz_quantity.c src/core/quantity.c src/core/error.c -o /tmp/fq
 * Run:   /tmp/fq -max_total_time=60 tests/fuzz/corpus/quantity */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/quantity.h"
#include "kprio/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Copy into an exact-size heap buffer so ASan flags any read past size. */
    char *in = malloc(size ? size : 1);
    if (!in) return 0;
    if (size) memcpy(in, data, size);

    kp_quantity q;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_quantity_parse(in, size, &q, &err);
    (void)kp_quantity_parse_keeps_string(in, size);
    free(in);
    if (st != KP_OK) {
        if (err.code != st || err.msg[0] == '\0') abort();
        if (st != KP_EINVAL && st != KP_ERANGE) abort();
        return 0;
    }
    if (q.scale < -9) abort();

    char buf[KP_QUANTITY_STR_MAX], again[KP_QUANTITY_STR_MAX];
    size_t n = kp__quantity_format(&q, buf, sizeof buf);
    if (n >= sizeof buf || strlen(buf) != n) abort();
    if (strcmp(kp_quantity_string(&q).s, buf) != 0) abort(); /* the public by-value form */

    kp_quantity r;
    if (kp_quantity_parse(buf, n, &r, &err) != KP_OK) abort();
    if (kp_quantity_cmp(&q, &r) != 0 || kp_quantity_cmp(&r, &q) != 0) abort();
    /* The re-parsed quantity may carry another format (a BinarySI integer without a binary
     * suffix, e.g. "5244576000", re-parses as DecimalSI and prints "5244576k"), so the strings
     * are compared only when the formats agree. */
    size_t n2 = kp__quantity_format(&r, again, sizeof again);
    if (n2 >= sizeof again) abort();
    if (r.format == q.format && (n2 != n || strcmp(buf, again) != 0)) abort();

    /* Value() <= MilliValue()/1000 rounded the same way, both rounded away from zero. */
    int64_t v, m;
    kp_status vs = kp_quantity_value(&q, &v), ms = kp_quantity_milli_value(&q, &m);
    if (ms == KP_OK && vs != KP_OK) abort();
    if (ms == KP_OK) {
        int64_t want = m / 1000 + (m % 1000 > 0) - (m % 1000 < 0);
        if (v != want) abort();
        kp_quantity mq = kp_quantity_from_milli(m, KP_QFMT_DECIMAL_SI);
        int c = kp_quantity_cmp(&mq, &q); /* |milli quantity| >= |q| */
        if ((q.mant > 0 && c < 0) || (q.mant < 0 && c > 0)) abort();
    }
    if (vs == KP_OK) {
        kp_quantity vq = kp_quantity_from_int(v, KP_QFMT_DECIMAL_SI);
        int c = kp_quantity_cmp(&vq, &q);
        if ((q.mant > 0 && c < 0) || (q.mant < 0 && c > 0)) abort();
        if (q.mant == 0 && v != 0) abort();
    }
    return 0;
}
