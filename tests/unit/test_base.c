/* base/: arena, interner and allocator edge cases, under failed allocations. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "harness.h"

KT_TEST(intern_trim_with_failed_shrink) {
    /* The trim shrinks two arrays; when the second shrink failed, the capacity stayed at the old
     * value although the first array had shrunk, and the next new string was written past it. */
    kp_arena a;
    kp_interner in;
    kp__arena_init(&a);
    KT_CHECK(kp__intern_init(&in, &a));
    char buf[32];
    for (int i = 0; i < 1500; i++) {
        snprintf(buf, sizeof buf, "s%d", i);
        KT_CHECK(kp__intern(&in, buf, strlen(buf)) == (kp_str)(i + 1));
    }
    kp__alloc_fail_after(1, false); /* the ptr shrink succeeds, the len shrink fails */
    kp__intern_trim(&in);
    kp__alloc_fail_after(-1, false);
    for (int i = 1500; i < 4000; i++) {
        snprintf(buf, sizeof buf, "s%d", i);
        KT_CHECK(kp__intern(&in, buf, strlen(buf)) == (kp_str)(i + 1));
    }
    KT_CHECK_STR(kp__str(&in, 1), "s0");
    KT_CHECK_STR(kp__str(&in, 4000), "s3999");
    kp__intern_fini(&in);
    kp__arena_fini(&a);
}

KT_TEST(intern_failure_is_reported) {
    kp_arena a;
    kp_interner in;
    kp__arena_init(&a);
    KT_CHECK(kp__intern_init(&in, &a));
    kp__alloc_fail_after(0, true);
    /* the first chunk of the arena holds the string: a short one still succeeds... */
    KT_CHECK(kp__intern(&in, "x", 1) != UINT32_MAX);
    /* ...one larger than a chunk needs an allocation and fails cleanly */
    static char big[200000];
    memset(big, 'b', sizeof big);
    KT_CHECK(kp__intern(&in, big, sizeof big) == UINT32_MAX);
    kp__alloc_fail_after(-1, false);
    KT_CHECK(kp__intern(&in, big, sizeof big) != UINT32_MAX);
    kp__intern_fini(&in);
    kp__arena_fini(&a);
}

KT_TEST(sizes_that_would_wrap) {
    kp_arena a;
    kp__arena_init(&a);
    KT_CHECK(kp__arena_alloc(&a, SIZE_MAX) == NULL);
    KT_CHECK(kp__arena_alloc(&a, SIZE_MAX - 3) == NULL);
    KT_CHECK(kp__arena_alloc(&a, 16) != NULL);
    kp__arena_fini(&a);
    void *p = NULL;
    size_t cap = 0;
    KT_CHECK(!kp__grow(&p, &cap, SIZE_MAX / 2 + 2, 1, 16));
    KT_CHECK(!kp__grow(&p, &cap, SIZE_MAX / 8, 16, 16));
    KT_CHECK(p == NULL && cap == 0);
    KT_CHECK(kp__grow(&p, &cap, 100, 8, 16));
    KT_CHECK(cap >= 100);
    kp__free(p);
}

/* kp__grow / kp__grow32: doubling from the minimum, the buffer untouched on a failed
 * allocation or a size that would overflow (size_t, or a uint32_t capacity). */
KT_TEST(grow_doubles_and_fails_cleanly) {
    int *v = NULL;
    size_t cap = 0;
    KT_CHECK(kp__grow((void **)&v, &cap, 1, sizeof *v, 4));
    KT_CHECK_INT(cap, 4);
    KT_CHECK(kp__grow((void **)&v, &cap, 4, sizeof *v, 4)); /* enough already */
    KT_CHECK_INT(cap, 4);
    KT_CHECK(kp__grow((void **)&v, &cap, 9, sizeof *v, 4));
    KT_CHECK_INT(cap, 16);
    for (int i = 0; i < 16; i++) v[i] = i;
    int *before = v;
    kp__alloc_fail_after(0, false);
    KT_CHECK(!kp__grow((void **)&v, &cap, 17, sizeof *v, 4));
    kp__alloc_fail_after(-1, false);
    KT_CHECK(v == before);
    KT_CHECK_INT(cap, 16);
    KT_CHECK_INT(v[15], 15);
    KT_CHECK(!kp__grow((void **)&v, &cap, SIZE_MAX / 2, sizeof *v, 4)); /* bytes overflow */
    KT_CHECK_INT(cap, 16);
    kp__free(v);

    uint32_t *w = NULL, cap32 = 0;
    KT_CHECK(kp__grow32((void **)&w, &cap32, 3, sizeof *w, 2));
    KT_CHECK_INT(cap32, 4);
    KT_CHECK(!kp__grow32((void **)&w, &cap32, (size_t)UINT32_MAX + 1, 1, 2));
    KT_CHECK_INT(cap32, 4);
    kp__free(w);
}

KT_MAIN(KT_CASE(intern_trim_with_failed_shrink), KT_CASE(intern_failure_is_reported),
        KT_CASE(sizes_that_would_wrap), KT_CASE(grow_doubles_and_fails_cleanly))
