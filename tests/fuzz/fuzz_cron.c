/* libFuzzer harness for src/core/cron.c (kprio/cron.h).
 *
 * For every input (as a NUL-terminated string): kp_cron_parse must not crash; a failure carries
 * KP_EINVAL and a message; a parsed schedule's next activation, when there is one, is strictly
 * after the time asked and asking again from it moves forward. Any violation aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cron.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *in = malloc(size + 1);
    if (!in) return 0;
    if (size) memcpy(in, data, size);
    in[size] = 0;
    kp_cron c;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp_cron_parse(in, &c, &err);
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
