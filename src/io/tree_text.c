/* Value trees written back out as text (see tree_text.h). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "io/tree_text.h"

void kp__tbuf_put(kp_tbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (!kp__grow((void **)&b->p, &b->cap, b->n + n + 1, 1, 4096)) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* A double-quoted string, valid JSON and valid YAML: quote, backslash, control characters, the
 * characters YAML does not allow unescaped (DEL, C1 controls, U+FFFE, U+FFFF) and those it reads
 * as line breaks (NEL, U+2028, U+2029) are escaped; other UTF-8 is copied. */
static void put_quoted(kp_tbuf *b, const char *s, size_t n) {
    kp__tbuf_put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp = 0;
        size_t skip = 0;
        if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) {
            cp = c;
        } else if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
                   (unsigned char)s[i + 1] <= 0x9f) {
            cp = (unsigned char)s[i + 1]; /* C1 controls, NEL (a line break to YAML) too */
            skip = 1;
        } else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                   ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            cp = 0x2000u | ((unsigned char)s[i + 2] - 0x80u); /* U+2028, U+2029: line breaks */
            skip = 2;
        } else if (c == 0xef && i + 2 < n && (unsigned char)s[i + 1] == 0xbf &&
                   (unsigned char)s[i + 2] >= 0xbe) {
            cp = (unsigned char)s[i + 2] == 0xbe ? 0xfffe : 0xffff;
            skip = 2;
        } else {
            run++;
            continue;
        }
        kp__tbuf_put(b, s + i - run, run);
        run = 0;
        char e[8];
        if (c == '"' || c == '\\') snprintf(e, sizeof e, "\\%c", c);
        else if (c == '\n') snprintf(e, sizeof e, "\\n");
        else if (c == '\t') snprintf(e, sizeof e, "\\t");
        else if (c == '\r') snprintf(e, sizeof e, "\\r");
        else snprintf(e, sizeof e, "\\u%04x", cp);
        kp__tbuf_put(b, e, strlen(e));
        i += skip;
    }
    kp__tbuf_put(b, s + n - run, run);
    kp__tbuf_put(b, "\"", 1);
}

void kp__tbuf_quoted(kp_tbuf *b, const char *s, size_t n) { put_quoted(b, s, n); }

/* n written back out. YAML plain scalars (numbers, booleans as written) are copied as they are,
 * so they are typed again the same way; everything else is quoted. */
void kp__tree_text(kp_tbuf *b, const kp_tnode *n) {
    switch (n->type) {
    case KP_T_OBJ:
    case KP_T_ARR: {
        bool obj = n->type == KP_T_OBJ;
        kp__tbuf_put(b, obj ? "{" : "[", 1);
        for (const kp_tnode *c = n->first; c; c = c->next) {
            if (c != n->first) kp__tbuf_put(b, ", ", 2);
            if (obj) {
                put_quoted(b, c->key, c->key_len);
                kp__tbuf_put(b, ": ", 2);
            }
            kp__tree_text(b, c);
        }
        kp__tbuf_put(b, obj ? "}" : "]", 1);
        return;
    }
    case KP_T_STR: put_quoted(b, n->s, n->len); return;
    case KP_T_NULL: kp__tbuf_put(b, "null", 4); return;
    case KP_T_BOOL:
        if (n->plain && n->s) kp__tbuf_put(b, n->s, n->len);
        else kp__tbuf_put(b, n->b ? "true" : "false", n->b ? 4 : 5);
        return;
    case KP_T_NUM: kp__tbuf_put(b, n->s, n->len); return;
    case KP_T_LAZY:
        kp__tbuf_put(b, n->s, n->len);
        return; /* JSON text (not made without split_lists) */
    }
}
