/* kp_error helpers (kprio/common.h): formatting of one-line error messages. In base, under every
 * layer, so that base's own fallible helpers (file writing, directory walking) fill a kp_error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kprio/common.h"

void kp_error_clear(kp_error *err) {
    if (!err) return;
    memset(err, 0, sizeof *err);
}

kp_status kp_error_set(kp_error *err, kp_status code, const char *fmt, ...) {
    if (!err) return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void kp_error_prefix(kp_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[KP_ERR_MSG_CAP], old[KP_ERR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%.200s: %.300s", prefix, old);
}

const char *kp_status_str(kp_status st) {
    switch (st) {
    case KP_OK: return "ok";
    case KP_EINVAL: return "invalid value";
    case KP_ESYNTAX: return "syntax error";
    case KP_ENOMEM: return "out of memory";
    case KP_EIO: return "i/o error";
    case KP_ERANGE: return "out of range";
    case KP_ENOTFOUND: return "not found";
    case KP_ELIMIT: return "limit exceeded";
    }
    return "unknown error";
}

const char *kp_version(void) { return "0.1.0"; }
