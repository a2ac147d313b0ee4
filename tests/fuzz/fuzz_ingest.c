/* libFuzzer harness for the snapshot ingest path: bytes -> (JSON or YAML by first byte) ->
 * kp_cluster_load_buffer -> kp_cluster_finalize. Any input must end in KP_OK or a clean error;
 * crashes, leaks and sanitizer reports are bugs. Built twice: FUZZ_FORCE_YAML prefixes a YAML
 * document start ("---\n") so the YAML back end sees every input, JSON-looking ones too (the
 * format is detected from the first non-blank byte). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return 0;
    kp_error err;
    kp_error_clear(&err);
#ifdef FUZZ_FORCE_YAML
    char *buf = malloc(size + 4);
    if (!buf) {
        kp_cluster_free(cl);
        return 0;
    }
    memcpy(buf, "---\n", 4);
    memcpy(buf + 4, data, size);
    kp_status st = kp_cluster_load_buffer(cl, "fuzz.yaml", buf, size + 4, &err);
    free(buf);
#else
    kp_status st = kp_cluster_load_buffer(cl, "fuzz.json", (const char *)data, size, &err);
#endif
    if (st == KP_OK) st = kp_cluster_finalize(cl, &err);
    if (st != KP_OK && err.msg[0] == 0) abort(); /* every error must carry a message */
    kp_cluster_free(cl);
    return 0;
}
