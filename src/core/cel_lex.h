/* CEL for DRA device selectors: the lexer's tokens (cel_lex.c), read by the parser
 * (cel_parse.c). */
#ifndef KP_CORE_CEL_LEX_H
#define KP_CORE_CEL_LEX_H

#include "core/cel_internal.h"

typedef enum {
    T_EOF = 0,
    T_INT,
    T_UINT,
    T_DOUBLE,
    T_STRING,
    T_BYTES,
    T_IDENT,
    T_TRUE,
    T_FALSE,
    T_NULL,
    T_IN,
    T_LP,
    T_RP,
    T_LB,
    T_RB,
    T_LC,
    T_RC,
    T_DOT,
    T_COMMA,
    T_COLON,
    T_QM,
    T_NOT,
    T_MINUS,
    T_PLUS,
    T_STAR,
    T_SLASH,
    T_PCT,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_EQ,
    T_NE,
    T_AND,
    T_OR
} tkind;

typedef struct {
    uint8_t t;
    uint32_t pos, end;
    cel_val v; /* literals */
    bool neg_ok; /* T_INT of exactly 2^63 (only valid after a '-') */
} tok;

/* the lexer's state, shared with the parser */
typedef struct {
    cel_cc *cc;
    const char *s;
    size_t n, i;
    tok cur;
    int depth;
} ps;


/* Reads the next token into p->cur (KP_EINVAL with a compile error on a bad token). */
kp_status kp__cel_lex_next(ps *p);
/* "Syntax error: mismatched input 'TOK' expecting WHAT" at the current token. */
kp_status kp__cel_lex_syntax(ps *p, const char *expecting);

#endif
