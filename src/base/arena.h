/* Bump allocator and string interner (internal).
 *
 * Snapshot data (pods, nodes, selectors, strings) lives in one arena and is released at once by
 * kp__arena_fini. The interner maps byte strings to small ids (kp_str); id 0 is the empty string,
 * so a zeroed field means "unset". */
#ifndef KP_BASE_ARENA_H
#define KP_BASE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kp_arena_chunk kp_arena_chunk;
typedef struct kp_arena {
    kp_arena_chunk *head;
    size_t total; /* bytes handed out, for statistics */
    size_t reserved; /* bytes obtained from malloc */
} kp_arena;

void kp__arena_init(kp_arena *a);
void kp__arena_fini(kp_arena *a);
/* Frees every chunk but the first and rewinds it: used for per-object scratch space. */
void kp__arena_reset(kp_arena *a);
/* Zeroed, 8-byte aligned memory; NULL only on allocation failure. */
void *kp__arena_alloc(kp_arena *a, size_t n);
void *kp__arena_dup(kp_arena *a, const void *p, size_t n);
/* Gives back p (n bytes) if it is the most recent allocation; otherwise does nothing. */
void kp__arena_unalloc(kp_arena *a, void *p, size_t n);

typedef uint32_t kp_str;

typedef struct kp_interner {
    kp_arena *arena; /* where string bytes live */
    const char **ptr; /* id -> NUL-terminated bytes */
    uint32_t *len; /* id -> length */
    uint32_t n, cap; /* ids in use / capacity */
    uint32_t *table; /* open addressing: id+1, 0 = empty */
    uint32_t table_cap; /* power of two */
} kp_interner;

/* false on allocation failure; kp__intern_fini releases what it allocated either way. */
bool kp__intern_init(kp_interner *in, kp_arena *arena);
void kp__intern_fini(kp_interner *in);
/* Ids live in the low bits of a table slot (the rest is a hash tag): at most 2^25 - 2 distinct
 * strings per cluster, far above any real snapshot (150,000 pods intern ~1.5M). */
#define KP__INTERN_ID_BITS 25
/* Returns the id of s[0..len), adding it if new; UINT32_MAX on allocation failure or when the
 * id space is exhausted. */
kp_str kp__intern(kp_interner *in, const char *s, size_t len);
/* Gives back unused capacity of the id arrays (after loading; later interning still works). */
void kp__intern_trim(kp_interner *in);
/* Returns the id if present, else UINT32_MAX (no insertion). */
kp_str kp__intern_find(const kp_interner *in, const char *s, size_t len);
static inline const char *kp__str(const kp_interner *in, kp_str id) { return in->ptr[id]; }
static inline uint32_t kp__strlen(const kp_interner *in, kp_str id) { return in->len[id]; }

#endif
