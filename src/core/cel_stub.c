/* Placeholder for the CEL evaluator (core/cel.h) until src/core/cel*.c lands: every expression
 * is a compile error naming it, never a silent true or false. Deleted when the evaluator is
 * merged (it defines the same two calls). */
#include <stdio.h>

#include "core/cel.h"

kp_status kp__cel_compile(const char *expr, size_t len, kp_cel_program **out, kp_error *err) {
    (void)expr;
    (void)len;
    *out = NULL;
    return kp_error_set(err, KP_EINVAL, "at 1:1: CEL expressions are not evaluated in this build");
}

void kp__cel_free(kp_cel_program *p) { (void)p; }

kp_status kp__cel_eval_device(const kp_cel_program *p, const kp_cel_device *d, bool *match,
                              kp_error *err) {
    (void)p;
    (void)d;
    *match = false;
    return kp_error_set(err, KP_EINVAL, "CEL expressions are not evaluated in this build");
}
