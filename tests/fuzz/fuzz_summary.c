/* libFuzzer harness, differential, for the two kubelet Summary API decoders in src/io: the fast
 * event-stream decoder (kp__summary_decode_events, which may decline a document) and the
 * tree-based reference decoder (kp__summary_decode_tree). On every input the fast decoder
 * accepts, the reference must accept and decode the same summary (kp__summary_equal); the public
 * kp_evict_summary_load_buffer must agree with the reference's verdict; every error carries a
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/summary.h"
#include "io/decode_summary.h"
#include "io/decode_summary_tree.h"
#include "kprio/eviction.h"

#define PADDING 64 /* the JSON back end reads up to 64 bytes past the end (eviction.h) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *buf = calloc(1, size + PADDING);
    if (!buf) return 0;
    memcpy(buf, data, size);
    kp_evict_summary *a = NULL, *b = NULL, *c = NULL;
    kp_error eb, ec;
    kp_error_clear(&eb);
    kp_error_clear(&ec);
    kp_status sa = kp__summary_decode_events(buf, size, &a);
    kp_status sb = kp__summary_decode_tree("fuzz.json", buf, size, &b, &eb);
    kp_status sc = kp_evict_summary_load_buffer("fuzz.json", buf, size, &c, &ec);
    if (sb != KP_OK && eb.msg[0] == 0) abort(); /* every error must carry a message */
    if (sc != KP_OK && ec.msg[0] == 0) abort();
    if (sa == KP_ENOMEM || sb == KP_ENOMEM || sc == KP_ENOMEM)
        goto out; /* a limit, not a verdict */
    if ((sb == KP_OK) != (sc == KP_OK)) {
        fprintf(stderr, "fuzz_summary: public parse %s (%s), reference %s (%s)\n",
                sc == KP_OK ? "accepts" : "rejects", ec.msg, sb == KP_OK ? "accepts" : "rejects",
                eb.msg);
        abort();
    }
    if (sa != KP_OK) goto out; /* the fast decoder declined: the reference decides */
    if (sb != KP_OK) {
        fprintf(stderr, "fuzz_summary: fast decoder accepts, reference rejects (%s)\n", eb.msg);
        abort();
    }
    if (!kp__summary_equal(a, b)) {
        fprintf(stderr, "fuzz_summary: the decoders decode different summaries\n");
        abort();
    }
out:
    kp_evict_summary_free(a);
    kp_evict_summary_free(b);
    kp_evict_summary_free(c);
    free(buf);
    return 0;
}
