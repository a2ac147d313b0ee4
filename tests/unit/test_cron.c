/* Cron schedules (kprio/cron.h) against robfig/cron v3's parser and SpecSchedule.Next: fields,
 * ranges, steps, names, the day-of-month / day-of-week rule, descriptors, @every, and the
 * parser's error messages. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kprio/cron.h"

/* unix seconds of a UTC civil time (test side: written as an independent count of days) */
static int64_t utc(int y, int mo, int d, int h, int mi) {
    static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    int64_t days = 0;
    for (int yy = 1970; yy < y; yy++)
        days += (yy % 4 == 0 && (yy % 100 || yy % 400 == 0)) ? 366 : 365;
    days += cum[mo - 1] + (d - 1);
    if (mo > 2 && (y % 4 == 0 && (y % 100 || y % 400 == 0))) days++;
    return days * 86400 + h * 3600 + mi * 60;
}

static int64_t next(const char *spec, int64_t anchor, int64_t after) {
    kp_cron c;
    kp_error err;
    kp_error_clear(&err);
    if (kp_cron_parse(spec, &c, &err) != KP_OK) {
        fprintf(stderr, "  %s: %s\n", spec, err.msg);
        return -2;
    }
    return kp_cron_next(&c, anchor, after);
}

KT_TEST(next_activation) {
    int64_t t0 = utc(2026, 11, 26, 10, 7); /* a Thursday */
    KT_CHECK(next("5 * * * *", 0, t0) == utc(2026, 11, 26, 11, 5));
    KT_CHECK(next("*/15 * * * *", 0, t0) == utc(2026, 11, 26, 10, 15));
    KT_CHECK(next("*/15 * * * *", 0, utc(2026, 11, 26, 10, 15)) == utc(2026, 11, 26, 10, 30));
    KT_CHECK(next("7 10 * * *", 0, t0) == utc(2026, 11, 27, 10, 7)); /* strictly after */
    KT_CHECK(next("0 0 * * 0", 0, t0) == utc(2026, 11, 29, 0, 0)); /* Sunday */
    KT_CHECK(next("0 9 * * mon-fri", 0, utc(2026, 11, 27, 9, 0)) == utc(2026, 11, 30, 9, 0));
    KT_CHECK(next("30 8 * JAN,jul *", 0, t0) == utc(2027, 1, 1, 8, 30));
    /* both day fields restricted: either matches (the 1st, the 15th, or a Wednesday) */
    KT_CHECK(next("0 0 1,15 * 3", 0, t0) == utc(2026, 12, 1, 0, 0));
    KT_CHECK(next("0 0 1,15 * 3", 0, utc(2026, 12, 1, 0, 0)) == utc(2026, 12, 2, 0, 0));
    /* one of them `*`: both must match (every day of month, Wednesdays only) */
    KT_CHECK(next("0 0 * * 3", 0, t0) == utc(2026, 12, 2, 0, 0));
    /* a star with a step is not a star: every tenth day OR Mondays */
    KT_CHECK(next("0 0 */10 * 1", 0, t0) == utc(2026, 11, 30, 0, 0));
    KT_CHECK(next("0 0 29 2 *", 0, utc(2026, 3, 1, 0, 0)) == utc(2028, 2, 29, 0, 0));
    KT_CHECK(next("0 0 31 2 *", 0, t0) == -1); /* never */
    KT_CHECK(next("5/20 * * * *", 0, t0) == utc(2026, 11, 26, 10, 25)); /* 5-59/20 */
    KT_CHECK(next("? * * * *", 0, t0) == utc(2026, 11, 26, 10, 8));
    KT_CHECK(next("@hourly", 0, t0) == utc(2026, 11, 26, 11, 0));
    KT_CHECK(next("@daily", 0, t0) == utc(2026, 11, 27, 0, 0));
    KT_CHECK(next("@weekly", 0, t0) == utc(2026, 11, 29, 0, 0));
    KT_CHECK(next("@monthly", 0, t0) == utc(2026, 12, 1, 0, 0));
    KT_CHECK(next("@yearly", 0, t0) == utc(2027, 1, 1, 0, 0));
    /* @every from the anchor (the CronJob's creation) */
    int64_t a = utc(2026, 11, 26, 10, 0);
    KT_CHECK(next("@every 90s", a, t0) == a + 90 * 5);
    KT_CHECK(next("@every 1h30m", a, a) == a + 5400);
    KT_CHECK(next("@every 200ms", a, a) == a + 1); /* at least a second */
}

