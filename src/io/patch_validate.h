/* The API server's validation of an update (internal, io/patch.c): the object as it was and as
 * patched, both decoded, compared as ValidatePodUpdate, ValidatePodResize, ValidateNodeUpdate,
 * ValidatePriorityClassUpdate and the workloads' update validations compare them. */
#ifndef KP_IO_PATCH_VALIDATE_H
#define KP_IO_PATCH_VALIDATE_H

#include <stddef.h>

#include "core/cluster.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/workload.h"
#include "kprio/update.h"

/* One object of each kind kprio updates. */
typedef union {
    kp_pod pod;
    kp_node node;
    kp_priority_class pc;
    kp_pdb pdb;
    kp_namespace ns;
    kp_workload wl;
} kp__upd_obj;

/* A field.ErrorList as kubectl prints it: "FIELD: TYPE: DETAIL", several joined in brackets. */
typedef struct {
    char text[2048];
    size_t len;
    int n;
} kp__upd_errs;

void kp__upd_err(kp__upd_errs *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The list's text (e stays valid). */
const char *kp__upd_errs_text(kp__upd_errs *e);

/* Validates the update of old into nw (kind as the API spells it; sub "", "status" or
 * "resize"): the refusals go to errs; out's flags say what changed (nothing when errs has any).
 * nw is munged where the API server drops what the subresource does not carry. KP_ENOMEM. */
kp_status kp__validate_update(kp_cluster *cl, const char *kind, const char *sub,
                              const kp__upd_obj *old, kp__upd_obj *nw, kp__upd_errs *errs,
                              kp_update_result *out);

#endif
