/* Cron schedules (kprio/cron.h): mirrors robfig/cron v3's ParseStandard (getField, getRange,
 * parseDescriptor; the messages are the parser's) and SpecSchedule.Next / ConstantDelaySchedule,
 * in UTC, with the civil-date arithmetic written out (no timegm in C11/POSIX). */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/civil.h"
#include "kprio/cron.h"

typedef struct {
    int min, max;
    const char *const *names; /* lower-case, index + min = value */
} cron_bounds;

static const char *const MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                     "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const DAYS[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};
static const cron_bounds B_MIN = {0, 59, NULL}, B_HOUR = {0, 23, NULL}, B_DOM = {1, 31, NULL},
                         B_MONTH = {1, 12, MONTHS}, B_DOW = {0, 6, DAYS};

/* mustParseInt: strconv.Atoi (an optional sign, decimal digits, any number of leading zeros;
 * "invalid syntax" or "value out of range" beyond int64) and no negative number. */
static kp_status parse_int(const char *s, size_t n, long *out, kp_error *err) {
    char shown[96]; /* the field as the message quotes it (cut to fit: messages only) */
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 80 ? n : 80), s);
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) neg = s[0] == '-', i = 1;
    bool range = false;
    uint64_t v = 0;
    if (i == n) i = n + 1; /* no digits */
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') {
            i = n + 1;
            break;
        }
        unsigned d = (unsigned)(s[k] - '0');
        if (v > (UINT64_C(9223372036854775808) - d) / 10) range = true;
        else v = v * 10 + d;
    }
    if (i > n)
        return kp_error_set(
            err, KP_EINVAL,
            "failed to parse int from %s: strconv.Atoi: parsing \"%s\": invalid syntax", shown,
            shown);
    if (range || (!neg && v > (uint64_t)INT64_MAX))
        return kp_error_set(err, KP_EINVAL,
                            "failed to parse int from %s: strconv.Atoi: parsing \"%s\": value out "
                            "of range",
                            shown, shown);
    if (neg && v > 0)
        return kp_error_set(err, KP_EINVAL, "negative number (-%llu) not allowed: %s",
                            (unsigned long long)v, shown);
    *out = (long)v; /* at most INT64_MAX here: a long on the platforms kprio builds for */
    return KP_OK;
}

/* parseIntOrName */
static kp_status int_or_name(const char *s, size_t n, const cron_bounds *b, long *out,
                             kp_error *err) {
    for (int i = 0; b->names && b->names[i]; i++) {
        if (strlen(b->names[i]) != n) continue;
        size_t k = 0;
        while (k < n && tolower((unsigned char)s[k]) == b->names[i][k]) k++;
        if (k == n) {
            *out = b->min + i;
            return KP_OK;
        }
    }
    return parse_int(s, n, out, err);
}

