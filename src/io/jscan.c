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
