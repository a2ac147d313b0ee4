/* CEL for DRA device selectors (internal): compiles and evaluates the expressions of
 * DeviceClass and ResourceClaim selectors (spec.selectors[].cel.expression) against one device,
 * as k8s.io/dynamic-resource-allocation/cel (compile.go: Compiler.CompileCELExpression,
 * CompilationResult.DeviceMatches) does.
 *
 * The environment has one variable, `device`, with `driver` (string), `attributes` (map of
 * domain -> map of id -> int/bool/string/semver), `capacity` (map of domain -> map of id ->
 * quantity) and, where the line has it, `allowMultipleAllocations` (bool). An expression must be
 * of type bool. Anything outside what the evaluator implements is a compile error naming the
 * expression and the position ("... at 1:17: unsupported function 'foo'"), never a silent true
 * or false. Runtime errors (a missing attribute, a type mismatch, the cost limit) are returned as
 * upstream returns them: the device does not match and the claim cannot be allocated, with the
 * message in err. */
#ifndef KP_CORE_CEL_H
#define KP_CORE_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dra.h"
#include "kprio/common.h"

struct kp_cluster;

/* A compiled expression (opaque; owned by the caller, freed with kp__cel_free). */
typedef struct kp_cel_program kp_cel_program;

/* Compiles expr[0..len). KP_OK and *out, or KP_EINVAL with err "... at LINE:COL: reason" (the
 * expression is named by the caller's path), or KP_ENOMEM. The length and cost limits are
 * upstream's (resource.k8s.io/v1 CELSelectorExpressionMaxLength, CELSelectorExpressionMaxCost). */
kp_status kp__cel_compile(const char *expr, size_t len, kp_cel_program **out, kp_error *err);
void kp__cel_free(kp_cel_program *p);

/* The static cost estimate (cel_cost.c): the worst-case cost of p as cel-go's checker estimates
 * it with Kubernetes' size and call estimators, into *out (saturating at UINT64_MAX). KP_ENOMEM. */
kp_status kp__cel_cost_estimate(const kp_cel_program *p, uint64_t *out);
/* Validation at create (validateCELSelector): *over true when expr[0..len) compiles and its
 * estimated cost (*estimate) exceeds CELSelectorExpressionMaxCost; false when within, or when
 * it does not compile (that error is the evaluation's, reported when a device is matched).
 * KP_ENOMEM. */
kp_status kp__cel_over_cost(const char *expr, size_t len, bool *over, uint64_t *estimate);

/* What an expression sees of a device. */
typedef struct {
    const struct kp_cluster *cl; /* to read interned strings */
    kp_str driver; /* the slice's spec.driver */
    const kp_dra_device *dev;
} kp_cel_device;

/* Evaluates p for device d: KP_OK and *match, or KP_EINVAL with err (a runtime error: no such
 * key, no matching overload, cost limit exceeded) and *match false, or KP_ENOMEM. */
kp_status kp__cel_eval_device(const kp_cel_program *p, const kp_cel_device *d, bool *match,
                              kp_error *err);

#endif
