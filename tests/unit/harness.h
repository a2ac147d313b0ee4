/* Minimal unit-test harness. Each tests/unit/test_<module>.c defines test functions with
 * KT_TEST(name) and ends with KT_MAIN(...) listing them. A test counts as failed if any KT_CHECK
 * in it fails. The binary prints "RESULT <passed> <failed>" last so tests/run.sh can add up. */
#ifndef KP_TEST_HARNESS_H
#define KP_TEST_HARNESS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int kt_failed_checks;

#define KT_TEST(name) static void name(void)

#define KT_CHECK(cond)                                                                 \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            kt_failed_checks++;                                                        \
        }                                                                              \
    } while (0)

#define KT_CHECK_INT(a, b)                                                                        \
    do {                                                                                          \
        long long kt_a = (long long)(a), kt_b = (long long)(b);                                   \
        if (kt_a != kt_b) {                                                                       \
            fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, \
                    kt_a, #b, kt_b);                                                              \
            kt_failed_checks++;                                                                   \
        }                                                                                         \
    } while (0)

#define KT_CHECK_STR(a, b)                                                                      \
    do {                                                                                        \
        const char *kt_a = (a), *kt_b = (b);                                                    \
        if (!kt_a || !kt_b || strcmp(kt_a, kt_b) != 0) {                                        \
            fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
                    kt_a ? kt_a : "(null)", kt_b ? kt_b : "(null)");                            \
            kt_failed_checks++;                                                                 \
        }                                                                                       \
    } while (0)

/* Substring check, for error messages. */
#define KT_CHECK_CONTAINS(hay, needle)                                                       \
    do {                                                                                     \
        const char *kt_h = (hay), *kt_n = (needle);                                          \
        if (!kt_h || !strstr(kt_h, kt_n)) {                                                  \
            fprintf(stderr, "  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                    kt_h ? kt_h : "(null)", kt_n);                                           \
            kt_failed_checks++;                                                              \
        }                                                                                    \
    } while (0)

typedef struct {
    const char *name;
    void (*fn)(void);
} kt_case;

#define KT_CASE(fn) \
    { #fn, fn }

static inline int kt_run(const char *suite, const kt_case *cases, size_t n) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int before = kt_failed_checks;
        cases[i].fn();
        if (kt_failed_checks == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s.%s\n", suite, cases[i].name);
        }
    }
    printf("RESULT %d %d %s\n", passed, failed, suite);
    return failed ? 1 : 0;
}

#define KT_MAIN(...)                                                             \
    int main(void) {                                                             \
        static const kt_case kt_cases[] = {__VA_ARGS__};                         \
        return kt_run(__FILE__, kt_cases, sizeof kt_cases / sizeof kt_cases[0]); \
    }

#endif
