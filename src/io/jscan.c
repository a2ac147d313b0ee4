/* Finding where a JSON object or array ends without parsing it (see jscan.h).
 *
 * The List splitter calls this once per item of a kubectl List, over every byte of the file, so
 * it runs 64 bytes at a time: per block, bit masks of quotes, backslashes and brackets (AVX2 or
 * SSE2 compares on x86-64, chosen at run time; a portable byte loop elsewhere), escaped characters
 * resolved from the backslash runs, string interiors from a prefix-XOR of the unescaped quotes, and
 * then only the brackets outside strings are counted. The technique is the one of simdjson's stage
 * 1 (Langdale & Lemire, "Parsing Gigabytes of JSON per Second"), reduced to what a cut needs. */
#include "io/jscan.h"

#include <stdint.h>
#include <string.h>

/* x86-64 picks its kernel at run time from what the CPU reports: AVX-512BW, AVX2, else SSE2
 * (every x86-64 CPU). Run-time choice, not -march=native, so one binary runs anywhere and under
 * valgrind (which reports no AVX-512 and gets the AVX2 kernel). Other targets use a portable
 * byte loop. '{' | 0x20 == '{' and '[' | 0x20 == '{' (likewise
 * '}' and ']'), so one compare per side finds both bracket kinds. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KP_JSCAN_X86 1
#include <immintrin.h>
#endif

typedef struct {
    uint64_t quote, bslash, open, close;
} block_masks;

/* The block step is instantiated in each kernel: it must be inlined there (a call per 64 bytes,
 * and the popcount builtin only becomes one instruction inside a POPCNT-enabled kernel). */
#if defined(__GNUC__) || defined(__clang__)
#define KP_INLINE static inline __attribute__((always_inline))
#else
#define KP_INLINE static inline
#endif

#ifdef KP_JSCAN_X86
__attribute__((target("avx512f,avx512bw"))) KP_INLINE block_masks classify_avx512(const char *p) {
    __m512i v = _mm512_loadu_si512((const void *)p);
    __m512i f = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    block_masks m;
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.open = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('{'));
    m.close = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('}'));
    return m;
}

__attribute__((target("avx2"))) KP_INLINE uint64_t eq32(__m256i v, char c) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)));
}

__attribute__((target("avx2"))) KP_INLINE block_masks classify_avx2(const char *p) {
    block_masks m = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
        __m256i f = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        int sh = 32 * i;
        m.quote |= eq32(v, '"') << sh;
        m.bslash |= eq32(v, '\\') << sh;
        m.open |= eq32(f, '{') << sh;
        m.close |= eq32(f, '}') << sh;
    }
    return m;
}

KP_INLINE uint64_t eq16(__m128i v, char c) {
    return (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

KP_INLINE block_masks classify_base(const char *p) {
    block_masks m = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
        int sh = 16 * i;
        m.quote |= eq16(v, '"') << sh;
        m.bslash |= eq16(v, '\\') << sh;
        m.open |= eq16(f, '{') << sh;
        m.close |= eq16(f, '}') << sh;
    }
    return m;
}
#else
KP_INLINE block_masks classify_base(const char *p) {
    block_masks m = {0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        switch (p[i]) {
        case '"': m.quote |= bit; break;
        case '\\': m.bslash |= bit; break;
        case '{':
        case '[': m.open |= bit; break;
        case '}':
        case ']': m.close |= bit; break;
        default: break;
        }
    }
    return m;
}
#endif

/* hw: the calling kernel is built with POPCNT (a constant, folded once inlined); without it
 * the builtin is a libgcc call (it showed at 3% of a load), so SWAR instead. */
KP_INLINE int popcount64(uint64_t x, bool hw) {
    if (hw) return __builtin_popcountll(x);
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int)((x * 0x0101010101010101u) >> 56);
}