/* getRange: one "a", "a-b", "*", "?" with an optional "/step"; ORs its bits into *bits */
static kp_status range(const char *e, size_t n, const cron_bounds *b, uint64_t *bits, bool *star,
                       kp_error *err) {
    char expr[128];
    snprintf(expr, sizeof expr, "%.*s", (int)(n < sizeof expr ? n : sizeof expr - 1), e);
    const char *slash = memchr(e, '/', n);
    if (slash && memchr(slash + 1, '/', n - (size_t)(slash + 1 - e)))
        return kp_error_set(err, KP_EINVAL, "too many slashes: %s", expr);
    size_t rn = slash ? (size_t)(slash - e) : n;
    const char *dash = memchr(e, '-', rn);
    long start, end, step = 1;
    /* lowAndHigh[0] is "*" or "?": the whole range, whatever follows a '-' (robfig reads no
     * further: "*-5" is "*") */
    bool any = (dash ? (size_t)(dash - e) : rn) == 1 && (e[0] == '*' || e[0] == '?');
    kp_status st;
    if (any) {
        start = b->min, end = b->max;
    } else {
        if (dash && memchr(dash + 1, '-', rn - (size_t)(dash + 1 - e)))
            return kp_error_set(err, KP_EINVAL, "too many hyphens: %s", expr);
        if ((st = int_or_name(e, dash ? (size_t)(dash - e) : rn, b, &start, err)) != KP_OK)
            return st;
        end = start;
        if (dash &&
            (st = int_or_name(dash + 1, rn - (size_t)(dash + 1 - e), b, &end, err)) != KP_OK)
            return st;
    }
    if (slash) {
        if ((st = parse_int(slash + 1, n - (size_t)(slash + 1 - e), &step, err)) != KP_OK)
            return st;
        if (!dash && !any) end = b->max; /* "N/step" is "N-max/step" */
        if (step > 1) any = false; /* no star bit for "*" with a step */
    }
    if (start < b->min)
        return kp_error_set(err, KP_EINVAL, "beginning of range (%ld) below minimum (%d): %s",
                            start, b->min, expr);
    if (end > b->max)
        return kp_error_set(err, KP_EINVAL, "end of range (%ld) above maximum (%d): %s", end,
                            b->max, expr);
    if (start > end)
        return kp_error_set(err, KP_EINVAL,
                            "beginning of range (%ld) beyond end of range (%ld): %s", start, end,
                            expr);
    if (step == 0)
        return kp_error_set(err, KP_EINVAL, "step of range should be a positive number: %s", expr);
    for (long v = start; v <= end; v += step) {
        *bits |= (uint64_t)1 << v;
        if (step > end - v) break; /* no overflow with a huge step */
    }
    if (any) *star = true;
    return KP_OK;
}

/* getField: comma-separated ranges (FieldsFunc: empty ones skipped) */
static kp_status field(const char *f, size_t n, const cron_bounds *b, uint64_t *bits, bool *star,
                       kp_error *err) {
    *bits = 0;
    *star = false;
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && f[j] != ',') j++;
        /* strings.FieldsFunc on ',': an empty range ("10,", "1,,2") is skipped, not an error */
        kp_status st = j > i ? range(f + i, j - i, b, bits, star, err) : KP_OK;
        if (st != KP_OK) return st;
        i = j + 1;
    }
    return KP_OK;
}

static kp_status descriptor(const char *s, kp_cron *c, kp_error *err) {
    static const struct {
        const char *name, *spec;
    } D[] = {{"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
             {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
             {"@hourly", "0 * * * *"}};
    for (size_t i = 0; i < sizeof D / sizeof D[0]; i++)
        if (strcmp(s, D[i].name) == 0) return kp_cron_parse(D[i].spec, c, err);
    if (strncmp(s, "@every ", 7) == 0) {
        int64_t ns = 0;
        kp_error e;
        if (kp_duration_parse(s + 7, &ns, &e) != KP_OK)
            return kp_error_set(err, KP_EINVAL, "failed to parse duration %s: %s", s, e.msg);
        memset(c, 0, sizeof *c);
        c->every_s = ns < 1000000000 ? 1 : ns / 1000000000; /* Every: at least 1s, whole seconds */
        return KP_OK;
    }
    return kp_error_set(err, KP_EINVAL, "unrecognized descriptor: %s", s);
}

/* unicode.IsSpace of the UTF-8 character at p: its length in bytes, 0 when it is no space
 * (strings.Fields splits on these: '\r', '\v', NBSP and the other Unicode spaces too) */
static size_t go_space(const unsigned char *p) {
    if (*p == ' ' || (*p >= '\t' && *p <= '\r')) return 1;
    if (p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0)) return 2;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) return 3; /* U+1680 */
    if (p[0] == 0xE2 && p[1] == 0x80 &&
        ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) return 3; /* U+205F */
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) return 3; /* U+3000 */
    return 0;
}

/* mirrors cron.Parser.Parse for ParseStandard's options: TZ= / CRON_TZ= (refused: the
 * CronJob's timeZone field replaces them), a descriptor when the spec starts with '@' (no
 * trimming first, as robfig), else strings.Fields and exactly five fields */
