/* libFuzzer harness for the KubeletConfiguration decoder: bytes -> kp_evict_config_load_buffer
 * -> kp_evict_config_finish (threshold parsing and validation). Any input must end in KP_OK or a
 * clean error with a message; crashes, leaks and sanitizer reports are bugs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/eviction.h"

#define PADDING 64 /* the JSON back end may read up to 64 bytes past the end */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    kp_status st = kp_evict_config_load_buffer(cfg, "fuzz.yaml", buf, size, &err);
    if (st == KP_OK) st = kp_evict_config_finish(cfg, &err);
    if (st != KP_OK && err.msg[0] == 0) abort(); /* every error must carry a message */
    if (st == KP_OK) {
        size_t n = kp_evict_config_threshold_count(cfg);
        for (size_t i = 0; i < n; i++) {
            const kp_evict_threshold_info *ti = kp_evict_config_threshold(cfg, i);
            if (!ti || !ti->value || !ti->min_reclaim) abort();
        }
    }
    kp_evict_config_free(cfg);
    free(buf);
    return 0;
}