KP_INLINE int ctz64(uint64_t x) {
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* Bit i set: bits 0..i of x have odd parity (inclusive prefix XOR). */
KP_INLINE uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* Characters escaped by a backslash. Backslash runs are rare in Kubernetes JSON (escaped quotes
 * inside annotation values), so walking the backslash bits one by one is cheap and plainly
 * right: an unescaped backslash escapes the next byte, possibly the first of the next block. */
KP_INLINE uint64_t escaped_chars(uint64_t bslash, uint64_t *carry) {
    uint64_t esc = *carry;
    *carry = 0;
    while (bslash) {
        int i = ctz64(bslash);
        bslash &= bslash - 1;
        if (esc >> i & 1) continue; /* this backslash is itself escaped */
        if (i == 63) *carry = 1;
        else esc |= (uint64_t)1 << (i + 1);
    }
    return esc;
}

/* The scan is the first touch of every byte of the file, so it runs at memory speed; prefetching
 * 2 KiB ahead (across page boundaries, where the hardware prefetcher stops) halved its time on
 * the 224 MB benchmark snapshot (85-110 ms -> 35-45 ms). */
#define KP_JSCAN_PREFETCH 2048

/* One block's step of the cut: returns the end of the value, NULL to keep going (*give_up set
 * when the scan must give up). */
KP_INLINE const char *scan_block(const char *blk, const char *end, block_masks m,
                                 uint64_t *esc_carry, uint64_t *in_str_carry, long *depth,
                                 bool *give_up, bool hw_popcnt) {
    size_t avail = (size_t)(end - blk);
    uint64_t valid = avail >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << avail) - 1);
    uint64_t esc = m.bslash ? escaped_chars(m.bslash & valid, esc_carry) : *esc_carry;
    if (!m.bslash) *esc_carry = 0;
    uint64_t quotes = m.quote & ~esc & valid;
    uint64_t in_str = prefix_xor(quotes) ^ *in_str_carry;
    *in_str_carry = (uint64_t)0 - (in_str >> 63);
    uint64_t open = m.open & ~in_str & valid, close = m.close & ~in_str & valid;
    int nclose = popcount64(close, hw_popcnt);
    if (nclose < *depth) {
        /* depth cannot reach zero in this block: opens only add to it */
        *depth += popcount64(open, hw_popcnt) - nclose;
        if (*depth > KP_JSCAN_MAX_DEPTH) *give_up = true;
        return NULL;
    }
    for (uint64_t all = open | close; all; all &= all - 1) {
        int i = ctz64(all);
        if (open >> i & 1) {
            if (++*depth > KP_JSCAN_MAX_DEPTH) {
                *give_up = true;
                return NULL;
            }
        } else if (--*depth == 0) {
            return blk + i + 1;
        }
    }
    return NULL;
}

#define SKIP_LOOP(CLASSIFY, HW_POPCNT)                                                         \
    uint64_t esc_carry = 0, in_str_carry = 0;                                                  \
    long depth = 0;                                                                            \
    bool give_up = false;                                                                      \
    for (const char *blk = p; blk < end; blk += 64) {                                          \
        __builtin_prefetch(blk + KP_JSCAN_PREFETCH);                                           \
        const char *r = scan_block(blk, end, CLASSIFY(blk), &esc_carry, &in_str_carry, &depth, \
                                   &give_up, HW_POPCNT);                                       \
        if (r || give_up) return r;                                                            \
    }                                                                                          \
    return NULL

static const char *skip_base(const char *p, const char *end) { SKIP_LOOP(classify_base, false); }

#ifdef KP_JSCAN_X86
__attribute__((target("avx2,popcnt"))) static const char *skip_avx2(const char *p,
                                                                    const char *end) {
    SKIP_LOOP(classify_avx2, true);
}

__attribute__((target("avx512f,avx512bw,popcnt"))) static const char *skip_avx512(const char *p,
                                                                                  const char *end) {
    SKIP_LOOP(classify_avx512, true);
}
#endif

