/* CEL for DRA device selectors: regular expressions for matches(), find() and findAll(), with
 * RE2's syntax and leftmost-first semantics (Go's regexp, which cel-go uses) for a subset:
 * literals, `.`, classes `[...]` with ranges and negation, `\d \D \s \S \w \W`, escapes of
 * punctuation and `\n \t \r \f \v \a \x..`, anchors `^ $ \A \z \b \B`, groups `(...)`, `(?:...)`,
 * `(?P<name>...)`, the flag `(?i)` (ASCII case folding), alternation and the repetitions
 * `* + ? {n} {n,} {n,m}` (greedy or lazy). Anything else is refused with a reason, never
 * guessed: Unicode classes `\pL`, POSIX classes `[[:alpha:]]`, other flags, `\Q...\E`, octal
 * escapes. Matching is a Pike VM: time linear in the text times the program, as RE2's. */
#include <string.h>

#include "core/cel_internal.h"

#define MAX_INST 100000
#define MAX_REPEAT 1000

typedef struct {
    uint32_t lo, hi;
} rrange;

typedef enum { R_EMPTY = 0, R_CLASS, R_BOL, R_EOL, R_WORDB, R_NWORDB, R_CAT, R_ALT, R_REP } rkind;

typedef struct rnode {
    uint8_t t;
    bool lazy;
    int min, max; /* R_REP: max -1 = unbounded */
    struct rnode *a, *b;
    const rrange *r; /* R_CLASS */
    uint32_t nr;
    bool neg;
} rnode;

typedef enum { I_CLASS = 0, I_SPLIT, I_JMP, I_BOL, I_EOL, I_WORDB, I_NWORDB, I_MATCH } ikind;

typedef struct {
    uint8_t op;
    bool neg;
    uint32_t x, y; /* SPLIT: x preferred; JMP: x */
    const rrange *r;
    uint32_t nr;
} inst;

struct cel_re {
    inst *prog;
    uint32_t n;
};

typedef struct {
    kp_arena *a;
    const char *s;
    size_t n, i;
    const char *why;
    bool oom, fold;
    int depth;
} rp;

static const rrange DIGIT[] = {{'0', '9'}};
static const rrange SPACE[] = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
static const rrange WORD[] = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
static const rrange NOT_NL[] = {{'\n', '\n'}};

static uint32_t decode(const char *s, size_t n, size_t *i) {
    unsigned char c = (unsigned char)s[*i];
    uint32_t cp;
    size_t w;
    if (c < 0x80) cp = c, w = 1;
    else if ((c >> 5) == 6) cp = c & 0x1F, w = 2;
    else if ((c >> 4) == 14) cp = c & 0x0F, w = 3;
    else if ((c >> 3) == 30) cp = c & 0x07, w = 4;
    else cp = 0xFFFD, w = 1;
    if (*i + w > n) w = 1, cp = 0xFFFD;
    for (size_t k = 1; k < w; k++) {
        unsigned char d = (unsigned char)s[*i + k];
        if ((d & 0xC0) != 0x80) {
            w = 1;
            cp = 0xFFFD;
            break;
        }
        cp = (cp << 6) | (d & 0x3F);
    }
    *i += w;
    return cp;
}

static rnode *node(rp *p, uint8_t t) {
    rnode *n = kp__arena_alloc(p->a, sizeof *n);
    if (!n) p->oom = true;
    else n->t = t;
    return n;
}

static rnode *fail(rp *p, const char *why) {
    if (!p->why) p->why = why;
    return NULL;
}

