/* A growing byte buffer (internal utility module, not published: like curl's dynbuf, usable by
 * every layer, the tool's included): appends, printf-appends, growth by doubling through
 * kp__grow.
 *
 * The text is kept NUL-terminated (p[len] == 0 once anything was appended, or when the buffer
 * starts in caller storage), so it can be handed on as a C string. A buffer may start in storage
 * the caller owns (a local array: a text that fits allocates nothing) and moves to the heap only
 * when that is too small. Failure is sticky: once an allocation failed every later append does
 * nothing and returns false, so a caller appends a whole text and checks `failed` once. */
#ifndef KP_BASE_BUF_H
#define KP_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *p; /* the text (NULL before the first append when there is no caller storage) */
    size_t len, cap;
    bool failed; /* an allocation failed (sticky) */
    char *local; /* caller storage p starts in (NULL: none); never freed here */
    size_t local_cap;
} kp__buf;

/* An empty buffer; a zero-initialised kp__buf is one too. */
void kp__buf_init(kp__buf *b);
/* An empty buffer that starts in local[0..cap) (cap >= 1), owned by the caller. */
void kp__buf_init_local(kp__buf *b, char *local, size_t cap);
/* Releases the heap copy (not caller storage); the buffer is then empty and usable again. */
void kp__buf_free(kp__buf *b);
/* Empties the buffer, keeping its memory and a sticky failure. */
void kp__buf_reset(kp__buf *b);

/* Room for n more bytes (and the NUL after them); false when it cannot grow. */
bool kp__buf_reserve(kp__buf *b, size_t n);
bool kp__buf_append(kp__buf *b, const void *s, size_t n);
bool kp__buf_puts(kp__buf *b, const char *s);
bool kp__buf_putc(kp__buf *b, char c);
bool kp__buf_printf(kp__buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bool kp__buf_vprintf(kp__buf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

/* The text ("" when empty, never NULL). */
const char *kp__buf_str(const kp__buf *b);

#endif
