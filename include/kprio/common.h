/* kprio common types: status codes, rich errors, allocation hooks.
 *
 * Every fallible library call returns kp_status (KP_OK == 0, negative on error) and, when the
 * caller passes a kp_error, fills it with a one-line message that names the source file, the
 * object and the field (e.g. "items[12] (Pod team-a/web-1): spec.containers[0].resources...").
 * The library never prints; the CLI renders kp_error as "kprio: FILE: MESSAGE".
 *
 * Typical use:
 *     kp_error err;
 *     kp_error_clear(&err);
 *     if (kp_cluster_load_path(cl, "snapshot.yaml", false, &err) != KP_OK)
 *         fprintf(stderr, "%s: %s (%s)\n", err.source, err.msg, kp_status_str(err.code)); */
#ifndef KP_COMMON_H
#define KP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KP_OK = 0,
    KP_EINVAL = -1, /* invalid input value (bad quantity, bad enum value, ...) */
    KP_ESYNTAX = -2, /* JSON/YAML syntax error */
    KP_ENOMEM = -3, /* allocation failed */
    KP_EIO = -4, /* file could not be read */
    KP_ERANGE = -5, /* value out of range / overflow */
    KP_ENOTFOUND = -6, /* unknown reference (node, pod, priority class) */
    KP_ELIMIT = -7 /* input exceeds a hard limit (depth, size, count) */
} kp_status;

#define KP_ERR_MSG_CAP 512

/* Rich error. Plain value type: no owned pointers. */
typedef struct kp_error {
    kp_status code;
    char source[256]; /* file name, "-" for stdin, "" if none */
    long line, column; /* 1-based, 0 when unknown */
    char msg[KP_ERR_MSG_CAP];
} kp_error;

/* Clears err (may be NULL). */
void kp_error_clear(kp_error *err);
/* Sets err->code and a printf-style message; returns code. err may be NULL. */
kp_status kp_error_set(kp_error *err, kp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Prefixes the existing message with "prefix: " (used to add object context). */
void kp_error_prefix(kp_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Human-readable name of a status code. */
const char *kp_status_str(kp_status st);

/* Heap memory for callers of the library (the CLI, the simulator, bindings): the same allocator
 * the library uses, so fault-injection tests cover callers too. Semantics of malloc, calloc,
 * realloc, strdup and free; kp_free(NULL) is a no-op. NULL means out of memory. */
void *kp_malloc(size_t n);
void *kp_calloc(size_t count, size_t size);
void *kp_realloc(void *p, size_t n);
char *kp_strdup(const char *s);
void kp_free(void *p);

/* Go's time.Duration syntax ("90s", "1m30s", "250ms", "1h"): parses text into nanoseconds
 * (KP_EINVAL with Go's message, e.g. time: invalid duration "9x"), and formats ns as Go's
 * Duration.String does ("1m30s", "0s"; buf of 32 bytes is enough). */
kp_status kp_duration_parse(const char *text, int64_t *out_ns, kp_error *err);
void kp_duration_format(int64_t ns, char *buf, size_t cap);
/* An RFC 3339 timestamp as the API server reads metav1.Time ("2026-11-01T01:00:00Z", an offset
 * "+02:00", fractional seconds), into unix seconds (a fraction is dropped). KP_EINVAL with
 * `invalid RFC 3339 time "TEXT" (e.g. 2026-11-01T01:00:00Z)`. */
kp_status kp_time_parse(const char *text, int64_t *out_unix, kp_error *err);

/* Version string of the library, e.g. "0.1.0". */
const char *kp_version(void);
/* The upstream Kubernetes release line whose decisions kprio reproduces by default
 * (kube-scheduler, kubelet); older lines' differences are selected with a compat option
 * (docs/compat.md lists them; docs/internals/upstream.md the upstream sources). */
#define KP_KUBERNETES_VERSION "1.37"

#ifdef __cplusplus
}
#endif
#endif