/* a class from ranges, with ASCII case folding when (?i) is on */
static rnode *class_node(rp *p, const rrange *r, uint32_t nr, bool neg) {
    rnode *n = node(p, R_CLASS);
    if (!n) return NULL;
    if (p->fold) {
        rrange *f = kp__arena_alloc(p->a, (size_t)nr * 3 * sizeof *f + sizeof *f);
        if (!f) {
            p->oom = true;
            return NULL;
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < nr; i++) {
            f[k++] = r[i];
            uint32_t lo = r[i].lo > 'a' ? r[i].lo : 'a', hi = r[i].hi < 'z' ? r[i].hi : 'z';
            if (lo <= hi) f[k++] = (rrange){lo - 32, hi - 32};
            lo = r[i].lo > 'A' ? r[i].lo : 'A', hi = r[i].hi < 'Z' ? r[i].hi : 'Z';
            if (lo <= hi) f[k++] = (rrange){lo + 32, hi + 32};
        }
        r = f;
        nr = k;
    }
    n->r = r;
    n->nr = nr;
    n->neg = neg;
    return n;
}

static int hexv(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* An escape after '\' at p->i: a code point (*cp), or a class (*cls, *ncls, *neg), or an
 * assertion (*assert). Returns false on error. */
static bool escape(rp *p, uint32_t *cp, const rrange **cls, uint32_t *ncls, bool *neg,
                   uint8_t *assert, bool in_class) {
    *cls = NULL;
    *assert = 0;
    if (p->i >= p->n) return fail(p, "trailing backslash at end of expression"), false;
    char c = p->s[p->i++];
    switch (c) {
    case 'd':
    case 'D': *cls = DIGIT, *ncls = 1, *neg = c == 'D'; return true;
    case 's':
    case 'S': *cls = SPACE, *ncls = 3, *neg = c == 'S'; return true;
    case 'w':
    case 'W': *cls = WORD, *ncls = 4, *neg = c == 'W'; return true;
    case 'n': *cp = '\n'; return true;
    case 't': *cp = '\t'; return true;
    case 'r': *cp = '\r'; return true;
    case 'f': *cp = '\f'; return true;
    case 'v': *cp = '\v'; return true;
    case 'a': *cp = '\a'; return true;
    case 'x': {
        uint32_t v = 0;
        if (p->i < p->n && p->s[p->i] == '{') {
            p->i++;
            size_t d = 0;
            while (p->i < p->n && hexv(p->s[p->i]) >= 0 && d < 8)
                v = v * 16 + (uint32_t)hexv(p->s[p->i++]), d++;
            if (!d || p->i >= p->n || p->s[p->i] != '}' || v > 0x10FFFF)
                return fail(p, "invalid escape sequence: \\x"), false;
            p->i++;
        } else {
            for (int k = 0; k < 2; k++) {
                if (p->i >= p->n || hexv(p->s[p->i]) < 0)
                    return fail(p, "invalid escape sequence: \\x"), false;
                v = v * 16 + (uint32_t)hexv(p->s[p->i++]);
            }
        }
        *cp = v;
        return true;
    }
    case 'b':
    case 'B':
    case 'A':
    case 'z':
        if (in_class) return fail(p, "invalid escape sequence inside a class"), false;
        *assert = c == 'b' ? R_WORDB : c == 'B' ? R_NWORDB : c == 'A' ? R_BOL : R_EOL;
        return true;
    case 'p':
    case 'P': return fail(p, "unsupported: Unicode classes (\\p, \\P)"), false;
    case 'Q': return fail(p, "unsupported: \\Q...\\E"), false;
    case 'C': return fail(p, "unsupported: \\C"), false;
    default: break;
    }
    if ((c >= '0' && c <= '9'))
        return fail(p, c == '0' ? "unsupported: octal escapes"
                                : "invalid escape sequence: backreferences are not supported"),
               false;
    if ((unsigned char)c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        *cp = (unsigned char)c;
        return true;
    }
    return fail(p, "invalid escape sequence"), false;
}

static rnode *parse_class(rp *p) {
    /* at p->i just after '[' */
    bool neg = false;
    if (p->i < p->n && p->s[p->i] == '^') neg = true, p->i++;
    rrange *r = NULL;
    uint32_t nr = 0, cap = 0;
    bool first = true;
    for (;;) {
        if (p->i >= p->n) return fail(p, "missing closing ]");
        char c = p->s[p->i];
        if (c == ']' && !first) {
            p->i++;
            break;
        }
        if (c == '[' && p->i + 1 < p->n && p->s[p->i + 1] == ':')
            return fail(p, "unsupported: POSIX classes ([[:name:]])");
        first = false;
        uint32_t lo, hi;
        const rrange *cls = NULL;
        uint32_t ncls = 0;
        bool cneg = false;
        uint8_t as;
        if (c == '\\') {
            p->i++;
            if (!escape(p, &lo, &cls, &ncls, &cneg, &as, true)) return NULL;
            if (cls && cneg) return fail(p, "unsupported: negated class escapes inside a class");
        } else {
            lo = decode(p->s, p->n, &p->i);
        }
        if (cls) {
            for (uint32_t k = 0; k < ncls; k++) {
                if (nr == cap) {
                    size_t ncap = cap ? cap * 2 : 8;
                    rrange *nrr = kp__arena_alloc(p->a, ncap * sizeof *nrr);
                    if (!nrr) return p->oom = true, NULL;
                    if (nr) memcpy(nrr, r, nr * sizeof *r);
                    r = nrr;
                    cap = (uint32_t)ncap;
                }
                r[nr++] = cls[k];
            }
            continue;
        }
        hi = lo;
        if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
            p->i++;
            if (p->s[p->i] == '\\') {
                p->i++;
                if (!escape(p, &hi, &cls, &ncls, &cneg, &as, true) || cls)
                    return fail(p, "invalid character class range");
            } else {
                hi = decode(p->s, p->n, &p->i);
            }
            if (hi < lo) return fail(p, "invalid character class range");
        }
        if (nr == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            rrange *nrr = kp__arena_alloc(p->a, ncap * sizeof *nrr);
            if (!nrr) return p->oom = true, NULL;
            if (nr) memcpy(nrr, r, nr * sizeof *r);
            r = nrr;
            cap = (uint32_t)ncap;
        }
        r[nr++] = (rrange){lo, hi};
    }
    return class_node(p, r, nr, neg);
}

