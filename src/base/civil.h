/* Civil dates in the proleptic Gregorian calendar and days since 1970-01-01 (Howard Hinnant's
 * algorithms): RFC 3339 timestamps (read by io/dctx.c, written by io/encode_json.c) and cron
 * schedules (core/cron.c) share them, as C11 and POSIX have no timegm. Part of the internal utility
 * module: every layer may use it, none keeps a copy. */
#ifndef KP_BASE_CIVIL_H
#define KP_BASE_CIVIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline int64_t kp__days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static inline void kp__civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Unix seconds as an RFC 3339 UTC timestamp, "2026-11-01T01:00:00Z" (at most 32 bytes for any
 * int64 / 86400 year; cut to cap). */
static inline void kp__rfc3339_utc(int64_t secs, char *buf, size_t cap) {
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t rem = secs - days * 86400, y;
    int m, d;
    kp__civil_from_days(days, &y, &m, &d);
    snprintf(buf, cap, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, m, d, (int)(rem / 3600),
             (int)(rem / 60 % 60), (int)(rem % 60));
}

#endif
