/* Storage helpers (core/volume.h). */
#include <string.h>

#include "core/volume.h"

/* One element of a `__`-separated set: [*s, end) trimmed of spaces (strings.TrimSpace). */
static void trim(const char **b, const char **e) {
    while (*b < *e && strchr(" \t\n\v\f\r", **b)) (*b)++;
    while (*e > *b && strchr(" \t\n\v\f\r", (*e)[-1])) (*e)--;
}

/* Walks the elements of set, each trimmed; false when an element is empty (mirrors
 * LabelZonesToSet / stringToSet of k8s.io/cloud-provider/volume/helpers: the whole value is then
 * an error and the caller ignores the label). *found when z is one of them. */
static bool zone_walk(const char *set, const char *z, bool *found) {
    const char *p = set;
    for (;;) {
        const char *sep = strstr(p, "__");
        const char *end = sep ? sep : p + strlen(p);
        const char *b = p, *e = end;
        trim(&b, &e);
        if (b == e) return false;
        if (z && (size_t)(e - b) == strlen(z) && memcmp(b, z, (size_t)(e - b)) == 0) *found = true;
        if (!sep) return true;
        p = sep + 2;
    }
}

bool kp__zone_set_valid(const char *set) {
    bool f = false;
    return zone_walk(set, NULL, &f);
}

bool kp__zone_set_has(const char *set, const char *z) {
    bool f = false;
    return zone_walk(set, z, &f) && f;
}
