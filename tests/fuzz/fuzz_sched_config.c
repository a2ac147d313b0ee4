/* libFuzzer harness for the KubeSchedulerConfiguration decoder (kp_sched_config_load_buffer),
 * for the default profile and for a named one. Any input must end in KP_OK or a clean error
 * with a message; crashes, leaks and sanitizer reports are bugs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/sched.h"

#define PADDING 64 /* the JSON back end may read up to 64 bytes past the end */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *buf = calloc(1, size + PADDING);
    if (!buf) return 0;
    memcpy(buf, data, size);
    static const char *const names[] = {NULL, "other"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        kp_sched_config *cfg = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp_sched_config_load_buffer("fuzz.yaml", buf, size, names[i], &cfg, &err);
        if (st != KP_OK && err.msg[0] == 0) abort(); /* every error must carry a message */
        if (st != KP_OK && cfg) abort(); /* no half-built result on error */
        kp_sched_config_free(cfg);
    }
    free(buf);
    return 0;
}
