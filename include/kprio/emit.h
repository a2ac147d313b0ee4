/* Streaming JSON/YAML writer and kubectl-style table writer (src/render/emit.c), used by the CLI.
 *
 * The same calls produce JSON (2-space indent, keys in call order) or YAML (block style, strings
 * quoted only when needed). Keys appear in the order they are emitted, so output is
 * deterministic. Writers buffer nothing beyond the FILE*. */
#ifndef KP_EMIT_H
#define KP_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { KP_OUT_TABLE = 0, KP_OUT_JSON, KP_OUT_YAML } kp_outfmt;

/* Parses "table"/"wide"/"json"/"yaml"; returns false on anything else. */
bool kp_outfmt_parse(const char *s, kp_outfmt *out);

typedef struct kp_emit kp_emit;
kp_emit *kp_emit_new(FILE *f, kp_outfmt fmt); /* fmt must be JSON or YAML */
void kp_emit_free(kp_emit *e);                /* finishes the document (newline) */
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

/* Table: add cells row by row, then print with columns padded to the widest cell plus 3 spaces
 * (kubectl's tabwriter look). Header row first. */
typedef struct kp_table kp_table;
kp_table *kp_table_new(int n_cols);
void kp_table_add(kp_table *t, const char *cell); /* appends to the current row; copies */
void kp_table_addf(kp_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void kp_table_print(const kp_table *t, FILE *f);
void kp_table_free(kp_table *t);

#endif
