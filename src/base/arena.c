/* Arena allocator and string interner. See arena.h. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"

struct kp_arena_chunk {
    kp_arena_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK_MIN ((size_t)64 * 1024)

void kp__arena_init(kp_arena *a) { memset(a, 0, sizeof *a); }

void kp__arena_fini(kp_arena *a) {
    kp_arena_chunk *c = a->head;
    while (c) {
        kp_arena_chunk *n = c->next;
        kp__free(c);
        c = n;
    }
    memset(a, 0, sizeof *a);
}

void kp__arena_reset(kp_arena *a) {
    kp_arena_chunk *c = a->head;
    if (!c) return;
    if (c->next) {
        /* Several chunks: replace them by one chunk as large as all of them, so a scratch arena
         * reset per object (the ingest trees) settles on one allocation instead of freeing and
         * re-allocating (and the kernel re-zeroing) overflow chunks for every object. */
        size_t cap = a->reserved;
        kp__arena_fini(a);
        kp_arena_chunk *nc = kp__malloc(sizeof *nc + cap);
        if (!nc) return; /* the next alloc mallocs afresh */
        nc->next = NULL;
        nc->cap = cap;
        a->head = c = nc;
    }
    c->used = 0;
    a->total = 0;
    a->reserved = c->cap;
}

static void *arena_alloc_raw(kp_arena *a, size_t n) {
    if (n > SIZE_MAX / 2) return NULL; /* the rounding and the chunk header below must not wrap */
    n = (n + 7) & ~(size_t)7; /* 8-byte alignment: every model type needs at most that */
    kp_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > ARENA_CHUNK_MIN ? n : ARENA_CHUNK_MIN;
        /* Grow chunk size with the arena so big snapshots need few mallocs. */
        if (a->reserved / 8 > cap) cap = a->reserved / 8;
        if (cap > ((size_t)16 << 20) && cap > n)
            cap = n > ((size_t)16 << 20) ? n : ((size_t)16 << 20);
        kp_arena_chunk *nc = kp__malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c && c->cap - c->used >= 4096) {
            /* The current chunk still has room: put the new one behind it. */
            nc->next = c->next;
            c->next = nc;
            c = nc;
        } else {
            nc->next = c;
            a->head = nc;
            c = nc;
        }
        a->reserved += cap;
    }
    void *p = c->data + c->used;
    c->used += n;
    a->total += n;
    return p;
}

void *kp__arena_alloc(kp_arena *a, size_t n) {
    void *p = arena_alloc_raw(a, n);
    if (p) memset(p, 0, n);
    return p;
}

void kp__arena_unalloc(kp_arena *a, void *p, size_t n) {
    kp_arena_chunk *c = a->head;
    n = (n + 7) & ~(size_t)7;
    if (c && c->used >= n && (unsigned char *)p == c->data + c->used - n) {
        c->used -= n;
        a->total -= n;
    }
}

void *kp__arena_dup(kp_arena *a, const void *p, size_t n) {
    char *q = arena_alloc_raw(a, n + 1);
    if (!q) return NULL;
    if (n) memcpy(q, p, n);
    q[n] = 0;
    return q;
}

/* Word-at-a-time multiplicative hash: interning hashes every name, label and uid of a snapshot,
 * so it reads 8 bytes per step. Deterministic (no seed), like the rest of kprio. */
static uint32_t hash_bytes(const char *s, size_t len) {
    const uint64_t k = 0x9E3779B97F4A7C15u;
    uint64_t h = (uint64_t)len * k;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
        s += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, s, len);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    h *= k;
    return (uint32_t)(h >> 32);
}

/* A table slot holds id+1 in its low KP__INTERN_ID_BITS bits and the top bits of the string's
 * hash above them, so a probe rejects almost every other string without touching its bytes or
 * length (a miss probes several slots at 3/4 load). 0 = empty. */
#define ID_MASK (((uint32_t)1 << KP__INTERN_ID_BITS) - 1)
#define TAG_OF(h) ((h) & ~ID_MASK)

