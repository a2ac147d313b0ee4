/* Streaming JSON/YAML writer and kubectl-style table writer (src/render/emit.c), used by the CLI.
 *
 * The same calls produce JSON (4-space indent, keys in call order) or YAML (block style, strings
 * quoted only when needed). Keys appear in the order they are emitted, so output is
 * deterministic. An emitter builds the whole document in memory and writes it to its FILE* in
 * one piece when it is freed; a table is printed by kp_table_print once it is complete. So a
 * document is written whole or not at all.
 *
 * Errors are sticky: a writer whose allocation failed (or that is NULL because kp_emit_new or
 * kp_table_new failed) ignores every later call, and its status call reports KP_ENOMEM. So a
 * caller writes the whole document and checks once at the end:
 *     kp_emit *e = kp_emit_new(stdout, KP_OUT_JSON);
 *     ... kp_emit_* ...
 *     kp_status st = kp_emit_status(e);
 *     kp_emit_free(e);
 * A writer that failed writes nothing at all: kp_emit_free of a failed emitter, and kp_table_print
 * of a failed table (which returns the status), leave the FILE* untouched. */
#ifndef KP_RENDER_EMIT_H
#define KP_RENDER_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* KP_OUT_WIDE: the table with more columns (-o wide), for the renderers that have them
 * (kp_render_schedule); kp_outfmt_parse reads "wide" as KP_OUT_TABLE, the CLI asks for WIDE only
 * where a renderer takes it. */
typedef enum { KP_OUT_TABLE = 0, KP_OUT_JSON, KP_OUT_YAML, KP_OUT_WIDE } kp_outfmt;

/* Parses "table"/"wide"/"json"/"yaml"; returns false on anything else. */
bool kp_outfmt_parse(const char *s, kp_outfmt *out);

typedef struct kp_emit kp_emit;
kp_emit *kp_emit_new(FILE *f, kp_outfmt fmt); /* fmt must be JSON or YAML; NULL = out of memory */
/* KP_OK, or the first failure (KP_ENOMEM; also for e == NULL). */
kp_status kp_emit_status(const kp_emit *e);
/* Writes the document to the FILE* (JSON: plus a final newline) unless it failed, then releases e;
 * NULL is a no-op. kp_emit_discard releases e without writing anything. */
void kp_emit_free(kp_emit *e);
void kp_emit_discard(kp_emit *e);
void kp_emit_obj_begin(kp_emit *e);
void kp_emit_obj_end(kp_emit *e);
void kp_emit_arr_begin(kp_emit *e);
void kp_emit_arr_end(kp_emit *e);
void kp_emit_key(kp_emit *e, const char *key);
void kp_emit_str(kp_emit *e, const char *s);
void kp_emit_strn(kp_emit *e, const char *s, size_t len);
void kp_emit_int(kp_emit *e, int64_t v);
void kp_emit_bool(kp_emit *e, bool v);
void kp_emit_null(kp_emit *e);
/* key + value shorthands */
void kp_emit_kv_str(kp_emit *e, const char *key, const char *s);
void kp_emit_kv_int(kp_emit *e, const char *key, int64_t v);
void kp_emit_kv_bool(kp_emit *e, const char *key, bool v);
/* A pod reference, the one shape of every kprio document (the API's and kubectl's habit, e.g. an
 * event's involvedObject): {"namespace": NS, "name": NAME} (docs/api.md "Pod references").
 * kp_emit_kv_pod_ref writes it under key; name NULL writes null (no pod). */
void kp_emit_pod_ref(kp_emit *e, const char *ns, const char *name);
void kp_emit_kv_pod_ref(kp_emit *e, const char *key, const char *ns, const char *name);
/* Marks the writer failed with st (a caller's own allocation for it failed): sticky, as if the
 * writer's allocation had failed; nothing is written. NULL is a no-op. */
void kp_emit_fail(kp_emit *e, kp_status st);

/* One unit of s (a byte or a UTF-8 sequence) with every control character escaped as Go's %q
 * does (\n, \t, \r, \x1b, \x7f; C1 controls \u0080-\u009f; bytes that are not UTF-8 as \xNN),
 * so a message or a table cell is one line and input cannot drive the terminal. Printable text,
 * UTF-8 included, is kept. Writes at most 6 bytes to out (no NUL); returns their count, *used
 * the bytes of s. */
size_t kp_escape_unit(const unsigned char *p, char out[6], size_t *used);

/* Table: add cells row by row (each escaped as kp_escape_unit does: a name or message from the
 * input cannot forge lines or drive the terminal), then print with columns padded to the widest
 * cell plus 3 spaces (kubectl's tabwriter look). Header row first. */
typedef struct kp_table kp_table;
kp_table *kp_table_new(int n_cols); /* NULL = out of memory (every call accepts NULL) */
void kp_table_add(kp_table *t, const char *cell); /* appends to the current row; copies */
void kp_table_addf(kp_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* KP_OK, or the first failure (KP_ENOMEM; also for t == NULL). */
kp_status kp_table_status(const kp_table *t);
/* Marks the table failed with st (see kp_emit_fail). NULL is a no-op. */
void kp_table_fail(kp_table *t, kp_status st);
/* Prints the table and returns KP_OK; prints nothing and returns the status when it failed. */
kp_status kp_table_print(const kp_table *t, FILE *f);
void kp_table_free(kp_table *t); /* NULL no-op */
/* kubectl's --no-headers: the tables this thread prints from now on leave out their first row
 * (the header), which then does not widen the columns either. Default false. */
void kp_table_set_no_headers(bool on);
/* kubectl's --sort-by: the tables this thread prints from now on order their rows by the column
 * whose header is `column` (case-insensitive; borrowed; NULL: the renderer's order). Integers and
 * Go durations compare as numbers, before text; "<none>", "-" and "" come last; equal cells keep
 * the renderer's order. A table without that column keeps its order. */
void kp_table_set_sort_by(const char *column);
/* The number a cell sorts by (an integer, or a Go duration in ns); false for text. */
bool kp_table_sort_value(const char *cell, int64_t *out);
/* Whether --no-headers is on (lines around a table that only a reader wants are left out too). */
bool kp_table_no_headers(void);

#ifdef __cplusplus
}
#endif
#endif