static rnode *parse_alt(rp *p);

static rnode *parse_atom(rp *p) {
    char c = p->s[p->i];
    rnode *n;
    switch (c) {
    case '(': {
        p->i++;
        bool saved = p->fold;
        if (p->i < p->n && p->s[p->i] == '?') {
            p->i++;
            if (p->i < p->n && (p->s[p->i] == 'P' || p->s[p->i] == '<')) {
                if (p->s[p->i] == 'P') p->i++;
                if (p->i >= p->n || p->s[p->i] != '<') return fail(p, "invalid named capture");
                if (p->i + 1 < p->n && (p->s[p->i + 1] == '=' || p->s[p->i + 1] == '!'))
                    return fail(p, "invalid or unsupported Perl syntax: lookbehind");
                while (p->i < p->n && p->s[p->i] != '>') p->i++;
                if (p->i >= p->n) return fail(p, "invalid named capture");
                p->i++;
            } else {
                /* flags: only i */
                bool on = true, any = false;
                for (;;) {
                    if (p->i >= p->n) return fail(p, "missing closing )");
                    char f = p->s[p->i++];
                    if (f == 'i') p->fold = on, any = true;
                    else if (f == '-' && on) on = false;
                    else if (f == ')') {
                        if (!any) return fail(p, "missing argument to flags");
                        saved = p->fold; /* (?i) applies to the rest of the group */
                        return node(p, R_EMPTY);
                    } else if (f == ':') break;
                    else if (f == '=' || f == '!')
                        return fail(p, "invalid or unsupported Perl syntax: lookahead");
                    else if (f == 'm' || f == 's' || f == 'U')
                        return fail(p, "unsupported: flags other than i");
                    else return fail(p, "invalid or unsupported Perl syntax");
                }
            }
        }
        if (++p->depth > 1000) return fail(p, "expression nests too deeply");
        n = parse_alt(p);
        p->depth--;
        p->fold = saved;
        if (!n) return NULL;
        if (p->i >= p->n || p->s[p->i] != ')') return fail(p, "missing closing )");
        p->i++;
        return n;
    }
    case '[': p->i++; return parse_class(p);
    case '.': p->i++; return class_node(p, NOT_NL, 1, true);
    case '^': p->i++; return node(p, R_BOL);
    case '$': p->i++; return node(p, R_EOL);
    case '\\': {
        p->i++;
        uint32_t cp = 0, ncls = 0;
        const rrange *cls;
        bool neg = false;
        uint8_t as;
        if (!escape(p, &cp, &cls, &ncls, &neg, &as, false)) return NULL;
        if (as) return node(p, as);
        if (cls) return class_node(p, cls, ncls, neg);
        rrange *r = kp__arena_alloc(p->a, sizeof *r);
        if (!r) return p->oom = true, NULL;
        *r = (rrange){cp, cp};
        return class_node(p, r, 1, false);
    }
    case '*':
    case '+':
    case '?': return fail(p, "missing argument to repetition operator");
    case ')': return fail(p, "unexpected )");
    default: {
        uint32_t cp = decode(p->s, p->n, &p->i);
        rrange *r = kp__arena_alloc(p->a, sizeof *r);
        if (!r) return p->oom = true, NULL;
        *r = (rrange){cp, cp};
        return class_node(p, r, 1, false);
    }
    }
}