const char *kp__json_skip_container(const char *p, const char *end) {
    if (p >= end || (*p != '{' && *p != '[')) return NULL;
#ifdef KP_JSCAN_X86
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("popcnt"))
        return skip_avx512(p, end);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        return skip_avx2(p, end);
#endif
    return skip_base(p, end);
}

/* For tests: the baseline kernel whatever the CPU. */
const char *kp__json_skip_container_base(const char *p, const char *end) {
    if (p >= end || (*p != '{' && *p != '[')) return NULL;
    return skip_base(p, end);
}

const char *kp__json_skip_container_ref(const char *p, const char *end) {
    if (p >= end || (*p != '{' && *p != '[')) return NULL;
    long depth = 0;
    bool in_str = false, esc = false;
    for (; p < end; p++) {
        char c = *p;
        if (in_str) {
            if (esc) esc = false;
            else if (c == '\\') esc = true;
            else if (c == '"') in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > KP_JSCAN_MAX_DEPTH) return NULL;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return p + 1;
        }
    }
    return NULL;
}

/* ---- Checking a member no decoder reads (kp__json_check_value) ----
 * Skipped members (managedFields, the last-applied annotation, root members no decoder reads) are
 * stepped over by the parser unread; this checks their text with a grammar walk over the bytes.
 * Strings and whitespace are crossed 16 bytes at a time where 16 bytes remain in the text. */

static const unsigned char ws_class[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

#ifdef KP_JSCAN_X86
/* bit i set: byte i of the 16 at p ends a run of plain string bytes ('"', '\\' or a control
 * character) */
KP_INLINE unsigned str_stops16(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_or_si128(q, b)));
}

/* bit i set: byte i of the 16 at p is not JSON whitespace */
KP_INLINE unsigned non_ws16(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i w = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    return (unsigned)_mm_movemask_epi8(w) ^ 0xffffu;
}
#endif

KP_INLINE const char *skip_ws16(const char *p, const char *end) {
#ifdef KP_JSCAN_X86
    while (end - p >= 16) {
        unsigned m = non_ws16(p);
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < end && ws_class[(unsigned char)*p]) p++;
    return p;
}

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* *pp at '"': moves past the closing quote; false with *pp at the fault and *what set. */
static bool check_string(const char **pp, const char *end, const char **what) {
    const char *p = *pp + 1;
    for (;;) {
#ifdef KP_JSCAN_X86
        while (end - p >= 16) {
            unsigned m = str_stops16(p);
            if (m) {
                p += __builtin_ctz(m);
                break;
            }
            p += 16;
        }
#endif
        while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) p++;
        if (p >= end) {
            *pp = p;
            *what = "unterminated string";
            return false;
        }
        if (*p == '"') {
            *pp = p + 1;
            return true;
        }
        if ((unsigned char)*p < 0x20) {
            *pp = p;
            *what = "control character in a string (it must be escaped)";
            return false;
        }
        /* a backslash */
        char c = p + 1 < end ? p[1] : 0;
        if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
            c == 't') {
            p += 2;
        } else if (c == 'u' && end - p >= 6 && is_hex(p[2]) && is_hex(p[3]) && is_hex(p[4]) &&
                   is_hex(p[5])) {
            p += 6;
        } else {
            *pp = p;
            *what = "invalid escape in a string";
            return false;
        }
    }
}

static bool delim(const char *p, const char *end) {
    return p >= end || ws_class[(unsigned char)*p] || *p == ',' || *p == ']' || *p == '}';
}

/* A number or a literal at *pp (RFC 8259 grammar). */
static bool check_scalar(const char **pp, const char *end, const char **what) {
    const char *p = *pp;
    if (*p == 't' || *p == 'f' || *p == 'n') {
        const char *w = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
        size_t n = strlen(w);
        if ((size_t)(end - p) >= n && memcmp(p, w, n) == 0 && delim(p + n, end)) {
            *pp = p + n;
            return true;
        }
        *what = "invalid literal";
        return false;
    }
    if (p < end && *p == '-') p++;
    if (p < end && *p == '0') {
        p++;
    } else if (p < end && *p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9') p++;
    } else {
        *what = "invalid value";
        return false;
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') goto bad;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') goto bad;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (!delim(p, end)) goto bad;
    *pp = p;
    return true;
bad:
    *what = "invalid number";
    return false;
}

