/* CEL for DRA device selectors: what the lexer, parser, checker, evaluator and the function
 * library share (internal to src/core/cel_*.c). See core/cel.h for the contract and
 * docs/reference.md ("Device selectors (CEL)") for the language accepted.
 *
 * A program is an AST in one arena (the program's): nodes, literals, types. The checker annotates
 * every node with its static type and resolves identifiers (the `device` variable, comprehension
 * and cel.bind variables to slots). The evaluator walks the AST with values (cel_val) that point
 * into the program's arena, the cluster's interner or a per-evaluation scratch arena. */
#ifndef KP_CORE_CEL_INTERNAL_H
#define KP_CORE_CEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/cel.h"
#include "kprio/quantity.h"

/* resource.k8s.io/v1 CELSelectorExpressionMaxLength and CELSelectorExpressionMaxCost. */
#define KP__CEL_MAX_LEN (10 * 1024)
#define KP__CEL_MAX_COST 1000000u
/* The parser's nesting limit (cel-go's default maxRecursionDepth). */
#define KP__CEL_MAX_DEPTH 250

/* ---- types (static, from the checker) ---- */
typedef enum {
    TY_DYN = 0,
    TY_NULL,
    TY_BOOL,
    TY_INT,
    TY_UINT,
    TY_DOUBLE,
    TY_STRING,
    TY_BYTES,
    TY_LIST,
    TY_MAP,
    TY_QTY, /* kubernetes.Quantity */
    TY_SEMVER, /* kubernetes.Semver */
    TY_DEVICE, /* kubernetes.DRADevice */
    TY_KINDS
} cel_tkind;

typedef struct cel_type {
    uint8_t k; /* cel_tkind */
    const struct cel_type *p0, *p1; /* list: elem; map: key, value */
} cel_type;

extern const cel_type kp__cel_t[TY_KINDS]; /* the plain types (list/map: of dyn) */

/* ---- values ---- */
typedef enum {
    CV_NULL = 0,
    CV_BOOL,
    CV_INT,
    CV_UINT,
    CV_DOUBLE,
    CV_STRING,
    CV_BYTES,
    CV_LIST,
    CV_MAP,
    CV_QTY,
    CV_SEMVER,
    CV_DEVICE, /* the `device` variable */
    CV_DEVMAP, /* device.attributes / device.capacity (sub: 0 / 1) */
    CV_DEVDOM, /* device.attributes[domain] (sub 0) / device.capacity[domain] (sub 1) */
    CV_ERR /* an error value: s is its message (NUL-terminated) */
} cel_vkind;

typedef struct {
    uint64_t major, minor, patch;
    const char *pre; /* prerelease (without '-'), NULL when none */
    uint32_t pre_len;
} cel_semver;

struct cel_list;
struct cel_map;
typedef struct cel_val {
    uint8_t k; /* cel_vkind */
    uint8_t sub;
    uint32_t n; /* string/bytes/domain length */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        const char *s; /* string, bytes, domain, error message */
        const struct cel_list *l;
        const struct cel_map *m;
        kp_quantity q;
        const cel_semver *sv;
    } u;
} cel_val;

typedef struct cel_list {
    uint32_t n;
    const cel_val *v;
} cel_list;
typedef struct cel_map {
    uint32_t n;
    const cel_val *k, *v;
} cel_map;

/* ---- AST ---- */
typedef enum {
    N_LIT = 0,
    N_IDENT, /* unresolved name (the checker turns it into N_DEVICE or N_VAR) */
    N_DEVICE,
    N_VAR, /* comprehension or cel.bind variable: slot */
    N_SELECT, /* a.name */
    N_HAS, /* has(a.name): a is the N_SELECT */
    N_INDEX, /* a[b] */
    N_CALL, /* name(args), or args[0].name(args[1..]) when member */
    N_LIST,
    N_MAP, /* args: k0, v0, k1, v1, ... */
    N_NOT,
    N_NEG,
    N_BIN, /* op */
    N_AND,
    N_OR,
    N_COND, /* a ? b : c */
    N_COMP, /* op (cel_comp) over a, var `name` in slot, body b, filter c (map/3) */
    N_BIND /* cel.bind(name, a, b) */
} cel_nkind;

typedef enum {
    OP_EQ = 0,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_IN,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD
} cel_op;

typedef enum { CM_ALL = 0, CM_EXISTS, CM_EXISTS_ONE, CM_MAP, CM_FILTER } cel_comp;

