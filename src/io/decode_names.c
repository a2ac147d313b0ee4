/* Object names validated as the API server validates them at a create (decode_names.h): the
 * name rules of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Subdomain, IsDNS1123Label) and
 * of apimachinery/pkg/api/validate/content (IsPathSegmentName), with their messages. A name that
 * passes cannot carry a control character, a '/' or "..", so the tables, file names
 * (`--dump-summaries`) and paths built from it are safe. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "io/decode_names.h"

static const char *const SUBDOMAIN_MSG =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
static const char *const LABEL_MSG =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

static bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* dns1123LabelRegexp over s[0..n) */
static bool is_label(const char *s, size_t n) {
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1])) return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!alnum(s[i]) && s[i] != '-') return false;
    return true;
}

/* dns1123SubdomainRegexp: labels joined by '.' */
static bool is_subdomain(const char *s) {
    size_t n = strlen(s);
    if (n == 0) return false;
    for (const char *p = s;;) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        if (!is_label(p, l)) return false;
        if (!dot) return true;
        p = dot + 1;
    }
}

/* appends msg to buf ("; " between messages, as field.Invalid joins them) */
static void add(char *buf, size_t cap, const char *msg) {
    size_t l = strlen(buf);
    if (l + 1 < cap) snprintf(buf + l, cap - l, "%s%s", l ? "; " : "", msg);
}

/* IsDNS1123Subdomain */
static void subdomain(const char *name, char *buf, size_t cap) {
    if (strlen(name) > 253) add(buf, cap, "must be no more than 253 characters");
    if (!is_subdomain(name)) add(buf, cap, SUBDOMAIN_MSG);
}

/* IsDNS1123Label */
static void label(const char *name, char *buf, size_t cap) {
    size_t n = strlen(name);
    if (n > 63) add(buf, cap, "must be no more than 63 characters");
    if (!is_label(name, n)) add(buf, cap, LABEL_MSG);
}

/* IsPathSegmentName */
static void path_segment(const char *name, char *buf, size_t cap) {
    if (strcmp(name, ".") == 0) add(buf, cap, "may not be '.'");
    else if (strcmp(name, "..") == 0) add(buf, cap, "may not be '..'");
    if (strchr(name, '/')) add(buf, cap, "may not contain '/'");
    if (strchr(name, '%')) add(buf, cap, "may not contain '%'");
}

const char *kp__name_error(const char *kind, const char *name, char *buf, size_t cap) {
    if (!cap) return NULL;
    buf[0] = 0;
    if (strcmp(kind, "Namespace") == 0 || strcmp(kind, "Service") == 0 ||
        strcmp(kind, "StatefulSet") == 0) {
        label(name, buf, cap);
    } else if (strcmp(kind, "PodDisruptionBudget") == 0) {
        path_segment(name, buf, cap);
    } else {
        subdomain(name, buf, cap);
        /* ValidateCronJobCreate: DNS1035LabelMaxLength - 11, room for the Jobs' "-<time>" */
        if (strcmp(kind, "CronJob") == 0 && strlen(name) > 52)
            add(buf, cap, "must be no more than 52 characters");
    }
    return buf[0] ? buf : NULL;
}

const char *kp__namespace_error(const char *ns, char *buf, size_t cap) {
    if (!cap) return NULL;
    buf[0] = 0;
    label(ns, buf, cap);
    return buf[0] ? buf : NULL;
}

const char *kp__dns_label_error(const char *s, char *buf, size_t cap) {
    if (!cap) return NULL;
    buf[0] = 0;
    label(s, buf, cap);
    return buf[0] ? buf : NULL;
}

const char *kp__dns_subdomain_error(const char *s, char *buf, size_t cap) {
    if (!cap) return NULL;
    buf[0] = 0;
    subdomain(s, buf, cap);
    return buf[0] ? buf : NULL;
}
