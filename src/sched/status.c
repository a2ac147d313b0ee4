/* framework.Status helpers. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/status.h"

void kp__status_reset(kp_node_status *st) {
    st->code = KP_CODE_SUCCESS;
    st->plugin = NULL;
    st->n_reasons = 0;
}

size_t kp__status_join(const kp_node_status *st, char *buf, size_t cap) {
    size_t off = 0;
    for (uint8_t r = 0; r < st->n_reasons; r++) {
        int n = snprintf(off < cap ? buf + off : NULL, off < cap ? cap - off : 0, "%s%s",
                         r ? ", " : "", st->reasons[r]);
        if (n > 0) off += (size_t)n;
    }
    if (cap && st->n_reasons == 0) buf[0] = 0;
    return off;
}

size_t kp__textbuf_add(kp_textbuf *t, const char *s, const kp_node_status *st) {
    size_t n = s ? strlen(s) : kp__status_join(st, NULL, 0);
    if (!kp__grow((void **)&t->buf, &t->cap, t->len + n + 1, 1, 4096)) return KP_TEXT_NONE;
    size_t off = t->len;
    if (s) memcpy(t->buf + off, s, n + 1);
    else kp__status_join(st, t->buf + off, n + 1);
    t->len += n + 1;
    return off;
}