typedef struct cel_node {
    uint8_t kind; /* cel_nkind */
    uint8_t op; /* cel_op, cel_comp */
    bool member; /* N_CALL: receiver style */
    uint16_t fn; /* N_CALL: the first row of the name's overloads in the function table */
    uint32_t pos; /* byte offset of the node in the expression (for messages) */
    uint32_t n_args;
    uint32_t slot; /* N_VAR, N_COMP, N_BIND */
    const char *name; /* N_IDENT, N_SELECT, N_CALL, N_COMP, N_BIND (NUL-terminated) */
    uint32_t name_len;
    cel_val lit; /* N_LIT */
    struct cel_node *a, *b, *c;
    struct cel_node **args;
    const cel_type *ty; /* static type (checker) */
    const struct cel_re *re; /* N_CALL of a regex function with a literal pattern: compiled */
} cel_node;

struct kp_cel_program {
    kp_arena arena;
    cel_node *root;
    uint32_t n_slots; /* variables live at once at most */
    const char *src;
    size_t len;
};

/* ---- compile-time errors ---- */
typedef struct {
    const char *src;
    size_t len;
    kp_arena *arena;
    kp_error *err;
    bool oom;
} cel_cc;

/* Sets a compile error "at LINE:COL: MSG" for byte offset pos; returns KP_EINVAL (KP_ENOMEM when
 * cc->oom). */