const char *kp__json_check_value_ref(const char *p, const char *end, int max_depth,
                                     const char **what) {
    unsigned char stack[KP_MAX_DEPTH]; /* 1: object, 0: array */
    int depth = 0;
    if (max_depth > KP_MAX_DEPTH) max_depth = KP_MAX_DEPTH;
    p = skip_ws16(p, end);
value:
    if (p >= end) {
        *what = "expected a value";
        return p;
    }
    if (*p == '{' || *p == '[') {
        if (depth >= max_depth) {
            *what = "nesting deeper than 128 levels";
            return p;
        }
        bool obj = *p == '{';
        stack[depth++] = obj;
        p = skip_ws16(p + 1, end);
        if (p < end && *p == (obj ? '}' : ']')) {
            p++;
            depth--;
            goto after;
        }
        if (obj) goto key;
        goto value;
    }
    if (*p == '"') {
        if (!check_string(&p, end, what)) return p;
        goto after;
    }
    if (!check_scalar(&p, end, what)) return p;
after:
    if (depth == 0) {
        p = skip_ws16(p, end);
        if (p < end) {
            *what = "unexpected content after a value";
            return p;
        }
        return NULL;
    }
    p = skip_ws16(p, end);
    if (p < end && *p == ',') {
        p = skip_ws16(p + 1, end);
        if (stack[depth - 1]) goto key;
        goto value;
    }
    if (p < end && *p == (stack[depth - 1] ? '}' : ']')) {
        p++;
        depth--;
        goto after;
    }
    *what = stack[depth - 1] ? "expected ',' or '}'" : "expected ',' or ']'";
    return p;
key:
    if (p >= end || *p != '"') {
        *what = "expected a member name";
        return p;
    }
    if (!check_string(&p, end, what)) return p;
    p = skip_ws16(p, end);
    if (p >= end || *p != ':') {
        *what = "expected ':'";
        return p;
    }
    p = skip_ws16(p + 1, end);
    goto value;
}

/* The fast check: 64 bytes at a time, bit masks of quotes, backslashes, whitespace and the
 * structural characters give string interiors (as in the cut above) and then the tokens: the
 * structural characters outside strings, the opening quotes, the first byte of each number or
 * literal. Only tokens reach the grammar's state machine, so whitespace and string bodies cost
 * a few vector compares per block, and no loop's trip count depends on a string's length. */
typedef struct {
    uint64_t quote, bslash, ws, open, close, colon, comma, ctl;
} check_masks;

KP_INLINE check_masks check_classify_base(const char *p) {
    check_masks m = {0, 0, 0, 0, 0, 0, 0, 0};
#ifdef KP_JSCAN_X86
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
        int sh = 16 * i;
        m.quote |= eq16(v, '"') << sh;
        m.bslash |= eq16(v, '\\') << sh;
        m.ws |= (eq16(v, ' ') | eq16(v, '\n') | eq16(v, '\r') | eq16(v, '\t')) << sh;
        m.open |= eq16(f, '{') << sh;
        m.close |= eq16(f, '}') << sh;
        m.colon |= eq16(v, ':') << sh;
        m.comma |= eq16(v, ',') << sh;
        m.ctl |= (uint64_t)(uint32_t)_mm_movemask_epi8(
                     _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v))
                 << sh;
    }
#else
    for (int i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        unsigned char c = (unsigned char)p[i];
        if (c == '"') m.quote |= bit;
        if (c == '\\') m.bslash |= bit;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') m.ws |= bit;
        if (c == '{' || c == '[') m.open |= bit;
        if (c == '}' || c == ']') m.close |= bit;
        if (c == ':') m.colon |= bit;
        if (c == ',') m.comma |= bit;
        if (c < 0x20) m.ctl |= bit;
    }