kp_status kp_cron_parse(const char *spec, kp_cron *c, kp_error *err) {
    memset(c, 0, sizeof *c);
    if (!spec[0]) return kp_error_set(err, KP_EINVAL, "empty spec string");
    if (strncmp(spec, "TZ=", 3) == 0 || strncmp(spec, "CRON_TZ=", 8) == 0)
        return kp_error_set(err, KP_EINVAL,
                            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
    if (spec[0] == '@') return descriptor(spec, c, err);
    const char *f[6];
    size_t len[6], n = 0, sp;
    for (const unsigned char *p = (const unsigned char *)spec; *p;) {
        while ((sp = go_space(p)) > 0) p += sp;
        if (!*p) break;
        const unsigned char *q = p;
        while (*q && !go_space(q)) q++;
        if (n < 6) f[n] = (const char *)p, len[n] = (size_t)(q - p);
        n++;
        p = q;
    }
    if (n != 5) { /* the fields as Go prints a []string: "[a b c]" */
        char shown[256];
        size_t k = 0, m = n < 6 ? n : 6;
        for (size_t i = 0; i < m && k < sizeof shown - 1; i++)
            k += (size_t)snprintf(shown + k, sizeof shown - k, "%s%.*s", i ? " " : "", (int)len[i],
                                  f[i]);
        if (k >= sizeof shown) k = sizeof shown - 1;
        return kp_error_set(err, KP_EINVAL, "expected exactly 5 fields, found %zu: [%s%s]", n,
                            shown, n > 6 ? " ..." : "");
    }
    uint64_t bits;
    bool star;
    kp_status st;
    if ((st = field(f[0], len[0], &B_MIN, &bits, &star, err)) != KP_OK) return st;
    c->minute = bits;
    if ((st = field(f[1], len[1], &B_HOUR, &bits, &star, err)) != KP_OK) return st;
    c->hour = (uint32_t)bits;
    if ((st = field(f[2], len[2], &B_DOM, &bits, &c->dom_star, err)) != KP_OK) return st;
    c->dom = (uint32_t)bits;
    if ((st = field(f[3], len[3], &B_MONTH, &bits, &star, err)) != KP_OK) return st;
    c->month = (uint16_t)bits;
    if ((st = field(f[4], len[4], &B_DOW, &bits, &c->dow_star, err)) != KP_OK) return st;
    c->dow = (uint8_t)bits;
    return KP_OK;
}

static int64_t floor_div(int64_t a, int64_t b) {
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* dayMatches: with `*` in either day field both must match, else either */
static bool day_matches(const kp_cron *c, int dom, int dow) {
    bool a = c->dom >> dom & 1, b = c->dow >> dow & 1;
    return c->dom_star || c->dow_star ? a && b : a || b;
}

int64_t kp_cron_next(const kp_cron *c, int64_t anchor, int64_t after) {
    if (c->every_s > 0) {
        if (after < anchor) return anchor + c->every_s;
        return anchor + (floor_div(after - anchor, c->every_s) + 1) * c->every_s;
    }
    if (!c->minute || !c->hour || !c->dom || !c->month || !c->dow) return -1;
    int64_t t = floor_div(after, 60) * 60 + 60; /* the next whole minute after `after` */
    int64_t limit = after + (int64_t)5 * 366 * 86400;
    while (t <= limit) {
        int64_t days = floor_div(t, 86400), y;
        int m, d;
        kp__civil_from_days(days, &y, &m, &d);
        int64_t secs = t - days * 86400;
        int hour = (int)(secs / 3600), minute = (int)(secs % 3600 / 60);
        int dow = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday (4) */
        if (!(c->month >> m & 1)) { /* the first minute of the next month */
            int ny = m == 12, nm = m == 12 ? 1 : m + 1;
            t = kp__days_from_civil(y + ny, nm, 1) * 86400;
        } else if (!day_matches(c, d, dow)) {
            t = (days + 1) * 86400;
        } else if (!(c->hour >> hour & 1)) {
            t = days * 86400 + (int64_t)(hour + 1) * 3600;
        } else if (!(c->minute >> minute & 1)) {
            t += 60;
        } else {
            return t;
        }
    }
    return -1;
}
