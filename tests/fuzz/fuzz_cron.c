/* libFuzzer harness for src/core/cron.c (kprio/cron.h).
 *
 * For every input (as a NUL-terminated string): kp_cron_parse must not crash; a failure carries
 * KP_EINVAL and a message; a parsed schedule's next activation, when there is one, is strictly
 * after the time asked and asking again from it moves forward. Differentially, a five-field
 * spec is also parsed by a small reference model of robfig/cron v3's Parser (ParseStandard:
 * strings.Fields, getField's FieldsFunc on ',', getRange's '/' and '-' splits, parseIntOrName,
 * mustParseInt's strconv.Atoi, the bounds checks, starBit): both must accept or refuse alike,
 * and an accepted spec must give the same bits per field and the same `*` flags for day of month
 * and day of week. Descriptors (@...), TZ= prefixes and non-ASCII input are left to the checks
 * above (the model does not cover Go's Unicode spaces). Any violation aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cron.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STAR (UINT64_C(1) << 63)

typedef struct {
    int min, max;
    const char *const *names;
} ref_bounds;

static const char *const R_MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                       "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const R_DAYS[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};

/* strconv.Atoi, then "no negative number": -1 on any error */
static int64_t ref_atoi(const char *s, size_t n) {
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '+' || s[0] == '-')) neg = s[0] == '-', i = 1;
    if (i == n) return -1;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        if (v > (UINT64_C(1) << 63) / 10) return -1; /* out of range */
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > (UINT64_C(1) << 63)) return -1;
    }
    if (neg) return v == 0 ? 0 : -1;
    return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
}

/* parseIntOrName: a name (ToLower) of the field, else mustParseInt */
static int64_t ref_int_or_name(const char *s, size_t n, const ref_bounds *b) {
    if (b->names)
        for (int k = 0; b->names[k]; k++) {
            size_t l = strlen(b->names[k]);
            bool same = l == n;
            for (size_t j = 0; same && j < n; j++) {
                char c = s[j] >= 'A' && s[j] <= 'Z' ? (char)(s[j] - 'A' + 'a') : s[j];
                same = c == b->names[k][j];
            }
            if (same) return k + b->min;
        }
    return ref_atoi(s, n);
}

/* getRange over s[0..n): false on an error */
static bool ref_range(const char *s, size_t n, const ref_bounds *b, uint64_t *bits) {
    const char *slash = memchr(s, '/', n);
    size_t rn = slash ? (size_t)(slash - s) : n;
    if (slash && memchr(slash + 1, '/', n - rn - 1)) return false; /* too many slashes */
    const char *hy = memchr(s, '-', rn);
    bool single = !hy;
    int64_t start, end, step = 1;
    uint64_t extra = 0;
    size_t ln = hy ? (size_t)(hy - s) : rn;
    if ((ln == 1 && (s[0] == '*' || s[0] == '?'))) {
        start = b->min, end = b->max, extra = STAR;
    } else {
        start = ref_int_or_name(s, ln, b);
        if (start < 0) return false;
        if (!hy) {
            end = start;
        } else {
            const char *h2 = hy + 1;
            size_t hn = rn - ln - 1;
            if (memchr(h2, '-', hn)) return false; /* too many hyphens */
            end = ref_int_or_name(h2, hn, b);
            if (end < 0) return false;
        }
    }
    if (slash) {
        step = ref_atoi(slash + 1, n - rn - 1);
        if (step < 0) return false;
        if (single) end = b->max;
        if (step > 1) extra = 0;
    }
    if (start < b->min || end > b->max || start > end || step == 0) return false;
    uint64_t v = 0;
    for (int64_t i = start; i <= end; i += step) v |= UINT64_C(1) << i;
    *bits = v | extra;
    return true;
}

/* getField: the ranges between commas (FieldsFunc: empty ones skipped), OR-ed */
static bool ref_field(const char *s, size_t n, const ref_bounds *b, uint64_t *bits) {
    *bits = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        uint64_t r;
        if (j > i) {
            if (!ref_range(s + i, j - i, b, &r)) return false;
            *bits |= r;
        }
        i = j + 1;
    }
    return true;
}

static bool ref_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* ParseStandard of a spec with no descriptor: false on an error */
static bool ref_parse(const char *spec, uint64_t out[5]) {
    static const ref_bounds B[5] = {
        {0, 59, NULL}, {0, 23, NULL}, {1, 31, NULL}, {1, 12, R_MONTHS}, {0, 6, R_DAYS}};
    const char *f[6];
    size_t fl[6], nf = 0;
    for (const char *p = spec; *p;) {
        while (*p && ref_space(*p)) p++;
        if (!*p) break;
        const char *q = p;
        while (*q && !ref_space(*q)) q++;
        if (nf == 6) return false;
        f[nf] = p, fl[nf] = (size_t)(q - p), nf++;
        p = q;
    }
    if (nf != 5) return false; /* expected exactly 5 fields */
    for (int k = 0; k < 5; k++)
        if (!ref_field(f[k], fl[k], &B[k], &out[k])) return false;
    return true;
}

static void differential(const char *in, size_t size, kp_status st, const kp_cron *c) {
    if (size == 0 || in[0] == '@' || strlen(in) != size || !strncmp(in, "TZ=", 3) ||
        !strncmp(in, "CRON_TZ=", 8))
        return;
    for (size_t i = 0; i < size; i++)
        if ((unsigned char)in[i] >= 0x80) return;
    uint64_t b[5];
    bool ok = ref_parse(in, b);
    if (ok != (st == KP_OK)) abort();
    if (!ok) return;
    if ((b[0] & ~STAR) != c->minute || (b[1] & ~STAR) != c->hour || (b[2] & ~STAR) != c->dom ||
        (b[3] & ~STAR) != c->month || (b[4] & ~STAR) != c->dow)
        abort();
    if (((b[2] & STAR) != 0) != c->dom_star || ((b[4] & STAR) != 0) != c->dow_star) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *in = malloc(size + 1);
    if (!in) return 0;
    if (size) memcpy(in, data, size);
    in[size] = 0;
    kp_cron c;
    memset(&c, 0, sizeof c);
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cron_parse(in, &c, &err);
    differential(in, size, st, &c);
    free(in);
    if (st != KP_OK) {
        if (st != KP_EINVAL || err.msg[0] == '\0') abort();
        return 0;
    }
    int64_t t = 1795000000; /* late 2026 */
    for (int i = 0; i < 3; i++) {
        int64_t n = kp_cron_next(&c, 1794990000, t);
        if (n < 0) break;
        if (n <= t) abort();
        t = n;
    }
    return 0;
}
