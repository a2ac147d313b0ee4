/* Cron schedules as a CronJob's spec.schedule states them (the standard parser kube-controller-
 * manager uses, robfig/cron's ParseStandard): five fields (minute, hour, day of month, month,
 * day of week; `*`, `?`, lists, ranges, steps, month and weekday names) or a descriptor
 * (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every DURATION), in UTC.
 * The simulator's CronJob controller reads them (docs/simulate.md "Controllers"). */
#ifndef KPRIO_CRON_H
#define KPRIO_CRON_H

#include <stdbool.h>
#include <stdint.h>

#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t minute; /* bit m: minute m (0-59) */
    uint32_t hour; /* bit h: hour h (0-23) */
    uint32_t dom; /* bit d: day of month d (1-31) */
    uint16_t month; /* bit m: month m (1-12) */
    uint8_t dow; /* bit d: weekday d (0 = Sunday .. 6) */
    bool dom_star, dow_star; /* the field was `*` or `?`: dayMatches ANDs the two then */
    int64_t every_s; /* @every: the period in seconds (at least 1), else 0 */
} kp_cron;

/* Parses spec. Errors (KP_EINVAL, err->msg as the parser words them): the number of fields, a
 * value out of its field's range, a bad number, step or name, an unknown descriptor, a TZ= or
 * CRON_TZ= prefix (the API server refuses it: "use timeZone field instead"). */
kp_status kp_cron_parse(const char *spec, kp_cron *out, kp_error *err);

/* The first activation strictly after `after` (unix seconds, UTC): a schedule's next minute
 * whose fields match (SpecSchedule.Next); @every: anchor + k * period, k >= 1
 * (ConstantDelaySchedule from the CronJob's creation). -1 when none within five years. */
int64_t kp_cron_next(const kp_cron *c, int64_t anchor, int64_t after);

#ifdef __cplusplus
}
#endif
#endif
