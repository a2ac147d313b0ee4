/* libFuzzer harness for the kubelet's eviction configuration, both ways it arrives:
 *   1. the bytes as a KubeletConfiguration: kp_evict_config_load_buffer -> kp_evict_config_finish
 *      (threshold parsing and validation);
 *   2. the bytes as kubelet flags, one "NAME=VALUE" per line (--eviction-hard and the others,
 *      applied in order on top of the defaults; a line "reclaimable=SPEC" goes to
 *      kp_evict_config_set_reclaimable) -> kp_evict_config_finish.
 * Any input must end in KP_OK or a clean error with a message; a finished configuration lists
 * thresholds with their texts; crashes, leaks and sanitizer reports are bugs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/eviction.h"

#define PADDING 64 /* the JSON back end may read up to 64 bytes past the end */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_finished(kp_evict_config *cfg, kp_status st, kp_error *err) {
    if (st == KP_OK) st = kp_evict_config_finish(cfg, err);
    if (st != KP_OK && err->msg[0] == 0) abort(); /* every error must carry a message */
    if (st != KP_OK) return;
    size_t n = kp_evict_config_threshold_count(cfg);
    for (size_t i = 0; i < n; i++) {
        const kp_evict_threshold_info *ti = kp_evict_config_threshold(cfg, i);
        if (!ti || !ti->value || !ti->min_reclaim) abort();
        if ((unsigned)ti->signal >= KP_EVSIG_COUNT) abort();
    }
}

/* Way 2: lines of NAME=VALUE (buf is NUL-terminated; lines are cut in place). */
static void as_flags(char *buf) {
    kp_evict_config *cfg = kp_evict_config_new();
    if (!cfg) return;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = KP_OK;
    for (char *line = buf; line && st == KP_OK;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = 0;
            if (strcmp(line, "reclaimable") == 0)
                st = kp_evict_config_set_reclaimable(cfg, eq + 1, &err);
            else st = kp_evict_config_set_flag(cfg, line, eq + 1, &err);
        }
        line = next;
    }
    check_finished(cfg, st, &err);
    kp_evict_config_free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *buf = calloc(1, size + PADDING);
    if (!buf) return 0;
    memcpy(buf, data, size);
    kp_evict_config *cfg = kp_evict_config_new();
    if (!cfg) {
        free(buf);
        return 0;
    }
    kp_error err;
    kp_error_clear(&err);
    check_finished(cfg, kp_evict_config_load_buffer(cfg, "fuzz.yaml", buf, size, &err), &err);
    kp_evict_config_free(cfg);
    as_flags(buf); /* the buffer is NUL-terminated by the padding */
    free(buf);
    return 0;
}