static bool parse_count(rp *p, int *out) {
    int v = 0;
    size_t d = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        if (v <= MAX_REPEAT) v = v * 10 + (p->s[p->i] - '0');
        p->i++;
        d++;
    }
    *out = v;
    return d > 0;
}

static rnode *parse_rep(rp *p) {
    rnode *a = parse_atom(p);
    bool repeated = false;
    while (a && p->i < p->n) {
        char c = p->s[p->i];
        int min, max;
        size_t save = p->i;
        if (c == '*') min = 0, max = -1, p->i++;
        else if (c == '+') min = 1, max = -1, p->i++;
        else if (c == '?') min = 0, max = 1, p->i++;
        else if (c == '{') {
            p->i++;
            if (!parse_count(p, &min)) {
                p->i = save; /* a literal '{' */
                break;
            }
            max = min;
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                if (!parse_count(p, &max)) max = -1;
            }
            if (p->i >= p->n || p->s[p->i] != '}') {
                p->i = save;
                break;
            }
            p->i++;
            if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && max < min))
                return fail(p, "invalid repeat count");
        } else {
            break;
        }
        /* a** (not (?:a*)*) is an error in RE2 */
        if (repeated) return fail(p, "invalid nested repetition operator");
        repeated = true;
        rnode *r = node(p, R_REP);
        if (!r) return NULL;
        r->a = a;
        r->min = min;
        r->max = max;
        if (p->i < p->n && p->s[p->i] == '?') r->lazy = true, p->i++;
        a = r;
    }
    return a;
}

/* Concatenations and alternations are right-deep lists (a, rest), so that gen walks them in a
 * loop, not a recursion as deep as the pattern is long. */
static rnode *parse_cat(rp *p) {
    rnode *acc = NULL, **tail = &acc;
    while (p->i < p->n && p->s[p->i] != '|' && p->s[p->i] != ')') {
        rnode *r = parse_rep(p);
        if (!r) return NULL;
        if (!acc) {
            acc = r;
            continue;
        }
        rnode *c = node(p, R_CAT);
        if (!c) return NULL;
        c->a = *tail;
        c->b = r;
        *tail = c;
        tail = &c->b;
    }
    return acc ? acc : node(p, R_EMPTY);
}

static rnode *parse_alt(rp *p) {
    rnode *a = parse_cat(p), **tail = &a;
    while (a && p->i < p->n && p->s[p->i] == '|') {
        p->i++;
        rnode *b = parse_cat(p);
        if (!b) return NULL;
        rnode *alt = node(p, R_ALT);
        if (!alt) return NULL;
        alt->a = *tail;
        alt->b = b;
        *tail = alt;
        tail = &alt->b;
    }
    return a;
}

/* ---- compile to instructions ---- */