#endif
    return m;
}

#ifdef KP_JSCAN_X86
__attribute__((target("avx2"))) KP_INLINE check_masks check_classify_avx2(const char *p) {
    check_masks m = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
        __m256i f = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        int sh = 32 * i;
        m.quote |= eq32(v, '"') << sh;
        m.bslash |= eq32(v, '\\') << sh;
        m.ws |= (eq32(v, ' ') | eq32(v, '\n') | eq32(v, '\r') | eq32(v, '\t')) << sh;
        m.open |= eq32(f, '{') << sh;
        m.close |= eq32(f, '}') << sh;
        m.colon |= eq32(v, ':') << sh;
        m.comma |= eq32(v, ',') << sh;
        m.ctl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
                     _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v))
                 << sh;
    }
    return m;
}

__attribute__((target("avx512f,avx512bw"))) KP_INLINE check_masks
check_classify_avx512(const char *p) {
    __m512i v = _mm512_loadu_si512((const void *)p);
    __m512i f = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    check_masks m;
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.ws = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' ')) |
           _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')) |
           _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r')) |
           _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\t'));
    m.open = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('{'));
    m.close = _mm512_cmpeq_epi8_mask(f, _mm512_set1_epi8('}'));
    m.colon = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':'));
    m.comma = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(','));
    m.ctl = _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f));
    return m;
}
#endif

enum { CK_VALUE, CK_VALUE_OR_CLOSE, CK_KEY, CK_KEY_OR_CLOSE, CK_COLON, CK_AFTER, CK_DONE };

/* The escaped characters of a block: each must be one of "\/bfnrt, or u and four hex digits. */
static const char *check_escapes(const char *blk, uint64_t esc, const char *end,
                                 const char **what) {
    for (; esc; esc &= esc - 1) {
        const char *c = blk + ctz64(esc);
        if (c >= end) break;
        switch (*c) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't': continue;
        case 'u':
            if (end - c >= 5 && is_hex(c[1]) && is_hex(c[2]) && is_hex(c[3]) && is_hex(c[4]))
                continue;
            break;
        default: break;
        }
        *what = "invalid escape in a string";
        return c - 1;
    }
    return NULL;
}

typedef check_masks (*check_classify_fn)(const char *p);