static void err_is(const char *spec, const char *want) {
    kp_cron c;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cron_parse(spec, &c, &err), KP_EINVAL);
    KT_CHECK_STR(err.msg, want);
}

KT_TEST(parse_errors) {
    err_is("* * * *", "expected exactly 5 fields, found 4: [* * * *]");
    err_is("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]");
    err_is("60 * * * *", "end of range (60) above maximum (59): 60");
    err_is("* * 0 * *", "beginning of range (0) below minimum (1): 0");
    err_is("5-3 * * * *", "beginning of range (5) beyond end of range (3): 5-3");
    err_is("*/0 * * * *", "step of range should be a positive number: */0");
    err_is("1-2-3 * * * *", "too many hyphens: 1-2-3");
    err_is("*/2/3 * * * *", "too many slashes: */2/3");
    err_is("* * * * 7", "end of range (7) above maximum (6): 7");
    err_is("x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
    err_is("@fortnightly", "unrecognized descriptor: @fortnightly");
    err_is("TZ=UTC 0 * * * *", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
}

/* The parser as robfig/cron reads input: strconv.Atoi takes any number of leading zeros and a
 * sign; strings.Fields splits on every Unicode space ('\r', '\v', NBSP...); nothing is trimmed
 * before the '@' test; the field-count message prints the fields as Go prints a []string. */
KT_TEST(parse_as_go_reads_it) {
    int64_t t0 = utc(2026, 12, 7, 13, 2);
    char zeros[128];
    snprintf(zeros, sizeof zeros, "%070d5 * * * *", 0); /* 70 zeros, then 5 */
    KT_CHECK_INT(next(zeros, 0, t0), utc(2026, 12, 7, 13, 5));
    KT_CHECK_INT(next("+5 * * * *", 0, t0), utc(2026, 12, 7, 13, 5));
    KT_CHECK_INT(next("0 * * * *\r", 0, t0), utc(2026, 12, 7, 14, 0));
    KT_CHECK_INT(next("0\v*\f* *\t*\n", 0, t0), utc(2026, 12, 7, 14, 0));
    KT_CHECK_INT(next("0\xc2\xa0* * * *", 0, t0), utc(2026, 12, 7, 14, 0)); /* NBSP */
    KT_CHECK_INT(next("0\xe3\x80\x80* * * *", 0, t0), utc(2026, 12, 7, 14, 0)); /* U+3000 */
    err_is("99999999999999999999 * * * *",
           "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
           "\"99999999999999999999\": value out of range");
    err_is("-5 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax");
    err_is(" @hourly", "expected exactly 5 fields, found 1: [@hourly]");
    err_is("0  *\t* *", "expected exactly 5 fields, found 4: [0 * * *]");
    err_is("@hourly\r", "unrecognized descriptor: @hourly\r");
    err_is("", "empty spec string");
    /* getField's strings.FieldsFunc: empty ranges between commas are skipped (fuzz_cron's
     * reference model found "10," refused); "*-5" is "*" (getRange reads no further) */
    KT_CHECK_INT(next("0 14, * * *", 0, t0), utc(2026, 12, 7, 14, 0));
    KT_CHECK_INT(next("0 ,,14,,15 * * *", 0, t0), utc(2026, 12, 7, 14, 0));
    KT_CHECK_INT(next("*-5 * * * *", 0, t0), utc(2026, 12, 7, 13, 3));
    KT_CHECK_INT(next(", * * * *", 0, t0), -1); /* no minute: never */
}

KT_MAIN(KT_CASE(next_activation), KT_CASE(parse_errors), KT_CASE(parse_as_go_reads_it))
