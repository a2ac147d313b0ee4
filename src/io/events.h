/* Event streams from the two syntax back ends (internal): JSON via simdjson On-Demand
 * (json_simdjson.cpp, the project's single C++ file) and YAML via libyaml (yaml_events.c). Both
 * feed the same consumer (tree.c), so every kind is decoded by one field dispatcher. */
#ifndef KP_IO_EVENTS_H
#define KP_IO_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KP_EV_DOC_BEGIN = 0,
    KP_EV_DOC_END,
    KP_EV_OBJ_BEGIN,
    KP_EV_OBJ_END,
    KP_EV_ARR_BEGIN,
    KP_EV_ARR_END,
    KP_EV_KEY,
    KP_EV_STR,
    KP_EV_NUM, /* text = the number as written */
    KP_EV_TRUE,
    KP_EV_FALSE,
    KP_EV_NULL,
    KP_EV_RAW /* a container member the consumer asked to keep unread: s/len = its JSON text */
} kp_ev;

/* Consumer callback. Return 0 to continue, after a KEY 1 (KP_EV_SKIP) or 2 (KP_EV_SKIP_CHECKED,
 * the same today) to skip that member's value: no events are delivered for it, and the back end
 * still checks that it is well-formed (JSON: a grammar walk over its text, jscan.h; YAML: libyaml
 * parses everything); negative to abort (the consumer keeps its own error). off = byte offset in
 * the buffer. */
#define KP_EV_SKIP 1
#define KP_EV_SKIP_CHECKED 2
/* 3 after a KEY: if the value is an object or an array, check it, step over it and deliver one
 * KP_EV_RAW with its text instead of its events (JSON; a scalar is delivered as usual, and the
 * YAML back end delivers everything). */
#define KP_EV_SKIP_RAW 3
typedef int (*kp_ev_fn)(void *ctx, kp_ev ev, const char *s, size_t len, uint64_t off);

/* Returned by a back end that runs out of memory (not a syntax error; the caller reports
 * KP_ENOMEM). */
#define KP_EV_NOMEM (-1001)

#define KP_JSON_PADDING 64 /* bytes readable (zeroed) after the JSON buffer */
#define KP_MAX_DEPTH 128

/* Walks one JSON text (buf[len] followed by KP_JSON_PADDING readable bytes). Returns 0 on
 * success, the consumer's negative value if it aborted, KP_EV_NOMEM when memory ran out (no C++
 * exception ever leaves the back end), or -1000 on a syntax error with *err_off and errmsg set.
 * The text gets a parser of its own, freed before the call returns. Thread-safe (no shared
 * state but the test counters below). */
int kp__json_events(const char *buf, size_t len, kp_ev_fn fn, void *ctx, char *errmsg,
                    size_t errcap, uint64_t *err_off);

/* A JSON parser owned by the caller, for a run of documents (the items of a List, the documents
 * of a stream): its buffers are allocated once and grow to the largest document up to 16 MiB (a
 * bigger one gets a parser of its own for the call). kp__json_parser_new returns NULL when out of
 * memory; kp__json_parser_free(NULL) is a no-op. One thread at a time per parser. */
typedef struct kp__json_parser kp__json_parser;
kp__json_parser *kp__json_parser_new(void);
void kp__json_parser_free(kp__json_parser *jp);

/* kp__json_events with the caller's parser jp (NULL: as kp__json_events). */
int kp__json_events_with(kp__json_parser *jp, const char *buf, size_t len, kp_ev_fn fn, void *ctx,
                         char *errmsg, size_t errcap, uint64_t *err_off);

/* Walks a YAML stream (several documents). Same return convention, and KP_EV_NOMEM when libyaml
 * runs out of memory. */
int kp__yaml_events(const char *buf, size_t len, kp_ev_fn fn, void *ctx, char *errmsg,
                    size_t errcap, uint64_t *err_off);

/* Test hook: how often the JSON back end ended out of memory through each of its three paths:
 * [0] an exception (std::bad_alloc) caught at the C boundary, [1] simdjson's MEMALLOC or a missing
 * string buffer, [2] the nothrow new of a
 * parser. The allocation-failure sweep (kp__alloc_fail_after) reaches all three. */
void kp__json_oom_counts(unsigned long out[3]);

#ifdef __cplusplus
}
#endif
#endif