KP_INLINE const char *check_value(const char *p, const char *end, int max_depth, const char **what,
                                  check_classify_fn classify) {
    unsigned char stack[KP_MAX_DEPTH]; /* 1: object, 0: array */
    int depth = 0, st = CK_VALUE;
    if (max_depth > KP_MAX_DEPTH) max_depth = KP_MAX_DEPTH;
    uint64_t esc_carry = 0, in_str_carry = 0, scalar_carry = 0;
    char tail[64];
    for (const char *blk = p; blk < end; blk += 64) {
        const char *src = blk;
        if (end - blk < 64) {
            /* the last block: a copy padded with spaces, so nothing past end is read */
            memset(tail, ' ', sizeof tail);
            memcpy(tail, blk, (size_t)(end - blk));
            src = tail;
        }
        check_masks m = classify(src);
        uint64_t esc = m.bslash ? escaped_chars(m.bslash, &esc_carry) : esc_carry;
        if (!m.bslash) esc_carry = 0;
        uint64_t quotes = m.quote & ~esc;
        uint64_t in_str = prefix_xor(quotes) ^ in_str_carry; /* opening quote in, closing out */
        in_str_carry = (uint64_t)0 - (in_str >> 63);
        uint64_t bad = (m.ctl & in_str) | (m.bslash & ~in_str);
        if (esc) {
            const char *e = check_escapes(blk, esc & in_str, end, what);
            if (e) return e;
        }
        uint64_t structural = (m.open | m.close | m.colon | m.comma) & ~in_str;
        uint64_t scalar = ~(m.ws | in_str | structural | quotes);
        uint64_t scalar_start = scalar & ~((scalar << 1) | scalar_carry);
        scalar_carry = scalar >> 63;
        uint64_t events = structural | (quotes & in_str) | scalar_start | bad;
        for (; events; events &= events - 1) {
            int i = ctz64(events);
            const char *at = blk + i;
            if ((bad >> i) & 1) {
                *what = (m.bslash >> i) & 1 ? "invalid character '\\\\' outside a string"
                                            : "control character in a string (it must be escaped)";
                return at;
            }
            char c = src[i];
            bool in_value = st == CK_VALUE || st == CK_VALUE_OR_CLOSE;
            switch (c) {
            case '{':
            case '[':
                if (!in_value) goto unexpected;
                if (depth >= max_depth) {
                    *what = "nesting deeper than 128 levels";
                    return at;
                }
                stack[depth++] = c == '{';
                st = c == '{' ? CK_KEY_OR_CLOSE : CK_VALUE_OR_CLOSE;
                break;
            case '}':
            case ']':
                if (depth == 0 || stack[depth - 1] != (c == '}') ||
                    !(st == CK_AFTER || st == (c == '}' ? CK_KEY_OR_CLOSE : CK_VALUE_OR_CLOSE)))
                    goto unexpected;
                depth--;
                st = depth ? CK_AFTER : CK_DONE;
                break;
            case ':':
                if (st != CK_COLON) goto unexpected;
                st = CK_VALUE;
                break;
            case ',':
                if (st != CK_AFTER) goto unexpected;
                st = stack[depth - 1] ? CK_KEY : CK_VALUE;
                break;
            case '"':
                if (st == CK_KEY || st == CK_KEY_OR_CLOSE) st = CK_COLON;
                else if (in_value) st = depth ? CK_AFTER : CK_DONE;
                else goto unexpected;
                break;
            default: {
                if (!in_value) goto unexpected;
                const char *q = at;
                if (!check_scalar(&q, end, what)) return q;
                st = depth ? CK_AFTER : CK_DONE;
                break;
            }
            }
            continue;
        unexpected:
            *what = st == CK_DONE           ? "unexpected content after a value"
                    : st == CK_COLON        ? "expected ':'"
                    : st == CK_KEY          ? "expected a member name"
                    : st == CK_AFTER        ? "expected ',' or the end of the object or array"
                    : st == CK_KEY_OR_CLOSE ? "expected a member name or '}'"
                                            : "expected a value";
            return at;
        }
    }
    if (in_str_carry) {
        *what = "unterminated string";
        return end;
    }
    if (st != CK_DONE) {
        *what = "unexpected end of the value";
        return end;
    }
    return NULL;
}

static const char *check_base(const char *p, const char *end, int max_depth, const char **what) {
    return check_value(p, end, max_depth, what, check_classify_base);
}

#ifdef KP_JSCAN_X86
__attribute__((target("avx2"))) static const char *check_avx2(const char *p, const char *end,
                                                              int max_depth, const char **what) {
    return check_value(p, end, max_depth, what, check_classify_avx2);
}

__attribute__((target("avx512f,avx512bw"))) static const char *
check_avx512(const char *p, const char *end, int max_depth, const char **what) {
    return check_value(p, end, max_depth, what, check_classify_avx512);
}
#endif

const char *kp__json_check_value(const char *p, const char *end, int max_depth, const char **what) {
    if (max_depth > KP_MAX_DEPTH) max_depth = KP_MAX_DEPTH;
#ifdef KP_JSCAN_X86
    if (__builtin_cpu_supports("avx512bw")) return check_avx512(p, end, max_depth, what);
    if (__builtin_cpu_supports("avx2")) return check_avx2(p, end, max_depth, what);
#endif
    return check_base(p, end, max_depth, what);
}

const char *kp__json_check_value_base(const char *p, const char *end, int max_depth,
                                      const char **what) {
    if (max_depth > KP_MAX_DEPTH) max_depth = KP_MAX_DEPTH;
    return check_base(p, end, max_depth, what);
}