typedef struct {
    inst *v;
    uint32_t n, cap;
    kp_arena *a;
    bool oom, big;
} emitter;

static uint32_t emit(emitter *e, uint8_t op) {
    if (e->n >= MAX_INST) {
        e->big = true;
        return 0;
    }
    if (e->n == e->cap) {
        uint32_t ncap = e->cap ? e->cap * 2 : 64;
        inst *nv = kp__arena_alloc(e->a, (size_t)ncap * sizeof *nv);
        if (!nv) {
            e->oom = true;
            return 0;
        }
        if (e->n) memcpy(nv, e->v, e->n * sizeof *nv);
        e->v = nv;
        e->cap = ncap;
    }
    memset(&e->v[e->n], 0, sizeof e->v[e->n]);
    e->v[e->n].op = op;
    return e->n++;
}

static void gen(emitter *e, const rnode *r) {
    if (e->oom || e->big) return;
    uint32_t at;
    switch ((rkind)r->t) {
    case R_EMPTY: return;
    case R_CLASS:
        at = emit(e, I_CLASS);
        if (e->oom || e->big) return;
        e->v[at].r = r->r;
        e->v[at].nr = r->nr;
        e->v[at].neg = r->neg;
        return;
    case R_BOL: emit(e, I_BOL); return;
    case R_EOL: emit(e, I_EOL); return;
    case R_WORDB: emit(e, I_WORDB); return;
    case R_NWORDB: emit(e, I_NWORDB); return;
    case R_CAT:
        for (; r->t == R_CAT; r = r->b) gen(e, r->a);
        gen(e, r);
        return;
    case R_ALT: {
        /* split L1, L2; L1: a; jmp END; L2: split ...; the jumps to END are chained through
         * their x until END is known */
        uint32_t pending = UINT32_MAX;
        for (; r->t == R_ALT; r = r->b) {
            uint32_t sp = emit(e, I_SPLIT);
            gen(e, r->a);
            uint32_t j = emit(e, I_JMP);
            if (e->oom || e->big) return;
            e->v[j].x = pending;
            pending = j;
            e->v[sp].x = sp + 1;
            e->v[sp].y = e->n;
        }
        gen(e, r);
        if (e->oom || e->big) return;
        while (pending != UINT32_MAX) {
            uint32_t nx = e->v[pending].x;
            e->v[pending].x = e->n;
            pending = nx;
        }
        return;
    }
    case R_REP: {
        for (int k = 0; k < r->min; k++) gen(e, r->a);
        if (r->max < 0) {
            /* L: split body, out; body; jmp L */
            uint32_t sp = emit(e, I_SPLIT);
            gen(e, r->a);
            uint32_t j = emit(e, I_JMP);
            if (e->oom || e->big) return;
            e->v[j].x = sp;
            e->v[sp].x = r->lazy ? e->n : sp + 1;
            e->v[sp].y = r->lazy ? sp + 1 : e->n;
            return;
        }
        for (int k = r->min; k < r->max; k++) {
            uint32_t sp = emit(e, I_SPLIT);
            gen(e, r->a);
            if (e->oom || e->big) return;
            e->v[sp].x = r->lazy ? e->n : sp + 1;
            e->v[sp].y = r->lazy ? sp + 1 : e->n;
        }
        return;
    }
    }
}

cel_re *kp__cel_re_compile(kp_arena *a, const char *pat, size_t n, const char **why, bool *oom) {
    rp p = {.a = a, .s = pat, .n = n};
    *oom = false;
    rnode *root = parse_alt(&p);
    if (root && p.i < n) root = fail(&p, "unexpected )");
    if (!root) {
        *oom = p.oom;
        *why = p.why ? p.why : "out of memory";
        return NULL;
    }
    emitter e = {.a = a};
    gen(&e, root);
    emit(&e, I_MATCH);
    cel_re *re = e.oom || e.big ? NULL : kp__arena_alloc(a, sizeof *re);
    if (!re) {
        *oom = !e.big;
        *why = e.big ? "expression too large" : "out of memory";
        return NULL;
    }
    re->prog = e.v;
    re->n = e.n;
    return re;
}

