/* framework.Status of one node for one pod: a code, the failing plugin and upstream's reason
 * strings. */
#ifndef KP_SCHED_STATUS_H
#define KP_SCHED_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/resources.h"

typedef enum {
    KP_CODE_SUCCESS = 0,
    KP_CODE_UNSCHEDULABLE = 1,
    KP_CODE_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KP_CODE_ERROR = 3
} kp_code;

/* The most reasons a status can hold, a bound and not a cap: NodeResourcesFit gives "Too many
 * pods" plus one "Insufficient <resource>" per resource of the cluster (at most KP_MAX_RES);
 * every other plugin gives one reason. Upstream keeps every reason, so does kprio.
 * rule 8: a bound that cannot be reached, not a limit. */
#define KP_STATUS_MAX_REASONS (1 + KP_MAX_RES)
/* framework.Status of one node for one pod. Reasons are upstream's strings, borrowed: static
 * strings, or the scheduler's formatted reasons (sched/reasons.h), valid as long as it lives. */
typedef struct {
    kp_code code;
    const char *plugin; /* failing plugin name (static string), NULL on success */
    uint8_t n_reasons;
    const char *reasons[KP_STATUS_MAX_REASONS];
} kp_node_status;

void kp__status_reset(kp_node_status *st);
/* Appends reason (borrowed: it must outlive the status). Inline: filters call it per rejected
 * node. */
static inline void kp__status_add_reason(kp_node_status *st, const char *reason) {
    if (st->n_reasons >= KP_STATUS_MAX_REASONS) return; /* cannot happen: see the bound */
    st->reasons[st->n_reasons++] = reason;
}

/* The reasons joined by ", " into buf[cap] (snprintf rules: returns the full length, so a caller
 * sizes buf with a first call on cap 0). */
size_t kp__status_join(const kp_node_status *st, char *buf, size_t cap);

/* A growing store of NUL-terminated texts addressed by offset (the --explain records: a reason
 * text is never cut to a fixed size). */
typedef struct {
    char *buf;
    size_t len, cap;
} kp_textbuf;
#define KP_TEXT_NONE SIZE_MAX /* offset of a text that could not be stored (KP_ENOMEM) */
/* Appends s, or the joined reasons of st when s is NULL; returns its offset or KP_TEXT_NONE. */
size_t kp__textbuf_add(kp_textbuf *t, const char *s, const kp_node_status *st);
/* The text at off ("" for KP_TEXT_NONE). */
static inline const char *kp__textbuf_get(const kp_textbuf *t, size_t off) {
    return off == KP_TEXT_NONE || !t->buf ? "" : t->buf + off;
}

#endif