bool kp__intern_init(kp_interner *in, kp_arena *arena) {
    memset(in, 0, sizeof *in);
    in->arena = arena;
    in->table_cap = 1024;
    in->table = kp__calloc(in->table_cap, sizeof *in->table);
    if (!in->table) return false;
    return kp__intern(in, "", 0) == 0;
}

void kp__intern_fini(kp_interner *in) {
    kp__free(in->ptr);
    kp__free(in->len);
    kp__free(in->table);
    memset(in, 0, sizeof *in);
}

/* Slot index where s is, or the empty slot where it would go. */
static uint32_t probe(const kp_interner *in, const char *s, size_t len, uint32_t h) {
    uint32_t mask = in->table_cap - 1, tag = TAG_OF(h);
    uint32_t i = h & mask;
    for (;;) {
        uint32_t slot = in->table[i];
        if (!slot) return i;
        if ((slot & ~ID_MASK) == tag) {
            uint32_t id = (slot & ID_MASK) - 1;
            if (in->len[id] == len && memcmp(in->ptr[id], s, len) == 0) return i;
        }
        i = (i + 1) & mask;
    }
}

kp_str kp__intern_find(const kp_interner *in, const char *s, size_t len) {
    uint32_t slot = in->table[probe(in, s, len, hash_bytes(s, len))];
    return slot ? (slot & ID_MASK) - 1 : UINT32_MAX;
}

static bool grow_table(kp_interner *in) {
    uint32_t ncap = in->table_cap * 2;
    uint32_t *nt = kp__calloc(ncap, sizeof *nt);
    if (!nt) return false;
    for (uint32_t id = 0; id < in->n; id++) {
        uint32_t h = hash_bytes(in->ptr[id], in->len[id]);
        uint32_t i = h & (ncap - 1);
        while (nt[i]) i = (i + 1) & (ncap - 1);
        nt[i] = TAG_OF(h) | (id + 1);
    }
    kp__free(in->table);
    in->table = nt;
    in->table_cap = ncap;
    return true;
}

void kp__intern_trim(kp_interner *in) {
    if (in->n == in->cap || in->n == 0) return;
    /* cap is the capacity of ptr; len may stay larger when its own shrink fails. (Keeping the old
     * cap after ptr shrank would let the next new string write past the end of ptr.) */
    const char **np = kp__realloc(in->ptr, in->n * sizeof *np);
    if (!np) return;
    in->ptr = np;
    in->cap = in->n;
    uint32_t *nl = kp__realloc(in->len, in->n * sizeof *nl);
    if (nl) in->len = nl;
}

kp_str kp__intern(kp_interner *in, const char *s, size_t len) {
    if (len > UINT32_MAX / 2) return UINT32_MAX;
    uint32_t h = hash_bytes(s, len);
    uint32_t i = probe(in, s, len, h);
    if (in->table[i]) return (in->table[i] & ID_MASK) - 1;
    if (in->n >= ID_MASK - 1) return UINT32_MAX; /* ids must fit the slot's id bits */
    if (in->n == in->cap) {
        /* ptr first, then len at the capacity ptr got */
        uint32_t ncap = in->cap;
        void *np = in->ptr;
        if (!kp__grow32(&np, &ncap, (size_t)in->n + 1, sizeof *in->ptr, 1024)) return UINT32_MAX;
        in->ptr = np;
        uint32_t *nl = kp__realloc(in->len, (size_t)ncap * sizeof *nl);
        if (!nl) return UINT32_MAX;
        in->len = nl;
        in->cap = ncap;
    }
    char *copy = kp__arena_dup(in->arena, s, len);
    if (!copy) return UINT32_MAX;
    kp_str id = in->n++;
    in->ptr[id] = copy;
    in->len[id] = (uint32_t)len;
    in->table[i] = TAG_OF(h) | (id + 1);
    /* grow at 3/4 load: linear probing stays short and the table costs ~5 bytes per string */
    if (in->n * 4 > in->table_cap * 3 && !grow_table(in)) return UINT32_MAX;
    return id;
}
