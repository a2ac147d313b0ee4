/* Go's time.Duration syntax for callers of the library (the CLI's --duration, the simulator's
 * event times): the single parser and formatter live in base/gosyntax.c. */
#include <string.h>

#include "base/gosyntax.h"
#include "kprio/common.h"

kp_status kp_duration_parse(const char *text, int64_t *out_ns, kp_error *err) {
    char msg[200];
    kp_status st = kp__go_parse_duration(text, strlen(text), out_ns, msg, sizeof msg);
    if (st != KP_OK) return kp_error_set(err, st, "%s", msg);
    return KP_OK;
}

void kp_duration_format(int64_t ns, char *buf, size_t cap) { kp__go_format_duration(ns, buf, cap); }