kp_status kp__cel_cerr(cel_cc *cc, uint32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- lexer + parser (cel_lex.c, cel_parse.c) ---- */
kp_status kp__cel_parse(cel_cc *cc, cel_node **out);

/* ---- checker (cel_check.c) ---- */
kp_status kp__cel_check(cel_cc *cc, cel_node *root, uint32_t *n_slots);
/* "int", "list(string)", "map(string, dyn)", "kubernetes.Quantity". */
size_t kp__cel_type_name(const cel_type *t, char *buf, size_t cap);

/* ---- the function library (cel_lib.c) ---- */
typedef enum {
    A_ANY = 100, /* any argument type */
    A_LIST_STR, /* list(string) */
    A_NUM, /* int, uint or double */
    R_ELEM, /* result: element type of the receiver list */
    R_LIST_STR, /* result: list(string) */
    R_ARG0 /* result: the first argument's type */
} cel_acode;

/* What a function row does (cel_lib.c dispatches on it). */
typedef enum {
    F_SIZE = 0,
    F_INT,
    F_UINT,
    F_DOUBLE,
    F_STRING,
    F_BOOL,
    F_BYTES,
    F_DYN,
    F_CONTAINS,
    F_STARTS,
    F_ENDS,
    F_MATCHES,
    F_CHARAT,
    F_INDEXOF,
    F_INDEXOF2,
    F_LASTINDEXOF,
    F_LASTINDEXOF2,
    F_LOWER,
    F_UPPER,
    F_REPLACE,
    F_REPLACEN,
    F_SPLIT,
    F_SPLITN,
    F_SUBSTR,
    F_SUBSTR2,
    F_TRIM,
    F_JOIN,
    F_JOINSEP,
    F_QUOTE,
    F_FIND,
    F_FINDALL,
    F_FINDALLN,
    F_L_ISSORTED,
    F_L_SUM,
    F_L_MIN,
    F_L_MAX,
    F_L_INDEXOF,
    F_L_LASTINDEXOF,
    F_SETS_CONTAINS,
    F_SETS_EQUIV,
    F_SETS_INTERSECTS,
    F_Q_PARSE,
    F_Q_IS,
    F_Q_SIGN,
    F_Q_ISINT,
    F_Q_ASINT,
    F_Q_ASFLOAT,
    F_Q_ADD,
    F_Q_ADDI,
    F_Q_SUB,
    F_Q_SUBI,
    F_Q_MUL,
    F_Q_LT,
    F_Q_GT,
    F_Q_CMP,
    F_SV_PARSE,
    F_SV_PARSEN,
    F_SV_IS,
    F_SV_ISN,
    F_SV_MAJOR,
    F_SV_MINOR,
    F_SV_PATCH,
    F_SV_LT,
    F_SV_GT,
    F_SV_CMP,
    F_INCLUDES
} cel_impl;

typedef struct {
    const char *name;
    bool member;
    uint8_t n_args; /* including the receiver */
    uint8_t at[4]; /* cel_tkind or cel_acode */
    uint8_t ret;
    uint16_t impl;
} cel_fn;

extern const cel_fn kp__cel_fns[];
extern const size_t kp__cel_n_fns;
/* Known upstream functions this evaluator does not implement (refused at compile time). */
bool kp__cel_fn_unsupported(const char *name);

/* ---- evaluation (cel_eval.c, cel_lib.c) ---- */
typedef struct {
    const kp_cel_device *dev;
    /* scratch memory: a small inline area first (most evaluations need no more, and so no
     * malloc), then the arena */
    uint64_t inl[128];
    size_t inl_used; /* in uint64_t */
    kp_arena scratch;
    uint64_t cost;
    cel_val *slots;
    const struct cel_re *re; /* during a call: its literal pattern, compiled */
    void *re_work; /* the regex matcher's work memory, reused across calls */
    size_t re_work_cap;
    bool oom;
} cel_ctx;

cel_val kp__cel_eval(cel_ctx *x, const cel_node *n);
/* v.name (test_only: has(v.name)), v[k], k in v (cel_value.c). */
cel_val kp__cel_select(cel_ctx *x, const cel_val *v, const char *name, size_t len, bool test_only);
cel_val kp__cel_index(cel_ctx *x, const cel_val *a, const cel_val *k);
cel_val kp__cel_contains(cel_ctx *x, const cel_val *e, const cel_val *c);
bool kp__cel_map_find(cel_ctx *x, const cel_map *m, const cel_val *k, const cel_val **out);
/* A short rendering of a map key for "no such key: K". */
void kp__cel_key_text(const cel_val *k, char *buf, size_t cap);
/* A list value of v[0..n) (v is kept). */
cel_val kp__cel_list_of(cel_ctx *x, cel_val *v, uint32_t n);
/* A device map (CV_DEVMAP, CV_DEVDOM) as a plain CV_MAP; other values unchanged. */
cel_val kp__cel_materialize(cel_ctx *x, const cel_val *v);
/* Calls function row f on args (already evaluated, none an error). */
cel_val kp__cel_call(cel_ctx *x, const cel_fn *f, const cel_val *args);
/* Whether value v has (dynamic) argument code at. */
bool kp__cel_val_is(const cel_val *v, uint8_t at);

cel_val kp__cel_err(cel_ctx *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline cel_val kp__cel_bool(bool b) {
    cel_val v = {.k = CV_BOOL};
    v.u.b = b;
    return v;
}
static inline cel_val kp__cel_int(int64_t i) {
    cel_val v = {.k = CV_INT};
    v.u.i = i;
    return v;
}
static inline cel_val kp__cel_str(const char *s, size_t n) {
    cel_val v = {.k = CV_STRING, .n = (uint32_t)n};
    v.u.s = s;
    return v;
}
void *kp__cel_alloc(cel_ctx *x, size_t n);
/* CEL equality (heterogeneous: values of different types are unequal, numbers compare across
 * int/uint/double); an error value when an operand is one. */
cel_val kp__cel_equals(cel_ctx *x, const cel_val *a, const cel_val *b);
/* <0, 0, >0 into *out, or false when the two cannot be ordered (no such overload). */
bool kp__cel_compare(const cel_val *a, const cel_val *b, int *out);
/* The runtime type name cel-go prints in "got 'types.Int', expected iterable type". */
const char *kp__cel_go_type(const cel_val *v);
/* Adds cost; an error value once past the limit (else k == CV_NULL). */
bool kp__cel_charge(cel_ctx *x, uint64_t c);

/* ---- semver (cel_lib.c) ---- */
bool kp__cel_semver_parse(const char *s, size_t n, bool normalize, cel_semver *out);
int kp__cel_semver_cmp(const cel_semver *a, const cel_semver *b);

/* ---- regular expressions (cel_regex.c): RE2 syntax, a subset ---- */
typedef struct cel_re cel_re;
/* Compiles pat into arena; NULL with a reason in why (static text) when it is malformed or uses
 * syntax outside the subset; *oom on allocation failure. */
cel_re *kp__cel_re_compile(kp_arena *a, const char *pat, size_t n, const char **why, bool *oom);
/* The bytes of work memory a search with re needs (8-byte aligned). */
size_t kp__cel_re_work(const cel_re *re);
/* Leftmost-first search of s from byte from: true and [*start, *end) when it matches. */
bool kp__cel_re_search(const cel_re *re, void *work, const char *s, size_t n, size_t from,
                       size_t *start, size_t *end);

#endif
