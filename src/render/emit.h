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
/* Marks the writer failed with st (a caller's own allocation for it failed): sticky, as if the
 * writer's allocation had failed; nothing is written. NULL is a no-op. */
void kp_emit_fail(kp_emit *e, kp_status st);

/* Table: add cells row by row, then print with columns padded to the widest cell plus 3 spaces
 * (kubectl's tabwriter look). Header row first. */
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
/* Whether --no-headers is on (lines around a table that only a reader wants are left out too). */
bool kp_table_no_headers(void);

#ifdef __cplusplus
}
#endif
#endif
