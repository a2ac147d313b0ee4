/* Cron schedules (kprio/cron.h): mirrors robfig/cron v3's ParseStandard (getField, getRange,
 * parseDescriptor; the messages are the parser's) and SpecSchedule.Next / ConstantDelaySchedule,
 * in UTC, with the civil-date arithmetic written out (no timegm in C11/POSIX). */
#include <ctype.h>
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

/* mustParseInt: a non-negative decimal integer */
static kp_status parse_int(const char *s, size_t n, long *out, kp_error *err) {
    char buf[64];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end = NULL;
    long v = n ? strtol(buf, &end, 10) : 0;
    if (!n || *end || (buf[0] == '+' && n == 1))
        return kp_error_set(err, KP_EINVAL,
                            "failed to parse int from %s: strconv.Atoi: parsing "
                            "\"%s\": invalid syntax",
                            buf, buf);
    if (v < 0) return kp_error_set(err, KP_EINVAL, "negative number (%ld) not allowed: %s", v, buf);
    *out = v;
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
    if (dash && memchr(dash + 1, '-', rn - (size_t)(dash + 1 - e)))
        return kp_error_set(err, KP_EINVAL, "too many hyphens: %s", expr);
    long start, end, step = 1;
    bool any = rn == 1 && (e[0] == '*' || e[0] == '?');
    kp_status st;
    if (any) {
        start = b->min, end = b->max;
    } else {
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

/* getField: comma-separated ranges */
static kp_status field(const char *f, size_t n, const cron_bounds *b, uint64_t *bits, bool *star,
                       kp_error *err) {
    *bits = 0;
    *star = false;
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && f[j] != ',') j++;
        kp_status st = range(f + i, j - i, b, bits, star, err);
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

kp_status kp_cron_parse(const char *spec, kp_cron *c, kp_error *err) {
    memset(c, 0, sizeof *c);
    while (*spec == ' ' || *spec == '\t') spec++;
    if (strncmp(spec, "TZ=", 3) == 0 || strncmp(spec, "CRON_TZ=", 8) == 0)
        return kp_error_set(err, KP_EINVAL,
                            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
    if (spec[0] == '@') return descriptor(spec, c, err);
    const char *f[6];
    size_t len[6], n = 0;
    for (const char *p = spec; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != '\n') q++;
        if (n < 6) f[n] = p, len[n] = (size_t)(q - p);
        n++;
        p = q;
    }
    if (n != 5)
        return kp_error_set(err, KP_EINVAL, "expected exactly 5 fields, found %zu: [%s]", n, spec);
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
