/* Cutting JSON text without parsing it (internal). Used by the List splitter (tree.c) to find
 * where each item of a kubectl List ends, so each item can be parsed as its own document. */
#ifndef KP_IO_JSCAN_H
#define KP_IO_JSCAN_H

#include <stdbool.h>

#include "io/events.h"

/* Nesting deeper than this makes the cut give up. rule 8: not a limit of its own: the item is
 * then handed to the full parser, which fails with KP_ELIMIT naming KP_MAX_DEPTH. */
#define KP_JSCAN_MAX_DEPTH KP_MAX_DEPTH

/* p at '{' or '[': returns the byte after the matching close bracket, honouring strings and
 * escapes, or NULL if the text ends first or nests deeper than KP_JSCAN_MAX_DEPTH. Reads up to
 * 63 bytes past `end` (the caller's buffer carries KP_JSON_PADDING readable bytes after the
 * text). Only meaningful on valid JSON: the cut pieces are validated by the parser afterwards. */
const char *kp__json_skip_container(const char *p, const char *end);

/* The baseline kernel (SSE2 on x86-64) whatever the CPU supports, for tests. */
const char *kp__json_skip_container_base(const char *p, const char *end);

/* The same cut one byte at a time: the reference the fast version is tested against. */
const char *kp__json_skip_container_ref(const char *p, const char *end);

/* Checks that [p, end) holds one JSON value (RFC 8259 grammar: structure, literals, numbers,
 * string escapes, no raw control characters) with optional whitespace around it, nested at most
 * max_depth (<= KP_MAX_DEPTH) levels. Returns NULL if it does, else the position of the first
 * fault with *what saying what is wrong. UTF-8 is not checked here (simdjson checks the whole
 * text before any member is skipped). Reads nothing at or past end. */
const char *kp__json_check_value(const char *p, const char *end, int max_depth, const char **what);
/* The baseline kernel (SSE2 on x86-64) whatever the CPU supports, for tests. */
const char *kp__json_check_value_base(const char *p, const char *end, int max_depth,
                                      const char **what);
/* The same check one token at a time: the reference the fast version is tested against. */
const char *kp__json_check_value_ref(const char *p, const char *end, int max_depth,
                                     const char **what);

#endif
