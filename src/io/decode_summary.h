/* The fast Summary API decoder over the JSON / YAML event stream (decode_summary.c) and the
 * public entry points (include/kprio/eviction.h: kp_evict_summary_load_buffer,
 * kp_evict_summary_load_path), which fall back to the reference decoder (decode_summary_tree.h) for
 * anything the fast path declines, so errors are always the reference decoder's. */
#ifndef KP_IO_DECODE_SUMMARY_H
#define KP_IO_DECODE_SUMMARY_H

#include <stddef.h>

#include "kprio/common.h"
#include "kprio/eviction.h"


/* kp_evict_summary_load_path reads at most this many bytes. rule 8: a real limit, reported:
 * kp__read_file fails with KP_ELIMIT "file is larger than the limit of N bytes". */
#define KP_SUMMARY_MAX_BYTES ((size_t)1 << 30)

/* The event-stream decoder alone: KP_OK with *out set (free with kp_evict_summary_free),
 * KP_ENOMEM, or KP_EINVAL when it declines the document (a wrong type, a bad number, a syntax
 * error, not exactly one object document, ...): the reference decoder then decides and words
 * the error. It never accepts what kp__summary_decode_tree rejects (the differential pair). */
kp_status kp__summary_decode_events(const char *buf, size_t len, kp_evict_summary **out);

/* kp_evict_summary_load_buffer on a buffer that already has KP_JSON_PADDING readable bytes after
 * len (kp__read_file's): no copy. */
kp_status kp__summary_load_padded(const char *source, const char *buf, size_t len,
                                  kp_evict_summary **out, kp_error *err);

#endif
