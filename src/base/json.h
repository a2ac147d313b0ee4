/* A streaming JSON writer (internal utility module, not published: like curl's curlx, usable by
 * every layer, the tool's included). The one copy behind the library's cluster encoding
 * (io/encode_json.c: kp_cluster_encode_json) and the tool's documents (render/emit.c: -o json).
 *
 * Keys appear in the order they are written. Two looks: pretty (4-space indentation, one member
 * or element per line, `"key": value`, as `kubectl get -o json` and encoding/json's
 * MarshalIndent print) and compact (no white space, `"key":value`), where the members of the
 * containers at depth line_depth may each start a line (a List's items one per line). Strings
 * are escaped as encoding/json escapes them (quote, backslash, \n \r \t by name, other control
 * bytes as \u00XX; every other byte, UTF-8 included, as it is).
 *
 * The text goes to `out`; with a sink it is handed on in pieces of at most KP__JSON_CHUNK bytes
 * as it fills, else the whole document stays in `out` for the caller. Failure is sticky: after
 * the first (KP_ENOMEM, the sink's status, kp__json_fail) every call does nothing, so a caller
 * writes the whole document and checks `st` once. Containers nest without limit (the frame stack
 * grows). */
#ifndef KP_BASE_JSON_H
#define KP_BASE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "kprio/common.h"

#define KP__JSON_CHUNK 65536

/* Receives the output in pieces, in order (never an empty one); KP_OK or an error that stops the
 * writer (kprio/encode.h's kp_write_fn has this shape). */
typedef kp_status (*kp__json_sink)(void *ctx, const char *buf, size_t len);

typedef struct {
    kp__buf out; /* the text not yet handed to the sink (all of it without a sink) */
    kp__json_sink sink; /* NULL: keep the document in out */
    void *ctx;
    kp_error *err; /* optional: "write failed (...)" / "out of memory" on a failure */
    kp_status st; /* the first failure (sticky) */
    bool pretty;
    uint32_t line_depth; /* compact look: members at this depth each start a line (0: none) */
    bool after_key; /* a key was written, its value follows */
    size_t depth; /* open containers */
    uint32_t *count; /* per open container: members / elements written so far */
    size_t cap_count;
} kp__json;

/* Starts a document (nothing is allocated before the first write, except the sink's chunk). */
void kp__json_init(kp__json *j, bool pretty, kp__json_sink sink, void *ctx, kp_error *err);
/* Hands what is buffered to the sink (no-op without one or after a failure); returns st. */
kp_status kp__json_flush(kp__json *j);
/* Releases the buffers (not flushed: call kp__json_flush first when there is a sink). */
void kp__json_free(kp__json *j);
/* Marks the writer failed with st (first failure wins); nothing is written after it. */
void kp__json_fail(kp__json *j, kp_status st);

/* Structure. A key applies to the value written next; at depth 0 it is ignored. */
void kp__json_key(kp__json *j, const char *key);
void kp__json_obj(kp__json *j);
void kp__json_arr(kp__json *j);
void kp__json_end_obj(kp__json *j);
void kp__json_end_arr(kp__json *j);

/* Values. */
void kp__json_str(kp__json *j, const char *s);
void kp__json_strn(kp__json *j, const char *s, size_t len);
void kp__json_int(kp__json *j, int64_t v);
/* A number the caller formatted (a mean: "12.500"), written as it is. */
void kp__json_number(kp__json *j, const char *text, size_t len);
void kp__json_bool(kp__json *j, bool v);
void kp__json_null(kp__json *j);

/* Bytes written as they are, outside the structure (a final newline; a YAML writer's text), and
 * a quoted string alone (no separator, no key). */
void kp__json_raw(kp__json *j, const char *s, size_t n);
void kp__json_quoted(kp__json *j, const char *s, size_t len);

#endif