/* ---- the Pike VM ---- */

typedef struct {
    uint32_t *pc;
    size_t *start;
    uint32_t n;
} tlist;

static bool is_word(const char *s, size_t n, size_t i) {
    if (i >= n) return false;
    char c = s[i];
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Adds pc and its epsilon closure (in priority order) to l at text position i. */
static void add(const cel_re *re, tlist *l, uint32_t *mark, uint32_t gen, uint32_t *stack,
                uint32_t pc0, size_t start, const char *s, size_t n, size_t i) {
    uint32_t sp = 0;
    stack[sp++] = pc0;
    while (sp) {
        uint32_t pc = stack[--sp];
        if (mark[pc] == gen) continue;
        mark[pc] = gen;
        const inst *in = &re->prog[pc];
        switch ((ikind)in->op) {
        case I_JMP: stack[sp++] = in->x; break;
        case I_SPLIT:
            stack[sp++] = in->y; /* pushed first: explored after x */
            stack[sp++] = in->x;
            break;
        case I_BOL:
            if (i == 0) stack[sp++] = pc + 1;
            break;
        case I_EOL:
            if (i == n) stack[sp++] = pc + 1;
            break;
        case I_WORDB:
        case I_NWORDB: {
            bool b = (i > 0 && is_word(s, n, i - 1)) != is_word(s, n, i);
            if (b == (in->op == I_WORDB)) stack[sp++] = pc + 1;
            break;
        }
        case I_CLASS:
        case I_MATCH:
            l->pc[l->n] = pc;
            l->start[l->n] = start;
            l->n++;
            break;
        }
    }
}

static bool class_has(const inst *in, uint32_t cp) {
    bool in_set = false;
    for (uint32_t k = 0; k < in->nr && !in_set; k++)
        in_set = cp >= in->r[k].lo && cp <= in->r[k].hi;
    return in_set != in->neg;
}

size_t kp__cel_re_work(const cel_re *re) {
    size_t m = re->n;
    return m * 2 * sizeof(size_t) + (m * 2 + m + m * 2 + 2) * sizeof(uint32_t);
}

bool kp__cel_re_search(const cel_re *re, void *work, const char *s, size_t n, size_t from,
                       size_t *start, size_t *end) {
    uint32_t m = re->n;
    /* two thread lists, the marks, and the closure's stack (a closure pushes at most two
     * entries per instruction it marks) */
    size_t *starts = work;
    uint32_t *pcs = (uint32_t *)(starts + (size_t)m * 2);
    uint32_t *mark = pcs + (size_t)m * 2;
    uint32_t *stack = mark + m;
    memset(mark, 0, (size_t)m * sizeof *mark);
    tlist cur = {pcs, starts, 0}, nxt = {pcs + m, starts + m, 0};
    /* gen_cur: the mark generation cur was built with, so that a new start thread is not added
     * twice */
    uint32_t gen = 1, gen_cur = 1;
    bool matched = false;
    for (size_t i = from;;) {
        if (!matched) add(re, &cur, mark, gen_cur, stack, 0, i, s, n, i);
        else if (cur.n == 0) break; /* nothing left can do better than the match */
        size_t ni = i;
        uint32_t cp = 0;
        if (i < n) cp = decode(s, n, &ni);
        uint32_t gen_next = ++gen;
        nxt.n = 0;
        for (uint32_t t = 0; t < cur.n; t++) {
            const inst *in = &re->prog[cur.pc[t]];
            if (in->op == I_MATCH) {
                matched = true;
                *start = cur.start[t];
                *end = i;
                break; /* lower-priority threads are cut */
            }
            if (i < n && class_has(in, cp))
                add(re, &nxt, mark, gen_next, stack, cur.pc[t] + 1, cur.start[t], s, n, ni);
        }
        tlist tmp = cur;
        cur = nxt;
        nxt = tmp;
        gen_cur = gen_next;
        if (i >= n) break;
        i = ni;
    }
    return matched;
}
