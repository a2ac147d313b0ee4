/* The reference Summary API decoder over the value tree (decode_summary_tree.c): the slow path
 * that kp_evict_summary_load_buffer falls back to for a summary the event-stream decoder
 * (decode_summary.h: kp__summary_decode_events) cannot take as is. The two decoders are a
 * differential pair: on any input the event-stream decoder accepts, both give the same summary. */
#ifndef KP_IO_DECODE_SUMMARY_TREE_H
#define KP_IO_DECODE_SUMMARY_TREE_H

#include <stddef.h>

#include "kprio/common.h"
#include "kprio/eviction.h"


/* Decodes buf[0..len) (JSON or YAML, one object document); source names the input in errors.
 * Same contract as kp_evict_summary_load_buffer: *out set on KP_OK (free with
 * kp_evict_summary_free), else the first error in document order with its field path, line and
 * column. */
kp_status kp__summary_decode_tree(const char *source, const char *buf, size_t len,
                                  kp_evict_summary **out, kp_error *err);

#endif
