/* Value trees (io/tree.h) written back out as text (internal): the scenario decoder keeps each
 * inline object of a create action as a document kp_cluster_load_buffer reads. */
#ifndef KP_IO_TREE_TEXT_H
#define KP_IO_TREE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "io/tree.h"

/* A growing text buffer (NUL-terminated); oom is set, and later appends dropped, when it could
 * not grow. */
typedef struct {
    char *p;
    size_t n, cap;
    bool oom;
} kp_tbuf;

void kp__tbuf_put(kp_tbuf *b, const char *s, size_t n);
/* Appends s[0..n) as a double-quoted string, valid JSON and YAML (kp__tree_text's strings). */
void kp__tbuf_quoted(kp_tbuf *b, const char *s, size_t n);
/* Appends n as JSON text, which YAML reads too: objects and arrays in flow style, strings
 * double-quoted (quote, backslash, control characters, the characters YAML does not allow
 * unescaped and those it reads as line breaks escaped), numbers as written. A YAML plain scalar
 * (a number, a boolean as written: 1.0, yes) is copied as written, so that, read as YAML, it
 * is typed again the same way (the output is then YAML, not JSON). */
void kp__tree_text(kp_tbuf *b, const kp_tnode *n);

#endif
