/* CEL for DRA device selectors: the lexer (mirrors cel-go's CEL.g4 lexer rules: identifiers,
 * reserved words, int/uint/double literals, string and bytes literals with their prefixes, quotes
 * and escapes, comments) and compile errors "at LINE:COL: reason". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cel_lex.h"

static const char *const RESERVED[] = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

/* ---- errors ---- */

kp_status kp__cel_cerr(cel_cc *cc, uint32_t pos, const char *fmt, ...) {
    if (cc->oom) return kp_error_set(cc->err, KP_ENOMEM, "out of memory");
    long line = 1, col = 1;
    for (size_t i = 0; i < pos && i < cc->len; i++) {
        unsigned char ch = (unsigned char)cc->src[i];
        if (ch == '\n') {
            line++;
            col = 1;
        } else if ((ch & 0xC0) != 0x80) {
            col++;
        }
    }
    char msg[KP_ERR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kp_error_set(cc->err, KP_EINVAL, "at %ld:%ld: %s", line, col, msg);
    if (cc->err) {
        cc->err->line = line;
        cc->err->column = col;
    }
    return KP_EINVAL;
}

static const char *tok_text(const ps *p, char *buf, size_t cap) {
    if (p->cur.t == T_EOF) return "<EOF>";
    size_t n = p->cur.end - p->cur.pos;
    if (n >= cap) n = cap - 1;
    memcpy(buf, p->s + p->cur.pos, n);
    buf[n] = '\0';
    return buf;
}

kp_status kp__cel_lex_syntax(ps *p, const char *expecting) {
    char buf[64];
    return kp__cel_cerr(p->cc, p->cur.pos, "Syntax error: mismatched input '%s' expecting %s",
                        tok_text(p, buf, sizeof buf), expecting);
}

/* ---- lexer ---- */

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident0(int c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape sequence at s[*i] (after the backslash); appends to o. */
static kp_status lex_escape(ps *p, size_t *i, bool bytes, char *o, size_t *on) {
    const char *s = p->s;
    size_t at = *i - 1;
    if (*i >= p->n) return kp__cel_cerr(p->cc, (uint32_t)at, "Syntax error: invalid escape");
    char c = s[(*i)++];
    switch (c) {
    case 'a': o[(*on)++] = '\a'; return KP_OK;
    case 'b': o[(*on)++] = '\b'; return KP_OK;
    case 'f': o[(*on)++] = '\f'; return KP_OK;
    case 'n': o[(*on)++] = '\n'; return KP_OK;
    case 'r': o[(*on)++] = '\r'; return KP_OK;
    case 't': o[(*on)++] = '\t'; return KP_OK;
    case 'v': o[(*on)++] = '\v'; return KP_OK;
    case '\\':
    case '\'':
    case '"':
    case '`':
    case '?': o[(*on)++] = c; return KP_OK;
    default: break;
    }
    uint32_t cp = 0;
    int digits = 0, base = 16;
    if (c == 'x' || c == 'X') digits = 2;
    else if (c == 'u' && !bytes) digits = 4;
    else if (c == 'U' && !bytes) digits = 8;
    else if (c >= '0' && c <= '3') {
        digits = 2;
        base = 8;
        cp = (uint32_t)(c - '0');
    } else {
        return kp__cel_cerr(p->cc, (uint32_t)at, "Syntax error: invalid escape sequence '\\%c'", c);
    }
    for (int k = 0; k < digits; k++) {
        int d = *i < p->n ? hexval((unsigned char)s[*i]) : -1;
        if (d < 0 || d >= base)
            return kp__cel_cerr(p->cc, (uint32_t)at, "Syntax error: invalid escape");
        cp = cp * (uint32_t)base + (uint32_t)d;
        (*i)++;
    }
    if (bytes || (base == 8 && bytes)) {
        o[(*on)++] = (char)(cp & 0xFF);
        return KP_OK;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return kp__cel_cerr(p->cc, (uint32_t)at, "Syntax error: invalid unicode code point");
    *on += put_utf8(o + *on, cp);
    return KP_OK;
}

static kp_status lex_string(ps *p, size_t start, size_t i, bool raw, bool bytes) {
    const char *s = p->s;
    char q = s[i];
    bool triple = i + 2 < p->n && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    /* decoded text is never longer than the source */
    char *o = kp__arena_alloc(p->cc->arena, p->n - i + 1);
    if (!o) {
        p->cc->oom = true;
        return kp__cel_cerr(p->cc, (uint32_t)start, "out of memory");
    }
    size_t on = 0;
    for (;;) {
        if (i >= p->n)
            return kp__cel_cerr(p->cc, (uint32_t)start,
                                "Syntax error: token recognition error at: '%.*s'",
                                (int)(p->n - start > 20 ? 20 : p->n - start), s + start);
        char c = s[i];
        if (c == q && (!triple || (i + 2 < p->n && s[i + 1] == q && s[i + 2] == q))) {
            i += triple ? 3 : 1;
            break;
        }
        if (!triple && (c == '\n' || c == '\r'))
            return kp__cel_cerr(p->cc, (uint32_t)start,
                                "Syntax error: token recognition error at: '%.*s'",
                                (int)(i - start), s + start);
        if (c == '\\' && !raw) {
            i++;
            kp_status st = lex_escape(p, &i, bytes, o, &on);
            if (st != KP_OK) return st;
            continue;
        }
        o[on++] = c;
        i++;
    }
    o[on] = '\0';
    p->cur.t = bytes ? T_BYTES : T_STRING;
    p->cur.v.k = bytes ? CV_BYTES : CV_STRING;
    p->cur.v.u.s = o;
    p->cur.v.n = (uint32_t)on;
    p->cur.end = (uint32_t)i;
    p->i = i;
    return KP_OK;
}

static kp_status lex_number(ps *p, size_t start) {
    const char *s = p->s;
    size_t i = start;
    bool is_double = false;
    if (s[i] == '0' && i + 1 < p->n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        size_t d0 = i;
        uint64_t v = 0;
        bool over = false;
        while (i < p->n && hexval((unsigned char)s[i]) >= 0) {
            if (v >> 60) over = true;
            v = v * 16 + (uint64_t)hexval((unsigned char)s[i]);
            i++;
        }
        if (i == d0)
            return kp__cel_cerr(p->cc, (uint32_t)start, "Syntax error: invalid hex literal");
        if (i < p->n && (s[i] == 'u' || s[i] == 'U')) {
            if (over) return kp__cel_cerr(p->cc, (uint32_t)start, "invalid uint literal");
            p->cur.t = T_UINT;
            p->cur.v.k = CV_UINT;
            p->cur.v.u.u = v;
            i++;
        } else {
            if (over || v > (uint64_t)INT64_MAX + 1)
                return kp__cel_cerr(p->cc, (uint32_t)start, "invalid int literal");
            p->cur.t = T_INT;
            p->cur.v.k = CV_INT;
            p->cur.neg_ok = v == (uint64_t)INT64_MAX + 1;
            p->cur.v.u.u = v;
        }
        p->cur.end = (uint32_t)i;
        p->i = i;
        return KP_OK;
    }
    while (i < p->n && is_digit((unsigned char)s[i])) i++;
    if (i + 1 < p->n && s[i] == '.' && is_digit((unsigned char)s[i + 1])) {
        is_double = true;
        i++;
        while (i < p->n && is_digit((unsigned char)s[i])) i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < p->n && (s[j] == '+' || s[j] == '-')) j++;
        if (j < p->n && is_digit((unsigned char)s[j])) {
            is_double = true;
            i = j;
            while (i < p->n && is_digit((unsigned char)s[i])) i++;
        }
    }
    char buf[400];
    size_t len = i - start;
    if (len >= sizeof buf) return kp__cel_cerr(p->cc, (uint32_t)start, "invalid numeric literal");
    memcpy(buf, s + start, len);
    buf[len] = '\0';
    if (is_double) {
        char *endp;
        p->cur.t = T_DOUBLE;
        p->cur.v.k = CV_DOUBLE;
        p->cur.v.u.d = strtod(buf, &endp);
    } else {
        uint64_t v = 0;
        bool over = false;
        for (size_t k = 0; k < len; k++) {
            uint64_t d = (uint64_t)(buf[k] - '0');
            if (v > (UINT64_MAX - d) / 10) over = true;
            v = v * 10 + d;
        }
        if (i < p->n && (s[i] == 'u' || s[i] == 'U')) {
            if (over) return kp__cel_cerr(p->cc, (uint32_t)start, "invalid uint literal");
            p->cur.t = T_UINT;
            p->cur.v.k = CV_UINT;
            p->cur.v.u.u = v;
            i++;
        } else {
            if (over || v > (uint64_t)INT64_MAX + 1)
                return kp__cel_cerr(p->cc, (uint32_t)start, "invalid int literal");
            p->cur.t = T_INT;
            p->cur.v.k = CV_INT;
            p->cur.neg_ok = v == (uint64_t)INT64_MAX + 1;
            p->cur.v.u.u = v;
        }
    }
    p->cur.end = (uint32_t)i;
    p->i = i;
    return KP_OK;
}

kp_status kp__cel_lex_next(ps *p) {
    const char *s = p->s;
    size_t i = p->i;
    for (;;) {
        while (i < p->n &&
               (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f'))
            i++;
        if (i + 1 < p->n && s[i] == '/' && s[i + 1] == '/') {
            while (i < p->n && s[i] != '\n') i++;
            continue;
        }
        break;
    }
    memset(&p->cur, 0, sizeof p->cur);
    p->cur.pos = (uint32_t)i;
    p->i = i;
    if (i >= p->n) {
        p->cur.t = T_EOF;
        p->cur.end = (uint32_t)i;
        return KP_OK;
    }
    unsigned char c = (unsigned char)s[i];
    if (is_ident0(c)) {
        /* string prefixes: r, b, rb, br (any case) */
        size_t j = i;
        bool raw = false, bytes = false;
        while (j < p->n && j < i + 2) {
            char d = s[j];
            if ((d == 'r' || d == 'R') && !raw) raw = true;
            else if ((d == 'b' || d == 'B') && !bytes) bytes = true;
            else break;
            j++;
        }
        if (j > i && j < p->n && (s[j] == '"' || s[j] == '\''))
            return lex_string(p, i, j, raw, bytes);
        j = i;
        while (j < p->n && (is_ident0((unsigned char)s[j]) || is_digit((unsigned char)s[j]))) j++;
        size_t len = j - i;
        p->cur.end = (uint32_t)j;
        p->i = j;
        if (len == 4 && !memcmp(s + i, "true", 4)) p->cur.t = T_TRUE;
        else if (len == 5 && !memcmp(s + i, "false", 5)) p->cur.t = T_FALSE;
        else if (len == 4 && !memcmp(s + i, "null", 4)) p->cur.t = T_NULL;
        else if (len == 2 && !memcmp(s + i, "in", 2)) p->cur.t = T_IN;
        else {
            for (size_t k = 0; k < sizeof RESERVED / sizeof RESERVED[0]; k++)
                if (strlen(RESERVED[k]) == len && !memcmp(RESERVED[k], s + i, len))
                    return kp__cel_cerr(p->cc, (uint32_t)i, "reserved identifier: %s", RESERVED[k]);
            p->cur.t = T_IDENT;
        }
        return KP_OK;
    }
    if (is_digit(c) || (c == '.' && i + 1 < p->n && is_digit((unsigned char)s[i + 1])))
        return lex_number(p, i);
    if (c == '"' || c == '\'') return lex_string(p, i, i, false, false);
    char d = i + 1 < p->n ? s[i + 1] : '\0';
    size_t w = 1;
    switch (c) {
    case '(': p->cur.t = T_LP; break;
    case ')': p->cur.t = T_RP; break;
    case '[': p->cur.t = T_LB; break;
    case ']': p->cur.t = T_RB; break;
    case '{': p->cur.t = T_LC; break;
    case '}': p->cur.t = T_RC; break;
    case '.': p->cur.t = T_DOT; break;
    case ',': p->cur.t = T_COMMA; break;
    case ':': p->cur.t = T_COLON; break;
    case '?': p->cur.t = T_QM; break;
    case '-': p->cur.t = T_MINUS; break;
    case '+': p->cur.t = T_PLUS; break;
    case '*': p->cur.t = T_STAR; break;
    case '/': p->cur.t = T_SLASH; break;
    case '%': p->cur.t = T_PCT; break;
    case '!':
        if (d == '=') p->cur.t = T_NE, w = 2;
        else p->cur.t = T_NOT;
        break;
    case '<':
        if (d == '=') p->cur.t = T_LE, w = 2;
        else p->cur.t = T_LT;
        break;
    case '>':
        if (d == '=') p->cur.t = T_GE, w = 2;
        else p->cur.t = T_GT;
        break;
    case '=':
        if (d != '=') goto bad;
        p->cur.t = T_EQ, w = 2;
        break;
    case '&':
        if (d != '&') goto bad;
        p->cur.t = T_AND, w = 2;
        break;
    case '|':
        if (d != '|') goto bad;
        p->cur.t = T_OR, w = 2;
        break;
    default: goto bad;
    }
    p->i = i + w;
    p->cur.end = (uint32_t)(i + w);
    return KP_OK;
bad:
    return kp__cel_cerr(p->cc, (uint32_t)i, "Syntax error: token recognition error at: '%c'",
                        c >= 0x20 && c < 0x7f ? c : '?');
}
