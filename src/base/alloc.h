/* The allocator (internal): the only place in kprio that calls libc's malloc family.
 *
 * Every heap allocation of the library goes through these wrappers (curl's and SQLite's rule) so
 * that tests can fail the Nth allocation and check that KP_ENOMEM reaches the caller, and so that
 * a leak or an allocation storm has one place to be counted. They behave exactly like their libc
 * counterparts, except that a zero size still returns a unique pointer (kp__realloc(p, 0) frees p
 * and returns NULL); kp__free(NULL) is a no-op.
 *
 * Fault injection is a test hook, not a feature: kp__alloc_fail_after(n) makes the (n+1)th
 * allocation from now fail (and every one after it when `sticky`), kp__alloc_fail_after(-1) turns
 * it off. The counter is process-wide and not thread-safe, like the hooks of curl's memdebug. */
#ifndef KP_BASE_ALLOC_H
#define KP_BASE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *kp__malloc(size_t n);
void *kp__calloc(size_t count, size_t size);
void *kp__realloc(void *p, size_t n);
/* Memory aligned to `align` (a power of two, a multiple of sizeof(void *)); kp__free releases it.
 */
void *kp__aligned_alloc(size_t align, size_t n);
char *kp__strdup(const char *s);
char *kp__strndup(const char *s, size_t n);
void kp__free(void *p);

/* Grows *buf (elements of `elem` bytes, capacity *cap) so that it holds at least `need`
 * elements: doubles, starting at `min_cap`. Returns false (buffer untouched) when the size
 * would overflow or the allocation fails. */
bool kp__grow(void **buf, size_t *cap, size_t need, size_t elem, size_t min_cap);

/* The same for the uint32_t capacities the model and the engines keep (their counts are
 * uint32_t): false, buffer untouched, also when the capacity would pass UINT32_MAX. */
bool kp__grow32(void **buf, uint32_t *cap, size_t need, size_t elem, uint32_t min_cap);

/* Test hook: fail the allocation after `n` more successful ones (n < 0: never fail). With
 * `sticky`, every allocation after the first failure fails too. */
void kp__alloc_fail_after(long n, bool sticky);
/* Allocations attempted since the process started (counts failed ones too). */
unsigned long kp__alloc_count(void);

#endif
