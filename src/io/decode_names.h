/* Object names as the API server validates them at a create (src/io/decode_names.c). */
#ifndef KP_IO_DECODE_NAMES_H
#define KP_IO_DECODE_NAMES_H

#include <stddef.h>

/* The messages (joined by "; ") the API server gives for metadata.name `name` of an object of
 * `kind`, written to buf; NULL when the name is valid. Per kind as each kind's validation passes
 * its rule to ValidateObjectMeta: a DNS-1123 label for Namespaces (ValidateNamespaceName),
 * Services (NameIsDNSLabel, RelaxedServiceNameValidation) and StatefulSets
 * (ValidateStatefulSetName); a path segment only for PodDisruptionBudgets (rest.BeforeCreate's
 * IsPathSegmentName: ValidatePodDisruptionBudget passes no rule); a DNS-1123 subdomain of at
 * most 52 characters for CronJobs (ValidateCronJobCreate); a DNS-1123 subdomain for every other
 * kind kprio loads (ValidatePodName, ValidateNodeName, ValidatePriorityClassName, ...). */
const char *kp__name_error(const char *kind, const char *name, char *buf, size_t cap);
/* The same for metadata.namespace (ValidateNamespaceName: a DNS-1123 label). */
const char *kp__namespace_error(const char *ns, char *buf, size_t cap);
/* IsDNS1123Label / IsDNS1123Subdomain of any name (DRA device, request and driver names). */
const char *kp__dns_label_error(const char *s, char *buf, size_t cap);
const char *kp__dns_subdomain_error(const char *s, char *buf, size_t cap);

#endif
