/* Decoders of the DRA objects (internal to src/io): DeviceClass, ResourceSlice, ResourceClaim and
 * ResourceClaimTemplate of resource.k8s.io (v1, v1beta2, v1beta1) into core/dra.h, and a pod's
 * claims; the helpers the three files share. */
#ifndef KP_IO_DECODE_DRA_H
#define KP_IO_DECODE_DRA_H

#include "core/cluster.h"
#include "core/dra.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/tree.h"

/* The shape of the input: v1 and v1beta2 agree; v1beta1 has flat requests (deviceClassName,
 * ... beside firstAvailable) and devices wrapped in `basic`. */
typedef enum { KP_DRA_V1 = 0, KP_DRA_V1BETA2, KP_DRA_V1BETA1 } kp_dra_version;

/* load.c: is kind a DRA kind; is apiVersion api served for it by the release line `line`
 * (minor version; v1 from 1.34, v1beta2 from 1.33, v1beta1 from 1.32). *why: the reason when
 * not ("not served before v1.34"), NULL for a version no line serves. */
bool kp__dra_kind(const char *kind, kp_dra_kind *out);
bool kp__dra_api_ok(const char *api, uint16_t line, const char **why);
/* Decodes object obj of kind into o (made by kp__cluster_new_dra); api as checked (NULL: v1). */
kp_status kp__decode_dra(kp_dctx *d, kp_cluster *cl, const char *source, const kp_tnode *obj,
                         kp_dra_kind kind, const char *api, void *o);
/* decode_pod_claims.c: spec.resourceClaims and containers[].resources.claims (spec) and
 * status.resourceClaimStatuses (status, may be NULL) of pod p. */
kp_status kp__decode_pod_claims(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p);
kp_status kp__decode_pod_claim_statuses(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                                        kp_pod *p);

/* ---- shared by decode_dra*.c ---- */

/* How a name is validated (the validate* functions of pkg/apis/resource/validation). */
typedef enum {
    KP_DRA_NAME_LABEL = 0, /* DNS-1123 label: device, request, counter names */
    KP_DRA_NAME_SUBDOMAIN, /* DNS-1123 subdomain: class names, claim names, node names */
    KP_DRA_NAME_DRIVER, /* ValidateCSIDriverName: <= 63, a subdomain (lower-cased) */
    KP_DRA_NAME_POOL /* validatePoolName: <= 253, '/'-separated subdomains */
} kp_dra_name_rule;

/* obj[key], an array of at most max entries (TooMany as upstream's validateSlice). */
kp_status kp__dra_arr(kp_dctx *d, const kp_tnode *obj, const char *key, uint32_t max,
                      const kp_tnode **out);
/* s (from node n, field) against rule; "" is Required. */
kp_status kp__dra_name(kp_dctx *d, const kp_tnode *n, const char *field, const char *s,
                       kp_dra_name_rule rule);
/* obj[key]: a string, required, validated by rule and interned. */
kp_status kp__dra_req_str(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                          kp_dra_name_rule rule, kp_str *out);
/* obj.selectors[].cel.expression (at most 32, each at most 10Ki bytes: the CEL text is kept,
 * compiled by core/cel.h). */
kp_status kp__dra_selectors(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, uint16_t *n,
                            kp_str **out);
/* One config entry's opaque (DeviceConfiguration: opaque required, driver, parameters). */
kp_status kp__dra_opaque(kp_dctx *d, const kp_tnode *cfg);
/* A v1.NodeSelector at obj[key] with exactly one term (multi: any count, the first kept). */
kp_status kp__dra_node_selector(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, const char *key,
                                bool one_term, kp_nsterm *out, bool *has);
/* Device tolerations at obj.tolerations (at most 16). */
kp_status kp__dra_tolerations(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, uint16_t *n,
                              kp_toleration **out);
/* A quantity node into *out. */
kp_status kp__dra_quantity(kp_dctx *d, const kp_tnode *n, const char *field, kp_quantity *out);
/* validateQualifiedName of key s (node n): "[domain/]cidentifier", stored with domain `driver`
 * when unqualified; full: a FullyQualifiedName (the domain required). */
kp_status kp__dra_qname(kp_dctx *d, kp_cluster *cl, const kp_tnode *n, const char *field,
                        const char *s, kp_str driver, bool full, kp_str *domain, kp_str *name);
/* The claim spec at obj (ResourceClaimSpec: devices.requests, constraints, config). */
kp_status kp__dra_claim_spec(kp_dctx *d, kp_cluster *cl, const kp_tnode *obj, kp_dra_version v,
                             kp_dra_claim_spec *out);
kp_status kp__dra_claim_status(kp_dctx *d, kp_cluster *cl, const kp_tnode *status, kp_dra_claim *c);
/* decode_dra_status.c (DRADeviceBindingConditions): a result's bindingConditions and
 * bindingFailureConditions; a claim's status.devices (after its allocation). */
kp_status kp__dra_result_binding(kp_dctx *d, kp_cluster *cl, const kp_tnode *t, kp_dra_result *r);
kp_status kp__dra_claim_devices(kp_dctx *d, kp_cluster *cl, const kp_tnode *status,
                                kp_dra_claim *c);
kp_status kp__dra_decode_slice(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_dra_version v,
                               kp_dra_slice *s);

#endif
