/* SimKube traces (internal; convert_simkube.c, include/kprio/convert.h): the reading context
 * with its path for messages, and the structural check of the msgpack bytes that runs before
 * msgpack-c's unpacker (simkube_scan.c), which needs no msgpack-c. */
#ifndef KP_IO_SIMKUBE_SCAN_H
#define KP_IO_SIMKUBE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"

#define SK_MAX_VALUES ((uint64_t)1 << 26)
#define SK_MAX_DEPTH 31 /* nested containers: msgpack-c's unpacker stops at 32 */

typedef struct {
    const char *file;
    kp_error *err;
    char path[512]; /* where the walk is: "events[3].applied_objs[0].spec" */
    size_t path_len;
    size_t obj_at; /* path_len of the object being converted (0: none), its label below */
    char label[160]; /* " (Deployment shop/web)" */
} sk;

/* s[0..n) fit for a one-line message: at most 60 bytes, others than printable ASCII as \xNN. */
void kp__sk_shown(char *buf, size_t cap, const char *s, size_t n);
/* The error "FILE: events[3].applied_objs[0] (Deployment shop/web): spec.replicas: MESSAGE"
 * (the path and the object's label where the walk is); returns code. */
kp_status kp__sk_fail(sk *k, kp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The path grows by ".key" or "[i]"; each returns the length to give kp__sk_pop. */
size_t kp__sk_push_key(sk *k, const char *key, size_t n);
size_t kp__sk_push_index(sk *k, uint64_t i);
size_t kp__sk_push_text(sk *k, const char *text); /* text as it is: "[v1.Pod batch/x]" */
void kp__sk_pop(sk *k, size_t saved);
/* The structural check of b[0..len): one msgpack value, every length within the bytes, every
 * container's count within what the bytes left can hold, nesting within SK_MAX_DEPTH, at most
 * SK_MAX_VALUES values, nothing after. Errors name the byte and the path to it. */
kp_status kp__sk_scan(sk *k, const unsigned char *b, size_t len);
/* Whether s[0..n) is UTF-8 (JSON text is). */
bool kp__sk_utf8_ok(const char *s, size_t n);
/* Whether s[0..n) is an RFC 1123 DNS subdomain (max 253) or, label, a DNS label (max 63). */
bool kp__sk_dns_name(const char *s, size_t n, bool label);

#endif
