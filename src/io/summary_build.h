/* Building a decoded Summary API document (internal): the compact form of src/core/summary.h,
 * shared by both decoders (decode_summary.c over the event stream, decode_summary_tree.c over
 * the value tree). */
#ifndef KP_IO_SUMMARY_BUILD_H
#define KP_IO_SUMMARY_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/summary.h"

/* Builds a summary's compact form while a decoder reads it (summary_build.c). Elements and
 * strings go to growable scratch vectors; kp__ev_build_finish copies them, once, into the
 * summary's single allocation. */
typedef struct {
    char *p;
    uint32_t n, cap; /* elements (bytes for strs) */
} kp__ev_vec;
typedef struct {
    kp_evict_summary head; /* node-level fields, filled in place by the decoder */
    kp__ev_vec pods, conts, vols, strs;
    bool oom;
} kp__ev_builder;

void kp__ev_build_init(kp__ev_builder *b);
void kp__ev_build_fini(kp__ev_builder *b);
/* A zeroed element appended to v (b->pods, b->conts or b->vols; size sz); NULL (b->oom set) on
 * allocation failure. Pointers into v are valid until the next push onto v. */
void *kp__ev_build_push(kp__ev_builder *b, kp__ev_vec *v, size_t sz);
/* Appends s[0..len) and a NUL to the strings; false (b->oom set) on allocation failure. */
bool kp__ev_build_str(kp__ev_builder *b, const char *s, size_t len, uint32_t *off);
/* The summary: head plus the vectors, in one allocation; NULL on allocation failure. The builder
 * still needs kp__ev_build_fini. */
kp_evict_summary *kp__ev_build_finish(kp__ev_builder *b);
/* A node-level time t (0: absent) seen: the summary's time is the newest. */
void kp__ev_summary_newest(kp_evict_summary *s, int64_t t);
/* Final touches shared by both decoders: the step time from the node-level times. */
void kp__ev_summary_times(kp_evict_summary *s);

/* The compact fields of one pod-side memory or filesystem object. A decoder reads the object
 * into a full kp__ev_mem / kp__ev_fs seeded with kp__ev_sink_load (so a repeated key updates
 * what the first occurrence set, as decoding in place did) and keeps it with kp__ev_sink_store.
 * rec: the kp__ev_pstats (POD_*), kp__ev_cstats (CONT_*) or kp__ev_vstats (VOL). */
typedef enum {
    KP__EVSINK_POD_MEM,
    KP__EVSINK_POD_EPH,
    KP__EVSINK_CONT_MEM,
    KP__EVSINK_CONT_ROOT,
    KP__EVSINK_CONT_LOGS,
    KP__EVSINK_VOL
} kp__ev_sink;
void kp__ev_sink_load(kp__ev_sink k, const void *rec, kp__ev_mem *mem, kp__ev_fs *fs);
void kp__ev_sink_store(kp__ev_sink k, void *rec, const kp__ev_mem *mem, const kp__ev_fs *fs);

#endif
